//! The Verilated RTL behind a safe API.
//!
//! The C++ side (`csrc/sim.cpp`) is a thin shim: it creates a model with its own
//! `VerilatedContext`, resets it, steps it in batches and dumps a VCD. Everything that can be
//! checked is checked here, in Rust.
//!
//! Every variant is built twice (`build.rs`): a fast build for regressions, whose top is the
//! wrapper `ptxfma_sim_top` (`rtl/sim/`, inputs sampled on the falling clock edge, untraced),
//! and a traced build of `ptxfma_top` itself, for waveforms. Both have the same ports, timing
//! and frames; [`Rtl::new`] picks one.
//!
//! Per cycle the shim reads [`IN_WORDS`] 64-bit input words, see [`encode_input`], and writes one
//! frame of 32-bit words, laid out as described in [`crate::frame`].

use ptxfma_model::machine::pipeline::PipeIn;

pub mod variant;

use crate::frame;
use crate::Error;
use variant::{port_problems, variant_names, VariantMeta, VARIANTS};

#[cxx::bridge(namespace = "ptxfma")]
mod ffi {
    unsafe extern "C++" {
        include!("ptxfma-cosim-engine/csrc/sim.h");

        type Sim;

        fn new_sim(
            variant: &str,
            trace: bool,
            rand_seed: i32,
            plusargs: &[String],
        ) -> Result<UniquePtr<Sim>>;
        fn frame_words(self: &Sim) -> usize;
        fn time(self: &Sim) -> u64;
        fn reset(self: Pin<&mut Sim>) -> Result<()>;
        fn run_batch(self: Pin<&mut Sim>, inputs: &[u64], frames: &mut [u32]) -> Result<()>;
        fn spin(self: Pin<&mut Sim>, inputs: &[u64], cycles: u64) -> Result<()>;
        fn open_trace(self: Pin<&mut Sim>, path: &str) -> Result<()>;
        fn close_trace(self: Pin<&mut Sim>) -> Result<()>;
        fn write_coverage(self: Pin<&mut Sim>, path: &str) -> Result<()>;
    }
}

// SAFETY: a `Sim` owns its model and its own `VerilatedContext` and makes that context the
// calling thread's current one on entry to every call, so it may move to another thread. It is
// never shared between threads (`Sync` is not implemented), so calls never overlap.
unsafe impl Send for ffi::Sim {}

/// The Verilator seed (`+verilator+seed+N`) for random-initialisation seed `seed`: a positive
/// 31-bit value, since Verilator's seed is an `int` and 0 means "from the time of day".
pub fn verilator_seed(seed: u64) -> i32 {
    // splitmix64 finaliser: neighbouring seeds give unrelated values.
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % 0x7FFF_FFFF) as i32 + 1
}

/// Serialises the construction of randomly initialised models: Verilator's generator is per
/// thread but reseeded whenever any context's seed is set, so a seed set by another worker
/// while this model draws its initial values would change them.
static RANDOM_INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The plusargs every model of the kit's RTL is started with (`--plusarg`), for the whole
/// process, as Verilator's own `Verilated::commandArgs` would be.
static PLUSARGS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// Sets the plusargs (`+NAME=VALUE` each) of every model built after it, once per process:
/// its RTL reads them with `$value$plusargs` (the mutant schemata of `make mutate`).
pub fn set_plusargs(args: Vec<String>) -> Result<(), Error> {
    if let Some(bad) = args
        .iter()
        .find(|a| !a.starts_with('+') || a.len() < 2 || a.contains(char::is_whitespace))
    {
        return Err(Error::new(format!(
            "--plusarg {bad:?}: a plusarg is `+NAME` or `+NAME=VALUE`, without spaces"
        )));
    }
    PLUSARGS
        .set(args)
        .map_err(|_| Error::new("the plusargs are set once per process"))
}

/// What [`set_plusargs`] set (none by default).
pub fn plusargs() -> &'static [String] {
    PLUSARGS.get().map_or(&[], Vec::as_slice)
}

/// 64-bit input words per cycle.
pub const IN_WORDS: usize = 4;

/// The four input words of one cycle: `[valid | reset << 1 | tag << 16 | ctrl << 32, a, b, c]`;
/// `reset` holds `rst_ni` low through the cycle.
#[inline]
pub fn encode_input(p: &PipeIn) -> [u64; IN_WORDS] {
    [
        p.valid as u64
            | (p.reset as u64) << 1
            | (p.tag as u64) << 16
            | ((p.ctrl & ((1 << ptxfma_model::ctrl::CTRL_BITS) - 1)) as u64) << 32,
        p.a,
        p.b,
        p.c,
    ]
}

/// Looks a variant up by name.
pub fn variant(name: &str) -> Result<&'static VariantMeta, Error> {
    if let Some(dir) = name.strip_prefix("dut:") {
        return crate::dut::load::open(std::path::Path::new(dir)).map(|l| &l.meta);
    }
    VARIANTS.iter().find(|v| v.name == name).ok_or_else(|| {
        Error::new(format!(
            "no RTL variant `{name}` in this build (built: {}); variants are added with the \
             cargo feature `fault-sticky` or PTXFMA_RTL_VARIANTS (see cosim/engine/build.rs)",
            variant_names().join(", ")
        ))
    })
}

/// Checks that the RTL ports have the widths the model's registers need. A package that has
/// drifted from `model/src/regs/banks.rs` is reported here, by name, instead of as a confusing
/// divergence.
pub fn check_ports(v: &VariantMeta) -> Result<(), Error> {
    let tag_bits = match v.name.strip_prefix("dut:") {
        Some(dir) => {
            crate::dut::load::open(std::path::Path::new(dir))?
                .record
                .tag_width
        }
        None => 16,
    };
    let problems = port_problems(v, tag_bits);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "RTL variant `{}` does not match the model (rtl/ptxfma_pkg.sv vs \
             model/src/regs/banks.rs): {}",
            v.name,
            problems.join("; ")
        )))
    }
}

/// One Verilated RTL instance.
pub struct Rtl {
    sim: Backend,
    variant: &'static str,
    trace: bool,
    /// The design has stage registers; otherwise the shim writes only the port words, and
    /// [`Rtl::run_encoded`] spreads them into frames whose register banks stay zero.
    registers: bool,
    enc: Vec<u64>,
    ports: Vec<u32>,
    /// A `dut build` design with tags narrower than 16 bits.
    tags: Option<crate::dut::tags::TagMap>,
    /// Inputs with their tags narrowed for it.
    narrowed: Vec<u64>,
    /// A `dut build` design with a ready/valid handshake.
    handshake: Option<crate::dut::handshake::Handshake>,
}

/// A variant built into this binary, or a design loaded from a `dut build` directory.
enum Backend {
    Built(cxx::UniquePtr<ffi::Sim>),
    Loaded(crate::dut::load::Instance),
}

impl Rtl {
    /// A fresh simulator of `variant`, reset: the traced build if `trace` (the only one that
    /// can open a VCD; slow, for waveform windows), else the fast build.
    pub fn new(variant: &str, trace: bool) -> Result<Rtl, Error> {
        Rtl::with_random_init(variant, trace, None)
    }

    /// Like [`Rtl::new`], with the initial state (before the reset) drawn at random from
    /// `seed` when it is `Some` (`+verilator+rand+reset+2 +verilator+seed+N`; the variant must
    /// be Verilated with `--x-initial unique`), or zero.
    pub fn with_random_init(variant: &str, trace: bool, seed: Option<u64>) -> Result<Rtl, Error> {
        let meta = self::variant(variant)?;
        check_ports(meta)?;
        if let Some(dir) = meta.name.strip_prefix("dut:") {
            if seed.is_some() {
                return Err(Error::new(
                    "--random-init needs a variant Verilated with --x-initial unique; a `dut \
                     build` design is not",
                ));
            }
            let lib = crate::dut::load::open(std::path::Path::new(dir))?;
            let sim = crate::dut::load::Instance::new(lib, trace, 0)?;
            if sim.frame_words() != frame::PORT_WORDS {
                return Err(Error::new(format!(
                    "design frame is {} words, a ports-only frame is {}",
                    sim.frame_words(),
                    frame::PORT_WORDS
                )));
            }
            let bits = lib.record.tag_width;
            return Ok(Rtl {
                sim: Backend::Loaded(sim),
                variant: meta.name,
                trace,
                registers: false,
                enc: Vec::new(),
                ports: Vec::new(),
                tags: (bits < 16).then(|| crate::dut::tags::TagMap::new(bits)),
                narrowed: Vec::new(),
                handshake: lib.record.handshake.then(Default::default),
            });
        }
        let sim = match seed {
            None => ffi::new_sim(meta.name, trace, 0, plusargs()),
            Some(s) => {
                if !meta.random_init() {
                    return Err(Error::new(format!(
                        "RTL variant `{}` was not Verilated with --x-initial unique, so its \
                         initial state cannot be random (build with the cargo feature \
                         `random-init` and use --rtl random_init)",
                        meta.name
                    )));
                }
                let _one = RANDOM_INIT.lock().unwrap_or_else(|p| p.into_inner());
                ffi::new_sim(meta.name, trace, verilator_seed(s), plusargs())
            }
        }
        .map_err(|e| Error::new(e.what()))?;
        let words = if meta.registers {
            frame::WORDS
        } else {
            frame::PORT_WORDS
        };
        if sim.frame_words() != words {
            return Err(Error::new(format!(
                "RTL frame is {} words, the model's is {words}",
                sim.frame_words(),
            )));
        }
        Ok(Rtl {
            sim: Backend::Built(sim),
            variant: meta.name,
            trace,
            registers: meta.registers,
            enc: Vec::new(),
            ports: Vec::new(),
            tags: None,
            narrowed: Vec::new(),
            handshake: None,
        })
    }

    pub fn variant(&self) -> &'static str {
        self.variant
    }

    /// Where its frames stand against the edge that hands a result over: a handshake design's
    /// outputs are read before the edge that takes the result, any other's after the edge
    /// that puts it on the outputs.
    pub fn handover(&self) -> crate::ports::Handover {
        if self.handshake.is_some() {
            crate::ports::Handover::ThisEdge
        } else {
            crate::ports::Handover::NextEdge
        }
    }

    /// Whether the design shows its stage registers (else only the port words of its frames
    /// are meaningful).
    pub fn has_registers(&self) -> bool {
        self.registers
    }

    /// Asserts reset for one cycle.
    pub fn reset(&mut self) -> Result<(), Error> {
        if let Some(h) = &mut self.handshake {
            h.reset();
        }
        if let Some(t) = &mut self.tags {
            t.clear();
        }
        match &mut self.sim {
            Backend::Built(s) => s.pin_mut().reset().map_err(rtl_err),
            Backend::Loaded(s) => s.reset(),
        }
    }

    /// Trace time at which the next cycle starts (its rising edge is at +5).
    pub fn time(&self) -> u64 {
        match &self.sim {
            Backend::Built(s) => s.time(),
            Backend::Loaded(s) => s.time(),
        }
    }

    /// One cycle per 4 input words, the shim's frame words per cycle.
    fn run_batch(&mut self, inputs: &[u64], frames: &mut [u32]) -> Result<(), Error> {
        match &mut self.sim {
            Backend::Built(s) => s.pin_mut().run_batch(inputs, frames).map_err(rtl_err),
            Backend::Loaded(s) => s.run_batch(inputs, frames),
        }
    }

    /// Runs one cycle per already encoded input (`IN_WORDS` each), one frame per cycle.
    pub fn run_encoded(&mut self, inputs: &[u64], frames: &mut [u32]) -> Result<(), Error> {
        if !inputs.len().is_multiple_of(IN_WORDS)
            || frames.len() != inputs.len() / IN_WORDS * frame::WORDS
        {
            return Err(Error::new("run_encoded: buffer sizes do not match"));
        }
        if self.registers {
            return self.run_batch(inputs, frames);
        }
        let mut ports = std::mem::take(&mut self.ports);
        ports.resize(inputs.len() / IN_WORDS * frame::PORT_WORDS, 0);
        let r = if let (Some(h), Backend::Loaded(dut)) = (&mut self.handshake, &mut self.sim) {
            h.run(dut, self.tags.as_mut(), inputs, &mut ports)
        } else {
            self.run_ports(inputs, &mut ports)
        };
        for (f, p) in frames
            .chunks_exact_mut(frame::WORDS)
            .zip(ports.chunks_exact(frame::PORT_WORDS))
        {
            f[..frame::PORT_WORDS].copy_from_slice(p);
            f[frame::PORT_WORDS..].fill(0);
        }
        self.ports = ports;
        r
    }

    /// Runs one cycle per encoded input and writes only the port words of each cycle
    /// ([`frame::PORT_WORDS`]: valid, tag, d low, d high), tags widened and a handshake
    /// design's results taken as [`Rtl::run_encoded`] does: for `dut exhaust`, which reads
    /// nothing else, so that a design without registers is not spread into whole frames.
    pub fn run_ports_only(&mut self, inputs: &[u64], ports: &mut [u32]) -> Result<(), Error> {
        let cycles = inputs.len() / IN_WORDS;
        if !inputs.len().is_multiple_of(IN_WORDS) || ports.len() != cycles * frame::PORT_WORDS {
            return Err(Error::new("run_ports_only: buffer sizes do not match"));
        }
        if self.registers {
            let mut frames = std::mem::take(&mut self.ports);
            frames.resize(cycles * frame::WORDS, 0);
            let r = self.run_batch(inputs, &mut frames);
            for (p, f) in ports
                .chunks_exact_mut(frame::PORT_WORDS)
                .zip(frames.chunks_exact(frame::WORDS))
            {
                p.copy_from_slice(&f[..frame::PORT_WORDS]);
            }
            self.ports = frames;
            return r;
        }
        if let (Some(h), Backend::Loaded(dut)) = (&mut self.handshake, &mut self.sim) {
            return h.run(dut, self.tags.as_mut(), inputs, ports);
        }
        self.run_ports(inputs, ports)
    }

    /// The port words of a ports-only design, one cycle per input, tags narrowed and widened
    /// for a design with narrower tags.
    fn run_ports(&mut self, inputs: &[u64], ports: &mut [u32]) -> Result<(), Error> {
        match self.tags.take() {
            None => self.run_batch(inputs, ports),
            Some(mut map) => {
                // Narrow the tags going in; widen, cycle by cycle in order, those coming out.
                let mut narrowed = std::mem::take(&mut self.narrowed);
                narrowed.clear();
                narrowed.extend(
                    inputs
                        .chunks_exact(IN_WORDS)
                        .flat_map(|w| [map.narrow(w[0]), w[1], w[2], w[3]]),
                );
                let r = self.run_batch(&narrowed, ports);
                for (inp, p) in inputs
                    .chunks_exact(IN_WORDS)
                    .zip(ports.chunks_exact_mut(frame::PORT_WORDS))
                {
                    map.issue(inp[0]);
                    if p[0] & 1 != 0 {
                        p[1] = map.retire(p[1]);
                    }
                }
                self.narrowed = narrowed;
                self.tags = Some(map);
                r
            }
        }
    }

    /// Runs one cycle per input, one frame per cycle.
    pub fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        let mut enc = std::mem::take(&mut self.enc);
        enc.clear();
        enc.extend(inputs.iter().flat_map(encode_input));
        let r = self.run_encoded(&enc, frames);
        self.enc = enc;
        r
    }

    /// Runs `cycles` cycles over the encoded inputs (cyclically) without reading anything
    /// back: the speed limit of the Verilated model in a pure C++ loop.
    pub fn spin(&mut self, inputs: &[u64], cycles: u64) -> Result<(), Error> {
        if inputs.is_empty() || !inputs.len().is_multiple_of(IN_WORDS) {
            return Err(Error::new("spin: empty or ragged input buffer"));
        }
        match &mut self.sim {
            Backend::Built(s) => s.pin_mut().spin(inputs, cycles).map_err(rtl_err),
            Backend::Loaded(s) => s.spin(inputs, cycles),
        }
    }

    /// Starts dumping a VCD to `path` (the simulator must have been created with `trace`).
    pub fn open_trace(&mut self, path: &std::path::Path) -> Result<(), Error> {
        if !self.trace {
            return Err(Error::new(
                "open_trace: this simulator was created without tracing",
            ));
        }
        let p = path
            .to_str()
            .ok_or_else(|| Error::new(format!("{}: not valid UTF-8", path.display())))?;
        match &mut self.sim {
            Backend::Built(s) => s.pin_mut().open_trace(p).map_err(rtl_err),
            Backend::Loaded(s) => s.open_trace(p),
        }
    }

    /// Closes the VCD. A write to it that failed (a full disk, `ulimit -f`) is the error
    /// "cannot write PATH: REASON", with the path it was opened on: the file is incomplete.
    pub fn close_trace(&mut self, path: &std::path::Path) -> Result<(), Error> {
        let closed = match &mut self.sim {
            Backend::Built(s) => s.pin_mut().close_trace().map_err(rtl_err),
            Backend::Loaded(s) => s.close_trace(),
        };
        closed.map_err(|e| {
            let reason = e.to_string();
            let reason = reason.strip_prefix("RTL: ").unwrap_or(&reason).to_owned();
            Error::new(format!("cannot write {}: {reason}", path.display()))
        })
    }

    /// Writes the coverage counts of this model (since it was built) to `path`, in Verilator's
    /// `.dat` format, for `verilator_coverage`. Only for a coverage variant.
    pub fn write_coverage(&mut self, path: &std::path::Path) -> Result<(), Error> {
        if !self::variant(self.variant)?.coverage() {
            return Err(Error::new(format!(
                "RTL variant `{}` has no coverage points (build with the cargo feature \
                 `rtl-coverage` and use --rtl coverage)",
                self.variant
            )));
        }
        let p = path
            .to_str()
            .ok_or_else(|| Error::new(format!("{}: not valid UTF-8", path.display())))?;
        match &mut self.sim {
            Backend::Built(s) => s.pin_mut().write_coverage(p).map_err(rtl_err),
            Backend::Loaded(_) => Err(Error::new("a `dut build` design has no coverage points")),
        }
    }
}

fn rtl_err(e: cxx::Exception) -> Error {
    Error::new(format!("RTL: {}", e.what()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Bank;
    use crate::stim::{Family, Stimulus};

    /// Operations of `fam` with a bubble every fifth cycle and an idle drain, tagged by cycle.
    fn stream(seed: u64, fam: Family, n: usize) -> Vec<PipeIn> {
        let mut out = Vec::new();
        for v in Stimulus::new(seed, &[fam]).take(n) {
            if out.len() % 5 == 4 {
                out.push(PipeIn::default());
            }
            out.push(v.input(0));
        }
        out.extend([PipeIn::default(); 4]);
        for (i, p) in out.iter_mut().enumerate() {
            p.tag = i as u16;
        }
        out
    }

    /// The fast build (`ptxfma_sim_top`, inputs sampled on the falling edge, clock high in
    /// reset) and the traced build (`ptxfma_top` itself) agree on every frame, from the first
    /// cycle after a reset, whether the reset comes first or after a run; so do the two builds
    /// of a ports-only design.
    #[test]
    fn fast_and_traced_builds_give_the_same_frames() {
        for (name, registers) in VARIANTS.iter().map(|v| (v.name, v.registers)) {
            let mut fast = Rtl::new(name, false).unwrap();
            let mut traced = Rtl::new(name, true).unwrap();
            for (k, fam) in Family::ALL.into_iter().enumerate() {
                let inputs = stream(k as u64 + 1, fam, 400);
                let mut f = vec![0u32; inputs.len() * frame::WORDS];
                let mut t = f.clone();
                fast.reset().unwrap();
                traced.reset().unwrap();
                fast.run(&inputs, &mut f).unwrap();
                traced.run(&inputs, &mut t).unwrap();
                let first = f
                    .chunks_exact(frame::WORDS)
                    .zip(t.chunks_exact(frame::WORDS))
                    .position(|(a, b)| a != b);
                assert_eq!(first, None, "variant {name}, {}: cycle", fam.name());
                // Operation 0 is in s1 after the first edge: the first cycle was not lost. (A
                // design with only ports has zero banks; its frames were compared above.)
                let s1 = &f[Bank::S1.range()];
                if registers {
                    assert_ne!(s1, vec![0u32; s1.len()].as_slice(), "{}", fam.name());
                }
            }
        }
    }

    #[test]
    fn the_build_is_described() {
        assert!(
            variant::BUILDS.contains("fast = ptxfma_sim_top"),
            "{}",
            variant::BUILDS
        );
        assert!(
            variant::BUILDS.contains("traced = ptxfma_top --trace"),
            "{}",
            variant::BUILDS
        );
    }
}

//! The lockstep engine: the RTL and the golden reference get the same input every cycle, and
//! every cycle's frames (output ports and all four register banks) are compared; or, with
//! [`Compare::Ports`], only the retired results, matched by tag ([`crate::ports`]).
//!
//! Speed: crossing into C++ once per cycle would dominate, so the RTL runs in batches of
//! cycles (the shim fills a frame per cycle). The reference runs either on a second thread, one
//! batch ahead, so the two sides overlap when a core is spare ([`Config::overlap`]), or in the
//! calling thread, one batch after the other.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

use crate::coverage::Coverage;
use crate::frame::{self, Bank, FieldDiff};
use crate::golden::Golden;
use crate::ports::{self, Compare, PortsDiff};
use crate::rtl::{self, Rtl};
use crate::stim::Family;
use crate::Error;

pub use crate::stream::Stream;

/// Knobs of a lockstep run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Cycles per RTL batch.
    pub batch: usize,
    /// Stop after this many divergent operations (1: stop at the first).
    pub max_divergences: usize,
    /// Input history kept for the waveform window, in cycles.
    pub window: usize,
    /// Run the reference on a thread of its own, one batch ahead of the RTL (faster when a
    /// core is spare), rather than in the calling thread.
    pub overlap: bool,
    /// Keep the RTL's retired results (`Outcome::retired`).
    pub retired: bool,
    /// Sample functional coverage on the reference (`Outcome::coverage`).
    pub coverage: bool,
    /// Whole frames every cycle, or only the retired results.
    pub compare: Compare,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            batch: 4096,
            max_divergences: 1,
            window: 32,
            overlap: true,
            retired: false,
            coverage: false,
            compare: Compare::Registers,
        }
    }
}

/// One cycle in which the RTL and the reference disagree.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// Cycle (from 0 after reset) after whose rising edge the banks differ.
    pub cycle: u64,
    /// The first differing bank in pipeline order.
    pub bank: Bank,
    /// Its differing fields, most significant first.
    pub fields: Vec<FieldDiff>,
    /// Every differing bank in this cycle.
    pub banks: Vec<Bank>,
    /// Cycle in which the operation now in `bank` was presented; `None` if it is the reset
    /// state that has not yet been replaced.
    pub issue: Option<u64>,
    /// That operation's input.
    pub input: Option<PipeIn>,
    /// Both frames of the cycle.
    pub expected: Vec<u32>,
    pub actual: Vec<u32>,
    /// With [`Compare::Ports`]: what went wrong at the ports (`bank` is then
    /// [`Bank::Ports`], `cycle` the cycle it was seen in, `issue` and `input` the operation's,
    /// none for a tag that was never issued).
    pub ports: Option<PortsDiff>,
}

/// The result of running one stream.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Valid operations presented (all of them compared in every stage they reached).
    pub vectors: u64,
    /// Of those, how many of each family, in [`Family::ALL`] order.
    pub by_family: [u64; Family::ALL.len()],
    pub cycles: u64,
    pub seconds: f64,
    pub divergences: Vec<Divergence>,
    /// Inputs of the cycles up to and including the first divergence (at most
    /// `Config::window` of them), and the cycle of the first one: the waveform's window.
    pub window: Vec<PipeIn>,
    pub window_start: u64,
    /// Stopped by [`Hooks::stop`] before the end of the stream.
    pub interrupted: bool,
    /// With [`Config::retired`]: (tag, d) of every result the RTL retired, in order.
    pub retired: Vec<(u16, u64)>,
    /// The reference's functional coverage of this stream, when it samples it.
    pub coverage: Option<Coverage>,
}

struct Batch {
    start: u64,
    inputs: Vec<PipeIn>,
    enc: Vec<u64>,
    expected: Vec<u32>,
}

impl Batch {
    fn with_capacity(batch: usize) -> Batch {
        Batch {
            start: 0,
            inputs: Vec::with_capacity(batch),
            enc: Vec::with_capacity(batch * rtl::IN_WORDS),
            expected: Vec::new(),
        }
    }

    /// Takes the next `batch` cycles of `stream` starting at cycle `start`, and the reference's
    /// frames for them. False when the stream is exhausted.
    fn fill(
        &mut self,
        stream: &mut impl Iterator<Item = PipeIn>,
        golden: &mut dyn Golden,
        start: u64,
        batch: usize,
    ) -> Result<bool, Error> {
        self.start = start;
        self.inputs.clear();
        self.inputs.extend(stream.by_ref().take(batch));
        if self.inputs.is_empty() {
            return Ok(false);
        }
        self.enc.clear();
        self.enc
            .extend(self.inputs.iter().flat_map(rtl::encode_input));
        self.expected.resize(self.inputs.len() * frame::WORDS, 0);
        golden.run(&self.inputs, &mut self.expected)?;
        Ok(true)
    }
}

/// What a caller can see and steer while a stream runs.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// When set, the run stops after the batch in progress (`Outcome::interrupted`).
    pub stop: Option<&'a AtomicBool>,
    /// Valid operations compared so far are added here after every batch.
    pub done: Option<&'a AtomicU64>,
}

/// The comparing side: runs the RTL on each batch and compares its frames with the reference's.
struct Checker<'c> {
    cfg: &'c Config,
    hooks: Hooks<'c>,
    out: Outcome,
    hist_cap: usize,
    hist: VecDeque<PipeIn>,
    seen: HashSet<Option<u64>>,
    actual: Vec<u32>,
    /// The last control word counted and its family's index (decoding every word is not free).
    family_memo: (u32, usize),
    /// With [`Compare::Ports`]: the operations in flight.
    ports: Option<ports::Checker>,
    found: Vec<ports::Found>,
    /// A batch stopped the run.
    stopped: bool,
}

impl<'c> Checker<'c> {
    fn new(cfg: &'c Config, hooks: Hooks<'c>) -> Checker<'c> {
        let hist_cap = cfg.window.max(LATENCY);
        Checker {
            cfg,
            hooks,
            out: Outcome::default(),
            hist_cap,
            hist: VecDeque::with_capacity(hist_cap + cfg.batch.max(1)),
            seen: HashSet::new(),
            actual: Vec::new(),
            family_memo: (u32::MAX, 0),
            ports: match cfg.compare {
                Compare::Registers => None,
                Compare::Ports { bound } => Some(ports::Checker::new(bound)),
            },
            found: Vec::new(),
            stopped: false,
        }
    }

    /// Checks cycle `i` of the batch at the ports; true when the run must stop.
    fn check_ports(&mut self, b: &Batch, i: usize) -> bool {
        let Some(pc) = &mut self.ports else {
            return false;
        };
        let r = i * frame::WORDS..i * frame::WORDS + frame::PORT_WORDS;
        let cycle = b.start + i as u64;
        pc.cycle(
            cycle,
            &b.inputs[i],
            &b.expected[r.clone()],
            &self.actual[r],
            &mut self.found,
        );
        if self.found.is_empty() {
            return false;
        }
        let i = &b.inputs[i];
        for f in std::mem::take(&mut self.found) {
            self.push_ports(f, Some((b, i)));
        }
        self.out.divergences.len() >= self.cfg.max_divergences
    }

    /// Records a ports divergence; `at` is the batch and cycle it was found in, for the
    /// waveform window (none at the end of the stream).
    fn push_ports(&mut self, f: ports::Found, at: Option<(&Batch, &PipeIn)>) {
        if self.out.divergences.len() >= self.cfg.max_divergences {
            return;
        }
        if self.out.divergences.is_empty() {
            match at {
                Some((b, inp)) => {
                    let i = (f.cycle - b.start) as usize;
                    debug_assert_eq!(&b.inputs[i], inp);
                    Self::set_window(&mut self.out, &self.hist, self.hist_cap, b, i, f.cycle);
                }
                None => {
                    self.out.window = self.hist.iter().copied().collect();
                    self.out.window_start = f.cycle - self.out.window.len() as u64;
                }
            }
        }
        let p = &f.diff;
        let (width, e, a) = match p.fault {
            ports::Fault::Value => (64, p.expected.unwrap_or(0), p.actual.unwrap_or(0)),
            ports::Fault::Unissued => (16, 0, p.tag as u64),
            ports::Fault::Unretired => (1, 1, 0),
        };
        let port = |valid: bool, d: Option<u64>| {
            let d = d.unwrap_or(0);
            vec![valid as u32, p.tag as u32, d as u32, (d >> 32) as u32]
        };
        self.out.divergences.push(Divergence {
            cycle: f.cycle,
            bank: Bank::Ports,
            fields: vec![FieldDiff {
                name: p.fault.port().to_string(),
                width,
                expected: [e, 0, 0],
                actual: [a, 0, 0],
            }],
            banks: vec![Bank::Ports],
            issue: f.issue,
            input: f.input,
            expected: port(p.expected.is_some(), p.expected),
            actual: port(p.actual.is_some(), p.actual),
            ports: Some(f.diff),
        });
    }

    /// The end of the stream, `cycle` being the first cycle after it: with
    /// [`Compare::Ports`], whatever is still in flight never retired.
    fn finish(&mut self, cycle: u64) {
        if self.stopped {
            return;
        }
        let Some(pc) = &mut self.ports else {
            return;
        };
        let mut found = Vec::new();
        pc.finish(cycle, &mut found);
        for f in found {
            self.push_ports(f, None);
        }
    }

    /// The outcome once the stream has run: unless interrupted, the end of the stream is
    /// checked too ([`Checker::finish`]).
    fn into_outcome(mut self) -> Outcome {
        if !self.out.interrupted {
            self.finish(self.out.cycles);
        }
        self.out
    }

    /// Keeps the inputs of the cycles up to cycle `i` of the batch (`cycle`) as the window of
    /// the first divergence.
    fn set_window(
        out: &mut Outcome,
        hist: &VecDeque<PipeIn>,
        hist_cap: usize,
        b: &Batch,
        i: usize,
        cycle: u64,
    ) {
        let keep = (i + 1).min(hist_cap);
        let from_hist = hist_cap.saturating_sub(i + 1).min(hist.len());
        out.window = hist.iter().skip(hist.len() - from_hist).copied().collect();
        out.window.extend_from_slice(&b.inputs[i + 1 - keep..=i]);
        out.window_start = cycle + 1 - out.window.len() as u64;
    }

    /// Runs and checks one batch; true when the run must stop (enough divergences, or asked).
    fn check(&mut self, rtl: &mut Rtl, b: &Batch) -> Result<bool, Error> {
        if self.hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.out.interrupted = true;
            return Ok(true);
        }
        let n = b.inputs.len();
        self.actual.resize(n * frame::WORDS, 0);
        rtl.run_encoded(&b.enc, &mut self.actual)?;
        let mut stop_at = None;
        if self.ports.is_some() {
            for i in 0..n {
                if self.check_ports(b, i) {
                    stop_at = Some(i + 1);
                    break;
                }
            }
        } else if b.expected != self.actual {
            for i in 0..n {
                if self.compare_cycle(b, i)
                    && self.out.divergences.len() >= self.cfg.max_divergences
                {
                    stop_at = Some(i + 1);
                    break;
                }
            }
        }
        let done = stop_at.unwrap_or(n);
        if self.cfg.retired {
            for f in self.actual[..done * frame::WORDS].chunks_exact(frame::WORDS) {
                // The output ports lead the frame: valid, tag, d (low word first).
                if f[0] & 1 != 0 {
                    let d = f[2] as u64 | (f[3] as u64) << 32;
                    self.out.retired.push((f[1] as u16, d));
                }
            }
        }
        let mut valid = 0;
        for p in b.inputs[..done].iter().filter(|p| p.issues()) {
            valid += 1;
            if p.ctrl != self.family_memo.0 {
                self.family_memo = (p.ctrl, family_index(p.ctrl));
            }
            self.out.by_family[self.family_memo.1] += 1;
        }
        self.out.cycles += done as u64;
        self.out.vectors += valid;
        if let Some(d) = self.hooks.done {
            d.fetch_add(valid, Ordering::Relaxed);
        }
        self.hist.extend(&b.inputs[..done]);
        let excess = self.hist.len().saturating_sub(self.hist_cap);
        self.hist.drain(..excess);
        self.stopped = stop_at.is_some();
        Ok(self.stopped)
    }

    /// Compares cycle `i` of the batch; true when it adds a divergence.
    fn compare_cycle(&mut self, b: &Batch, i: usize) -> bool {
        let r = i * frame::WORDS..(i + 1) * frame::WORDS;
        let (e, a) = (&b.expected[r.clone()], &self.actual[r]);
        if e == a {
            return false;
        }
        let cycle = b.start + i as u64;
        let banks = frame::differing_banks(e, a);
        // Name the earliest bank whose operation has not been reported yet.
        let issue_of = |bank: Bank| cycle.checked_sub(bank.age());
        let Some(&bank) = banks.iter().find(|&&k| !self.seen.contains(&issue_of(k))) else {
            return false;
        };
        for &k in &banks {
            self.seen.insert(issue_of(k));
        }
        let hist = &self.hist;
        let input_of = |c: u64| {
            if c >= b.start {
                b.inputs[(c - b.start) as usize]
            } else {
                hist[hist.len() - (b.start - c) as usize]
            }
        };
        // A reset since the operation's issue cycle (or in it) leaves the reset state there.
        let issue = issue_of(bank).filter(|&c| (c..=cycle).all(|x| !input_of(x).reset));
        let input = issue.map(input_of);
        if self.out.divergences.is_empty() {
            Self::set_window(&mut self.out, &self.hist, self.hist_cap, b, i, cycle);
        }
        self.out.divergences.push(Divergence {
            cycle,
            bank,
            fields: frame::differing_fields(bank, e, a),
            banks,
            issue,
            input,
            expected: e.to_vec(),
            actual: a.to_vec(),
            ports: None,
        });
        true
    }
}

/// The position in [`Family::ALL`] of the family of control word `ctrl`.
pub fn family_index(ctrl: u32) -> usize {
    let f = Family::of(&ptxfma_model::machine::ctrl::Ctrl::decode(ctrl));
    Family::ALL.iter().position(|&x| x == f).unwrap_or(0)
}

/// Runs `stream` through `rtl` and `golden` from reset, comparing every cycle.
pub fn run(
    rtl: &mut Rtl,
    golden: &mut dyn Golden,
    stream: impl Iterator<Item = PipeIn> + Send,
    cfg: &Config,
) -> Result<Outcome, Error> {
    run_with(rtl, golden, stream, cfg, Hooks::default())
}

/// [`run`], with a stop flag and a progress counter.
pub fn run_with(
    rtl: &mut Rtl,
    golden: &mut dyn Golden,
    stream: impl Iterator<Item = PipeIn> + Send,
    cfg: &Config,
    hooks: Hooks<'_>,
) -> Result<Outcome, Error> {
    let drain = drain_cycles(rtl, cfg)?;
    let stream = stream.chain(std::iter::repeat_n(PipeIn::default(), drain));
    reset(rtl, golden, cfg)?;
    let t0 = Instant::now();
    let mut checker = Checker::new(cfg, hooks);
    if cfg.overlap {
        overlapped(rtl, golden, stream, &mut checker)?;
    } else {
        inline(rtl, golden, stream, &mut checker)?;
    }
    let mut out = checker.into_outcome();
    out.seconds = t0.elapsed().as_secs_f64();
    out.coverage = golden.take_coverage();
    Ok(out)
}

/// The idle cycles that follow the stream: ports-only checking gives every operation `bound`
/// more cycles to retire; register checking needs a design with its registers on ports.
fn drain_cycles(rtl: &Rtl, cfg: &Config) -> Result<usize, Error> {
    match cfg.compare {
        Compare::Registers if !rtl.has_registers() => Err(Error::PortsOnly {
            variant: rtl.variant().to_string(),
        }),
        Compare::Registers => Ok(0),
        Compare::Ports { bound } => Ok(bound as usize),
    }
}

/// Both sides to their reset state, and the reference's coverage cleared when it is sampled.
fn reset(rtl: &mut Rtl, golden: &mut dyn Golden, cfg: &Config) -> Result<(), Error> {
    rtl.reset()?;
    golden.reset()?;
    if cfg.coverage {
        golden.enable_coverage();
        golden.take_coverage();
    }
    Ok(())
}

/// Both sides in the calling thread, one batch after the other.
fn inline(
    rtl: &mut Rtl,
    golden: &mut dyn Golden,
    mut stream: impl Iterator<Item = PipeIn>,
    checker: &mut Checker<'_>,
) -> Result<(), Error> {
    let batch = checker.cfg.batch.max(1);
    let mut b = Batch::with_capacity(batch);
    let mut start = 0;
    while b.fill(&mut stream, golden, start, batch)? {
        start += b.inputs.len() as u64;
        if checker.check(rtl, &b)? {
            break;
        }
    }
    Ok(())
}

/// The reference on a second thread, one batch ahead, so the two sides overlap.
fn overlapped(
    rtl: &mut Rtl,
    golden: &mut dyn Golden,
    stream: impl Iterator<Item = PipeIn> + Send,
    checker: &mut Checker<'_>,
) -> Result<(), Error> {
    let batch = checker.cfg.batch.max(1);
    let golden_name = golden.name();
    let (tx, rx) = mpsc::sync_channel::<Result<Batch, Error>>(2);
    let (back_tx, back_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|s| -> Result<(), Error> {
        let worker = s.spawn(move || fill_batches(stream, golden, batch, &tx, &back_rx));
        let compared = check_batches(rtl, checker, &rx, &back_tx);
        // Unblock and stop the reference's thread whatever happened here.
        drop(rx);
        let joined = worker.join();
        compared?;
        joined.map_err(|p| Error::ReferencePanicked {
            reference: golden_name,
            message: panic_text(&p),
        })
    })
}

/// The reference's thread of [`overlapped`]: fills batches (reusing those `back` returns) and
/// sends them on `tx`, until the stream ends, the reference fails (the error is sent) or the
/// receiver is gone.
fn fill_batches(
    mut stream: impl Iterator<Item = PipeIn>,
    golden: &mut dyn Golden,
    batch: usize,
    tx: &mpsc::SyncSender<Result<Batch, Error>>,
    back: &mpsc::Receiver<Batch>,
) {
    let mut start = 0u64;
    loop {
        let mut b = back
            .try_recv()
            .unwrap_or_else(|_| Batch::with_capacity(batch));
        let r = match b.fill(&mut stream, golden, start, batch) {
            Ok(false) => return,
            Ok(true) => {
                start += b.inputs.len() as u64;
                Ok(b)
            }
            Err(e) => Err(e),
        };
        let failed = r.is_err();
        if tx.send(r).is_err() || failed {
            return;
        }
    }
}

/// The comparing side of [`overlapped`]: checks each batch from `rx` and hands it `back` for
/// reuse, until the stream ends or the run must stop.
fn check_batches(
    rtl: &mut Rtl,
    checker: &mut Checker<'_>,
    rx: &mpsc::Receiver<Result<Batch, Error>>,
    back: &mpsc::Sender<Batch>,
) -> Result<(), Error> {
    for msg in rx.iter() {
        let b = msg?;
        if checker.check(rtl, &b)? {
            return Ok(());
        }
        let _ = back.send(b);
    }
    Ok(())
}

/// The message of a panic payload.
pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

//! Shared test helpers: a reference that misbehaves on purpose, VCD reading through `wellen`
//! (an independent parser, the one the Surfer viewer uses), and a design outside the checkout
//! (`outside`, for the tests of `--dut`).
#![allow(dead_code)]

pub mod headline;
pub mod outside;

use std::path::{Path, PathBuf};

use ptxfma_cosim_engine::frame::{self, Bank};
use ptxfma_cosim_engine::reference::{Reference, RtlReference};
use ptxfma_cosim_engine::Error;
use ptxfma_model::machine::pipeline::PipeIn;

/// A reference that is a clean RTL build, except that in the cycles where `bank` holds the
/// operation tagged `tag` it flips the lowest bit of `field`. Keyed by tag, not by cycle
/// number, so a replayed window (which restarts the cycle count) flips the same operation.
pub struct Flip {
    pub inner: RtlReference,
    pub flips: Vec<(Bank, &'static str, u16)>,
}

impl Flip {
    pub fn new(flips: &[(Bank, &'static str, u16)]) -> Flip {
        Flip {
            inner: RtlReference::new("default").unwrap(),
            flips: flips.to_vec(),
        }
    }
}

fn leaf(bank: Bank, name: &str) -> &'static ptxfma_model::regs::Leaf {
    bank.leaves()
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no field {name} in {}", bank.name()))
}

impl Reference for Flip {
    fn name(&self) -> String {
        "flip".into()
    }
    fn reset(&mut self) -> Result<(), Error> {
        self.inner.reset()
    }
    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        self.inner.run(inputs, frames)?;
        for f in frames.chunks_exact_mut(frame::WORDS) {
            for &(bank, field, tag) in &self.flips {
                let tag_field = if bank == Bank::Ports {
                    "out_tag_o"
                } else {
                    "tag"
                };
                let words = &mut f[bank.range()];
                if frame::field(words, leaf(bank, tag_field))[0] as u16 != tag {
                    continue;
                }
                let l = leaf(bank, field);
                words[(l.lsb / 32) as usize] ^= 1 << (l.lsb % 32);
            }
        }
        Ok(())
    }
    fn fresh(&self) -> Result<Box<dyn Reference>, Error> {
        Ok(Box::new(Flip {
            inner: RtlReference::new("default")?,
            flips: self.flips.clone(),
        }))
    }
}

/// A fresh empty directory under the target dir.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A VCD read back with wellen.
pub struct Vcd {
    pub w: wellen::simple::Waveform,
}

impl Vcd {
    pub fn open(path: &Path) -> Vcd {
        Vcd {
            w: wellen::simple::read(path)
                .unwrap_or_else(|e| panic!("{} does not parse: {e:?}", path.display())),
        }
    }

    pub fn has_scope(&self, path: &[&str]) -> bool {
        self.w.hierarchy().lookup_scope(path).is_some()
    }

    /// (time, bit string, msb first) of every change of `path...name`.
    pub fn changes(&mut self, path: &[&str], name: &str) -> Vec<(u64, String)> {
        let var = self
            .w
            .hierarchy()
            .lookup_var(path, name)
            .unwrap_or_else(|| panic!("no signal {}.{name}", path.join(".")));
        let sig = self.w.hierarchy()[var].signal_ref();
        self.w.load_signals(&[sig]);
        let times = self.w.time_table().to_vec();
        let s = self.w.get_signal(sig).unwrap();
        s.iter_changes()
            .map(|(t, v)| (times[t as usize], v.to_bit_string().unwrap()))
            .collect()
    }

    /// The value of a signal at `time` (the last change at or before it).
    pub fn value_at(&mut self, path: &[&str], name: &str, time: u64) -> String {
        self.changes(path, name)
            .into_iter()
            .take_while(|(t, _)| *t <= time)
            .last()
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("{}.{name} has no value at {time}", path.join(".")))
    }
}

/// An empty plain file in a fresh scratch directory `name`: no directory can be made below it.
pub fn plain_file(name: &str) -> PathBuf {
    let file = scratch(name).join("a-file");
    std::fs::write(&file, b"").unwrap();
    file
}

/// Runs `fma-cosim run --progress off ARGS --waves-dir DIR`; returns (exit code, stdout,
/// stderr).
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["run", "--progress", "off"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--waves-dir", dir.to_str().unwrap()]);
    cosim(&all)
}

/// A bit string read as a number (at most 64 bits).
pub fn num(bits: &str) -> u64 {
    u64::from_str_radix(bits, 2).unwrap_or_else(|_| panic!("not a number: {bits}"))
}

/// The `fma-cosim` that [`cosim`] runs: this build's, or the one `FMA_COSIM_UNDER_TEST` names,
/// to run the tests against another build (the code before a fix, where they should fail).
pub fn bin() -> String {
    std::env::var("FMA_COSIM_UNDER_TEST").unwrap_or_else(|_| env!("CARGO_BIN_EXE_fma-cosim").into())
}

/// Runs the `fma-cosim` binary ([`bin`]); returns (exit code, stdout, stderr).
pub fn cosim(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(bin())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `fma-cosim run --progress off ARGS --json JSON --waves-dir DIR`, which must finish
/// (exit 0, or 1 for divergences); returns (exit code, stdout, stderr) and the JSON it wrote,
/// as a `serde_json::Value` or a `RunResult`.
pub fn run_json<T: serde::de::DeserializeOwned>(
    dir: &Path,
    json: &Path,
    args: &[&str],
) -> (i32, String, String, T) {
    let all = [args, &["--json", json.to_str().unwrap()]].concat();
    let (code, out, err) = run_in(dir, &all);
    assert!(code == 0 || code == 1, "{all:?}: exit {code}\n{out}{err}");
    (code, out, err, read_json(json))
}

/// A JSON file fma-cosim wrote.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The signals a GTKWave save file lists, in order (an alias `+{...} ` stripped).
pub fn save_file_signals(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with(['[', '*', '@', '-']))
        .map(|l| match l.strip_prefix("+{") {
            Some(rest) => rest.split_once("} ").expect("an alias").1.to_string(),
            None => l.to_string(),
        })
        .collect()
}

/// Whether the waveform has the signal a save file names as `scope.….name[msb:lsb]`, with that
/// width.
pub fn has_signal(v: &Vcd, full: &str) -> bool {
    // The last bracket is the range when it has a colon (`mem[3][31:0]`: element 3, 32 bits).
    let (base, width) = match full.rsplit_once('[') {
        Some((b, range)) if range.contains(':') => {
            let (msb, lsb) = range.trim_end_matches(']').split_once(':').unwrap();
            let (msb, lsb): (u32, u32) = (msb.parse().unwrap(), lsb.parse().unwrap());
            (b, msb - lsb + 1)
        }
        _ => (full, 1),
    };
    let mut path: Vec<&str> = base.split('.').collect();
    let name = path.pop().unwrap();
    let h = v.w.hierarchy();
    let mut found = [
        name.to_string(),
        format!("{name}[{}", full.rsplit_once('[').map_or("", |x| x.1)),
    ]
    .iter()
    .filter_map(|n| h.lookup_var(&path, n))
    .any(|var| h[var].length(h) == Some(width));
    // wellen reads an array element `mem[3]` of several bits as the variable `[3]` in a scope
    // `mem`, and the elements of one bit together as the bus `mem`.
    if let Some(at) = name.rfind('[').filter(|_| name.ends_with(']')) {
        let mut scope = path.clone();
        scope.push(&name[..at]);
        found |= h
            .lookup_var(&scope, &name[at..])
            .is_some_and(|var| h[var].length(h) == Some(width));
        found |= width == 1 && h.lookup_var(&path, &name[..at]).is_some();
    }
    found
}

/// ASCII text of a bit string (msb first), its zero bytes (the padding) dropped as GTKWave
/// drops them.
pub fn ascii(bits: &str) -> String {
    let bytes: Vec<u8> = bits
        .as_bytes()
        .chunks(8)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap())
        .filter(|&b| b != 0)
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// The JSON without what differs between equal runs: times, workers, the shard, waveforms
/// (each shard writes one for the first divergence of a signature it meets).
pub fn canonical_result(mut v: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for k in [
                    "seconds",
                    "jobs",
                    "shard",
                    "waveform",
                    "waveform_save",
                    "waveform_mismatch_time",
                ] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

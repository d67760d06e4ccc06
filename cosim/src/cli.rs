//! The `fma-cosim` command line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ptxfma_model::pipeline::{PipeIn, Pipeline, LATENCY};

use crate::golden::{self, Golden};
use crate::lockstep::{self, Config, Stream};
use crate::report::{self, Origin, Row};
use crate::rtl::{self, Rtl};
use crate::stim::{Family, Stimulus};
use crate::waves;
use crate::Error;

const USAGE: &str = "\
usage:
  fma-cosim run [--seed N] [--count N] [--filter FAMILIES] [--window N] [--waves-dir DIR]
                [--rtl VARIANT] [--golden model|rtl:VARIANT] [--max-divergences N] [--batch N]
      Runs COUNT operations (default 1000000), split evenly over the families (default all),
      through the RTL and the golden model in lockstep, comparing the output ports and every
      stage register each cycle. Stops at the first divergence (or after --max-divergences),
      prints a report and writes a VCD of the last --window cycles (default 32) to --waves-dir
      (default waves). Prints a table per family. Exit status 1 on any divergence.
  fma-cosim replay --seed N --filter FAMILY --count N --index CYCLE [--window N] [options]
  fma-cosim replay --ctrl HEX --a HEX --b HEX --c HEX [options]
      Replays one cycle of a run's stream (with --window preceding cycles, default 0), or one
      operation given on the command line, from reset; reports and writes a VCD on divergence.
  fma-cosim bench [--count N] [--seed N] [--filter FAMILIES] [--rtl VARIANT] [--golden G]
      Operations per second of the RTL alone (pure C++ loop), the lockstep co-simulation and
      the model alone, and the ratio co-simulation / RTL alone.
  fma-cosim variants
      Lists the RTL variants built into this binary.

FAMILIES is a comma-separated list of: ";

/// Runs the command line; returns the exit status (0 ok, 1 divergence, 2 error).
pub fn main(args: &[String]) -> u8 {
    let r = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("replay") => replay(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("variants") => variants(&args[1..]),
        Some("help" | "-h" | "--help") => {
            println!("{}", usage());
            Ok(0)
        }
        _ => Err(Error::new(usage())),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn usage() -> String {
    let fams: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
    format!("{USAGE}{} (or all)", fams.join(", "))
}

/// `--name value` / `--name=value` options; every option takes a value.
struct Opts(HashMap<String, String>);

impl Opts {
    fn parse(args: &[String], allowed: &[&str]) -> Result<Opts, Error> {
        let mut m = HashMap::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                return Err(Error::new(format!("unexpected argument `{a}`")));
            };
            let (name, value) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), v.to_string()),
                None => {
                    let v = it
                        .next()
                        .ok_or_else(|| Error::new(format!("--{name} needs a value")))?;
                    (name.to_string(), v.clone())
                }
            };
            if !allowed.contains(&name.as_str()) {
                return Err(Error::new(format!(
                    "unknown option --{name} (this command takes: --{})",
                    allowed.join(", --")
                )));
            }
            if m.insert(name.clone(), value).is_some() {
                return Err(Error::new(format!("--{name} given twice")));
            }
        }
        Ok(Opts(m))
    }

    fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    fn str<'a>(&'a self, name: &str, default: &'a str) -> &'a str {
        self.0.get(name).map_or(default, String::as_str)
    }

    fn num(&self, name: &str, default: u64) -> Result<u64, Error> {
        match self.0.get(name) {
            None => Ok(default),
            Some(v) => parse_num(v).ok_or_else(|| {
                Error::new(format!(
                    "--{name} `{v}`: expected a number (decimal or 0x hex)"
                ))
            }),
        }
    }

    fn need(&self, name: &str) -> Result<u64, Error> {
        if !self.has(name) {
            return Err(Error::new(format!("--{name} is required")));
        }
        self.num(name, 0)
    }

    fn families(&self) -> Result<Vec<Family>, Error> {
        parse_families(self.str("filter", "all"))
    }
}

fn parse_num(v: &str) -> Option<u64> {
    let v = v.replace('_', "");
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// A comma-separated family list; `all` (or nothing) is every family.
pub fn parse_families(s: &str) -> Result<Vec<Family>, Error> {
    let mut out = Vec::new();
    for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            out.extend(Family::ALL);
            continue;
        }
        let f = Family::parse(name).ok_or_else(|| {
            let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            Error::new(format!(
                "unknown family `{name}` (known: {}, all)",
                known.join(", ")
            ))
        })?;
        out.push(f);
    }
    if out.is_empty() {
        out.extend(Family::ALL);
    }
    let mut seen = Vec::new();
    out.retain(|f| {
        let new = !seen.contains(f);
        seen.push(*f);
        new
    });
    Ok(out)
}

/// The two sides of a comparison, as chosen on the command line.
struct Sides {
    rtl: String,
    golden: String,
}

impl Sides {
    /// The report's origin for a generated stream (`fma-cosim run` / `replay --seed`).
    fn stream_origin(&self, fam: Family, seed: u64, count: u64) -> Origin {
        Origin {
            stream_args: Some(format!(
                "--seed {seed} --filter {} --count {count}",
                fam.name()
            )),
            family: fam.name().to_string(),
            seed: Some(seed),
            sides_args: self.args(),
            rtl: self.rtl.clone(),
            golden: self.golden.clone(),
        }
    }

    fn from(o: &Opts) -> Result<Sides, Error> {
        let s = Sides {
            rtl: o.str("rtl", "default").to_string(),
            golden: o.str("golden", "model").to_string(),
        };
        rtl::variant(&s.rtl)?;
        golden::from_spec(&s.golden)?;
        Ok(s)
    }

    /// Extra replay arguments when not the defaults.
    fn args(&self) -> String {
        let mut a = String::new();
        if self.rtl != "default" {
            a.push_str(&format!(" --rtl {}", self.rtl));
        }
        if self.golden != "model" {
            a.push_str(&format!(" --golden {}", self.golden));
        }
        a
    }
}

/// Makes sure the waves directory exists and can be written before any long run.
fn check_waves_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("waves directory {}: {e}", dir.display())))?;
    let probe = dir.join(".fma-cosim-probe");
    std::fs::write(&probe, b"").map_err(|e| {
        Error::new(format!(
            "waves directory {} is not writable: {e}",
            dir.display()
        ))
    })?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

fn run(args: &[String]) -> Result<u8, Error> {
    let o = Opts::parse(
        args,
        &[
            "seed",
            "count",
            "filter",
            "window",
            "waves-dir",
            "rtl",
            "golden",
            "max-divergences",
            "batch",
        ],
    )?;
    let seed = o.num("seed", 1)?;
    let count = o.num("count", 1_000_000)?;
    let fams = o.families()?;
    let window = o.num("window", 32)? as usize;
    let waves_dir = PathBuf::from(o.str("waves-dir", "waves"));
    let sides = Sides::from(&o)?;
    let max_div = o.num("max-divergences", 1)?.max(1) as usize;
    let batch = o.num("batch", Config::default().batch as u64)?.max(1) as usize;
    check_waves_dir(&waves_dir)?;

    println!(
        "fma-cosim run: seed {seed}, {count} operations over {} families, RTL `{}` vs {} ({})",
        fams.len(),
        sides.rtl,
        sides.golden,
        rtl::VERILATOR_VERSION
    );
    let mut rtl = Rtl::new(&sides.rtl, false)?;
    let mut golden = golden::from_spec(&sides.golden)?;
    let mut rows = Vec::new();
    let mut total_div = 0;
    let n = fams.len() as u64;
    for (k, &fam) in fams.iter().enumerate() {
        let vectors = count / n + u64::from((k as u64) < count % n);
        let cfg = Config {
            batch,
            max_divergences: max_div - total_div,
            window,
        };
        let stream = Stream::new(seed, fam, vectors);
        let out = lockstep::run(&mut rtl, golden.as_mut(), stream, &cfg)?;
        rows.push(Row {
            family: fam.name().to_string(),
            vectors: out.vectors,
            divergences: out.divergences.len(),
            seconds: out.seconds,
        });
        let origin = sides.stream_origin(fam, seed, vectors);
        for (i, d) in out.divergences.iter().enumerate() {
            let alone = d
                .input
                .as_ref()
                .map(|inp| report::replay_alone(&sides.rtl, golden.as_ref(), inp))
                .transpose()
                .unwrap_or_else(|e| {
                    eprintln!("warning: replaying the operation alone failed: {e}");
                    None
                });
            print!("\n{}", report::divergence(d, &origin, alone.as_ref()));
            if i == 0 && total_div == 0 {
                let path = waves_dir.join(waves::file_name(fam.name(), seed, d.cycle));
                print_waves(
                    waves::write_window(
                        &path,
                        &sides.rtl,
                        golden.as_ref(),
                        &out.window,
                        out.window_start,
                    ),
                    d.cycle,
                );
            }
        }
        total_div += out.divergences.len();
        if total_div >= max_div {
            break;
        }
    }
    println!("\n{}", report::table(&rows));
    if total_div > 0 {
        println!("FAILED: {total_div} divergence(s)");
        Ok(1)
    } else {
        println!("PASSED: no divergence");
        Ok(0)
    }
}

fn print_waves(w: Result<waves::Waves, Error>, cycle: u64) {
    match w {
        Ok(w) => {
            let marked = w.mismatches.contains(&cycle);
            println!(
                "  waveform    {}\n              cycles {}..{} plus drain; model registers under \
                 `model`, RTL under `TOP`; cosim.mismatch rises at time {} (cycle {cycle}){}",
                w.path.display(),
                w.first_cycle,
                cycle,
                w.edge_time(cycle),
                if marked {
                    ""
                } else {
                    "\n              WARNING: the replayed window does not reproduce the \
                     divergence (state older than the window?)"
                }
            );
        }
        Err(e) => println!("  waveform    not written: {e}"),
    }
}

fn replay(args: &[String]) -> Result<u8, Error> {
    let o = Opts::parse(
        args,
        &[
            "seed",
            "filter",
            "count",
            "index",
            "window",
            "ctrl",
            "a",
            "b",
            "c",
            "rtl",
            "golden",
            "waves-dir",
        ],
    )?;
    let sides = Sides::from(&o)?;
    let waves_dir = PathBuf::from(o.str("waves-dir", "waves"));
    let (inputs, first, origin, name) = if o.has("ctrl") {
        for k in ["seed", "filter", "count", "index", "window"] {
            if o.has(k) {
                return Err(Error::new(format!("--{k} cannot be combined with --ctrl")));
            }
        }
        let ctrl = o.need("ctrl")?;
        if ctrl >> ptxfma_model::ctrl::CTRL_BITS != 0 {
            return Err(Error::new(format!(
                "--ctrl {ctrl:#x} is wider than 24 bits"
            )));
        }
        let inp = PipeIn {
            valid: true,
            tag: 0,
            ctrl: ctrl as u32,
            a: o.need("a")?,
            b: o.need("b")?,
            c: o.need("c")?,
        };
        let origin = Origin {
            stream_args: None,
            family: "command line".into(),
            seed: None,
            sides_args: sides.args(),
            rtl: sides.rtl.clone(),
            golden: sides.golden.clone(),
        };
        (vec![inp], 0, origin, format!("replay-ctrl{ctrl:06x}.vcd"))
    } else {
        for k in ["a", "b", "c"] {
            if o.has(k) {
                return Err(Error::new(format!("--{k} needs --ctrl")));
            }
        }
        let seed = o.need("seed")?;
        let fams = o.families()?;
        let [fam] = fams[..] else {
            return Err(Error::new("replay needs exactly one family in --filter"));
        };
        if !o.has("filter") {
            return Err(Error::new("--filter is required"));
        }
        let count = o.need("count")?;
        let index = o.need("index")?;
        let window = o.num("window", 0)?;
        let first = index.saturating_sub(window);
        let inputs: Vec<PipeIn> = Stream::new(seed, fam, count)
            .skip(first as usize)
            .take((index - first + 1) as usize)
            .collect();
        if first + inputs.len() as u64 != index + 1 {
            return Err(Error::new(format!(
                "--index {index} is past the end of the stream ({} cycles for --count {count})",
                first + inputs.len() as u64
            )));
        }
        let origin = sides.stream_origin(fam, seed, count);
        let name = format!("replay-{}", waves::file_name(fam.name(), seed, index));
        (inputs, first, origin, name)
    };

    let mut rtl = Rtl::new(&sides.rtl, false)?;
    let mut golden = golden::from_spec(&sides.golden)?;
    let mut all = inputs.clone();
    all.extend((0..LATENCY).map(|_| PipeIn::default()));
    let cfg = Config {
        batch: all.len(),
        max_divergences: 1,
        window: all.len(),
    };
    let out = lockstep::run(&mut rtl, golden.as_mut(), all.into_iter(), &cfg)?;
    let last = inputs.last().copied().unwrap_or_default();
    if let Some(d) = out.divergences.first() {
        let mut d = d.clone();
        d.cycle += first;
        d.issue = d.issue.map(|c| c + first);
        let alone = d
            .input
            .as_ref()
            .map(|inp| report::replay_alone(&sides.rtl, golden.as_ref(), inp))
            .transpose()?;
        print!("{}", report::divergence(&d, &origin, alone.as_ref()));
        check_waves_dir(&waves_dir)?;
        print_waves(
            waves::write_window(
                &waves_dir.join(name),
                &sides.rtl,
                golden.as_ref(),
                &out.window,
                out.window_start + first,
            ),
            d.cycle,
        );
        Ok(1)
    } else {
        let alone = report::replay_alone(&sides.rtl, golden.as_ref(), &last)?;
        let ctrl = ptxfma_model::ctrl::Ctrl::decode(last.ctrl);
        println!(
            "no divergence: RTL `{}` and {} agree on cycles {}..{} plus drain; the last \
             operation ({}) gives d = {}",
            sides.rtl,
            sides.golden,
            first,
            first + inputs.len() as u64 - 1,
            crate::stim::ptx_spelling(&ctrl),
            report::result(&ctrl, alone.expected_d)
        );
        Ok(0)
    }
}

fn variants(args: &[String]) -> Result<u8, Error> {
    Opts::parse(args, &[])?;
    println!("{}", rtl::VERILATOR_VERSION);
    for v in rtl::VARIANTS {
        println!(
            "{:<20} defines: {}",
            v.name,
            if v.defines.is_empty() {
                "(none)".to_string()
            } else {
                v.defines.join(" ")
            }
        );
    }
    Ok(0)
}

fn bench(args: &[String]) -> Result<u8, Error> {
    let o = Opts::parse(args, &["count", "seed", "filter", "rtl", "golden"])?;
    let count = o.num("count", 300_000)?.max(1);
    let seed = o.num("seed", 1)?;
    let fams = o.families()?;
    let sides = Sides::from(&o)?;
    let inputs: Vec<PipeIn> = Stimulus::new(seed, &fams)
        .take(count as usize)
        .enumerate()
        .map(|(i, v)| lockstep::vector_input(&v, i as u16))
        .collect();
    let enc: Vec<u64> = inputs.iter().flat_map(rtl::encode_input).collect();
    println!(
        "fma-cosim bench: {count} operations, families {}, RTL `{}`, reference {}",
        fams.iter().map(|f| f.name()).collect::<Vec<_>>().join(","),
        sides.rtl,
        sides.golden
    );

    // 1. The RTL alone, stepped by a pure C++ loop: the limit for the co-simulation. Timed
    // again between the lockstep rounds below; the best of the rounds is reported, so a busy
    // neighbour on a shared machine does not decide the ratio.
    let mut rtl = Rtl::new(&sides.rtl, false)?;
    rtl.spin(&enc, count.min(10_000))?;
    let rtl_alone = |rtl: &mut Rtl| -> Result<f64, Error> {
        let t = Instant::now();
        rtl.spin(&enc, count)?;
        Ok(count as f64 / t.elapsed().as_secs_f64())
    };
    let mut rtl_rate = rtl_alone(&mut rtl)?;
    println!("  RTL alone (C++ loop)     {:>12.0} ops/s", rtl_rate);

    // 2. The model alone, and with its registers packed into frames as the lockstep does.
    let model = std::panic::catch_unwind(|| {
        let mut p = Pipeline::new();
        let t = Instant::now();
        for inp in &inputs {
            std::hint::black_box(p.tick(inp));
        }
        let alone = count as f64 / t.elapsed().as_secs_f64();
        let mut p = Pipeline::new();
        let mut f = vec![0u32; crate::frame::WORDS];
        let t = Instant::now();
        for inp in &inputs {
            let out = p.tick(inp);
            crate::frame::write_model(&p, &out, &mut f);
            std::hint::black_box(&f);
        }
        (alone, count as f64 / t.elapsed().as_secs_f64())
    });
    match &model {
        Ok((alone, packed)) => {
            println!("  model alone              {alone:>12.0} ops/s");
            println!("  model + frame packing    {packed:>12.0} ops/s");
        }
        Err(p) => println!(
            "  model alone              n/a (the model panicked: {})",
            lockstep::panic_text(p)
        ),
    }

    // 3. The lockstep co-simulation, in rounds alternating with the RTL alone.
    const ROUNDS: usize = 3;
    let mut golden: Box<dyn Golden> = golden::from_spec(&sides.golden)?;
    let cfg = Config::default();
    let mut best = 0.0f64;
    for round in 0..ROUNDS {
        if round > 0 {
            rtl_rate = rtl_rate.max(rtl_alone(&mut rtl)?);
        }
        match lockstep::run(&mut rtl, golden.as_mut(), inputs.iter().copied(), &cfg) {
            Ok(out) => {
                best = best.max(out.cycles as f64 / out.seconds);
                if !out.divergences.is_empty() {
                    println!(
                        "  note: the run stopped at the first divergence after {} cycles; the \
                         rate covers those cycles only",
                        out.cycles
                    );
                    break;
                }
            }
            Err(e) => {
                println!("  lockstep co-simulation   n/a ({e})");
                return Ok(0);
            }
        }
    }
    println!("  RTL alone, best of {ROUNDS}    {rtl_rate:>12.0} ops/s");
    println!("  lockstep, best of {ROUNDS}     {best:>12.0} ops/s");
    println!(
        "  co-simulation / RTL alone   {:.3}  (target >= 0.85)",
        best / rtl_rate
    );
    Ok(0)
}

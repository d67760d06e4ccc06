//! `make bench` (model part): operations per second of the cycle-level model, of
//! `rustc_apfloat` and of the host's FMA instruction, for f32, f64 and f16x2 fma, measured in one
//! run and printed as ratios. Targets (issues 2, 9 and 24): `run` >= 30 M ops/s f32 and
//! `fma.rn.f16x2` (an operation is one instruction, two lanes), >= 15 M ops/s f64,
//! one core, with the lane backend `run` picks on the machine: AVX-512 where the CPU has it,
//! the AVX2 backend on AVX2-only machines (so on a machine with AVX-512 the `avx2` rows are the
//! figures to hold against the targets for those), the scalar stages elsewhere.
//!
//! The model is timed two ways on the same stream: `tick`, one clock edge per call with every
//! bank loaded (what the co-simulator uses, since it compares the banks each cycle), and `run`,
//! which clocks a block of inputs and evaluates runs of sixteen inputs of one control word side
//! by side (the lane engine, `batch`). `run` is timed on every lane backend this CPU runs
//! (`lanes::Backend`), and on none (`scalar`), so one machine with AVX-512 also measures what
//! an AVX2-only machine or another CPU would get; `PTXFMA_LANES=avx512|avx2|portable|scalar`
//! times that backend alone. Every backend must give `tick`'s results, and a lane backend must
//! have taken inputs; the bench checks both.

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use ptxfma_model::machine::lanes::{Backend, ENV};
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use ptxfma_model::reference::{half, host, soft};
use ptxfma_model::regs::Out;
use std::hint::black_box;
use std::time::Instant;

/// Operands: uniformly random finite-ish values; one fixed set for every engine. `half2`:
/// two binary16 lanes in bits 31:0.
fn operands(n: usize, f64: bool, half2: bool) -> Vec<(u64, u64, u64)> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            if f64 {
                let m = 0xBFFF_FFFF_FFFF_FFFFu64;
                (next() & m, next() & m, next() & m)
            } else if half2 {
                let m = 0xBBFF_BBFFu64;
                (next() & m, next() & m, next() & m)
            } else {
                let m = 0xBFFF_FFFFu64;
                (next() & m, next() & m, next() & m)
            }
        })
        .collect()
}

/// Inputs per `Pipeline::run` call.
const BLOCK: usize = 4096;

/// Timed runs per engine; the best is kept. The machine is a shared VM whose clock and
/// neighbours vary from second to second, so single runs differ by a third; every engine gets
/// the same treatment, so the ratios stay fair.
const RUNS: usize = 5;

/// The clock a run is timed on: wall time (the default), or with `BENCH_CLOCK=thread` the CPU
/// time of the bench's thread, which leaves out the time other processes held the core (on a
/// loaded shared machine that is most of the noise; contention for caches remains).
fn now() -> f64 {
    use std::sync::OnceLock;
    static THREAD: OnceLock<bool> = OnceLock::new();
    let thread = *THREAD.get_or_init(|| match std::env::var("BENCH_CLOCK").as_deref() {
        Err(_) | Ok("wall") => false,
        Ok("thread") if cfg!(unix) => true,
        Ok(v) => bad_setting(format!(
            "BENCH_CLOCK={v:?}: the bench times on `wall` or (on Unix) `thread`"
        )),
    });
    #[cfg(unix)]
    if thread {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec to write to.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
    }
    let _ = thread;
    use std::sync::LazyLock;
    static START: LazyLock<Instant> = LazyLock::new(Instant::now);
    START.elapsed().as_secs_f64()
}

/// One untimed run (caches, clock ramp-up), then the best of [`RUNS`], in operations per second.
fn rate(n: usize, mut f: impl FnMut() -> u64) -> f64 {
    black_box(f());
    (0..RUNS)
        .map(|_| {
            let t = now();
            black_box(f());
            n as f64 / (now() - t)
        })
        .fold(0.0, f64::max)
}

/// Stops the bench with a message naming the bad setting (exit code 2, no panic).
fn bad_setting(msg: String) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}

fn main() {
    let n: usize = match std::env::var("BENCH_OPS") {
        Err(_) => 1_000_000,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => bad_setting(format!("BENCH_OPS={v:?} is not a positive operation count")),
        },
    };
    // BENCH_FMT=f32|f64 and BENCH_MODEL_ONLY=1 narrow a run for profiling; BENCH_CLOCK=thread
    // times on the thread's CPU time (see `now`).
    now();
    let only_fmt = std::env::var("BENCH_FMT").ok();
    if let Some(f) = only_fmt
        .as_deref()
        .filter(|f| !["f32", "f64", "f16x2"].contains(f))
    {
        bad_setting(format!(
            "BENCH_FMT={f:?}: the bench times f32, f64 or f16x2"
        ));
    }
    // A bad PTXFMA_LANES is a one-line usage error, before anything runs.
    let forced = std::env::var_os(ENV).is_some();
    let selected = Backend::from_env().unwrap_or_else(|e| bad_setting(e));
    let backends: Vec<Backend> = if forced {
        vec![selected]
    } else {
        Backend::ALL.into_iter().filter(|b| b.runs_here()).collect()
    };
    let clock = match std::env::var("BENCH_CLOCK").as_deref() {
        Ok("thread") => "the thread's CPU time",
        _ => "wall clock",
    };
    println!(
        "model bench: {n} operations per run, best of {RUNS} after a warm-up run, one core, {clock}"
    );
    let names = |v: &[Backend]| v.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ");
    if forced {
        println!(
            "lane backend: {selected}, forced by {ENV} (this CPU runs {})",
            {
                let here: Vec<Backend> =
                    Backend::ALL.into_iter().filter(|b| b.runs_here()).collect();
                names(&here)
            }
        );
    } else {
        println!(
            "lane backends this CPU runs: {}; `run` uses {selected} (set {ENV} to force one)",
            names(&Backend::lanes_here())
        );
    }
    println!(
        "targets: run >= 30 M ops/s f32 and fma.rn.f16x2, >= 15 M ops/s f64 on one core, for the \
         backend `run` picks (marked *); and that backend against the host's FMA loop: f32 >= \
         1.0x, f64 >= 0.75x"
    );
    println!(
        "  (avx512 on AVX-512 CPUs; on AVX2-only CPUs avx2, so the avx2 rows are what those get; \
         the scalar stages elsewhere)"
    );
    let model_only = std::env::var_os("BENCH_MODEL_ONLY").is_some();
    println!(
        "{:<5} {:<9} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9}  target",
        "fmt", "lanes", "tick M/s", "run M/s", "apfloat", "host", "run/apf", "run/host"
    );
    for (name, kind) in [
        ("f32", Kind::F32),
        ("f64", Kind::F64),
        ("f16x2", Kind::Half2),
    ] {
        if only_fmt.as_deref().is_some_and(|f| f != name) {
            continue;
        }
        let f64 = kind == Kind::F64;
        let half2 = kind == Kind::Half2;
        let ops = operands(n, f64, half2);
        let word = Ctrl {
            ab_fmt: if half2 { AbFmt::F16 } else { AbFmt::Native },
            ..Ctrl::fma(kind, Rnd::Rn)
        };
        let ctrl = word.encode();
        let mut tick_acc = 0;
        let model = rate(n, || {
            let mut p = Pipeline::new();
            let mut acc = 0;
            for (i, &(a, b, c)) in ops.iter().enumerate() {
                let inp = PipeIn {
                    valid: true,
                    tag: i as u16,
                    ctrl,
                    a,
                    b,
                    c,
                    reset: false,
                };
                acc ^= p.tick(&inp).d;
            }
            tick_acc = acc;
            acc
        });
        // The same stream through `Pipeline::run_on`, in blocks as the co-simulator's batches.
        let inputs: Vec<PipeIn> = ops
            .iter()
            .enumerate()
            .map(|(i, &(a, b, c))| PipeIn {
                valid: true,
                tag: i as u16,
                ctrl,
                a,
                b,
                c,
                reset: false,
            })
            .collect();
        let mut outs = vec![Out::default(); BLOCK];
        let runs: Vec<(Backend, f64)> = backends
            .iter()
            .map(|&backend| {
                let mut run_acc = 0;
                let mut laned = 0;
                let r = rate(n, || {
                    let mut p = Pipeline::new();
                    let mut acc = 0;
                    for blk in inputs.chunks(BLOCK) {
                        let o = &mut outs[..blk.len()];
                        laned += p.run_on(backend, blk, o);
                        acc = o.iter().fold(acc, |a, x| a ^ x.d);
                    }
                    run_acc = acc;
                    acc
                });
                assert_eq!(
                    tick_acc, run_acc,
                    "{name}: run on {backend} and tick disagree"
                );
                // (Shorter streams are ticked whole.)
                if backend.is_lanes() && n >= 64 {
                    assert!(laned > 0, "{name}: the {backend} lane engine took no input");
                }
                (backend, r)
            })
            .collect();
        let target = if f64 { 15.0 } else { 30.0 };
        let verdict = |r: f64| if r / 1e6 >= target { "met" } else { "MISSED" };
        // Issue 23: the backend `run` picks against the host's own FMA loop.
        let host_target = if f64 { 0.75 } else { 1.0 };
        let (apf, hst) = if model_only {
            (f64::NAN, f64::NAN)
        } else {
            let apf = rate(n, || {
                ops.iter().fold(0, |acc, &(a, b, c)| {
                    acc ^ if half2 {
                        // The independent reference on rustc_apfloat's Half, both lanes.
                        half::eval(&word, a, b, c)
                    } else if f64 {
                        soft::fma64(a, b, c, Rnd::Rn)
                    } else {
                        soft::fma32(a as u32, b as u32, c as u32, Rnd::Rn) as u64
                    }
                })
            });
            // The host has no binary16 FMA instruction the reference uses.
            let hst = if host::Host::detect().is_some() && !half2 {
                rate(n, || {
                    ops.iter().fold(0, |acc, &(a, b, c)| {
                        acc ^ if f64 {
                            host::fma64(a, b, c, Rnd::Rn).unwrap_or(0)
                        } else {
                            host::fma32(a as u32, b as u32, c as u32, Rnd::Rn).unwrap_or(0) as u64
                        }
                    })
                })
            } else {
                f64::NAN
            };
            (apf, hst)
        };
        for (k, &(backend, run)) in runs.iter().enumerate() {
            let mark = if backend == selected { "*" } else { "" };
            let lanes = format!("{backend}{mark}");
            // tick, apfloat and the host do not depend on the backend: printed once.
            let shared = |x: f64| {
                if k == 0 {
                    format!("{:.2}", x / 1e6)
                } else {
                    "-".to_string()
                }
            };
            let ratio = |x: f64, prec: usize| {
                if x.is_nan() {
                    "-".to_string()
                } else {
                    format!("{:.prec$}", run / x)
                }
            };
            let host_verdict = if backend == selected && !hst.is_nan() {
                let met = run / hst >= host_target;
                format!(
                    "; run/host >= {host_target:.2}: {}",
                    if met { "met" } else { "MISSED" }
                )
            } else {
                String::new()
            };
            println!(
                "{name:<5} {lanes:<9} {:>10} {:>10.2} {:>10} {:>10} {:>8} {:>9}  {target} M: {}{}",
                shared(model),
                run / 1e6,
                if apf.is_nan() {
                    "-".into()
                } else {
                    shared(apf)
                },
                if hst.is_nan() {
                    "-".into()
                } else {
                    shared(hst)
                },
                ratio(apf, 2),
                ratio(hst, 3),
                verdict(run),
                host_verdict
            );
        }
    }
}

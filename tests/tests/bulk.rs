//! Bulk agreement of the cycle-level model with the independent references.
//!
//! For every instruction family x rounding mode x ftz setting, `PTXFMA_VECTORS` (default
//! 1,000,000) edge-biased vectors stream through one `Pipeline`, one per cycle, and every
//! retiring result is compared bit for bit with `reference::ptx::eval` (rustc_apfloat core, sm_1x
//! and vmad from exact integer arithmetic). Half of each group goes in through `tick` with a
//! different control word every cycle; the other half through `run_on` in runs of
//! `pipeline::LANES` inputs per word, which the lane engine (`batch`) evaluates, each block of
//! inputs on the next of the lane backends this CPU runs (the portable one everywhere, AVX2 and
//! AVX-512 where the CPU has them), so every path answers to the references on every machine.
//! Run in release mode (`make test` does).

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::LANES;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline, LATENCY};
use ptxfma_model::reference::ptx;
use ptxfma_model::regs::Out;
use ptxfma_model::stimulus::{self, Family, Rng};
use std::collections::BTreeMap;

fn vectors_per_group() -> u64 {
    match std::env::var("PTXFMA_VECTORS") {
        Err(_) => 1_000_000,
        Ok(v) => v
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("PTXFMA_VECTORS={v:?} is not a positive vector count")),
    }
}

/// One group: a family, a rounding mode and an ftz setting, with every control word of the
/// family that has them (sat on/off, add/sub/mul/fma forms, f16/bf16, ...).
struct Group {
    name: String,
    ctrls: Vec<Ctrl>,
}

fn groups() -> Vec<Group> {
    let mut out = Vec::new();
    for fam in Family::ALL {
        let mut by: BTreeMap<(u8, bool), Vec<Ctrl>> = BTreeMap::new();
        for c in fam.ctrls() {
            // vmad has no rounding or ftz: one group.
            let key = if c.kind == Kind::Vmad {
                (0, false)
            } else {
                (c.rnd as u8, c.ftz)
            };
            by.entry(key).or_default().push(c);
        }
        for ((rnd, ftz), ctrls) in by {
            let name = if fam == Family::Vmad {
                fam.name().to_string()
            } else {
                let r = ["rn", "rz", "rm", "rp"][rnd as usize];
                format!("{}.{r}{}", fam.name(), if ftz { ".ftz" } else { "" })
            };
            out.push(Group { name, ctrls });
        }
    }
    out
}

/// Inputs per `Pipeline::run` call.
const BLOCK: u64 = 4096;

/// Clocks one block of inputs into `pipe`, by `tick` per input or by one `run_on` with the
/// lane engine on `backend`, and returns what retired in each of those cycles and how many
/// inputs the lane engine evaluated.
fn step<'a>(
    pipe: &mut Pipeline,
    block: &[PipeIn],
    outs: &'a mut [Out],
    by_run: Option<Backend>,
) -> (&'a [Out], usize) {
    let outs = &mut outs[..block.len()];
    let mut laned = 0;
    if let Some(backend) = by_run {
        laned = pipe.run_on(backend, block, outs);
    } else {
        for (o, x) in outs.iter_mut().zip(block) {
            *o = pipe.tick(x);
        }
    }
    (outs, laned)
}

/// The lane backend of the `k`th block run through `run_on`: each one this CPU runs in turn.
fn backend(k: u64) -> Backend {
    let all = Backend::lanes_here();
    all[k as usize % all.len()]
}

/// Whether the lane engine takes this group's control words (f32 and f64 kinds).
fn laned_group(ctrls: &[Ctrl]) -> bool {
    ctrls
        .iter()
        .all(|c| matches!(c.kind, Kind::F32 | Kind::F64))
}

/// Streams `n` vectors of a group through the pipeline; returns the mismatch lines.
fn run_group(g: &Group, n: u64, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut pipe = Pipeline::new();
    let mut in_flight = std::collections::VecDeque::new();
    let mut bad = Vec::new();
    let total = n + LATENCY as u64 - 1;
    let ticked = n / 2;
    let mut block = Vec::with_capacity(BLOCK as usize);
    let mut outs = vec![Out::default(); BLOCK as usize];
    let mut laned = 0;
    let mut start = 0;
    while start < total {
        let end = (start + BLOCK).min(total);
        block.clear();
        for i in start..end {
            block.push(if i < n {
                // A new word every cycle for `tick`; runs of `LANES` per word for `run`.
                let w = if i < ticked { i } else { i / LANES as u64 };
                let ctrl = g.ctrls[(w % g.ctrls.len() as u64) as usize];
                let (a, b, c) = stimulus::operands_for(&ctrl, &mut rng);
                in_flight.push_back((ctrl, a, b, c));
                PipeIn {
                    valid: true,
                    tag: i as u16,
                    ctrl: ctrl.encode(),
                    a,
                    b,
                    c,
                    reset: false,
                }
            } else {
                PipeIn::default()
            });
        }
        let by_run = (start >= ticked).then(|| backend(start / BLOCK));
        let (retired, l) = step(&mut pipe, &block, &mut outs, by_run);
        laned += l;
        for (i, out) in (start..end).zip(retired) {
            if i + 1 < LATENCY as u64 {
                continue;
            }
            let (ctrl, a, b, c) = in_flight.pop_front().unwrap();
            assert!(
                out.valid,
                "{}: result {} did not retire",
                g.name,
                i + 1 - LATENCY as u64
            );
            let want = ptx::eval(&ctrl, a, b, c);
            if out.d != want && bad.len() < 8 {
                bad.push(format!(
                    "{}: `{}` want {want:#x} got {:#x}",
                    g.name,
                    ptxfma_ptx::print::eval_line(&ctrl, a, b, c),
                    out.d
                ));
            }
        }
        start = end;
    }
    // The `run` half must really have gone through the lane engine (most of it: the block that
    // straddles the halves is ticked, and each block's first and last three inputs too).
    if laned_group(&g.ctrls) && n - ticked >= 4 * BLOCK && (laned as u64) * 2 < n - ticked {
        bad.push(format!(
            "{}: only {laned} of {} inputs went through the lane engine",
            g.name,
            n - ticked
        ));
    }
    bad
}

#[test]
fn model_matches_references_on_every_family_mode_and_ftz() {
    let n = vectors_per_group();
    let groups = groups();
    // Every family, every rounding mode of the float families, both ftz settings of f32.
    assert!(groups.len() >= 30, "only {} groups", groups.len());
    let workers = std::thread::available_parallelism()
        .map_or(2, |p| p.get())
        .min(4);
    let bad: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let groups = &groups;
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for (k, g) in groups.iter().enumerate().skip(w).step_by(workers) {
                        bad.extend(run_group(g, n, 0x5EED_0000 + k as u64));
                    }
                    bad
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    println!("{} groups x {n} vectors", groups.len());
    assert!(
        bad.is_empty(),
        "model disagrees with the references:\n{}",
        bad.join("\n")
    );
}

/// Every f16 and every bf16 `a` against a sampled set of `c` (and `b` for fma), every rounding
/// mode, through add, sub and fma .f32.{f16,bf16}.
#[test]
fn exhaustive_f16_and_bf16_inputs() {
    use ptxfma_model::ctrl::AbFmt;
    let cs: [u64; 8] = [
        0x0000_0000,
        0x8000_0000,
        0x3F80_0000,
        0xBF80_0001,
        0x0000_0001,
        0x7F7F_FFFF,
        0x7F80_0000,
        0x3380_0000,
    ];
    let bs: [u64; 2] = [0x3C01, 0xC000];
    let mut bad = Vec::new();
    let mut count = 0u64;
    for fmt in [AbFmt::F16, AbFmt::Bf16] {
        for rnd in [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            for (b_one, neg_c, bsel) in [
                (true, false, 0),
                (true, true, 0),
                (false, false, 0),
                (false, false, 1),
            ] {
                let ctrl = Ctrl {
                    kind: Kind::F32,
                    rnd,
                    ab_fmt: fmt,
                    b_one,
                    neg_c,
                    ..Ctrl::default()
                };
                let b = if b_one { 0 } else { bs[bsel] };
                let mut pipe = Pipeline::new();
                let mut q = std::collections::VecDeque::new();
                let total = 65536 * cs.len() as u64;
                let cycles = total + LATENCY as u64 - 1;
                let mut block = Vec::with_capacity(BLOCK as usize);
                let mut outs = vec![Out::default(); BLOCK as usize];
                let mut laned = 0;
                let mut start = 0;
                while start < cycles {
                    let end = (start + BLOCK).min(cycles);
                    block.clear();
                    for i in start..end {
                        block.push(if i < total {
                            let (a, c) = (i >> 3, cs[(i & 7) as usize]);
                            q.push_back((a, c));
                            PipeIn {
                                valid: true,
                                tag: 0,
                                ctrl: ctrl.encode(),
                                a,
                                b,
                                c,
                                reset: false,
                            }
                        } else {
                            PipeIn::default()
                        });
                    }
                    // Through `run` (the lane engine where the CPU has it).
                    let by_run = Some(backend(start / BLOCK));
                    let (retired, l) = step(&mut pipe, &block, &mut outs, by_run);
                    laned += l;
                    for (i, out) in (start..end).zip(retired) {
                        if i + 1 < LATENCY as u64 {
                            continue;
                        }
                        let (a, c) = q.pop_front().unwrap();
                        count += 1;
                        let want = ptx::eval(&ctrl, a, b, c);
                        if out.d != want && bad.len() < 8 {
                            bad.push(format!(
                                "`{}` want {want:#x} got {:#x}",
                                ptxfma_ptx::print::eval_line(&ctrl, a, b, c),
                                out.d
                            ));
                        }
                    }
                    start = end;
                }
                if laned_group(&[ctrl]) {
                    assert!(
                        laned as u64 * 10 >= total * 9,
                        "{ctrl:?}: only {laned} of {total} inputs went through the lane engine"
                    );
                }
            }
        }
    }
    assert_eq!(count, 2 * 4 * 4 * 65536 * 8);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every vmad control word PTX allows, against a set of boundary operands.
#[test]
fn every_vmad_combination() {
    let ctrls = Family::Vmad.ctrls();
    assert_eq!(ctrls.len(), 16 * 49 * 3 * 2);
    let vals: [u64; 9] = [
        0,
        1,
        0x7F,
        0x80,
        0xFFFF,
        0x8000_8080,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
    ];
    let mut rng = Rng::new(7);
    let mut bad = Vec::new();
    for ctrl in &ctrls {
        for k in 0..24 {
            let (a, b, c) = if k < 16 {
                (vals[k % 9], vals[(k * 4 + 1) % 9], vals[(k * 7 + 2) % 9])
            } else {
                stimulus::operands_for(ctrl, &mut rng)
            };
            let got = ptxfma_model::machine::pipeline::eval(ctrl, a, b, c);
            let want = ptx::eval(ctrl, a, b, c);
            if got != want && bad.len() < 8 {
                bad.push(format!(
                    "`{}` want {want:#x} got {got:#x}",
                    ptxfma_ptx::print::eval_line(ctrl, a, b, c)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

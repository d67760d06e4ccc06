//! Functional coverage: closure of the default stimulus (the model alone, no RTL), the hard
//! bins, merging by addition, the coverage file, and `fma-cosim coverage`.

use crate::common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::headline::{f32_samples, headline_numbers};

use ptxfma_cosim_checks::coverage::Coverage;
use ptxfma_cosim_engine::chunk::{self, Chunk};
use ptxfma_cosim_engine::stim::{Family, Stimulus};
use ptxfma_cosim_engine::stream::Families;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};

/// Operations of the closure run: what `make cosim` runs.
const OPS: u64 = 1_000_000;

/// Samples one chunk's stream through the model from reset into `cov`. The stream mixes in the
/// directed corners itself (one operation in `directed::RATE`); without `corners` they are
/// replaced back by plain generated vectors of the same family, to measure what they add.
fn drive(cov: &mut Coverage, c: &Chunk, corners: bool) {
    let mut p = Pipeline::new();
    let mut prev = PipeIn::default();
    let mut plain: Vec<Stimulus> = Family::ALL
        .iter()
        .map(|f| Stimulus::new(c.seed, &[*f]))
        .collect();
    for (inp, fam) in c.stream() {
        let inp = if !corners && inp.valid {
            // A valid input in a reset cycle issues nothing: its word is all there is.
            let fam = fam.unwrap_or_else(|| Family::of(&Ctrl::decode(inp.ctrl)));
            let v = plain[fam as usize].next().unwrap();
            v.input(inp.tag)
        } else {
            inp
        };
        p.tick(&inp);
        cov.sample(&inp, &prev, &p);
        prev = inp;
    }
}

/// The coverage of a run of `count` operations of every family (the default stream, cut into
/// chunks as `fma-cosim run` cuts it), one coverage per chunk, merged.
fn run(seed: u64, count: u64, corners: bool) -> Coverage {
    let plan = chunk::plan(seed, count, &Families::all(), chunk::DEFAULT_SIZE).unwrap();
    let mut total = Coverage::new();
    for c in &plan {
        let mut cov = Coverage::new();
        drive(&mut cov, c, corners);
        total.merge(&cov);
    }
    total
}

/// The closure run, shared by the tests that read it.
fn closure() -> &'static Coverage {
    static C: OnceLock<Coverage> = OnceLock::new();
    C.get_or_init(|| run(1, OPS, true))
}

/// Bins that uniform edge-biased operands reach rarely or never in a million operations;
/// the directed corners must get them all.
const HARD: &[(&str, &str)] = &[
    (
        "f64.rounding",
        ".rn: tie rounded up, carry into the exponent",
    ),
    (
        "f32.rounding",
        ".rm: tie rounded up, carry into the exponent",
    ),
    (
        "f32x2.rounding",
        ".rp: tie rounded up, carry into the exponent",
    ),
    (
        "f32x2.cancellation",
        "lane1 total cancellation (exact zero)",
    ),
    (
        "sm1x.paths",
        "product >= 2^128 brought back into range by c",
    ),
    ("sm1x.paths", "c = +0, tiny negative product: -0 + +0 = +0"),
    ("sm1x.result", "overflow caused by the rounding carry"),
    ("vmad.clamp", "u32 .shr15 .sat: clamped high"),
    (
        "f32.result",
        "ftz: tiny before rounding, rounds to the minimum normal at p bits (kept, S4)",
    ),
    (
        "addsubmul.result",
        "ftz: tiny before rounding, rounds to the minimum normal at p bits (kept, S4)",
    ),
    (
        "f32.result",
        "ftz: rounds up to the minimum normal at the subnormal quantum, not at p bits \
         (flushed, S4)",
    ),
    (
        "addsubmul.result",
        "ftz: rounds up to the minimum normal at the subnormal quantum, not at p bits \
         (flushed, S4)",
    ),
    (
        "sm1x.result",
        "ftz: tiny before rounding, rounds to the minimum normal at p bits (kept, S4)",
    ),
    (
        "addsubmul.result",
        "tiny before rounding, rounds up to the minimum normal",
    ),
    ("f64.special", "first NaN is c, signalling (quieted)"),
    ("f64.special", "NaN in a, b, c"),
    ("f64.alignment", "shift clamped (56 - d > 164)"),
    ("lza.position", "lane1: leading one at bit 63"),
    ("lza.position", "lane0: leading one at bit 64"),
    ("f32x2.lanes", "lane0 overflow x lane1 NaN"),
    ("f32x2.lanes", "lane0 flushed x lane1 flushed"),
    ("mixed.inputs", "bf16 fma b subnormal"),
    ("mixed.result", "overflow .rm +: +max finite"),
    ("traffic.families", "vmad -> f64"),
    ("vmad.bounds", "s32 .sat: INT_MAX + 1 (clamped high)"),
    (
        "vmad.bounds",
        "u32 .sat: bit 62 alone of bits 62:32 (clamped high)",
    ),
    (
        "f64.bounds",
        "exact result with the addend past the window's bottom (shift > 111)",
    ),
    (
        "f64.bounds",
        "inexact only by the bit just below the round bit",
    ),
    (
        "f32.bounds",
        "rounded into the top binade (e = emax), no overflow",
    ),
];

#[test]
fn default_stimulus_closes_coverage() {
    let c = closure();
    assert_eq!(c.operations(), OPS);
    assert_eq!(c.unspelled(), 0);
    let bad = c.unreachable_hit();
    assert!(
        bad.is_empty(),
        "bins declared unreachable were hit (the declarations are wrong): {bad:?}"
    );
    let pct = c.total_percent();
    assert!(
        pct >= 95.0,
        "{pct:.2}% of the reachable bins after {OPS} operations; uncovered: {:?}",
        c.uncovered()
    );
    // With the corners the run closes completely; a regression here names what it lost.
    assert!(c.uncovered().is_empty(), "uncovered: {:?}", c.uncovered());
}

#[test]
fn default_stimulus_hits_the_hard_bins() {
    let c = closure();
    let missed: Vec<_> = HARD
        .iter()
        .filter(|(g, b)| c.hits(g, b).expect("a declared bin") == 0)
        .collect();
    assert!(missed.is_empty(), "hard bins not hit: {missed:?}");
}

#[test]
fn every_group_is_named_and_documented() {
    let c = Coverage::new();
    let groups = c.groups();
    assert!(groups.len() > 50);
    for g in &groups {
        assert!(!g.doc.is_empty(), "{}", g.name);
        assert!(g.reachable + g.unreachable > 0, "{}", g.name);
        assert_eq!(g.hit, 0);
    }
    // Unreachable bins carry their reason into the file.
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"unreachable\":\"no legal `f64` instruction takes .sat"));
    let total: usize = groups.iter().map(|g| g.reachable + g.unreachable).sum();
    assert_eq!(c.rows().len(), total);
}

/// Chunks run from reset: the coverage of the whole is the sum of the chunks', in any order.
#[test]
fn merge_is_addition() {
    let plan = chunk::plan(7, 40_001, &Families::all(), 15_000).unwrap();
    assert_eq!(plan.len(), 3);
    let mut whole = Coverage::new();
    let mut parts = Vec::new();
    for c in &plan {
        drive(&mut whole, c, true);
        let mut cov = Coverage::new();
        drive(&mut cov, c, true);
        parts.push(cov);
    }
    let mut sum = Coverage::new();
    for c in &parts {
        sum.merge(c);
    }
    assert_eq!(sum, whole);
    assert_eq!(sum.operations(), 40_001);
    let mut rev = parts[2].clone();
    rev.merge(&parts[1]);
    rev.merge(&parts[0]);
    assert_eq!(rev, whole);
    assert!(whole.total_percent() > 50.0);
}

#[test]
fn file_round_trips_and_merges_by_name() {
    let c = run(3, 5_000, true);
    let text = serde_json::to_string_pretty(&c).unwrap();
    let back = Coverage::from_json(&text).unwrap();
    assert_eq!(back, c);

    // A file from another build: one bin renamed, one group more, one group fewer.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let groups = v["groups"].as_array_mut().unwrap();
    groups[0]["bins"][0]["name"] = "renamed bin".into();
    groups[0]["bins"][0]["hits"] = 5.into();
    groups.push(serde_json::json!({
        "name": "extra.group",
        "doc": "not in this build",
        "bins": [{"name": "x", "hits": 2}, {"name": "y", "hits": 0, "unreachable": "why"}],
    }));
    groups.remove(1);
    let other = Coverage::from_json(&v.to_string()).unwrap();
    let mut m = c.clone();
    m.merge(&other);
    assert_eq!(m.hits("extra.group", "x"), Some(2));
    assert_eq!(m.hits("instr.words", "renamed bin"), Some(5));
    let first = c.rows()[0].bin.to_string();
    assert_eq!(m.hits("instr.words", &first), c.hits("instr.words", &first));
    // The group the other file lacks keeps this side's counts; the others add up.
    let rows = c.rows();
    let of = |g: &str| {
        rows.iter()
            .find(|r| r.group == g && r.hits > 0)
            .unwrap()
            .bin
    };
    let (lacking, both) = (c.groups()[1].name.clone(), c.groups()[2].name.clone());
    assert_eq!(
        m.hits(&lacking, of(&lacking)),
        c.hits(&lacking, of(&lacking))
    );
    assert_eq!(
        m.hits(&both, of(&both)),
        c.hits(&both, of(&both)).map(|n| 2 * n)
    );
    assert_eq!(m.operations(), 2 * c.operations());
    // Sampling a merged coverage carries it over to this build's bins.
    let mut p = Pipeline::new();
    let inp = Stimulus::new(1, &[Family::F32]).next().unwrap().input(0);
    p.tick(&inp);
    m.sample(&inp, &PipeIn::default(), &p);
    assert_eq!(m.operations(), 2 * c.operations() + 1);
    assert_eq!(m.hits("extra.group", "x"), Some(2));

    // Results files carry coverage under `coverage`; anything else is refused.
    let wrapped = format!("{{\"schema\":\"ptxfma-cosim-result\",\"coverage\":{text}}}");
    assert_eq!(Coverage::from_json(&wrapped).unwrap(), c);
    assert!(Coverage::from_json("{\"schema\":\"other\"}").is_err());
    assert!(
        Coverage::from_json(&text.replace("\"schema_version\": 1", "\"schema_version\": 9"))
            .is_err()
    );
}

/// `name` (which may hold a directory of the test's own) in this process's scratch directory,
/// which the tests running in parallel share: a test removes only its own directory.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxfma-coverage-{}", std::process::id()));
    let f = d.join(name);
    std::fs::create_dir_all(f.parent().unwrap()).unwrap();
    f
}

fn cli(args: &[&str]) -> u8 {
    let mut v = vec!["fma-cosim".into()];
    v.extend(args.iter().map(std::ffi::OsString::from));
    ptxfma_cosim::main(v)
}

#[test]
fn coverage_command_merges_and_writes_html() {
    let (a, b) = (run(4, 3_000, true), run(5, 3_000, true));
    let (fa, fb) = (tmp("merge/a.json"), tmp("merge/b.json"));
    a.write_json(&fa).unwrap();
    b.write_json(&fb).unwrap();
    let (html, json) = (tmp("merge/cov.html"), tmp("merge/merged.json"));
    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    let code = cli(&[
        "coverage",
        &s(&fa),
        &s(&fb),
        "--html",
        &s(&html),
        "--json",
        &s(&json),
    ]);
    assert_eq!(code, 0);
    let mut sum = a.clone();
    sum.merge(&b);
    assert_eq!(Coverage::read_json(&json).unwrap(), sum);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<style>"));
    for external in ["http://", "https://", "<script", "<link", "src="] {
        assert!(!page.contains(external), "external resource `{external}`");
    }
    assert!(page.contains("class=\"bar") && page.contains("traffic.families"));
    // Below the threshold: exit 1; a missing file: exit 2.
    assert_eq!(cli(&["coverage", &s(&fa), "--fail-under", "99.9"]), 1);
    assert_eq!(cli(&["coverage", &s(&tmp("merge/missing.json"))]), 2);
    let _ = std::fs::remove_dir_all(fa.parent().unwrap());
}

/// Closure numbers for the report: `cargo test --release -p ptxfma-cosim --test cosim
/// coverage::closure_table -- --ignored --nocapture` (COV_OPS, COV_SEED, COV_CORNERS=0|1, COV_JSON=FILE).
#[test]
#[ignore]
fn closure_table() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (n, seed, corners) = (
        env("COV_OPS", OPS),
        env("COV_SEED", 1),
        env("COV_CORNERS", 1),
    );
    let c = run(seed, n, corners == 1);
    if let Ok(f) = std::env::var("COV_JSON") {
        c.write_json(std::path::Path::new(&f)).unwrap();
    }
    print!("{}", ptxfma_cosim_outputs::coverage_text::text(&c, false));
}

/// Thread CPU time of this thread, in nanoseconds (wall time is noise on a shared machine).
fn cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// What sampling costs per cycle next to a model tick: `cargo test --release -p ptxfma-cosim
/// --test cosim coverage::sample_cost -- --ignored --nocapture` (COV_FAMILY=f32 for one family).
#[test]
#[ignore]
fn sample_cost() {
    let fams = match std::env::var("COV_FAMILY") {
        Ok(f) => vec![Family::parse(&f).expect("a family name")],
        Err(_) => Family::ALL.to_vec(),
    };
    let n = 1_000_000;
    let inputs: Vec<PipeIn> = Stimulus::new(5, &fams)
        .take(n)
        .enumerate()
        .map(|(i, v)| v.input(i as u16))
        .collect();
    let (mut tick, mut both) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        let mut p = Pipeline::new();
        let t = cpu_ns();
        for i in &inputs {
            p.tick(i);
        }
        tick = tick.min((cpu_ns() - t) / n as f64);
        let mut p = Pipeline::new();
        let mut cov = Coverage::new();
        let mut prev = PipeIn::default();
        let t = cpu_ns();
        for i in &inputs {
            p.tick(i);
            cov.sample(i, &prev, &p);
            prev = *i;
        }
        both = both.min((cpu_ns() - t) / n as f64);
    }
    println!(
        "tick {tick:.0} ns/cycle, tick + sample {both:.0} ns/cycle: sampling {:.0} ns/cycle \
         (thread CPU time, best of 5)",
        both - tick
    );
}

/// The first hit of every hit bin in a coverage file, by (group, bin).
fn first_hits(path: &std::path::Path) -> std::collections::BTreeMap<(String, String), u64> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for g in v["groups"].as_array().unwrap() {
        for b in g["bins"].as_array().unwrap() {
            if b["hits"].as_u64().unwrap() > 0 {
                let first = b["first"].as_u64().expect("a hit bin has its first hit");
                let key = (g["name"].as_str().unwrap(), b["name"].as_str().unwrap());
                out.insert((key.0.to_string(), key.1.to_string()), first);
            }
        }
    }
    out
}

/// The closure curve's positions are operation counts of the whole run: a shard that holds
/// chunk k alone puts each of its first hits inside chunk k's stretch of the run (a chunk's
/// own count, not moved by its start, would put them all in the first; bounding them by the
/// shard's own count put them at its end), its closure curve ends at its bins hit, and the
/// shards' earliest, like `--jobs 1` and `--jobs 2`, give the whole run's.
#[test]
fn first_hits_are_positions_in_the_whole_run() {
    const CHUNK: u64 = 4096;
    let chunk = CHUNK.to_string();
    let count = (4 * CHUNK).to_string();
    let run = |name: &str, extra: &[&str]| {
        let f = tmp(name);
        let args = [
            &[
                "run",
                "--count",
                &count,
                "--chunk-size",
                &chunk,
                "--seed",
                "5",
            ][..],
            &["--progress", "off", "--coverage", f.to_str().unwrap()],
            extra,
        ]
        .concat();
        assert_eq!(cli(&args), 0, "{args:?}");
        first_hits(&f)
    };
    let whole = run("first-jobs2.json", &["--jobs", "2"]);
    assert_eq!(run("first-jobs1.json", &["--jobs", "1"]), whole);
    let mut earliest = std::collections::BTreeMap::new();
    for k in 1..=4u64 {
        let shard = format!("{k}/4");
        let part = run(&format!("first-shard{k}.json"), &["--shard", &shard]);
        // The shard's closure curve reaches its last first hit, whatever its own count.
        let c = Coverage::read_json(&tmp(&format!("first-shard{k}.json"))).unwrap();
        let closure = c.closure();
        let last = closure.points.last().unwrap();
        let hit: usize = c.groups().iter().map(|g| g.hit).sum();
        assert_eq!(last.1[closure.curves.len() - 1], hit, "shard {k}");
        let (lo, hi) = ((k - 1) * CHUNK + 1, k * CHUNK);
        assert!(part.len() > 100, "shard {k}: {} bins hit", part.len());
        for (bin, &f) in &part {
            assert!(
                (lo..=hi).contains(&f),
                "shard {k}: {bin:?} first hit at {f}"
            );
            let e = earliest.entry(bin.clone()).or_insert(f);
            *e = (*e).min(f);
        }
    }
    assert_eq!(earliest, whole);
}

/// A run of one family hits no bin outside it: the bins the coverage counts as outside a run
/// of some families (`sampled_by`) are never sampled by those families' operations.
#[test]
fn a_family_alone_hits_no_bin_outside_it() {
    for f in Family::ALL {
        let fam = Families(vec![f]);
        let mut total = Coverage::new();
        for c in &chunk::plan(9, 30_000, &fam, chunk::DEFAULT_SIZE).unwrap() {
            let mut cov = Coverage::new();
            drive(&mut cov, c, true);
            total.merge(&cov);
        }
        total.set_families(&[f]);
        let wrong = total.unreachable_hit();
        assert!(wrong.is_empty(), "{}: {wrong:?}", f.name());
        let t = total.totals();
        assert!(t.outside > 0 && t.reachable > 0, "{}: {t:?}", f.name());
        // Every bin is reachable, outside, or unreachable by any instruction.
        let all = Coverage::new().totals();
        assert_eq!(t.reachable + t.outside, all.reachable, "{}", f.name());
        assert_eq!(t.unreachable, all.unreachable);
    }
}

#[test]
fn a_run_of_one_family_is_judged_over_the_bins_it_reaches() {
    let dir = std::env::temp_dir().join(format!("ptxfma-coverage-f32-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cov = dir.join("cov.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .args([
            "run",
            "--progress",
            "off",
            "--filter",
            "f32",
            "--count",
            "200000",
        ])
        .arg("--coverage")
        .arg(&cov)
        .arg("--waves-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}");
    let (hit, reach, pct, outside, unreachable) = headline_numbers(&out);

    // The same counts, bin by bin, from the file.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov).unwrap()).unwrap();
    assert_eq!(v["families"], serde_json::json!(["f32"]));
    let (mut r, mut h, mut out_, mut u) = (0u64, 0u64, 0u64, 0u64);
    for g in v["groups"].as_array().unwrap() {
        let group = g["name"].as_str().unwrap();
        for b in g["bins"].as_array().unwrap() {
            let hits = b["hits"].as_u64().unwrap();
            if b["unreachable"].is_string() {
                u += 1;
            } else if f32_samples(group, b["name"].as_str().unwrap()) {
                r += 1;
                h += (hits > 0) as u64;
            } else {
                out_ += 1;
                assert_eq!(hits, 0, "{group}: {} is hit", b["name"]);
            }
        }
    }
    assert_eq!((hit, reach, outside, unreachable), (h, r, out_, u), "{out}");
    assert_eq!(pct, format!("{:.1}", 100.0 * h as f64 / r as f64));
    // Over the bins f32 reaches the run is nearly closed, where over every family's it would
    // be a few percent.
    assert!(100 * h > 95 * r, "{out}");
    assert!(100 * h < 10 * (r + out_));
    let s = &v["summary"];
    assert_eq!(
        (
            s["hit"].as_u64(),
            s["reachable"].as_u64(),
            s["outside"].as_u64()
        ),
        (Some(h), Some(r), Some(out_))
    );
    assert_eq!(s["unreachable"].as_u64(), Some(u));

    // `fma-cosim coverage` and its HTML page give the same headline.
    let html = dir.join("cov.html");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .arg("coverage")
        .arg(&cov)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert_eq!(
        headline_numbers(&text),
        (hit, reach, pct.clone(), outside, unreachable)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    // The run's line ends with where the per-group table is; the headline comes before.
    let head = out
        .lines()
        .find_map(|l| l.strip_prefix("functional coverage: "))
        .and_then(|l| l.split(" (per group: ").next())
        .unwrap();
    assert!(page.contains(&head.replace('\'', "&#39;")), "{head}");
    let _ = std::fs::remove_dir_all(&dir);
}

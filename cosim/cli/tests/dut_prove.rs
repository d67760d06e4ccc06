//! `fma-cosim dut prove` (docs/formal.md): a team's half-precision design proved against the
//! kit's RTL by a miter. The tests that run the solvers need the WebAssembly tools
//! (`make formal-tools`) and take minutes, so they are `#[ignore]`d here and run by `make
//! prove-dut-test` (in `make test`); the others run in every `cargo test`.
//!
//! - A copy of the kit's RTL with one token changed in the rounding window (proved on
//!   `add.rn.f16`, binary16's) is found, and the printed replay line, run as printed against
//!   that copy built with `dut build`, diverges.
//! - The same copy unchanged is proved (`add.rn.f16`: the stream proof at half the solver time
//!   of `fma.rn.f16`, whose multiplier the proof by cases below holds).
//! - The independent half FMA (`tests/dut/exact_half/`) runs out of a short time limit and says
//!   so plainly.
//! - By cases (`--by-cases`), a slice of its proof of `fma.rn.f16` (the cover, its product
//!   wire, one case, one part of the kit's product) is proved; a fault planted in one exponent
//!   range is found by the case that holds it, and its replay line diverges; a wire that is not
//!   the product fails its claim (the full proof is measured in docs/formal.md).

use crate::common;

use std::path::{Path, PathBuf};

use common::cosim;
use ptxfma_cosim_dut::half_words;
use ptxfma_cosim_engine::stim::Family;
use ptxfma_model::ctrl::Kind;

/// The planted fault: the sticky bit loses its top bit (a one-token edit in the window every
/// format shares; the proof issues only `add.rn.f16`, so binary16's).
const ROUND_FILE: &str = "ptxfma_round_window.sv";
const FAULT_FROM: &str = "st:        (norm_i[Rb-1:0] != '0) || sticky_i,";
const FAULT_TO: &str = "st:        (norm_i[Rb-2:0] != '0) || sticky_i,";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory under the system's temporary directory (outside the checkout, as a
/// team's design would be), removed when dropped.
struct Team(PathBuf);

impl Team {
    fn new(name: &str) -> Team {
        let d = std::env::temp_dir().join(format!("ptxfma-prove-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("src")).unwrap();
        Team(d)
    }

    fn path(&self, p: &str) -> String {
        self.0.join(p).to_str().unwrap().to_string()
    }

    /// The kit's RTL copied into `src/`, `ptxfma_round_window.sv` with the planted fault if
    /// `fault`, and manifest `name` for it (latency 4, its four registers: the half families).
    fn kit_copy(&self, name: &str, fault: bool) -> String {
        let list = std::fs::read_to_string(repo().join("rtl/files.txt")).unwrap();
        let files: Vec<&str> = list
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(".sv"))
            .collect();
        for f in &files {
            let mut text = std::fs::read_to_string(repo().join("rtl").join(f)).unwrap();
            if fault && *f == ROUND_FILE {
                assert_eq!(
                    text.matches(FAULT_FROM).count(),
                    1,
                    "the fault's line moved"
                );
                text = text.replace(FAULT_FROM, FAULT_TO);
            }
            std::fs::write(self.0.join("src").join(f), text).unwrap();
        }
        let sources: Vec<String> = files.iter().map(|f| format!("\"src/{f}\"")).collect();
        self.manifest(
            name,
            &format!(
                "[design]\ntop = \"ptxfma_top\"\nsources = [{}]\n\n[contract]\nlatency = 4\n\n\
                 [forms]\nfamilies = [\"half\", \"half2\"]\n",
                sources.join(", ")
            ),
        )
    }

    /// The independent half FMA copied into `src/` and its manifest.
    fn exact_half(&self) -> String {
        let from = repo().join("cosim/cli/tests/dut/exact_half");
        for f in ["exact_half_lane.sv", "exact_half_top.sv", "exact_half.toml"] {
            std::fs::copy(from.join(f), self.0.join("src").join(f)).unwrap();
        }
        self.path("src/exact_half.toml")
    }

    /// The independent half FMA declared as an `fma.rn.f16` unit (`fma_rn_f16.toml`), with
    /// `defines` and `wire` named as its binary16 product.
    fn exact_half_f16(&self, name: &str, defines: &str, wire: &str) -> String {
        let from = repo().join("cosim/cli/tests/dut/exact_half");
        for f in ["exact_half_lane.sv", "exact_half_top.sv"] {
            std::fs::copy(from.join(f), self.0.join("src").join(f)).unwrap();
        }
        let text = std::fs::read_to_string(from.join("fma_rn_f16.toml")).unwrap();
        let named = "wire = \"u_f16.sig_prod\"\n";
        assert_eq!(text.matches(named).count(), 1, "{text}");
        let text = text
            .replace("[design]\n", &format!("[design]\ndefines = [{defines}]\n"))
            .replace(named, &format!("wire = \"{wire}\"\n"));
        std::fs::write(self.0.join("src").join(name), text).unwrap();
        self.path(&format!("src/{name}"))
    }

    fn manifest(&self, name: &str, text: &str) -> String {
        std::fs::write(self.0.join(name), text).unwrap();
        self.path(name)
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `fma-cosim dut prove ARGS` with the formal tools (`make formal-tools`) first on PATH, and no
/// cache of the kit's claims.
fn prove(args: &[&str]) -> (i32, String, String) {
    prove_cached(args, "")
}

/// `prove` with the kit's claims kept in `cache` (empty: none).
fn prove_cached(args: &[&str], cache: &str) -> (i32, String, String) {
    let path = format!(
        "{}:{}",
        repo().join("target/formal/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .args(["dut", "prove"])
        .args(args)
        .env("PATH", path)
        .env(ptxfma_cosim_dut::runtime_cache::ENV, cache)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `dut build MANIFEST --out BUILD` without the traced model, at -O0: the replay lines need one
/// operation.
fn quick_build(manifest: &str, build: &str) {
    let args = [
        "dut",
        "build",
        manifest,
        "--out",
        build,
        "--no-trace",
        "--cxx-opt",
        "0",
    ];
    let (code, out, err) = cosim(&args);
    assert_eq!(code, 0, "{out}{err}");
}

/// `dut prove MANIFEST --by-cases SLICE.. --out OUT`, the kit's claims kept in `cache` (empty:
/// none).
fn by_cases(manifest: &str, slice: &[&str], out: &str, cache: &str) -> (i32, String, String) {
    let mut args = vec![manifest, "--by-cases"];
    args.extend_from_slice(slice);
    args.extend_from_slice(&["--out", out]);
    prove_cached(&args, cache)
}

/// The steps the progress lines say were started (`  step N of 0..M started at T s: ...`).
fn said_steps(out: &str) -> Vec<u64> {
    out.lines()
        .filter_map(|l| l.trim().strip_prefix("step "))
        .filter(|l| l.contains(" started at "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"))
}

#[test]
fn the_half_words_are_the_decoders_and_the_models_families_alike() {
    let words = half_words::all();
    let mut from_decoder: Vec<u32> = words.iter().map(|w| w.word).collect();
    let mut from_model: Vec<u32> = [Family::Half, Family::Half2]
        .iter()
        .flat_map(|f| f.ctrls())
        .map(|c| c.encode())
        .collect();
    from_decoder.sort_unstable();
    from_model.sort_unstable();
    from_model.dedup();
    assert_eq!(from_decoder, from_model);
    assert!(words
        .iter()
        .all(|w| matches!(w.ctrl.kind, Kind::Half | Kind::Half2)));
    // The forms narrow them: rn only, no .ftz, no .sat, one lane.
    let forms = ptxfma_cosim_engine::stim::Forms {
        rnds: [true, false, false, false],
        ftz: false,
        sat: false,
        ..ptxfma_cosim_engine::stim::Forms::ALL
    };
    let some = half_words::allowed(&[Family::Half], Some(forms));
    assert!(some.iter().any(|w| w.spelling == "fma.rn.f16"));
    assert!(some.iter().any(|w| w.spelling == "fma.rn.oob.relu.bf16"));
    assert!(!some
        .iter()
        .any(|w| w.x2() || w.ctrl.ftz || w.ctrl.sat || w.spelling.starts_with("fma.rz")));
    // And the miter's include lists exactly them.
    let svh = half_words::svh(&some);
    for w in &some {
        assert!(
            svh.contains(&format!("27'h{:07x}: legal_ctrl", w.word)),
            "{}",
            w.spelling
        );
    }
    assert_eq!(svh.matches(": legal_ctrl = 1'b1").count(), some.len());
    // An fma.rn.f16 unit's forms (`exact_half/fma_rn_f16.toml`) leave that word alone: its
    // proof needs no --words.
    let one = ptxfma_cosim_engine::stim::Forms {
        operations: [true, false, false, false, false, false],
        formats: [false, false, false, false, false, true, false, false, false],
        relu: false,
        oob: false,
        ..forms
    };
    let words = half_words::allowed(&[Family::Half, Family::Half2], Some(one));
    let spellings: Vec<&str> = words.iter().map(|w| w.spelling.as_str()).collect();
    assert_eq!(spellings, ["fma.rn.f16"]);
}

#[test]
fn bad_manifests_and_arguments_are_one_line_errors() {
    let t = Team::new("bad");
    let src = |extra: &str| {
        std::fs::write(t.0.join("src/x.sv"), "module x; endmodule\n").unwrap();
        format!("[design]\ntop = \"x\"\nsources = [\"src/x.sv\"]\n{extra}")
    };
    let cases = [
        (
            "no-latency.toml",
            src("[forms]\nfamilies = [\"half\"]\n"),
            "no contract.latency",
        ),
        (
            "handshake.toml",
            src("[contract]\nlatency = 3\nhandshake = true\n[forms]\nfamilies = [\"half\"]\n"),
            "contract.handshake",
        ),
        (
            "no-half.toml",
            src("[contract]\nlatency = 3\n[forms]\nfamilies = [\"f32\"]\n"),
            "allow no .f16",
        ),
        (
            "too-slow.toml",
            src("[contract]\nlatency_bound = 8\nlatency = 9\n"),
            "above the latency bound 8",
        ),
    ];
    for (name, text, says) in cases {
        let m = t.manifest(name, &text);
        let (code, out, err) = prove(&[&m, "--out", &t.path("out")]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!t.0.join("out").exists(), "{name}: left an output");
    }
    let ok = t.manifest(
        "ok.toml",
        &src("[contract]\nlatency = 3\n[forms]\nfamilies = [\"half\"]\nrounding = [\"rn\"]\n"),
    );
    for (args, says) in [
        (vec!["--words", "fma.rn.f32"], "not a half-precision word"),
        (vec!["--words", "fma.rz.f16"], "--words `fma.rz.f16`"),
        (vec!["--depth", "5"], "--depth 5 is below 6"),
        (vec!["--by-cases", "--cases", "99"], "--cases 99: `"),
        (
            vec!["--by-cases", "--parts", "256"],
            "--parts 256: the kit's product claim of `",
        ),
    ] {
        let out_dir = t.path("out");
        let mut all = vec![ok.as_str(), "--out", &out_dir];
        all.extend(args);
        let (code, out, err) = prove(&all);
        assert_eq!(code, 2, "{all:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{all:?}: {err}");
        // Refused before anything is written: no run directory, no log.
        assert!(
            !t.0.join("out").exists() && !t.0.join("out.log").exists(),
            "{all:?}"
        );
    }
    // A directory of someone else's as --out: refused in one line, left as it was.
    let theirs = t.0.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine\n").unwrap();
    let (code, out, err) = prove(&[&ok, "--out", &t.path("theirs")]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("holds no earlier `dut prove`"), "{err}");
    assert_eq!(
        std::fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "mine\n"
    );
    // No tools on PATH: one line, exit 2, nothing written.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .args(["dut", "prove", &ok, "--out", &t.path("out")])
        .env("PATH", t.path("src"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no `yosys` on PATH"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!t.0.join("out").exists());
}

#[test]
#[ignore = "runs the WebAssembly solvers for minutes: make prove-dut-test"]
fn a_planted_half_fault_in_a_copy_of_the_kit_is_found_and_replays() {
    let t = Team::new("fault");
    let m = t.kit_copy("fault.toml", true);
    let build = t.path("build");
    quick_build(&m, &build);
    let (code, out, err) = prove(&[
        &m,
        "--words",
        "add.rn.f16",
        "--depth",
        "6",
        "--out",
        &t.path("prove"),
        "--dut",
        &build,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("counterexample"), "{out}");
    let trace = PathBuf::from(line(&out, "trace: "));
    assert!(trace.is_file(), "{out}");
    let vcd = std::fs::read_to_string(&trace).unwrap();
    assert!(
        vcd.contains("cmp_kit_d") && vcd.contains("in_ctrl_i"),
        "not the miter's trace"
    );
    let replay = line(&out, "replay: ");
    assert!(replay.contains("--ctrl 0x285 "), "{replay}");
    // Run as printed: the copy built with `dut build` diverges from the model on it.
    let run = std::process::Command::new("sh")
        .args(["-c", replay])
        .current_dir(&t.0)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("wrong result (out_d_o)"), "{text}");
    assert!(text.contains("add.rn.f16"), "{text}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("prove/prove.json")).unwrap())
            .unwrap();
    assert_eq!(record["verdict"], "counterexample");
    assert_eq!(record["replay"], replay);
}

#[test]
#[ignore = "runs the WebAssembly solvers for minutes: make prove-dut-test"]
fn an_unchanged_copy_of_the_kit_is_proved() {
    let t = Team::new("copy");
    let m = t.kit_copy("copy.toml", false);
    let (code, out, err) = prove(&[
        &m,
        "--words",
        "add.rn.f16",
        "--depth",
        "6",
        "--out",
        &t.path("prove"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("proved: every result of every operation issued in 6 steps"),
        "{out}"
    );
    assert!(out.contains("words (1): add.rn.f16;"), "{out}");
    // It said where its log is before anything ran, and each step as it went; the log is in
    // plain sight beside --out, and kept.
    assert!(out.lines().nth(1).unwrap().starts_with("log: "), "{out}");
    let log = std::path::PathBuf::from(line(&out, "log: ").split(" (").next().unwrap());
    assert_eq!(log, t.0.join("prove.log").canonicalize().unwrap());
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("Checking assertions in step 5"));
    assert_eq!(said_steps(&out), (0..6).collect::<Vec<u64>>(), "{out}");
    assert!(out.contains("step 5: no divergence ("), "{out}");
}

#[test]
#[ignore = "runs the WebAssembly solvers for minutes: make prove-dut-test"]
fn the_independent_half_fma_out_of_time_says_how_far_it_got() {
    let t = Team::new("exact");
    let m = t.exact_half();
    let (code, out, err) = prove(&[
        &m,
        "--words",
        "fma.rn.f16",
        "--depth",
        "6",
        "--timeout",
        "20",
        "--out",
        &t.path("prove"),
    ]);
    assert_eq!(code, 3, "{out}{err}");
    // It says what it checked: no result is compared before step 5 (four edges after an
    // operation issued in step 1), so a run cut off before that compared nothing.
    let said = line(&out, "out of time after ");
    let steps = said_steps(&out);
    if steps.iter().all(|&s| s <= 5) {
        assert!(
            said.contains("no result was compared, nothing is proved"),
            "{out}"
        );
    } else {
        assert!(said.contains("were not compared: not proved"), "{out}");
    }
    assert!(!said.contains("no divergence"), "{out}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("prove/prove.json")).unwrap())
            .unwrap();
    assert_eq!(record["verdict"], "out of time");
    assert!(record["steps_checked"].as_u64().unwrap() < 6);
}

#[test]
#[ignore = "runs the WebAssembly solvers for minutes: make prove-dut-test"]
fn the_independent_half_fma_by_cases_a_slice_is_proved() {
    let t = Team::new("cases");
    // A slice of the proof: the cover, the design's product wire, case 16 (d = 1, like signs)
    // and one part of the kit's product claim.
    let m = t.exact_half_f16("f16.toml", "", "u_f16.sig_prod");
    let cache = t.path("cache");
    let slice = ["--cases", "16", "--parts", "0", "--jobs", "2"];
    let (code, out, err) = by_cases(&m, &slice, &t.path("slice"), &cache);
    assert_eq!(code, 0, "{out}{err}");
    for claim in [
        "fma.rn.f16 the cases cover every operand triple: proved in ",
        "fma.rn.f16 the design's product wire is the specification product: proved in ",
        "fma.rn.f16 case 16, d = 1, like signs: proved in ",
        "specification product, b's significand's top 8 bits 0x0: proved in ",
    ] {
        assert!(out.contains(claim), "{claim}\n{out}");
    }
    assert!(out.contains("fma.rn.f16: 4 of 4 proved"), "{out}");
    // A slice says so: it is not the proof of the word.
    let said = line(&out, "proved: every claim run (");
    assert!(said.contains("255 of the 256 parts"), "{said}");
    assert!(said.contains("fma.rn.f16: 34 of its 35 cases"), "{said}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("slice/prove.json")).unwrap())
            .unwrap();
    assert_eq!(record["method"], "cases");
    assert_eq!(record["verdict"], "proved");
    assert_eq!(record["words"][0]["claims"].as_array().unwrap().len(), 4);

    // The kit's part, proved, is kept: a second run (another slice) does not prove it again.
    let another = ["--cases", "0", "--parts", "0"];
    let (code, out, err) = by_cases(&m, &another, &t.path("again"), &cache);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("top 8 bits 0x0: proved before, kept in the cache ("),
        "{out}"
    );
    assert!(out.contains("(1 kept from an earlier run"), "{out}");
    // (With the cache off it is proved again: the fault test below.)

    // Cut off while Yosys reads: no claim ran, and none is called proved.
    let cut = ["--cases", "0", "--timeout", "2"];
    let (code, out, err) = by_cases(&m, &cut, &t.path("cut"), "");
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains("case 0, NaN or infinity: not started (out of time)"),
        "{out}"
    );
    assert!(out.contains("not proved: out of time"), "{out}");
}

#[test]
#[ignore = "runs the WebAssembly solvers for minutes: make prove-dut-test"]
fn by_cases_a_planted_fault_is_found_and_replays_and_a_wrong_product_wire_fails() {
    // A space in every path: the replay line must quote it.
    let t = Team::new("far sticky");
    // The planted fault, and (one run for two checks) the manifest naming the bfloat16 lane's
    // product, of the same bits, as the binary16 one: the wire's claim fails, while the fault
    // is still found by the case that holds it (the binary16 lane keeps its own multiplier).
    let m = t.exact_half_f16("far.toml", "\"FAULT_HALF_STICKY_FAR\"", "u_bf16.sig_prod");
    let build = t.path("far-build");
    quick_build(&m, &build);
    let slice = [
        "--cases", "3", "--parts", "0", "--jobs", "2", "--dut", &build,
    ];
    let (code, out, err) = by_cases(&m, &slice, &t.path("far"), "");
    assert_eq!(code, 1, "{out}{err}");
    // The kit's cache off (as `prove` runs it): its part is proved, not taken from a cache.
    assert!(out.contains("top 8 bits 0x0: proved in "), "{out}");
    assert!(
        out.contains("the design's product wire is the specification product: fails in "),
        "{out}"
    );
    let said = line(&out, "  fma.rn.f16 case 3, d >= 14: counterexample in ");
    assert!(said.contains("the design gave"), "{said}");
    let replay = line(&out, "replay: ");
    assert!(replay.contains("--ctrl fma.rn.f16 "), "{replay}");
    // The case's waveform is named (not the failing wire claim's), and is the miter's.
    let trace = PathBuf::from(line(&out, "trace: "));
    assert!(trace.ends_with("case3.vcd"), "{out}");
    let vcd = std::fs::read_to_string(&trace).unwrap();
    assert!(
        vcd.contains(" case_sel ") && vcd.contains(" kit_d "),
        "not the miter's trace"
    );
    // Run as printed: the faulted design diverges from the model on it.
    let run = std::process::Command::new("sh")
        .args(["-c", replay])
        .current_dir(&t.0)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("wrong result (out_d_o)"), "{text}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("far/prove.json")).unwrap())
            .unwrap();
    assert_eq!(record["verdict"], "counterexample");
    assert_eq!(record["replay"], replay);
    let claims = record["words"][0]["claims"].as_array().unwrap();
    let case3 = claims.iter().find(|c| c["case"] == 3).unwrap();
    assert_eq!(case3["trace"].as_str(), trace.to_str());
}

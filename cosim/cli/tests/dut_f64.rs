//! A second team's design checked from outside the checkout: a binary64 FMA unit written for
//! this test (`tests/dut/exact_f64/`, independent of the kit's RTL: the exact sum in a
//! 4,224-bit integer, one rounding) that returns the canonical NaN 0x7ff8000000000000 as most
//! FMA units outside NVIDIA do. Declared `nan = "canonical"` it passes, and the run counts the
//! NaN results the convention accepted; declared `nan = "ptx"` exactly those results diverge
//! (docs/semantics.md S2); with a planted numeric fault it fails on numbers, convention or not.

use crate::common;

use std::path::{Path, PathBuf};

use common::cosim;

/// The design's sources in compile order (package first).
const SOURCES: [&str; 6] = [
    "exact_f64_pkg.sv",
    "exact_f64_unpack.sv",
    "exact_f64_sum.sv",
    "exact_f64_lead.sv",
    "exact_f64_round.sv",
    "exact_f64_top.sv",
];

/// The canonical quiet NaN of binary64, the only NaN the design returns.
const CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dut/exact_f64")
}

/// The design's sources copied to a fresh directory under the system's temporary directory
/// (outside the checkout, as a team's would be), manifests written beside them; removed when
/// dropped.
struct Team(PathBuf);

impl Team {
    fn new(name: &str) -> Team {
        let d = std::env::temp_dir().join(format!("ptxfma-dut-f64-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("src")).unwrap();
        for f in SOURCES {
            std::fs::copy(sources_dir().join(f), d.join("src").join(f)).unwrap();
        }
        Team(d)
    }

    fn path(&self, p: &str) -> String {
        self.0.join(p).to_str().unwrap().to_string()
    }

    /// Writes manifest `name` declaring NaN convention `nan` and the Verilog `defines`, and
    /// builds it into directory `out` in here; the build must succeed.
    fn build(&self, name: &str, nan: &str, defines: &[&str], out: &str) {
        let (code, stdout, stderr) = self.try_build(name, nan, defines, "", out);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("built `exact_f64_top`"), "{stdout}");
    }

    /// The same with `tail` at the end of the manifest; returns what `dut build` said.
    fn try_build(
        &self,
        name: &str,
        nan: &str,
        defines: &[&str],
        tail: &str,
        out: &str,
    ) -> (i32, String, String) {
        let sources: Vec<String> = SOURCES.iter().map(|f| format!("\"src/{f}\"")).collect();
        let defines = if defines.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = defines.iter().map(|d| format!("{d:?}")).collect();
            format!("defines = [{}]\n", quoted.join(", "))
        };
        let text = format!(
            "[design]\ntop = \"exact_f64_top\"\nsources = [{}]\n{defines}\n\
             [contract]\nlatency_bound = 16\nnan = {nan:?}\n\n[forms]\nfamilies = [\"f64\"]\n{tail}",
            sources.join(", ")
        );
        let manifest = self.path(name);
        std::fs::write(&manifest, text).unwrap();
        cosim(&["dut", "build", &manifest, "--out", &self.path(out)])
    }

    /// `fma-cosim run --dut BUILD --compare ports --count 100000 --jobs 1 EXTRA`, the JSON and
    /// waveforms in here; returns (exit code, stdout, stderr) and the JSON.
    fn check(&self, build: &str, extra: &[&str]) -> (i32, String, String, serde_json::Value) {
        let (dut, json, waves) = (
            self.path(build),
            self.path(&format!("{build}.json")),
            self.path(&format!("{build}-waves")),
        );
        let mut args = vec![
            "run",
            "--progress",
            "off",
            "--dut",
            &dut,
            "--compare",
            "ports",
            "--count",
            "100000",
            "--jobs",
            "1",
            "--json",
            &json,
            "--waves-dir",
            &waves,
        ];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = cosim(&args);
        let json = common::read_json(Path::new(&json));
        (code, stdout, stderr, json)
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn is_nan(x: u64) -> bool {
    (x >> 52) & 0x7ff == 0x7ff && x & ((1 << 52) - 1) != 0
}

/// The expected and retired results of a ports divergence, as raw bits, read from its report
/// (`  result d    expected 0x... (...), retired 0x... (...)`).
fn expected_and_retired(report: &str) -> (u64, u64) {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with("result d"))
        .unwrap_or_else(|| panic!("no result line in\n{report}"));
    let word = |key: &str| {
        let hex = line.split(key).nth(1).unwrap().trim_start();
        let hex = hex.strip_prefix("0x").unwrap_or_else(|| panic!("{line}"));
        let end = hex
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(hex.len());
        u64::from_str_radix(&hex[..end], 16).unwrap_or_else(|_| panic!("{line}"))
    };
    (word("expected "), word("retired "))
}

/// Every divergence of `json`: (family, stage, field, instruction, expected, retired).
fn divergences(json: &serde_json::Value) -> Vec<(String, String, String, String, u64, u64)> {
    json["divergences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap().to_string();
            let (e, r) = expected_and_retired(d["report"].as_str().unwrap());
            (s("family"), s("stage"), s("field"), s("instruction"), e, r)
        })
        .collect()
}

/// The design is lint-clean under `verilator --lint-only -Wall`, with and without its fault.
#[test]
fn the_f64_design_is_lint_clean() {
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    for define in [None, Some("+define+FAULT_F64_STICKY_RM")] {
        let mut cmd = std::process::Command::new(&verilator);
        cmd.args(["--lint-only", "-Wall", "--top-module", "exact_f64_top"])
            .args(define)
            .args(SOURCES.iter().map(|f| sources_dir().join(f)));
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "{define:?}: {stderr}"
        );
    }
}

/// Under `nan = "canonical"` the design passes, the summary and the JSON counting the NaN
/// results the convention accepted; the same sources declared `nan = "ptx"` fail on exactly
/// those results, each a NaN expected with S2's payload against the canonical NaN retired.
#[test]
fn a_canonical_nan_f64_design_passes_under_its_convention_and_fails_on_nan_payloads_under_ptx() {
    let d = Team::new("nan");
    // The design's NaN declared as x86's negative one: its positive NaN is then wrong.
    const X86: &str = "\n[contract.canonical_nan]\nf64 = \"0xfff8000000000000\"\n";
    std::thread::scope(|s| {
        s.spawn(|| d.build("canonical.toml", "canonical", &[], "canonical"));
        s.spawn(|| d.build("ptx.toml", "ptx", &[], "ptx"));
        s.spawn(|| {
            let (code, out, err) = d.try_build("x86.toml", "canonical", &[], X86, "x86");
            assert_eq!(code, 0, "{out}{err}");
        });
    });
    // A NaN the format cannot have, or a table without the canonical convention: one line.
    for (nan, tail, says) in [
        (
            "canonical",
            "\n[contract.canonical_nan]\nf64 = \"0x7ff0000000000000\"\n",
            "contract.canonical_nan.f64: 0x7ff0000000000000 is not a 64-bit f64 NaN",
        ),
        (
            "canonical",
            "\n[contract.canonical_nan]\nf8 = 127\n",
            "contract.canonical_nan.f8: `f8` is not one of f32, f64, f16, bf16",
        ),
        (
            "ptx",
            X86,
            "contract.canonical_nan applies only to nan = \"canonical\"",
        ),
    ] {
        let line = one_line(d.try_build("bad.toml", nan, &[], tail, "bad"));
        assert!(line.contains(says), "{line}");
    }

    let (code, out, err, r) = d.check("canonical", &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASSED: no divergence"), "{out}");
    assert_eq!(r["params"]["nan"], "canonical");
    let families = r["families"].as_array().unwrap();
    assert_eq!(families.len(), 1, "{families:?}");
    assert_eq!(families[0]["family"], "f64");
    assert_eq!(families[0]["vectors"], 100_000);
    assert_eq!(families[0]["divergences"], 0);
    let accepted = families[0]["nan_accepted"].as_u64().unwrap_or(0);
    assert!(accepted > 0 && accepted < 100_000, "{families:?}");
    let per_chunk: u64 = r["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["nan_accepted"]["f64"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(per_chunk, accepted);
    assert!(
        out.contains(&format!(
            "NaN convention `canonical`: {accepted} result(s) accepted that PTX's rule would \
             not (f64 {accepted})"
        )),
        "{out}"
    );

    // By PTX's rule the same stream diverges on exactly the results accepted above, every one
    // a NaN against the canonical NaN, and nothing else.
    let (code, out, err, r) = d.check(
        "ptx",
        &["--max-divergences", "100000", "--max-examples", "100000"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_ne!(r["params"]["nan"], "canonical");
    assert_eq!(r["families"][0]["divergences"], accepted);
    let all = divergences(&r);
    assert_eq!(all.len() as u64, accepted);
    for (family, stage, field, instruction, expected, retired) in &all {
        assert_eq!(
            (family.as_str(), stage.as_str(), field.as_str()),
            ("f64", "ports", "out_d_o"),
            "{instruction}"
        );
        assert!(
            is_nan(*expected) && *expected != CANONICAL_NAN && *retired == CANONICAL_NAN,
            "{instruction}: expected {expected:#018x}, retired {retired:#018x}"
        );
    }
    // Payloads S2 propagates from an operand, and S2's invalid NaN (0xfff8...) with its sign.
    assert!(all.iter().any(|a| a.4 & ((1 << 51) - 1) != 0));
    assert!(all.iter().any(|a| a.4 == 0xfff8_0000_0000_0000));

    // Declared with x86's NaN, the design's own diverges wherever the reference has a NaN,
    // S2's invalid NaN included (the convention wants its NaN, not the reference's).
    let (code, out, err, r) = d.check(
        "x86",
        &["--max-divergences", "100000", "--max-examples", "100000"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(r["params"]["nan"], "canonical (f64 0xfff8000000000000)");
    assert!(
        out.contains("NaN convention canonical (f64 0xfff8000000000000)"),
        "{out}"
    );
    let nan_results = divergences(&r);
    assert!(
        nan_results.len() as u64 >= accepted,
        "{}",
        nan_results.len()
    );
    assert!(nan_results
        .iter()
        .all(|a| is_nan(a.4) && a.5 == CANONICAL_NAN));
}

/// A one-line error with exit 2; returns the line.
fn one_line((code, out, err): (i32, String, String)) -> String {
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_string()
}

/// A numeric fault (`.rm` dropping the sticky bits) fails the run under `nan = "canonical"`:
/// the convention forgives NaN payloads only, and every divergence is a number against a
/// number.
#[test]
fn a_numeric_fault_in_the_f64_design_is_caught_under_the_canonical_convention() {
    let d = Team::new("fault");
    d.build("fault.toml", "canonical", &["FAULT_F64_STICKY_RM"], "fault");
    let (code, out, err, r) = d.check(
        "fault",
        &["--max-divergences", "20", "--max-examples", "20"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");
    assert_eq!(r["params"]["nan"], "canonical");
    let all = divergences(&r);
    assert_eq!(all.len(), 20);
    for (family, stage, field, instruction, expected, retired) in &all {
        assert_eq!(
            (family.as_str(), stage.as_str(), field.as_str()),
            ("f64", "ports", "out_d_o"),
            "{instruction}"
        );
        assert!(instruction.starts_with("fma.rm.f64"), "{instruction}");
        assert!(
            !is_nan(*expected) && !is_nan(*retired) && expected != retired,
            "{instruction}: expected {expected:#018x}, retired {retired:#018x}"
        );
    }
}

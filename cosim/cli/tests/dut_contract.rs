//! A team's design under its own contract (`fma-cosim dut build`, `--dut`): a NaN convention
//! of its own, `[design.parameters]`, and no tag ports (results matched in issue order).

use crate::common;

use std::path::Path;

use common::cosim;
use common::outside::{one_line_error, Outside, FORMS};

/// A canonical-NaN f64 unit (tests/dut/canon_f64.sv: the kit's pipe with every f64 NaN result
/// replaced by 0x7ff8000000000000) passes under `nan = "canonical"`, the results the convention
/// forgave counted in the summary and the JSON; a planted numeric fault is caught under it, and
/// judged by PTX's rule (S2) the clean build fails.
#[test]
fn a_canonical_nan_design_passes_under_its_convention_and_says_what_it_forgave() {
    let d = Outside::new("canon");
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rtl");
    let list = std::fs::read_to_string(rtl.join("files.txt")).unwrap();
    let mut sources: Vec<String> = list
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            format!(
                "{:?}",
                rtl.join(l).canonicalize().unwrap().to_str().unwrap()
            )
        })
        .collect();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dut/canon_f64.sv"),
        d.0.join("src/canon_f64.sv"),
    )
    .unwrap();
    sources.push("\"src/canon_f64.sv\"".into());
    let manifest = d.path("canon.toml");
    std::fs::write(
        &manifest,
        format!(
            "[design]\ntop = \"canon_f64\"\nsources = [{}]\n\n[contract]\nnan = \"canonical\"\n\n\
             [forms]\nfamilies = [\"f64\"]\n",
            sources.join(", ")
        ),
    )
    .unwrap();
    let (code, out, err) = d.build(&manifest, "build");
    assert_eq!(code, 0, "{out}{err}");
    let json = d.path("canon.json");
    let (code, out, err) = d.check("build", "2", &["--json", &json]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("NaN convention canonical"), "{out}");
    let r: serde_json::Value = common::read_json(Path::new(&json));
    assert_eq!(r["params"]["nan"], "canonical");
    let forgiven = r["families"][0]["nan_accepted"].as_u64().unwrap_or(0);
    assert!(forgiven > 100, "{}", r["families"]);
    assert!(
        out.contains(&format!(
            "NaN convention `canonical`: {forgiven} result(s) accepted that PTX's rule would \
             not (f64 {forgiven})"
        )),
        "{out}"
    );

    // A numeric fault is not forgiven by the convention.
    let fault = d.path("fault.toml");
    std::fs::write(
        &fault,
        std::fs::read_to_string(&manifest).unwrap().replace(
            "[contract]",
            "defines = [\"FAULT_CANON_LSB\"]\n\n[contract]",
        ),
    )
    .unwrap();
    let (code, out, err) = d.build(&fault, "fault");
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = d.check("fault", "2", &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");

    // The same build under PTX's rule: its f64 NaNs are not the operands' (S2).
    let rec = d.0.join("build/dut.json");
    let text = std::fs::read_to_string(&rec).unwrap();
    std::fs::write(&rec, text.replace("\"canonical\"", "\"ptx\"")).unwrap();
    let (code, out, err) = d.check("build", "2", &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");

    // --strict-nan means nothing for a design that declares its convention: refused.
    let dut = d.path("build");
    let line = one_line_error(cosim(&[
        "run",
        "--dut",
        &dut,
        "--vectors",
        &manifest,
        "--strict-nan",
    ]));
    assert!(line.contains("contract.nan"), "{line}");
}

/// `[design.parameters]` reach Verilator (`-GNAME=VALUE`, strings quoted) and the record:
/// `alt_param` (tests/dut/alt_param.sv) XORs its results with `FaultMask` only when `Fault` is
/// the string "xor", so the same sources pass or fail by their parameters alone. Names and
/// values Verilator could not take are refused in one line, and a source edited after the
/// build is refused at `--dut` (one that is gone is not).
#[test]
fn parameters_reach_the_design_and_its_record_and_an_edited_source_is_refused() {
    let d = Outside::new("params");
    let with = |name: &str, parameters: &str| {
        d.wrapper_manifest(
            name,
            "alt_param.sv",
            &format!("[design.parameters]\n{parameters}"),
            FORMS,
        )
    };
    let recorded = |build: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(d.0.join(build).join("dut.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["parameters"].clone()
    };
    for (build, parameters, code, record) in [
        (
            "kept",
            "Fault = \"none\"\nFaultMask = 1",
            0,
            serde_json::json!({"Fault": "none", "FaultMask": 1}),
        ),
        (
            "planted",
            "Fault = \"xor\"\nFaultMask = 1",
            1,
            serde_json::json!({"Fault": "xor", "FaultMask": 1}),
        ),
    ] {
        let (c, out, err) = d.build(&with(&format!("{build}.toml"), parameters), build);
        assert_eq!(c, 0, "{out}{err}");
        assert_eq!(recorded(build), record);
        let (c, out, err) = d.check(build, "2", &[]);
        assert_eq!(c, code, "{build}: {out}{err}");
        if code == 1 {
            assert!(out.contains("wrong result (out_d_o)"), "{out}");
        }
    }

    for (parameters, says) in [
        ("\"1st\" = 1", "\"1st\" is not a parameter name"),
        ("\"a.b\" = 1", "\"a.b\" is not a parameter name"),
        ("FaultMask = 1.5", "design.parameters.FaultMask is a float"),
        (
            "FaultMask = true",
            "design.parameters.FaultMask is a boolean",
        ),
        (
            "FaultMask = 4294967296",
            "FaultMask = 4294967296 does not fit in 32 bits",
        ),
        (
            "Fault = \"a\\nb\"",
            "a string parameter is one line without a double quote",
        ),
        (
            "Fault = 'x\"y'",
            "a string parameter is one line without a double quote",
        ),
    ] {
        let line = one_line_error(d.build(&with("bad.toml", parameters), "bad"));
        assert!(
            line.contains("design.parameters") && line.contains(says),
            "{line}"
        );
    }
    // A name the top does not have: Verilator's own words.
    let (c, out, err) = d.build(&with("bad.toml", "Nope = 1"), "bad");
    assert_eq!(c, 2, "{out}{err}");
    assert!(err.contains("not found in the design: Nope"), "{err}");
    assert!(!d.0.join("bad").exists());

    // A source edited since the build is refused, naming it and the command that rebuilds;
    // one that is gone (a build copied elsewhere) is not.
    let src = d.0.join("src/alt_param.sv");
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(&src, text.replace("= \"none\"", "= \"xor\"")).unwrap();
    let line = one_line_error(d.run("kept", &["--count", "1000"]));
    assert!(
        line.contains(&format!(
            "{} changed since the build: rebuild with fma-cosim dut build {} --out {}",
            src.display(),
            d.0.join("kept.toml").display(),
            d.path("kept")
        )),
        "{line}"
    );
    std::fs::remove_file(&src).unwrap();
    let (c, out, err) = d.run("kept", &["--count", "1000", "--progress", "off"]);
    assert_eq!(c, 0, "{out}{err}");
    // The manifest is held to its digest too.
    std::fs::write(&src, &text).unwrap();
    let manifest = d.0.join("kept.toml");
    let m = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, m.replace("FaultMask = 1", "FaultMask = 2")).unwrap();
    let line = one_line_error(d.run("kept", &["--count", "1000"]));
    assert!(
        line.contains(&format!("{} changed since the build", manifest.display())),
        "{line}"
    );
}

/// An in-order design without tag ports (`contract.tag_width = 0`, tests/dut/alt_inorder.sv):
/// results are matched to the oldest operation in flight; it passes, its planted fault is
/// caught, and a manifest that says otherwise than its ports is refused, naming the port.
#[test]
fn a_design_without_tags_is_checked_in_issue_order_and_its_fault_caught() {
    let d = Outside::new("tagless");
    let contract = "[contract]\ntag_width = 0\n[forms]\nfamilies = [\"f32\"]\n";
    for (build, defines, code) in [
        ("clean", "", 0),
        ("fault", "defines = [\"FAULT_ALT_STICKY_RP\"]", 1),
    ] {
        let m = d.wrapper_manifest(
            &format!("{build}.toml"),
            "alt_inorder.sv",
            defines,
            contract,
        );
        let (c, out, err) = d.build(&m, build);
        assert_eq!(c, 0, "{out}{err}");
        let (c, out, err) = d.check(build, "2", &["--filter", "f32"]);
        assert_eq!(c, code, "{build}: {out}{err}");
        if code == 1 {
            assert!(out.contains("wrong result (out_d_o)"), "{out}");
            assert!(out.contains("fma.rp"), "{out}");
        }
    }
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.0.join("clean/dut.json")).unwrap())
            .unwrap();
    assert_eq!(record["tag_width"], 0);

    // The manifest and the ports disagree: one line naming the port.
    let line = one_line_error(d.build(&d.manifest("tagged.toml", "", contract), "tagged"));
    assert!(
        line.contains("port in_tag_i is present, but contract.tag_width = 0 declares no tags"),
        "{line}"
    );
    let m = d.wrapper_manifest("untagged.toml", "alt_inorder.sv", "", FORMS);
    let line = one_line_error(d.build(&m, "untagged"));
    assert!(
        line.contains("port in_tag_i is missing")
            && line.contains("a design without tags declares contract.tag_width = 0"),
        "{line}"
    );
}

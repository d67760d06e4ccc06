//! A team's design checked without touching the checkout (`fma-cosim dut build`, `--dut`):
//! the second design's sources (`rtl/alt/`) are copied to a directory outside the checkout,
//! built from a manifest there, and checked by their ports; the same with its injected fault
//! must be caught. Designs with narrow tags or a ready/valid handshake are checked alike, and the
//! stimulus keeps to the forms a design declares. (`dut_contract`: its own conventions; `dut_build`: the
//! build command itself.)

use crate::common;

use std::path::Path;

use common::headline::{f32_samples, headline_numbers};
use common::outside::{one_line_error, Outside, FORMS};
use common::{cosim, num, Vcd};

#[test]
fn a_design_outside_the_checkout_is_built_and_checked_and_its_fault_caught() {
    let d = Outside::new("alt");
    let clean = d.manifest("dut.toml", "", FORMS);
    let fault = d.manifest("fault.toml", "defines = [\"FAULT_ALT_STICKY_RP\"]", FORMS);
    let (code, out, err) = d.build(&clean, "build");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("built `ptxfma_alt_top`"), "{out}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.0.join("build/dut.json")).unwrap())
            .unwrap();
    assert_eq!(record["top"], "ptxfma_alt_top");
    assert_eq!(record["families"], serde_json::json!(["f32"]));
    // The record pins what the build read and wrote.
    let hex = |v: &serde_json::Value| {
        v.as_str()
            .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let sha = &record["sha256"];
    assert!(hex(&sha["manifest"]) && hex(&sha["library"]), "{sha}");
    let sources = sha["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 3, "{sha}");
    assert!(sources.iter().all(hex), "{sha}");
    // Nothing is left beside the build.
    let names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("building")), "{names:?}");

    // The clean design passes; --filter defaults to the families it implements.
    let (code, out, err) = d.check("build", "2", &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("over 1 family"), "{out}");
    assert!(out.contains("f32                100000"), "{out}");

    // The injected fault is caught, with a waveform and a reproduce command naming --dut.
    let (code, _, err) = d.build(&fault, "fault");
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = d.check("fault", "2", &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");
    assert!(out.contains(&format!("--dut {}", d.path("fault"))), "{out}");
    let vcd = std::fs::read_dir(d.path("waves"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "vcd"))
        .expect("a waveform");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(text.contains("$scope module ptxfma_alt_top $end"));
    assert!(text.contains("$scope module model $end"));

    // `wave` judges it by its ports too: the faulty .rp result, nothing for the clean build.
    let ops = "fma.rp.f32 0x4a1a6515 0x4b420001 0x00007fff";
    let wave = |build: &str| {
        cosim(&[
            "wave",
            "--dut",
            &d.path(build),
            "--vcd",
            &d.path("w.vcd"),
            ops,
        ])
    };
    let (code, out, err) = wave("fault");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("d = 0x55ea0136 (3.2161365e13)  design: 0x55ea0135"),
        "{out}"
    );
    let (code, out, err) = wave("build");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no divergence"), "{out}");

    // A family the design does not implement is refused.
    let line = one_line_error(d.run("build", &["--filter", "f64"]));
    assert!(line.contains("implements only f32"), "{line}");

    // --out and the manifest relative to the working directory.
    let rel = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .args(["dut", "build", "dut.toml", "--out", "rel/build"])
        .current_dir(&d.0)
        .output()
        .unwrap();
    assert!(
        rel.status.success(),
        "{}",
        String::from_utf8_lossy(&rel.stderr)
    );
    assert!(d.0.join("rel/build/libptxfma_dut.so").is_file());

    // A truncated library is refused by its digest before it is mapped (mapped, it faults
    // with SIGBUS on first use): one line, exit 2.
    let so = d.0.join("build/libptxfma_dut.so");
    let lib = std::fs::read(&so).unwrap();
    std::fs::write(&so, &lib[..lib.len() / 2]).unwrap();
    let line = one_line_error(d.run("build", &[]));
    assert!(
        line.contains("is not the library dut.json describes"),
        "{line}"
    );
    std::fs::write(&so, &lib).unwrap();

    // An edited record is refused before its library is mapped, naming the field; a valid
    // edit is believed, and an explicit --latency-bound wins over the record's, 64 included.
    let rec = d.0.join("build/dut.json");
    let text = std::fs::read_to_string(&rec).unwrap();
    let original: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(original["latency_bound"], 64);
    let edited = |key: &str, value: serde_json::Value| {
        let mut r = original.clone();
        r[key] = value;
        std::fs::write(&rec, r.to_string()).unwrap();
    };
    for (key, value, says) in [
        (
            "latency_bound",
            serde_json::json!(0),
            "latency_bound 0 is not in",
        ),
        (
            "latency_bound",
            serde_json::json!(99999999999u64),
            "latency_bound 99999999999 is not in",
        ),
        ("families", serde_json::json!([]), "families is empty"),
        ("families", serde_json::json!(["f33"]), "no family `f33`"),
        ("tag_width", serde_json::json!(17), "tag_width 17 is not in"),
        (
            "tag_width",
            serde_json::json!(0),
            "tag_width 0 but the ports hold in_tag_i of 16 bits",
        ),
    ] {
        edited(key, value);
        let line = one_line_error(d.run("build", &[]));
        assert!(line.contains(says) && line.contains("dut.json"), "{line}");
    }
    edited("latency_bound", serde_json::json!(100));
    let json = d.path("bound.json");
    for (extra, want) in [(&[][..], 100), (&["--latency-bound", "64"][..], 64)] {
        let mut args = vec!["--progress", "off", "--count", "2000", "--json", &json];
        args.extend_from_slice(extra);
        let (code, out, err) = d.run("build", &args);
        assert_eq!(code, 0, "{out}{err}");
        let r: serde_json::Value = common::read_json(Path::new(&json));
        assert_eq!(r["params"]["latency_bound"], want, "{extra:?}");
    }
    std::fs::write(&rec, &text).unwrap();

    // A library built by another fma-cosim is refused.
    std::fs::write(
        &rec,
        text.replace("\"fma-cosim ", "\"fma-cosim 0.0.0-other "),
    )
    .unwrap();
    let line = one_line_error(d.run("build", &[]));
    assert!(
        line.contains("rebuild it with `fma-cosim dut build`"),
        "{line}"
    );
}

/// `rtl/alt/` behind a wrapper whose tags are `TagW` bits: in order, latency 6.
const NARROW: &str = "module alt_narrow #(parameter int unsigned TagW = 2) (\n\
    input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
    input logic [TagW-1:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
    input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,\n\
    output logic [TagW-1:0] out_tag_o, output logic [63:0] out_d_o);\n\
  logic [15:0] tag;\n\
  ptxfma_alt_top u_alt (.clk_i, .rst_ni, .in_valid_i,\n\
    .in_tag_i({{(16 - TagW){1'b0}}, in_tag_i}), .in_ctrl_i, .in_a_i, .in_b_i, .in_c_i,\n\
    .out_valid_o, .out_tag_o(tag), .out_d_o);\n\
  assign out_tag_o = tag[TagW-1:0];\n\
endmodule\n";

#[test]
fn a_design_with_two_bit_tags_passes_and_its_fault_is_caught() {
    // Two-bit tags with up to six operations in flight: tags repeat while in flight, and an
    // in-order design's results still come back to the right operations.
    let d = Outside::new("narrow");
    std::fs::write(d.0.join("src/alt_narrow.sv"), NARROW).unwrap();
    let sources = "sources = [\"src/ptxfma_alt_exact.sv\", \"src/ptxfma_alt_round.sv\", \
                   \"src/ptxfma_alt_top.sv\", \"src/alt_narrow.sv\"]";
    for (name, defines) in [
        ("clean", ""),
        ("fault", "defines = [\"FAULT_ALT_STICKY_RP\"]"),
    ] {
        std::fs::write(
            d.0.join(format!("{name}.toml")),
            format!(
                "[design]\ntop = \"alt_narrow\"\n{sources}\n{defines}\n\
                 [design.parameters]\nTagW = 2\n[contract]\ntag_width = 2\n\
                 [forms]\nfamilies = [\"f32\"]\n"
            ),
        )
        .unwrap();
        let (code, out, err) = d.build(&d.path(&format!("{name}.toml")), name);
        assert_eq!(code, 0, "{out}{err}");
    }
    let (code, out, err) = d.check("clean", "2", &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = d.check("fault", "2", &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");
    // Without tag_width the two-bit ports are refused, naming the setting.
    std::fs::write(
        d.0.join("wide.toml"),
        format!("[design]\ntop = \"alt_narrow\"\n{sources}\n[design.parameters]\nTagW = 2\n"),
    )
    .unwrap();
    let line = one_line_error(d.build(&d.path("wide.toml"), "w"));
    assert!(
        line.contains("port in_tag_i is 2 bits, the contract needs 16"),
        "{line}"
    );
    assert!(line.contains("contract.tag_width"), "{line}");
}

/// `alt_hs` (tests/dut/alt_hs.sv: `rtl/alt/` behind a ready/valid handshake, stalling at
/// random and when its result FIFO could overflow), built from a copy outside the checkout
/// into the directory `name` there.
fn handshake_build(d: &Outside, name: &str, defines: &str, take: Option<&str>) {
    let mut sv =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dut/alt_hs.sv"))
            .unwrap();
    if let Some(t) = take {
        sv = sv.replace("assign take        = in_valid_i && in_ready_o;", t);
    }
    std::fs::write(d.0.join(format!("src/{name}.sv")), sv).unwrap();
    std::fs::write(
        d.0.join(format!("{name}.toml")),
        format!(
            "[design]\ntop = \"alt_hs\"\nsources = [\"src/ptxfma_alt_exact.sv\", \
             \"src/ptxfma_alt_round.sv\", \"src/ptxfma_alt_top.sv\", \"src/{name}.sv\"]\n\
             {defines}\n[contract]\nhandshake = true\n[forms]\nfamilies = [\"f32\"]\n"
        ),
    )
    .unwrap();
    let (code, out, err) = d.build(&d.path(&format!("{name}.toml")), name);
    assert_eq!(code, 0, "{out}{err}");
}

/// The build `build` checked with `--backpressure BACKPRESSURE` on `jobs` workers.
fn handshake_run(
    d: &Outside,
    build: &str,
    backpressure: &str,
    jobs: &str,
) -> (i32, String, String) {
    d.check(build, jobs, &["--backpressure", backpressure])
}

/// The handshake line of a run's output.
fn handshake_line(out: &str) -> String {
    out.lines()
        .find(|l| l.starts_with("handshake: "))
        .unwrap_or_else(|| panic!("no handshake line: {out}"))
        .to_string()
}

#[test]
fn a_design_with_a_handshake_passes_with_stalls_and_back_pressure() {
    let d = Outside::new("hs");
    handshake_build(&d, "clean", "", None);
    let (code, out, err) = handshake_run(&d, "clean", "0", "2");
    assert_eq!(code, 0, "{out}{err}");
    // The design stalls its input by itself; nothing holds its results.
    let line = handshake_line(&out);
    assert!(!line.starts_with("handshake: 0 design"), "{line}");
    assert!(line.contains(", 0 with a result held"), "{line}");
    // Random back-pressure: results held too, and the counts do not depend on --jobs.
    let (code, out2, err) = handshake_run(&d, "clean", "30", "2");
    assert_eq!(code, 0, "{out2}{err}");
    let line2 = handshake_line(&out2);
    assert!(!line2.contains(", 0 with a result held"), "{line2}");
    let (code, out1, err) = handshake_run(&d, "clean", "30", "1");
    assert_eq!(code, 0, "{out1}{err}");
    assert_eq!(handshake_line(&out1), line2);

    // Its injected fault is caught under back-pressure.
    handshake_build(&d, "fault", "defines = [\"FAULT_ALT_STICKY_RP\"]", None);
    let (code, out, err) = handshake_run(&d, "fault", "30", "2");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");
    // Its waveform's marker is where the design hands the wrong result over (out_valid_o and
    // out_ready_i high before the edge), with the model's result for the same tag beside it.
    let text = |after: &str| {
        let at = out
            .find(after)
            .unwrap_or_else(|| panic!("no `{after}` in {out}"));
        out[at + after.len()..].split([' ', ',']).next().unwrap()
    };
    let tag = u64::from_str_radix(text("(tag 0x"), 16).unwrap();
    let t = (text("cosim.mismatch rises at ").parse::<f64>().unwrap() * 1000.0).round() as u64;
    let vcd = out
        .lines()
        .find_map(|l| {
            l.trim()
                .split_once(".vcd: ")
                .map(|(p, _)| format!("{p}.vcd"))
        })
        .unwrap_or_else(|| panic!("no waveform in {out}"));
    let mut v = Vcd::open(Path::new(&vcd));
    let mut at = |scope: &str, name: &str| num(&v.value_at(&[scope], name, t));
    assert_eq!(
        [
            at("TOP", "out_valid_o"),
            at("TOP", "out_ready_i"),
            at("cosim", "mismatch")
        ],
        [1, 1, 1]
    );
    assert_eq!(at("TOP", "out_tag_o"), tag);
    assert_eq!(at("model_by_tag", "tag"), tag);
    assert_eq!(at("model_by_tag", "expected_valid"), 1);
    // Its reproduce command, run as printed, names the design, the back-pressure and the
    // waveforms' directory, and finds it.
    let cmd = out
        .lines()
        .map(str::trim)
        .find(|l| l.contains(" run --seed") && l.contains("--backpressure 30"))
        .unwrap_or_else(|| panic!("no reproduce command: {out}"));
    assert!(cmd.contains(&format!("--dut {}", d.path("fault"))), "{cmd}");
    assert!(
        cmd.contains(&format!("--waves-dir {}", d.path("waves"))),
        "{cmd}"
    );
    let again = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1), "{cmd}");
    // A design that takes operations while showing in_ready_o low breaks the handshake: the
    // co-simulator presents them again and they come back twice.
    handshake_build(&d, "broken", "", Some("assign take = in_valid_i;"));
    let (code, out, err) = handshake_run(&d, "broken", "0", "2");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("(out_tag_o)"), "{out}");

    // --backpressure is for handshake designs only.
    d.manifest("plain.toml", "", FORMS);
    let (code, _, err) = d.build(&d.path("plain.toml"), "plain");
    assert_eq!(code, 0, "{err}");
    let line = one_line_error(handshake_run(&d, "plain", "30", "1"));
    assert!(line.contains("--backpressure needs"), "{line}");
    // A design declared with a handshake must have its ports.
    let line = one_line_error(d.build(
        &d.manifest("nohs.toml", "", "[contract]\nhandshake = true\n"),
        "nohs",
    ));
    assert!(
        line.contains("port in_ready_o is missing (contract.handshake)"),
        "{line}"
    );
}

#[test]
fn the_stimulus_draws_only_the_forms_a_design_declares() {
    // The injected fault breaks only .rp: a design declared without .rp passes, and only its
    // forms (rn and rz, no .ftz) are drawn.
    let d = Outside::new("forms");
    let m = d.manifest(
        "rnrz.toml",
        "defines = [\"FAULT_ALT_STICKY_RP\"]",
        "[forms]\nfamilies = [\"f32\"]\nrounding = [\"rn\", \"rz\"]\nftz = false\n",
    );
    let (code, out, err) = d.build(&m, "rnrz");
    assert_eq!(code, 0, "{out}{err}");
    let cov = d.path("cov.json");
    let (code, out, err) = d.check("rnrz", "2", &["--coverage", &cov, "--coverage-table"]);
    assert_eq!(code, 0, "{out}{err}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov).unwrap()).unwrap();
    let words = j["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "instr.words")
        .unwrap();
    let hit: Vec<&str> = words["bins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["hits"].as_u64().unwrap() > 0)
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        hit,
        [
            "fma.rn.f32",
            "fma.rn.sat.f32",
            "fma.rz.f32",
            "fma.rz.sat.f32"
        ]
    );
    // Coverage reports against those forms: the words and modes left out are unreachable.
    let rp = words["bins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "fma.rp.f32")
        .unwrap();
    assert!(
        rp["unreachable"]
            .as_str()
            .unwrap()
            .contains("not among the forms of the design under test"),
        "{rp}"
    );
    assert!(out.contains("f32.rounding               18 / 18"), "{out}");
    // The headline counts the bins the design's forms reach; those of other families, or
    // declared unreachable for the forms it lacks, are outside it, beside.
    let (mut reach, mut hit, mut outside) = (0, 0, 0);
    for g in j["groups"].as_array().unwrap() {
        let group = g["name"].as_str().unwrap();
        for b in g["bins"].as_array().unwrap() {
            match b["unreachable"].as_str() {
                Some(why) if why.contains("not among the forms of the design") => outside += 1,
                Some(_) => {}
                None if f32_samples(group, b["name"].as_str().unwrap()) => {
                    reach += 1;
                    hit += (b["hits"].as_u64().unwrap() > 0) as u64;
                }
                None => outside += 1,
            }
        }
    }
    let (h, r, _, o, _) = headline_numbers(&out);
    assert_eq!((h, r, o), (hit, reach, outside), "{out}");
    assert_eq!(j["summary"]["outside"].as_u64(), Some(outside));
    let line = one_line_error(d.build(
        &d.manifest("bad.toml", "", "[forms]\nrounding = [\"rna\"]\n"),
        "bad",
    ));
    assert!(line.contains("no mode `rna`"), "{line}");
}

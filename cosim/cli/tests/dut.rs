//! A team's design checked without touching the checkout (`fma-cosim dut build`, `--dut`):
//! the second design's sources (`rtl/alt/`) are copied to a directory outside the checkout,
//! built from a manifest there, and checked by their ports; the same with its injected fault
//! must be caught. Manifests and builds that cannot work are one-line errors with exit 2.

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
        out.contains("d = 0x55ea0136 (3.2161365e13)  RTL: 0x55ea0135"),
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

#[test]
fn bad_manifests_and_designs_are_one_line_errors() {
    let d = Outside::new("bad");
    let build = |m: &str| d.build(m, "out");

    let missing = d.manifest("missing.toml", "", "[forms]\nfamilies = [\"f32\"]\n");
    std::fs::remove_file(d.0.join("src/ptxfma_alt_round.sv")).ok();
    let line = one_line_error(build(&missing));
    assert!(
        line.contains("ptxfma_alt_round.sv does not exist"),
        "{line}"
    );
    let alt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/alt");
    std::fs::copy(
        alt.join("ptxfma_alt_round.sv"),
        d.0.join("src/ptxfma_alt_round.sv"),
    )
    .unwrap();

    let line = one_line_error(build(&d.manifest(
        "fam.toml",
        "",
        "[forms]\nfamilies = [\"f33\"]\n",
    )));
    assert!(line.contains("no family `f33`"), "{line}");

    // Empty lists and a latency bound a run would not take are refused, not taken for "all".
    for (rest, says) in [
        ("[forms]\nfamilies = []\n", "forms.families is empty"),
        ("[forms]\nrounding = []\n", "forms.rounding is empty"),
        (
            "[contract]\nlatency_bound = 99999999999\n",
            "contract.latency_bound 99999999999 is not in",
        ),
        (
            "[contract]\nlatency_bound = 2\n",
            "contract.latency_bound 2 is not in",
        ),
    ] {
        let line = one_line_error(build(&d.manifest("bounds.toml", "", rest)));
        assert!(line.contains(says), "{line}");
    }

    let line = one_line_error(build(&d.manifest("key.toml", "colour = \"red\"", "")));
    assert!(line.contains("colour"), "{line}");

    let line = one_line_error(d.build(&d.path("none.toml"), "o"));
    assert!(line.contains("none.toml"), "{line}");

    // A top whose tag is 8 bits, and one without out_tag_o: the port is named.
    std::fs::write(
        d.0.join("src/narrow.sv"),
        "module narrow (input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
         input logic [7:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
         input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,\n\
         output logic [15:0] out_tag_o, output logic [63:0] out_d_o);\n\
         assign out_valid_o = in_valid_i; assign out_tag_o = {8'd0, in_tag_i};\n\
         assign out_d_o = in_a_i;\nendmodule\n",
    )
    .unwrap();
    std::fs::write(
        d.0.join("narrow.toml"),
        "[design]\ntop = \"narrow\"\nsources = [\"src/narrow.sv\"]\n",
    )
    .unwrap();
    let line = one_line_error(build(&d.path("narrow.toml")));
    assert!(
        line.contains("port in_tag_i is 8 bits, the contract needs 16"),
        "{line}"
    );
    std::fs::write(
        d.0.join("src/untagged.sv"),
        "module untagged (input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
         input logic [15:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
         input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,\n\
         output logic [63:0] out_d_o);\n\
         assign out_valid_o = in_valid_i; assign out_d_o = in_a_i;\nendmodule\n",
    )
    .unwrap();
    std::fs::write(
        d.0.join("untagged.toml"),
        "[design]\ntop = \"untagged\"\nsources = [\"src/untagged.sv\"]\n",
    )
    .unwrap();
    let line = one_line_error(build(&d.path("untagged.toml")));
    assert!(line.contains("port out_tag_o is missing"), "{line}");

    // SystemVerilog that does not compile: Verilator's first lines, on one line.
    std::fs::write(d.0.join("src/broken.sv"), "module broken (;\nendmodule\n").unwrap();
    std::fs::write(
        d.0.join("broken.toml"),
        "[design]\ntop = \"broken\"\nsources = [\"src/broken.sv\"]\n",
    )
    .unwrap();
    let (code, out, err) = build(&d.path("broken.toml"));
    assert_eq!(code, 2, "{out}{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("error: verilating `broken`")
            && lines[0].ends_with("failed: 1 error(s), 0 warning(s)"),
        "{err}"
    );
    assert!(lines[1].contains("broken.sv:1:16: syntax error"), "{err}");
    assert!(lines[2].ends_with("1 | module broken (;"), "{err}");

    // An error Verilator lets a flag waive (cvfpu needs it): each place with its excerpt, and
    // the flag that waives it.
    std::fs::write(
        d.0.join("src/mixed.sv"),
        "module mixed (input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
         input logic [15:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
         input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,\n\
         output logic [15:0] out_tag_o, output logic [63:0] out_d_o);\n\
         logic [63:0] q;\n\
         always @(posedge clk_i) q <= in_a_i;\n\
         always_comb q[0] = 1'b0;\n\
         assign out_valid_o = in_valid_i; assign out_tag_o = in_tag_i; assign out_d_o = q;\n\
         endmodule\n",
    )
    .unwrap();
    std::fs::write(
        d.0.join("mixed.toml"),
        "[design]\ntop = \"mixed\"\nsources = [\"src/mixed.sv\"]\n",
    )
    .unwrap();
    let (code, out, err) = build(&d.path("mixed.toml"));
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("failed: 1 error(s), 0 warning(s)"), "{err}");
    assert!(err.contains("%Error-BLKANDNBLK: "), "{err}");
    assert!(err.contains("logic [63:0] q;"), "{err}");
    assert!(
        err.contains("design.verilator_flags: \"-Wno-BLKANDNBLK\""),
        "{err}"
    );

    // No build was left behind by any of them.
    assert!(!d.0.join("out").exists());
    let names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("building")), "{names:?}");

    // --out over a directory that is not a build; --dut of a directory without one.
    std::fs::create_dir_all(d.0.join("busy")).unwrap();
    std::fs::write(d.0.join("busy/keep.txt"), "mine").unwrap();
    let ok = d.manifest("ok.toml", "", FORMS);
    let line = one_line_error(d.build(&ok, "busy"));
    assert!(line.contains("holds no earlier `dut build`"), "{line}");
    assert!(d.0.join("busy/keep.txt").exists());
    let line = one_line_error(d.run("busy", &[]));
    assert!(line.contains("dut.json"), "{line}");
}

/// A canonical-NaN f64 unit (tests/dut/canon_f64.sv: the kit's pipe with every f64 NaN result
/// replaced by 0x7ff8000000000000) passes under `nan = "canonical"`, the results the convention
/// forgave counted in the summary and the JSON; a planted numeric fault is caught under it, and
/// judged by PTX's rule (S2) the clean build fails.
#[test]
fn a_canonical_nan_design_passes_under_its_convention_and_says_what_it_forgave() {
    let d = Outside::new("canon");
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl");
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

/// The process group of each process whose parent is `parent`, with its command line.
fn children_of(parent: u32) -> Vec<(u32, u32, String)> {
    processes()
        .into_iter()
        .filter(|p| p.1 == parent)
        .map(|(pid, _, group)| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            (
                pid,
                group,
                String::from_utf8_lossy(&cmdline).replace('\0', " "),
            )
        })
        .collect()
}

/// (pid, parent, process group) of every process, zombies included, from /proc.
fn processes() -> Vec<(u32, u32, u32)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            let rest: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
            Some((pid, rest.get(1)?.parse().ok()?, rest.get(2)?.parse().ok()?))
        })
        .collect()
}

/// Ctrl-C (SIGINT) or SIGTERM while `dut build` runs Verilator: its tools, each in a process
/// group of its own, are stopped (no process of those groups is left, zombies included), the
/// partial directory is removed, no build is written, and it exits 130 with one line.
#[test]
fn ctrl_c_or_sigterm_stops_the_build_and_leaves_nothing() {
    use std::time::{Duration, Instant};
    let d = Outside::new("interrupt");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let out = d.path("build");
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut build = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
            .args(["dut", "build", &manifest, "--out", &out])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = build.id();
        let partial_prefix = format!(".build.building.tmp{pid}@");
        let partial_exists = || {
            std::fs::read_dir(&d.0).unwrap().flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with(&partial_prefix)
                    && e.file_type().is_ok_and(|t| t.is_dir())
            })
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        // Verilator is running once a child Verilates the model (its --prefix).
        let tools = loop {
            let tools = children_of(pid);
            // A child that still runs fma-cosim's image is forked but not yet exec'd: it joins
            // its group just before the exec, so judge the groups once none is left.
            let forking = tools
                .iter()
                .any(|t| t.2.starts_with(env!("CARGO_BIN_EXE_fma-cosim")));
            if partial_exists() && !forking && tools.iter().any(|t| t.2.contains("Vdut_")) {
                break tools;
            }
            assert!(
                build.try_wait().unwrap().is_none() && Instant::now() < deadline,
                "the build ended or stalled before Verilator ran"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        for (tool, group, cmdline) in &tools {
            assert_eq!(tool, group, "not in a group of its own: {cmdline}");
        }
        // SAFETY: signals the build this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(pid as i32, signal) }, 0);
        let code = loop {
            if let Some(status) = build.try_wait().unwrap() {
                break status.code();
            }
            if Instant::now() > deadline {
                build.kill().unwrap();
                panic!("the build did not end after signal {signal}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut build.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(code, Some(130), "signal {signal}: {err}");
        assert_eq!(
            err, "fma-cosim dut build: interrupted; nothing was written\n",
            "signal {signal}"
        );
        assert!(
            !partial_exists() && !Path::new(&out).exists(),
            "signal {signal}"
        );
        let left: Vec<(u32, u32, u32)> = processes()
            .into_iter()
            .filter(|p| tools.iter().any(|t| t.1 == p.2))
            .collect();
        assert!(
            left.is_empty(),
            "signal {signal}: left running {left:?} of {tools:?}"
        );
    }
}

/// `dut build --no-trace --cxx-opt 0` (what `make test` builds the synthesized netlist with):
/// the untagged in-order wrapper, clean and with its fault. The clean one passes and the fault
/// is caught as from a full build; the record says what was left out; at the divergence `run`
/// says in one line why no waveform was written and writes none, and `wave` refuses in one
/// line. A level out of range is a one-line error that builds nothing.
#[test]
fn a_build_without_the_traced_model_checks_alike_and_refuses_waveforms() {
    let d = Outside::new("notrace");
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
        let out = d.path(build);
        let (c, out, err) = cosim(&[
            "dut",
            "build",
            &m,
            "--out",
            &out,
            "--no-trace",
            "--cxx-opt",
            "0",
        ]);
        assert_eq!(c, 0, "{out}{err}");
        assert!(
            out.contains("(fast model at -O0, no traced model)"),
            "{out}"
        );
        let record: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.0.join(build).join("dut.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(record["traced"], false);
        assert_eq!(record["cxx_opt"], 0);
        let (c, out, err) = d.check(build, "2", &[]);
        assert_eq!(c, code, "{build}: {out}{err}");
        if code == 1 {
            assert!(out.contains("wrong result (out_d_o)"), "{out}");
            let waveform = out
                .lines()
                .find(|l| l.trim_start().starts_with("waveform"))
                .unwrap_or_else(|| panic!("no waveform line: {out}"));
            assert!(
                waveform.contains("not written")
                    && waveform.contains("built with `dut build --no-trace`"),
                "{waveform}"
            );
        }
    }
    let vcds = std::fs::read_dir(d.path("waves"))
        .map(|r| r.count())
        .unwrap_or(0);
    assert_eq!(vcds, 0, "a waveform was written");

    let line = one_line_error(cosim(&[
        "wave",
        "--dut",
        &d.path("fault"),
        "--vcd",
        &d.path("w.vcd"),
        "fma.rp.f32 0x4a1a6515 0x4b420001 0x00007fff",
    ]));
    assert!(line.contains("rebuild it without --no-trace"), "{line}");
    assert!(!d.0.join("w.vcd").exists());

    let m = d.path("clean.toml");
    for level in ["4", "fast"] {
        let line = one_line_error(cosim(&[
            "dut",
            "build",
            &m,
            "--out",
            &d.path("bad"),
            "--cxx-opt",
            level,
        ]));
        assert!(line.contains("--cxx-opt"), "{line}");
        assert!(!d.0.join("bad").exists());
    }
}

/// The Verilator runtime's object is compiled by the first build and taken from the cache by
/// the next (`PTXFMA_DUT_CACHE_DIR`, here a directory of this test): a compiler wrapper logs
/// every compile, and the design built from the cache passes. An entry whose bytes are not its
/// own is compiled again and replaced; with the variable empty nothing is cached.
#[test]
fn the_verilator_runtime_is_compiled_once_and_then_taken_from_the_cache() {
    let d = Outside::new("rtcache");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let (log, cache) = (d.0.join("cxx.log"), d.0.join("cache"));
    // The compiler `dut build` picks by itself (clang++ when it runs, else c++), logged.
    let wrapper = d.0.join("cxx");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n\
             if clang++ --version >/dev/null 2>&1; then exec clang++ \"$@\"; fi\n\
             exec c++ \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Builds into `out` with the cache at `cache_env`; returns how often the runtime was
    // compiled.
    let build = |out: &str, cache_env: &Path| {
        let _ = std::fs::remove_file(&log);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
            .args(["dut", "build", &manifest, "--out", &d.path(out)])
            .env("PTXFMA_RTL_CXX", &wrapper)
            .env("PTXFMA_DUT_CACHE_DIR", cache_env)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&log).unwrap();
        text.lines().filter(|l| l.contains("runtime.cpp")).count()
    };
    let entries = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&cache)
            .map(|r| r.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default()
    };

    assert_eq!(build("first", &cache), 1);
    let first = entries();
    assert_eq!(first.len(), 1, "{first:?}");
    let name = first[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("runtime-") && name.ends_with(".o"),
        "{name}"
    );
    let bytes = std::fs::read(&first[0]).unwrap();
    assert!(bytes.len() > 100_000, "{} bytes", bytes.len());

    assert_eq!(build("second", &cache), 0, "the runtime was compiled again");
    assert_eq!(entries(), first);
    let (code, out, err) = d.check("second", "2", &[]);
    assert_eq!(code, 0, "{out}{err}");

    // Bytes that are not the entry's own: compiled again and replaced by an entry of the same
    // key (its name ends in its own SHA-256, which depends on the build's paths), which the
    // next build takes.
    std::fs::write(&first[0], &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(build("third", &cache), 1);
    let replaced = entries();
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    let key = &name[.."runtime-".len() + 17];
    let again = replaced[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(again.starts_with(key), "{again} is not of key {key}");
    assert_eq!(
        build("fourth", &cache),
        0,
        "the replaced entry was not taken"
    );

    // Empty: no cache, nothing written.
    std::fs::remove_dir_all(&cache).unwrap();
    assert_eq!(build("fifth", Path::new("")), 1);
    assert!(entries().is_empty());
}

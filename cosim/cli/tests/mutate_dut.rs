//! `make mutate` on a team's design (`tools/mutate.py --dut MANIFEST`): a copy of `rtl/alt/`
//! outside the checkout, its listed mutants built with `fma-cosim dut build` and checked by
//! their ports (killed, or judged equivalent in the team's own file), and the seeded draw of
//! mutation sites, which keeps the sites it drew when others are added.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::outside::{Outside, FORMS};

/// `python3 tools/mutate.py`, its arguments to follow.
fn mutate_py() -> Command {
    let mut c = Command::new("python3");
    c.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/mutate.py"));
    c
}

/// `make mutate` takes a team's design (`tools/mutate.py --dut MANIFEST`): its own sources are
/// mutated, each mutant built with `dut build` and checked by its ports, after the design as it
/// is passes. A listed mutant in the design's rounder (the sticky bits dropped) must be killed,
/// and one that changes no result (a default arm no rounding mode reaches) survives, judged by
/// the team in its own file beside the manifest, so no blind spot is left (exit 0).
#[test]
fn make_mutate_takes_a_design_outside_the_checkout() {
    let d = Outside::new("mutate");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let set = d.0.join("mutants.json");
    std::fs::write(
        &set,
        r#"[{"file": "src/ptxfma_alt_round.sv",
  "original": "sticky = (mag_i & ~({W{1'b1}} << (lsb - 10'd1))) != '0;",
  "mutated": "sticky = 1'b0;", "why": "no sticky bit in any mode"},
 {"file": "src/ptxfma_alt_round.sv",
  "original": "default: inc_u = 1'b0;", "mutated": "default: inc_u = 1'b1;",
  "why": "an arm no mode reaches"}]"#,
    )
    .unwrap();
    std::fs::write(
        d.0.join("mutate-equivalent.json"),
        r#"[{"file": "src/ptxfma_alt_round.sv", "mutated": "default: inc_u = 1'b1;",
  "why": "the two-bit rounding mode has four values, all listed", "modes": ["ports"]}]"#,
    )
    .unwrap();
    let json = d.0.join("result.json");
    let out = mutate_py()
        .args(["--dut", &manifest, "--set", set.to_str().unwrap()])
        .args(["--ops", "20000", "--jobs", "1"])
        .args(["--cosim", env!("CARGO_BIN_EXE_fma-cosim")])
        .args(["--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("killed 1 of 1 non-equivalent (1 judged equivalent)"),
        "{text}"
    );
    let r: serde_json::Value = common::read_json(&json);
    let verdicts: Vec<(&str, &str)> = r["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["file"].as_str().unwrap(),
                m["ports"]["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("src/ptxfma_alt_round.sv", "killed"),
            ("src/ptxfma_alt_round.sv", "survived")
        ],
        "{text}"
    );
}

/// The mutants `make mutate` draws do not move when the design gains sites elsewhere: a draw
/// over the whole site list (a seeded sample) reshuffled on every edit, so each RTL change
/// brought unjudged survivors of untouched code. Two lines with new sites are added to one
/// source; every mutant drawn after is one drawn before or one of the new lines', and each
/// one drawn before that is gone was displaced by a new one.
#[test]
fn the_mutation_draw_keeps_its_sites_when_others_are_added() {
    let d = Outside::new("draw");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let list = || -> Vec<String> {
        let out = mutate_py()
            .args(["--dut", &manifest, "--mutants", "24", "--list"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{text}");
        // "mutK<TAB>file:line<TAB>mutated line": the site is the file and its mutated line.
        let drawn: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("mut"))
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                format!("{} {}", f[1].split(':').next().unwrap(), f[2])
            })
            .collect();
        assert_eq!(drawn.len(), 24, "{text}");
        drawn
    };
    let before = list();
    let top = d.0.join("src/ptxfma_alt_top.sv");
    let text = std::fs::read_to_string(&top).unwrap();
    let added = "  logic unused_probe_a, unused_probe_b;\n  \
                 assign unused_probe_a = in_valid_i & rst_ni;\n  \
                 assign unused_probe_b = (in_tag_i == '0) | in_valid_i;\n";
    let at = text.rfind("endmodule").unwrap();
    std::fs::write(&top, format!("{}{added}{}", &text[..at], &text[at..])).unwrap();
    let after = list();
    let new: Vec<&String> = after
        .iter()
        .filter(|s| s.contains("unused_probe"))
        .collect();
    for s in &after {
        assert!(
            before.contains(s) || s.contains("unused_probe"),
            "{s} is drawn only after an edit elsewhere"
        );
    }
    let lost = before.iter().filter(|s| !after.contains(s)).count();
    assert_eq!(lost, new.len(), "before {before:#?}\nafter {after:#?}");
}

/// `rtl/alt/` behind a wrapper Verilator rejects unless `-Wno-BLKANDNBLK` waives it (the waiver
/// cvfpu's `fpnew_fma` needs) and its parameter `Gate` is given (it has no default): its result
/// ports unchanged when `Gate` is not 0.
const WAIVED: &str = "module alt_waived #(parameter int unsigned Gate) (\n\
    input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
    input logic [15:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
    input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,\n\
    output logic [15:0] out_tag_o, output logic [63:0] out_d_o);\n\
  logic valid;\n\
  logic [1:0] q;\n\
  always @(posedge clk_i) q[1] <= in_valid_i;\n\
  always_comb q[0] = rst_ni;\n\
  ptxfma_alt_top u_alt (.clk_i, .rst_ni, .in_valid_i, .in_tag_i, .in_ctrl_i, .in_a_i, .in_b_i,\n\
    .in_c_i, .out_valid_o(valid), .out_tag_o, .out_d_o);\n\
  assign out_valid_o = valid & (q[0] | ~rst_ni) & (Gate != 0);\n\
endmodule\n";

/// A study that could check nothing is an error: a manifest whose waiver the lint step used to
/// drop left every mutant stillborn and passed ("killed 0 of 0"). With the manifest's flags and
/// parameters a mutant is live and scored; without the waiver, or without the parameter, the
/// design as it is fails Verilator, exit 2.
#[test]
fn make_mutate_uses_the_manifests_flags_and_refuses_a_study_of_nothing() {
    let d = Outside::new("waived");
    std::fs::write(d.0.join("src/alt_waived.sv"), WAIVED).unwrap();
    let manifest = |name: &str, flags: &str, parameters: &str| {
        let text = format!(
            "[design]\ntop = \"alt_waived\"\nsources = [\"src/ptxfma_alt_exact.sv\", \
             \"src/ptxfma_alt_round.sv\", \"src/ptxfma_alt_top.sv\", \"src/alt_waived.sv\"]\n\
             verilator_flags = [{flags}]\n[design.parameters]\n{parameters}\n{FORMS}"
        );
        std::fs::write(d.0.join(name), text).unwrap();
        d.path(name)
    };
    let set = d.0.join("mutants.json");
    std::fs::write(
        &set,
        r#"[{"file": "src/ptxfma_alt_round.sv",
  "original": "sticky = (mag_i & ~({W{1'b1}} << (lsb - 10'd1))) != '0;",
  "mutated": "sticky = 1'b0;", "why": "no sticky bit in any mode"}]"#,
    )
    .unwrap();
    let study = |m: &str| {
        let out = mutate_py()
            .args(["--dut", m, "--set", set.to_str().unwrap()])
            .args(["--ops", "20000", "--jobs", "1"])
            .args(["--cosim", env!("CARGO_BIN_EXE_fma-cosim")])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let waiver = "\"-Wno-BLKANDNBLK\"";
    let (code, out, err) = study(&manifest("waived.toml", waiver, "Gate = 1"));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("1 mutants, 0 stillborn, 1 live"), "{out}{err}");
    assert!(out.contains("killed 1 of 1 non-equivalent"), "{out}{err}");
    for (name, flags, parameters, says) in [
        ("unwaived.toml", "", "Gate = 1", "BLKANDNBLK"),
        ("ungated.toml", waiver, "", "'Gate'"),
    ] {
        let (code, out, err) = study(&manifest(name, flags, parameters));
        assert_eq!(code, Some(2), "{name}: {out}{err}");
        assert!(
            err.contains("the design as it is does not pass Verilator with its manifest's flags")
                && err.contains(says),
            "{name}: {out}{err}"
        );
    }
}

/// A study of zero mutants checks nothing, so it is an error, not a pass ("killed 0 of 0
/// non-equivalent", exit 0, was what `make mutate MUTATE_COUNT=0` said): a draw of none and a
/// listed set that is empty are each refused with one line on stderr, exit 2, before anything
/// is built.
#[test]
fn make_mutate_refuses_a_study_of_zero_mutants() {
    let d = Outside::new("zero");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let empty = d.0.join("none.json");
    std::fs::write(&empty, "[]").unwrap();
    for how in [["--mutants", "0"], ["--set", empty.to_str().unwrap()]] {
        let out = mutate_py()
            .args(["--dut", &manifest])
            .args(how)
            .args(["--ops", "1000", "--jobs", "1"])
            .args(["--cosim", env!("CARGO_BIN_EXE_fma-cosim")])
            .output()
            .unwrap();
        let (o, e) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(2), "{how:?}: {o}{e}");
        assert_eq!(e.lines().count(), 1, "{how:?}: {o}{e}");
        assert!(e.contains("zero mutants"), "{how:?}: {o}{e}");
        assert!(!o.contains("killed"), "{how:?}: {o}{e}");
    }
}

//! `fma-cosim dut build` and `dut prove` lose nothing (issue "Nothing lost"): an `--out` that
//! holds anything but an unchanged earlier output of the command is refused and left as it
//! was; Verilator flags that would write elsewhere are refused by name; a port of the contract
//! declared in the wrong direction is refused; an `include`d header edited since the build is
//! refused by `--dut` as a source is; a library cut short is refused, not mapped.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::cosim;
use common::outside::{one_line_error, Outside};

/// A design that meets the contract's ports (its results are its `a` operand): quick to build.
const TINY: &str = "module tiny (input logic clk_i, input logic rst_ni, input logic in_valid_i,\n\
     input logic [15:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,\n\
     input logic [63:0] in_b_i, input logic [63:0] in_c_i, OUT_VALID logic out_valid_o,\n\
     output logic [15:0] out_tag_o, output logic [63:0] out_d_o);\n\
     HEADER\n\
     assign out_valid_o = in_valid_i; assign out_tag_o = in_tag_i; assign out_d_o = RESULT;\n\
     endmodule\n";

/// Writes `src/tiny.sv` (`out_valid_o` declared `out_valid`, `header` at the top of the body,
/// the result `result`) and manifest `name` for it, `src/` an include directory.
fn tiny(d: &Outside, name: &str, out_valid: &str, header: &str, result: &str) -> String {
    let text = TINY
        .replace("OUT_VALID", out_valid)
        .replace("HEADER", header)
        .replace("RESULT", result);
    std::fs::write(d.0.join("src/tiny.sv"), text).unwrap();
    std::fs::write(
        d.0.join(name),
        "[design]\ntop = \"tiny\"\nsources = [\"src/tiny.sv\"]\ninclude_dirs = [\"src\"]\n\
         [forms]\nfamilies = [\"f32\"]\n",
    )
    .unwrap();
    d.path(name)
}

/// `dut build MANIFEST --out OUT --no-trace --cxx-opt 0`, `out` in `d`.
fn build(d: &Outside, manifest: &str, out: &str) -> (i32, String, String) {
    cosim(&[
        "dut",
        "build",
        manifest,
        "--out",
        &d.path(out),
        "--no-trace",
        "--cxx-opt",
        "0",
    ])
}

/// Every file under `dir` (relative path -> bytes); empty if it does not exist.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                files.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

#[test]
fn an_out_directory_holding_anything_not_written_by_the_build_is_refused_and_kept() {
    let d = Outside::new("keep");
    let m = tiny(&d, "tiny.toml", "output", "", "in_a_i");
    let out = d.0.join("out");
    // (files put in `out`, the file the refusal must name)
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("precious.txt", "mine\n")], "precious.txt"),
        (&[("docs/a.md", "# mine\n")], "docs/a.md"),
        (
            &[("dut.json", "{\"x\":1}"), ("precious.txt", "mine\n")],
            "dut.json",
        ),
        (
            &[("dut.json", "not json at all"), ("precious.txt", "mine\n")],
            "dut.json",
        ),
        (&[("dut.json", ""), ("precious.txt", "mine\n")], "dut.json"),
    ];
    for (files, names) in cases {
        let _ = std::fs::remove_dir_all(&out);
        for (f, text) in files {
            let p = out.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let before = snapshot(&out);
        let line = one_line_error(build(&d, &m, "out"));
        assert!(
            line.contains(&out.join(names).display().to_string()),
            "{files:?}: {line}"
        );
        assert_eq!(snapshot(&out), before, "{files:?}: `out` changed");
    }

    // A build of its own is replaced; the same build with a file added, or a file edited, is
    // not, and is left as it was.
    let (code, o, e) = build(&d, &m, "good");
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = build(&d, &m, "good");
    assert_eq!(code, 0, "a clean rebuild over its own build: {o}{e}");
    let good = d.0.join("good");
    assert!(good.join("dut.json").is_file() && good.join("libptxfma_dut.so").is_file());
    std::fs::write(good.join("notes.txt"), "mine\n").unwrap();
    let before = snapshot(&good);
    let line = one_line_error(build(&d, &m, "good"));
    assert!(
        line.contains(&good.join("notes.txt").display().to_string()),
        "{line}"
    );
    assert_eq!(snapshot(&good), before, "notes.txt: `good` changed");
    std::fs::remove_file(good.join("notes.txt")).unwrap();
    let lib = good.join("libptxfma_dut.so");
    let mut bytes = std::fs::read(&lib).unwrap();
    bytes.extend_from_slice(b"edited");
    std::fs::write(&lib, &bytes).unwrap();
    let before = snapshot(&good);
    let line = one_line_error(build(&d, &m, "good"));
    assert!(line.contains(&lib.display().to_string()), "{line}");
    assert_eq!(snapshot(&good), before, "edited: `good` changed");
}

/// `dut prove` over a directory whose `prove.json` it did not write: refused, kept. (Refused
/// before the formal tools are looked for, so it runs without them.)
#[test]
fn dut_prove_refuses_an_out_directory_whose_record_is_not_its_own() {
    let d = Outside::new("prove-keep");
    std::fs::write(d.0.join("src/x.sv"), "module x; endmodule\n").unwrap();
    std::fs::write(
        d.0.join("x.toml"),
        "[design]\ntop = \"x\"\nsources = [\"src/x.sv\"]\n[contract]\nlatency = 3\n\
         [forms]\nfamilies = [\"half\"]\nrounding = [\"rn\"]\n",
    )
    .unwrap();
    let out = d.0.join("out");
    for record in ["{\"x\":1}", "not json at all", ""] {
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("prove.json"), record).unwrap();
        std::fs::write(out.join("notes.txt"), "mine\n").unwrap();
        let before = snapshot(&out);
        let line = one_line_error(cosim(&[
            "dut",
            "prove",
            &d.path("x.toml"),
            "--out",
            &d.path("out"),
        ]));
        assert!(
            line.contains(&out.join("prove.json").display().to_string())
                && line.contains("holds no earlier `dut prove`"),
            "{record:?}: {line}"
        );
        assert_eq!(snapshot(&out), before, "{record:?}: `out` changed");
    }
}

/// Flags that would have Verilator write elsewhere, or build and name an executable of its
/// own, are refused by name before anything runs: nothing is written anywhere.
#[test]
fn verilator_flags_that_move_the_outputs_are_refused_by_name() {
    let d = Outside::new("flags");
    let elsewhere = d.path("elsewhere");
    let cases: [&[&str]; 8] = [
        &["--Mdir", &elsewhere],
        &["-Mdir", &elsewhere],
        &["-o", &elsewhere],
        &["--build"],
        &["--exe"],
        &["--binary"],
        &["--prefix", "Vmine"],
        &["-f", &elsewhere],
    ];
    for flags in cases {
        let list: Vec<String> = flags.iter().map(|f| format!("{f:?}")).collect();
        let m = d.manifest(
            "flags.toml",
            &format!("verilator_flags = [{}]", list.join(", ")),
            "[forms]\nfamilies = [\"f32\"]\n",
        );
        let line = one_line_error(d.build(&m, "out"));
        assert!(
            line.contains(&format!("`{}`", flags[0])),
            "{flags:?}: {line}"
        );
        assert!(
            !Path::new(&elsewhere).exists(),
            "{flags:?}: wrote elsewhere"
        );
        assert!(!d.0.join("out").exists(), "{flags:?}: wrote a build");
        let names: Vec<String> = std::fs::read_dir(&d.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains("building")), "{names:?}");
    }
}

/// A port of the contract declared in the wrong direction is named with its direction.
#[test]
fn a_port_declared_in_the_wrong_direction_is_refused() {
    let d = Outside::new("direction");
    let m = tiny(&d, "in.toml", "input", "", "in_a_i");
    // An input cannot be assigned: the assignment goes with the direction.
    let text = std::fs::read_to_string(d.0.join("src/tiny.sv"))
        .unwrap()
        .replace("assign out_valid_o = in_valid_i;", "");
    std::fs::write(d.0.join("src/tiny.sv"), text).unwrap();
    let line = one_line_error(build(&d, &m, "out"));
    assert!(
        line.contains("out_valid_o") && line.contains("input"),
        "{line}"
    );
    assert!(!d.0.join("out").exists());
}

/// An `include`d header edited after the build: `run --dut` refuses the build, naming it.
#[test]
fn an_included_header_edited_since_the_build_is_refused() {
    let d = Outside::new("header");
    std::fs::write(d.0.join("src/tiny.svh"), "`define TINY_RESULT in_a_i\n").unwrap();
    let m = tiny(
        &d,
        "tiny.toml",
        "output",
        "`include \"tiny.svh\"",
        "`TINY_RESULT",
    );
    let (code, o, e) = build(&d, &m, "out");
    assert_eq!(code, 0, "{o}{e}");
    let header = d.0.join("src/tiny.svh").canonicalize().unwrap();
    let run = || d.run("out", &["--count", "10", "--progress", "off"]);
    let (code, o, e) = run();
    assert!(
        !e.contains("changed since the build"),
        "refused unedited: {code} {o}{e}"
    );
    std::fs::write(d.0.join("src/tiny.svh"), "`define TINY_RESULT in_b_i\n").unwrap();
    let line = one_line_error(run());
    assert!(
        line.contains(&header.display().to_string()) && line.contains("changed since the build"),
        "{line}"
    );
}

/// A library cut to half its size, its SHA-256 recorded again: refused in one line, never
/// mapped (which faults: a bus error).
#[test]
fn a_library_cut_short_is_refused_before_it_is_mapped() {
    let d = Outside::new("cut");
    let m = tiny(&d, "tiny.toml", "output", "", "in_a_i");
    let (code, o, e) = build(&d, &m, "out");
    assert_eq!(code, 0, "{o}{e}");
    let lib = d.0.join("out/libptxfma_dut.so");
    let bytes = std::fs::read(&lib).unwrap();
    let half = &bytes[..bytes.len() / 2];
    std::fs::write(&lib, half).unwrap();
    let record_path = d.0.join("out/dut.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    // The digest by coreutils, not by the kit.
    let sum = std::process::Command::new("sha256sum")
        .arg(&lib)
        .output()
        .unwrap();
    let sum = String::from_utf8(sum.stdout).unwrap();
    let digest = sum.split_whitespace().next().unwrap().to_string();
    assert_eq!(digest.len(), 64, "{sum}");
    record["sha256"]["library"] = serde_json::Value::String(digest);
    std::fs::write(&record_path, record.to_string()).unwrap();
    let line = one_line_error(d.run("out", &["--count", "10", "--progress", "off"]));
    assert!(line.contains("libptxfma_dut.so"), "{line}");
}

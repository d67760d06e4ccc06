//! A team's unit that implements one instruction, `fma.rn.f16`, declared at that granularity
//! (`[forms]` operations, formats, modifiers, rounding; issue 51): the independent half FMA
//! (`tests/dut/exact_half/`, manifest `fma_rn_f16.toml`) passes a million operations drawn
//! from its one word, a fault planted in it (`FAULT_EXACT_HALF_STICKY_SUBNORMAL`, the sticky
//! bit of subnormal results dropped) is still found, and a word outside its forms is refused
//! by every command that takes words, in one line, exit 2.

use crate::common;

use std::path::Path;

use common::cosim;
use common::headline::headline_numbers;
use common::outside::{one_line_error, Outside};

/// `exact_half`'s sources and its `fma.rn.f16` manifest copied to a fresh directory outside the
/// checkout, with a second manifest planting the fault; removed when dropped.
struct Unit(Outside);

impl Unit {
    fn new(name: &str) -> Unit {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dut/exact_half");
        let o = Outside::copy_of(
            &format!("half-{name}"),
            &from,
            "",
            &["exact_half_lane.sv", "exact_half_top.sv", "fma_rn_f16.toml"],
        );
        let text = std::fs::read_to_string(o.0.join("fma_rn_f16.toml")).unwrap();
        let fault = text.replacen(
            "[design]\n",
            "[design]\ndefines = [\"FAULT_EXACT_HALF_STICKY_SUBNORMAL\"]\n",
            1,
        );
        assert_ne!(fault, text);
        std::fs::write(o.0.join("fault.toml"), fault).unwrap();
        Unit(o)
    }

    fn path(&self, p: &str) -> String {
        self.0.path(p)
    }

    /// `dut build MANIFEST --out OUT`, both in here.
    fn build(&self, manifest: &str, out: &str) {
        let (code, out, err) = self.0.build(&self.path(manifest), out);
        assert_eq!(code, 0, "{out}{err}");
    }

    /// A manifest in here: `fma_rn_f16.toml`'s `[design]` and `[contract]` with `forms` in
    /// place of its `[forms]`.
    fn manifest_with(&self, name: &str, forms: &str) -> String {
        let text = std::fs::read_to_string(self.0 .0.join("fma_rn_f16.toml")).unwrap();
        let head = &text[..text.find("[forms]").unwrap()];
        std::fs::write(self.0 .0.join(name), format!("{head}[forms]\n{forms}")).unwrap();
        self.path(name)
    }
}

/// `run --dut BUILD --compare ports --count COUNT --jobs 2 EXTRA` ([`Outside::check_count`]).
fn run(u: &Unit, build: &str, count: &str, extra: &[&str]) -> (i32, String, String) {
    u.0.check_count(build, count, "2", extra)
}

#[test]
fn an_fma_rn_f16_unit_passes_a_million_operations_and_its_planted_fault_is_found() {
    let u = Unit::new("fma");
    u.build("fma_rn_f16.toml", "clean");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(u.0 .0.join("clean/dut.json")).unwrap())
            .unwrap();
    assert_eq!(record["families"], serde_json::json!(["half"]));
    assert_eq!(record["operations"], serde_json::json!(["fma"]));
    assert_eq!(record["formats"], serde_json::json!(["f16"]));
    assert_eq!(
        record["rounding"],
        serde_json::json!([true, false, false, false])
    );
    for key in ["ftz", "sat", "relu", "oob"] {
        assert_eq!(record[key], false, "{key}");
    }

    // A million operations, every one fma.rn.f16, all agree; every coverage bin the design's
    // forms reach is hit.
    let cov = u.path("cov.json");
    let t0 = std::time::Instant::now();
    let (code, out, err) = run(&u, "clean", "1000000", &["--coverage", &cov]);
    eprintln!("1,000,000 fma.rn.f16 on exact_half: {:?}", t0.elapsed());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("half              1000000"), "{out}");
    let (hit, reach, _, _, _) = headline_numbers(&out);
    assert!(hit == reach && reach > 100, "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov).unwrap()).unwrap();
    let group = |name: &str| {
        j["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == name)
            .unwrap()["bins"]
            .as_array()
            .unwrap()
            .clone()
    };
    let outside = |b: &serde_json::Value| {
        b["unreachable"]
            .as_str()
            .is_some_and(|w| w.contains("not among the forms of the design"))
    };
    // Only fma.rn.f16 is drawn: the one word bin hit, the half family's others outside.
    let mut words = Vec::new();
    for b in group("instr.words") {
        let name = b["name"].as_str().unwrap().to_string();
        if b["hits"].as_u64().unwrap() > 0 {
            words.push(name);
        } else if name.ends_with(".f16") || name.ends_with(".bf16") {
            assert!(outside(&b), "{b}");
        }
    }
    assert_eq!(words, ["fma.rn.f16"]);
    // The bins only the words left out reach are outside it too: bf16 operands, .relu, .oob
    // and the binary32 step of fma.{rz,rm,rp}.bf16, and what only bfloat16's exponent range
    // reaches; the f16 operands are the run's.
    let operands = group("half.operands");
    for b in &operands {
        let bf16 = b["name"].as_str().unwrap().starts_with("bf16 ");
        assert_eq!(outside(b), bf16, "{b}");
    }
    let modifiers = group("half.modifiers");
    assert_eq!(modifiers.len(), 16);
    assert!(modifiers.iter().all(outside), "{modifiers:?}");
    let far = group("half.alignment")
        .into_iter()
        .find(|b| b["name"] == "addend far above (d > 56): held at the top")
        .unwrap();
    assert!(outside(&far), "{far}");

    // The planted fault is found, on fma.rn.f16, a result below the normal range one
    // quantum short of the model's: the raw bits.
    u.build("fault.toml", "fault");
    let (code, out, err) = run(&u, "fault", "1000000", &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("wrong result (out_d_o)"), "{out}");
    let line = out
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("result d"))
        .unwrap_or_else(|| panic!("no result line in {out}"));
    eprintln!("first divergence: result d{line}");
    let hex = |after: &str| {
        let h = line.split(after).nth(1).unwrap().trim_start();
        let h = h.strip_prefix("0x").unwrap().split(' ').next().unwrap();
        u64::from_str_radix(h, 16).unwrap()
    };
    let (model, rtl) = (hex("expected "), hex("retired "));
    assert_eq!(model & 0x7fff, (rtl & 0x7fff) + 1, "{line}");
    assert_eq!(model >> 15, rtl >> 15, "{line}");
    // At most the smallest normal (a subnormal rounded up can reach it).
    assert!(model & 0x7fff <= 0x0400, "{line}");
    assert!(out.contains("instruction fma.rn.f16 "), "{out}");
}

#[test]
fn a_word_outside_the_forms_is_refused_in_one_line() {
    let u = Unit::new("refuse");
    u.build("fma_rn_f16.toml", "clean");
    let dut = u.path("clean");
    // Each word names the key of `[forms]` that leaves it out.
    for (word, key) in [
        ("add.rn.f16", "forms.operations allows only fma"),
        ("fma.rn.bf16", "forms.formats allows only f16"),
        ("fma.rz.bf16", "forms.formats allows only f16"),
        ("fma.rn.relu.f16", "forms.relu is false"),
        ("fma.rn.oob.f16", "forms.oob is false"),
        ("fma.rn.ftz.f16", "forms.ftz is false"),
        ("fma.rn.sat.f16", "forms.sat is false"),
    ] {
        let replay = cosim(&[
            "replay", "--dut", &dut, "--ctrl", word, "--a", "0x3c00", "--b", "0x3c00", "--c",
            "0x3c00",
        ]);
        let line = one_line_error(replay);
        assert!(line.contains(&format!("`{word}`")), "{line}");
        assert!(line.contains(key), "{line}");
        // The same word in a vectors file, after a word the design takes.
        let file = u.0 .0.join("v.txt");
        std::fs::write(
            &file,
            format!("fma.rn.f16 0x3c00 0x3c00 0x3c00\n{word} 0x3c00 0x3c00 0x3c00\n"),
        )
        .unwrap();
        let line = one_line_error(cosim(&[
            "run",
            "--dut",
            &dut,
            "--vectors",
            file.to_str().unwrap(),
        ]));
        assert!(line.contains(&format!("`{word}`")), "{line}");
        assert!(line.contains(key), "{line}");
    }
    // `wave` alike.
    let line = one_line_error(cosim(&[
        "wave",
        "--dut",
        &dut,
        "--vcd",
        &u.path("w.vcd"),
        "mul.rn.f16 0x3c00 0x3c00",
    ]));
    assert!(line.contains("`mul.rn.f16`"), "{line}");
    assert!(line.contains("forms.operations allows only fma"), "{line}");
    // The word it takes runs: 1 * 1 + 1 = 2, 0x4000.
    let (code, out, err) = cosim(&[
        "replay",
        "--dut",
        &dut,
        "--ctrl",
        "fma.rn.f16",
        "--a",
        "0x3c00",
        "--b",
        "0x3c00",
        "--c",
        "0x3c00",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("no divergence"), "{out}");

    // The record carries the forms: one naming an operation this build does not know is
    // refused; one of an earlier build, without the new keys, allows what its manifest could
    // not restrict (add.rn.f16, which exact_half computes).
    let rec = u.0 .0.join("clean/dut.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let add = || {
        cosim(&[
            "replay",
            "--dut",
            &dut,
            "--ctrl",
            "add.rn.f16",
            "--a",
            "0x3c00",
            "--b",
            "0x0",
            "--c",
            "0x3c00",
        ])
    };
    let mut r = original.clone();
    r["operations"] = serde_json::json!(["fmad"]);
    std::fs::write(&rec, r.to_string()).unwrap();
    let line = one_line_error(add());
    assert!(line.contains("operations: no operation `fmad`"), "{line}");
    let mut r = original.clone();
    for key in ["operations", "formats", "relu", "oob"] {
        r.as_object_mut().unwrap().remove(key).unwrap();
    }
    std::fs::write(&rec, r.to_string()).unwrap();
    let (code, out, err) = add();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("no divergence"), "{out}");
    std::fs::write(&rec, original.to_string()).unwrap();
    one_line_error(add());

    // A manifest's mistakes, refused before anything is built: an empty list, a name it
    // does not know, forms that leave a family no instruction.
    for (forms, says) in [
        ("operations = []\n", "forms.operations is empty"),
        ("formats = []\n", "forms.formats is empty"),
        (
            "operations = [\"fmad\"]\n",
            "forms.operations: no operation `fmad`",
        ),
        ("formats = [\"half\"]\n", "forms.formats: no format `half`"),
        (
            "families = [\"half\", \"f32\"]\nformats = [\"f16\"]\n",
            "forms leave family `f32` no instruction",
        ),
        (
            "families = [\"vmad\"]\noperations = [\"fma\"]\n",
            "forms leave family `vmad` no instruction",
        ),
    ] {
        let m = u.manifest_with("bad.toml", forms);
        let line = one_line_error(cosim(&["dut", "build", &m, "--out", &u.path("bad")]));
        assert!(line.contains(says), "{forms}: {line}");
    }
}

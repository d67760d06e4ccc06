//! External vectors through the RTL: `fma-cosim run --vectors`, checked both against the model
//! (lockstep) and against the file's expected results.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{cosim, scratch};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/testfloat")
        .join(name)
}

/// The line `N vectors through the RTL, M results checked ...` as (N, M, mismatches).
fn counts(out: &str) -> (u64, u64, u64) {
    let l = out
        .lines()
        .find(|l| l.contains("vectors through the RTL"))
        .unwrap_or_else(|| panic!("no summary in {out}"));
    let nums: Vec<u64> = l
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (nums[0], nums[1], nums[2])
}

#[test]
fn the_testfloat_samples_pass_through_the_rtl() {
    let dir = scratch("vectors-testfloat");
    for func in ["f32_mulAdd", "f64_mulAdd"] {
        for mode in ["near_even", "minMag", "min", "max"] {
            let file = data(&format!("{func}_r{mode}.level1-sample.txt.gz"));
            let (code, out, err) = cosim(&[
                "run",
                "--vectors",
                file.to_str().unwrap(),
                "--testfloat",
                func,
                &format!("-r{mode}"),
                "--waves-dir",
                dir.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{func} {mode}: {out}{err}");
            let (n, checked, bad) = counts(&out);
            assert!(n > 9_000, "{func} {mode}: {n} vectors");
            assert_eq!(checked, n);
            assert_eq!(bad, 0);
        }
    }
}

/// `fma-cosim run --vectors` on one of the H100's answer files: every line decodes, and the
/// RTL, in lockstep with the model, gives the GPU's answer on all `lines` of them.
fn the_rtl_gives_the_h100s_answers_in(file: &str, lines: u64) {
    let dir = scratch(&format!("vectors-{file}"));
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fma-model/tests/data")
        .join(file);
    let (code, out, err) = cosim(&[
        "run",
        "--vectors",
        file.to_str().unwrap(),
        "--waves-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(counts(&out), (lines, lines, 0), "{out}");
}

/// The H100's answers on the vmad spellings ptxas accepts beyond the PTX page's table (every
/// dtype, `.po` with `-a, -b`; docs/semantics.md S8).
#[test]
fn the_rtl_gives_the_h100s_vmad_answers() {
    the_rtl_gives_the_h100s_answers_in("h100-vmad-spellings.txt.gz", 148_000);
}

/// The H100's answers on every half-precision spelling `ptxas` accepts (docs/semantics.md
/// S10-S13).
#[test]
fn the_rtl_gives_the_h100s_half_precision_answers() {
    the_rtl_gives_the_h100s_answers_in("h100-half.txt.gz", 440_000);
}

/// Writes `lines` to a file in `dir`.
fn file(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let p = dir.join(name);
    let mut f = std::fs::File::create(&p).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    p
}

fn run_vectors(path: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut a = vec!["run", "--vectors", path.to_str().unwrap()];
    a.extend_from_slice(extra);
    a.extend_from_slice(&["--waves-dir", path.parent().unwrap().to_str().unwrap()]);
    cosim(&a)
}

/// Pseudo-random operands with the exponent range kept moderate and special values mixed in.
fn operands32(n: usize) -> Vec<(f32, f32)> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let v = |r: u64| f32::from_bits((r as u32 & 0x8FFF_FFFF) | 0x3000_0000);
            (v(next()), v(next()))
        })
        .collect()
}

#[test]
fn two_operand_testfloat_functions_run_as_ptx_add_sub_mul() {
    // Expected results from the host's own IEEE arithmetic (round to nearest even), an oracle
    // that shares nothing with the model or the RTL.
    let dir = scratch("vectors-add");
    let ops = operands32(3000);
    for (func, f) in [
        ("f32_add", (|a, b| a + b) as fn(f32, f32) -> f32),
        ("f32_sub", |a, b| a - b),
        ("f32_mul", |a, b| a * b),
    ] {
        let lines: Vec<String> = ops
            .iter()
            .map(|&(a, b)| {
                format!(
                    "{:08X} {:08X} {:08X} 00",
                    a.to_bits(),
                    b.to_bits(),
                    f(a, b).to_bits()
                )
            })
            .collect();
        let p = file(&dir, &format!("{func}.txt"), &lines);
        let (code, out, err) = run_vectors(&p, &["--testfloat", func, "-rnear_even"]);
        assert_eq!(code, 0, "{func}: {out}{err}");
        assert_eq!(counts(&out), (3000, 3000, 0), "{func}");
    }
    let lines: Vec<String> = ops
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (a as f64 * 1e200, b as f64);
            format!(
                "{:016X} {:016X} {:016X} 00",
                a.to_bits(),
                b.to_bits(),
                (a * b).to_bits()
            )
        })
        .collect();
    let p = file(&dir, "f64_mul.txt", &lines);
    let (code, out, err) = run_vectors(&p, &["--testfloat", "f64_mul", "-rnear_even"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_wrong_expected_result_is_a_mismatch_naming_the_line() {
    let dir = scratch("vectors-bad");
    let p = file(
        &dir,
        "v.txt",
        &[
            "// a comment, then vectors with and without an expected column".into(),
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000 0x40400000".into(),
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000".into(),
            ".target sm_13".into(),
            "mad.f32 0x3f800000 0x3f800000 0x3f800000 0x40000001".into(),
        ],
    );
    let (code, out, err) = run_vectors(&p, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(counts(&out), (3, 2, 1));
    assert!(out.contains("MISMATCH with the file at line 5"), "{out}");
}

#[test]
fn f32_nans_match_any_nan_unless_strict() {
    let dir = scratch("vectors-nan");
    // A quiet NaN input gives some NaN; the file says another one.
    let p = file(
        &dir,
        "nan.txt",
        &["fma.rn.f32 0x7fc00001 0x3f800000 0x00000000 0xffc00123".into()],
    );
    let (code, out, err) = run_vectors(&p, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = run_vectors(&p, &["--strict-nan"]);
    assert_eq!(code, 1, "{out}");
    // f64 payloads are pinned by PTX: no tolerance.
    let p = file(
        &dir,
        "nan64.txt",
        &["fma.rn.f64 0x7ff8000000000001 0x3ff0000000000000 0x0 0x7ff8000000000002".into()],
    );
    let (code, out, _) = run_vectors(&p, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn bad_vector_files_are_one_line_errors() {
    let dir = scratch("vectors-errors");
    let empty = file(&dir, "empty.txt", &["// nothing".into(), "".into()]);
    let bad = file(&dir, "bad.txt", &["fma.rn.f32 0x1 0x2".into()]);
    let tf = file(&dir, "tf.txt", &["3F800000 40000000 3F800000 00".into()]);
    for (path, extra, want) in [
        (&empty, &[][..], "no vectors"),
        (&bad, &[][..], "line 1"),
        (&tf, &["--testfloat", "f32_mulAdd"][..], "expected 5 fields"),
        (
            &tf,
            &["--testfloat", "f16_mulAdd"][..],
            "unsupported function",
        ),
        (&dir.join("missing.txt"), &[][..], "missing.txt"),
    ] {
        let (code, out, err) = run_vectors(path, extra);
        assert_eq!(code, 2, "{path:?} {extra:?}: {out}{err}");
        assert!(err.contains(want), "{path:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let (code, _, err) = cosim(&["run", "-rmin"]);
    assert_eq!(code, 2);
    assert!(err.contains("--testfloat"), "{err}");
}

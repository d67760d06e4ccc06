//! `fma-model check` end to end: the binary against the committed TestFloat samples, and its
//! answers to bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fma-model");

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/testfloat")
        .join(name)
}

/// A scratch file private to one test.
fn scratch(name: &str, text: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("check_cli-{name}"));
    std::fs::write(&p, text).unwrap();
    p
}

fn check(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg("check").args(args);
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn fma-model");
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    (
        status.code().expect("exited, not killed"),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Lines in a gzipped sample, counted without the binary.
fn sample_lines(name: &str) -> usize {
    use std::io::Read;
    let f = std::fs::File::open(data(name)).unwrap();
    let mut s = String::new();
    flate2::read::GzDecoder::new(f)
        .read_to_string(&mut s)
        .unwrap();
    s.lines().filter(|l| !l.trim().is_empty()).count()
}

fn sample(func: &str, mode: &str) {
    let name = format!("{func}_{mode}.level1-sample.txt.gz");
    let path = data(&name);
    let (code, out, err) = check(&[&format!("-{mode}"), func, path.to_str().unwrap()], None);
    let n = sample_lines(&name);
    assert!(n > 10_000, "{name}: only {n} lines");
    assert_eq!(code, 0, "{name}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains(&format!("-{mode}: {n} vectors, 0 mismatches")),
        "{name}: {out}"
    );
}

#[test]
fn f32_near_even() {
    sample("f32_mulAdd", "rnear_even");
}
#[test]
fn f32_min_mag() {
    sample("f32_mulAdd", "rminMag");
}
#[test]
fn f32_min() {
    sample("f32_mulAdd", "rmin");
}
#[test]
fn f32_max() {
    sample("f32_mulAdd", "rmax");
}
#[test]
fn f64_near_even() {
    sample("f64_mulAdd", "rnear_even");
}
#[test]
fn f64_min_mag() {
    sample("f64_mulAdd", "rminMag");
}
#[test]
fn f64_min() {
    sample("f64_mulAdd", "rmin");
}
#[test]
fn f64_max() {
    sample("f64_mulAdd", "rmax");
}

// 1*2 + 0.5 = 2.5 exactly in any rounding mode: the expected values below are plain arithmetic.
const F32_OK: &str = "3F800000 40000000 3F000000 40200000 00\n";
const F64_OK: &str = "3FF0000000000000 4000000000000000 3FE0000000000000 4004000000000000 00\n";

#[test]
fn plain_text_from_stdin_and_file() {
    let (code, out, err) = check(&["f32_mulAdd"], Some(F32_OK.as_bytes()));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 vectors, 0 mismatches"), "{out}");
    let p = scratch("plain64.txt", F64_OK);
    let (code, out, err) = check(&["-rmax", "f64_mulAdd", p.to_str().unwrap()], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("f64_mulAdd -rmax: 1 vectors, 0 mismatches"),
        "{out}"
    );
}

#[test]
fn gzip_from_stdin() {
    let gz = std::fs::read(data("f32_mulAdd_rmin.level1-sample.txt.gz")).unwrap();
    let n = sample_lines("f32_mulAdd_rmin.level1-sample.txt.gz");
    let (code, out, err) = check(&["-rmin", "f32_mulAdd", "-"], Some(&gz));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("{n} vectors, 0 mismatches")), "{out}");
}

#[test]
fn corrupted_expected_value_is_a_mismatch() {
    // The last bit of the expected 2.5 flipped, on line 2 of 3.
    let text = format!("{F32_OK}3F800000 40000000 3F000000 40200001 00\n{F32_OK}");
    let p = scratch("corrupt32.txt", &text);
    let (code, out, err) = check(&["f32_mulAdd", p.to_str().unwrap()], None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("mismatch at line 2"), "{out}");
    assert!(out.contains("expected 0x40200001"), "{out}");
    assert!(out.contains("got      0x40200000"), "{out}");
    assert!(out.contains("3 vectors, 1 mismatches"), "{out}");

    let bad64 = F64_OK.replace("4004000000000000 00", "C004000000000000 00");
    let (code, out, _) = check(&["f64_mulAdd"], Some(bad64.as_bytes()));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("got      0x4004000000000000"), "{out}");
}

#[test]
fn max_report_limits_the_listing() {
    let bad = "3F800000 40000000 3F000000 00000000 00\n".repeat(5);
    let (code, out, _) = check(&["--max-report", "2", "f32_mulAdd"], Some(bad.as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(out.matches("mismatch at line").count(), 2, "{out}");
    assert!(out.contains("3 more mismatches not shown"), "{out}");
    assert!(out.contains("5 vectors, 5 mismatches"), "{out}");
}

#[test]
fn nan_patterns_match_unless_strict() {
    // A quiet-NaN operand gives a NaN result; TestFloat writes SoftFloat's pattern, PTX's f32
    // NaN (decision S1) is 0x7FFFFFFF, so the two agree only as "some NaN".
    let line = "7FC00000 3F800000 3F800000 7FC00000 00\n";
    let (code, out, err) = check(&["f32_mulAdd"], Some(line.as_bytes()));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("1 NaN results differing only in NaN bits accepted"),
        "{out}"
    );
    let (code, out, _) = check(&["--strict-nan", "f32_mulAdd"], Some(line.as_bytes()));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("got      0x7fffffff"), "{out}");
    // A NaN never matches a number.
    let line = "7FC00000 3F800000 3F800000 3F800000 00\n";
    let (code, out, _) = check(&["f32_mulAdd"], Some(line.as_bytes()));
    assert_eq!(code, 1, "{out}");
}

/// Exit status 2 and one line on stderr, `error: ...`, that contains `needle`.
fn assert_usage_error(args: &[&str], stdin: Option<&[u8]>, needle: &str) {
    let (code, out, err) = check(args, stdin);
    assert_eq!(code, 2, "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line:\n{err}");
    assert!(
        err.contains(needle),
        "{args:?}: wanted `{needle}` in\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn missing_file() {
    assert_usage_error(
        &["f32_mulAdd", "/nonexistent/dir/vectors.txt"],
        None,
        "cannot read /nonexistent/dir/vectors.txt",
    );
}

#[test]
fn malformed_lines_name_their_line() {
    // Good lines first: the error must carry the right line number.
    let cases = [
        (
            "3F800000 40000000 3F000000 40200000\n",
            "line 3: expected 5 fields",
        ),
        (
            "3F800000 4000000X 3F000000 40200000 00\n",
            "line 3: operand b `4000000X` is not a hex",
        ),
        (
            "3FF0000000000000 4000000000000000 3FE0000000000000 4004000000000000 00\n",
            "line 3: operand a `3FF0000000000000` has 16 hex digits; f32_mulAdd wants 8",
        ),
        (
            "3F800000 40000000 3F000000 40200000 1FF\n",
            "line 3: flags `1FF`",
        ),
    ];
    for (i, (bad, needle)) in cases.iter().enumerate() {
        let text = format!("{F32_OK}{F32_OK}{bad}{F32_OK}");
        let p = scratch(&format!("malformed{i}.txt"), &text);
        assert_usage_error(&["f32_mulAdd", p.to_str().unwrap()], None, needle);
    }
    // Invalid gzip data after a valid header.
    let mut junk = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0];
    junk.extend_from_slice(b"this is not deflate data at all");
    assert_usage_error(&["f32_mulAdd", "-"], Some(&junk), "read error");
}

#[test]
fn bad_options() {
    assert_usage_error(&["--bogus", "f32_mulAdd"], None, "unknown option `--bogus`");
    assert_usage_error(&["-rnear_maxMag", "f32_mulAdd"], None, "no PTX counterpart");
    assert_usage_error(&["-rsideways", "f32_mulAdd"], None, "unknown rounding mode");
    assert_usage_error(&[], None, "missing the function name");
    assert_usage_error(&["f128_mulAdd"], None, "unsupported function `f128_mulAdd`");
    assert_usage_error(&["f32_mulAdd", "a", "b"], None, "unexpected argument `b`");
    assert_usage_error(&["-rodd", "f32_mulAdd"], None, "no PTX counterpart");
    assert_usage_error(&["-r"], None, "needs a value");
    assert_usage_error(
        &["-rmin", "-r", "max", "f32_mulAdd"],
        None,
        "more than once",
    );
    assert_usage_error(
        &["--max-report", "x", "f32_mulAdd"],
        None,
        "`x` is not a count",
    );
    assert_usage_error(&["--max-report"], None, "needs a value");
    assert_usage_error(&["-tininessmiddle", "f32_mulAdd"], None, "unknown option");
    // The one line points at the help, which has the usage.
    assert_usage_error(
        &["--bogus", "f32_mulAdd"],
        None,
        "see `fma-model check --help`",
    );
    assert_usage_error(&["f128_mulAdd"], None, "see `fma-model check --help`");
}

#[test]
fn help_exits_zero() {
    for flag in ["--help", "-h", "-help"] {
        let (code, out, err) = check(&[flag], None);
        assert_eq!(code, 0, "{flag}: {err}");
        assert!(err.is_empty(), "{flag}: {err}");
        for needle in [
            "Usage: fma-model check [OPTIONS] <FUNCTION> [FILE]",
            "testfloat_gen",
            "-rnear_even",
            "-rminMag",
            "-rmin",
            "-rmax",
            "--strict-nan",
            "--max-report <N>",
            "-tininessafter",
            "gzipped",
            "Exit status",
            "Examples:",
            "fma-model check -rmin",
        ] {
            assert!(out.contains(needle), "{flag}: no `{needle}` in\n{out}");
        }
    }
}

#[test]
fn rounding_spellings_testfloat_and_clap() {
    // Vectors only right under -rmin/-rmax: 1 + 2^-30 is inexact in f32 (1*1 + 2^-30).
    let rm = "3F800000 3F800000 30800000 3F800000 01\n";
    let rp = "3F800000 3F800000 30800000 3F800001 01\n";
    for (spelling, text, want) in [
        (&["-rmin"][..], rm, "-rmin: 1 vectors, 0 mismatches"),
        (&["-r", "min"], rm, "-rmin: 1 vectors, 0 mismatches"),
        (&["--rounding", "min"], rm, "-rmin: 1 vectors, 0 mismatches"),
        (&["-rminMag"], rm, "-rminMag: 1 vectors, 0 mismatches"),
        (&["-rmax"], rp, "-rmax: 1 vectors, 0 mismatches"),
        (&["-r", "max"], rp, "-rmax: 1 vectors, 0 mismatches"),
        (&["-rnear_even"], rm, "-rnear_even: 1 vectors, 0 mismatches"),
        (
            &["-r", "near_even"],
            rm,
            "-rnear_even: 1 vectors, 0 mismatches",
        ),
        (&["-rmax"], rm, "-rmax: 1 vectors, 1 mismatches"),
        (&["-rmin"], rp, "-rmin: 1 vectors, 1 mismatches"),
    ] {
        let mut args = spelling.to_vec();
        args.push("f32_mulAdd");
        let (code, out, err) = check(&args, Some(text.as_bytes()));
        assert!(
            out.contains(want),
            "{args:?}: wanted `{want}` in {out}{err}"
        );
        let mismatch = want.contains(" 1 mismatches");
        assert_eq!(code, i32::from(mismatch), "{args:?}: {out}{err}");
    }
    // TestFloat's tininess options are accepted and change nothing.
    for tininess in ["-tininessafter", "-tininessbefore", "--tininess=after"] {
        let (code, out, err) = check(&[tininess, "-rmin", "f32_mulAdd"], Some(rm.as_bytes()));
        assert_eq!(code, 0, "{tininess}: {out}{err}");
    }
}

#[test]
fn no_vectors_is_an_error_not_a_pass() {
    let empty = scratch("empty.txt", "");
    assert_usage_error(
        &["f32_mulAdd", empty.to_str().unwrap()],
        None,
        &format!("no vectors in {}", empty.display()),
    );
    let blank = scratch("blank.txt", "\n   \n\t\n\r\n\n");
    assert_usage_error(
        &["f64_mulAdd", blank.to_str().unwrap()],
        None,
        "no vectors in",
    );
    assert_usage_error(&["f32_mulAdd"], Some(b""), "no vectors in <stdin>");
    assert_usage_error(&["f32_mulAdd", "-"], Some(b"\n\n"), "no vectors in <stdin>");
    // A gzip stream of nothing: the header is fine, there is just no text.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"").unwrap();
    let gz = gz.finish().unwrap();
    assert_usage_error(&["f32_mulAdd"], Some(&gz), "no vectors in <stdin>");
    // Nothing on stdout pretends to be a result.
    let (_, out, _) = check(&["f32_mulAdd", empty.to_str().unwrap()], None);
    assert!(!out.contains("0 mismatches"), "{out}");
}

#[test]
fn huge_or_control_tokens_are_cut_and_escaped() {
    let long = "x".repeat(1_000_000);
    let cases = [
        (
            format!("{long} 40000000 3F000000 40200000 00\n"),
            format!(
                "line 2: operand a `{}...` is not a hex number",
                "x".repeat(40)
            ),
        ),
        (
            format!("3F800000 40000000 3F000000 40200000 {long}\n"),
            format!("line 2: flags `{}...`", "x".repeat(40)),
        ),
        (
            "3F800000 \x1b[31m\x07 3F000000 40200000 00\n".to_string(),
            "line 2: operand b `\\u{1b}[31m\\u{7}` is not a hex number".to_string(),
        ),
        (
            "3F800000 40000000 3F000000 4020000\x1b 00\n".to_string(),
            "line 2: expected result `4020000\\u{1b}` is not a hex number".to_string(),
        ),
        (
            format!("3F800000 40000000 3F000000 40200000 00 {long}\n"),
            "line 2: expected 5 fields (a b c expected flags), found 6".to_string(),
        ),
    ];
    for (i, (bad, needle)) in cases.iter().enumerate() {
        let text = format!("{F32_OK}{bad}{F32_OK}");
        let p = scratch(&format!("huge{i}.txt"), &text);
        let (code, out, err) = check(&["f32_mulAdd", p.to_str().unwrap()], None);
        assert_eq!(code, 2, "case {i}: {out}");
        assert_eq!(err.lines().count(), 1, "case {i}: {} bytes", err.len());
        assert!(err.len() < 300, "case {i}: {} bytes of error", err.len());
        assert!(
            !err.contains('\x1b') && !err.contains('\x07'),
            "case {i}: {err:?}"
        );
        assert!(
            err.contains(needle.as_str()),
            "case {i}: wanted `{needle}` in {err}"
        );
    }
}

#[test]
fn overlong_line_is_an_error_without_echo() {
    let text = format!("{F32_OK}{}\n{F32_OK}", "3".repeat(3 << 20));
    let p = scratch("overlong.txt", &text);
    let (code, out, err) = check(&["f32_mulAdd", p.to_str().unwrap()], None);
    assert_eq!(code, 2, "{out}");
    assert_eq!(err.lines().count(), 1, "{} bytes", err.len());
    assert!(err.contains("line 2: line is too long"), "{err}");
    assert!(err.len() < 200, "{err}");
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_a_one_line_error() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let bad = || OsString::from_vec(vec![0x66, 0xff]);
    let run = |args: Vec<OsString>| {
        let o = Command::new(BIN)
            .arg("check")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        err
    };
    let err = run(vec![bad()]);
    assert!(
        err.contains("argument `f\\xff` is not valid UTF-8"),
        "{err}"
    );
    let err = run(vec!["-r".into(), bad(), "f32_mulAdd".into()]);
    assert!(
        err.contains("argument `f\\xff` is not valid UTF-8"),
        "{err}"
    );
    let mut opt = b"--".to_vec();
    opt.extend([0xff, 0xfe]);
    let err = run(vec![OsString::from_vec(opt), "f32_mulAdd".into()]);
    assert!(
        err.contains("argument `--\\xff\\xfe` is not valid UTF-8"),
        "{err}"
    );
    // A file name need not be UTF-8: this one just does not exist.
    let err = run(vec!["f32_mulAdd".into(), bad()]);
    assert!(err.contains("cannot read f\\xff: "), "{err}");
}

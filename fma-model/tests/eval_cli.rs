//! `fma-model eval` as a user runs it: the built binary, stdin or arguments in, stdout and the
//! exit code out. Expected results are written by hand from the IEEE encodings and the vmad
//! rule of S8 (noted next to each), not taken from the model.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fma-model"))
}

fn eval_stdin(input: &str) -> Output {
    let mut child = bin()
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fma-model");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // Feed stdin from a thread so a large output can never deadlock against a full input pipe.
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait for fma-model");
    feeder.join().unwrap().expect("write stdin");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

#[test]
fn only_bad_lines_give_errors_in_place_and_exit_1() {
    // No line reaches the datapath here. The bad `.target sm_99` leaves sm_13 in force.
    let input = "// header comment\n\
                 fma.rn.f32 0x1 0x2\n\
                 \n\
                 fma.rx.f32 0x1 0x2 0x3\n\
                 .target sm_13\n\
                 fma.rn.f32 0x0 0x0 0x0\n\
                 .target sm_99\n\
                 vmad.s32.s32.s32 -0x5 0x7 -0x3\n";
    let o = eval_stdin(input);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        stdout(&o),
        "error: 2: expected 3 operands, found 2 (fma takes a, b, c)\n\
         error: 4: unknown modifier `.rx`\n\
         error: 6: fma.f32 requires sm_20 or higher (target is sm_13)\n\
         error: 7: unknown target `sm_99`: sm_99 is not a PTX target\n\
         error: 8: vmad requires sm_20 or higher (target is sm_13)\n"
    );
}

#[test]
fn empty_input_prints_nothing_and_succeeds() {
    let o = eval_stdin("\n// nothing\n   \n.target sm_13\n");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(stdout(&o), "");
}

#[test]
fn help_is_not_an_error() {
    for flag in ["--help", "-h"] {
        let o = bin().args(["eval", flag]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert!(o.stderr.is_empty(), "{o:?}");
        let out = stdout(&o);
        for needle in [
            "Usage: fma-model eval [INSTRUCTION]...",
            "one instruction per line",
            "stdin",
            "hex operands",
            ".target sm_NN",
            "fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000",
            "error: <line number>: <reason>",
            "Exit status",
            "Examples:",
            "| fma-model eval",
        ] {
            assert!(out.contains(needle), "{flag}: no `{needle}` in\n{out}");
        }
    }
}

/// Exit status 2 and one line on stderr, `error: ...`, that contains `needle`; nothing on stdout.
fn assert_usage_error(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line:\n{err}");
    assert!(err.contains(needle), "wanted `{needle}` in {err}");
    assert!(o.stdout.is_empty(), "{o:?}");
}

#[test]
fn unknown_options_are_named() {
    let o = bin().args(["eval", "--frobnicate"]).output().unwrap();
    assert_usage_error(&o, "unknown option `--frobnicate`");
    assert_usage_error(&o, "see `fma-model eval --help`");
    let o = bin()
        .args(["eval", "fma.rn.f32 0x1 0x2 0x3", "-x"])
        .output()
        .unwrap();
    assert_usage_error(&o, "unknown option `-x`");
}

#[cfg(unix)]
#[test]
fn non_utf8_argument_is_a_one_line_error() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let o = bin()
        .arg("eval")
        .arg(OsString::from_vec(vec![0x66, 0xff]))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_usage_error(&o, "argument `f\\xff` is not valid UTF-8");
    let o = bin()
        .arg("eval")
        .arg("fma.rn.f32 0x1 0x2 0x3")
        .arg(OsString::from_vec(b"fma.rn.f32 0x1 0x2 0x\xff".to_vec()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_usage_error(&o, "is not valid UTF-8");
}

#[cfg(unix)]
#[test]
fn unreadable_stdin_is_a_one_line_error() {
    // Reading a directory fails (EISDIR) on the first read.
    let dir = std::fs::File::open(env!("CARGO_MANIFEST_DIR")).unwrap();
    let o = bin().arg("eval").stdin(Stdio::from(dir)).output().unwrap();
    assert_usage_error(&o, "cannot read stdin");
}

#[test]
fn huge_or_control_tokens_are_cut_and_escaped() {
    let long = "x".repeat(1_000_000);
    let cases = [
        (
            format!("fma.rn.f32 0x1 {long} 0x3"),
            format!("error: 1: operand b `{}...`", "x".repeat(40)),
        ),
        (
            format!("{long} 0x1 0x2 0x3"),
            format!("error: 1: unknown instruction `{}...`", "x".repeat(40)),
        ),
        (
            format!("fma.rn.{long}.f32 0x1 0x2 0x3"),
            format!("error: 1: unknown modifier `.{}...`", "x".repeat(39)),
        ),
        (
            format!(".target {long}"),
            format!("error: 1: unknown target `{}...`", "x".repeat(40)),
        ),
        (
            format!(".{long}"),
            "error: 1: unknown directive `.xxx".into(),
        ),
        (
            "fma.rn.f32 0x1\x1b[31m 0x2 0x3".into(),
            "error: 1: operand a `0x1\\u{1b}[31m` is not a hex literal".into(),
        ),
        (
            "fma.rn.f32\x07 0x1 0x2 0x3".into(),
            "error: 1: unknown modifier `.f32\\u{7}`".into(),
        ),
        (
            ".target sm_1\x1b[2J".into(),
            "error: 1: unknown target `sm_1\\u{1b}[2J`".into(),
        ),
    ];
    for (i, (line, needle)) in cases.iter().enumerate() {
        let o = eval_stdin(&format!("fma.rn.f32 0x0 0x0 0x0\n{line}\n"));
        let out = stdout(&o);
        // The error replaces line 2 of 2.
        let out = out.replacen("0x00000000\n", "", 1);
        let want = needle.replace("error: 1: ", "error: 2: ");
        assert_eq!(
            o.status.code(),
            Some(1),
            "case {i}: {} bytes out",
            out.len()
        );
        assert_eq!(out.lines().count(), 1, "case {i}: {} bytes out", out.len());
        assert!(out.len() < 300, "case {i}: {} bytes", out.len());
        assert!(
            !out.contains('\x1b') && !out.contains('\x07'),
            "case {i}: {out:?}"
        );
        assert!(out.starts_with(&want), "case {i}: wanted `{want}` in {out}");
        assert!(!out.contains(&"x".repeat(100)), "case {i}");
    }
    // The same through an argument.
    let o = bin()
        .args([
            "eval",
            &format!("fma.rn.f32 0x1 0x{} 0x3", "y".repeat(100_000)),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = stdout(&o);
    assert!(out.starts_with("error: 1: operand b `0x"), "{out}");
    assert!(out.len() < 300, "{} bytes", out.len());
}

#[test]
fn overlong_line_is_an_error_for_that_line() {
    let input = format!(
        "fma.rn.f32 0x0 0x0 0x0\n{}\nfma.rn.f32 0x0 0x0 0x0\n",
        "x".repeat(3 << 20)
    );
    let o = eval_stdin(&input);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{} bytes", out.len());
    assert_eq!(lines[0], "0x00000000");
    assert!(
        lines[1].starts_with("error: 2: line is too long"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "0x00000000");
}

#[test]
fn results_in_order_with_errors_in_place() {
    let input = "\
fma.rn.f32 0x3f800000 0x3f800000 0x00000000
// 1*1+0 = 1.0
fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000
fma.rn.f64 0x4000000000000000 0x4008000000000000 0x3ff0000000000000
fma.rn.f32 0x1 0x2
add.f32 0x3f800000 0x40000000
sub.f32 0x3f800000 0x40000000
mul.f32 0x40000000 0x40400000
fma.rn.f32x2 0x4000000040400000 0x3f8000003f800000 0x0000000000000000
vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 0x00000003
vmad.s32.s32.s32 -0x5 0x7 0x3
";
    let o = eval_stdin(input);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let want = [
        "0x3f800000",         // 1.0
        "0x00000000",         // ftz: a (subnormal) -> +0; +0*1 + -0 = +0 (not .rm)
        "0x401c000000000000", // 2*3+1 = 7.0
        "error: 5: expected 3 operands, found 2 (fma takes a, b, c)",
        "0x40400000",         // 1+2 = 3.0
        "0xbf800000",         // 1-2 = -1.0
        "0x40c00000",         // 2*3 = 6.0
        "0x4000000040400000", // lane0 3*1+0 = 3.0, lane1 2*1+0 = 2.0
        "0x0000969a",         // (0x5678*0xdef0 + 3) >> 15 = 0x4b4d2083 >> 15
        "0xffffffe0",         // -(5*7) + 3 = -32
    ];
    assert_eq!(stdout(&o), want.join("\n") + "\n");
}

#[test]
fn target_lines_switch_the_target() {
    let input = "\
add.f32 0x00000001 0x00000000
.target sm_13
add.f32 0x00000001 0x00000000
mad.f32 0x3f800000 0x40000000 0x3f800000
fma.rn.f32 0x3f800000 0x3f800000 0x00000000
.target sm_100
add.f32 0x00000001 0x00000000
mad.f32 0x3f800000 0x40000000 0x3f800000
";
    let o = eval_stdin(input);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let want = [
        "0x00000001", // sm_100: subnormal + 0 stays subnormal
        "0x00000000", // sm_13: single precision flushes the subnormal input
        "0x40400000", // sm_13 mad.f32: 1*2+1 = 3.0 (exact, so truncation does not matter)
        "error: 5: fma.f32 requires sm_20 or higher (target is sm_13)",
        "0x00000001",
        "error: 8: mad.f32 on sm_20+ requires a rounding modifier (.rn, .rz, .rm or .rp; target is sm_100)",
    ];
    assert_eq!(stdout(&o), want.join("\n") + "\n");
}

#[test]
fn all_good_lines_exit_0() {
    let input = "\
mul.rn.f32 0x80000000 0x3f800000
mul.rn.f32 0x00000000 0x3f800000
mul.rm.f32 0x80000000 0x3f800000
add.f32.f16 0x3c00 0x3f800000
fma.rn.f32.bf16 0x3f80 0x4000 0x00000000
fma.rn.sat.f32 0x40000000 0x40000000 0x00000000
fma.rn.f32 0x7fc00001 0x3f800000 0x00000000
fma.rn.f64 0x7ff0000000000001 0x3ff0000000000000 0x0
sub.f64 0x3ff0000000000000 0x3ff0000000000000
sub.rm.f64 0x3ff0000000000000 0x3ff0000000000000
vmad.s32.s32.s32 -0x5 -0x7 -0x3
vmad.u32.u32.u32.sat 0xffffffff 0xffffffff 0x0
vmad.s32.s32.s32.sat 0x7fffffff 0x7fffffff 0x0
vmad.u32.u32.u32.po 0x2 0x3 0x4
vmad.s32.s32.s32 0x80000000.b3 0x1 0x0
fma.rn.f32 0f3f800000 0f40000000 0f3f800000
";
    let o = eval_stdin(input);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let want = [
        "0x80000000",         // -0*1 + (-0) = -0
        "0x00000000",         // +0*1 + (-0) = +0 under .rn
        "0x80000000",         // -0*1 + (+0) = -0 under .rm
        "0x40000000",         // f16 1.0 + 1.0 = 2.0
        "0x40000000",         // bf16 1.0 * bf16 2.0 + 0 = 2.0
        "0x3f800000",         // 2*2 = 4 saturates to 1.0
        "0x7fffffff",         // S1: every f32 NaN result is 0x7fffffff
        "0x7ff8000000000001", // S2: the one NaN operand (a), quieted, payload kept
        "0x0000000000000000", // 1-1 = +0
        "0x8000000000000000", // 1-1 = -0 under .rm
        "0x00000020",         // (-5)*(-7) - 3 = 32: the two negations cancel
        "0x00000001",         // S8 (sm_90): whole words are s32, (-1)*(-1) = 1, in range
        "0x7fffffff",         // 0x3fffffff00000001 clamps to S32_MAX
        "0x0000000b",         // 2*3+4+1 = 11
        "0xffffff80",         // byte 3 of 0x80000000 is 0x80 = -128 signed; *1 = -128
        "0x40400000",         // 1*2+1 = 3.0, float literal spelling
    ];
    assert_eq!(stdout(&o), want.join("\n") + "\n");
}

#[test]
fn arguments_are_instructions_numbered_by_position() {
    let o = bin()
        .args([
            "eval",
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000",
            ".target sm_13",
            "mad.rn.f32 0x0 0x0 0x0",
            "fma.rn.f64 0x3ff0000000000000 0x3ff0000000000000 0x3ff0000000000000",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        stdout(&o),
        "0x40400000\n\
         error: 3: rounding modifiers on mad.f32 require sm_20 or higher (`.rn` given, target is sm_13)\n\
         0x4000000000000000\n"
    );
}

#[test]
fn what_ptxas_refuses_is_a_bad_line_and_what_it_takes_evaluates() {
    // ptxas refuses legacy mad.f64 after sm_1x and add.f32x2 before sm_100; it takes either
    // vmad dtype and .po with -a, -b (S8). Results by hand: 1.0 * 1.0 + 0 = 1.0;
    // -2^31 * 2 clamps to S32_MIN (the final result is signed, dtype .u32 notwithstanding);
    // (-2) * (-3) + 4 + 1 = 11.
    let input = "mad.f64 0x0 0x0 0x0\n\
                 .target sm_90\n\
                 add.rn.f32x2 0x0 0x0\n\
                 vmad.u32.s32.u32.sat 0x80000000 0x2 0x0\n\
                 vmad.u32.u32.u32.po -0x2 -0x3 0x4\n\
                 .target sm_13\n\
                 mad.f64 0x3ff0000000000000 0x3ff0000000000000 0x0\n";
    let o = eval_stdin(input);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        stdout(&o),
        "error: 1: mad.f64 requires a rounding modifier (.rn, .rz, .rm or .rp) on sm_20 and \
         higher (legacy mad.f64 is sm_1x only; target is sm_100)\n\
         error: 3: add.f32x2 requires sm_100 or higher (target is sm_90)\n\
         0x80000000\n\
         0x0000000b\n\
         0x3ff0000000000000\n"
    );
}

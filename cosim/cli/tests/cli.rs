//! The `fma-cosim` command line as a new user meets it: help, version, and every bad input a
//! one-line error with exit status 2 (never a panic, an abort, or a run that checks nothing).

use crate::common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{cosim, scratch, Vcd};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
}

/// `--a --b --c` all zero.
const ZEROS: [&str; 3] = ["0", "0", "0"];

/// `replay --ctrl CTRL --a A --b B --c C EXTRA`: one operation replayed.
fn replay<'a>(ctrl: &'a str, [a, b, c]: [&'a str; 3], extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["replay", "--ctrl", ctrl, "--a", a, "--b", b, "--c", c];
    args.extend_from_slice(extra);
    args
}

/// `run --count COUNT EXTRA`.
fn run_count<'a>(count: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "--count", count];
    args.extend_from_slice(extra);
    args
}

/// `wave --vcd VCD LINES`: the operations `lines` written to `vcd`.
fn wave<'a>(vcd: &'a Path, lines: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["wave", "--vcd", vcd.to_str().unwrap()];
    args.extend_from_slice(lines);
    args
}

/// Asserts a one-line error containing `want`, exit 2, and nothing on stdout.
fn rejects(args: &[&str], want: &str) {
    let (code, out, err) = cosim(args);
    assert_eq!(code, 2, "{args:?}: exit {code}\n{out}{err}");
    assert!(err.contains(want), "{args:?}: wanted `{want}` in: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: ran anyway: {out}");
}

#[test]
fn help_and_version_go_to_stdout_with_status_0() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["run", "--help"],
        &["run", "-h"],
        &["replay", "--help"],
        &["wave", "--help"],
        &["merge", "--help"],
        &["bench", "--help"],
        &["variants", "--help"],
        &["help", "run"],
    ] {
        let (code, out, err) = cosim(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains("Usage: fma-cosim"), "{args:?}: {out}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    let (code, out, _) = cosim(&["run", "--help"]);
    assert_eq!(code, 0);
    for opt in [
        "--jobs",
        "--shard",
        "--json",
        "--junit",
        "--max-divergences",
        "--max-examples",
        "--chunk-size",
    ] {
        assert!(out.contains(opt), "run --help lacks {opt}");
    }
    let (code, out, _) = cosim(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("fma-cosim 0.1.0 (Verilator 5."), "{out}");
}

#[test]
fn bad_numbers_ranges_and_lists_are_one_line_errors() {
    rejects(&["run", "--count", "lots"], "`lots` is not a number");
    rejects(&["run", "--count", "0"], "out of range");
    rejects(&["run", "--count", "3"], "below the number of families (9)");
    rejects(&["run", "--max-divergences", "0"], "out of range");
    rejects(
        &["run", "--max-examples", "0"],
        "out of range: 1 to 1000000",
    );
    rejects(
        &["run", "--max-examples", "1000001"],
        "out of range: 1 to 1000000",
    );
    rejects(&["run", "--max-examples", "ten"], "`ten` is not a number");
    rejects(&["run", "--batch", "0"], "out of range");
    rejects(&["run", "--batch", "100000000000"], "out of range");
    rejects(&["run", "--batch", "18446744073709551615"], "out of range");
    rejects(
        &["run", "--batch", "18446744073709551616"],
        "is not a number",
    );
    rejects(&["run", "--window", "1000000000"], "out of range");
    rejects(&["run", "--jobs", "0"], "out of range");
    rejects(&["run", "--chunk-size", "0"], "out of range");
    rejects(&["bench", "--count", "5000000000"], "out of range");
    rejects(&["bench", "--count", "0"], "out of range");
    rejects(&["run", "--filter", ""], "empty family name");
    rejects(&["run", "--filter", ","], "empty family name");
    rejects(&["run", "--filter", "f32,,vmad"], "empty family name");
    rejects(&["run", "--filter", "fma.f16"], "unknown family `fma.f16`");
    rejects(&["run", "--shard", "5/4"], "expected K/N");
    rejects(&["run", "--shard", "0/4"], "expected K/N");
    rejects(
        &["run", "--frobnicate", "1"],
        "unknown option `--frobnicate`",
    );
    rejects(&["run", "--rtl", "nope"], "no RTL variant `nope`");
    rejects(
        &["run", "--golden", "oracle"],
        "expected `model` or `rtl:<variant>`",
    );
    rejects(&["walk"], "unknown command `walk`");
    rejects(&["merge"], "missing");
}

/// No command (or `dut` without its own) prints the usage as `--help` does, but on stderr and
/// with status 2.
#[test]
fn no_command_prints_the_usage_on_stderr_with_status_2() {
    for (none, help) in [(&[][..], &["--help"][..]), (&["dut"], &["dut", "--help"])] {
        let (_, usage, _) = cosim(help);
        let (code, out, err) = cosim(none);
        assert_eq!(code, 2, "{none:?}: {err}");
        assert!(out.is_empty(), "{none:?}: {out}");
        assert!(err.contains("Usage: fma-cosim"), "{none:?}: {err}");
        assert_eq!(err, usage, "{none:?}");
    }
}

#[test]
fn replay_checks_its_stream_before_running() {
    let base = ["replay", "--seed", "1", "--filter", "vmad", "--count", "5"];
    rejects(&base, "missing --index");
    rejects(
        &[&base[..], &["--index", "1000"]].concat(),
        "past the end of the stream",
    );
    rejects(
        &[&base[..], &["--index", "10"]].concat(),
        "past the end of the stream",
    );
    rejects(
        &[&base[..], &["--index", "3", "--window", "10"]].concat(),
        "reaches before cycle 0",
    );
    rejects(&replay("0x8000000", ZEROS, &[]), "wider than 27 bits");
    rejects(&replay("fma.rx.f32", ZEROS, &[]), "--ctrl");
    // A word no instruction encodes to: a reserved code (`kind` 7), or fields no instruction
    // sets together (f32 with vmad's negation of a*b), as the model's rule judges them.
    use ptxfma_model::ctrl::{legal::is_legal, Ctrl};
    rejects(&replay("0x7ffffff", ZEROS, &[]), "field `kind` holds 7");
    assert!(is_legal(&Ctrl::decode(0x9)) && !is_legal(&Ctrl::decode(0x1000)));
    rejects(
        &replay("0x1000", ZEROS, &[]),
        "no PTX instruction encodes to",
    );
    // clap lists several conflicting options on lines of their own: the line names them all.
    rejects(
        &replay("0x9", ZEROS, &["--seed", "1"]),
        "'--seed <SEED>' cannot be used with '--ctrl <CTRL>', '--a <A>', '--b <B>', '--c <C>'",
    );
    // A drain cycle is not reported as an operation.
    let fams = ptxfma_cosim_engine::stream::Families::parse("vmad").unwrap();
    let last = ptxfma_cosim_engine::stream::Stream::new(1, &fams, 5).count() - 1;
    let last = last.to_string();
    let (code, out, err) = cosim(&[&base[..], &["--index", &last]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("drain cycle"), "{out}");
    assert!(!out.contains("gives d"), "{out}");
}

#[test]
fn unwritable_waves_dir_is_refused_before_the_run_or_replay() {
    let file = common::plain_file("cli-unwritable");
    let waves = file.join("waves");
    let waves = waves.to_str().unwrap();
    rejects(
        &run_count("10", &["--golden", "rtl:default", "--waves-dir", waves]),
        "waves directory",
    );
    rejects(
        &replay("0x9", ["0x3f800000", "0", "0"], &["--waves-dir", waves]),
        "waves directory",
    );
    let json = file.join("r.json");
    rejects(
        &run_count("70", &["--json", json.to_str().unwrap()]),
        "directory of output file",
    );
}

#[test]
fn replay_takes_a_ptx_spelling() {
    let (code, out, err) = cosim(&replay(
        "fma.rn.f32",
        ["0x3f800000", "0x40000000", "0x3f800000"],
        &[],
    ));
    assert_eq!(code, 0, "{err}");
    // 1 * 2 + 1 = 3.
    assert!(out.contains("0x40400000"), "{out}");
}

#[test]
fn non_utf8_arguments_are_an_error_not_a_panic() {
    for args in [
        vec![
            OsString::from("run"),
            OsString::from("--filter"),
            OsString::from_vec(vec![0x66, 0xff]),
        ],
        vec![OsString::from_vec(vec![0xfe, 0x72])],
        vec![
            OsString::from("run"),
            OsString::from("--waves-dir"),
            OsString::from_vec(vec![0x66, 0xff]),
            OsString::from("--count"),
            OsString::from("x"),
        ],
    ] {
        let out = bin().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn a_huge_or_hostile_token_is_cut_and_escaped() {
    // The longest single argument Linux passes (MAX_ARG_STRLEN) is 128 KiB.
    let huge = "x".repeat(100_000);
    for args in [
        vec!["run", "--filter", huge.as_str()],
        vec!["run", "--count", huge.as_str()],
        vec!["run", huge.as_str()],
        replay(&huge, ZEROS, &[]),
    ] {
        let (code, _, err) = cosim(&args);
        assert_eq!(code, 2);
        assert!(err.len() < 400, "{} bytes of error", err.len());
        assert_eq!(err.trim_end().lines().count(), 1);
    }
    let (code, _, err) = cosim(&["run", "--filter", "f32\x1b[31m\x07"]);
    assert_eq!(code, 2);
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains("\\u{1b}"), "{err:?}");
}

#[test]
fn wave_writes_any_sequence() {
    let dir = scratch("cli-wave");
    let vcd = dir.join("seq.vcd");
    let (code, out, err) = cosim(&wave(
        &vcd,
        &[
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000",
            "vmad.u32.u32.u32 0x5.b0, 0x3, 0x1",
            ".target sm_13",
            "mad.f32 0x3f800000 0x3f800000 0x00000000",
        ],
    ));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no divergence"), "{out}");
    assert!(out.contains("0x40400000"), "{out}");
    // With no divergence the save file opens on the last operation.
    let save = vcd.with_extension("gtkw");
    assert!(
        out.contains(&format!("gtkwave {}", save.display())),
        "{out}"
    );
    assert!(std::fs::read_to_string(&save)
        .unwrap()
        .contains("cosim.in_instr[383:0]"));
    let mut v = Vcd::open(&vcd);
    assert!(v.has_scope(&["TOP", "ptxfma_top"]));
    assert!(v.has_scope(&["model", "s1_q"]));
    let d = v.changes(&["TOP"], "out_d_o");
    assert!(
        d.iter()
            .any(|(_, b)| u64::from_str_radix(b, 2).ok() == Some(0x4040_0000)),
        "{d:?}"
    );
    let (code, _, err) = cosim(&wave(&vcd, &["fma.rn.f33 0x1 0x2 0x3"]));
    assert_eq!(code, 2);
    assert!(err.contains("line 1"), "{err}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "seq.vcd" && n != "seq.gtkw")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn ctrl_c_stops_cleanly_with_a_partial_summary() {
    let dir = scratch("cli-sigint");
    let json = dir.join("r.json");
    let child = bin()
        .args(run_count(
            "500000000",
            &["--progress", "lines", "--waves-dir"],
        ))
        .arg(&dir)
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let it start the workers, then interrupt.
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "took {:?} to stop",
        t.elapsed()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stdout}{stderr}");
    assert!(stdout.contains("INTERRUPTED"), "{stdout}");
    assert!(stdout.contains("total"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["passed"], false);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        names,
        vec![OsString::from("r.json")],
        "left behind: {names:?}"
    );
}

/// Ctrl-C while `wave` writes its waveform (a command without a run to stop): the
/// temporaries and the directory it made go, one line, exit 130 (they were left, the process
/// killed by the signal).
#[test]
fn ctrl_c_while_a_waveform_is_written_leaves_nothing() {
    let dir = scratch("cli-wave-sigint");
    let out_dir = dir.join("o");
    let mut child = bin()
        .arg("wave")
        .arg("--vcd")
        .arg(out_dir.join("w.vcd"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let line = "fma.rn.f64 0x3ff0000000000001 0xbff0000000000000 0x3ff0000000000000\n";
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(line.repeat(40_000).as_bytes());
    });
    // Interrupted once the waveform is being written.
    let t = Instant::now();
    while std::fs::read_dir(&out_dir).map_or(true, |mut d| d.next().is_none()) {
        assert!(t.elapsed() < Duration::from_secs(60), "no waveform begun");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    feed.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(names.is_empty(), "left behind: {names:?}");
}

#[test]
fn the_waveform_can_be_fst_with_the_same_signals_as_the_vcd() {
    let dir = scratch("cli-fst");
    let lines = [
        "fma.rn.f32 0x3f800000 0x40000000 0x3f800000",
        "fma.rz.f64 0x3ff0000000000001 0xbff0000000000000 0x3ff0000000000000",
    ];
    let mut waves = Vec::new();
    for name in ["w.vcd", "w.fst"] {
        let path = dir.join(name);
        let (code, out, err) = cosim(&wave(&path, &lines));
        assert_eq!(code, 0, "{out}{err}");
        waves.push(Vcd::open(&path));
    }
    let fst_bytes = std::fs::metadata(dir.join("w.fst")).unwrap().len();
    let vcd_bytes = std::fs::metadata(dir.join("w.vcd")).unwrap().len();
    assert!(
        fst_bytes < vcd_bytes,
        "FST {fst_bytes} bytes, VCD {vcd_bytes}"
    );
    for (path, name) in [
        (&["TOP"][..], "out_d_o"),
        (&["TOP"], "clk_i"),
        (&["TOP", "ptxfma_top", "s2_q", "lane1"], "eref"),
        (&["model", "s2_q", "lane1"], "eref"),
        (&["model", "out_q"], "d"),
        (&["cosim"], "mismatch"),
    ] {
        // Before its first value a signal is x in both formats; FST says so explicitly.
        let known = |v: Vec<(u64, String)>| -> Vec<(u64, String)> {
            v.into_iter()
                .skip_while(|(_, b)| b.chars().all(|c| c == 'x'))
                .collect()
        };
        let a = known(waves[0].changes(path, name));
        let b = known(waves[1].changes(path, name));
        assert!(!a.is_empty(), "{name}");
        assert_eq!(a, b, "{path:?}.{name}");
    }
}

/// An output that is not a regular file (a device such as /dev/null, a named pipe) is refused
/// before the run: outputs are renamed into place, which would replace the device.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_device_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    for opt in ["--json", "--junit", "--coverage", "--html"] {
        rejects(&run_count("10", &[opt, "/dev/null"]), "not a regular file");
    }
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device(), "/dev/null was replaced");
}

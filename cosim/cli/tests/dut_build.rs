//! `fma-cosim dut build` itself: manifests and designs that cannot work are one-line errors
//! with exit 2, Ctrl-C and SIGTERM leave nothing behind, `--no-trace --cxx-opt 0` checks alike,
//! and the Verilator runtime is compiled once and then taken from the cache.

use crate::common;

use std::path::Path;

use common::cosim;
use common::outside::{one_line_error, Outside, FORMS};

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
    let alt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rtl/alt");
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

    // A define is a macro name and a one-line value: a flag, a space, or a line break (which
    // would start a command of `dut prove`'s Yosys script) is refused before anything runs.
    for (define, says) in [
        ("-Mdir", "\"-Mdir\" is not a macro name"),
        ("A B", "\"A B\" is not a macro name"),
        ("X=1\\n!touch pwned", "a define's value is one line"),
    ] {
        let extra = format!("defines = [\"{define}\"]");
        let line = one_line_error(build(&d.manifest("def.toml", &extra, "")));
        assert!(
            line.contains("design.defines: ") && line.contains(says),
            "{line}"
        );
    }

    // A manifest that never ends is refused, not read until memory runs out.
    let line = one_line_error(d.build("/dev/zero", "o"));
    assert!(line.contains("over 64 MiB: not a manifest"), "{line}");

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
            .args(["--no-trace", "--cxx-opt", "0"])
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

/// Whether `pid` has ended and awaits its parent (a zombie, reaped by whoever adopted it).
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s[s.rfind(')')? + 1..]
                .split_whitespace()
                .next()
                .map(|st| st == "Z")
        })
        .unwrap_or(false)
}

/// `dut build` killed outright (SIGKILL: no handler runs) while it compiles: none of its
/// tools is left running, orphaned, a short while after (no process of their groups is left
/// but as a zombie, which its new parent reaps).
#[test]
fn a_build_killed_outright_leaves_no_tool_running() {
    use std::time::{Duration, Instant};
    let d = Outside::new("sigkill");
    let manifest = d.manifest("dut.toml", "", FORMS);
    let cache = d.path("cache");
    let mut build = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"))
        .args(["dut", "build", &manifest, "--out", &d.path("build")])
        // No cached runtime: it is one of the units compiled.
        .env("PTXFMA_DUT_CACHE_DIR", &cache)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = build.id();
    let deadline = Instant::now() + Duration::from_secs(300);
    // Compiling once a child compiles a unit (its `-c`), and no child is between fork and exec.
    let tools = loop {
        let tools = children_of(pid);
        let forking = tools
            .iter()
            .any(|t| t.2.starts_with(env!("CARGO_BIN_EXE_fma-cosim")));
        if !forking && tools.iter().any(|t| t.2.contains(" -c ")) {
            break tools;
        }
        assert!(
            build.try_wait().unwrap().is_none() && Instant::now() < deadline,
            "the build ended or stalled before it compiled"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    build.kill().unwrap();
    build.wait().unwrap();
    let groups: Vec<u32> = tools.iter().map(|t| t.1).collect();
    let settle = Instant::now() + Duration::from_secs(5);
    loop {
        let left: Vec<(u32, u32, u32)> = processes()
            .into_iter()
            .filter(|p| groups.contains(&p.2) && !zombie(p.0))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < settle,
            "left running after SIGKILL: {left:?} of {tools:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

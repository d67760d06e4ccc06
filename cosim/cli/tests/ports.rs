//! Ports-only checking (`--compare ports`) of a design with another microarchitecture: the
//! second f32 FMA in `rtl/alt/` (variant `alt`, latency 6 register stages against the pipe's
//! 4, no stage registers on ports) must pass against the model, and its injected fault
//! (`alt_fault`, +define+FAULT_ALT_STICKY_RP: `.rp` ignores the sticky bits) must be caught,
//! with a report, JSON, JUnit and a waveform.
//!
//! Needs the `alt-design` feature (`cargo test -p ptxfma-cosim --features alt-design --test
//! ports`; `make test` runs it).

use crate::common;

use std::path::PathBuf;

use common::{ascii, cosim, has_signal, num, read_json, run_in, save_file_signals, scratch, Vcd};
use ptxfma_cosim_outputs::results::RunResult;

/// `fma-cosim run --rtl RTL --compare ports --filter f32 ARGS`, waveforms to `dir`.
fn ports_f32(dir: &std::path::Path, rtl: &str, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["--rtl", rtl, "--compare", "ports", "--filter", "f32"];
    all.extend_from_slice(args);
    run_in(dir, &all)
}

#[test]
fn the_alt_design_passes_ports_only_checking() {
    let dir = scratch("ports-alt");
    let json = dir.join("r.json");
    let (code, out, err) = ports_f32(
        &dir,
        "alt",
        &[
            "--count",
            "200000",
            "--seed",
            "3",
            "--jobs",
            "2",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ports only (latency bound 64)"), "{out}");
    let r = read_json::<RunResult>(&json);
    assert!(r.passed);
    assert_eq!(r.total_vectors(), 200_000);
    assert_eq!(r.params.compare, "ports");
    assert_eq!(r.params.latency_bound, Some(64));
}

#[test]
fn the_pipe_passes_ports_only_checking_on_every_family() {
    let dir = scratch("ports-default");
    let (code, out, err) = cosim(&[
        "run",
        "--compare",
        "ports",
        "--count",
        "21000",
        "--latency-bound",
        "4",
        "--waves-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
}

/// The fault's report, read back from its text.
struct Report {
    what: String,
    instruction: String,
    expected: u64,
    retired: u64,
    issued: u64,
    retired_cycle: u64,
    waveform: PathBuf,
    edge_time: u64,
}

fn parse(out: &str) -> Report {
    let line = |label: &str| -> String {
        let l = out
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"));
        l.trim_start()[label.len()..].trim().to_string()
    };
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let result = line("result d");
    let words: Vec<&str> = result.split_whitespace().collect();
    let cycles = line("cycles");
    let c: Vec<&str> = cycles.split([' ', ',', '(']).collect();
    // `cosim.mismatch rises at N ns`: cycle N's edge, at N ns (in ps in the waveform).
    let edge = out
        .split("cosim.mismatch rises at ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no marker time in:\n{out}"));
    // The waveform line is the command that opens its save file; the waveform follows.
    let open = line("waveform");
    let save = PathBuf::from(open.strip_prefix("gtkwave ").expect("a gtkwave command"));
    let waveform = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("waveform"))
        .nth(1)
        .and_then(|l| l.trim().split_once(": "))
        .map(|(p, _)| PathBuf::from(p))
        .unwrap_or_else(|| panic!("no waveform path in:\n{out}"));
    assert_eq!(save, waveform.with_extension("gtkw"));
    assert!(save.is_file(), "{}", save.display());
    Report {
        what: line("what"),
        instruction: line("instruction"),
        expected: hex(words[1]),
        retired: hex(words[4]),
        issued: c[1].parse().unwrap(),
        retired_cycle: c[4].parse().unwrap(),
        waveform,
        edge_time: edge.parse::<u64>().unwrap() * 1000,
    }
}

#[test]
fn the_injected_fault_is_caught_with_report_json_junit_and_waveform() {
    let dir = scratch("ports-fault");
    let json = dir.join("r.json");
    let junit = dir.join("r.xml");
    let page = dir.join("r.html");
    let cov = dir.join("cov.json");
    let (code, out, err) = ports_f32(
        &dir,
        "alt_fault",
        &[
            "--count",
            "20000",
            "--seed",
            "5",
            "--max-divergences",
            "20",
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
            "--coverage",
            cov.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "the fault was not caught:\n{out}{err}");
    let r = parse(&out);
    assert_eq!(r.what, "wrong result (out_d_o)");
    assert!(r.instruction.contains(".rp"), "{}", r.instruction);
    assert_ne!(r.expected, r.retired);
    // Six register stages: latency 6 (docs/dut.md, "Latency"), handed over at the edge ending
    // the sixth cycle after the issue cycle.
    assert_eq!(r.retired_cycle, r.issued + 6, "{out}");
    assert!(
        out.contains("--compare ports") && out.contains("--rtl alt_fault"),
        "{out}"
    );

    // Every divergence is an .rp operation's result, in the JSON and the JUnit XML; all 20 are
    // counted, the first 10 of each signature listed.
    let res = read_json::<RunResult>(&json);
    assert!(!res.passed);
    assert_eq!(res.divergence_count(), 20);
    assert_eq!(res.signatures.iter().map(|s| s.count).sum::<usize>(), 20);
    assert_eq!(
        res.divergences.len(),
        res.signatures
            .iter()
            .map(|s| s.count.min(10))
            .sum::<usize>()
    );
    for d in &res.divergences {
        assert_eq!((d.stage.as_str(), d.field.as_str()), ("ports", "out_d_o"));
        assert!(d.instruction.contains(".rp"), "{}", d.instruction);
        assert!(
            d.signature.starts_with("ports out_d_o | f32 | fma.rp"),
            "{}",
            d.signature
        );
    }
    // The JSON names the waveform and its marked edge as the report does.
    assert_eq!(
        res.divergences[0].waveform.as_deref().map(PathBuf::from),
        Some(r.waveform.clone())
    );
    assert_eq!(res.divergences[0].waveform_mismatch_time, Some(r.edge_time));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("ports out_d_o | f32 | fma.rp"), "{xml}");
    the_page_carries_the_ports_divergence(&out, &res, &r, &page);

    // The waveform holds the design's own hierarchy; at the marked edge its result port shows
    // the wrong result.
    assert!(r.waveform.starts_with(&dir), "{}", r.waveform.display());
    let mut v = Vcd::open(&r.waveform);
    assert!(v.has_scope(&["TOP", "ptxfma_alt_top"]));
    let rises: Vec<u64> = v
        .changes(&["cosim"], "mismatch")
        .into_iter()
        .filter(|(_, b)| b == "1")
        .map(|(t, _)| t)
        .collect();
    assert_eq!(rises, vec![r.edge_time]);
    assert_eq!(
        num(&v.value_at(&["TOP"], "out_d_o", r.edge_time)),
        r.retired
    );
    // The marked edge is the one that puts the result on out_d_o, in the cycle before the one
    // whose ending edge hands it over (its retire cycle).
    assert_eq!(
        num(&v.value_at(&["cosim"], "cycle", r.edge_time)) + 1,
        r.retired_cycle
    );

    // The save file opens on the retirement, named marker A on the issue (what its groups
    // show there: the_ports_waveform_pairs_results_by_tag_and_shows_the_issue_as_it_was): the
    // design has no stage registers to compare, so no register of the model is shown as
    // differing.
    let save = std::fs::read_to_string(r.waveform.with_extension("gtkw")).unwrap();
    assert_eq!(markers(&save), [r.edge_time, r.issued * 1000], "{save}");
    let groups: Vec<&str> = save.lines().filter(|l| l.starts_with('-')).collect();
    assert!(
        !groups.iter().any(|g| g.starts_with("-s1_q.")),
        "{groups:?}"
    );
    let names = save_file_signals(&save);
    let missing: Vec<&String> = names.iter().filter(|n| !has_signal(&v, n)).collect();
    assert!(missing.is_empty(), "{missing:?}");
    let issue = r.issued * 1000;
    assert_eq!(
        ascii(&v.value_at(&["cosim"], "in_instr", issue)),
        r.instruction.split_whitespace().next().unwrap()
    );
}

/// The run's page holds the first divergence as the report gives it: the issue and retire
/// cycles, the operands and both results decoded; it says, as the terminal and the JSON do,
/// where the run stopped; the coverage sampled the operations compared.
fn the_page_carries_the_ports_divergence(
    out: &str,
    res: &RunResult,
    r: &Report,
    page: &std::path::Path,
) {
    use ptxfma_cosim_outputs::html::esc;
    let html = std::fs::read_to_string(page).unwrap();
    let from = html
        .find("<div class=\"div\" id=\"sig0\">")
        .expect("a card");
    let card = &html[from..from + html[from..].find("<details>").unwrap()];
    let line = |label: &str| -> String {
        out.lines()
            .map(str::trim_start)
            .find_map(|l| l.strip_prefix(label))
            .unwrap_or_else(|| panic!("no `{label}` line"))
            .trim()
            .to_string()
    };
    assert!(
        card.contains(&format!(
            "issued {}, retired {} (latency 6; bound 64)",
            r.issued, r.retired_cycle
        )),
        "{card}"
    );
    let result = line("result d");
    let (e, a) = result
        .strip_prefix("expected ")
        .unwrap()
        .split_once(", retired ")
        .unwrap();
    assert!(e.starts_with(&format!("{:#010x} (", r.expected)), "{e}");
    assert!(a.starts_with(&format!("{:#010x} (", r.retired)), "{a}");
    for v in [e, a] {
        assert!(card.contains(&esc(v)), "{v}: {card}");
    }
    for op in [
        line("operands"),
        format!("b = {}", line("b =")),
        format!("c = {}", line("c =")),
    ] {
        assert!(card.contains(&esc(&op)), "{op}: {card}");
    }
    let st = res.stopped.as_ref().expect("stopped at 20 divergences");
    assert_eq!((st.divergences, st.planned), (20, 20_000));
    assert_eq!(st.operations, res.total_vectors());
    let stopped = format!(
        "stopped at 20 divergences (--max-divergences 20) after {} of 20000 operations; \
         `--max-divergences 20000` runs on",
        st.operations
    );
    assert!(out.contains(&stopped), "{stopped}\n{out}");
    let para = html
        .split_once("<p class=\"stopped\">")
        .and_then(|(_, p)| p.split_once("</p>"))
        .map(|(p, _)| p.replace("<code>", "").replace("</code>", ""));
    assert!(
        para.as_deref()
            .is_some_and(|p| p.starts_with(&esc(&stopped.replace('`', "")))),
        "{para:?}"
    );
    assert_eq!(
        res.coverage.as_ref().unwrap().operations(),
        res.total_vectors()
    );
}

#[test]
fn the_fault_is_found_the_same_by_any_number_of_jobs() {
    let run = |jobs: &str| {
        let dir = scratch(&format!("ports-jobs{jobs}"));
        let json = dir.join("r.json");
        let (code, out, err) = ports_f32(
            &dir,
            "alt_fault",
            &[
                "--count",
                "40000",
                "--chunk-size",
                "5000",
                "--max-divergences",
                "30",
                "--jobs",
                jobs,
                "--json",
                json.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 1, "{out}{err}");
        let r = read_json::<RunResult>(&json);
        let listed: Vec<_> = r
            .divergences
            .iter()
            .map(|d| (d.chunk, d.cycle, d.signature.clone()))
            .collect();
        let counts: Vec<_> = r
            .signatures
            .iter()
            .map(|s| (s.signature.clone(), s.count))
            .collect();
        (listed, counts)
    };
    let one = run("1");
    assert_eq!(one.1.iter().map(|s| s.1).sum::<usize>(), 30);
    assert!(!one.0.is_empty());
    assert_eq!(one, run("2"));
}

#[test]
fn a_design_slower_than_the_bound_is_caught() {
    // The alt design retires 5 cycles after issue; a bound of 4 makes every operation late.
    let dir = scratch("ports-bound");
    let (code, out, err) = ports_f32(&dir, "alt", &["--count", "1000", "--latency-bound", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("an operation did not retire within the latency bound (out_valid_o)"),
        "{out}"
    );
    assert!(out.contains("not retired by cycle"), "{out}");
}

#[test]
fn register_checking_refuses_a_design_without_registers() {
    // Asked for: by default a design without registers is checked by its ports.
    let (code, out, err) = cosim(&[
        "run",
        "--rtl",
        "alt",
        "--compare",
        "registers",
        "--count",
        "100",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("has only result ports: check it with --compare ports"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // In the library it is an error of its own kind.
    let mut rtl = ptxfma_cosim_engine::rtl::Rtl::new("alt", false).unwrap();
    let mut model = ptxfma_cosim_engine::reference::ModelReference::new();
    let e = ptxfma_cosim_engine::lockstep::run(
        &mut rtl,
        &mut model,
        std::iter::empty(),
        &ptxfma_cosim_engine::lockstep::Config::default(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        ptxfma_cosim_engine::Error::PortsOnly {
            variant: "alt".into()
        }
    );
}

#[test]
fn shards_merge_to_the_unsharded_run_and_not_with_a_register_run() {
    let dir = scratch("ports-shards");
    let args = [
        "run",
        "--rtl",
        "alt_fault",
        "--compare",
        "ports",
        "--filter",
        "f32",
        "--count",
        "12000",
        "--chunk-size",
        "3000",
        "--max-divergences",
        "1000",
    ];
    let waves = dir.to_str().unwrap();
    let run = |extra: &[&str], json: &std::path::Path| {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(extra);
        a.extend(["--json", json.to_str().unwrap(), "--waves-dir", waves]);
        let (code, out, err) = cosim(&a);
        assert_eq!(code, 1, "{out}{err}");
    };
    let whole = dir.join("whole.json");
    run(&[], &whole);
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("s{k}.json"))).collect();
    run(&["--shard", "1/2"], &shards[0]);
    run(&["--shard", "2/2"], &shards[1]);
    let merged = dir.join("merged.json");
    let (code, out, err) = cosim(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--json",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let key = |p: &std::path::Path| {
        let r = read_json::<RunResult>(p);
        let d: Vec<_> = r
            .divergences
            .iter()
            .map(|d| (d.chunk, d.cycle, d.signature.clone()))
            .collect();
        let counts: Vec<_> = r
            .signatures
            .iter()
            .map(|s| (s.signature.clone(), s.count))
            .collect();
        (r.total_vectors(), d, counts)
    };
    let (n, d, counts) = key(&whole);
    assert_eq!(n, 12_000);
    assert!(!d.is_empty());
    assert_eq!(key(&merged), (n, d, counts));

    // A register-checked run of the same stream is another run: the merge refuses it.
    let regs = dir.join("regs.json");
    let (code, out, err) = cosim(&[
        "run",
        "--filter",
        "f32",
        "--count",
        "12000",
        "--chunk-size",
        "3000",
        "--shard",
        "2/2",
        "--json",
        regs.to_str().unwrap(),
        "--waves-dir",
        waves,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = cosim(&["merge", shards[0].to_str().unwrap(), regs.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("compare"), "{err}");
}

/// The primary marker and named marker A of a save file (ps; -1 for none).
fn markers(save: &str) -> Vec<u64> {
    save.lines()
        .find_map(|l| l.strip_prefix('*'))
        .expect("a marker line")
        .split_whitespace()
        .skip(1)
        .take(2)
        .map(|m| m.parse().unwrap())
        .collect()
}

/// GTKWave's trace flags (`TR_*` in its `analyzer.h`) that open and close a group.
const TR_CLOSED: u32 = 0x40_0000;
const TR_GRP_BEGIN: u32 = 0x80_0000;
const TR_GRP_END: u32 = 0x100_0000;

/// A group of a save file.
struct Group {
    name: String,
    closed: bool,
    signals: Vec<String>,
}

/// The groups of a save file, in order, each with the signals it lists (aliases stripped).
fn groups(save: &str) -> Vec<Group> {
    let (mut flags, mut open, mut done) = (0u32, Vec::<Group>::new(), Vec::new());
    for line in save.lines() {
        if let Some(f) = line.strip_prefix('@') {
            flags = u32::from_str_radix(f, 16).unwrap();
        } else if let Some(name) = line.strip_prefix('-') {
            if flags & TR_GRP_BEGIN != 0 {
                open.push(Group {
                    name: name.to_string(),
                    closed: flags & TR_CLOSED != 0,
                    signals: Vec::new(),
                });
            } else if flags & TR_GRP_END != 0 {
                let g = open.pop().expect("a group ends that began");
                assert_eq!(g.name, name);
                done.push(g);
            }
        } else if let (Some(g), [signal]) = (open.last_mut(), &save_file_signals(line)[..]) {
            g.signals.push(signal.clone());
        }
    }
    assert!(open.is_empty());
    done
}

/// The value of the signal a save file names (`scope.….name[msb:lsb]`) at `time`.
fn value_at(v: &mut Vcd, full: &str, time: u64) -> String {
    let base = full.split('[').next().unwrap();
    let (path, name) = base.rsplit_once('.').unwrap();
    let path: Vec<&str> = path.split('.').collect();
    v.value_at(&path, name, time)
}

/// A `--compare ports` divergence of a design that retires two cycles later than the model:
/// at the marker, the waveform holds beside the design's retired result the model's result
/// for the same tag (what the model's own ports show in that cycle is another operation), and
/// the save file's issue group shows the operation's issue ports as they were read in its
/// issue cycle (marker A), not what the ports hold at the marker. The expected result is the
/// PTX reference's (`ptxfma_model::reference::ptx`, not the pipeline the run compares with)
/// on the operands the report printed.
#[test]
fn the_ports_waveform_pairs_results_by_tag_and_shows_the_issue_as_it_was() {
    let dir = scratch("ports-wave");
    let (code, out, err) = ports_f32(&dir, "alt_fault", &["--count", "20000", "--seed", "5"]);
    assert_eq!(code, 1, "{out}{err}");
    let r = parse(&out);
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    // `(tag 0x001e, ctrl 0x000018)` and `a = 0x4a1a6515  (...)`, b and c alike.
    let after = |key: &str| {
        let at = out
            .find(key)
            .unwrap_or_else(|| panic!("no `{key}` in\n{out}"))
            + key.len();
        hex(out[at..].split([',', ')', ' ']).next().unwrap())
    };
    let (tag, ctrl) = (after("(tag "), after(", ctrl "));
    let operands = [after(" a = "), after(" b = "), after(" c = ")];
    let issue = r.issued * 1000;

    let save = std::fs::read_to_string(r.waveform.with_extension("gtkw")).unwrap();
    assert_eq!(markers(&save), [r.edge_time, issue], "{save}");
    let groups = groups(&save);
    let group = |prefix: &str| {
        groups
            .iter()
            .find(|g| g.name.starts_with(prefix))
            .unwrap_or_else(|| panic!("no group `{prefix}…` in\n{save}"))
    };
    let mut v = Vcd::open(&r.waveform);

    // The result: the design's, then the model's for the same tag, at the marker.
    let result = group("result by tag");
    assert!(!result.closed);
    for s in [
        "TOP.out_tag_o",
        "model_by_tag.tag",
        "TOP.out_d_o",
        "model_by_tag.expected_d",
    ] {
        assert!(
            result
                .signals
                .iter()
                .any(|n| n.starts_with(&format!("{s}["))),
            "{s} not in {:?}",
            result.signals
        );
    }
    let at_marker =
        |v: &mut Vcd, scope: &str, name: &str| num(&v.value_at(&[scope], name, r.edge_time));
    assert_eq!(at_marker(&mut v, "TOP", "out_valid_o"), 1);
    assert_eq!(at_marker(&mut v, "TOP", "out_tag_o"), tag);
    assert_eq!(at_marker(&mut v, "TOP", "out_d_o"), r.retired);
    assert_eq!(at_marker(&mut v, "model_by_tag", "tag"), tag);
    assert_eq!(at_marker(&mut v, "model_by_tag", "expected_valid"), 1);
    let expected = at_marker(&mut v, "model_by_tag", "expected_d");
    assert_eq!(expected, r.expected);
    let op = ptxfma_model::ctrl::Ctrl::decode(ctrl as u32);
    let [a, b, c] = operands;
    assert_eq!(expected, ptxfma_model::reference::ptx::eval(&op, a, b, c));
    // Paired by cycle, the model shows another operation: what this view is for.
    assert_ne!(at_marker(&mut v, "model", "out_tag_o"), tag);

    // The issue group: read at the marker, every one of its signals holds the operation's
    // issue ports as the design's own ports held them at marker A, and as the report printed.
    let issued = group(&format!("issued in cycle {}", r.issued));
    assert!(!issued.closed);
    let mut seen = Vec::new();
    for s in &issued.signals {
        let leaf = s.split('[').next().unwrap().rsplit('.').next().unwrap();
        let now = value_at(&mut v, s, r.edge_time);
        let want = match leaf {
            "instr" => {
                let name = r.instruction.split_whitespace().next().unwrap();
                assert_eq!(ascii(&now), name);
                seen.push(leaf);
                continue;
            }
            "issue_cycle" => r.issued,
            "tag" => tag,
            "in_ctrl_i" => ctrl,
            "in_a_i" | "in_b_i" | "in_c_i" => {
                let k = ["in_a_i", "in_b_i", "in_c_i"]
                    .iter()
                    .position(|p| *p == leaf)
                    .unwrap();
                // The report prints the operand's format: binary32 in bits 31:0.
                assert_eq!(num(&now) & 0xffff_ffff, operands[k], "{s}");
                num(&v.value_at(&["TOP"], leaf, issue))
            }
            other => panic!("{other} in the issue group"),
        };
        assert_eq!(num(&now), want, "{s} at the marker");
        seen.push(leaf);
    }
    for leaf in [
        "instr",
        "issue_cycle",
        "tag",
        "in_ctrl_i",
        "in_a_i",
        "in_b_i",
        "in_c_i",
    ] {
        assert!(seen.contains(&leaf), "{leaf} not in {:?}", issued.signals);
    }
    assert_eq!(num(&v.value_at(&["TOP"], "in_tag_i", issue)), tag);

    // The design's ports live, and its own top-level signals in a closed group.
    let ports = group("design ports");
    assert!(!ports.closed);
    for p in [
        "in_valid_i",
        "in_a_i",
        "out_valid_o",
        "out_tag_o",
        "out_d_o",
    ] {
        assert!(
            ports
                .signals
                .iter()
                .any(|n| n.split('[').next() == Some(&format!("TOP.{p}"))),
            "TOP.{p} not in {:?}",
            ports.signals
        );
    }
    let top = group("design ptxfma_alt_top");
    assert!(top.closed);
    assert!(top.signals.len() > 10, "{:?}", top.signals);
    assert!(
        top.signals
            .iter()
            .all(|n| n.starts_with("TOP.ptxfma_alt_top.")),
        "{:?}",
        top.signals
    );
    assert!(top
        .signals
        .iter()
        .any(|n| n.starts_with("TOP.ptxfma_alt_top.mag_q[")));
    let missing: Vec<&String> = groups
        .iter()
        .flat_map(|g| &g.signals)
        .filter(|n| !has_signal(&v, n))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

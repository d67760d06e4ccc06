//! Every command the co-simulator prints runs as printed: the report's reproduce lines, the
//! `gtkwave` line and the HTML page's commands, run through `sh -c` exactly as they are, from
//! where the run was started, with a space in the path of the binary, of the waveforms and of
//! the results; each reproduces what the run found. Needs the `fault-sticky` feature (`make
//! test` runs it): the injected fault gives the divergence.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{read_json, scratch};
use serde_json::Value;

/// `line` run by `sh -c` in `dir`; returns (exit code, stdout, stderr).
fn sh(dir: &Path, line: &str) -> (i32, String, String) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The lines of a report under `reproduce`, as printed (indent dropped).
fn reproduce_lines(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| l.trim() != "reproduce")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("waveform"))
        .map(|l| l.trim().to_string())
        .collect()
}

/// The report line that starts with `label` (after the indent), e.g. `field`.
fn report_line<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"))
}

/// The value after `expected ` on the `result d` line.
fn expected_d(out: &str) -> String {
    report_line(out, "result d")
        .split("expected ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .trim_end_matches(',')
        .to_string()
}

/// The text of every `<pre>` and `<code>` element of an HTML page, entities decoded.
fn html_commands(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tag in ["pre", "code"] {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let mut rest = page;
        while let Some(at) = rest.find(&open) {
            let body = &rest[at + open.len()..];
            let end = body.find(&close).unwrap();
            out.push(
                body[..end]
                    .replace("&#39;", "'")
                    .replace("&quot;", "\"")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            );
            rest = &body[end..];
        }
    }
    out
}

/// `fma-cosim` and the `fma-model` beside it, linked into `dir/bin dir/`.
fn binaries_in(dir: &Path) -> PathBuf {
    let bin = dir.join("bin dir");
    std::fs::create_dir_all(&bin).unwrap();
    let cosim = Path::new(env!("CARGO_BIN_EXE_fma-cosim"));
    let model = cosim.with_file_name("fma-model");
    assert!(
        model.is_file(),
        "{} is not built (`cargo build --release -p fma-model`; make test builds it)",
        model.display()
    );
    std::os::unix::fs::symlink(cosim, bin.join("fma-cosim")).unwrap();
    std::os::unix::fs::symlink(&model, bin.join("fma-model")).unwrap();
    bin
}

#[test]
fn every_printed_command_runs_as_printed_with_a_space_in_every_path() {
    let dir = scratch("commands as printed");
    binaries_in(&dir);
    let run = "'bin dir/fma-cosim' run --progress off --rtl fault_sticky_rz --filter f32 \
               --count 3000 --seed 6 --waves-dir 'my waves' --json 'the results.json' \
               --html 'the page.html'";
    let (code, out, err) = sh(&dir, run);
    assert_eq!(code, 1, "{out}{err}");
    let lines = reproduce_lines(&out);
    // Alone from reset, with the cycles before it, from the command line, the model's result.
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[..3]
            .iter()
            .all(|l| l.starts_with("'bin dir/fma-cosim' replay ")
                && l.contains("--waves-dir 'my waves'")),
        "{lines:#?}"
    );
    assert!(
        lines[1].ends_with("# with the 32 cycles before it"),
        "{}",
        lines[1]
    );
    assert!(
        lines[3].starts_with("'bin dir/fma-model' eval "),
        "{}",
        lines[3]
    );

    // The JSON holds the same lines.
    let json: Value = read_json(&dir.join("the results.json"));
    let held: Vec<String> = json["divergences"][0]["reproduce"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert_eq!(held, lines);

    // Each replay finds the divergence the run found: the same stage, field and values, and
    // the same result alone; the model's line prints the expected result.
    let (stage, field) = (report_line(&out, "stage"), report_line(&out, "field"));
    let expected = expected_d(&out);
    for line in &lines[..3] {
        let (code, rout, rerr) = sh(&dir, line);
        assert_eq!(code, 1, "{line}\n{rout}{rerr}");
        assert_eq!(report_line(&rout, "stage"), stage, "{line}\n{rout}");
        assert_eq!(report_line(&rout, "field"), field, "{line}\n{rout}");
        assert_eq!(
            report_line(&rout, "result d"),
            report_line(&out, "result d"),
            "{line}\n{rout}"
        );
        // Its own reproduce lines run too: a windowed replay's say so only with a window.
        for again in reproduce_lines(&rout) {
            assert!(!again.contains("--window 0"), "{again}");
        }
    }
    let (code, model, merr) = sh(&dir, &lines[3]);
    assert_eq!((code, model.trim()), (0, expected.as_str()), "{merr}");

    // The waveform's line opens files that are there.
    let open = report_line(&out, "waveform")
        .strip_prefix("waveform")
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(open, "gtkwave 'my waves/f32-seed6-cycle70.gtkw'");
    let check = open.replacen("gtkwave ", "test -f ", 1);
    assert_eq!(sh(&dir, &check).0, 0, "{check}");

    // The page's commands: the run again (writing this page), every bin, the save file.
    let page = std::fs::read_to_string(dir.join("the page.html")).unwrap();
    let commands: Vec<String> = html_commands(&page)
        .into_iter()
        .filter(|c| c.starts_with("'bin dir/fma-cosim' ") || c.starts_with("gtkwave "))
        .collect();
    let rerun = commands
        .iter()
        .find(|c| c.contains(" run "))
        .unwrap_or_else(|| panic!("no run command on the page: {commands:?}"));
    assert!(rerun.ends_with("--html 'the page.html'"), "{rerun}");
    let coverage = commands
        .iter()
        .find(|c| c.contains(" coverage "))
        .unwrap_or_else(|| panic!("no coverage command on the page: {commands:?}"));
    assert!(
        commands.iter().any(|c| c.starts_with("gtkwave ")),
        "{commands:?}"
    );
    std::fs::remove_file(dir.join("the page.html")).unwrap();
    let (code, again, rerr) = sh(&dir, rerun);
    assert_eq!(code, 1, "{rerun}\n{again}{rerr}");
    assert_eq!(report_line(&again, "field"), field);
    assert!(dir.join("the page.html").is_file());
    let (code, listed, lerr) = sh(&dir, coverage);
    assert_eq!(code, 0, "{coverage}\n{listed}{lerr}");
    assert!(listed.contains("1 file(s) merged"), "{listed}");
    for open in commands.iter().filter(|c| c.starts_with("gtkwave ")) {
        let check = open.replacen("gtkwave ", "test -f ", 1);
        assert_eq!(sh(&dir, &check).0, 0, "{check}");
    }
}

/// A replay given no window prints no windowed line (it would replay nothing more).
#[test]
fn a_replay_without_a_window_offers_no_windowed_replay() {
    let dir = scratch("replay without a window");
    binaries_in(&dir);
    let (code, out, err) = sh(
        &dir,
        "'bin dir/fma-cosim' replay --seed 6 --filter f32 --count 3000 --index 70 \
         --rtl fault_sticky_rz --waves-dir 'my waves'",
    );
    assert_eq!(code, 1, "{out}{err}");
    let lines = reproduce_lines(&out);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines.iter().all(|l| !l.contains("--window")), "{lines:#?}");
    assert!(!out.contains("preceding"), "{out}");
    // A window of 5: the windowed line replays those 5 cycles, and says so.
    let (code, out, err) = sh(
        &dir,
        "'bin dir/fma-cosim' replay --seed 6 --filter f32 --count 3000 --index 70 --window 5 \
         --rtl fault_sticky_rz",
    );
    assert_eq!(code, 1, "{out}{err}");
    let lines = reproduce_lines(&out);
    assert!(
        lines[1].contains("--index 70 --window 5 ")
            && lines[1].ends_with("# with the 5 cycles before it"),
        "{lines:#?}"
    );
}

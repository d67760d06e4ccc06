//! The injected fault must be caught: the RTL built with `+define+FAULT_STICKY_RZ` (which drops
//! a sticky bit in round-toward-zero operations) is compared with a clean reference, and the
//! report must name the stage and the sticky field, and the waveform must mark the cycle.
//!
//! Needs the `fault-sticky` feature (`cargo test -p ptxfma-cosim --features fault-sticky
//! --test cosim fault::`; `make test` runs it).

use crate::common;

use std::path::PathBuf;

use common::{ascii, has_signal, run_json, save_file_signals, scratch, Vcd};
use ptxfma_cosim_outputs::results::{DivergenceRow, RunResult};

/// The one divergence of the run's JSON result (`--json`).
fn the_divergence(r: &RunResult) -> &DivergenceRow {
    assert!(!r.passed);
    assert_eq!(r.divergences.len(), 1, "{:?}", r.divergences);
    &r.divergences[0]
}

fn check_fault_caught(golden: &str) {
    let dir = scratch(&format!("fault-{}", golden.replace(':', "-")));
    let json = dir.join("result.json");
    let (code, out, err, result) = run_json::<RunResult>(
        &dir,
        &json,
        &[
            "--rtl",
            "fault_sticky_rz",
            "--golden",
            golden,
            "--filter",
            "f32,f64",
            "--count",
            "20000",
            "--seed",
            "11",
        ],
    );
    assert_eq!(code, 1, "the fault was not caught:\n{out}{err}");
    let r = the_divergence(&result);
    let edge_time = r
        .waveform_mismatch_time
        .expect("the trace time of the divergence's edge");
    // The fault drops a sticky bit, which lives in s1 (alignment) and s2 (the sum).
    assert!(
        r.stage == "s1" || r.stage == "s2",
        "stage {}:\n{out}",
        r.stage
    );
    assert!(r.field.contains("sticky"), "field {}:\n{out}", r.field);
    assert!(
        r.instruction.contains(".rz"),
        "not an .rz operation: {}",
        r.instruction
    );
    assert!(
        r.reproduce
            .iter()
            .any(|c| c.contains("--rtl fault_sticky_rz")),
        "replay command lacks the variant: {:?}",
        r.reproduce
    );
    let waveform = PathBuf::from(r.waveform.as_deref().expect("a waveform"));

    // The waveform exists, and at the reported cycle's edge the marker rises and the two
    // sides' copies of the named field differ.
    assert!(waveform.starts_with(&dir), "{}", waveform.display());
    let mut v = Vcd::open(&waveform);
    let rises: Vec<u64> = v
        .changes(&["cosim"], "mismatch")
        .into_iter()
        .filter(|(_, b)| b == "1")
        .map(|(t, _)| t)
        .collect();
    assert_eq!(rises.first(), Some(&edge_time), "{rises:?}");
    assert_eq!(
        u64::from_str_radix(&v.value_at(&["cosim"], "cycle", edge_time), 2).unwrap(),
        r.cycle
    );
    let mut path: Vec<String> = r.field.split('.').map(str::to_string).collect();
    let name = path.pop().unwrap();
    let bank = format!("{}_q", r.stage);
    let model: Vec<&str> = ["model", bank.as_str()]
        .into_iter()
        .chain(path.iter().map(String::as_str))
        .collect();
    let rtl: Vec<&str> = ["TOP", "ptxfma_top", bank.as_str()]
        .into_iter()
        .chain(path.iter().map(String::as_str))
        .collect();
    let m = v.value_at(&model, &name, edge_time);
    let a = v.value_at(&rtl, &name, edge_time);
    assert_ne!(
        m, a,
        "the waveform shows no difference in {} at {}",
        r.field, edge_time
    );
}

#[test]
fn injected_fault_is_caught_against_the_clean_rtl() {
    check_fault_caught("rtl:default");
}

#[test]
fn injected_fault_is_caught_against_the_model() {
    check_fault_caught("model");
}

/// The save file beside a divergence waveform opens on the divergence: it names the waveform,
/// puts the marker on the mismatch edge, lists clock, reset and the mismatch flag first and the
/// differing field as a model/RTL pair, every signal it names is in the VCD and in the FST, and
/// the instruction name signals spell the diverging instruction at its issue and at the stage
/// where it diverged.
#[test]
fn the_save_file_opens_on_the_divergence() {
    for fst in [false, true] {
        let dir = scratch(if fst { "view-fst" } else { "view-vcd" });
        let json = dir.join("result.json");
        let mut args = vec![
            "--rtl",
            "fault_sticky_rz",
            "--filter",
            "f64",
            "--count",
            "200000",
            "--seed",
            "3",
        ];
        if fst {
            args.push("--fst");
        }
        let (code, out, err, result) = run_json::<RunResult>(&dir, &json, &args);
        assert_eq!(code, 1, "the fault was not caught:\n{out}{err}");
        let r = the_divergence(&result);
        let wave = PathBuf::from(r.waveform.as_deref().expect("a waveform"));
        assert_eq!(wave.extension().unwrap(), if fst { "fst" } else { "vcd" });
        let save = PathBuf::from(r.waveform_save.as_deref().expect("a save file"));
        assert_eq!(save, wave.with_extension("gtkw"));
        assert!(
            out.contains(&format!("waveform    gtkwave {}", save.display())),
            "the report does not print the command that opens it:\n{out}"
        );
        let text = std::fs::read_to_string(&save).unwrap();

        let dump = text
            .lines()
            .find_map(|l| l.strip_prefix("[dumpfile] "))
            .expect("[dumpfile]");
        assert_eq!(
            std::fs::canonicalize(dump.trim_matches('"')).unwrap(),
            std::fs::canonicalize(&wave).unwrap()
        );
        let marker: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix('*'))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|m| m.parse().ok())
            .expect("a marker");
        // Cycle N at N ns: the marker is the divergence's edge, where cosim.mismatch rises.
        assert_eq!(marker, r.cycle * 1000);
        assert_eq!(Some(marker), r.waveform_mismatch_time);

        let names = save_file_signals(&text);
        assert_eq!(names[..3], ["TOP.clk_i", "TOP.rst_ni", "cosim.mismatch"]);
        let v = Vcd::open(&wave);
        let missing: Vec<&String> = names.iter().filter(|n| !has_signal(&v, n)).collect();
        assert!(missing.is_empty(), "not in {}: {missing:?}", wave.display());
        assert!(names.len() > 40, "{names:?}");

        // The differing field as a group of its own, model above RTL.
        let group = format!("-{}_q.{}", r.stage, r.field);
        let at = text.lines().position(|l| l == group).expect(&group);
        let pair = save_file_signals(&text.lines().skip(at).take(6).collect::<Vec<_>>().join("\n"));
        assert_eq!(
            pair[..2],
            [
                format!("model.{}_q.{}", r.stage, r.field),
                format!("TOP.ptxfma_top.{}_q.{}", r.stage, r.field)
            ]
        );

        let mut v = v;
        let issue = r.issue.expect("an issue cycle") * 1000;
        let named = |v: &mut Vcd, sig: &str, t: u64| ascii(&v.value_at(&["cosim"], sig, t));
        assert_eq!(named(&mut v, "in_instr", issue), r.instruction);
        let stage = format!("{}_instr", r.stage);
        assert_eq!(named(&mut v, &stage, marker), r.instruction);
        readable_at_first_sight(&text, marker, &mut v);
    }
}

/// What a person sees on opening a save file: a cycle's box wide enough for 18 characters of
/// GTKWave's wave font (7 pixels each: a 64-bit port in hex, `fma.rn.ftz.sat.f32`), 8 to 12
/// such cycles in the window with the divergence among them, the waveform's first and last
/// times (GTKWave's From and To) in ns alike, and instruction names with no padding drawn.
fn readable_at_first_sight(save: &str, marker: u64, v: &mut Vcd) {
    let values = |key: &str| -> Vec<f64> {
        save.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {save}"))
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect()
    };
    // GTKWave draws 2^-zoom time units (ps) per 200 pixels.
    let zoom = values("*")[0];
    let px_per_cycle = 1000.0 * 200.0 / 2f64.powf(-zoom);
    assert!((126.0..=160.0).contains(&px_per_cycle), "{px_per_cycle} px");
    let (start, width, list) = (
        values("[timestart] ")[0],
        values("[size] ")[0],
        values("[signals_width] ")[0],
    );
    // Beside the signal list, the tree's handle, a scroll bar and borders take 64 pixels.
    let cycles = (width - list - 64.0) / px_per_cycle;
    assert!((8.0..=12.0).contains(&cycles), "{cycles} cycles shown");
    let marker = marker as f64;
    assert!(
        start < marker && marker + 1000.0 <= start + cycles * 1000.0,
        "the divergence's cycle at {marker} ps is not within {start} ps + {cycles} cycles"
    );

    let times = v.w.time_table().to_vec();
    for t in [times[0], *times.last().unwrap()] {
        assert!(
            t % 1000 == 0 && (t == 0 || t % 1_000_000 != 0),
            "{t} ps is not a whole ns (GTKWave would show it in other units)"
        );
    }

    for sig in ["in_instr", "s1_instr", "s2_instr", "s3_instr", "out_instr"] {
        for (t, bits) in v.changes(&["cosim"], sig) {
            let bytes: Vec<u8> = bits
                .as_bytes()
                .chunks(8)
                .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap())
                .collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            assert!(
                bytes[..end].iter().all(|b| b.is_ascii_graphic())
                    && bytes[end..].iter().all(|&b| b == 0),
                "cosim.{sig} at {t} ps is padded or holds a blank: {:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
}

/// What an HTML page links to (`href` values), after checking that it parses as XML with
/// every element closed, and that nothing in it is fetched from elsewhere.
fn page_links(html: &str) -> Vec<String> {
    use quick_xml::events::{BytesStart, Event};
    let mut r = quick_xml::Reader::from_str(html);
    let mut links = Vec::new();
    let mut depth = 0i64;
    let mut check = |e: &BytesStart| {
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        assert!(
            !["script", "link", "img", "iframe", "object"].contains(&name.as_str()),
            "<{name}> in a self-contained page"
        );
        for a in e.attributes() {
            let a = a.expect("a well-formed attribute");
            let v = a.unescape_value().unwrap().into_owned();
            assert!(
                !v.contains("://") && !v.starts_with("//"),
                "an external reference: {v}"
            );
            if a.key.as_ref() == b"href" {
                links.push(v);
            }
        }
    };
    loop {
        match r.read_event() {
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) => {
                check(&e);
                depth += 1;
            }
            Ok(Event::Empty(e)) => check(&e),
            Ok(Event::End(_)) => depth -= 1,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at byte {}: {e}", r.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
    links
}

/// The closure curve's points as the page lists them (`table id="closure"`): the last row's
/// last cell is the total.
fn closure_total(html: &str) -> u64 {
    let table = &html[html
        .find("<table id=\"closure\">")
        .expect("the curve's points")..];
    let table = &table[..table.find("</table>").unwrap()];
    let last_row = table.rsplit("<tr>").next().unwrap();
    let cells: Vec<&str> = last_row
        .split("<td class=\"num\">")
        .skip(1)
        .map(|c| c.split('<').next().unwrap())
        .collect();
    cells.last().unwrap().parse().unwrap()
}

/// Reachable bins hit in a result's coverage.
fn bins_hit(r: &RunResult) -> u64 {
    let c = r.coverage.as_ref().expect("coverage in the result");
    c.groups().iter().map(|g| g.hit as u64).sum()
}

/// `run --html` and `merge --html`: one page that parses as XML, fetches nothing, whose every
/// link is a file that exists (each divergence signature's waveform and save file among them),
/// and whose closure curve ends at the summary's bins hit.
#[test]
fn the_html_report_is_whole_and_self_contained() {
    let dir = scratch("html");
    let page = dir.join("report").join("run.html");
    let (code, out, err, r) = run_json::<RunResult>(
        &dir,
        &dir.join("result.json"),
        &[
            "--rtl",
            "fault_sticky_rz",
            "--count",
            "200000",
            "--seed",
            "1",
            "--max-divergences",
            "3",
            "--html",
            page.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(r.signatures.len() >= 2, "{:?}", r.signatures);
    let html = std::fs::read_to_string(&page).unwrap();
    let links = page_links(&html);
    for l in &links {
        if let Some(id) = l.strip_prefix('#') {
            assert!(
                html.contains(&format!("id=\"{id}\"")),
                "a link to nothing: {l}"
            );
            continue;
        }
        let target = page.parent().unwrap().join(l);
        assert!(target.is_file(), "a link to nothing: {l}");
    }
    let saves = links.iter().filter(|l| l.ends_with(".gtkw")).count();
    let waves = links.iter().filter(|l| l.ends_with(".vcd")).count();
    assert_eq!((saves, waves), (r.signatures.len(), r.signatures.len()));
    assert_eq!(closure_total(&html), bins_hit(&r));
    // The command that reruns it names this binary and this page as they were given (the
    // comma quoted for the shell, the quotes escaped for HTML).
    let rerun = format!(
        "{} run --seed 1 --count 200000 --filter &#39;f32,f64,f32x2,mixed,sm1x,addsubmul,vmad,\
         half,half2&#39; --chunk-size 65536 --rtl fault_sticky_rz --max-divergences 3 \
         --window 32 --html {}",
        env!("CARGO_BIN_EXE_fma-cosim"),
        page.display()
    );
    assert!(html.contains(&rerun), "the reproduce command {rerun}");

    // Two shards of a passing run, merged: the curve of the whole run.
    let mut shards = Vec::new();
    for k in 1..=2 {
        let json = dir.join(format!("shard{k}.json"));
        let shard = format!("{k}/2");
        let cov = dir
            .join(format!("shard{k}-coverage.json"))
            .display()
            .to_string();
        let (code, out, err, _) = run_json::<RunResult>(
            &dir,
            &json,
            &[
                "--count",
                "300000",
                "--seed",
                "2",
                "--shard",
                &shard,
                "--coverage",
                &cov,
            ],
        );
        assert_eq!(code, 0, "{out}{err}");
        shards.push(json);
    }
    let merged_page = dir.join("merged.html");
    let merged_json = dir.join("merged.json");
    let (code, out, err) = common::cosim(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--json",
        merged_json.to_str().unwrap(),
        "--html",
        merged_page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let merged: RunResult = common::read_json(&merged_json);
    let html = std::fs::read_to_string(&merged_page).unwrap();
    assert!(page_links(&html).is_empty());
    assert_eq!(closure_total(&html), bins_hit(&merged));
    assert!(bins_hit(&merged) > 7000, "{}", bins_hit(&merged));
}

/// The text after `label` on the report's line that starts with it.
fn report_line<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"))
        .trim()
}

/// The part of `html` inside the element that opens with `open` (up to its first `close`).
fn inside<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    let from = html
        .find(open)
        .unwrap_or_else(|| panic!("no {open} in the page"));
    let rest = &html[from..];
    &rest[..rest.find(close).expect("closed")]
}

/// The text of the page's "stopped" paragraph up to its parenthesis, tags taken out.
fn stopped_paragraph(html: &str) -> Option<String> {
    let (_, p) = html.split_once("<p class=\"stopped\">")?;
    let p = p
        .split_once("</p>")?
        .0
        .replace("<code>", "")
        .replace("</code>", "");
    Some(p.split(" (about").next()?.to_string())
}

/// The run's page of a planted register fault carries the divergence as the terminal report
/// gives it (the differing field with both values, the operands and the result `d` decoded),
/// names the RTL module that drives the field, folds the bins under a summary line, and says,
/// as the terminal and the JSON do, after how many of the run's operations it stopped; the
/// `--max-divergences` it proposes runs to the end; the operations coverage sampled are the
/// ones the summary counts.
#[test]
fn the_run_page_carries_the_divergence_and_where_the_run_stopped() {
    use ptxfma_cosim_outputs::html::esc;
    let dir = scratch("html-divergence");
    let page = dir.join("run.html");
    let cov = dir.join("cov.json");
    let args = [
        "--rtl",
        "fault_sticky_rz",
        "--filter",
        "f32,f64",
        "--count",
        "20000",
        "--seed",
        "11",
        "--coverage",
        cov.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ];
    let (code, out, err, r) = run_json::<RunResult>(&dir, &dir.join("r.json"), &args);
    assert_eq!(code, 1, "{out}{err}");
    let d = the_divergence(&r);
    let html = std::fs::read_to_string(&page).unwrap();
    page_links(&html);
    let card = inside(&html, "<div class=\"div\" id=\"sig0\">", "<details>");

    // The field, as the report prints it: `NAME [W bits]: expected X, actual Y`.
    let field = report_line(&out, "field");
    let (name, values) = field.split_once(" [").unwrap();
    let (expected, actual) = values
        .split_once("]: expected ")
        .unwrap()
        .1
        .split_once(", actual ")
        .unwrap();
    assert_eq!(name, d.field);
    assert!(
        card.contains(&format!("<code>{}</code>", esc(name))),
        "{card}"
    );
    for v in [expected, actual] {
        assert!(card.contains(&format!(">{}</code>", esc(v))), "{v}: {card}");
    }
    assert_ne!(expected, actual);
    // The operands and the result, decoded as the report decodes them.
    let a = report_line(&out, "operands");
    let b = report_line(&out, "b =");
    let c = report_line(&out, "c =");
    for operand in [a.to_string(), format!("b = {b}"), format!("c = {c}")] {
        assert!(operand.contains('('), "not decoded: {operand}");
        assert!(card.contains(&esc(&operand)), "{operand}: {card}");
    }
    let result = report_line(&out, "result d");
    let (e, rest) = result
        .strip_prefix("expected ")
        .unwrap()
        .split_once(", actual ")
        .unwrap();
    let a = rest.split("   (").next().unwrap();
    for v in [e, a] {
        assert!(card.contains(&esc(v)), "{v}: {card}");
    }
    assert!(card.contains(&esc(&d.instruction)), "{card}");
    // The driver of the field: the aligner's sticky (read from the sources), and the line
    // the planted fault's define adds.
    assert!(
        card.contains("RTL driving s1_q.") || card.contains("RTL driving s2_q."),
        "{card}"
    );
    assert!(card.contains("FAULT_STICKY_RZ"), "{card}");
    for l in &d.reproduce {
        assert!(card.contains(&esc(l)), "{l}");
    }

    // The bins: folded under one summary line, every unhit row inside it.
    let folded = inside(&html, "<details id=\"thinnest\">", "</details>");
    assert!(folded.contains("<summary>"), "{folded}");
    let unhit = html.matches("class=\"unhit\"").count();
    assert!(unhit > 0);
    assert_eq!(folded.matches("class=\"unhit\"").count(), unhit);

    // Where it stopped: N operations compared (the summary's total) of the 20000.
    let st = r
        .stopped
        .as_ref()
        .expect("the run stopped at its first divergence");
    let total: u64 = report_line(&out, "total")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(st.operations, total);
    assert_eq!(st.operations, r.total_vectors());
    assert!(st.operations < 20_000);
    assert_eq!(st.planned, 20_000);
    let line = format!(
        "stopped at the first divergence after {total} of 20000 operations; \
         `--max-divergences {}` runs on",
        st.run_on
    );
    assert!(out.contains(&line), "{line}\n{out}");
    assert_eq!(stopped_paragraph(&html), Some(line.replace('`', "")));
    // The last lines printed are the summary: the stopped line, then the verdict.
    let last: Vec<&str> = out.lines().rev().take(2).collect();
    assert!(last[0].starts_with("FAILED"), "{out}");
    assert!(last[1].starts_with("stopped at"), "{out}");
    // The operations coverage sampled are the ones compared.
    let sampled = r.coverage.as_ref().unwrap().operations();
    assert_eq!(sampled, total);
    assert!(
        out.contains(&format!(", {total} operations;")),
        "the coverage line:\n{out}"
    );

    // The proposed --max-divergences runs to the end: nothing says it stopped.
    let k = st.run_on.to_string();
    let mut on = args.to_vec();
    on.extend(["--max-divergences", &k]);
    let (code, out, err, r) = run_json::<RunResult>(&dir, &dir.join("on.json"), &on);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(r.stopped, None);
    assert_eq!(r.total_vectors(), 20_000);
    assert_eq!(r.coverage.as_ref().unwrap().operations(), 20_000);
    assert!(r.divergence_count() > 1);
    assert!(!out.contains("stopped at"), "{out}");
    assert_eq!(
        stopped_paragraph(&std::fs::read_to_string(&page).unwrap()),
        None
    );
}

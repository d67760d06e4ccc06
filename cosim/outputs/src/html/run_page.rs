//! `run --html` / `merge --html`: a run on one self-contained page (inline CSS and SVG, no
//! script, no network) that a lead can read to see whether the run is done and what failed:
//! its verdict and where it stopped, each divergence signature with its first divergence
//! (`divergence.rs`), its parameters and the command that reproduces it, the per-family
//! table, the coverage closure curve (reachable bins hit against operations, log scale, per family
//! and in total), the thinnest and the unhit bins (folded), and throughput per worker.

use super::esc;
use std::fmt::Write as _;
use std::path::Path;

use crate::command::ShellCommand;
use crate::results::{rate, RunResult, Totals};
use ptxfma_cosim_checks::coverage::{Closure, Coverage};

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;vertical-align:top}
th{border-bottom:1px solid #999}.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font-family:monospace;font-size:.92em}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}
.pass{color:#fff;background:#2a7a3a;padding:2px 8px}.fail{color:#fff;background:#b22;padding:2px 8px}
.unhit{color:#b00}svg text{font-family:system-ui,sans-serif;font-size:12px}
.stopped{background:#fff4d6;border-left:4px solid #d90;padding:.4em .8em}
.div{border:1px solid #ccc;padding:.2em 1em .8em;margin:1em 0}.div h3{font-size:1em}
.card>tbody>tr>th{white-space:nowrap;color:#555;font-weight:normal;border-bottom:none}
.card>tbody>tr>*{border-top:1px solid #e4e4e4}.dim{color:#777}
.bad{color:#b00;font-weight:bold}.fields td,.fields th{padding:0 8px}
details>summary{cursor:pointer}
";

/// Colours of the closure curves, in curve order (`total` is drawn black and thick).
const COLOURS: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// Bins listed as the thinnest (fewest hits, hit at least once), and unhit bins listed at most
/// (`fma-cosim coverage` lists every one).
const THINNEST: usize = 25;
const UNHIT_SHOWN: usize = 100;

/// The command that reruns the run `r` describes and writes its page to `page` (as the run was
/// given it; any `--jobs` gives the same result).
pub fn command(r: &RunResult, page: &Path) -> String {
    let p = &r.params;
    let mut c = ShellCommand::cosim()
        .arg("run")
        .args(["--seed".to_string(), p.seed.to_string()])
        .args(["--count".to_string(), p.count.to_string()])
        .args(["--filter".to_string(), p.filter.join(",")])
        .args(["--chunk-size".to_string(), p.chunk_size.to_string()])
        .args(ptxfma_cosim_engine::sides::sides_args(&p.rtl, &p.golden));
    if p.compare != "registers" {
        c = c.args(["--compare", &p.compare]);
        if let Some(b) = p.latency_bound {
            c = c.args(["--latency-bound".to_string(), b.to_string()]);
        }
    }
    if p.max_examples != crate::results::DEFAULT_MAX_EXAMPLES {
        c = c.args(["--max-examples".to_string(), p.max_examples.to_string()]);
    }
    c.args([
        "--max-divergences".to_string(),
        p.max_divergences.to_string(),
    ])
    .args(["--window".to_string(), p.window.to_string()])
    .arg("--html")
    .path(page)
    .to_string()
}

/// Where the page sends a reader for every bin: `fma-cosim coverage` on the file the run wrote
/// its coverage to (`--coverage`, or the `--json` results that carry it), when it wrote one.
fn every_bin(coverage_file: Option<&Path>) -> String {
    match coverage_file {
        Some(f) => format!(
            "<code>{}</code> lists every bin",
            esc(&ShellCommand::cosim().arg("coverage").path(f).to_string())
        ),
        None => "the run wrote no coverage file: <code>--coverage FILE</code> writes one, which \
                 <code>fma-cosim coverage</code> lists in full"
            .to_string(),
    }
}

/// The closure curve as an inline SVG: log-scale operations across, percent of each curve's
/// reachable bins up.
fn closure_svg(c: &Closure) -> String {
    let (w, h) = (900.0, 380.0);
    let (left, right, top, bottom) = (60.0, 170.0, 20.0, 50.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let last = c.points.last().map_or(1, |p| p.0).max(10) as f64;
    let decades = last.log10().ceil().max(1.0);
    let x = |ops: u64| left + pw * (ops.max(1) as f64).log10() / decades;
    let y = |pct: f64| top + ph * (1.0 - pct / 100.0);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"coverage closure curve\">"
    );
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"#fafafa\" \
         stroke=\"#999\"/>"
    );
    for d in 0..=decades as u32 {
        let xv = x(10u64.pow(d));
        let _ = write!(
            s,
            "<line x1=\"{xv:.1}\" y1=\"{top}\" x2=\"{xv:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{xv:.1}\" y=\"{:.1}\" text-anchor=\"middle\">10<tspan dy=\"-5\" \
             font-size=\"9\">{d}</tspan></text>",
            top + ph,
            top + ph + 16.0
        );
    }
    for pct in [0, 25, 50, 75, 100] {
        let yv = y(pct as f64);
        let _ = write!(
            s,
            "<line x1=\"{left}\" y1=\"{yv:.1}\" x2=\"{:.1}\" y2=\"{yv:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>",
            left + pw,
            left - 6.0,
            yv + 4.0
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">operations (log scale)</text>",
        left + pw / 2.0,
        h - 8.0
    );
    let n = c.curves.len();
    for (k, name) in c.curves.iter().enumerate() {
        let total = k == n - 1;
        let colour = if total {
            "#000"
        } else {
            COLOURS[k % COLOURS.len()]
        };
        let of = c.reachable[k].max(1) as f64;
        let pts: Vec<String> = c
            .points
            .iter()
            .map(|(ops, hit)| format!("{:.1},{:.1}", x(*ops), y(100.0 * hit[k] as f64 / of)))
            .collect();
        let _ = write!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"{}\" points=\"{}\"/>",
            if total { 2.5 } else { 1.2 },
            pts.join(" ")
        );
        let ly = top + 14.0 * k as f64 + 8.0;
        let lx = left + pw + 14.0;
        let hit = c.points.last().map_or(0, |p| p.1[k]);
        let _ = write!(
            s,
            "<line x1=\"{lx}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{colour}\" \
             stroke-width=\"{}\"/><text x=\"{}\" y=\"{}\">{} {hit}/{}</text>",
            lx + 18.0,
            if total { 2.5 } else { 1.5 },
            lx + 24.0,
            ly + 4.0,
            esc(name),
            c.reachable[k]
        );
    }
    s.push_str("</svg>");
    s
}

/// Throughput per chunk (each chunk runs on one worker) as horizontal bars.
fn throughput_svg(r: &RunResult) -> String {
    let rates: Vec<(usize, f64)> = r
        .chunks
        .iter()
        .filter(|c| c.seconds > 0.0)
        .map(|c| (c.index, c.vectors as f64 / c.seconds))
        .collect();
    let max = rates.iter().map(|r| r.1).fold(1.0, f64::max);
    let (bar_h, left, width) = (14.0, 70.0, 600.0);
    let h = bar_h * rates.len() as f64 + 10.0;
    let mut s = format!(
        "<svg width=\"{}\" height=\"{h}\" role=\"img\" \
         aria-label=\"operations per second of each chunk\">",
        left + width + 120.0
    );
    for (i, (index, rate)) in rates.iter().enumerate() {
        let yv = 4.0 + bar_h * i as f64;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">chunk {index}</text><rect x=\"{left}\" \
             y=\"{yv:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#4a8\"/><text x=\"{:.1}\" \
             y=\"{:.1}\">{:.0}/s</text>",
            left - 6.0,
            yv + bar_h - 4.0,
            width * rate / max,
            bar_h - 3.0,
            left + width * rate / max + 6.0,
            yv + bar_h - 4.0,
            rate
        );
    }
    s.push_str("</svg>");
    s
}

/// The whole page for `r`, to be written at `page` (links to waveforms are made relative to
/// it); `coverage_file` is where the run wrote its coverage, if it did.
pub fn page(r: &RunResult, page: &Path, coverage_file: Option<&Path>) -> String {
    let mut s = String::new();
    let verdict = r.verdict();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <title>fma-cosim run, seed {}</title><style>{STYLE}</style></head><body>",
        r.params.seed
    );
    let _ = write!(
        s,
        "<h1>fma-cosim run: <span class=\"{}\">{}</span></h1>",
        if r.passed { "pass" } else { "fail" },
        esc(&verdict)
    );
    if let Some(line) = r.stopped_line() {
        let _ = write!(
            s,
            "<p class=\"stopped\">{}</p>",
            super::tick_code(&esc(&line))
        );
    }

    // The divergences first: what a reader of a failed run came for.
    super::divergence::section(&mut s, r, page);

    // Parameters and the command.
    let p = &r.params;
    s.push_str("<h2>Run</h2><table>");
    let mut row = |k: &str, v: String| {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    };
    row("seed", p.seed.to_string());
    row("operations", p.count.to_string());
    row("families", p.filter.join(", "));
    row(
        "chunks",
        format!(
            "{} of {} planned, {} operations each",
            r.chunks.len(),
            r.chunks_planned,
            p.chunk_size
        ),
    );
    // A team's design by its top and build, not as one of the kit's RTL variants.
    match p.rtl.strip_prefix("dut:") {
        Some(_) => row("design", ptxfma_cosim_engine::dut::describe(&p.rtl)),
        None => row("RTL", p.rtl.clone()),
    }
    row("reference", p.golden.clone());
    row("compare", p.compare.clone());
    if let Some(nan) = p.nan.as_ref().filter(|n| *n != "ptx") {
        let accepted: u64 = r.families.iter().map(|f| f.nan_accepted).sum();
        row(
            "NaN convention",
            format!("{nan}: {accepted} result(s) accepted that PTX's rule would not"),
        );
    }
    row("workers", r.jobs.to_string());
    row("wall time", format!("{:.1} s", r.seconds));
    row(
        "tool",
        format!("{} {}, {}", r.tool.name, r.tool.version, r.verilator),
    );
    s.push_str("</table><p>Reproduce (any <code>--jobs</code> gives the same result):</p>");
    let _ = write!(s, "<pre>{}</pre>", esc(&command(r, page)));

    // Families.
    s.push_str(
        "<h2>Families</h2><table><tr><th>family</th><th class=\"num\">vectors</th>\
         <th class=\"num\">divergences</th><th class=\"num\">vectors/s per worker</th></tr>",
    );
    for f in &r.families {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            esc(&f.family),
            f.vectors,
            f.divergences,
            rate(f.vectors, f.seconds)
        );
    }
    let Totals {
        vectors: v,
        seconds: t,
        ..
    } = r.totals();
    let _ = write!(
        s,
        "<tr><th>total</th><th class=\"num\">{v}</th><th class=\"num\">{}</th>\
         <th class=\"num\">{}</th></tr></table>",
        r.divergence_count(),
        rate(v, t)
    );

    // Coverage.
    s.push_str("<h2>Coverage closure</h2>");
    match &r.coverage {
        None => s.push_str("<p>No coverage was sampled.</p>"),
        Some(c) => coverage_section(&mut s, c, r, coverage_file),
    }

    // Throughput.
    s.push_str("<h2>Throughput per worker</h2>");
    let _ = write!(
        s,
        "<p>{} operations in {:.1} s of worker time over {} worker(s): {} operations/s per \
         worker. Each chunk runs on one worker:</p>",
        v,
        t,
        r.jobs,
        rate(v, t)
    );
    s.push_str(&throughput_svg(r));
    s.push_str("</body></html>\n");
    s
}

fn coverage_section(s: &mut String, c: &Coverage, r: &RunResult, coverage_file: Option<&Path>) {
    let closure = c.closure();
    let n = closure.curves.len();
    let (hit, of) = closure
        .points
        .last()
        .map_or((0, 0), |p| (p.1[n - 1], closure.reachable[n - 1]));
    let _ = write!(
        s,
        "<p>{}{}.</p>",
        esc(&crate::coverage_text::headline(&c.totals(), c.operations())),
        crate::coverage_text::sampled_note(c, r.totals().vectors, &r.params.golden)
            .map_or(String::new(), |n| format!("; {}", esc(&n)))
    );
    let _ = write!(
        s,
        "<p>{hit} of {of} reachable bins hit after {} operations. Each curve is the share of \
         its family's reachable bins hit by then (groups of no one family: <code>shared</code>); \
         a bin counts from the first check (every quarter more operations) after its first \
         hit.</p>",
        c.operations()
    );
    s.push_str(&closure_svg(&closure));
    // The points, for reading and for checking: the last row is the summary.
    s.push_str(
        "<details><summary>the curve's points</summary><table id=\"closure\"><tr>\
         <th class=\"num\">operations</th>",
    );
    for (name, r) in closure.curves.iter().zip(&closure.reachable) {
        let _ = write!(s, "<th class=\"num\">{} (of {r})</th>", esc(name));
    }
    s.push_str("</tr>");
    for (ops, hits) in &closure.points {
        let _ = write!(s, "<tr><td class=\"num\">{ops}</td>");
        for h in hits {
            let _ = write!(s, "<td class=\"num\">{h}</td>");
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></details>");

    let rows = c.rows();
    let unhit: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_none() && r.hits == 0)
        .collect();
    let mut thin: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_none() && r.hits > 0)
        .collect();
    thin.sort_by_key(|r| r.hits);
    thin.truncate(THINNEST);
    // Folded: a hundred rows would bury the rest of the page.
    let _ = write!(
        s,
        "<h2>Thinnest bins</h2><details id=\"thinnest\"><summary>{} reachable bin(s) unhit, \
         and the {} least hit{}: {} row(s)</summary><table><tr><th class=\"num\">hits</th>\
         <th>group</th><th>bin</th></tr>",
        unhit.len(),
        thin.len(),
        match (thin.first(), thin.last()) {
            (Some(a), Some(b)) if a.hits == b.hits => format!(" ({} hit(s) each)", a.hits),
            (Some(a), Some(b)) => format!(" ({} to {} hits)", a.hits, b.hits),
            _ => String::new(),
        },
        unhit.len().min(UNHIT_SHOWN) + thin.len()
    );
    for r in unhit.iter().take(UNHIT_SHOWN) {
        let _ = write!(
            s,
            "<tr class=\"unhit\"><td class=\"num\">0</td><td>{}</td><td>{}</td></tr>",
            esc(r.group),
            esc(r.bin)
        );
    }
    for r in &thin {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            r.hits,
            esc(r.group),
            esc(r.bin)
        );
    }
    let _ = write!(
        s,
        "</table><p>{} reachable bin(s) unhit (listed first, in red{}), then the {} with the \
         fewest hits; {}.</p></details>",
        unhit.len(),
        if unhit.len() > UNHIT_SHOWN {
            format!(", the first {UNHIT_SHOWN}")
        } else {
            String::new()
        },
        thin.len(),
        every_bin(coverage_file)
    );
}

/// Writes the page for `r` to `path` (whole or not at all); `coverage_file` as [`page`]'s.
pub fn write(
    r: &RunResult,
    path: &Path,
    coverage_file: Option<&Path>,
) -> Result<(), ptxfma_cosim_engine::Error> {
    ptxfma_cosim_engine::temporary::write_atomically(path, page(r, path, coverage_file).as_bytes())
}

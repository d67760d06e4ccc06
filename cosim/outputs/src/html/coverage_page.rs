//! The HTML report: one self-contained page (inline CSS; no scripts, fonts or images), a bar
//! per group, and each group's bins in a `<details>` element, uncovered bins first.

use std::fmt::Write;

use super::esc;
use ptxfma_cosim_checks::coverage::Coverage;

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:72em}
h1{font-size:1.4em}
table{border-collapse:collapse;width:100%}
td,th{padding:2px 8px;text-align:left;vertical-align:top}
th{border-bottom:1px solid #999}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.bar{width:16em;background:#eee;height:1em;border:1px solid #bbb}
.fill{height:100%;background:#3a7}
.low .fill{background:#d93}
.none .fill{background:#c33}
details{margin:.3em 0}
summary{cursor:pointer;font-family:monospace}
.doc{color:#555;margin:.2em 0 .4em 1.2em}
.bins td{font-family:monospace;font-size:.9em}
.unc{color:#b00;font-weight:bold}
.unr{color:#888}
.bad{color:#fff;background:#b00}
";

fn bar(pct: f64) -> String {
    let class = if pct >= 100.0 {
        ""
    } else if pct >= 95.0 {
        " low"
    } else {
        " none"
    };
    format!(
        "<div class=\"bar{class}\"><div class=\"fill\" style=\"width:{:.1}%\"></div></div>",
        pct.clamp(0.0, 100.0)
    )
}

/// The whole page.
pub fn page(c: &Coverage) -> String {
    let groups = c.groups();
    let rows = c.rows();
    let t = c.totals();
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>ptxfma functional coverage</title><style>{STYLE}</style></head><body>\n"
    );
    let _ = writeln!(
        s,
        "<h1>ptxfma functional coverage: {:.1}%</h1>\n<p>{} (listed with their reasons).{}</p>",
        t.percent(),
        esc(&crate::coverage_text::headline(&t, c.operations())),
        if t.unreachable_hit > 0 {
            format!(
                " <span class=\"bad\">{} bin(s) declared unreachable or outside the run were \
                 hit: their declarations are wrong.</span>",
                t.unreachable_hit
            )
        } else {
            String::new()
        }
    );
    s.push_str(
        "<table><tr><th>group</th><th>coverage</th><th class=\"num\">hit / reachable</th>\
         <th class=\"num\">%</th><th class=\"num\">unreachable</th></tr>\n",
    );
    for g in &groups {
        let _ = writeln!(
            s,
            "<tr><td><a href=\"#{id}\">{name}</a></td><td>{bar}</td>\
             <td class=\"num\">{} / {}</td><td class=\"num\">{:.1}</td>\
             <td class=\"num\">{}</td></tr>",
            g.hit,
            g.reachable,
            g.percent(),
            g.unreachable,
            id = esc(&g.name),
            name = esc(&g.name),
            bar = bar(g.percent()),
        );
    }
    s.push_str("</table>\n<h2>Bins by group</h2>\n");
    for g in &groups {
        let mine: Vec<_> = rows.iter().filter(|r| r.group == g.name).collect();
        let _ = writeln!(
            s,
            "<details id=\"{}\"{}><summary>{} &mdash; {} / {} ({:.1}%)</summary>\
             <div class=\"doc\">{}</div><table class=\"bins\">",
            esc(&g.name),
            if g.hit < g.reachable || g.unreachable_hit > 0 {
                " open"
            } else {
                ""
            },
            esc(&g.name),
            g.hit,
            g.reachable,
            g.percent(),
            esc(&g.doc)
        );
        // Uncovered first, then wrongly unreachable, covered, unreachable.
        let mut sorted = mine;
        sorted.sort_by_key(|r| match (r.unreachable.is_some(), r.hits > 0) {
            (false, false) => 0,
            (true, true) => 1,
            (false, true) => 2,
            (true, false) => 3,
        });
        for r in sorted {
            let (class, note) = match (r.unreachable, r.hits > 0) {
                (None, false) => ("unc", "uncovered".to_string()),
                (None, true) => ("", String::new()),
                (Some(w), false) => ("unr", format!("unreachable: {w}")),
                (Some(w), true) => ("bad", format!("declared unreachable ({w}) but hit")),
            };
            let _ = writeln!(
                s,
                "<tr class=\"{class}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                r.hits,
                esc(r.bin),
                esc(&note)
            );
        }
        s.push_str("</table></details>\n");
    }
    s.push_str("</body></html>\n");
    s
}

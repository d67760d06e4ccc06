//! The run page's divergences: per signature, its first divergence as the report gives it,
//! built from the result's structured fields (so `merge --html` draws the same): where it was
//! seen, the differing fields with both values, the instruction and its operands decoded, the
//! result `d` decoded lane by lane, the issue and retire cycles of a ports divergence, the RTL
//! module that drives a differing register field, the replay commands, the waveform links, and
//! the report as printed.

use std::fmt::Write as _;
use std::path::Path;

use ptxfma_model::ctrl::Ctrl;

use super::esc;
use super::href;
use crate::report;
use crate::results::{DivergenceRow, RunResult, SignatureRow};
use crate::rtl_drivers;
use ptxfma_cosim_engine::frame::Bank;

/// Differing fields listed per divergence, as in the report.
const MAX_FIELDS: usize = 8;

/// The section: a line per signature, then each signature's first divergence.
pub fn section(s: &mut String, r: &RunResult, page: &Path) {
    s.push_str("<h2>Divergences</h2>");
    if r.signatures.is_empty() {
        s.push_str("<p>None.</p>");
        return;
    }
    s.push_str("<table><tr><th class=\"num\">count</th><th>signature</th></tr>");
    for (k, g) in r.signatures.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td><a href=\"#sig{k}\"><code>{}</code></a></td></tr>",
            g.count,
            esc(&g.signature)
        );
    }
    s.push_str("</table>");
    for (k, g) in r.signatures.iter().enumerate() {
        let first = r
            .divergences
            .iter()
            .find(|d| d.chunk == g.first_chunk && d.cycle == g.first_cycle);
        let _ = write!(
            s,
            "<div class=\"div\" id=\"sig{k}\"><h3><code>{}</code></h3><p>{} divergence(s) with \
             this signature, {} listed in the JSON; the first:</p>",
            esc(&g.signature),
            g.count,
            g.listed
        );
        match first {
            Some(d) => card(s, r, g, d, page),
            None => s.push_str("<p>(its first divergence is not in the result)</p>"),
        }
        s.push_str("</div>");
    }
}

/// Raw bits from the JSON's hex text.
fn bits(v: &Option<String>) -> Option<u64> {
    let t = v.as_deref()?;
    u64::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16).ok()
}

/// One row of the card's table (`v` is HTML).
fn row(s: &mut String, k: &str, v: &str) {
    let _ = write!(s, "<tr><th>{}</th><td>{v}</td></tr>", esc(k));
}

fn code(t: &str) -> String {
    format!("<code>{}</code>", esc(t))
}

/// The first divergence of signature `g`.
fn card(s: &mut String, r: &RunResult, g: &SignatureRow, d: &DivergenceRow, page: &Path) {
    let ports = d.stage == "ports";
    let bank = Bank::ALL.into_iter().find(|b| b.name() == d.stage);
    s.push_str("<table class=\"card\">");
    row(
        s,
        "where",
        &esc(&if ports {
            format!("chunk {}, seen in cycle {}", d.chunk, d.cycle)
        } else {
            format!(
                "chunk {}, cycle {} (banks after its rising edge)",
                d.chunk, d.cycle
            )
        }),
    );
    row(
        s,
        "stage",
        &esc(&match bank {
            Some(b) if !ports => format!("{} ({})", b.name(), b.rtl_name()),
            _ => "output ports".to_string(),
        }),
    );
    // The differing fields (registers), or the port (ports).
    if d.fields.is_empty() {
        row(s, "field", &code(&d.field));
    } else {
        let mut t = String::from(
            "<table class=\"fields\"><tr><th>field</th><th class=\"num\">bits</th>\
             <th>expected</th><th>actual</th></tr>",
        );
        for f in d.fields.iter().take(MAX_FIELDS) {
            let _ = write!(
                t,
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td><code>{}</code></td>\
                 <td><code class=\"bad\">{}</code></td></tr>",
                esc(&f.name),
                f.width,
                esc(&f.expected),
                esc(&f.actual)
            );
        }
        t.push_str("</table>");
        if d.fields.len() > MAX_FIELDS {
            let _ = write!(
                t,
                "... and {} more fields (the JSON lists them)",
                d.fields.len() - MAX_FIELDS
            );
        }
        row(s, "fields", &t);
    }
    operation(s, r, d);
    if let Some(b) = bank.filter(|_| !ports) {
        drivers(s, r, b, &d.field);
    }
    if !d.reproduce.is_empty() {
        row(
            s,
            "reproduce",
            &format!("<pre>{}</pre>", esc(&d.reproduce.join("\n"))),
        );
    }
    let mut links = Vec::new();
    if let Some(w) = &g.waveform {
        links.push(format!(
            "<a href=\"{}\">waveform</a> (<code>{}</code>)",
            esc(&href(page, w)),
            esc(w)
        ));
    }
    if let Some(w) = &g.waveform_save {
        links.push(format!(
            "<a href=\"{}\">GTKWave save file</a> (<code>{}</code>: opens on the \
             divergence)",
            esc(&href(page, w)),
            esc(&crate::command::ShellCommand::new("gtkwave")
                .arg(w.as_str())
                .to_string())
        ));
    }
    if !links.is_empty() {
        row(s, "waveform", &links.join("<br/>"));
    }
    s.push_str("</table>");
    let _ = write!(
        s,
        "<details><summary>the report as printed</summary><pre>{}</pre></details>",
        esc(&d.report)
    );
}

/// The instruction, its operands and result decoded by the format it reads them in, and the
/// cycles it was issued (and, at the ports, retired) in.
fn operation(s: &mut String, r: &RunResult, d: &DivergenceRow) {
    let ports = d.stage == "ports";
    let Some(ctrl) = bits(&d.ctrl).map(|w| Ctrl::decode(w as u32)) else {
        // No operation: the reset state, or a tag retired with nothing in flight.
        if ports {
            // No tag in the row: a design without tag ports (its results in issue order).
            let what = match d.tag.as_deref() {
                Some(tag) => format!(
                    "tag {tag} retired in cycle {} (d = {}), and no operation with that tag was \
                     in flight",
                    d.cycle,
                    d.actual.as_deref().unwrap_or("?")
                ),
                None => format!(
                    "a result retired in cycle {} (d = {}), and no operation was in flight",
                    d.retire.unwrap_or(d.cycle),
                    d.actual.as_deref().unwrap_or("?")
                ),
            };
            row(s, "what", &esc(&what));
        } else {
            row(
                s,
                "instruction",
                "none: the bank still holds its reset value (all zero)",
            );
        }
        return;
    };
    let spelling = ptxfma_cosim_engine::stim::ptx_spelling(&ctrl);
    let what = if d.instruction == "bubble" {
        format!("bubble (valid = 0) carrying {spelling}")
    } else {
        spelling
    };
    row(
        s,
        "instruction",
        &format!(
            "{} <span class=\"dim\">({}ctrl {})</span>",
            code(&what),
            // Null for a design without tag ports: nothing to name.
            d.tag
                .as_deref()
                .map_or(String::new(), |t| format!("tag {}, ", esc(t))),
            esc(d.ctrl.as_deref().unwrap_or("-"))
        ),
    );
    let mut ops = String::new();
    for (k, (name, v)) in [("a", &d.a), ("b", &d.b), ("c", &d.c)]
        .into_iter()
        .enumerate()
    {
        if let Some(v) = bits(v) {
            let _ = write!(
                ops,
                "{}<code>{name} = {}</code>",
                if k > 0 { "<br/>" } else { "" },
                esc(&report::operand(&ctrl, k, v))
            );
        }
    }
    row(s, "operands", &ops);
    let show = |v: &Option<String>| bits(v).map(|v| report::result(&ctrl, v));
    let (expected, actual) = (show(&d.expected), show(&d.actual));
    if ports {
        row(
            s,
            "result d",
            &format!(
                "expected <code>{}</code><br/>retired&#160; <code class=\"bad\">{}</code>",
                esc(expected.as_deref().unwrap_or("none")),
                esc(actual.as_deref().unwrap_or("none"))
            ),
        );
    } else if let (Some(e), Some(a)) = (&expected, &actual) {
        row(
            s,
            "result d",
            &format!(
                "expected <code>{}</code><br/>actual&#160;&#160; <code{}>{}</code><br/>\
                 <span class=\"dim\">(the operation replayed alone{})</span>",
                esc(e),
                if e != a { " class=\"bad\"" } else { "" },
                esc(a),
                if e == a {
                    ": the same result, the difference stays inside the pipe"
                } else {
                    ""
                }
            ),
        );
    }
    let bound = r
        .params
        .latency_bound
        .map_or(String::new(), |b| format!("; bound {b}"));
    let cycles = match (d.issue, d.retire, ports) {
        (Some(i), Some(t), true) => format!(
            "issued {i}, retired {t} (latency {}{bound})",
            t.saturating_sub(i)
        ),
        (Some(i), None, true) => format!("issued {i}, not retired by cycle {}{bound}", d.cycle),
        (Some(i), _, false) => format!("presented in cycle {i}, diverged in cycle {}", d.cycle),
        _ => String::new(),
    };
    if !cycles.is_empty() {
        row(s, "cycles", &esc(&cycles));
    }
}

/// The RTL modules that drive the first differing field, read from the pipe's sources; with
/// the variant's defines (a planted fault's), what they add.
fn drivers(s: &mut String, r: &RunResult, bank: Bank, field: &str) {
    let clean = rtl_drivers::drivers(bank.rtl_name(), field, &[]);
    if clean.is_empty() {
        return;
    }
    let defines: Vec<&str> = ptxfma_cosim_engine::rtl::variant(&r.params.rtl)
        .map(|v| v.defines.to_vec())
        .unwrap_or_default();
    let with = rtl_drivers::drivers(bank.rtl_name(), field, &defines);
    let mut t: Vec<String> = clean.iter().map(|d| esc(&d.describe())).collect();
    let added: Vec<String> = with
        .iter()
        .filter(|d| !clean.contains(d))
        .map(|d| esc(&d.describe()))
        .collect();
    if !added.is_empty() {
        t.push(format!(
            "<span class=\"bad\">with this variant's defines ({}), also: {}</span>",
            esc(&defines.join(", ")),
            added.join("; ")
        ));
    }
    row(
        s,
        &format!("RTL driving {}.{field}", bank.rtl_name()),
        &super::tick_code(&t.join("<br/>")),
    );
}

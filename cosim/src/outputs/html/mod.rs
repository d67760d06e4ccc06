//! HTML pages: the run ([`run`], its divergences in `divergence.rs`) and the coverage
//! ([`coverage`]), self-contained, over one escaping rule.

pub mod coverage;
mod divergence;
pub mod run;

/// `s` with HTML's special characters escaped.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// HTML with its backquoted spans (`--max-divergences 20`, as the text outputs quote names)
/// set as code.
pub(crate) fn tick_code(html: &str) -> String {
    if html.matches('`').count() % 2 == 1 {
        return html.to_string();
    }
    let mut out = String::with_capacity(html.len());
    for (k, part) in html.split('`').enumerate() {
        if k % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

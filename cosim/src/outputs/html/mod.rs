//! HTML pages: the run ([`run`]) and the coverage ([`coverage`]), self-contained, over one
//! escaping rule.

pub mod coverage;
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

//! HTML pages: the run ([`run_page`], its divergences in `divergence.rs`) and the coverage
//! ([`coverage_page`]), self-contained, over one escaping rule and one way to link a file.

pub mod coverage_page;
mod divergence;
pub mod run_page;

use std::path::{Component, Path, PathBuf};

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

/// A link from the page at `page` to `target` (as the run printed it, relative to where it
/// ran): relative when both are relative, else absolute.
pub(crate) fn href(page: &Path, target: &str) -> String {
    let target = Path::new(target);
    let base = page.parent().unwrap_or(Path::new(""));
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (t, b) = (abs(target), abs(base));
    let tc: Vec<Component> = t.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let mut rel = PathBuf::new();
    for _ in common..bc.len() {
        rel.push("..");
    }
    for c in &tc[common..] {
        rel.push(c);
    }
    rel.to_string_lossy().replace(' ', "%20")
}

//! Text reports: the per-group summary and the bin listing, uncovered bins first.

use std::fmt::Write;

use crate::checks::coverage::Coverage;

/// The per-group table: bins hit / reachable, percent, unreachable bins.
pub fn summary(c: &Coverage) -> String {
    let groups = c.groups();
    let t = c.totals();
    let w = groups
        .iter()
        .map(|g| g.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "functional coverage: {} of {} reachable bins hit ({:.1}%), {} operations; \
         {} bins declared unreachable",
        t.hit,
        t.reachable,
        t.percent(),
        c.operations(),
        t.unreachable
    );
    let _ = writeln!(
        s,
        "  {:<w$}  {:>5} / {:<5} {:>6}  {:>11}",
        "group", "hit", "reach", "%", "unreachable"
    );
    for g in &groups {
        let _ = writeln!(
            s,
            "  {:<w$}  {:>5} / {:<5} {:>5.1}%  {:>11}{}",
            g.name,
            g.hit,
            g.reachable,
            g.percent(),
            g.unreachable,
            if g.unreachable_hit > 0 {
                format!("  ({} unreachable bin(s) HIT)", g.unreachable_hit)
            } else {
                String::new()
            }
        );
    }
    if t.unreachable_hit > 0 {
        let _ = writeln!(
            s,
            "error: {} bin(s) declared unreachable were hit: their declarations are wrong",
            t.unreachable_hit
        );
    }
    if c.unspelled() > 0 {
        let _ = writeln!(
            s,
            "note: {} valid operation(s) had a control word no instruction decodes to (not \
             binned)",
            c.unspelled()
        );
    }
    s
}

/// The summary, then the uncovered bins, the wrongly unreachable ones, (with `all`) the
/// covered bins and their counts, and the unreachable bins with their reasons.
pub fn text(c: &Coverage, all: bool) -> String {
    let rows = c.rows();
    let mut s = summary(c);
    let uncovered: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_none() && r.hits == 0)
        .collect();
    let _ = writeln!(s, "\nuncovered bins ({}):", uncovered.len());
    for r in &uncovered {
        let _ = writeln!(s, "  {}: {}", r.group, r.bin);
    }
    let bad: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_some() && r.hits > 0)
        .collect();
    if !bad.is_empty() {
        let _ = writeln!(s, "\ndeclared unreachable but hit ({}):", bad.len());
        for r in &bad {
            let _ = writeln!(
                s,
                "  {}: {}  {} hit(s); declared: {}",
                r.group,
                r.bin,
                r.hits,
                r.unreachable.unwrap_or_default()
            );
        }
    }
    if all {
        let covered: Vec<_> = rows
            .iter()
            .filter(|r| r.unreachable.is_none() && r.hits > 0)
            .collect();
        let _ = writeln!(s, "\ncovered bins ({}):", covered.len());
        for r in &covered {
            let _ = writeln!(s, "  {:>12}  {}: {}", r.hits, r.group, r.bin);
        }
    }
    let unr: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_some() && r.hits == 0)
        .collect();
    let _ = writeln!(s, "\nunreachable bins ({}):", unr.len());
    for r in &unr {
        let _ = writeln!(
            s,
            "  {}: {}  -- {}",
            r.group,
            r.bin,
            r.unreachable.unwrap_or_default()
        );
    }
    s
}

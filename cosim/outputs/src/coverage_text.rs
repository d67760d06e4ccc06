//! Text reports: the per-group summary and the bin listing, uncovered bins first.

use std::fmt::Write;

use ptxfma_cosim_checks::coverage::{Coverage, Totals};

/// The headline, as the text and HTML reports give it: bins hit of the bins the run can
/// reach, then those outside its families and forms (when there are any), then those no
/// instruction reaches.
pub fn headline(t: &Totals, operations: u64) -> String {
    let of = if t.outside == 0 {
        "reachable bins".to_string()
    } else {
        "bins the run's families and forms reach".to_string()
    };
    let outside = if t.outside == 0 {
        String::new()
    } else {
        format!(" {} bins outside them;", t.outside)
    };
    format!(
        "{} of {} {of} hit ({:.1}%), {operations} operations;{outside} {} bins declared \
         unreachable",
        t.hit,
        t.reachable,
        t.percent(),
        t.unreachable
    )
}

/// The one line `run` prints of its coverage: the headline, a note where its operations are
/// not the ones the summary table counts (`compared`), and, with `file`, where the per-group
/// table is.
pub fn run_line(
    c: &Coverage,
    compared: u64,
    golden: &str,
    file: Option<&std::path::Path>,
) -> String {
    let mut s = format!(
        "functional coverage: {}",
        headline(&c.totals(), c.operations())
    );
    if let Some(note) = sampled_note(c, compared, golden) {
        let _ = write!(s, "; {note}");
    }
    if let Some(f) = file {
        let _ = write!(
            s,
            " (per group: --coverage-table, or `fma-cosim coverage {}`)",
            f.display()
        );
    }
    s
}

/// Why the operations the coverage counts differ from the `compared` ones the summary table
/// counts; none when they are the same. Coverage samples the cycles the run compared, so they
/// differ only where it samples nothing (a reference other than the model, whose stage
/// registers it reads), where operations had a control word no instruction decodes to (counted
/// apart), or in a merge whose shards ran chunks past its cut at `--max-divergences`.
pub fn sampled_note(c: &Coverage, compared: u64, golden: &str) -> Option<String> {
    let sampled = c.operations() + c.unspelled();
    if sampled == 0 && compared > 0 && golden != "model" {
        return Some(format!(
            "nothing sampled: coverage reads the model's stage registers, and the reference is \
             `{golden}`"
        ));
    }
    if sampled == compared {
        return (c.unspelled() > 0).then(|| {
            format!(
                "{} more operation(s) compared had a control word no instruction decodes to \
                 (not binned)",
                c.unspelled()
            )
        });
    }
    Some(format!(
        "{sampled} operations sampled, {compared} compared{}",
        if sampled > compared {
            " (the shards ran chunks after the merge's cut at --max-divergences)"
        } else {
            ""
        }
    ))
}

/// The per-group table: bins hit / reachable, percent, unreachable bins (and those outside the
/// run, when there are any); groups wholly outside the run are counted, not listed.
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
    let _ = writeln!(s, "functional coverage: {}", headline(&t, c.operations()));
    let outside_column = |n: usize| {
        if t.outside > 0 {
            format!("  {n:>7}")
        } else {
            String::new()
        }
    };
    let _ = writeln!(
        s,
        "  {:<w$}  {:>5} / {:<5} {:>6}  {:>11}{}",
        "group",
        "hit",
        "reach",
        "%",
        "unreachable",
        if t.outside > 0 { "  outside" } else { "" }
    );
    let mut hidden = 0;
    for g in &groups {
        if g.reachable == 0 && g.outside > 0 && g.unreachable_hit == 0 {
            hidden += 1;
            continue;
        }
        let _ = writeln!(
            s,
            "  {:<w$}  {:>5} / {:<5} {:>5.1}%  {:>11}{}{}",
            g.name,
            g.hit,
            g.reachable,
            g.percent(),
            g.unreachable,
            outside_column(g.outside),
            if g.unreachable_hit > 0 {
                format!("  ({} unreachable bin(s) HIT)", g.unreachable_hit)
            } else {
                String::new()
            }
        );
    }
    if hidden > 0 {
        let _ = writeln!(
            s,
            "  ({hidden} group(s) wholly outside the run's families and forms not listed)"
        );
    }
    if t.unreachable_hit > 0 {
        let _ = writeln!(
            s,
            "error: {} bin(s) declared unreachable or outside the run were hit: their \
             declarations are wrong",
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
    let outside: Vec<_> = rows.iter().filter(|r| r.outside && r.hits == 0).collect();
    if !outside.is_empty() {
        if all {
            let _ = writeln!(
                s,
                "\noutside the run's families and forms ({}):",
                outside.len()
            );
            for r in &outside {
                let _ = writeln!(
                    s,
                    "  {}: {}  -- {}",
                    r.group,
                    r.bin,
                    r.unreachable.unwrap_or_default()
                );
            }
        } else {
            let _ = writeln!(
                s,
                "\n{} bin(s) outside the run's families and forms (listed with --all)",
                outside.len()
            );
        }
    }
    let unr: Vec<_> = rows
        .iter()
        .filter(|r| r.unreachable.is_some() && !r.outside && r.hits == 0)
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

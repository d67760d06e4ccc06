//! The results as `run` and `merge` print them: the per-family table and the verdict.

use std::fmt::Write as _;

use super::{rate, RunResult, Totals};

impl RunResult {
    /// The per-family table as `run` prints it, then the signatures.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<12} {:>12} {:>12} {:>12}",
            "family", "vectors", "divergences", "vectors/s"
        );
        for r in &self.families {
            let _ = writeln!(
                s,
                "{:<12} {:>12} {:>12} {:>12}",
                r.family,
                r.vectors,
                r.divergences,
                rate(r.vectors, r.seconds)
            );
        }
        let Totals {
            vectors: v,
            cycles: c,
            seconds: t,
        } = self.totals();
        let _ = writeln!(
            s,
            "{:<12} {:>12} {:>12} {:>12}   ({c} cycles in {} chunks; vectors/s per worker)",
            "total",
            v,
            self.divergence_count(),
            rate(v, t),
            self.chunks.len()
        );
        // PTX's rule is the kit's own: only another convention is named.
        if let Some(nan) = self.params.nan.as_ref().filter(|n| *n != "ptx") {
            let accepted: Vec<String> = self
                .families
                .iter()
                .filter(|r| r.nan_accepted > 0)
                .map(|r| format!("{} {}", r.family, r.nan_accepted))
                .collect();
            let _ = writeln!(
                s,
                "NaN convention `{nan}`: {} result(s) accepted that PTX's rule would not{}",
                self.families.iter().map(|r| r.nan_accepted).sum::<u64>(),
                if accepted.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", accepted.join(", "))
                }
            );
        }
        if !self.signatures.is_empty() {
            let _ = writeln!(
                s,
                "\n{:>8}  signature (stage field | family | instruction)",
                "count"
            );
            for g in &self.signatures {
                let _ = writeln!(s, "{:>8}  {}", g.count, g.signature);
            }
            let unlisted: usize = self
                .signatures
                .iter()
                .map(|g| g.count.saturating_sub(g.listed))
                .sum();
            if unlisted > 0 {
                let _ = writeln!(
                    s,
                    "({unlisted} divergence(s) counted but not listed: --max-examples {} per \
                     signature)",
                    self.params.max_examples
                );
            }
        }
        s
    }

    /// The line that says the run stopped at `--max-divergences` before its end, and what
    /// runs on; none when it ran to its end.
    pub fn stopped_line(&self) -> Option<String> {
        let st = self.stopped.as_ref()?;
        let at = if st.divergences == 1 {
            "at the first divergence".to_string()
        } else {
            format!(
                "at {} divergences (--max-divergences {})",
                st.divergences, self.params.max_divergences
            )
        };
        Some(format!(
            "stopped {at} after {} of {} operations; `--max-divergences {}` runs on (about {} \
             divergence(s) in the whole run at this rate)",
            st.operations, st.planned, st.run_on, st.expected
        ))
    }

    /// The verdict line.
    pub fn verdict(&self) -> String {
        let div = self.divergence_count();
        if !self.problems.is_empty() {
            return format!(
                "INCOMPLETE: {}; {div} divergence(s) in what is there",
                self.problems.join("; ")
            );
        }
        match (div, self.interrupted) {
            (0, false) => "PASSED: no divergence".into(),
            (0, true) => "INTERRUPTED: no divergence in the part that ran".into(),
            (n, i) => format!(
                "FAILED: {n} divergence(s) in {} signature(s){}",
                self.signatures.len(),
                if i { " (interrupted)" } else { "" }
            ),
        }
    }
}

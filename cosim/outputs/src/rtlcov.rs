//! RTL code coverage (`run --rtl coverage --rtl-coverage FILE`, `make coverage`).
//!
//! The `coverage` variant (cargo feature `rtl-coverage`) is Verilated with `--coverage-line
//! --coverage-toggle`. Every worker's model has its own `VerilatedContext`, so its counts are
//! its own: each worker writes them to a temporary beside `FILE` when it finishes ([`ptxfma_cosim_engine::regress::worker_file`]), and
//! [`merge_workers`] sums them into `FILE`, in Verilator's `.dat` format, which
//! `verilator_coverage` reads (annotated sources, lcov `.info`). [`Summary`] computes the
//! figures from a `.dat`: line (line and branch points) and toggle, per source file, with the
//! simulation-only wrapper (`rtl/sim/`) counted apart from the design.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use ptxfma_cosim_engine::regress::worker_file;

use ptxfma_cosim_engine::Error;

/// Header line of a Verilator coverage file.
const HEADER: &str = "# SystemC::Coverage-3";

/// One coverage point of a `.dat` file: its key (Verilator's `\x01key\x02value` list) and count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub key: String,
    pub count: u64,
}

impl Point {
    /// The value of the short key `k` (`f` file, `l` line, `page` type/module, `o` comment).
    pub fn get(&self, k: &str) -> Option<&str> {
        self.key.split('\x01').find_map(|kv| {
            let (key, v) = kv.split_once('\x02')?;
            (key == k).then_some(v)
        })
    }

    /// `line`, `branch`, `toggle`, ...: the page's type, without its `v_` prefix.
    pub fn kind(&self) -> &str {
        let page = self.get("page").unwrap_or("");
        let t = page.split('/').next().unwrap_or(page);
        t.strip_prefix("v_").unwrap_or(t)
    }
}

/// Parses a Verilator coverage file: `C '<key>' <count>` lines after the header.
pub fn parse(text: &str, name: &Path) -> Result<Vec<Point>, Error> {
    let bad = |n: usize| {
        Error::new(format!(
            "{}:{n}: not a Verilator coverage line",
            name.display()
        ))
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim_end() == HEADER => {}
        _ => {
            return Err(Error::new(format!(
                "{}: not a Verilator coverage file (no `{HEADER}` header)",
                name.display()
            )))
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let rest = line.strip_prefix("C '").ok_or_else(|| bad(i + 1))?;
        let (key, count) = rest.rsplit_once("' ").ok_or_else(|| bad(i + 1))?;
        let count = count.trim().parse().map_err(|_| bad(i + 1))?;
        out.push(Point {
            key: key.to_string(),
            count,
        });
    }
    Ok(out)
}

/// Reads and parses a `.dat` file.
pub fn read(path: &Path) -> Result<Vec<Point>, Error> {
    let text =
        fs::read_to_string(path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    parse(&text, path)
}

/// Sums points with the same key, keeping the order in which keys first appear.
pub fn merge(sets: &[Vec<Point>]) -> Vec<Point> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out: Vec<Point> = Vec::new();
    for p in sets.iter().flatten() {
        match index.get(p.key.as_str()) {
            Some(&i) => out[i].count += p.count,
            None => {
                index.insert(&p.key, out.len());
                out.push(p.clone());
            }
        }
    }
    out
}

/// Writes points in Verilator's `.dat` format.
pub fn write(path: &Path, points: &[Point]) -> Result<(), Error> {
    let mut text = format!("{HEADER}\n");
    for p in points {
        writeln!(text, "C '{}' {}", p.key, p.count).unwrap();
    }
    ptxfma_cosim_engine::temporary::write_atomically(path, text.as_bytes())
}

/// Sums the files of workers `0..jobs` (those that ran a chunk wrote one) into `file` and
/// deletes them. Returns the merged points.
pub fn merge_workers(file: &Path, jobs: usize) -> Result<Vec<Point>, Error> {
    let mut sets = Vec::new();
    let mut parts = Vec::new();
    for k in 0..jobs {
        let part = worker_file(file, k);
        if part.exists() {
            sets.push(read(&part)?);
            parts.push(part);
        }
    }
    if sets.is_empty() {
        return Err(Error::new(format!(
            "{}: no worker wrote RTL coverage (no chunk ran)",
            file.display()
        )));
    }
    let merged = merge(&sets);
    write(file, &merged)?;
    for p in parts {
        let _ = fs::remove_file(p);
    }
    Ok(merged)
}

/// Covered and total points of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figure {
    pub hit: u64,
    pub total: u64,
}

impl Figure {
    fn add(&mut self, covered: bool) {
        self.total += 1;
        self.hit += covered as u64;
    }

    /// Per cent covered (100 when there is nothing to cover).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.hit as f64 / self.total as f64
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let frac = format!("({}/{})", self.hit, self.total);
        write!(f, "{:6.2}% {frac:>13}", self.percent())
    }
}

/// Line (Verilator's `line` and `branch` points) and toggle figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub line: Figure,
    pub toggle: Figure,
}

/// The figures of a `.dat` file: per source file, for the design (everything outside
/// `sim/`), and for the simulation-only wrapper (`rtl/sim/`).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub files: BTreeMap<String, Figures>,
    pub design: Figures,
    pub sim: Figures,
}

/// Whether a source file is part of the simulation-only wrapper, not the design.
pub fn is_sim_wrapper(file: &str) -> bool {
    file.contains("/sim/") || file.starts_with("sim/")
}

impl Summary {
    pub fn new(points: &[Point]) -> Summary {
        let mut s = Summary::default();
        for p in points {
            let file = p.get("f").unwrap_or("?").to_string();
            let covered = p.count > 0;
            let f = s.files.entry(file.clone()).or_default();
            let part = if is_sim_wrapper(&file) {
                &mut s.sim
            } else {
                &mut s.design
            };
            match p.kind() {
                "toggle" => {
                    f.toggle.add(covered);
                    part.toggle.add(covered);
                }
                _ => {
                    f.line.add(covered);
                    part.line.add(covered);
                }
            }
        }
        s
    }

    /// The report printed by `make coverage`.
    pub fn table(&self) -> String {
        let mut t = format!("{:<30} {:>21} {:>21}\n", "RTL file", "line", "toggle");
        for (file, f) in &self.files {
            let name = file.rsplit_once("rtl/").map_or(file.as_str(), |(_, n)| n);
            writeln!(
                t,
                "{name:<30} {:>21} {:>21}",
                f.line.to_string(),
                f.toggle.to_string()
            )
            .unwrap();
        }
        writeln!(
            t,
            "{:<30} {:>21} {:>21}",
            "design (rtl/*.sv)",
            self.design.line.to_string(),
            self.design.toggle.to_string()
        )
        .unwrap();
        write!(
            t,
            "{:<30} {:>21} {:>21}",
            "sim wrapper (rtl/sim/, apart)",
            self.sim.line.to_string(),
            self.sim.toggle.to_string()
        )
        .unwrap();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(file: &str, page: &str, count: u64) -> Point {
        Point {
            key: format!("\x01f\x02{file}\x01l\x0212\x01page\x02{page}\x01o\x02x"),
            count,
        }
    }

    #[test]
    fn parse_merge_and_summarise() {
        let a = vec![
            pt("rtl/a.sv", "v_line/a", 0),
            pt("rtl/a.sv", "v_toggle/a", 3),
        ];
        let b = vec![
            pt("rtl/a.sv", "v_line/a", 2),
            pt("rtl/sim/s.sv", "v_branch/s", 0),
        ];
        let m = merge(&[a, b]);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].count, 2);
        let dir = std::env::temp_dir().join(format!("rtlcov-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("m.dat");
        write(&f, &m).unwrap();
        let back = read(&f).unwrap();
        assert_eq!(back, m);
        let s = Summary::new(&back);
        assert_eq!(s.design.line, Figure { hit: 1, total: 1 });
        assert_eq!(s.design.toggle, Figure { hit: 1, total: 1 });
        assert_eq!(s.sim.line, Figure { hit: 0, total: 1 });
        assert!(s.table().contains("sim wrapper"));
        assert!(parse("C 'x' 1\n", &f).is_err());
        assert!(parse(&format!("{HEADER}\nC 'x' y\n"), &f).is_err());
        fs::remove_dir_all(dir).unwrap();
    }
}

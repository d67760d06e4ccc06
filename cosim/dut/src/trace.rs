//! The counterexample of `dut prove`, read from the VCD that yosys-smtbmc writes: the miter's
//! top-level signals at each step (smtbmc writes step k at time 10k, its clock edge at 10k+5).

use std::collections::HashMap;
use std::path::Path;

use ptxfma_cosim_engine::Error;

/// The values of the miter's top-level signals, step by step.
pub struct Trace {
    steps: Vec<HashMap<String, u64>>,
}

impl Trace {
    /// Reads `path`; only the signals of the top scope (`miter`) no wider than 64 bits.
    pub fn read(path: &Path) -> Result<Trace, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        let bad = |what: &str| Error::new(format!("{}: {what}", path.display()));
        let mut depth = 0usize;
        let mut ids: HashMap<String, String> = HashMap::new();
        let mut tokens = text.split_ascii_whitespace().peekable();
        // Header: `$scope module NAME $end` ... `$var wire W ID NAME $end`.
        while let Some(t) = tokens.next() {
            match t {
                "$scope" => depth += 1,
                "$upscope" => depth = depth.saturating_sub(1),
                "$var" => {
                    let f: Vec<&str> = tokens.by_ref().take_while(|t| *t != "$end").collect();
                    if depth == 1 && f.len() >= 4 && f[1].parse::<u32>().is_ok_and(|w| w <= 64) {
                        ids.insert(f[2].to_string(), f[3].to_string());
                    }
                }
                "$enddefinitions" => break,
                _ => {}
            }
        }
        let mut now: HashMap<String, u64> = HashMap::new();
        let mut steps: Vec<HashMap<String, u64>> = Vec::new();
        let mut time: Option<u64> = None;
        // smtbmc ends with a time stamp that sets nothing: no step of its own.
        let mut set_since_stamp = false;
        // The values of step k are those after the changes at time 10k.
        let flush = |time: Option<u64>, now: &HashMap<String, u64>, steps: &mut Vec<_>| {
            if let Some(t) = time.filter(|t| t % 10 == 0) {
                while steps.len() as u64 <= t / 10 {
                    steps.push(now.clone());
                }
            }
        };
        while let Some(t) = tokens.next() {
            if let Some(ts) = t.strip_prefix('#') {
                flush(time, &now, &mut steps);
                set_since_stamp = false;
                time = Some(ts.parse().map_err(|_| bad("a bad time stamp"))?);
            } else if let Some(bits) = t.strip_prefix('b') {
                let id = tokens.next().ok_or_else(|| bad("a value without a name"))?;
                if let Some(name) = ids.get(id) {
                    let v = bits
                        .chars()
                        .fold(0u64, |acc, c| acc << 1 | u64::from(c == '1'));
                    now.insert(name.clone(), v);
                }
                set_since_stamp = true;
            } else if let Some(v) = t
                .chars()
                .next()
                .filter(|c| matches!(c, '0' | '1' | 'x' | 'z'))
            {
                if let Some(name) = ids.get(&t[1..]) {
                    now.insert(name.clone(), u64::from(v == '1'));
                }
                set_since_stamp = true;
            }
        }
        if set_since_stamp {
            flush(time, &now, &mut steps);
        }
        Ok(Trace { steps })
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the trace has no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The value of top-level signal `name` at `step` (0 if the trace never set it).
    pub fn at(&self, step: usize, name: &str) -> u64 {
        self.steps
            .get(step)
            .and_then(|s| s.get(name))
            .copied()
            .unwrap_or(0)
    }
}

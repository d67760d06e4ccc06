//! The divergence waveform as FST (`--fst`): GTKWave's compressed format, far smaller than VCD
//! for long windows.
//!
//! The waveform holds the RTL's trace and the model's registers side by side, spliced as VCD
//! text (see [`crate::waves`]); Verilator's own FST writer can only dump the Verilated model, so
//! the spliced VCD is converted here with the `fst-writer` crate. Only the VCD subset that
//! Verilator and [`crate::waves`] write is read: scopes, wire variables, `#time`, scalar and
//! `b` vector changes.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write as _};

use fst_writer::{
    FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType,
};

use ptxfma_cosim_engine::Error;

/// Writes the VCD text `vcd` to `out` as FST.
pub fn write(vcd: &str, out: File) -> Result<(), Error> {
    let bad = |what: String| Error::new(format!("converting the waveform to FST: {what}"));
    let fst = |e: fst_writer::FstWriteError| bad(e.to_string());
    let (defs, body) = vcd
        .split_once("$enddefinitions")
        .ok_or_else(|| bad("no $enddefinitions".into()))?;
    let body = body.split_once("$end").map_or("", |(_, b)| b);
    // The FST's first time is the VCD's: before it, every signal would read as x.
    let start_time = body
        .lines()
        .find_map(|l| l.trim().strip_prefix('#')?.parse().ok())
        .unwrap_or(0);
    let info = FstInfo {
        start_time,
        // Verilator's VCD is in ps (its default timescale), and so is the model's part.
        timescale_exponent: -12,
        version: format!("fma-cosim {}", env!("CARGO_PKG_VERSION")),
        date: String::new(),
        file_type: FstFileType::Verilog,
    };
    let mut header = FstHeaderWriter::new(BufWriter::new(out), &info).map_err(fst)?;

    // Header: scopes and variables, VCD identifier codes mapped to FST signals (a code used by
    // several variables is one signal with aliases).
    let mut ids: HashMap<&str, (FstSignalId, u32)> = HashMap::new();
    let mut toks = defs.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            "$scope" => {
                let _kind = toks.next();
                let name = toks
                    .next()
                    .ok_or_else(|| bad("scope without a name".into()))?;
                header.scope(name, "", FstScopeType::Module).map_err(fst)?;
            }
            "$upscope" => header.up_scope().map_err(fst)?,
            "$var" => {
                let _kind = toks.next();
                let width: u32 = toks
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad("variable without a width".into()))?;
                let code = toks
                    .next()
                    .ok_or_else(|| bad("variable without a code".into()))?;
                let mut name = toks
                    .next()
                    .ok_or_else(|| bad("variable without a name".into()))?
                    .to_string();
                for rest in toks.by_ref() {
                    if rest == "$end" {
                        break;
                    }
                    name.push_str(rest);
                }
                let alias = ids.get(code).map(|&(id, _)| id);
                let id = header
                    .var(
                        &name,
                        FstSignalType::bit_vec(width),
                        FstVarType::Wire,
                        FstVarDirection::Implicit,
                        alias,
                    )
                    .map_err(fst)?;
                ids.entry(code).or_insert((id, width));
            }
            _ => {}
        }
    }
    let mut body_w = header.finish().map_err(fst)?;

    // Body: value changes, vectors widened to their variable's width as VCD leaves them.
    let mut value = Vec::new();
    for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(t) = line.strip_prefix('#') {
            let t: u64 = t.parse().map_err(|_| bad(format!("bad time `{line}`")))?;
            body_w.time_change(t).map_err(fst)?;
            continue;
        }
        if line.starts_with('$') {
            continue;
        }
        let (bits, code) = match line.strip_prefix(['b', 'B']) {
            Some(v) => v
                .split_once(' ')
                .ok_or_else(|| bad(format!("bad change `{line}`")))?,
            None => line.split_at(1),
        };
        let Some(&(id, width)) = ids.get(code.trim()) else {
            return Err(bad(format!("change of an undeclared code in `{line}`")));
        };
        let pad = match bits.as_bytes().first() {
            Some(b'x' | b'X') => b'x',
            Some(b'z' | b'Z') => b'z',
            _ => b'0',
        };
        value.clear();
        value.resize((width as usize).saturating_sub(bits.len()), pad);
        value.extend(bits.bytes().map(|b| b.to_ascii_lowercase()));
        body_w.signal_change(id, &value).map_err(fst)?;
    }
    body_w
        .finish()
        .map_err(fst)?
        .flush()
        .map_err(|e| bad(e.to_string()))
}

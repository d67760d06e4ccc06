//! Verilator's part of the waveform made to read in cycles ([`retime`]), and the model's part
//! spliced into it ([`splice`]): header scopes before `$enddefinitions`, value changes merged
//! by time, with fresh identifier codes, so that the result is one ordinary VCD.

use std::collections::HashMap;

use super::names::PERIOD;

use super::model_part::ModelPart;

/// Moves every time so that the rising edge of stream cycle `first_cycle` (at `first_edge` in
/// Verilator's units) is at `first_cycle` ns, in ps; what falls before time 0 (the reset of a
/// window that starts at cycle 0, 1 or 2) is folded into time 0, each signal at its last value.
/// The VCD then says `$timescale 1ps`, whatever unit Verilator wrote.
pub(super) fn retime(text: &str, first_edge: u64, first_cycle: u64) -> Result<String, String> {
    let at = text
        .find("$enddefinitions")
        .ok_or("the VCD has no $enddefinitions")?;
    // Verilator writes the design's time precision (1ps unless a source says `timescale`);
    // the times are the shim's steps whatever it says, and become ps here.
    let head = &text[..at];
    let ts = head.find("$timescale").ok_or("the VCD has no $timescale")?;
    let ts_end = ts
        + head[ts..]
            .find("$end")
            .ok_or("the VCD's $timescale has no $end")?
        + "$end".len();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    out.push_str(&head[..ts]);
    out.push_str("$timescale 1ps $end");
    out.push_str(&head[ts_end..]);
    let shift =
        (first_cycle * PERIOD) as i128 - (first_edge * (PERIOD / super::RTL_PERIOD)) as i128;
    let scale = (PERIOD / super::RTL_PERIOD) as i128;
    // Changes folded into time 0: the last change of each identifier code, in order of first
    // appearance.
    let mut folded: Vec<&str> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    let mut folding = true;
    let mut seen_time = false;
    let flush = |out: &mut String, folded: &mut Vec<&str>| {
        if !folded.is_empty() {
            out.push_str("#0\n");
            for change in folded.drain(..) {
                out.push_str(change);
                out.push('\n');
            }
        }
    };
    let mut last: Option<i128> = None;
    for line in text[at..].lines() {
        if let Some(t) = line.strip_prefix('#') {
            let t: i128 = t.trim().parse().map_err(|_| format!("bad time `{line}`"))?;
            let t = t * scale + shift;
            seen_time = true;
            if t <= 0 {
                continue;
            }
            if folding {
                folding = false;
                if !folded.is_empty() {
                    last = Some(0);
                }
                flush(&mut out, &mut folded);
            }
            // The first values from the whole ns before them (nothing is earlier).
            let t = if last.is_none() {
                in_whole_ns(t, false)
            } else {
                t
            };
            last = Some(t);
            out.push_str(&format!("#{t}\n"));
            continue;
        }
        if folding && seen_time && !line.is_empty() && !line.starts_with('$') {
            let code = match line.split_once(' ') {
                Some((_, code)) => code,
                None => line.get(1..).unwrap_or(""),
            };
            match slot.get(code) {
                Some(&k) => folded[k] = line,
                None => {
                    slot.insert(code, folded.len());
                    folded.push(line);
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    flush(&mut out, &mut folded);
    // The last values held to a whole ns.
    if let Some(t) = last.filter(|&t| in_whole_ns(t, true) != t) {
        out.push_str(&format!("#{}\n", in_whole_ns(t, true)));
    }
    Ok(out)
}

/// `t` (ps) moved down (or `up`) to a whole ns that is not a whole µs: GTKWave shows a dump's
/// first and last times (its From and To) in the largest unit that divides them, so these two
/// then read in ns alike ("37 ns" to "74 ns", not "37500 ps" to "74 ns" or "1 us" to
/// "1032 ns").
pub(super) fn in_whole_ns(t: i128, up: bool) -> i128 {
    const NS: i128 = 1000;
    let n = if up {
        (t + NS - 1).div_euclid(NS) * NS
    } else {
        t.div_euclid(NS) * NS
    };
    match (n > 0 && n % (1000 * NS) == 0, up) {
        (true, true) => n + NS,
        (true, false) => n - NS,
        _ => n,
    }
}

/// Inserts the model's scopes before `$enddefinitions` and merges its changes into the
/// time-ordered body (at equal times, after Verilator's).
pub(super) fn splice(rtl_text: &str, model: &ModelPart) -> Result<String, String> {
    let at = rtl_text
        .find("$enddefinitions")
        .ok_or("Verilator's VCD has no $enddefinitions")?;
    let mut out = String::with_capacity(rtl_text.len() * 2);
    out.push_str(&rtl_text[..at]);
    out.push_str(&model.header);
    let body_at = at
        + rtl_text[at..]
            .find('\n')
            .map_or(rtl_text.len() - at, |n| n + 1);
    out.push_str(&rtl_text[at..body_at]);

    let mut pending = model.changes.iter().peekable();
    let mut cur: Option<u64> = None;
    let mut flush_before = |out: &mut String, limit: Option<u64>, cur: &mut Option<u64>| {
        while let Some((&t, text)) = pending.peek() {
            if limit.is_some_and(|l| t >= l) {
                break;
            }
            if *cur != Some(t) {
                out.push_str(&format!("#{t}\n"));
                *cur = Some(t);
            }
            out.push_str(text);
            pending.next();
        }
    };
    for line in rtl_text[body_at..].lines() {
        if let Some(t) = line.strip_prefix('#') {
            let t: u64 = t.trim().parse().map_err(|_| format!("bad time `{line}`"))?;
            flush_before(&mut out, Some(t), &mut cur);
            cur = Some(t);
        }
        out.push_str(line);
        out.push('\n');
    }
    flush_before(&mut out, None, &mut cur);
    Ok(out)
}

//! `ptxfma_eval_line` and `ptxfma_eval_lines`: `fma-model eval` input, one line or a script,
//! read by the command's own line reader.

use std::ffi::{c_char, CStr};

use ptxfma_ptx::read::read as read_line;
use ptxfma_ptx::read::MAX_LINE;

use crate::args::{out_ptr, text};
use crate::eval::eval_one;
use crate::status::{fail, guard};
use crate::PtxfmaStatus;

/// Evaluates one line exactly as `fma-model eval` reads it: the PTX spelling with hex operands
/// and no destination, e.g. `"fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000"` or
/// `"vmad.s32.s32.s32.shr7 -0x5.h1 0x7.b0 0x3"`, for `target` (null or "" is sm_100, the
/// command's default). `*d` gets the result as the command prints it (32-bit results in bits
/// 31:0). A blank line, a `//` comment or a valid `.target` directive returns
/// `PTXFMA_STATUS_NO_RESULT` (the command prints nothing for them); since one call sees one line,
/// a `.target` line does not carry over to the next call: pass the target, or use
/// [`ptxfma_eval_lines`] for a whole script. A bad line is `PTXFMA_STATUS_DECODE` with the
/// command's reason.
///
/// # Safety
/// `line` and `target` are null or NUL-terminated strings; `d` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_eval_line(
    line: *const c_char,
    target: *const c_char,
    d: *mut u64,
) -> i32 {
    guard("ptxfma_eval_line", || {
        let line = text(line, "line")?;
        let mut t = crate::args::target(target)?;
        let out = out_ptr(d, "d")?;
        match read_line(line, &mut t) {
            Ok(None) => Ok(PtxfmaStatus::NoResult),
            Ok(Some(i)) => {
                *out = eval_one(i.ctrl.encode(), i.a, i.b, i.c);
                Ok(PtxfmaStatus::Ok)
            }
            Err(reason) => fail(PtxfmaStatus::Decode, reason),
        }
    })
}

/// Evaluates a whole `fma-model eval` input (lines separated by `\n`, `.target` lines switching
/// the target for the lines after them, starting from `target`) and writes one entry per line
/// that the command would print a line for, in order: `d[k]` and `status[k]` (0, or
/// `PTXFMA_STATUS_DECODE` for a bad line, whose `d[k]` is 0). `*n` gets the number of entries.
/// Returns `PTXFMA_STATUS_BAD_ARG` (with `*n` the number needed) when `cap` is too small, and
/// `PTXFMA_STATUS_DECODE` when some line was bad (the message is that of the first bad line,
/// `<line number>: <reason>` as the command prints it), so a script's exit status is the same.
///
/// # Safety
/// `text` and `target` are null or NUL-terminated strings; `d` and `status` are null or hold
/// `cap` writable elements; `n` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_eval_lines(
    text: *const c_char,
    target: *const c_char,
    d: *mut u64,
    status: *mut i32,
    cap: usize,
    n: *mut usize,
) -> i32 {
    guard("ptxfma_eval_lines", || {
        if text.is_null() {
            return fail(PtxfmaStatus::Null, "text is a null pointer");
        }
        let bytes = CStr::from_ptr(text).to_bytes();
        let mut t = crate::args::target(target)?;
        let count = out_ptr(n, "n")?;
        if cap > 0 && (d.is_null() || status.is_null()) {
            return fail(PtxfmaStatus::Null, "d or status is a null pointer");
        }
        let mut results: Vec<(u64, i32)> = Vec::new();
        let mut first_bad: Option<String> = None;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let read = if raw.len() > MAX_LINE {
                Err(format!(
                    "line is too long ({} bytes; at most {MAX_LINE})",
                    raw.len()
                ))
            } else {
                match std::str::from_utf8(raw) {
                    Err(_) => Err("line is not valid UTF-8".to_string()),
                    Ok(line) => read_line(line, &mut t),
                }
            };
            match read {
                Ok(None) => {}
                Ok(Some(x)) => results.push((eval_one(x.ctrl.encode(), x.a, x.b, x.c), 0)),
                Err(reason) => {
                    first_bad.get_or_insert_with(|| format!("{}: {reason}", i + 1));
                    results.push((0, PtxfmaStatus::Decode as i32));
                }
            }
        }
        // A final newline ends the last line rather than starting an empty one, as for stdin.
        *count = results.len();
        if results.len() > cap {
            return fail(
                PtxfmaStatus::BadArg,
                format!("{} results do not fit in cap = {cap}", results.len()),
            );
        }
        for (k, &(v, s)) in results.iter().enumerate() {
            *d.add(k) = v;
            *status.add(k) = s;
        }
        match first_bad {
            Some(m) => fail(PtxfmaStatus::Decode, m),
            None => Ok(PtxfmaStatus::Ok),
        }
    })
}

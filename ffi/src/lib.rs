//! C ABI over the ptxfma golden model: `libptxfma.so`, `libptxfma.a` and `include/ptxfma.h`.
//!
//! A C, C++ or SystemVerilog (DPI-C, `dpi/ptxfma_dpi_pkg.sv`) testbench uses the model through
//! these functions: decode a PTX spelling to the control word, evaluate one operation, a batch,
//! or an `fma-model eval` line, and run a cycle-level pipeline in lockstep with its own RTL.
//!
//! Rules every entry point keeps, because the host is a simulator that must not die for a
//! testbench bug:
//! - The return value is a [`PtxfmaStatus`] (as `int32_t`, which DPI-C reads as `int`): 0 on
//!   success, negative on error. On error the reason is kept per thread and read with
//!   [`ptxfma_last_error`]; out-parameters are left untouched.
//! - No Rust panic crosses the boundary: each body runs under `catch_unwind` and a panic becomes
//!   [`PtxfmaStatus::Panic`]. Nothing aborts or exits the process.
//! - A null pointer, a bad handle (never created, or already freed), a bad control word or an
//!   out-of-range argument is an error code, never a crash. Pipeline handles are ids looked up
//!   in a registry rather than raw pointers, so a stale handle is detected instead of
//!   dereferenced.
//! - Every function is reentrant; handles are independent and may be used from any thread (one
//!   handle used by two threads at once is serialised, not corrupted).
//!
//! The semantics all come from `ptxfma-model` (decoder, line reader, pipeline, `Pipeline::run`);
//! nothing here re-implements them.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use ptxfma_model::machine::batch;
use ptxfma_model::machine::ctrl::{Ctrl, CTRL_BITS};
use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::legal::is_legal;
use ptxfma_model::machine::pipeline::{self, PipeIn, Pipeline, LANES, LATENCY};
use ptxfma_model::machine::regs::{Out, Reg, S1, S2, S3};
use ptxfma_ptx::print::sel_suffix;
use ptxfma_ptx::quote::quote_spans;
use ptxfma_ptx::read::read as read_line;
use ptxfma_ptx::read::MAX_LINE;
use ptxfma_ptx::{self as op, Target, VmadSrc};

/// Status of every call: `PTXFMA_STATUS_OK` (0), `PTXFMA_STATUS_NO_RESULT` (1, a line that
/// evaluates nothing), or a negative error whose message [`ptxfma_last_error`] returns.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxfmaStatus {
    /// Success.
    Ok = 0,
    /// `ptxfma_eval_line`: a blank line, a `//` comment or a `.target` directive; `fma-model
    /// eval` prints nothing for it, and `*d` is not written.
    NoResult = 1,
    /// A required pointer was null.
    Null = -1,
    /// A string was not UTF-8, or longer than `fma-model eval` accepts (1 MiB).
    BadString = -2,
    /// The PTX spelling or `eval` line was rejected by the decoder (the message says why).
    Decode = -3,
    /// The target (`sm_NN`) is not a PTX target.
    BadTarget = -4,
    /// A control word with bits above bit 23, or (for evaluation) one no PTX instruction
    /// decodes to.
    BadCtrl = -5,
    /// A pipeline handle that was never created or was already freed.
    BadHandle = -6,
    /// Another argument out of range (a tag over 16 bits, a stage number, a word index, a
    /// buffer too small).
    BadArg = -7,
    /// The model panicked (a model bug); the message carries the panic text.
    Panic = -8,
}

/// A pipeline register bank, for `ptxfma_stage_width` and `ptxfma_pipe_stage`: the RTL's `s1_q`,
/// `s2_q`, `s3_q` and `out_q`, packed as in `docs/microarchitecture.md` (word 0 = bits 31:0).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxfmaStage {
    S1 = 0,
    S2 = 1,
    S3 = 2,
    Out = 3,
}

/// Opaque pipeline instance, created by [`ptxfma_pipe_new`]. Never dereferenced: the pointer is
/// an id into a registry, so a freed or forged handle is reported instead of followed.
pub struct PtxfmaPipe {
    _private: [u8; 0],
}

/// Cycles from an input to its result on the output ports (the RTL's latency).
pub const PTXFMA_LATENCY: u32 = 4;
const _: () = assert!(PTXFMA_LATENCY as usize == LATENCY);

/// Width of the control word in bits.
pub const PTXFMA_CTRL_BITS: u32 = 24;
const _: () = assert!(PTXFMA_CTRL_BITS == CTRL_BITS);

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// An error: the status and its message.
struct Fail(PtxfmaStatus, String);

type Res<T> = Result<T, Fail>;

fn fail<T>(status: PtxfmaStatus, msg: impl Into<String>) -> Res<T> {
    Err(Fail(status, msg.into()))
}

thread_local! {
    /// The message of the last failed call on this thread, NUL-terminated for C.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// The last control word `ptxfma_eval` accepted on this thread (`u32::MAX`, never a legal
    /// word, at first).
    static LAST_LEGAL: Cell<u32> = const { Cell::new(u32::MAX) };
}

fn set_error(msg: &str) {
    // An interior NUL cannot come from the model's messages, but a C string must not carry one.
    let msg = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = msg);
}

/// Runs an entry point's body: catches a panic, records the message of a failure, and turns the
/// result into a status code.
fn guard(name: &str, body: impl FnOnce() -> Res<PtxfmaStatus>) -> i32 {
    let status = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(s)) => s,
        Ok(Err(Fail(s, msg))) => {
            set_error(&format!("{name}: {msg}"));
            s
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_error(&format!(
                "{name}: model panic (a bug, please report): {what}"
            ));
            PtxfmaStatus::Panic
        }
    };
    status as i32
}

/// The message of the last call on this thread that returned an error ("" if none did): a
/// NUL-terminated string owned by the library, valid until the next failing call on this thread.
/// Successful calls leave it as it was.
#[no_mangle]
pub extern "C" fn ptxfma_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"".as_ptr())
}

/// The library version (the workspace version), a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn ptxfma_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

// ---------------------------------------------------------------------------------------------
// Argument checks
// ---------------------------------------------------------------------------------------------

/// A C string argument as `&str`: not null, UTF-8, at most `MAX_LINE` bytes.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string that lives for the call.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Res<&'a str> {
    if p.is_null() {
        return fail(PtxfmaStatus::Null, format!("{what} is a null pointer"));
    }
    let bytes = CStr::from_ptr(p).to_bytes();
    if bytes.len() > MAX_LINE {
        return fail(
            PtxfmaStatus::BadString,
            format!(
                "{what} is too long ({} bytes; at most {MAX_LINE})",
                bytes.len()
            ),
        );
    }
    std::str::from_utf8(bytes).map_err(|_| {
        Fail(
            PtxfmaStatus::BadString,
            format!("{what} is not valid UTF-8"),
        )
    })
}

/// The target argument: null or "" is the default, sm_100, as in `fma-model eval`.
///
/// # Safety
/// As [`text`].
unsafe fn target(p: *const c_char) -> Res<Target> {
    if p.is_null() {
        return Ok(Target::default());
    }
    let s = text(p, "target")?.trim();
    if s.is_empty() {
        return Ok(Target::default());
    }
    Target::parse(s).map_err(|e| Fail(PtxfmaStatus::BadTarget, quote_spans(e.message())))
}

fn out_ptr<'a, T>(p: *mut T, what: &str) -> Res<&'a mut T> {
    // SAFETY: non-null, and the caller promises it points to a writable T.
    unsafe { p.as_mut() }
        .ok_or_else(|| Fail(PtxfmaStatus::Null, format!("{what} is a null pointer")))
}

/// A control word for evaluation: 24 bits and one that some PTX instruction decodes to. Words
/// the decoder never produces (reserved codes, unused fields set) have a defined meaning on the
/// pipe's ports, but evaluating one is almost surely a testbench bug, so it is refused here;
/// `ptxfma_pipe_tick` takes them as the RTL does.
fn legal_ctrl(word: u32) -> Res<Ctrl> {
    let ctrl = port_ctrl(word)?;
    if ctrl.encode() != word || !is_legal(&ctrl) {
        return fail(
            PtxfmaStatus::BadCtrl,
            format!("control word {word:#08x} is not one that a PTX instruction decodes to"),
        );
    }
    Ok(ctrl)
}

/// A control word on the pipe's `in_ctrl_i[23:0]`: any 24-bit pattern.
fn port_ctrl(word: u32) -> Res<Ctrl> {
    if word >> CTRL_BITS != 0 {
        return fail(
            PtxfmaStatus::BadCtrl,
            format!(
                "control word {word:#x} has bits above bit {}",
                CTRL_BITS - 1
            ),
        );
    }
    Ok(Ctrl::decode(word))
}

// ---------------------------------------------------------------------------------------------
// Decode
// ---------------------------------------------------------------------------------------------

/// Decodes a PTX spelling for `target` (`"sm_20"`, `"sm_13"`, `"sm_100a"`, ...; null or "" is
/// sm_100) to the 24-bit control word of the RTL's `in_ctrl_i`.
///
/// The spelling is the mnemonic, e.g. `"fma.rn.ftz.f32"`, `"mad.f32"` (sm_1x), `"add.rz.f32.bf16"`;
/// a `vmad` may be followed by its three operands, which carry what PTX writes on them, the
/// negations and the byte/half selectors: `"vmad.s32.u32.s32.sat.shr15 -a.h1, b.b0, c"` (operand
/// names are free; without operands, no negation and no selector). On a bad spelling or target
/// the result is an error (`PTXFMA_STATUS_DECODE`, `PTXFMA_STATUS_BAD_TARGET`) with the decoder's
/// reason in `ptxfma_last_error`.
///
/// # Safety
/// `spelling` and `target` are null or NUL-terminated strings; `ctrl` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_decode(
    spelling: *const c_char,
    target: *const c_char,
    ctrl: *mut u32,
) -> i32 {
    guard("ptxfma_decode", || {
        let s = text(spelling, "spelling")?;
        let t = self::target(target)?;
        let out = out_ptr(ctrl, "ctrl")?;
        *out = decode_spelling(s, t)?.encode();
        Ok(PtxfmaStatus::Ok)
    })
}

/// The decoder behind [`ptxfma_decode`]: `op::decode` for a bare mnemonic, `op::decode_vmad`
/// with the operands' decorations for a vmad written with operands.
fn decode_spelling(s: &str, target: Target) -> Res<Ctrl> {
    let decode_err = |e: op::DecodeError| Fail(PtxfmaStatus::Decode, quote_spans(e.message()));
    let s = s.trim();
    let s = s.strip_suffix(';').unwrap_or(s).trim_end();
    let split = s
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(s.len());
    let (mnemonic, rest) = s.split_at(split);
    let ops: Vec<&str> = rest.split(',').flat_map(str::split_whitespace).collect();
    if ops.is_empty() {
        return op::decode(mnemonic, target).map_err(decode_err);
    }
    if mnemonic.split('.').next() != Some("vmad") {
        return fail(
            PtxfmaStatus::Decode,
            "operands are only read for vmad (negations, selectors); give the mnemonic alone",
        );
    }
    if ops.len() != 3 {
        return fail(
            PtxfmaStatus::Decode,
            format!("vmad takes 3 operands (a, b, c), found {}", ops.len()),
        );
    }
    let mut src = VmadSrc::default();
    let mut negs = [false; 3];
    let mut sels = [ptxfma_model::machine::ctrl::Sel::W; 3];
    for (i, tok) in ops.iter().enumerate() {
        let (neg, body) = match tok.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, *tok),
        };
        let (name, sel) = match body.split_once('.') {
            Some((n, s)) => (n, Some(s)),
            None => (body, None),
        };
        if name.is_empty() {
            return fail(
                PtxfmaStatus::Decode,
                quote_spans(&format!("operand `{tok}` has no name")),
            );
        }
        negs[i] = neg;
        if let Some(sel) = sel {
            let found = SELS.iter().copied().find(|&x| sel_suffix(x)[1..] == *sel);
            match found {
                Some(x) if i < 2 => sels[i] = x,
                Some(_) => {
                    return fail(
                        PtxfmaStatus::Decode,
                        quote_spans(&format!("operand c `{tok}`: c takes no selector")),
                    )
                }
                None => {
                    return fail(
                        PtxfmaStatus::Decode,
                        quote_spans(&format!(
                            "operand `{tok}`: unknown selector `.{sel}` \
                             (expected .b0, .b1, .b2, .b3, .h0 or .h1)"
                        )),
                    )
                }
            }
        }
    }
    (src.a_neg, src.b_neg, src.c_neg) = (negs[0], negs[1], negs[2]);
    (src.asel, src.bsel) = (sels[0], sels[1]);
    op::decode_vmad(mnemonic, target, src).map_err(decode_err)
}

/// The selectors an operand may carry, named through the model's own `sel_suffix`.
const SELS: [ptxfma_model::machine::ctrl::Sel; 6] = {
    use ptxfma_model::machine::ctrl::Sel::*;
    [B0, B1, B2, B3, H0, H1]
};

// ---------------------------------------------------------------------------------------------
// Evaluate
// ---------------------------------------------------------------------------------------------

/// Evaluates one operation: control word (as on `in_ctrl_i`) and operands `a`, `b`, `c` (as on
/// `in_a_i`..`in_c_i`, 64-bit words) to the result word of `out_d_o`. Bit-exact with the pipeline
/// and the RTL. A word with bits above 23 or one no PTX instruction decodes to is
/// `PTXFMA_STATUS_BAD_CTRL`.
///
/// # Safety
/// `d` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_eval(ctrl: u32, a: u64, b: u64, c: u64, d: *mut u64) -> i32 {
    guard("ptxfma_eval", || {
        // A testbench calls this once per operation, mostly with the word of the call before;
        // remembering the last word that passed the check saves a third of a call.
        if LAST_LEGAL.get() != ctrl {
            legal_ctrl(ctrl)?;
            LAST_LEGAL.set(ctrl);
        }
        let out = out_ptr(d, "d")?;
        *out = eval_one(ctrl, a, b, c);
        Ok(PtxfmaStatus::Ok)
    })
}

/// One operation through the model's four pure stage functions: what `pipeline::eval` computes,
/// without building and clearing a whole pipeline around it, which makes a single DPI-C call
/// several times cheaper (`ffi/tests/abi.rs` checks both agree).
fn eval_one(ctrl: u32, a: u64, b: u64, c: u64) -> u64 {
    let inp = PipeIn {
        valid: true,
        tag: 0,
        ctrl,
        a,
        b,
        c,
        reset: false,
    };
    let s1 = pipeline::stage1(&inp);
    let s2 = pipeline::stage2(&s1);
    let s3 = pipeline::stage3(&s2);
    pipeline::stage4(&s3).d
}

/// Inputs per `Pipeline::run` call of the batch: large enough that the three drain cycles per
/// block cost nothing, small enough to stay in cache.
const BLOCK: usize = 1024;

/// Evaluates `n` operations: `d[i]` = the result of `ctrl[i]`, `a[i]`, `b[i]`, `c[i]`. Runs on
/// the model's batch path (`Pipeline::run` and its lane engine for runs of one control word), so
/// it is as fast as the model's own `run`. Every control word is checked first; on a bad one nothing is
/// written and the message names its index. With `n` = 0 the pointers may be null.
///
/// # Safety
/// Each pointer is null or points to `n` elements (`d` writable), not overlapping `d`.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_eval_batch(
    ctrl: *const u32,
    a: *const u64,
    b: *const u64,
    c: *const u64,
    d: *mut u64,
    n: usize,
) -> i32 {
    guard("ptxfma_eval_batch", || {
        if n == 0 {
            return Ok(PtxfmaStatus::Ok);
        }
        let slice = |p: *const u64, what: &str| -> Res<&[u64]> {
            if p.is_null() {
                return fail(PtxfmaStatus::Null, format!("{what} is a null pointer"));
            }
            // SAFETY: the caller promises `n` readable elements.
            Ok(unsafe { std::slice::from_raw_parts(p, n) })
        };
        if ctrl.is_null() {
            return fail(PtxfmaStatus::Null, "ctrl is a null pointer");
        }
        let ctrl = std::slice::from_raw_parts(ctrl, n);
        let (a, b, c) = (slice(a, "a")?, slice(b, "b")?, slice(c, "c")?);
        if d.is_null() {
            return fail(PtxfmaStatus::Null, "d is a null pointer");
        }
        let d = std::slice::from_raw_parts_mut(d, n);
        // A stream uses a few hundred words at most, so each is checked once: a small
        // direct-mapped memo of words already accepted keeps the check off the per-operation
        // cost (u32::MAX is never a legal word, so it marks an empty slot).
        let mut seen = [u32::MAX; 256];
        for (i, &w) in ctrl.iter().enumerate() {
            let slot = &mut seen[(w.wrapping_mul(0x9E37_79B1) >> 24) as usize];
            if *slot != w {
                legal_ctrl(w).map_err(|Fail(s, m)| Fail(s, format!("element {i}: {m}")))?;
                *slot = w;
            }
        }
        eval_batch(ctrl, a, b, c, d);
        Ok(PtxfmaStatus::Ok)
    })
}

/// The batch, block by block. A block of one control word that the lane engine takes (every
/// float kind) goes straight to the engine (`batch::Engine`, the one `Pipeline::run` uses) from
/// the caller's arrays, sixteen operations at a time, which spares the gather `run` does from
/// its array of port structs. Any other block goes through `pipeline::eval_batch`.
fn eval_batch(ctrl: &[u32], a: &[u64], b: &[u64], c: &[u64], d: &mut [u64]) {
    let engine = batch::Engine::new(Backend::selected());
    let mut start = 0;
    while start < ctrl.len() {
        let end = (start + BLOCK).min(ctrl.len());
        let word = ctrl[start];
        let one_word = ctrl[start..end].iter().all(|&w| w == word);
        let decoded = Ctrl::decode(word);
        if let Some(engine) = engine
            .as_ref()
            .filter(|_| one_word && batch::supported(&decoded))
        {
            let mut i = start;
            while i + LANES <= end {
                let lanes = |x: &[u64]| -> [u64; LANES] {
                    x[i..i + LANES].try_into().expect("LANES elements")
                };
                match engine.results(&decoded, &lanes(a), &lanes(b), &lanes(c)) {
                    Some(r) => d[i..i + LANES].copy_from_slice(&r),
                    None => {
                        for k in i..i + LANES {
                            d[k] = eval_one(word, a[k], b[k], c[k]);
                        }
                    }
                }
                i += LANES;
            }
            for k in i..end {
                d[k] = eval_one(word, a[k], b[k], c[k]);
            }
        } else {
            pipeline::eval_batch(
                |i| ctrl[start + i],
                &a[start..end],
                &b[start..end],
                &c[start..end],
                &mut d[start..end],
            );
        }
        start = end;
    }
}

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
        let mut t = self::target(target)?;
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
        let mut t = self::target(target)?;
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

// ---------------------------------------------------------------------------------------------
// Pipeline instances
// ---------------------------------------------------------------------------------------------

/// Live pipelines by handle id. Ids are never reused, so a freed handle stays invalid forever.
/// The read lock is held during a tick: ticks of different handles run in parallel, and `free`
/// waits for a tick in progress instead of pulling the pipeline from under it.
fn registry() -> &'static RwLock<HashMap<usize, Mutex<Pipeline>>> {
    static R: std::sync::OnceLock<RwLock<HashMap<usize, Mutex<Pipeline>>>> =
        std::sync::OnceLock::new();
    R.get_or_init(Default::default)
}

/// The next handle id; steps of 16 so that a handle looks like an aligned pointer to tools.
static NEXT_ID: AtomicUsize = AtomicUsize::new(16);

fn with_pipe<T>(h: *mut PtxfmaPipe, f: impl FnOnce(&mut Pipeline) -> Res<T>) -> Res<T> {
    let map = registry().read().unwrap_or_else(|e| e.into_inner());
    let Some(p) = map.get(&(h as usize)) else {
        return fail(
            PtxfmaStatus::BadHandle,
            format!("{h:p} is not a live pipeline handle (never created, or freed)"),
        );
    };
    // A poisoned lock means an earlier call panicked mid-tick; the model's state is plain data,
    // and the caller has seen PTXFMA_STATUS_PANIC, so carry on rather than fail forever.
    let mut pipe = p.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut pipe)
}

/// Creates a pipeline instance in its reset state (every register zero); null on failure (with
/// the reason in `ptxfma_last_error`). Free it with [`ptxfma_pipe_free`].
#[no_mangle]
pub extern "C" fn ptxfma_pipe_new() -> *mut PtxfmaPipe {
    let mut handle = std::ptr::null_mut();
    guard("ptxfma_pipe_new", || {
        let id = NEXT_ID.fetch_add(16, Ordering::Relaxed);
        registry()
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Mutex::new(Pipeline::new()));
        handle = id as *mut PtxfmaPipe;
        Ok(PtxfmaStatus::Ok)
    });
    handle
}

/// Frees a pipeline instance. Null, a handle already freed or one never created is
/// `PTXFMA_STATUS_BAD_HANDLE` (nothing happens).
#[no_mangle]
pub extern "C" fn ptxfma_pipe_free(h: *mut PtxfmaPipe) -> i32 {
    guard("ptxfma_pipe_free", || {
        let removed = registry()
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(h as usize));
        match removed {
            Some(_) => Ok(PtxfmaStatus::Ok),
            None => fail(
                PtxfmaStatus::BadHandle,
                format!("{h:p} is not a live pipeline handle (never created, or freed)"),
            ),
        }
    })
}

/// Resets the instance as `rst_ni` low does: every register bank to zero.
#[no_mangle]
pub extern "C" fn ptxfma_pipe_reset(h: *mut PtxfmaPipe) -> i32 {
    guard("ptxfma_pipe_reset", || {
        with_pipe(h, |p| {
            p.reset();
            Ok(PtxfmaStatus::Ok)
        })
    })
}

/// One rising clock edge with these input port values (`in_valid_i` 0 or 1, `in_tag_i` 16 bits,
/// `in_ctrl_i` 24 bits: any pattern, reserved codes act as the RTL reads them). Read the output
/// ports after it with [`ptxfma_pipe_out`].
#[no_mangle]
pub extern "C" fn ptxfma_pipe_tick(
    h: *mut PtxfmaPipe,
    valid: u32,
    tag: u32,
    ctrl: u32,
    a: u64,
    b: u64,
    c: u64,
) -> i32 {
    guard("ptxfma_pipe_tick", || {
        if valid > 1 {
            return fail(PtxfmaStatus::BadArg, format!("valid = {valid}: 0 or 1"));
        }
        let Ok(tag) = u16::try_from(tag) else {
            return fail(
                PtxfmaStatus::BadArg,
                format!("tag {tag:#x} is wider than 16 bits"),
            );
        };
        port_ctrl(ctrl)?;
        with_pipe(h, |p| {
            p.tick(&PipeIn {
                valid: valid == 1,
                tag,
                ctrl,
                a,
                b,
                c,
                reset: false,
            });
            Ok(PtxfmaStatus::Ok)
        })
    })
}

/// The output ports after the last tick: `out_valid_o`, `out_tag_o`, `out_d_o`. Null
/// out-pointers are skipped, so a caller may read only what it needs.
///
/// # Safety
/// Each pointer is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_pipe_out(
    h: *mut PtxfmaPipe,
    valid: *mut u32,
    tag: *mut u32,
    d: *mut u64,
) -> i32 {
    guard("ptxfma_pipe_out", || {
        with_pipe(h, |p| {
            if let Some(v) = valid.as_mut() {
                *v = u32::from(p.out.valid);
            }
            if let Some(t) = tag.as_mut() {
                *t = u32::from(p.out.tag);
            }
            if let Some(x) = d.as_mut() {
                *x = p.out.d;
            }
            Ok(PtxfmaStatus::Ok)
        })
    })
}

fn stage_of(stage: u32) -> Res<PtxfmaStage> {
    Ok(match stage {
        0 => PtxfmaStage::S1,
        1 => PtxfmaStage::S2,
        2 => PtxfmaStage::S3,
        3 => PtxfmaStage::Out,
        _ => {
            return fail(
                PtxfmaStatus::BadArg,
                format!("stage {stage}: 0 (s1), 1 (s2), 2 (s3) or 3 (out)"),
            )
        }
    })
}

fn width(stage: PtxfmaStage) -> u32 {
    match stage {
        PtxfmaStage::S1 => S1::WIDTH,
        PtxfmaStage::S2 => S2::WIDTH,
        PtxfmaStage::S3 => S3::WIDTH,
        PtxfmaStage::Out => Out::WIDTH,
    }
}

/// The packed image of one bank, word 0 = bits 31:0 (the RTL's `s1_o`..`out_o` taps).
fn image(p: &Pipeline, stage: PtxfmaStage) -> Vec<u32> {
    let mut w = vec![0u32; width(stage).div_ceil(32) as usize];
    match stage {
        PtxfmaStage::S1 => p.s1.pack(&mut w),
        PtxfmaStage::S2 => p.s2.pack(&mut w),
        PtxfmaStage::S3 => p.s3.pack(&mut w),
        PtxfmaStage::Out => p.out.pack(&mut w),
    }
    w
}

/// The width in bits of a bank's packed image (`PtxfmaStage`); it takes `(bits + 31) / 32` words.
///
/// # Safety
/// `bits` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_stage_width(stage: u32, bits: *mut u32) -> i32 {
    guard("ptxfma_stage_width", || {
        let s = stage_of(stage)?;
        *out_ptr(bits, "bits")? = width(s);
        Ok(PtxfmaStatus::Ok)
    })
}

/// Copies a bank's packed image after the last tick into `words` (word 0 = bits 31:0), which
/// must hold `n_words` >= `(ptxfma_stage_width + 31) / 32` words.
///
/// # Safety
/// `words` is null or holds `n_words` writable elements.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_pipe_stage(
    h: *mut PtxfmaPipe,
    stage: u32,
    words: *mut u32,
    n_words: usize,
) -> i32 {
    guard("ptxfma_pipe_stage", || {
        let s = stage_of(stage)?;
        if words.is_null() {
            return fail(PtxfmaStatus::Null, "words is a null pointer");
        }
        let img = with_pipe(h, |p| Ok(image(p, s)))?;
        if n_words < img.len() {
            return fail(
                PtxfmaStatus::BadArg,
                format!(
                    "stage {stage} takes {} words, n_words = {n_words}",
                    img.len()
                ),
            );
        }
        std::ptr::copy_nonoverlapping(img.as_ptr(), words, img.len());
        Ok(PtxfmaStatus::Ok)
    })
}

/// One 32-bit word of a bank's packed image: the form DPI-C reads without open arrays.
///
/// # Safety
/// `word` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_pipe_stage_word(
    h: *mut PtxfmaPipe,
    stage: u32,
    index: u32,
    word: *mut u32,
) -> i32 {
    guard("ptxfma_pipe_stage_word", || {
        let s = stage_of(stage)?;
        let out = out_ptr(word, "word")?;
        let img = with_pipe(h, |p| Ok(image(p, s)))?;
        match img.get(index as usize) {
            Some(&w) => {
                *out = w;
                Ok(PtxfmaStatus::Ok)
            }
            None => fail(
                PtxfmaStatus::BadArg,
                format!("stage {stage} has {} words; index {index}", img.len()),
            ),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside an entry point's body comes back as PTXFMA_STATUS_PANIC with its text,
    /// and the thread (the host simulator) carries on.
    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let st = guard("ptxfma_test", || panic!("boom {}", 42));
        assert_eq!(st, PtxfmaStatus::Panic as i32);
        // SAFETY: the library's own NUL-terminated string.
        let msg = unsafe { CStr::from_ptr(ptxfma_last_error()) }
            .to_str()
            .unwrap();
        assert!(
            msg.contains("ptxfma_test: model panic") && msg.contains("boom 42"),
            "{msg}"
        );
        assert_eq!(guard("ptxfma_test", || Ok(PtxfmaStatus::Ok)), 0);
    }
}

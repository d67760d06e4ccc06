//! Checks of the arguments a C caller passes: strings, the target, out-pointers and control
//! words. Each turns a bad argument into a [`Fail`] with its status instead of undefined
//! behaviour or a panic.

use std::ffi::{c_char, CStr};

use ptxfma_model::ctrl::legal::is_legal;
use ptxfma_model::ctrl::{Ctrl, CTRL_BITS};
use ptxfma_ptx::quote::quote_spans;
use ptxfma_ptx::read::MAX_LINE;
use ptxfma_ptx::Target;

use crate::status::{fail, Fail, Res};
use crate::PtxfmaStatus;

/// A C string argument as `&str`: not null, UTF-8, at most `MAX_LINE` bytes.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string that lives for the call.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> Res<&'a str> {
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
pub(crate) unsafe fn target(p: *const c_char) -> Res<Target> {
    if p.is_null() {
        return Ok(Target::default());
    }
    let s = text(p, "target")?.trim();
    if s.is_empty() {
        return Ok(Target::default());
    }
    Target::parse(s).map_err(|e| Fail(PtxfmaStatus::BadTarget, quote_spans(e.message())))
}

pub(crate) fn out_ptr<'a, T>(p: *mut T, what: &str) -> Res<&'a mut T> {
    // SAFETY: non-null, and the caller promises it points to a writable T.
    unsafe { p.as_mut() }
        .ok_or_else(|| Fail(PtxfmaStatus::Null, format!("{what} is a null pointer")))
}

/// A control word for evaluation: `CTRL_BITS` bits and one that some PTX instruction decodes to. Words
/// the decoder never produces (reserved codes, unused fields set) have a defined meaning on the
/// pipe's ports, but evaluating one is almost surely a testbench bug, so it is refused here;
/// `ptxfma_pipe_tick` takes them as the RTL does.
pub(crate) fn legal_ctrl(word: u32) -> Res<Ctrl> {
    let ctrl = port_ctrl(word)?;
    if ctrl.encode() != word || !is_legal(&ctrl) {
        return fail(
            PtxfmaStatus::BadCtrl,
            format!("control word {word:#08x} is not one that a PTX instruction decodes to"),
        );
    }
    Ok(ctrl)
}

/// A control word on the pipe's `in_ctrl_i`: any pattern of `CTRL_BITS` bits.
pub(crate) fn port_ctrl(word: u32) -> Res<Ctrl> {
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

//! `ptxfma_eval`: one operation, through the model's pure stage functions.

use std::cell::Cell;

use ptxfma_model::machine::pipeline::{self, PipeIn};

use crate::args::{legal_ctrl, out_ptr};
use crate::status::guard;
use crate::PtxfmaStatus;

thread_local! {
    /// The last control word `ptxfma_eval` accepted on this thread (`u32::MAX`, never a legal
    /// word, at first).
    static LAST_LEGAL: Cell<u32> = const { Cell::new(u32::MAX) };
}

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
pub(crate) fn eval_one(ctrl: u32, a: u64, b: u64, c: u64) -> u64 {
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

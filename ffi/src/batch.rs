//! `ptxfma_eval_batch`: arrays of operations on the model's batch path.

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::batch;
use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{self, LANES};

use crate::args::legal_ctrl;
use crate::eval::eval_one;
use crate::status::{fail, guard, Fail, Res};
use crate::PtxfmaStatus;

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

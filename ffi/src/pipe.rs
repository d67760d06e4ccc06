//! Pipeline instances: handles into a registry, and the clock, reset and output ports of each.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};

use crate::args::port_ctrl;
use crate::status::{fail, guard, Res};
use crate::PtxfmaStatus;

/// Opaque pipeline instance, created by [`ptxfma_pipe_new`]. Never dereferenced: the pointer is
/// an id into a registry, so a freed or forged handle is reported instead of followed.
pub struct PtxfmaPipe {
    _private: [u8; 0],
}

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

pub(crate) fn with_pipe<T>(h: *mut PtxfmaPipe, f: impl FnOnce(&mut Pipeline) -> Res<T>) -> Res<T> {
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
/// `in_ctrl_i`, PTXFMA_CTRL_BITS bits: any pattern, reserved codes act as the RTL reads them). Read the output
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

//! The status every entry point returns, the per-thread message of the last error, and the
//! guard that keeps panics and failures from crossing the C boundary.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

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
    /// A word wider than the 27-bit control word (`PTXFMA_CTRL_BITS`), or (for evaluation)
    /// one no PTX instruction decodes to.
    BadCtrl = -5,
    /// A pipeline handle that was never created or was already freed.
    BadHandle = -6,
    /// Another argument out of range (a tag over 16 bits, a stage number, a word index, a
    /// buffer too small).
    BadArg = -7,
    /// The model panicked (a model bug); the message carries the panic text.
    Panic = -8,
}

/// An error: the status and its message.
pub(crate) struct Fail(pub(crate) PtxfmaStatus, pub(crate) String);

pub(crate) type Res<T> = Result<T, Fail>;

pub(crate) fn fail<T>(status: PtxfmaStatus, msg: impl Into<String>) -> Res<T> {
    Err(Fail(status, msg.into()))
}

thread_local! {
    /// The message of the last failed call on this thread, NUL-terminated for C.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    // An interior NUL cannot come from the model's messages, but a C string must not carry one.
    let msg = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = msg);
}

/// Runs an entry point's body: catches a panic, records the message of a failure, and turns the
/// result into a status code.
pub(crate) fn guard(name: &str, body: impl FnOnce() -> Res<PtxfmaStatus>) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

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

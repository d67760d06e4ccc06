//! Ctrl-C while a file is being written: the handler removes every temporary still open and
//! exits 130, so an interrupted `fma-model silicon` leaves nothing half-written behind.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static OPEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs the handler (once per process; later calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Without a handler Ctrl-C still stops the process; only the temporaries would stay.
        let _ = ctrlc::set_handler(|| {
            let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
            for p in open.iter() {
                let _ = std::fs::remove_file(p);
            }
            // Exits 130 whether or not stderr takes the word.
            let _ = ptxfma_cli_common::errln!("interrupted");
            std::process::exit(130);
        });
    });
}

/// Records `path` as a temporary to remove on Ctrl-C; call before creating it.
pub fn register(path: &Path) {
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.to_owned());
}

/// Forgets `path` once it is renamed into place or removed.
pub fn unregister(path: &Path) {
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}

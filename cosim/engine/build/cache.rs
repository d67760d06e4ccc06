//! The cache of compiled pieces, keyed by a hash of everything that goes into them, outside
//! `OUT_DIR` so that switching features or profiles reuses what is built.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::fail;

/// Cache entries kept per variant and build; older ones are deleted so repeated RTL edits do
/// not fill the disk, while flipping between a few RTL versions stays cheap.
const KEEP_PER_VARIANT: usize = 4;

/// The cache entry `<cache>/<what>-<key>`, built by `make` into a temporary directory and
/// renamed into place, so an interrupted or concurrent build never leaves a half entry.
pub fn cached(cache: &Path, what: &str, key: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let dir = cache.join(format!("{what}-{key}"));
    if !dir.is_dir() {
        let tmp = cache.join(format!("{what}-{key}.tmp{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).unwrap_or_else(|e| fail(&format!("{}: {e}", tmp.display())));
        make(&tmp);
        if fs::rename(&tmp, &dir).is_err() {
            // Another build got there first with the same key: same content, keep theirs.
            let _ = fs::remove_dir_all(&tmp);
        }
        prune(cache, what, &dir);
    }
    // Mark as recently used for pruning.
    if let Ok(f) = fs::File::open(&dir) {
        let _ = f.set_modified(SystemTime::now());
    }
    dir
}

/// Deletes all but the newest KEEP_PER_VARIANT entries named `<what>-*`.
fn prune(cache: &Path, what: &str, keep: &Path) {
    let prefix = format!("{what}-");
    let mut entries: Vec<(SystemTime, PathBuf)> = fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix(&prefix)?;
            // Only complete entries of exactly this name (not `model-a_b-*` for `model-a`).
            if rest.len() != 16 || !rest.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            let t = e.metadata().ok()?.modified().ok()?;
            Some((t, e.path()))
        })
        .collect();
    entries.sort();
    let excess = entries.len().saturating_sub(KEEP_PER_VARIANT);
    for (_, p) in entries.into_iter().take(excess) {
        if p != keep {
            let _ = fs::remove_dir_all(p);
        }
    }
}

/// Where the cache lives.
pub fn cache_dir(out_dir: &Path) -> PathBuf {
    if let Some(d) = env::var_os("PTXFMA_RTL_CACHE_DIR") {
        return PathBuf::from(d);
    }
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: share across profiles, since the
    // C++ flags do not depend on the profile.
    out_dir
        .ancestors()
        .nth(4)
        .unwrap_or(out_dir)
        .join("ptxfma-rtl-cache")
}

/// 64-bit hash as 16 hex digits. `DefaultHasher` may change between Rust releases; that only
/// costs a rebuild.
pub fn hash(parts: &[&[u8]]) -> String {
    let mut h = DefaultHasher::new();
    for p in parts {
        h.write_usize(p.len());
        h.write(p);
    }
    format!("{:016x}", h.finish())
}

pub fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
}

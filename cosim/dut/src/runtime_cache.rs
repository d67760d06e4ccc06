//! The Verilator runtime's object of `dut build` (`verilated.cpp`, `verilated_threads.cpp` and
//! `verilated_vcd_c.cpp` as one unit), kept between builds: it is the same for every design, and
//! compiling it is most of a small design's build (7 of about 12 CPU seconds for `rtl/alt/`),
//! so every build of the test suite and every mutant of `make mutate MUTATE_DUT=...` paid it.
//!
//! An entry is `runtime-KEY-SHA.o`: KEY hashes everything that goes into the object (the
//! compiler's `--version`, its flags, the Verilator version, include directory and runtime
//! sources), SHA is the object's own SHA-256, checked before use; an entry that fails the check
//! is compiled again and replaced. It is written under a temporary name and renamed, so a
//! concurrent or interrupted build leaves no partial entry (a killed one's temporary is swept
//! by the next store). The cache only saves time: an entry that cannot be read or written is
//! compiled as if there were no cache.

use std::path::{Path, PathBuf};

use ptxfma_cosim_engine::dut::sha256;

/// The environment variable that moves the cache; set and empty, there is none.
pub const ENV: &str = "PTXFMA_DUT_CACHE_DIR";

/// Where entries live: `$PTXFMA_DUT_CACHE_DIR` (set and empty: no cache), else
/// `$XDG_CACHE_HOME/ptxfma-dut`, else `$HOME/.cache/ptxfma-dut`.
pub fn dir() -> Option<PathBuf> {
    let set = |v: &str| std::env::var_os(v).filter(|d| !d.is_empty());
    match std::env::var_os(ENV) {
        Some(d) if d.is_empty() => None,
        Some(d) => Some(PathBuf::from(d)),
        None => set("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|d| d.join("ptxfma-dut")),
    }
}

/// The entry of one runtime object in one cache directory.
pub struct Entry {
    dir: PathBuf,
    key: String,
}

impl Entry {
    /// The entry of the object made from `inputs` (everything that decides its bytes).
    pub fn new(dir: PathBuf, inputs: &[&[u8]]) -> Entry {
        let mut all = Vec::new();
        for part in inputs {
            all.extend_from_slice(&(part.len() as u64).to_le_bytes());
            all.extend_from_slice(part);
        }
        Entry {
            dir,
            key: sha256(&all)[..16].to_string(),
        }
    }

    fn prefix(&self) -> String {
        format!("runtime-{}-", self.key)
    }

    /// Copies the entry to `to` and returns true, if it is there and whole.
    pub fn fetch(&self, to: &Path) -> bool {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return false;
        };
        let prefix = self.prefix();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(sha) = name
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".o"))
            else {
                continue;
            };
            match std::fs::read(e.path()) {
                Ok(bytes) if sha256(&bytes) == sha => {
                    return std::fs::write(to, bytes).is_ok();
                }
                // Not the object it names: removed, so that the store after the compile is
                // the only entry of this key.
                _ => {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        false
    }

    /// Stores the object `obj` as the entry. Failures are ignored: the build has its object.
    pub fn store(&self, obj: &Path) {
        let Ok(bytes) = std::fs::read(obj) else {
            return;
        };
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        ptxfma_cosim_engine::temporary::sweep(&self.dir);
        let dest = self
            .dir
            .join(format!("{}{}.o", self.prefix(), sha256(&bytes)));
        let tmp = ptxfma_cosim_engine::temporary::beside_name(&dest, "tmp");
        if std::fs::write(&tmp, &bytes).is_err() || std::fs::rename(&tmp, &dest).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Entry;

    /// A scratch directory of this test process, removed when dropped.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn an_entry_is_found_by_its_inputs_and_refused_when_its_bytes_changed() {
        let s = Scratch(
            std::env::temp_dir().join(format!("ptxfma-runtime-cache-{}", std::process::id())),
        );
        let _ = std::fs::remove_dir_all(&s.0);
        std::fs::create_dir_all(&s.0).unwrap();
        let (obj, got) = (s.0.join("built.o"), s.0.join("got.o"));
        std::fs::write(&obj, b"object bytes").unwrap();
        let cache = s.0.join("cache");
        let entry = Entry::new(cache.clone(), &[b"clang 1", b"-O2"]);
        assert!(!entry.fetch(&got), "an empty cache has no entry");
        entry.store(&obj);
        assert!(entry.fetch(&got));
        assert_eq!(std::fs::read(&got).unwrap(), b"object bytes");
        // Other inputs, another entry; the same bytes split otherwise, another key.
        assert!(!Entry::new(cache.clone(), &[b"clang 2", b"-O2"]).fetch(&got));
        assert!(!Entry::new(cache.clone(), &[b"clang 1-O", b"2"]).fetch(&got));
        // An entry whose bytes are not the ones its name records is removed, not used.
        let names: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::write(&names[0], b"object bytez").unwrap();
        std::fs::remove_file(&got).unwrap();
        assert!(!entry.fetch(&got));
        assert!(!got.exists() && !names[0].exists());
    }
}

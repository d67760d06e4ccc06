//! The kit's product claims of `dut prove --by-cases`, kept once proved: they say nothing of a
//! team's design (the claim reads only the kit's multiplier and the operands; the design's
//! outputs reach no assertion or assumption of it), yet are more than half of a proof's time
//! (3,469 of 6,164 s for `fma.rn.f16`). A claim proved for the same kit RTL, the same miter
//! and the same word need not be proved again, for the next word of a run, the next run, or
//! another team's design.
//!
//! An entry is `kit-product-KEY.json` in the `dut build` cache directory
//! ([`crate::runtime_cache::dir`], `$PTXFMA_DUT_CACHE_DIR` moves it, set and empty turns it
//! off): KEY hashes the kit's RTL (each file's name and bytes), the miter and its lane
//! comparison, the model's preparation, the word's own `miter_case.svh` written without the
//! design's cut, and the part. Only a proved claim is kept, written under a temporary name and
//! renamed. The cache only saves time: an entry that cannot be read or written is proved
//! again.

use std::path::{Path, PathBuf};

use ptxfma_cosim_engine::dut::sha256;

/// What an entry records: that the claim was proved, how long it took then, and when.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    record: String,
    claim: String,
    proved: bool,
    seconds: f64,
}

const RECORD: &str = "fma-cosim dut prove kit product claim 1";

/// One claim's entry in the cache directory `dir`.
pub struct KitClaim {
    path: PathBuf,
}

impl KitClaim {
    /// The entry of the claim made from `inputs` (everything that decides the claim).
    pub fn new(dir: &Path, inputs: &[&[u8]]) -> KitClaim {
        let mut all = Vec::new();
        for part in inputs {
            all.extend_from_slice(&(part.len() as u64).to_le_bytes());
            all.extend_from_slice(part);
        }
        KitClaim {
            path: dir.join(format!("kit-product-{}.json", &sha256(&all)[..32])),
        }
    }

    /// The seconds the claim took when it was proved, if it was.
    pub fn proved(&self) -> Option<f64> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        (e.record == RECORD && e.proved).then_some(e.seconds)
    }

    /// Keeps the claim `name` as proved in `seconds`; a failure to write is no error.
    pub fn keep(&self, name: &str, seconds: f64) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let e = Entry {
            record: RECORD.into(),
            claim: name.into(),
            proved: true,
            seconds,
        };
        let tmp = ptxfma_cosim_engine::temporary::beside_name(&self.path, "tmp");
        let text = serde_json::to_string_pretty(&e).expect("an entry serialises") + "\n";
        if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, &self.path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// The entry's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

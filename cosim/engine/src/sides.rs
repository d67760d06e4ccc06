//! The two sides of a comparison as the command line names them, for the modes that run
//! chunks (`run`) and those that run one stream (`--vectors`, `replay`, `wave`) alike.

use crate::Error;
use crate::{reference, rtl};

/// The two sides of a comparison, as chosen on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sides {
    /// RTL variant under test.
    pub rtl: String,
    /// Reference: `model` or `rtl:<variant>`.
    pub golden: String,
    /// `run --random-init SEED`: every chunk runs on a freshly built RTL whose initial state
    /// (before the reset) is drawn from a seed derived from this one and the chunk index, so the
    /// outcome is the same for any `--jobs`. None: a worker's RTL is built once, all zeros.
    pub random_init: Option<u64>,
    /// `run --rtl-coverage FILE`: each worker writes its RTL's coverage counts to
    /// [`crate::regress::worker_file`] when it finishes.
    pub rtl_coverage: Option<std::path::PathBuf>,
    /// `run --backpressure PERCENT` of a handshake design (0: none).
    pub backpressure: u64,
}

impl Sides {
    /// Checks both names against this build.
    pub fn new(rtl: &str, golden: &str) -> Result<Sides, Error> {
        rtl::variant(rtl)?;
        reference::from_spec(golden)?;
        Ok(Sides {
            rtl: rtl.to_string(),
            golden: golden.to_string(),
            random_init: None,
            rtl_coverage: None,
            backpressure: 0,
        })
    }

    /// Extra replay arguments when not the defaults, as words.
    pub fn args(&self) -> Vec<String> {
        let mut a = sides_args(&self.rtl, &self.golden);
        if self.backpressure > 0 {
            a.extend(["--backpressure".to_string(), self.backpressure.to_string()]);
        }
        for p in rtl::plusargs() {
            a.extend(["--plusarg".to_string(), p.clone()]);
        }
        a
    }
}

/// The `--rtl`/`--dut` and `--golden` arguments that name these sides (none for the defaults),
/// as words.
pub fn sides_args(rtl: &str, golden: &str) -> Vec<String> {
    let mut a = Vec::new();
    if let Some(dir) = rtl.strip_prefix("dut:") {
        a.extend(["--dut".to_string(), dir.to_string()]);
    } else if rtl != "default" {
        a.extend(["--rtl".to_string(), rtl.to_string()]);
    }
    if golden != "model" {
        a.extend(["--golden".to_string(), golden.to_string()]);
    }
    a
}

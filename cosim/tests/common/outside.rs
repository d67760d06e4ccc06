//! A team's design outside the checkout: `rtl/alt/`'s sources copied to a fresh directory
//! under the system's temporary directory, and the manifests written beside them.

use std::path::{Path, PathBuf};

/// A fresh directory under the system's temporary directory (outside the checkout), removed
/// when dropped.
pub struct Outside(pub PathBuf);

impl Outside {
    pub fn new(name: &str) -> Outside {
        let d = std::env::temp_dir().join(format!("ptxfma-dut-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("src")).unwrap();
        let alt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/alt");
        for f in [
            "ptxfma_alt_exact.sv",
            "ptxfma_alt_round.sv",
            "ptxfma_alt_top.sv",
        ] {
            std::fs::copy(alt.join(f), d.join("src").join(f)).unwrap();
        }
        Outside(d)
    }

    pub fn path(&self, p: &str) -> String {
        self.0.join(p).to_str().unwrap().to_string()
    }

    /// Writes `manifest.toml`-like file `name` with the alt design's sources and `extra`.
    pub fn manifest(&self, name: &str, design_extra: &str, rest: &str) -> String {
        let text = format!(
            "[design]\ntop = \"ptxfma_alt_top\"\nsources = [\"src/ptxfma_alt_exact.sv\", \
             \"src/ptxfma_alt_round.sv\", \"src/ptxfma_alt_top.sv\"]\n{design_extra}\n{rest}"
        );
        std::fs::write(self.0.join(name), text).unwrap();
        self.path(name)
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The contract and forms of `rtl/alt/`: the f32 family, results within 64 cycles.
pub const FORMS: &str = "[contract]\nlatency_bound = 64\n\n[forms]\nfamilies = [\"f32\"]\n";

/// An error is one line on stderr, `error: ...`, with exit 2; returns the line.
pub fn one_line_error((code, out, err): (i32, String, String)) -> String {
    assert_eq!(code, 2, "stdout: {out}\nstderr: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    lines[0].to_string()
}

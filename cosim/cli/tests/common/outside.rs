//! A team's design outside the checkout: `rtl/alt/`'s sources copied to a fresh directory
//! under the system's temporary directory, the manifests written beside them, and the
//! `fma-cosim dut build` and `run --dut` command lines the tests of `--dut` repeat.

use std::path::{Path, PathBuf};

use super::cosim;

/// A fresh directory under the system's temporary directory (outside the checkout), removed
/// when dropped.
pub struct Outside(pub PathBuf);

impl Outside {
    pub fn new(name: &str) -> Outside {
        let alt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rtl/alt");
        Outside::copy_of(
            name,
            &alt,
            "src",
            &[
                "ptxfma_alt_exact.sv",
                "ptxfma_alt_round.sv",
                "ptxfma_alt_top.sv",
            ],
        )
    }

    /// A fresh directory with `files` of directory `from` copied into its subdirectory `to`
    /// (`""`: itself): another team's design than `rtl/alt/`.
    pub fn copy_of(name: &str, from: &Path, to: &str, files: &[&str]) -> Outside {
        let d = std::env::temp_dir().join(format!("ptxfma-dut-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join(to)).unwrap();
        for f in files {
            std::fs::copy(from.join(f), d.join(to).join(f)).unwrap();
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

    /// Copies `cosim/cli/tests/dut/FILE` (a wrapper of the alt design whose top is the file's
    /// name) into `src/` and writes manifest `name` for it: the alt sources and it, `design_extra`
    /// in `[design]`, then `rest`.
    pub fn wrapper_manifest(
        &self,
        name: &str,
        file: &str,
        design_extra: &str,
        rest: &str,
    ) -> String {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/dut")
            .join(file);
        std::fs::copy(from, self.0.join("src").join(file)).unwrap();
        let top = file.trim_end_matches(".sv");
        let text = format!(
            "[design]\ntop = \"{top}\"\nsources = [\"src/ptxfma_alt_exact.sv\", \
             \"src/ptxfma_alt_round.sv\", \"src/ptxfma_alt_top.sv\", \"src/{file}\"]\n\
             {design_extra}\n{rest}"
        );
        std::fs::write(self.0.join(name), text).unwrap();
        self.path(name)
    }

    /// `fma-cosim dut build MANIFEST --out OUT`, `out` a directory in here; returns (exit
    /// code, stdout, stderr).
    pub fn build(&self, manifest: &str, out: &str) -> (i32, String, String) {
        cosim(&["dut", "build", manifest, "--out", &self.path(out)])
    }

    /// `fma-cosim run --dut BUILD --compare ports EXTRA`, `build` a directory in here: the
    /// runs refused before they start.
    pub fn run(&self, build: &str, extra: &[&str]) -> (i32, String, String) {
        let dut = self.path(build);
        let mut args = vec!["run", "--dut", &dut, "--compare", "ports"];
        args.extend_from_slice(extra);
        cosim(&args)
    }

    /// The build `build` (a directory in here) checked by its ports: `fma-cosim run --progress
    /// off --dut BUILD --compare ports --count 100000 --jobs JOBS EXTRA --waves-dir WAVES`,
    /// the waveforms in `waves` in here.
    pub fn check(&self, build: &str, jobs: &str, extra: &[&str]) -> (i32, String, String) {
        self.check_count(build, "100000", jobs, extra)
    }

    /// [`Outside::check`] of `count` operations.
    pub fn check_count(
        &self,
        build: &str,
        count: &str,
        jobs: &str,
        extra: &[&str],
    ) -> (i32, String, String) {
        let (dut, waves) = (self.path(build), self.path("waves"));
        let mut args = vec![
            "run",
            "--progress",
            "off",
            "--dut",
            &dut,
            "--compare",
            "ports",
            "--count",
            count,
            "--jobs",
            jobs,
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--waves-dir", &waves]);
        cosim(&args)
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

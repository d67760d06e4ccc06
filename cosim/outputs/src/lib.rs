//! What a person or a tool reads of a run; built on the engine and the checks, never the
//! reverse.
//!
//! - [`command`]: the commands printed to be run, each word quoted for a POSIX shell;
//! - [`report`]: the divergence report, and the operation replayed alone;
//! - [`waves`]: the waveform of a divergence window, its view and GTKWave save file, FST;
//! - [`results`]: the JSON results, their merge, JUnit XML and the text summary;
//! - [`html`]: the run's page and the coverage page;
//! - [`coverage_text`]: the coverage as text;
//! - [`rtl_drivers`]: which RTL module drives a stage register's field, read from the sources;
//! - [`rtlcov`]: RTL line and toggle coverage (`.dat` files: merge, figures).

pub mod command;
pub mod coverage_text;
pub mod html;
pub mod report;
pub mod results;
pub mod rtl_drivers;
pub mod rtlcov;
pub mod waves;

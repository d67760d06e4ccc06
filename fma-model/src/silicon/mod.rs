//! The model against NVIDIA silicon (`make silicon`, issue 11): every instruction form the GPU
//! accepts runs the project's vectors on the GPU, and the results are compared with the model's
//! bit for bit.
//!
//! Three steps with files between them, because the GPU is often on another machine than the
//! one that builds the model:
//! 1. [`generate`]: the vectors of every form and the model's answers, into a vector file;
//! 2. the CUDA program `silicon/ptxfma_silicon.cu` (needs only `nvcc`, the program and the
//!    vector file): one kernel per form, its inline PTX from [`forms`], results into a file;
//! 3. [`compare`]: the two files, a table per form and per decision of `docs/semantics.md`.
//!
//! Where each part lives: `forms` (the forms, their inline PTX, `silicon/forms.inc`),
//! `directed` (the vectors aimed at the decisions), `files` (the two file layouts),
//! `generate`, `compare`, `interrupt` (Ctrl-C removes what is half-written).

pub mod compare;
pub mod directed;
pub mod exhaustive;
pub mod files;
pub mod forms;
pub mod generate;
pub mod interrupt;

use std::path::{Path, PathBuf};

/// Why a silicon step failed: each is one line for the user and exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum SiliconError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {msg}", path.display())]
    Format { path: PathBuf, msg: String },
    #[error("{0}")]
    Usage(String),
}

impl SiliconError {
    pub fn io(path: &Path, source: std::io::Error) -> SiliconError {
        SiliconError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

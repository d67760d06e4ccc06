//! The two files between the steps, little-endian binary so the CUDA program reads them with
//! `fread` and no parser (`silicon/README.md` gives the layout for other readers):
//!
//! - vectors: `PTXFMAV1`, u64 fingerprint of the forms table, u64 seed, u32 block count; then
//!   per block u32 form id, u32 count, and four arrays of `count` u64: a, b, c, the model's d.
//! - results: `PTXFMAR1`, u64 fingerprint, u32 length and the text of `key=value` lines that
//!   describe the GPU, u32 block count; then per block u32 form id, u32 count, u32 status
//!   (0 ran, 1 this GPU lacks the form), u32 zero, and `count` u64 results when it ran.
//!
//! Readers check every length against what is left of the file before allocating, so a cut or
//! corrupt file is an error, never an out-of-memory.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::SiliconError;

pub const VECTORS_MAGIC: &[u8; 8] = b"PTXFMAV1";
pub const RESULTS_MAGIC: &[u8; 8] = b"PTXFMAR1";
/// A result block's status: the GPU ran it.
pub const RAN: u32 = 0;
/// A result block's status: the GPU's architecture has no such instruction.
pub const UNSUPPORTED: u32 = 1;

/// One form's vectors with the model's answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub form: u32,
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
    pub model: Vec<u64>,
}

/// One form's results from the GPU: `None` where the GPU could not run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultBlock {
    pub form: u32,
    pub count: u32,
    pub d: Option<Vec<u64>>,
}

/// A reader over one file that knows its name and how many bytes are left.
pub struct Input {
    path: PathBuf,
    r: BufReader<File>,
    left: u64,
}

impl Input {
    pub fn open(path: &Path) -> Result<Input, SiliconError> {
        let io = |e| SiliconError::io(path, e);
        let f = File::open(path).map_err(io)?;
        let left = f.metadata().map_err(io)?.len();
        Ok(Input {
            path: path.to_owned(),
            r: BufReader::with_capacity(1 << 20, f),
            left,
        })
    }

    fn bad(&self, what: &str) -> SiliconError {
        SiliconError::Format {
            path: self.path.clone(),
            msg: what.to_owned(),
        }
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>, SiliconError> {
        if n > self.left {
            return Err(self.bad(&format!("cut short in {what}")));
        }
        let mut buf = vec![0; n as usize];
        self.r
            .read_exact(&mut buf)
            .map_err(|e| SiliconError::io(&self.path, e))?;
        self.left -= n;
        Ok(buf)
    }

    fn u32(&mut self, what: &str) -> Result<u32, SiliconError> {
        Ok(u32::from_le_bytes(self.bytes(4, what)?.try_into().unwrap()))
    }

    fn u64(&mut self, what: &str) -> Result<u64, SiliconError> {
        Ok(u64::from_le_bytes(self.bytes(8, what)?.try_into().unwrap()))
    }

    fn words(&mut self, n: u32, what: &str) -> Result<Vec<u64>, SiliconError> {
        let raw = self.bytes(u64::from(n) * 8, what)?;
        Ok(raw
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .collect())
    }

    fn magic(&mut self, want: &[u8; 8], kind: &str) -> Result<(), SiliconError> {
        let m = self
            .bytes(8, "the header")
            .map_err(|_| self.bad(&format!("not a {kind} file (too short)")))?;
        if m != want {
            return Err(self.bad(&format!(
                "not a {kind} file (no {} header)",
                kind_magic(want)
            )));
        }
        Ok(())
    }

    fn end(&self) -> Result<(), SiliconError> {
        if self.left != 0 {
            return Err(self.bad(&format!("{} bytes after the last block", self.left)));
        }
        Ok(())
    }
}

fn kind_magic(m: &[u8; 8]) -> String {
    String::from_utf8_lossy(m).into_owned()
}

/// The head of a vector file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorsHead {
    pub fingerprint: u64,
    pub seed: u64,
    pub blocks: u32,
}

/// Reads a vector file block by block.
pub struct VectorsReader {
    input: Input,
    pub head: VectorsHead,
    read: u32,
}

impl VectorsReader {
    pub fn open(path: &Path) -> Result<VectorsReader, SiliconError> {
        let mut input = Input::open(path)?;
        input.magic(VECTORS_MAGIC, "vector")?;
        let head = VectorsHead {
            fingerprint: input.u64("the header")?,
            seed: input.u64("the header")?,
            blocks: input.u32("the header")?,
        };
        Ok(VectorsReader {
            input,
            head,
            read: 0,
        })
    }

    /// The next block, or `None` after the last (having checked nothing follows it).
    pub fn next_block(&mut self) -> Result<Option<Block>, SiliconError> {
        if self.read == self.head.blocks {
            self.input.end()?;
            return Ok(None);
        }
        self.read += 1;
        let form = self.input.u32("a block header")?;
        let n = self.input.u32("a block header")?;
        Ok(Some(Block {
            form,
            a: self.input.words(n, "a block")?,
            b: self.input.words(n, "a block")?,
            c: self.input.words(n, "a block")?,
            model: self.input.words(n, "a block")?,
        }))
    }

    pub fn path(&self) -> &Path {
        &self.input.path
    }
}

/// The head of a result file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultsHead {
    pub fingerprint: u64,
    /// `key=value` lines from the CUDA program: GPU name, compute capability, versions.
    pub info: Vec<(String, String)>,
    pub blocks: u32,
}

/// Reads a result file block by block.
pub struct ResultsReader {
    input: Input,
    pub head: ResultsHead,
    read: u32,
}

/// The longest info text a result file may carry.
const MAX_INFO: u32 = 1 << 16;

impl ResultsReader {
    pub fn open(path: &Path) -> Result<ResultsReader, SiliconError> {
        let mut input = Input::open(path)?;
        input.magic(RESULTS_MAGIC, "result")?;
        let fingerprint = input.u64("the header")?;
        let len = input.u32("the header")?;
        if len > MAX_INFO {
            return Err(input.bad("its GPU description is too long"));
        }
        let text = input.bytes(u64::from(len), "the header")?;
        let text = String::from_utf8(text).map_err(|_| input.bad("GPU description not UTF-8"))?;
        let info = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let blocks = input.u32("the header")?;
        Ok(ResultsReader {
            input,
            head: ResultsHead {
                fingerprint,
                info,
                blocks,
            },
            read: 0,
        })
    }

    pub fn next_block(&mut self) -> Result<Option<ResultBlock>, SiliconError> {
        if self.read == self.head.blocks {
            self.input.end()?;
            return Ok(None);
        }
        self.read += 1;
        let form = self.input.u32("a block header")?;
        let count = self.input.u32("a block header")?;
        let status = self.input.u32("a block header")?;
        let _zero = self.input.u32("a block header")?;
        let d = match status {
            RAN => Some(self.input.words(count, "a block")?),
            UNSUPPORTED => None,
            s => {
                return Err(self
                    .input
                    .bad(&format!("block status {s} is neither 0 nor 1")))
            }
        };
        Ok(Some(ResultBlock { form, count, d }))
    }

    pub fn path(&self) -> &Path {
        &self.input.path
    }
}

/// A file written under a temporary name beside its destination and renamed into place by
/// [`Output::finish`]; dropped unfinished (an error), the temporary is removed.
pub struct Output {
    path: PathBuf,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
}

impl Output {
    pub fn create(path: &Path) -> Result<Output, SiliconError> {
        let name = path
            .file_name()
            .ok_or_else(|| SiliconError::io(path, io::Error::other("not a file name")))?;
        let tmp = path.with_file_name(format!(
            ".{}.tmp{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        super::interrupt::register(&tmp);
        let f = File::create(&tmp).map_err(|e| {
            super::interrupt::unregister(&tmp);
            SiliconError::io(path, e)
        })?;
        Ok(Output {
            path: path.to_owned(),
            tmp,
            w: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), SiliconError> {
        let w = self.w.as_mut().expect("written after finish");
        w.write_all(bytes)
            .map_err(|e| SiliconError::io(&self.path, e))
    }

    pub fn u32(&mut self, x: u32) -> Result<(), SiliconError> {
        self.write(&x.to_le_bytes())
    }

    pub fn u64(&mut self, x: u64) -> Result<(), SiliconError> {
        self.write(&x.to_le_bytes())
    }

    pub fn words(&mut self, xs: &[u64]) -> Result<(), SiliconError> {
        let mut buf = Vec::with_capacity(xs.len() * 8);
        for x in xs {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        self.write(&buf)
    }

    /// Flushes, and renames the file into place.
    pub fn finish(mut self) -> Result<(), SiliconError> {
        let w = self.w.take().expect("finished once");
        let f = w
            .into_inner()
            .map_err(|e| SiliconError::io(&self.path, e.into_error()))?;
        f.sync_all().map_err(|e| SiliconError::io(&self.path, e))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| SiliconError::io(&self.path, e))?;
        super::interrupt::unregister(&self.tmp);
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.w.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
            super::interrupt::unregister(&self.tmp);
        }
    }
}

/// Writes a vector file's head.
pub fn write_vectors_head(out: &mut Output, head: &VectorsHead) -> Result<(), SiliconError> {
    out.write(VECTORS_MAGIC)?;
    out.u64(head.fingerprint)?;
    out.u64(head.seed)?;
    out.u32(head.blocks)
}

/// Writes one block of a vector file.
pub fn write_block(out: &mut Output, b: &Block) -> Result<(), SiliconError> {
    out.u32(b.form)?;
    out.u32(b.a.len() as u32)?;
    for xs in [&b.a, &b.b, &b.c, &b.model] {
        out.words(xs)?;
    }
    Ok(())
}

/// Writes a whole result file: what the CUDA program writes, for the tests and for
/// `fma-model silicon` users who run the kernels some other way.
pub fn write_results(
    path: &Path,
    head: &ResultsHead,
    blocks: &[ResultBlock],
) -> Result<(), SiliconError> {
    let mut out = Output::create(path)?;
    out.write(RESULTS_MAGIC)?;
    out.u64(head.fingerprint)?;
    let info: String = head
        .info
        .iter()
        .map(|(k, v)| format!("{k}={v}\n"))
        .collect();
    out.u32(info.len() as u32)?;
    out.write(info.as_bytes())?;
    out.u32(blocks.len() as u32)?;
    for b in blocks {
        out.u32(b.form)?;
        out.u32(b.count)?;
        out.u32(if b.d.is_some() { RAN } else { UNSUPPORTED })?;
        out.u32(0)?;
        if let Some(d) = &b.d {
            out.words(d)?;
        }
    }
    out.finish()
}

//! `fma-cosim run --vectors FILE`: external vectors through the RTL and the model in lockstep,
//! each retired result also checked against the file.
//!
//! Two formats: Berkeley TestFloat `testfloat_gen` output (`--testfloat f64_mulAdd -rmin`, read
//! by `ptxfma_cli_common::testfloat` as `fma-model check` reads it), or `fma-model eval` lines
//! (`.target` lines and `//` comments allowed) with an optional last column holding the expected
//! result. Plain or gzipped. Results compare bit for bit, except that an f32 NaN matches any
//! NaN unless `--strict-nan` (PTX leaves the f32 NaN open; f64 payloads are compared always for
//! eval lines, and as in `fma-model check` for TestFloat).
//!
//! The file runs in segments of [`SEGMENT`] operations, each from reset, one operation per
//! cycle back to back, so memory stays bounded for any corpus.
//!
//! With `--dut`, a line outside the design's forms (its manifest's `forms`) is refused in one
//! line naming the file, the line and the instruction, exit 2: the file is read through once
//! before anything runs.

use ptxfma_cli_common::{out, outln};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use ptxfma_cli_common::testfloat::{self, Func};
use ptxfma_model::ctrl::{Ctrl, Rnd};
use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};
use ptxfma_ptx::read::MAX_LINE;
use ptxfma_ptx::{self as op, Target};

use ptxfma_cosim_engine::lockstep::{self, Config};
use ptxfma_cosim_engine::ports;
use ptxfma_cosim_engine::reference;
use ptxfma_cosim_engine::sides::Sides;
use ptxfma_cosim_engine::stim;
use ptxfma_cosim_engine::stream;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::report::{self, Origin};

use crate::args::DesignForms;

/// Operations per lockstep segment.
const SEGMENT: usize = 1 << 18;
/// Mismatches with the file reported in full.
const SHOWN: u64 = 10;
/// How to read the vectors file.
pub struct Source {
    pub path: PathBuf,
    /// TestFloat function and rounding mode; eval lines when `None`.
    pub testfloat: Option<(Func, Rnd)>,
    pub strict_nan: bool,
}

/// One vector: the operation and, when the file gives it, the expected result.
#[derive(Clone, Copy)]
struct Vector {
    line: usize,
    inp: PipeIn,
    expected: Option<u64>,
}

/// Reads vectors from the file one line at a time.
struct Reader {
    input: Box<dyn BufRead>,
    source_name: String,
    testfloat: Option<(Func, Rnd)>,
    target: Target,
    line: usize,
    buf: Vec<u8>,
    /// A `dut build` design's forms: a line outside them is refused as it is read.
    design: Option<DesignForms>,
}

impl Reader {
    fn open(src: &Source, design: Option<DesignForms>) -> Result<Reader, Error> {
        let input = testfloat::open(Some(&src.path))
            .map_err(|e| Error::new(format!("{}: {e}", src.path.display())))?;
        Ok(Reader {
            input,
            source_name: src.path.display().to_string(),
            testfloat: src.testfloat,
            target: Target::default(),
            line: 0,
            buf: Vec::new(),
            design,
        })
    }

    fn err(&self, msg: &str) -> Error {
        Error::new(format!("{} line {}: {msg}", self.source_name, self.line))
    }

    /// The next vector, or `None` at the end of the file.
    fn next_vector(&mut self) -> Result<Option<Vector>, Error> {
        loop {
            let len = ptxfma_ptx::read::read_line(&mut self.input, &mut self.buf, MAX_LINE)
                .map_err(|e| Error::new(format!("{}: {e}", self.source_name)))?;
            let Some(len) = len else {
                return Ok(None);
            };
            self.line += 1;
            if len > MAX_LINE {
                return Err(self.err(&format!("longer than {MAX_LINE} bytes")));
            }
            let text = std::str::from_utf8(&self.buf)
                .map_err(|_| self.err("not text (invalid UTF-8)"))?
                .trim()
                .to_string();
            let v = match self.testfloat {
                Some((func, rnd)) => self.testfloat_line(&text, func, rnd)?,
                None => self.eval_line(&text)?,
            };
            if let Some(v) = v {
                if let Some(why) = self.design.as_ref().and_then(|d| d.refusal(&v.inp)) {
                    return Err(self.err(&why));
                }
                return Ok(Some(v));
            }
        }
    }

    fn testfloat_line(&self, text: &str, func: Func, rnd: Rnd) -> Result<Option<Vector>, Error> {
        let case = testfloat::parse_line(text, self.line, func).map_err(|e| self.err(&e))?;
        Ok(case.map(|c| Vector {
            line: self.line,
            inp: PipeIn {
                valid: true,
                tag: 0,
                ctrl: func.ctrl(rnd).encode(),
                a: c.a,
                b: c.b,
                c: c.c,
                reset: false,
            },
            expected: Some(c.expected),
        }))
    }

    /// An `fma-model eval` line, optionally followed by the expected result.
    fn eval_line(&mut self, text: &str) -> Result<Option<Vector>, Error> {
        let code = text.split("//").next().unwrap_or_default().trim();
        if code.is_empty() {
            return Ok(None);
        }
        if let Some(t) = code.strip_prefix(".target") {
            self.target = Target::parse(t.trim()).map_err(|e| self.err(e.message()))?;
            return Ok(None);
        }
        let (instr, expected) = match op::parse_line(code, self.target) {
            Ok(i) => (i, None),
            Err(whole) => {
                // One more column than the instruction takes: the expected result.
                let (head, last) = code.rsplit_once(char::is_whitespace).unwrap_or((code, ""));
                let i = op::parse_line(head.trim_end().trim_end_matches(','), self.target)
                    .map_err(|_| self.err(&ptxfma_ptx::quote::quote_spans(whole.message())))?;
                let hex = last
                    .trim()
                    .trim_start_matches("0x")
                    .trim_start_matches("0X");
                let e = u64::from_str_radix(hex, 16).map_err(|_| {
                    self.err(&format!(
                        "expected result `{}` is not a hex number",
                        ptxfma_ptx::quote::quote(last)
                    ))
                })?;
                (i, Some(e))
            }
        };
        Ok(Some(Vector {
            line: self.line,
            inp: PipeIn {
                valid: true,
                tag: 0,
                ctrl: instr.ctrl.encode(),
                a: instr.a,
                b: instr.b,
                c: instr.c,
                reset: false,
            },
            expected,
        }))
    }
}

/// Whether `got` is what the file expects for `ctrl`.
fn matches(src: &Source, ctrl: &Ctrl, got: u64, expected: u64) -> bool {
    match src.testfloat {
        Some((func, _)) => func.matches(got, expected, src.strict_nan),
        None => ptxfma_ptx::same_result(ctrl, got, expected, src.strict_nan),
    }
}

/// Runs the file; returns the exit status.
pub fn run(src: &Source, sides: &Sides, waves_dir: &Path) -> Result<u8, Error> {
    let design = DesignForms::of(&sides.rtl)?;
    // A `--dut` design is driven only with what it implements: every line of a file is read
    // once before anything runs, and the first outside its forms refused. (A pipe, which can be
    // read only once, is checked as it is read: each segment before it runs.)
    if design.is_some() && std::fs::metadata(&src.path).is_ok_and(|m| m.is_file()) {
        let mut all = Reader::open(src, design.clone())?;
        while all.next_vector()?.is_some() {}
    }
    let mut reader = Reader::open(src, design)?;
    let what = match src.testfloat {
        Some((f, rnd)) => format!("TestFloat {} {:?}", f.name(), rnd),
        None => "fma-model eval lines".into(),
    };
    outln!(
        "fma-cosim run --vectors {}: {what}, {} vs {} ({})",
        src.path.display(),
        ptxfma_cosim_engine::dut::describe(&sides.rtl),
        sides.golden,
        ptxfma_cosim_engine::rtl::variant::VERILATOR_VERSION
    )?;
    let mut rtl = ptxfma_cosim_engine::rtl::Rtl::new(&sides.rtl, false)?;
    let mut golden = reference::from_spec(&sides.golden)?;
    let origin = Origin {
        stream_args: None,
        family: "vectors".into(),
        seed: None,
        sides_args: sides.args(),
        rtl: sides.rtl.clone(),
        golden: sides.golden.clone(),
        window: 0,
        waves_args: crate::reproduce::waves_args(waves_dir, false),
        cosim: ptxfma_cosim_outputs::command::ShellCommand::cosim(),
        model: ptxfma_cosim_outputs::command::ShellCommand::model_eval(),
    };
    let cfg = Config {
        max_divergences: 1,
        overlap: false,
        retired: true,
        ..Config::default()
    };
    let (mut vectors, mut checked, mut mismatches, mut divergences) = (0u64, 0u64, 0u64, 0u64);
    let mut segment: Vec<Vector> = Vec::with_capacity(SEGMENT);
    loop {
        segment.clear();
        while segment.len() < SEGMENT {
            match reader.next_vector()? {
                Some(mut v) => {
                    v.inp.tag = segment.len() as u16;
                    segment.push(v);
                }
                None => break,
            }
        }
        if segment.is_empty() {
            break;
        }
        vectors += segment.len() as u64;
        let inputs = segment
            .iter()
            .map(|v| v.inp)
            .chain((0..LATENCY).map(|_| PipeIn::default()));
        let out = lockstep::run(&mut rtl, golden.as_mut(), stream::decoded(inputs), &cfg)?;
        if let Some(d) = out.divergences.first() {
            divergences += 1;
            let alone = match d.input() {
                Some(inp) => Some(ptxfma_cosim_engine::replay::replay_alone(
                    &sides.rtl,
                    golden.as_ref(),
                    inp,
                )?),
                None => None,
            };
            let line = d
                .issue()
                .and_then(|c| segment.get(c as usize))
                .map_or(0, |v| v.line);
            out!(
                "\n(file line {line}) {}",
                report::divergence(d, &origin, alone.as_ref())
            )?;
            let path = waves_dir.join(format!("vectors-line{line}.vcd"));
            ptxfma_cosim_outputs::waves::print_waves(
                &ptxfma_cosim_outputs::waves::write_window(
                    &path,
                    &sides.rtl,
                    golden.as_ref(),
                    &out.window,
                    out.window_start,
                ),
                d.cycle(),
            )?;
            break;
        }
        // The RTL's retired results against the file, matched by tag as ports checking does.
        let mut tags = ports::Tags::default();
        for (i, v) in segment.iter().enumerate() {
            tags.issue(v.inp.tag, i as u64);
        }
        for &(tag, d) in &out.retired {
            let Some(i) = tags.retire(tag) else {
                return Err(Error::new(format!(
                    "the RTL retired tag {tag} with nothing in flight under it"
                )));
            };
            let v = &segment[i as usize];
            let Some(expected) = v.expected else {
                continue;
            };
            checked += 1;
            let ctrl = Ctrl::decode(v.inp.ctrl);
            if matches(src, &ctrl, d, expected) {
                continue;
            }
            mismatches += 1;
            if mismatches <= SHOWN {
                let vec = stim::Vector {
                    ctrl,
                    a: v.inp.a,
                    b: v.inp.b,
                    c: v.inp.c,
                };
                outln!(
                    "MISMATCH with the file at line {}: {}\n  expected {}\n  RTL      {}",
                    v.line,
                    stim::eval_line(&vec),
                    report::result(&ctrl, expected),
                    report::result(&ctrl, d)
                )?;
            }
        }
        if let Some(i) = tags.oldest() {
            let line = segment[i as usize].line;
            return Err(Error::new(format!("line {line}: no result retired")));
        }
    }
    if vectors == 0 {
        return Err(Error::new(format!(
            "{}: no vectors in the file (nothing was checked)",
            src.path.display()
        )));
    }
    outln!(
        "\n{vectors} vectors through the RTL, {checked} results checked against the file: \
         {mismatches} mismatch(es); RTL vs {}: {divergences} divergence(s)",
        sides.golden
    )?;
    if mismatches > SHOWN {
        outln!("({} more mismatches not shown)", mismatches - SHOWN)?;
    }
    if mismatches == 0 && divergences == 0 {
        outln!("PASSED")?;
        Ok(0)
    } else {
        outln!("FAILED")?;
        Ok(1)
    }
}

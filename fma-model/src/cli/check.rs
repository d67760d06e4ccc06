//! `fma-model check`: runs Berkeley TestFloat vectors through the cycle-level pipeline.
//!
//! TestFloat is the one corpus here written by someone else, so it checks the model against an
//! outside opinion of IEEE fma rather than against our own references. Input is `testfloat_gen`
//! output for `f32_mulAdd` or `f64_mulAdd`: one case per line, `a b c expected flags` in hex. The
//! flags are read (a malformed field is still an error) but not compared: the model has no
//! exception flags. Tininess options (`-tininessafter`/`-tininessbefore`) only change flags, so
//! they are accepted and ignored. An input without a single vector is an error, not a pass.
//!
//! Results are compared bit for bit, except that any NaN matches any NaN unless `--strict-nan`:
//! TestFloat's NaNs follow SoftFloat's x86 convention, PTX's follow decisions S1/S2.
//!
//! The vectors stream through one [`Pipeline`], one per cycle, as the hardware would take them;
//! retirements are matched to inputs by tag and order, which also checks the pipe's tag path.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use ptxfma_cli_common::stdio::{self, Stream, Writer};

use ptxfma_cli_common::testfloat::{open, parse_line, parse_rounding, Case, Func};
use ptxfma_model::ctrl::{Ctrl, Rnd};
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline, LATENCY};
use ptxfma_ptx::print::eval_line;
use ptxfma_ptx::quote::{quote, quote_os};
use ptxfma_ptx::read::{read_line, MAX_LINE};

/// `fma-model check --help`, after the one-line summary.
pub(super) const LONG_ABOUT: &str = "\
Runs Berkeley TestFloat vectors through the cycle-level pipeline and reports where the model
disagrees with them.

Input is testfloat_gen output for f32_mulAdd or f64_mulAdd (or f32/f64 _add, _sub, _mul, which
run as PTX add/sub/mul): one case per line, `a b c expected flags` in hex (`a b expected flags`
for the two-operand functions), from FILE (plain or gzipped) or from stdin when FILE is absent
or `-`. Blank lines are skipped; an input without a single vector is an error. Give the rounding
mode the vectors were generated with, spelled as for testfloat_gen (-rnear_even, -rminMag,
-rmin, -rmax).

Results are compared bit for bit, except that any NaN matches any NaN unless --strict-nan:
TestFloat's NaNs follow SoftFloat's x86 convention, PTX's do not. The flags are read but not
compared: the model has no exception flags.

Exit status: 0 no mismatch, 1 mismatches, 2 bad usage, unreadable/malformed input or output
that cannot be written.";

/// Examples at the end of `fma-model check --help`.
pub(super) const AFTER_HELP: &str = "\
Examples:
  testfloat_gen -rmin f64_mulAdd | fma-model check -rmin f64_mulAdd
  fma-model check -rminMag --strict-nan f32_mulAdd f32_mulAdd_rminMag.txt.gz";

/// The command line of `fma-model check`. TestFloat's single-dash spellings work as well:
/// `-rmin` is `-r` with the value `min`, and `-tininessafter`/`-tininessbefore` are rewritten
/// by [`testfloat_spellings`] before clap sees them.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rounding mode the vectors were made with: near_even (the default), minMag, min or max.
    /// Written as testfloat_gen writes it (-rnear_even, -rminMag, -rmin, -rmax) or as `-r min`.
    #[arg(short = 'r', long = "rounding", value_name = "MODE", value_parser = parse_rounding)]
    rounding: Option<Rnd>,

    /// NaN results must match bit for bit (default: any NaN matches any NaN).
    #[arg(long)]
    strict_nan: bool,

    /// Print at most N mismatches.
    #[arg(long, value_name = "N", default_value = "10", value_parser = parse_count)]
    max_report: usize,

    /// Accepted and ignored: tininess only changes flags, which are not compared. TestFloat's
    /// -tininessafter and -tininessbefore are accepted too.
    #[arg(long, value_name = "WHEN", value_parser = ["after", "before"])]
    tininess: Option<String>,

    /// The TestFloat function the vectors are for: f32_mulAdd or f64_mulAdd (or f32/f64 _add,
    /// _sub, _mul).
    #[arg(value_name = "FUNCTION")]
    function: Option<String>,

    /// testfloat_gen output, plain or gzipped; stdin when absent or `-`.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// TestFloat's `-tininessafter`, `-tininessbefore` and `-help`, which clap would read as
/// bundles of short options, as `--tininess=after`, `--tininess=before` and `--help`. Only
/// arguments before a `--` are rewritten. (`-rmin` and friends need nothing: `-r` takes a
/// value, so clap reads `-rmin` as `-r min`.)
pub(super) fn testfloat_spellings(args: Vec<OsString>) -> Vec<OsString> {
    let mut options = true;
    args.into_iter()
        .map(|a| {
            if !options {
                return a;
            }
            match a.to_str() {
                Some("--") => {
                    options = false;
                    a
                }
                Some("-tininessafter") => "--tininess=after".into(),
                Some("-tininessbefore") => "--tininess=before".into(),
                Some("-help") => "--help".into(),
                _ => a,
            }
        })
        .collect()
}

/// Vectors parsed ahead of running them: parsing a whole batch first means a malformed line is
/// reported before the model runs on its batch, without holding a huge corpus in memory.
const BATCH: usize = 4096;

#[derive(Debug)]
struct Options {
    strict_nan: bool,
    max_report: usize,
    rnd: Rnd,
    func: Func,
    /// `None` for stdin.
    input: Option<PathBuf>,
}

/// The value of `--max-report`.
fn parse_count(v: &str) -> Result<usize, String> {
    v.parse()
        .map_err(|_| format!("`{}` is not a count (a whole number)", quote(v)))
}

/// Checks what clap could not: the function name and the input.
fn options(args: Args) -> Result<Options, String> {
    let func = match args.function.as_deref() {
        Some(name) => Func::parse(name)?,
        None => return Err("missing the function name (f32_mulAdd, f64_mulAdd, ...)".into()),
    };
    Ok(Options {
        strict_nan: args.strict_nan,
        max_report: args.max_report,
        rnd: args.rounding.unwrap_or(Rnd::Rn),
        func,
        input: args.file.filter(|p| p.as_os_str() != "-"),
    })
}

/// What stopped a run early.
enum Stop {
    /// Bad input: exit 2.
    Input(String),
    /// The pipeline broke its own protocol (lost or reordered a tag): exit 1.
    Pipe(String),
    /// Standard output took no more: a reader gone (a closed pipe) ends the run quietly with
    /// the status of what ran, any other failure is exit 2.
    Output(io::Error),
}

struct Checker<'w> {
    opts: Options,
    ctrl: Ctrl,
    pipe: Pipeline,
    in_flight: VecDeque<(u16, Case)>,
    next_tag: u16,
    vectors: u64,
    mismatches: u64,
    nan_accepted: u64,
    out: &'w mut dyn Write,
}

impl Checker<'_> {
    fn issue(&mut self, case: Case) -> Result<(), Stop> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let inp = PipeIn {
            valid: true,
            tag,
            ctrl: self.ctrl.encode(),
            a: case.a,
            b: case.b,
            c: case.c,
            reset: false,
        };
        self.in_flight.push_back((tag, case));
        self.clock(&inp)
    }

    fn clock(&mut self, inp: &PipeIn) -> Result<(), Stop> {
        let out = self.pipe.tick(inp);
        if out.valid {
            let Some((tag, case)) = self.in_flight.pop_front() else {
                return Err(Stop::Pipe(format!(
                    "the pipeline retired tag {} with nothing in flight",
                    out.tag
                )));
            };
            if out.tag != tag {
                return Err(Stop::Pipe(format!(
                    "line {}: the pipeline retired tag {} where tag {tag} was due",
                    case.line, out.tag
                )));
            }
            self.compare(case, out.d)?;
        }
        if self.in_flight.len() > LATENCY {
            let line = self.in_flight.front().map_or(0, |(_, c)| c.line);
            return Err(Stop::Pipe(format!(
                "line {line}: no result after {LATENCY} cycles"
            )));
        }
        Ok(())
    }

    fn drain(&mut self) -> Result<(), Stop> {
        for _ in 0..LATENCY {
            if self.in_flight.is_empty() {
                break;
            }
            self.clock(&PipeIn::default())?;
        }
        match self.in_flight.front() {
            None => Ok(()),
            Some((_, c)) => Err(Stop::Pipe(format!(
                "line {}: no result after {LATENCY} cycles",
                c.line
            ))),
        }
    }

    fn compare(&mut self, case: Case, got: u64) -> Result<(), Stop> {
        self.vectors += 1;
        if got == case.expected {
            return Ok(());
        }
        let func = self.opts.func;
        if func.matches(got, case.expected, self.opts.strict_nan) {
            self.nan_accepted += 1;
            return Ok(());
        }
        self.mismatches += 1;
        if self.mismatches <= self.opts.max_report as u64 {
            let w = func.digits();
            writeln!(
                self.out,
                "mismatch at line {}: {}\n  expected 0x{:0w$x} ({})\n  got      0x{:0w$x} ({})",
                case.line,
                eval_line(&self.ctrl, case.a, case.b, case.c),
                case.expected,
                func.show(case.expected),
                got,
                func.show(got),
            )
            .map_err(Stop::Output)?;
        }
        Ok(())
    }
}

impl<'w> Checker<'w> {
    fn new(opts: Options, out: &'w mut dyn Write) -> Self {
        Checker {
            ctrl: opts.func.ctrl(opts.rnd),
            opts,
            pipe: Pipeline::new(),
            in_flight: VecDeque::with_capacity(LATENCY + 1),
            next_tag: 0,
            vectors: 0,
            mismatches: 0,
            nan_accepted: 0,
            out,
        }
    }

    /// Reads, parses and runs the whole input, one batch at a time.
    fn run(&mut self, input: &mut dyn BufRead) -> Result<(), Stop> {
        let mut line_no = 0usize;
        let mut raw = Vec::new();
        let mut batch = Vec::with_capacity(BATCH);
        let mut eof = false;
        while !eof {
            batch.clear();
            while batch.len() < BATCH {
                match read_line(input, &mut raw, MAX_LINE) {
                    Ok(None) => {
                        eof = true;
                        break;
                    }
                    Ok(Some(len)) if len > MAX_LINE => {
                        return Err(Stop::Input(format!(
                            "line {}: line is too long ({len} bytes; at most {MAX_LINE})",
                            line_no + 1
                        )))
                    }
                    Ok(Some(_)) => {}
                    Err(e) => {
                        return Err(Stop::Input(format!(
                            "line {}: read error: {e}",
                            line_no + 1
                        )))
                    }
                }
                line_no += 1;
                let parsed = std::str::from_utf8(&raw)
                    .map_err(|_| "not text (invalid UTF-8)".to_string())
                    .and_then(|t| parse_line(t, line_no, self.opts.func));
                match parsed {
                    Ok(Some(case)) => batch.push(case),
                    Ok(None) => {}
                    Err(msg) => return Err(Stop::Input(format!("line {line_no}: {msg}"))),
                }
            }
            for &case in &batch {
                self.issue(case)?;
            }
        }
        self.drain()
    }
}

/// Entry point; returns the process exit status.
pub fn main(args: Args) -> u8 {
    let opts = match options(args) {
        Ok(o) => o,
        Err(msg) => return fail(&format!("{msg}; see `fma-model check --help`")),
    };
    let name = opts
        .input
        .as_deref()
        .map_or_else(|| "<stdin>".into(), |p| quote_os(p.as_os_str()));
    let input = match open(opts.input.as_deref()) {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot read {name}: {e}")),
    };
    let mode = match opts.rnd {
        Rnd::Rn => "-rnear_even",
        Rnd::Rz => "-rminMag",
        Rnd::Rm => "-rmin",
        Rnd::Rp => "-rmax",
    };
    let func = opts.func;
    let max_report = opts.max_report as u64;
    let mut out = io::BufWriter::new(Writer(Stream::Out));
    let mut input = input;
    let mut ck = Checker::new(opts, &mut out);
    let ran = ck.run(&mut input);
    let code = u8::from(ck.mismatches > 0);
    match ran {
        Ok(()) => {}
        Err(Stop::Input(msg)) => {
            // The mismatches found before it first.
            let _ = ck.out.flush();
            return fail(&format!("{name}: {msg}"));
        }
        Err(Stop::Pipe(msg)) => {
            let _ = ck.out.flush();
            // Exit 1 whatever becomes of the line: the pipeline itself is wrong.
            fail(&format!("{name}: {msg}"));
            return 1;
        }
        Err(Stop::Output(e)) => return output_failed(e, code),
    }
    if code == 0 && ck.vectors == 0 {
        // A run that checked nothing is no pass: an empty or truncated download, the wrong file.
        return fail(&format!(
            "no vectors in {name} (it is empty or has only blank lines)"
        ));
    }
    let (vectors, mismatches, nan_accepted) = (ck.vectors, ck.mismatches, ck.nan_accepted);
    let mut summary = String::new();
    if mismatches > max_report {
        summary.push_str(&format!(
            "... {} more mismatches not shown\n",
            mismatches - max_report
        ));
    }
    summary.push_str(&format!(
        "{} {mode}: {vectors} vectors, {mismatches} mismatches",
        func.name()
    ));
    if nan_accepted > 0 {
        summary.push_str(&format!(
            " ({nan_accepted} NaN results differing only in NaN bits accepted; --strict-nan counts them)"
        ));
    }
    match writeln!(ck.out, "{summary}").and_then(|()| ck.out.flush()) {
        Ok(()) => code,
        Err(e) => output_failed(e, code),
    }
}

/// The one-line error (exit 2).
fn fail(msg: &str) -> u8 {
    stdio::report(&[format!("error: {msg}")]);
    2
}

/// Standard output failed: quietly `code` (the status of what ran) when its reader went away,
/// else the error (exit 2).
fn output_failed(e: io::Error, code: u8) -> u8 {
    match stdio::settle(Stream::Out, Err(e)) {
        Ok(()) => code,
        Err(e) => fail(&e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fma-model check ARGS` through the whole command line: clap, then [`options`]. The
    /// error is the one line `fma-model` would print after `error: `.
    fn parse_args(s: &str) -> Result<Options, String> {
        let argv = ["fma-model", "check"]
            .into_iter()
            .chain(s.split_whitespace())
            .map(OsString::from)
            .collect();
        match crate::cli::parse(argv) {
            Ok(crate::cli::Command::Check(a)) => options(a),
            Ok(other) => panic!("{s}: {other:?}"),
            Err(crate::cli::Stop::Usage(m)) => Err(m),
            Err(crate::cli::Stop::Info(e)) => panic!("{s}: {e}"),
        }
    }

    #[test]
    fn command_line() {
        let o = parse_args("-rmin --strict-nan f64_mulAdd x.gz").unwrap();
        assert_eq!(o.rnd, Rnd::Rm);
        assert!(o.strict_nan);
        assert_eq!(o.func, Func::F64MulAdd);
        assert_eq!(o.input.as_deref(), Some(std::path::Path::new("x.gz")));
        let o = parse_args("f32_mulAdd -").unwrap();
        assert_eq!(o.rnd, Rnd::Rn);
        assert_eq!(o.input, None);
        assert_eq!(o.max_report, 10);
        for (spelling, rnd) in [
            ("-rnear_even", Rnd::Rn),
            ("-rminMag", Rnd::Rz),
            ("-rmin", Rnd::Rm),
            ("-rmax", Rnd::Rp),
            ("-r near_even", Rnd::Rn),
            ("-r minMag", Rnd::Rz),
            ("-r min", Rnd::Rm),
            ("-r=max", Rnd::Rp),
            ("--rounding min", Rnd::Rm),
            ("--rounding=minMag", Rnd::Rz),
        ] {
            let o = parse_args(&format!("{spelling} f32_mulAdd")).unwrap();
            assert_eq!(o.rnd, rnd, "{spelling}");
            // Options may also follow the positional arguments.
            let o = parse_args(&format!("f32_mulAdd {spelling}")).unwrap();
            assert_eq!(o.rnd, rnd, "{spelling}");
        }
        for ok in [
            "-tininessafter f32_mulAdd",
            "-tininessbefore -rmax f32_mulAdd",
            "--tininess before f32_mulAdd",
            "--max-report 0 f32_mulAdd",
        ] {
            assert!(parse_args(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            parse_args("--max-report 3 f32_mulAdd").unwrap().max_report,
            3
        );
        for (bad, why) in [
            ("", "missing the function name"),
            ("-rbogus f32_mulAdd", "unknown rounding mode `-rbogus`"),
            ("-rnear_maxMag f32_mulAdd", "no PTX counterpart"),
            ("-rodd f32_mulAdd", "no PTX counterpart"),
            ("-r f32_mulAdd", "unknown rounding mode `-rf32_mulAdd`"),
            ("f16_mulAdd", "unsupported function `f16_mulAdd`"),
            ("--frobnicate f32_mulAdd", "unknown option `--frobnicate`"),
            ("-tininessmiddle f32_mulAdd", "unknown option"),
            ("--tininess sideways f32_mulAdd", "invalid value `sideways`"),
            ("f32_mulAdd a b", "unexpected argument `b`"),
            ("-rmin -rmax f32_mulAdd", "more than once"),
            ("--max-report x f32_mulAdd", "`x` is not a count"),
            ("--max-report -1 f32_mulAdd", "`-1`"),
            ("--max-report=-1 f32_mulAdd", "`-1` is not a count"),
        ] {
            match parse_args(bad) {
                Ok(o) => panic!("{bad}: accepted as {o:?}"),
                Err(m) => {
                    assert!(m.contains(why), "{bad}: wanted `{why}` in {m}");
                    assert!(!m.contains('\n'), "{bad}: {m}");
                }
            }
        }
    }

    #[test]
    fn testfloat_spellings_stop_at_double_dash() {
        let args: Vec<OsString> = ["check", "-tininessafter", "--", "-tininessbefore"]
            .into_iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            testfloat_spellings(args),
            ["check", "--tininess=after", "--", "-tininessbefore"]
        );
    }

    #[test]
    fn malformed_fields_are_quoted_cut_and_escaped() {
        let f = Func::F32MulAdd;
        let long = "x".repeat(1_000_000);
        for line in [
            format!("{long} 40000000 00000000 40000000 00"),
            format!("3F800000 {long} 00000000 40000000 00"),
            format!("3F800000 40000000 00000000 40000000 {long}"),
            format!("3F800000 40000000 00000000 {} 00", "4".repeat(1000)),
            "3F800000 \x1b[31m 00000000 40000000 00".to_string(),
            "3F800000 40000000 00000000 40000000 \x07\x07\x07".to_string(),
        ] {
            let e = parse_line(&line, 1, f).unwrap_err();
            assert!(e.len() < 200, "{} bytes", e.len());
            assert!(!e.chars().any(char::is_control), "{e:?}");
        }
        let e = parse_line("3F800000 \x1b[31m 00000000 40000000 00", 1, f).unwrap_err();
        assert_eq!(e, "operand b `\\u{1b}[31m` is not a hex number");
    }

    #[test]
    fn lines() {
        let f = Func::F32MulAdd;
        let c = parse_line("3F800000 40000000 00000000 40000000 00\n", 3, f)
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.line, c.a, c.b, c.c, c.expected),
            (3, 0x3f80_0000, 0x4000_0000, 0, 0x4000_0000)
        );
        assert!(parse_line("   \n", 1, f).unwrap().is_none());
        for bad in [
            "3F800000 40000000 00000000 40000000",
            "3F800000 40000000 00000000 40000000 00 00",
            "3F80000G 40000000 00000000 40000000 00",
            "3F800000 4000000000000000 00000000 40000000 00",
            "3F800000 40000000 00000000 40000000 100",
            "0x3F8000 40000000 00000000 40000000 00",
        ] {
            assert!(parse_line(bad, 1, f).is_err(), "{bad}");
        }
        assert!(parse_line(
            "3FF0000000000000 3FF0000000000000 0000000000000000 3FF0000000000000 00",
            1,
            Func::F64MulAdd
        )
        .unwrap()
        .is_some());
    }

    #[test]
    fn nan_rules() {
        assert!(Func::F32MulAdd.is_nan(0x7fc0_0000));
        assert!(Func::F32MulAdd.is_nan(0xffff_ffff));
        assert!(!Func::F32MulAdd.is_nan(0x1_7fc0_0000));
        assert!(!Func::F32MulAdd.is_nan(0x7f80_0000));
        assert!(Func::F64MulAdd.is_nan(0x7ff0_0000_0000_0001));
        assert!(!Func::F64MulAdd.is_nan(0x7ff0_0000_0000_0000));
    }
}

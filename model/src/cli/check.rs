//! `fma-model check`: runs Berkeley TestFloat vectors through the cycle-level pipeline.
//!
//! TestFloat is the one corpus here written by someone else, so it checks the model against an
//! outside opinion of IEEE fma rather than against our own references. Input is `testfloat_gen`
//! output for `f32_mulAdd` or `f64_mulAdd`: one case per line, `a b c expected flags` in hex. The
//! flags are read (a malformed field is still an error) but not compared: the model has no
//! exception flags. Tininess options (`-tininessafter`/`-tininessbefore`) only change flags, so
//! they are accepted and ignored.
//!
//! Results are compared bit for bit, except that any NaN matches any NaN unless `--strict-nan`:
//! TestFloat's NaNs follow SoftFloat's x86 convention, PTX's follow decisions S1/S2.
//!
//! The vectors stream through one [`Pipeline`], one per cycle, as the hardware would take them;
//! retirements are matched to inputs by tag and order, which also checks the pipe's tag path.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::read::MultiGzDecoder;

use crate::ctrl::{Ctrl, Kind, Rnd};
use crate::pipeline::{PipeIn, Pipeline, LATENCY};
use crate::stimulus::eval_line;

const USAGE: &str = "\
usage: fma-model check [OPTIONS] {f32_mulAdd|f64_mulAdd} [FILE]
  Reads testfloat_gen output (`a b c expected flags` in hex) from FILE (plain or gzipped),
  or from stdin when FILE is absent or `-`, and reports where the model disagrees.
options:
  -rnear_even | -rminMag | -rmin | -rmax   rounding mode the vectors were made with
                                           (default -rnear_even)
  --strict-nan        NaN results must match bit for bit (default: any NaN matches any NaN)
  --max-report N      print at most N mismatches (default 10)
  -tininessafter, -tininessbefore          accepted and ignored (they only change flags)
exit status: 0 no mismatch, 1 mismatches, 2 bad usage or unreadable/malformed input";

/// Vectors parsed ahead of running them: parsing a whole batch first means a malformed line is
/// reported before the model runs on its batch, without holding a huge corpus in memory.
const BATCH: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func {
    F32MulAdd,
    F64MulAdd,
}

impl Func {
    fn name(self) -> &'static str {
        match self {
            Func::F32MulAdd => "f32_mulAdd",
            Func::F64MulAdd => "f64_mulAdd",
        }
    }

    fn kind(self) -> Kind {
        match self {
            Func::F32MulAdd => Kind::F32,
            Func::F64MulAdd => Kind::F64,
        }
    }

    /// Hex digits testfloat_gen prints for each operand and the result.
    fn digits(self) -> usize {
        match self {
            Func::F32MulAdd => 8,
            Func::F64MulAdd => 16,
        }
    }

    fn is_nan(self, v: u64) -> bool {
        match self {
            // An f32 result must also have bits 63:32 clear; a NaN with junk above is no match.
            Func::F32MulAdd => v >> 32 == 0 && f32::from_bits(v as u32).is_nan(),
            Func::F64MulAdd => f64::from_bits(v).is_nan(),
        }
    }

    fn show(self, v: u64) -> String {
        match self {
            Func::F32MulAdd if v >> 32 == 0 => format!("{:e}", f32::from_bits(v as u32)),
            Func::F32MulAdd => "not an f32".into(),
            Func::F64MulAdd => format!("{:e}", f64::from_bits(v)),
        }
    }
}

#[derive(Debug)]
struct Options {
    strict_nan: bool,
    max_report: usize,
    rnd: Rnd,
    func: Func,
    /// `None` for stdin.
    input: Option<String>,
}

fn parse_rounding(mode: &str) -> Result<Rnd, String> {
    match mode {
        "near_even" => Ok(Rnd::Rn),
        "minMag" => Ok(Rnd::Rz),
        "min" => Ok(Rnd::Rm),
        "max" => Ok(Rnd::Rp),
        "near_maxMag" | "odd" => Err(format!(
            "rounding mode `-r{mode}` has no PTX counterpart (PTX has rn, rz, rm, rp)"
        )),
        _ => Err(format!("unknown rounding mode `-r{mode}`")),
    }
}

/// `Ok(None)` means help was asked for.
fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut strict_nan = false;
    let mut max_report = 10;
    let mut rnd = None;
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" | "-help" => return Ok(None),
            "--strict-nan" => strict_nan = true,
            "--max-report" => {
                let v = it.next().ok_or("--max-report needs a number")?;
                max_report = v
                    .parse()
                    .map_err(|_| format!("--max-report: `{v}` is not a number"))?;
            }
            "-tininessafter" | "-tininessbefore" => {}
            "-" => positional.push(arg.clone()),
            a if a.starts_with("-r") => {
                if rnd.is_some() {
                    return Err("more than one rounding option".into());
                }
                rnd = Some(parse_rounding(&a[2..])?);
            }
            a if a.starts_with('-') => return Err(format!("unknown option `{a}`")),
            _ => positional.push(arg.clone()),
        }
    }
    let mut pos = positional.into_iter();
    let func = match pos.next().as_deref() {
        Some("f32_mulAdd") => Func::F32MulAdd,
        Some("f64_mulAdd") => Func::F64MulAdd,
        Some(other) => {
            return Err(format!(
                "unsupported function `{other}` (only f32_mulAdd and f64_mulAdd)"
            ))
        }
        None => return Err("missing the function name (f32_mulAdd or f64_mulAdd)".into()),
    };
    let input = pos.next().filter(|p| p != "-");
    if let Some(extra) = pos.next() {
        return Err(format!(
            "unexpected argument `{extra}` (one input file at most)"
        ));
    }
    Ok(Some(Options {
        strict_nan,
        max_report,
        rnd: rnd.unwrap_or(Rnd::Rn),
        func,
        input,
    }))
}

/// Opens the input, gunzipping it when it starts with the gzip magic bytes, so `.gz` files and
/// gzipped stdin need no flag.
fn open(input: &Option<String>) -> io::Result<Box<dyn BufRead>> {
    let raw: Box<dyn Read> = match input {
        Some(path) => Box::new(File::open(path)?),
        None => Box::new(io::stdin()),
    };
    let mut buf = BufReader::with_capacity(1 << 16, raw);
    let head = buf.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(buf),
        )))
    } else {
        Ok(Box::new(buf))
    }
}

/// One TestFloat case.
#[derive(Clone, Copy, Debug)]
struct Case {
    line: usize,
    a: u64,
    b: u64,
    c: u64,
    expected: u64,
}

fn parse_hex(field: &str, what: &str, digits: usize, func: Func) -> Result<u64, String> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{what} `{field}` is not a hex number"));
    }
    if field.len() != digits {
        return Err(format!(
            "{what} `{field}` has {} hex digits; {} wants {digits}",
            field.len(),
            func.name()
        ));
    }
    u64::from_str_radix(field, 16).map_err(|e| format!("{what} `{field}`: {e}"))
}

/// Parses one non-blank line; `Ok(None)` for a blank one.
fn parse_line(text: &str, line: usize, func: Func) -> Result<Option<Case>, String> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if fields.is_empty() {
        return Ok(None);
    }
    if fields.len() != 5 {
        return Err(format!(
            "expected 5 fields (a b c expected flags), found {}",
            fields.len()
        ));
    }
    let d = func.digits();
    let a = parse_hex(fields[0], "operand a", d, func)?;
    let b = parse_hex(fields[1], "operand b", d, func)?;
    let c = parse_hex(fields[2], "operand c", d, func)?;
    let expected = parse_hex(fields[3], "expected result", d, func)?;
    let flags = fields[4];
    if flags.is_empty() || flags.len() > 2 || !flags.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("flags `{flags}` are not 1 or 2 hex digits"));
    }
    Ok(Some(Case {
        line,
        a,
        b,
        c,
        expected,
    }))
}

/// What stopped a run early.
enum Stop {
    /// Bad input: exit 2.
    Input(String),
    /// The pipeline broke its own protocol (lost or reordered a tag): exit 1.
    Pipe(String),
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
            self.compare(case, out.d);
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

    fn compare(&mut self, case: Case, got: u64) {
        self.vectors += 1;
        if got == case.expected {
            return;
        }
        let func = self.opts.func;
        if !self.opts.strict_nan && func.is_nan(got) && func.is_nan(case.expected) {
            self.nan_accepted += 1;
            return;
        }
        self.mismatches += 1;
        if self.mismatches <= self.opts.max_report as u64 {
            let w = func.digits();
            let _ = writeln!(
                self.out,
                "mismatch at line {}: {}\n  expected 0x{:0w$x} ({})\n  got      0x{:0w$x} ({})",
                case.line,
                eval_line(&self.ctrl, case.a, case.b, case.c),
                case.expected,
                func.show(case.expected),
                got,
                func.show(got),
            );
        }
    }
}

impl<'w> Checker<'w> {
    fn new(opts: Options, out: &'w mut dyn Write) -> Self {
        Checker {
            ctrl: Ctrl::fma(opts.func.kind(), opts.rnd),
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
                raw.clear();
                match input.read_until(b'\n', &mut raw) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(_) => {}
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
pub fn main(args: &[String]) -> u8 {
    let opts = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(msg) => {
            eprintln!("error: {msg}\n{USAGE}");
            return 2;
        }
    };
    let name = opts.input.clone().unwrap_or_else(|| "<stdin>".into());
    let input = match open(&opts.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot read {name}: {e}");
            return 2;
        }
    };
    let mode = match opts.rnd {
        Rnd::Rn => "-rnear_even",
        Rnd::Rz => "-rminMag",
        Rnd::Rm => "-rmin",
        Rnd::Rp => "-rmax",
    };
    let func = opts.func;
    let max_report = opts.max_report as u64;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut input = input;
    let mut ck = Checker::new(opts, &mut out);
    let code = match ck.run(&mut input) {
        Ok(()) => u8::from(ck.mismatches > 0),
        Err(Stop::Input(msg)) => {
            eprintln!("error: {name}: {msg}");
            return 2;
        }
        Err(Stop::Pipe(msg)) => {
            eprintln!("error: {name}: {msg}");
            1
        }
    };
    let (vectors, mismatches, nan_accepted) = (ck.vectors, ck.mismatches, ck.nan_accepted);
    if mismatches > max_report {
        let _ = writeln!(
            ck.out,
            "... {} more mismatches not shown",
            mismatches - max_report
        );
    }
    let mut summary = format!(
        "{} {mode}: {vectors} vectors, {mismatches} mismatches",
        func.name()
    );
    if nan_accepted > 0 {
        summary.push_str(&format!(
            " ({nan_accepted} NaN results differing only in NaN bits accepted; --strict-nan counts them)"
        ));
    }
    let _ = writeln!(ck.out, "{summary}");
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let o = parse_args(&args("-rmin --strict-nan f64_mulAdd x.gz"))
            .unwrap()
            .unwrap();
        assert_eq!(o.rnd, Rnd::Rm);
        assert!(o.strict_nan);
        assert_eq!(o.func, Func::F64MulAdd);
        assert_eq!(o.input.as_deref(), Some("x.gz"));
        let o = parse_args(&args("f32_mulAdd -")).unwrap().unwrap();
        assert_eq!(o.rnd, Rnd::Rn);
        assert_eq!(o.input, None);
        for bad in [
            "",
            "-rbogus f32_mulAdd",
            "-rnear_maxMag f32_mulAdd",
            "f16_mulAdd",
            "--frobnicate f32_mulAdd",
            "f32_mulAdd a b",
            "-rmin -rmax f32_mulAdd",
            "--max-report x f32_mulAdd",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
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

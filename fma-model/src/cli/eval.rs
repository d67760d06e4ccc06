//! `fma-model eval`: evaluates PTX instructions on the golden model.
//!
//! Input is one instruction per line, from the arguments (each argument is one line) or, when
//! there are none, from stdin: the PTX spelling with hex operands in place of registers and no
//! destination (see [`ptxfma_ptx::parse_line`]). `.target sm_NN` lines switch the target for the
//! lines after them (default sm_100); blank lines and `//` comments print nothing. Every other
//! line prints exactly one line, so output line k answers the k-th instruction and a script can
//! zip them: the result as `0x%04x` (f16, bf16), `0x%08x` (other 32-bit results: f16x2, bf16x2,
//! binary32, vmad) or `0x%016x` (f64, f32x2), or
//! `error: <line number>: <reason>` on stdout in place of a result. A bad line does not stop the
//! run; the exit code is 1 if any line was bad, 2 if stdin could not be read or stdout not
//! written (a closed pipe, `| head`, ends the run quietly with the status of the lines before).
//! Errors quote the input through [`ptxfma_ptx::quote`], so a huge or hostile token cannot
//! flood or garble them.

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline;
use ptxfma_ptx::read::{read, read_line, MAX_LINE};
use ptxfma_ptx::Target;
use std::io::{self, BufRead, IsTerminal, Write};

use ptxfma_cli_common::stdio::{self, Stream, Writer};

/// `fma-model eval --help`, after the one-line summary.
pub(super) const LONG_ABOUT: &str = "\
Evaluates PTX instructions on the golden model and prints one result per instruction.

Input is one instruction per line: each INSTRUCTION argument is one line or, with no arguments,
the lines of stdin are read. An instruction is the PTX spelling with hex operands in place of
registers and no destination:
    fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000
    add.f32.f16 0x3c00 0x3f800000            (add/sub take a, c; mul takes a, b)
    vmad.s32.s32.s32.shr7 -0x5.h1 0x7.b0 0x3  (vmad: optional sign, .b0-.b3/.h0-.h1 selects)
Operands are 0x... hex, or the PTX float literals 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX.
A `.target sm_NN` line (e.g. `.target sm_13`) switches the target for the lines after it; the
default is sm_100. Blank lines and `//` comments print nothing.

Output: one line per instruction, in order, so output line k answers the k-th instruction: the
result in hex (0x%04x for f16/bf16, 0x%08x for 32-bit results, 0x%016x for f64 and f32x2), or
`error: <line number>: <reason>` in its place. A bad line does not stop the run.
Exit status: 0 every line was good, 1 some line was bad, 2 bad usage, unreadable input or
unwritable output.";

/// Examples at the end of `fma-model eval --help`.
pub(super) const AFTER_HELP: &str = "\
Examples:
  fma-model eval 'fma.rn.f32 0x3f800000 0x40000000 0x3f800000'      (prints 0x40400000)
  printf '.target sm_13\\nmad.f32 0x3f800000 0x40000000 0x3f800000\\n' | fma-model eval";

/// The command line of `fma-model eval`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Instructions to evaluate, one per argument; with none, they are read from stdin.
    #[arg(value_name = "INSTRUCTION")]
    pub instructions: Vec<String>,
}

/// Entry point; returns the process exit code.
pub fn main(args: Args) -> u8 {
    let mut out = io::BufWriter::new(Writer(Stream::Out));
    let result = if args.instructions.is_empty() {
        let stdin = io::stdin();
        // Someone typing at a terminal wants each answer as soon as the line is entered; a pipe
        // gets block-buffered output, which is much faster for long vector files.
        let interactive = stdin.is_terminal();
        run(
            ReadLines(stdin.lock()),
            &mut out,
            &pipeline::eval,
            interactive,
        )
    } else {
        let lines = args
            .instructions
            .iter()
            .map(|a| Ok(Ok(a.as_bytes().to_vec())));
        run(lines, &mut out, &pipeline::eval, false)
    };
    let result = result.and_then(|all_ok| {
        out.flush()
            .map(|()| all_ok)
            .map_err(|e| Failed::Write(e, all_ok))
    });
    let fail = |msg: String| {
        stdio::report(&[format!("error: {msg}")]);
        2
    };
    match result {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(Failed::Read(e)) => {
            // The results of the lines before it first.
            let _ = out.flush();
            fail(format!("cannot read stdin: {e}"))
        }
        // A closed stdout (`| head`) ends the run quietly, with the status of the lines
        // evaluated.
        Err(Failed::Write(e, all_ok)) => match stdio::settle(Stream::Out, Err(e)) {
            Ok(()) => u8::from(!all_ok),
            Err(e) => fail(e.to_string()),
        },
    }
}

/// What ended a run early.
#[derive(Debug)]
enum Failed {
    Read(io::Error),
    /// And whether every line before it was good.
    Write(io::Error, bool),
}

/// One input line: its bytes, or why it cannot be used at all.
type RawLine = Result<Vec<u8>, String>;

/// Lines of a reader, without the line terminator. Bytes rather than `String`, so that one
/// line of invalid UTF-8 becomes an error for that line instead of ending the run; a line over
/// [`MAX_LINE`] bytes is an error for that line too.
struct ReadLines<R>(R);

impl<R: BufRead> Iterator for ReadLines<R> {
    type Item = io::Result<RawLine>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut buf = Vec::new();
        match read_line(&mut self.0, &mut buf, MAX_LINE) {
            Ok(None) => None,
            Ok(Some(len)) if len > MAX_LINE => Some(Ok(Err(format!(
                "line is too long ({len} bytes; at most {MAX_LINE})"
            )))),
            Ok(Some(_)) => Some(Ok(Ok(buf))),
            Err(e) => Some(Err(e)),
        }
    }
}

/// The evaluator: `pipeline::eval` in the binary, a stand-in in the unit tests so that the line
/// handling can be tested on its own.
type EvalFn = dyn Fn(&Ctrl, u64, u64, u64) -> u64;

/// Processes every line; returns whether all of them were good. I/O errors (reading the input,
/// writing the output) end the run.
fn run<W: Write>(
    lines: impl Iterator<Item = io::Result<RawLine>>,
    out: &mut W,
    eval: &EvalFn,
    flush_each: bool,
) -> Result<bool, Failed> {
    let mut target = Target::default();
    let mut all_ok = true;
    for (i, line) in lines.enumerate() {
        let number = i + 1;
        let printed = match line.map_err(Failed::Read)? {
            Err(reason) => Some(Err(reason)),
            Ok(bytes) => match String::from_utf8(bytes) {
                Err(_) => Some(Err("line is not valid UTF-8".to_string())),
                Ok(text) => handle(&text, &mut target, eval).transpose(),
            },
        };
        match printed {
            None => continue,
            Some(Ok(result)) => {
                writeln!(out, "{result}").map_err(|e| Failed::Write(e, all_ok))?;
            }
            Some(Err(reason)) => {
                all_ok = false;
                writeln!(out, "error: {number}: {reason}").map_err(|e| Failed::Write(e, false))?;
            }
        }
        if flush_each {
            out.flush().map_err(|e| Failed::Write(e, all_ok))?;
        }
    }
    Ok(all_ok)
}

/// One line: `Ok(None)` prints nothing (blank, comment, `.target`), `Ok(Some(_))` is a result,
/// `Err(_)` the reason the line is bad.
fn handle(text: &str, target: &mut Target, eval: &EvalFn) -> Result<Option<String>, String> {
    let Some(instr) = read(text, target)? else {
        return Ok(None);
    };
    let d = eval(&instr.ctrl, instr.a, instr.b, instr.c);
    // The result is printed as it comes out, unmasked: bits above the result width would be a
    // model bug, and showing them (as extra digits) is better than hiding them.
    Ok(Some(format!(
        "0x{d:0w$x}",
        w = instr.result_bits() as usize / 4
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::ctrl::Kind;

    /// A stand-in evaluator whose answer depends on every input, so the tests can tell which
    /// control word and operands reached it: kind in the top byte, then a ^ b ^ c.
    fn fake(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
        let tag = match ctrl.kind {
            Kind::F32 => 1u64,
            Kind::F64 => 2,
            Kind::F32x2 => 3,
            Kind::Sm1x => 4,
            Kind::Vmad => 5,
            Kind::Half => 6,
            Kind::Half2 => 7,
        };
        match ctrl.kind {
            Kind::F64 | Kind::F32x2 => (tag << 56) | ((a ^ b ^ c) & 0xffff_ffff_ffff),
            Kind::Half => (tag << 12) | ((a ^ b ^ c) & 0xfff),
            _ => (tag << 28) | ((a ^ b ^ c) & 0xff_ffff),
        }
    }

    fn go(input: &str) -> (String, bool) {
        let lines = input.split('\n').map(|l| Ok(Ok(l.as_bytes().to_vec())));
        let mut out = Vec::new();
        let ok = run(lines, &mut out, &fake, false).unwrap();
        (String::from_utf8(out).unwrap(), ok)
    }

    #[test]
    fn results_are_printed_one_per_instruction_with_the_right_width() {
        let (out, ok) = go("fma.rn.f32 0x1 0x2 0x4\n\
             fma.rn.f64 0x1 0x2 0x4\n\
             fma.rn.f32x2 0x10 0x20 0x40\n\
             vmad.u32.u32.u32 0x1 0x1 0x1\n\
             add.f32.f16 0x3c00 0x3f800000");
        assert!(ok);
        assert_eq!(
            out,
            "0x10000007\n0x0200000000000007\n0x0300000000000070\n0x50000001\n0x10803c00\n"
        );
    }

    #[test]
    fn blank_lines_comments_and_targets_print_nothing() {
        let (out, ok) =
            go("\n   \n// a comment\n.target sm_13\nmad.f32 0x1 0x0 0x0 // trailing\n\t\n");
        assert!(ok);
        assert_eq!(out, "0x40000001\n");
    }

    #[test]
    fn target_lines_switch_the_target_for_later_lines() {
        let (out, ok) = go("mad.f32 0x0 0x0 0x0\n\
             .target sm_13\n\
             mad.f32 0x0 0x0 0x0\n\
             fma.rn.f32 0x0 0x0 0x0\n\
             .target sm_100\n\
             fma.rn.f32 0x0 0x0 0x0");
        assert!(!ok);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("error: 1: mad.f32 on sm_20+ requires a rounding modifier"));
        assert_eq!(lines[1], "0x40000000");
        assert!(
            lines[2].starts_with("error: 4: fma.f32 requires sm_20 or higher (target is sm_13)")
        );
        assert_eq!(lines[3], "0x10000000");
    }

    #[test]
    fn bad_lines_report_their_number_and_the_rest_still_run() {
        let (out, ok) = go("fma.rn.f32 0x1 0x2 0x4\n\
             \n\
             fma.rn.f32 0x1 0x2\n\
             // comment\n\
             fma.rx.f32 0x1 0x2 0x3\n\
             fma.rn.f32 0x1 0x2 0x4");
        assert!(!ok);
        assert_eq!(
            out,
            "0x10000007\n\
             error: 3: expected 3 operands, found 2 (fma takes a, b, c)\n\
             error: 5: unknown modifier `.rx`\n\
             0x10000007\n"
        );
    }

    #[test]
    fn bad_directives_and_targets() {
        let (out, ok) =
            go(".target sm_14\n.target\n.target sm_13 sm_20\n.version 8.6\nmad.f32 0x0 0x0 0x0");
        assert!(!ok);
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].starts_with("error: 1: unknown target `sm_14`"),
            "{out}"
        );
        assert!(
            lines[1].starts_with("error: 2: `.target` needs a target"),
            "{out}"
        );
        assert!(
            lines[2].starts_with("error: 3: unexpected `sm_20`"),
            "{out}"
        );
        assert!(
            lines[3].starts_with("error: 4: unknown directive `.version`"),
            "{out}"
        );
        // No switch happened: still sm_100, where mad.f32 needs a rounding modifier.
        assert!(lines[4].starts_with("error: 5: mad.f32 on sm_20+"), "{out}");
    }

    #[test]
    fn invalid_utf8_is_an_error_for_that_line_only() {
        let lines = vec![
            Ok(Ok(b"fma.rn.f32 0x1 0x2 0x4".to_vec())),
            Ok(Ok(vec![0x66, 0xff, 0x0a])),
            Ok(Ok(b"fma.rn.f32 0x1 0x2 0x4".to_vec())),
        ];
        let mut out = Vec::new();
        let ok = run(lines.into_iter(), &mut out, &fake, false).unwrap();
        assert!(!ok);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0x10000007\nerror: 2: line is not valid UTF-8\n0x10000007\n"
        );
    }

    #[test]
    fn read_lines_strips_terminators_and_keeps_crlf_lines_usable() {
        let input: &[u8] = b"a\r\nb\n\nc";
        let got: Vec<Vec<u8>> = ReadLines(input).map(|l| l.unwrap().unwrap()).collect();
        assert_eq!(
            got,
            vec![b"a\r".to_vec(), b"b".to_vec(), b"".to_vec(), b"c".to_vec()]
        );
        // The stray CR is white space to the line parser.
        let (out, ok) = go("fma.rn.f32 0x1 0x2 0x4\r");
        assert!(ok);
        assert_eq!(out, "0x10000007\n");
    }

    #[test]
    fn overlong_lines_are_an_error_for_that_line_only() {
        let input = format!(
            "fma.rn.f32 0x1 0x2 0x4\n{}\nfma.rn.f32 0x1 0x2 0x4\n",
            "x".repeat(MAX_LINE + 1)
        );
        let mut out = Vec::new();
        let ok = run(ReadLines(input.as_bytes()), &mut out, &fake, false).unwrap();
        assert!(!ok);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "0x10000007\nerror: 2: line is too long ({} bytes; at most {MAX_LINE})\n\
                 0x10000007\n",
                MAX_LINE + 1
            )
        );
    }

    #[test]
    fn errors_cut_and_escape_the_input_they_quote() {
        let long = "x".repeat(10_000);
        for line in [
            format!("fma.rn.f32 0x{long} 0x2 0x4"),
            format!("{long} 0x1 0x2 0x4"),
            format!("fma.rn.{long}.f32 0x1 0x2 0x4"),
            format!(".{long}"),
            format!(".target {long}"),
            format!(".target sm_13 {long}"),
            "fma.rn.f32 0x1\x1b[31m 0x2 0x4".to_string(),
            "\x07\x1b[2J 0x1 0x2 0x4".to_string(),
            ".target sm_\x1b[31m".to_string(),
            ".\x1b[31m".to_string(),
        ] {
            let (out, ok) = go(&line);
            assert!(!ok);
            assert!(out.starts_with("error: 1: "), "{out}");
            assert_eq!(out.lines().count(), 1, "{out}");
            assert!(out.len() < 300, "{} bytes: {}", out.len(), &out[..300]);
            assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        }
        let (out, _) = go("fma.rn.f32 0x1\x1b[31m 0x2 0x4");
        assert!(out.contains("`0x1\\u{1b}[31m`"), "{out}");
        let (out, _) = go(&format!(".target {long}"));
        assert!(out.contains(&format!("`{}...`", "x".repeat(40))), "{out}");
    }
}

//! Reading input lines: the bounded line reader every front end uses, and the `fma-model eval`
//! line format (comments, `.target` directives, one instruction with hex operands).

use std::io::{self, BufRead};

use crate::quote::{quote, quote_spans};
use crate::{parse_line, Instr, Target};

/// The longest line any front end reads (`fma-model eval` and `check`, the co-simulator's
/// `--vectors`, the C ABI and Python): far longer than any instruction or vector, short
/// enough that a file with no newlines cannot exhaust memory.
pub const MAX_LINE: usize = 1 << 20;

/// Reads one line into `buf`, without its `\n`, keeping at most `max` bytes of it; the rest of
/// a longer line is read and dropped. Returns `Ok(None)` at the end of the input, otherwise the
/// full length of the line, which exceeds `max` when the line was cut.
pub fn read_line(
    input: &mut (impl BufRead + ?Sized),
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(any.then_some(len));
        }
        any = true;
        let (text, newline) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], true),
            None => (avail, false),
        };
        let keep = text.len().min(max.saturating_sub(buf.len()));
        buf.extend_from_slice(&text[..keep]);
        len = len.saturating_add(text.len());
        let used = text.len() + usize::from(newline);
        input.consume(used);
        if newline {
            return Ok(Some(len));
        }
    }
}

/// Reads one line as `fma-model eval` does, without evaluating it: `Ok(None)` for a line that
/// prints nothing (blank, `//` comment, or a `.target sm_NN` directive, which switches `target`
/// for the lines after it), the instruction otherwise, or the reason the line is bad (input
/// quoted through [`quote_spans`]). Public so that other front ends (the C ABI in `ffi/`) read
/// lines exactly as the command does rather than through a second parser.
pub fn read(text: &str, target: &mut Target) -> Result<Option<Instr>, String> {
    let code = match text.find("//") {
        Some(p) => &text[..p],
        None => text,
    };
    let code = code.trim();
    if code.is_empty() {
        return Ok(None);
    }
    if code.starts_with('.') {
        let mut words = code.split_whitespace();
        let directive = words.next().unwrap_or_default();
        if directive != ".target" {
            return Err(format!(
                "unknown directive `{}` (only `.target sm_NN` is understood)",
                quote(directive)
            ));
        }
        let Some(name) = words.next() else {
            return Err("`.target` needs a target, e.g. `.target sm_13`".to_string());
        };
        if let Some(extra) = words.next() {
            return Err(format!(
                "unexpected `{}` after `.target {}` (give one target)",
                quote(extra),
                quote(name)
            ));
        }
        *target = Target::parse(name).map_err(|e| quote_spans(e.message()))?;
        return Ok(None);
    }
    // The decoder's messages quote the input between backticks; cut and escape those spans.
    parse_line(code, *target)
        .map(Some)
        .map_err(|e| quote_spans(e.message()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_line_cuts_long_lines_and_keeps_counting() {
        let input = format!("short\n{}\nlast", "z".repeat(100));
        let mut r = io::BufReader::with_capacity(7, input.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), Some(5));
        assert_eq!(buf, b"short");
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), Some(100));
        assert_eq!(buf, b"zzzzzzzzzz");
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), Some(4));
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), None);
        let mut r: &[u8] = b"\n\r\n";
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), Some(0));
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), Some(1));
        assert_eq!(buf, b"\r");
        assert_eq!(read_line(&mut r, &mut buf, 10).unwrap(), None);
    }
}

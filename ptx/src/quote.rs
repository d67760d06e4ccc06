//! Showing user input inside an error message.
//!
//! An error message names the token it rejects, but the token can be anything: a megabyte of
//! junk, or control bytes that would move the cursor or recolour the terminal. Every place in
//! `eval` and `check` that echoes input goes through [`quote`] (or [`quote_os`] for a path, or
//! [`quote_spans`] for a message built elsewhere), so an error stays one short line of plain
//! text.

use std::ffi::OsStr;

/// Characters of a token shown before it is cut.
pub const QUOTE_MAX: usize = 40;

/// Characters of a path shown before it is cut: paths are longer than tokens, and a user needs
/// to see which file was meant.
pub const PATH_MAX: usize = 200;

/// Characters of a whole message from [`quote_spans`] shown before it is cut.
pub const MESSAGE_MAX: usize = 400;

/// `s` fit to be shown in an error message: at most [`QUOTE_MAX`] characters then `...`, with
/// control characters (and `\`, so that an escape cannot be faked) escaped the way Rust's
/// `escape_debug` writes them: `\u{1b}`, `\n`, `\\`. The caller adds the quotes.
pub fn quote(s: &str) -> String {
    quote_cut(s, QUOTE_MAX)
}

/// [`quote`] with a limit of `max` characters.
pub fn quote_cut(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    for c in chars.by_ref().take(max) {
        escape_into(&mut out, c);
    }
    if chars.next().is_some() {
        out.push_str("...");
    }
    out
}

/// A path or argument that need not be UTF-8: like [`quote`], with a limit of [`PATH_MAX`]
/// characters and each byte that is not part of valid UTF-8 written `\xNN`.
pub fn quote_os(s: &OsStr) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for chunk in os_bytes(s).utf8_chunks() {
        for c in chunk.valid().chars() {
            if shown == PATH_MAX {
                out.push_str("...");
                return out;
            }
            escape_into(&mut out, c);
            shown += 1;
        }
        for b in chunk.invalid() {
            if shown == PATH_MAX {
                out.push_str("...");
                return out;
            }
            out.push_str(&format!("\\x{b:02x}"));
            shown += 1;
        }
    }
    out
}

/// A message written elsewhere (the decoder's) that quotes input between backticks: each
/// backquoted span goes through [`quote`], the rest is escaped, and the whole is cut at
/// [`MESSAGE_MAX`] characters in case a backtick inside the input put some of it outside a
/// span.
pub fn quote_spans(msg: &str) -> String {
    let mut out = String::new();
    for (i, part) in msg.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&quote(part));
        } else {
            out.push_str(&quote_cut(part, usize::MAX));
        }
    }
    if out.chars().count() > MESSAGE_MAX {
        let cut: String = out.chars().take(MESSAGE_MAX).collect();
        return cut + "...";
    }
    out
}

fn escape_into(out: &mut String, c: char) {
    match c {
        // Quotes are harmless on a terminal and common in messages; keep them as they are.
        '"' | '\'' => out.push(c),
        _ => out.extend(c.escape_debug()),
    }
}

#[cfg(unix)]
fn os_bytes(s: &OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes()
}

#[cfg(not(unix))]
fn os_bytes(s: &OsStr) -> &[u8] {
    s.as_encoded_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_plain_text_is_unchanged() {
        assert_eq!(quote("0x3f80000G"), "0x3f80000G");
        assert_eq!(quote("don't \"say\""), "don't \"say\"");
        assert_eq!(quote(""), "");
        assert_eq!(quote(&"a".repeat(QUOTE_MAX)), "a".repeat(QUOTE_MAX));
    }

    #[test]
    fn long_text_is_cut() {
        let q = quote(&"x".repeat(1_000_000));
        assert_eq!(q, "x".repeat(QUOTE_MAX) + "...");
        // Cut on characters, not bytes: no panic inside a multi-byte character.
        let q = quote(&"é".repeat(100));
        assert_eq!(q, "é".repeat(QUOTE_MAX) + "...");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(quote("\x1b[31mred\x07"), "\\u{1b}[31mred\\u{7}");
        assert_eq!(quote("a\nb\tc\rd\0"), "a\\nb\\tc\\rd\\0");
        assert_eq!(quote("back\\slash"), "back\\\\slash");
        assert!(!quote("\u{202e}evil").contains('\u{202e}'));
    }

    #[test]
    fn the_cut_counts_input_characters_not_escapes() {
        let q = quote(&"\x07".repeat(50));
        assert_eq!(q, "\\u{7}".repeat(QUOTE_MAX) + "...");
    }

    #[cfg(unix)]
    #[test]
    fn os_strings_show_bad_bytes_as_hex() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let s = OsString::from_vec(vec![b'f', 0xff, b'\n', b'o']);
        assert_eq!(quote_os(&s), "f\\xff\\no");
        let long = OsString::from_vec(vec![0xfe; 1000]);
        assert_eq!(quote_os(&long), "\\xfe".repeat(PATH_MAX) + "...");
        assert_eq!(
            quote_os(OsStr::new("/nonexistent/dir/vectors.txt")),
            "/nonexistent/dir/vectors.txt"
        );
    }

    #[test]
    fn spans_are_cut_and_the_rest_escaped() {
        let long = "y".repeat(500);
        let msg = format!("unknown modifier `.{long}` in\x1b line");
        assert_eq!(
            quote_spans(&msg),
            format!("unknown modifier `.{}...` in\\u{{1b}} line", "y".repeat(39))
        );
        assert_eq!(
            quote_spans("operand a `0xZZ` is not a hex literal"),
            "operand a `0xZZ` is not a hex literal"
        );
        // A backtick inside the input shifts the spans; the total is still bounded.
        let msg = format!("unknown instruction `a`{}`", "z".repeat(5000));
        let q = quote_spans(&msg);
        assert!(q.chars().count() <= MESSAGE_MAX + 3, "{q}");
        assert!(q.ends_with("..."));
    }
}

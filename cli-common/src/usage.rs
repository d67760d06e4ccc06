//! One-line usage errors from clap's, shared by the workspace's commands (`fma-model`, the
//! co-simulator) so that both word and quote a bad command line alike.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use ptxfma_ptx::quote::{self, quote, quote_os};

/// One line for a clap error, without the `error: ` prefix; `args` is the command line clap
/// was given, program name first. clap's own rendering spreads over several lines and echoes
/// the offending argument whole; this quotes it with [`quote()`]. Nothing here is particular to
/// one command: `fma-model` and the co-simulator word their errors the same way.
pub fn usage_error(e: &clap::Error, args: &[OsString]) -> String {
    let string = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let list = |kind| match e.get(kind) {
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        _ => None,
    };
    let arg = string(ContextKind::InvalidArg);
    let value = string(ContextKind::InvalidValue);
    // clap reports an unknown option or command that is not UTF-8 with U+FFFD in place of the
    // bad bytes; say what is wrong with it instead.
    let lossy = [arg, string(ContextKind::InvalidSubcommand)]
        .into_iter()
        .flatten()
        .find(|s| s.contains(char::REPLACEMENT_CHARACTER));
    let not_utf8 = args
        .iter()
        .skip(1)
        .filter(|a| a.to_str().is_none())
        .find(|a| lossy.is_none_or(|l| a.to_string_lossy() == l));
    let mut msg = match (e.kind(), arg, value) {
        (kind, _, _)
            if kind == ErrorKind::InvalidUtf8 || (lossy.is_some() && not_utf8.is_some()) =>
        {
            match not_utf8 {
                Some(bad) => format!("argument `{}` is not valid UTF-8", quote_os(bad)),
                None => "an argument is not valid UTF-8".into(),
            }
        }
        (ErrorKind::UnknownArgument, Some(a), _) if a.starts_with('-') && a != "-" => {
            format!("unknown option `{}`", quote(a))
        }
        (ErrorKind::UnknownArgument, Some(a), _) => format!("unexpected argument `{}`", quote(a)),
        (ErrorKind::InvalidSubcommand, _, _) => format!(
            "unknown command `{}`",
            quote(string(ContextKind::InvalidSubcommand).unwrap_or_default())
        ),
        (ErrorKind::InvalidValue, Some(a), Some("")) => format!("`{a}` needs a value"),
        (ErrorKind::InvalidValue, Some(a), Some(v)) => {
            let mut m = format!("invalid value `{}` for `{a}`", quote(v));
            if let Some(valid) = list(ContextKind::ValidValue) {
                m.push_str(&format!(" (possible values: {valid})"));
            }
            m
        }
        // The workspace's value parsers write messages that quote the value themselves.
        (ErrorKind::ValueValidation, Some(a), _) => match std::error::Error::source(e) {
            Some(why) => format!("`{a}`: {why}"),
            None => format!("invalid value for `{a}`"),
        },
        (ErrorKind::ArgumentConflict, Some(a), _)
            if e.get(ContextKind::PriorArg) == e.get(ContextKind::InvalidArg) =>
        {
            format!("`{a}` given more than once")
        }
        // clap lists several conflicting arguments on lines of their own.
        (ErrorKind::ArgumentConflict, Some(a), _) => match e.get(ContextKind::PriorArg) {
            Some(ContextValue::Strings(v)) if !v.is_empty() => format!(
                "the argument '{a}' cannot be used with {}",
                v.iter()
                    .map(|o| format!("'{o}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => clap_first_line(e),
        },
        (ErrorKind::MissingRequiredArgument, _, _) => format!(
            "missing {}",
            list(ContextKind::InvalidArg).unwrap_or_else(|| "a required argument".into())
        ),
        _ => clap_first_line(e),
    };
    if let Some(s) = string(ContextKind::SuggestedArg) {
        msg.push_str(&format!(" (did you mean `{}`?)", quote(s)));
    }
    if let Some(s) = list(ContextKind::SuggestedSubcommand) {
        msg.push_str(&format!(" (did you mean `{}`?)", quote(&s)));
    }
    msg
}

/// The first line of clap's message, without its `error: ` prefix, for the kinds
/// [`usage_error`] does not word itself; a line that ends in `:` is followed by the indented
/// lines of its list, joined to it, so that the line is whole.
fn clap_first_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    if line.ends_with(':') {
        let items: Vec<&str> = lines
            .take_while(|l| l.starts_with(char::is_whitespace) && !l.trim().is_empty())
            .map(str::trim)
            .collect();
        line = format!("{} {}", line, items.join(", "));
    }
    quote::quote_cut(line.trim_end(), quote::MESSAGE_MAX)
}

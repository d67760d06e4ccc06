//! The decoder's one error type: every rejection carries a message that names the PTX rule broken.

use std::fmt;

/// A rejected instruction, target or operand; the message names the rule that was broken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(String);

impl DecodeError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        DecodeError(msg.into())
    }

    /// The human-readable reason (the same text as `Display`).
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

macro_rules! bail {
    ($($t:tt)*) => {
        return Err(DecodeError::new(format!($($t)*)))
    };
}

pub(crate) use bail;

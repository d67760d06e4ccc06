//! The decoder's one error type: every rejection carries a message that names the PTX rule broken.

/// A rejected instruction, target or operand; the message names the rule that was broken.
///
/// One kind, not an enum of kinds: no caller branches on why a decode failed (the C ABI and the
/// Python module tell a bad target from a bad instruction by which call failed), they all show
/// the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
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

macro_rules! bail {
    ($($t:tt)*) => {
        return Err(DecodeError::new(format!($($t)*)))
    };
}

pub(crate) use bail;

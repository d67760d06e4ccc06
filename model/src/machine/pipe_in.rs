//! The pipe's input ports in one cycle (`ptxfma_top`'s `in_*_i` and `rst_ni`), as [`PipeIn`].
//! A module of its own, below both `pipeline` and `batch`: the scalar pipeline and the lane
//! engine both read it, so neither has to name the other for it.

/// What the pipe sees on its input ports in one cycle. Laid out as four words, the operands
/// first (`PipeIn::WORDS`), so that the lane engine can read a group's operands as strided
/// words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PipeIn {
    pub a: u64,
    pub b: u64,
    pub c: u64,
    /// Encoded control word ([`Ctrl::encode`](crate::ctrl::Ctrl::encode)).
    pub ctrl: u32,
    pub tag: u16,
    pub valid: bool,
    /// `rst_ni` asserted in this cycle: every bank clears and the other inputs are ignored,
    /// as the RTL's asynchronous reset does when it is held low through a rising edge.
    pub reset: bool,
}

// Four words without padding: every byte is a field's, so a group reads as `[u64; 4 N]`.
const _: () = assert!(std::mem::size_of::<PipeIn>() == 32 && std::mem::align_of::<PipeIn>() == 8);

impl PipeIn {
    /// Words per input: a, b, c, then the control word, tag and flags.
    pub const WORDS: usize = 4;

    /// A group's inputs as words, `WORDS` per input (a, b and c at 0, 1 and 2).
    pub(crate) fn words<const G: usize>(g: &[PipeIn; G]) -> &[u64] {
        // SAFETY: `PipeIn` is `repr(C)`, 32 bytes, 8-aligned and without padding (asserted
        // above), so its bytes are initialised and read as four `u64`s.
        unsafe { std::slice::from_raw_parts(g.as_ptr().cast::<u64>(), G * Self::WORDS) }
    }

    /// Whether an operation enters the pipe this cycle: valid, and not thrown away by reset.
    pub fn issues(&self) -> bool {
        self.valid && !self.reset
    }
}

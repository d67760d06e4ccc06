//! Tags narrower than the stream's (`contract.tag_width`): the design is given each
//! operation's tag modulo 2^width, and a tag it retires is read back as the oldest full tag in
//! flight under it, so that the checker (`crate::ports`) sees the stream's own tags. A design
//! may then have at most 2^width operations in flight; one that retires a tag with nothing in
//! flight under it gets that narrow tag back, which the checker reports as unissued.
//!
//! Width 0 is a design without tags (`contract.tag_width = 0`): one queue, so every result is
//! the oldest operation in flight, which is what an in-order design retires; one with nothing
//! in flight comes back as tag 0, which the checker reports as unissued.

use std::collections::VecDeque;

/// The full tags in flight under each narrow tag, oldest first.
pub struct TagMap {
    mask: u16,
    inflight: Vec<VecDeque<u16>>,
}

/// Word 0 of an encoded input: valid bit 0, reset bit 1, tag bits 31:16.
const TAG_SHIFT: u32 = 16;

impl TagMap {
    /// For tags of `bits` (0..16) bits.
    pub fn new(bits: u32) -> TagMap {
        TagMap {
            mask: ((1u32 << bits) - 1) as u16,
            inflight: vec![VecDeque::new(); 1 << bits],
        }
    }

    /// Forgets everything in flight (the design was reset).
    pub fn clear(&mut self) {
        self.inflight.iter_mut().for_each(VecDeque::clear);
    }

    /// Encoded input `word0` with its tag narrowed, as the design is given it.
    pub fn narrow(&self, word0: u64) -> u64 {
        let narrow = (word0 >> TAG_SHIFT) as u16 & self.mask;
        word0 & !(0xFFFF_u64 << TAG_SHIFT) | (narrow as u64) << TAG_SHIFT
    }

    /// Notes the operation of encoded input `word0` (the full tag) in flight; a reset cycle
    /// throws everything in flight away first.
    pub fn issue(&mut self, word0: u64) {
        if word0 & 2 != 0 {
            self.clear();
        }
        let tag = (word0 >> TAG_SHIFT) as u16;
        if word0 & 3 == 1 {
            self.inflight[(tag & self.mask) as usize].push_back(tag);
        }
    }

    /// The full tag of a retirement under `narrow`.
    pub fn retire(&mut self, narrow: u32) -> u32 {
        let n = (narrow as u16 & self.mask) as usize;
        self.inflight[n].pop_front().map_or(narrow, u32::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word0(valid: bool, reset: bool, tag: u16) -> u64 {
        valid as u64 | (reset as u64) << 1 | (tag as u64) << 16 | 0xABCD << 32
    }

    #[test]
    fn narrow_tags_come_back_as_the_oldest_full_tag() {
        let mut m = TagMap::new(4);
        assert_eq!(m.narrow(word0(true, false, 0x13)), word0(true, false, 0x3));
        assert_eq!(
            m.narrow(word0(false, true, 0xFFFF)),
            word0(false, true, 0xF)
        );
        m.issue(word0(true, false, 0x13));
        m.issue(word0(true, false, 0x23));
        m.issue(word0(false, false, 0x33));
        assert_eq!(m.retire(0x3), 0x13);
        assert_eq!(m.retire(0x3), 0x23);
        // Nothing in flight under it: the narrow tag itself (unissued for the checker).
        assert_eq!(m.retire(0x3), 0x3);
        m.issue(word0(true, false, 0x45));
        m.issue(word0(false, true, 0x46));
        assert_eq!(m.retire(0x5), 0x5, "a reset forgets what was in flight");
    }

    #[test]
    fn without_tags_results_are_the_operations_in_issue_order() {
        let mut m = TagMap::new(0);
        assert_eq!(m.narrow(word0(true, false, 0x1234)), word0(true, false, 0));
        for tag in [0x10, 0x11, 0x13] {
            m.issue(word0(true, false, tag));
        }
        m.issue(word0(false, false, 0x14));
        assert_eq!([m.retire(0), m.retire(0), m.retire(0)], [0x10, 0x11, 0x13]);
        assert_eq!(m.retire(0), 0, "nothing in flight");
        m.issue(word0(true, false, 0x20));
        m.issue(word0(false, true, 0x21));
        assert_eq!(m.retire(0), 0, "a reset forgets what was in flight");
    }
}

//! What the co-simulator adds to a waveform beside the RTL's own signals, for the waveform
//! and its view alike: the time base, the instruction in flight by name, and the model's
//! result by tag.

use ptxfma_cosim_engine::frame::{self, Bank};

/// The written waveform's clock period in its time unit (ps): one design cycle per ns.
pub const PERIOD: u64 = 1000;

/// Characters of an instruction name signal (`cosim.*_instr`): the longest spelling with its
/// vmad operand forms fits.
pub const INSTR_CHARS: usize = 48;

/// The instruction name signals under `cosim`: at the input ports, then after each stage.
pub const INSTR_SIGNALS: [&str; 5] = ["in_instr", "s1_instr", "s2_instr", "s3_instr", "out_instr"];

/// The scope of the model's result for the tag a design retires (`--compare ports`), written
/// at the design's retire cycles ([`crate::waves::by_tag`]).
pub const BY_TAG: &str = "model_by_tag";

/// Its signals: the tag the design retired; whether the model has a result for it, and the
/// result; the cycle its operation was issued in, by name, and the issue ports as they were
/// read in that cycle.
pub const BY_TAG_TAG: &str = "tag";
pub const BY_TAG_VALID: &str = "expected_valid";
pub const BY_TAG_D: &str = "expected_d";
pub const BY_TAG_ISSUE: &str = "issue_cycle";
pub const BY_TAG_INSTR: &str = "instr";
/// The issue ports of the operation, as read in its issue cycle (the tag is [`BY_TAG_TAG`]).
pub const BY_TAG_PORTS: [&str; 4] = ["in_ctrl_i", "in_a_i", "in_b_i", "in_c_i"];

/// The control word of the operation a stage bank holds in a frame (`None`: an empty slot).
pub fn stage_ctrl(frame: &[u32], bank: Bank) -> Option<u32> {
    let words = &frame[bank.range()];
    let leaf = |name: &str| bank.leaves().iter().find(|l| l.name == name);
    let valid = frame::field(words, leaf("valid")?)[0] & 1 != 0;
    let ctrl = frame::field(words, leaf("ctrl")?)[0] as u32;
    valid.then_some(ctrl)
}

/// `text` as the bytes of an instruction name signal, first character first: cut to
/// [`INSTR_CHARS`] and padded with zero bytes, which GTKWave's ASCII format leaves out (spaces
/// would be drawn, and cut to a lone `+` where a box is narrow); an empty slot is all zeros.
pub fn instr_bytes(text: &str) -> impl Iterator<Item = u8> + '_ {
    text.bytes()
        .filter(|&b| b != 0)
        .chain(std::iter::repeat(0))
        .take(INSTR_CHARS)
}

/// The PTX spelling of a control word, as the instruction name signals and the report write it.
pub fn instr_name(ctrl: u32) -> String {
    ptxfma_cosim_engine::stim::ptx_spelling(&ptxfma_model::ctrl::Ctrl::decode(ctrl))
}

/// Where each replayed stream cycle lies in the written waveform, whose time counts design
/// cycles (one per ns). A design takes one cycle per stream cycle, so the stream's cycle N is
/// at N ns; a handshake design may take several for one (it holds an operation back), and
/// then its stream cycles spread out and `cosim.cycle` says which is which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    pub first_cycle: u64,
    /// Per stream cycle from `first_cycle`: the rising edges (ps) of its first and of its
    /// last design cycle (after which its results are read).
    pub edges: Vec<(u64, u64)>,
}

impl Timeline {
    /// One design cycle per stream cycle.
    pub fn linear(first_cycle: u64, cycles: usize) -> Timeline {
        Timeline {
            first_cycle,
            edges: (first_cycle..first_cycle + cycles as u64)
                .map(|c| (c * PERIOD, c * PERIOD))
                .collect(),
        }
    }

    /// Whether stream cycle N is at N ns throughout.
    pub fn is_linear(&self) -> bool {
        self.edges
            .iter()
            .zip(self.first_cycle..)
            .all(|(&(a, b), c)| a == c * PERIOD && b == a)
    }

    /// (first, last) edges of stream cycle `c`; outside the window, a design cycle per stream
    /// cycle on from its ends.
    fn of(&self, c: u64) -> (u64, u64) {
        let i = c.checked_sub(self.first_cycle);
        match (
            i.and_then(|i| self.edges.get(i as usize)),
            self.edges.last(),
        ) {
            (Some(&e), _) => e,
            (None, Some(&(_, last))) if i.is_some() => {
                let t = last + (c + 1 - self.first_cycle - self.edges.len() as u64) * PERIOD;
                (t, t)
            }
            _ => (c * PERIOD, c * PERIOD),
        }
    }

    /// The rising edge after which stream cycle `c`'s results are read (ps): where a marker
    /// on a retirement goes.
    pub fn edge(&self, c: u64) -> u64 {
        self.of(c).1
    }

    /// The first rising edge of stream cycle `c` (ps): where its operation is first presented.
    pub fn start(&self, c: u64) -> u64 {
        self.of(c).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_name_is_padded_with_zero_bytes_not_spaces() {
        let b: Vec<u8> = instr_bytes("fma.rn.f32").collect();
        assert_eq!(b.len(), INSTR_CHARS);
        assert_eq!(&b[..10], b"fma.rn.f32");
        assert!(b[10..].iter().all(|&c| c == 0), "{b:?}");
        // An empty slot (a bubble) holds no character at all.
        assert!(instr_bytes("").all(|c| c == 0));
        assert_eq!(instr_bytes(&"x".repeat(99)).count(), INSTR_CHARS);
    }

    #[test]
    fn a_timeline_places_stream_cycles_and_goes_on_past_its_ends() {
        let t = Timeline::linear(7, 3);
        assert!(t.is_linear());
        assert_eq!((t.start(8), t.edge(8), t.edge(12)), (8000, 8000, 12000));
        // Cycle 8 took three design cycles: what follows moves two ns later.
        let t = Timeline {
            first_cycle: 7,
            edges: vec![(7000, 7000), (8000, 10000), (11000, 11000)],
        };
        assert!(!t.is_linear());
        assert_eq!((t.start(8), t.edge(8)), (8000, 10000));
        assert_eq!((t.edge(10), t.edge(11)), (12000, 13000));
        assert_eq!(t.edge(3), 3000);
    }
}

//! A batch: consecutive cycles of a stream, prepared for both sides at once. Crossing into C++
//! once per cycle would dominate, so the lockstep moves cycles in batches: the stimulus side
//! takes the inputs and encodes them for the RTL ([`Batch::take`]), the reference fills
//! `expected`, the RTL side writes its own frames beside them.

use ptxfma_model::machine::pipeline::PipeIn;

use crate::rtl;
use crate::stim::Family;
use crate::stream::Cycle;

pub struct Batch {
    /// The stream cycle of the first input.
    pub start: u64,
    pub inputs: Vec<PipeIn>,
    /// The family of each input's operation, as the stream drew it.
    pub families: Vec<Option<Family>>,
    /// The inputs as the RTL shim reads them.
    pub enc: Vec<u64>,
    /// The reference's frames, one per input.
    pub expected: Vec<u32>,
}

impl Batch {
    pub fn with_capacity(batch: usize) -> Batch {
        Batch {
            start: 0,
            inputs: Vec::with_capacity(batch),
            families: Vec::with_capacity(batch),
            enc: Vec::with_capacity(batch * rtl::IN_WORDS),
            expected: Vec::new(),
        }
    }

    /// Takes the next `batch` cycles of `stream`, starting at cycle `start`, and encodes them
    /// for the RTL. False when the stream is exhausted.
    pub fn take(
        &mut self,
        stream: &mut impl Iterator<Item = Cycle>,
        start: u64,
        batch: usize,
    ) -> bool {
        self.start = start;
        self.inputs.clear();
        self.families.clear();
        for (p, f) in stream.by_ref().take(batch) {
            self.inputs.push(p);
            self.families.push(f);
        }
        if self.inputs.is_empty() {
            return false;
        }
        self.enc.clear();
        self.enc
            .extend(self.inputs.iter().flat_map(rtl::encode_input));
        true
    }

    /// Cycle `i`'s input and family.
    pub fn cycle(&self, i: usize) -> Cycle {
        (self.inputs[i], self.families[i])
    }
}

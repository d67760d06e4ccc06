//! A batch: consecutive cycles of a stream, prepared for both sides at once. Crossing into C++
//! once per cycle would dominate, so the lockstep moves cycles in batches: the stimulus side
//! takes the inputs and encodes them for the RTL ([`Batch::take`]), the reference fills
//! `expected` (both driven by a [`Producer`], ahead of the RTL), the RTL side writes its own
//! frames beside them.

use ptxfma_model::machine::pipeline::PipeIn;

use crate::frame;
use crate::reference::Reference;
use crate::rtl;
use crate::stim::Family;
use crate::stream::Cycle;
use crate::Error;

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
    /// for the RTL. False when the stream is exhausted. (Not inlined: `make bench-profile`
    /// counts the stimulus by this function.)
    #[inline(never)]
    pub fn take(
        &mut self,
        stream: &mut impl Iterator<Item = Cycle>,
        start: u64,
        batch: usize,
    ) -> bool {
        self.start = start;
        // Sized once and written in place: pushing each cycle into three vectors costs more
        // than the stream's own bookkeeping. The lengths only change at the stream's end.
        self.inputs.resize(batch, PipeIn::default());
        self.families.resize(batch, None);
        self.enc.resize(batch * rtl::IN_WORDS, 0);
        let slots = self
            .inputs
            .iter_mut()
            .zip(self.families.iter_mut())
            .zip(self.enc.chunks_exact_mut(rtl::IN_WORDS));
        let mut n = 0;
        for ((input, family), enc) in slots {
            let Some((p, f)) = stream.next() else {
                break;
            };
            *input = p;
            *family = f;
            enc.copy_from_slice(&rtl::encode_input(&p));
            n += 1;
        }
        self.inputs.truncate(n);
        self.families.truncate(n);
        self.enc.truncate(n * rtl::IN_WORDS);
        n > 0
    }

    /// Cycle `i`'s input and family.
    pub fn cycle(&self, i: usize) -> Cycle {
        (self.inputs[i], self.families[i])
    }
}

/// The side that runs ahead of the RTL: takes each batch from the stream and has the reference
/// compute its frames.
pub struct Producer<'g, S> {
    stream: S,
    golden: &'g mut dyn Reference,
    batch: usize,
    /// The stream cycle of the next batch.
    start: u64,
}

impl<'g, S: Iterator<Item = Cycle>> Producer<'g, S> {
    /// Batches of `batch` cycles of `stream`, from its first cycle.
    pub fn new(stream: S, golden: &'g mut dyn Reference, batch: usize) -> Producer<'g, S> {
        Producer {
            stream,
            golden,
            batch,
            start: 0,
        }
    }

    /// A batch to fill.
    pub fn empty(&self) -> Batch {
        Batch::with_capacity(self.batch)
    }

    /// Fills `b` with the next batch and the reference's frames for it. False when the stream
    /// is exhausted.
    pub fn fill(&mut self, b: &mut Batch) -> Result<bool, Error> {
        if !b.take(&mut self.stream, self.start, self.batch) {
            return Ok(false);
        }
        self.start += b.inputs.len() as u64;
        b.expected.resize(b.inputs.len() * frame::WORDS, 0);
        self.golden.run(&b.inputs, &mut b.expected)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{Families, Stream};
    use std::hash::Hasher;

    /// Batches hold the stream's cycles in order, and their encoding is pinned: FNV-1a over
    /// every word of `enc`, computed once by the code of commit 78e743f (before the stimulus
    /// was made cheaper, issue 39), so the RTL reads the same words as before.
    #[test]
    fn batches_hold_the_stream_and_encode_it_as_pinned() {
        let fams = Families::all();
        let all: Vec<Cycle> = Stream::new(1, &fams, 20_000).collect();
        let mut stream = Stream::new(1, &fams, 20_000);
        let mut b = Batch::with_capacity(777);
        let (mut start, mut h) = (0u64, fnv::FnvHasher::default());
        while b.take(&mut stream, start, 777) {
            assert_eq!(b.start, start);
            assert_eq!(b.enc.len(), b.inputs.len() * rtl::IN_WORDS);
            for i in 0..b.inputs.len() {
                assert_eq!(b.cycle(i), all[start as usize + i]);
            }
            for w in &b.enc {
                h.write(&w.to_le_bytes());
            }
            start += b.inputs.len() as u64;
        }
        assert_eq!(start, all.len() as u64);
        let h = h.finish();
        assert_eq!(h, 0x556c_8203_c04d_f857, "{h:#018x}");
    }
}

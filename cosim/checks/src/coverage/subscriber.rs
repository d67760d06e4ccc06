//! Functional coverage as a subscriber of the lockstep (it implements the engine's
//! `subscriber::Subscriber`, hence the same name): once both sides have run a batch, the
//! lockstep feeds it every cycle's input and the reference's frame, and the stage registers are
//! read back from the frame's packed banks. The reference only computes; what is observed of
//! it is decided here.

use ptxfma_model::machine::pipeline::PipeIn;

use std::any::Any;

use super::{Banks, Coverage};
use ptxfma_cosim_engine::frame::Bank;
use ptxfma_cosim_engine::lockstep::Outcome;
use ptxfma_cosim_engine::subscriber::Subscriber;

/// Samples one stream, cycle after cycle from reset.
#[derive(Debug, Default)]
pub struct CoverageSubscriber {
    coverage: Coverage,
    /// The previous cycle's input (none after a reset).
    prev: PipeIn,
}

impl CoverageSubscriber {
    /// A subscriber for [`ptxfma_cosim_engine::lockstep::Config::subscribe`].
    pub fn boxed() -> Box<dyn Subscriber> {
        Box::<CoverageSubscriber>::default()
    }

    /// The coverage a run's subscriber sampled (none: it had no coverage subscriber).
    pub fn of(out: &Outcome) -> Option<&Coverage> {
        let s = out.subscriber.as_ref()?;
        s.as_any()
            .downcast_ref::<CoverageSubscriber>()
            .map(|s| &s.coverage)
    }

    /// The coverage sampled.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }
}

impl Subscriber for CoverageSubscriber {
    fn feed(&mut self, inp: &PipeIn, frame: &[u32]) {
        self.coverage.sample_banks(inp, &self.prev, banks_of(frame));
        // After a reset nothing was issued the cycle before.
        self.prev = if inp.reset { PipeIn::default() } else { *inp };
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The stage registers of a frame, read as they are sampled.
fn banks_of(frame: &[u32]) -> Banks<'_> {
    Banks::new(
        &frame[Bank::S1.range()],
        &frame[Bank::S2.range()],
        &frame[Bank::S3.range()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::sample::assert_reads_the_models;
    use ptxfma_cosim_engine::frame;
    use ptxfma_cosim_engine::stim::{Family, Stimulus};
    use ptxfma_model::machine::pipeline::Pipeline;

    /// Sampling from the frame is sampling from the model: what the sampler reads of its banks
    /// is the model's registers.
    #[test]
    fn banks_read_back_from_the_frame_are_the_models() {
        let mut p = Pipeline::new();
        let mut f = vec![0u32; frame::WORDS];
        for (i, v) in Stimulus::new(5, &Family::ALL).take(20_000).enumerate() {
            let out = p.tick(&v.input(i as u16));
            frame::write_model(&p, &out, &mut f);
            assert_reads_the_models(&banks_of(&f), &p);
        }
    }
}

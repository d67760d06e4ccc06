//! What watches the reference while a stream runs: after both sides ran a batch, the lockstep
//! feeds a subscriber every cycle's input and the reference's frame. The engine knows nothing
//! of what is observed (functional coverage is one subscriber, in the crate `ptxfma-cosim-checks`); the
//! caller takes its subscriber back from the outcome and reads its own type out of it.

use std::any::Any;
use std::fmt::Debug;

use ptxfma_model::machine::pipeline::PipeIn;

/// A watcher of one stream, cycle after cycle from reset.
pub trait Subscriber: Any + Debug + Send {
    /// One cycle: its input and the reference's frame after it.
    fn feed(&mut self, inp: &PipeIn, frame: &[u32]);

    /// The subscriber as `Any`, for its owner to read its type back.
    fn as_any(&self) -> &dyn Any;
}

/// Makes one subscriber per stream ([`crate::lockstep::Config::subscribe`]).
pub type NewSubscriber = fn() -> Box<dyn Subscriber>;

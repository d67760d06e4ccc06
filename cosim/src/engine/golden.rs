//! The reference side of the lockstep: what the RTL is compared against.
//!
//! Normally the golden model ([`ModelGolden`]). A second RTL variant ([`RtlGolden`]) can take
//! its place: comparing two RTL builds with each other (e.g. a fault-injected build against the
//! clean one) checks the co-simulator's own machinery independently of the model: the fault
//! tests judge the lockstep, the report and the waveform against a reference whose answers do
//! not come from the model.

use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};

use crate::engine::assemble::Assembler;

use crate::engine::frame;
use crate::engine::rtl::Rtl;
use crate::Error;

/// A cycle-accurate reference that produces one frame per cycle.
pub trait Golden: Send {
    /// Human-readable name for reports (`model`, `rtl:default`).
    fn name(&self) -> String;
    /// Back to the reset state (every bank zero).
    fn reset(&mut self) -> Result<(), Error>;
    /// One cycle per input; writes one frame (`frame::WORDS` words) per cycle.
    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error>;
    /// A new instance in the reset state, for replays.
    fn fresh(&self) -> Result<Box<dyn Golden>, Error>;
    /// Whether its frames are the golden model's: functional coverage is sampled from those
    /// (another RTL as the reference is not sampled).
    fn is_model(&self) -> bool {
        false
    }
}

/// The golden model: frames assembled from per-operation banks, computed by the lane engine
/// where it can ([`Assembler`]), on the backend `PTXFMA_LANES` selects (the fastest this CPU
/// runs by default).
pub struct ModelGolden {
    a: Assembler,
}

impl Default for ModelGolden {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelGolden {
    pub fn new() -> Self {
        Self::on(Backend::selected())
    }

    /// On `backend`, whatever `PTXFMA_LANES` says (the tests run every backend this CPU runs).
    ///
    /// # Panics
    /// If this CPU cannot run `backend`.
    pub fn on(backend: Backend) -> Self {
        ModelGolden {
            a: Assembler::new(backend),
        }
    }
}

impl Golden for ModelGolden {
    fn name(&self) -> String {
        "model".into()
    }

    fn reset(&mut self) -> Result<(), Error> {
        self.a.reset();
        Ok(())
    }

    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        self.a.run(inputs, frames);
        Ok(())
    }

    fn fresh(&self) -> Result<Box<dyn Golden>, Error> {
        Ok(Box::new(ModelGolden::on(self.a.backend())))
    }

    fn is_model(&self) -> bool {
        true
    }
}

/// The golden model ticked once per cycle, its banks packed after each tick: the definition
/// [`ModelGolden`]'s frames are tested against.
#[derive(Default)]
pub struct TickGolden {
    p: Pipeline,
}

impl TickGolden {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Golden for TickGolden {
    fn name(&self) -> String {
        "model".into()
    }

    fn reset(&mut self) -> Result<(), Error> {
        self.p.reset();
        Ok(())
    }

    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        for (inp, f) in inputs.iter().zip(frames.chunks_exact_mut(frame::WORDS)) {
            let out = self.p.tick(inp);
            frame::write_model(&self.p, &out, f);
        }
        Ok(())
    }

    fn fresh(&self) -> Result<Box<dyn Golden>, Error> {
        Ok(Box::new(TickGolden::new()))
    }

    fn is_model(&self) -> bool {
        true
    }
}

/// Another RTL variant as the reference.
pub struct RtlGolden {
    rtl: Rtl,
}

impl RtlGolden {
    pub fn new(variant: &str) -> Result<Self, Error> {
        Ok(RtlGolden {
            rtl: Rtl::new(variant, false)?,
        })
    }
}

impl Golden for RtlGolden {
    fn name(&self) -> String {
        format!("rtl:{}", self.rtl.variant())
    }

    fn reset(&mut self) -> Result<(), Error> {
        self.rtl.reset()
    }

    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        self.rtl.run(inputs, frames)
    }

    fn fresh(&self) -> Result<Box<dyn Golden>, Error> {
        Ok(Box::new(RtlGolden::new(self.rtl.variant())?))
    }
}

/// Parses `--golden`: `model`, or `rtl:<variant>`.
pub fn from_spec(spec: &str) -> Result<Box<dyn Golden>, Error> {
    match spec {
        "model" => Ok(Box::new(ModelGolden::new())),
        _ => match spec.strip_prefix("rtl:") {
            Some(v) => Ok(Box::new(RtlGolden::new(v)?)),
            None => Err(Error::new(format!(
                "--golden `{spec}`: expected `model` or `rtl:<variant>`"
            ))),
        },
    }
}

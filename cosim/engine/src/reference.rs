//! The reference side of the lockstep: what the RTL is compared against.
//!
//! Normally the golden model ([`ModelReference`]). A second RTL variant ([`RtlReference`]) can take
//! its place: comparing two RTL builds with each other (e.g. a fault-injected build against the
//! clean one) checks the co-simulator's own machinery independently of the model: the fault
//! tests judge the lockstep, the report and the waveform against a reference whose answers do
//! not come from the model.
//!
//! The same role one level down is the model's own `reference/`: the independent oracles the
//! model is judged against, as the model is the reference the RTL is judged against here.

use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};

use crate::assemble::Assembler;

use crate::frame;
use crate::rtl::Rtl;
use crate::Error;

/// A cycle-accurate reference that produces one frame per cycle.
pub trait Reference: Send {
    /// Human-readable name for reports (`model`, `rtl:default`).
    fn name(&self) -> String;
    /// Back to the reset state (every bank zero).
    fn reset(&mut self) -> Result<(), Error>;
    /// One cycle per input; writes one frame (`frame::WORDS` words) per cycle.
    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error>;
    /// A new instance in the reset state, for replays.
    fn fresh(&self) -> Result<Box<dyn Reference>, Error>;
    /// Whether its frames are the golden model's: functional coverage is sampled from those
    /// (another RTL as the reference is not sampled).
    fn is_model(&self) -> bool {
        false
    }
}

/// The golden model: frames assembled from per-operation banks, computed by the lane engine
/// where it can ([`Assembler`]), on the backend `PTXFMA_LANES` selects (the fastest this CPU
/// runs by default).
pub struct ModelReference {
    a: Assembler,
}

impl Default for ModelReference {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelReference {
    pub fn new() -> Self {
        Self::on(Backend::selected())
    }

    /// On `backend`, whatever `PTXFMA_LANES` says (the tests run every backend this CPU runs).
    ///
    /// # Panics
    /// If this CPU cannot run `backend`.
    pub fn on(backend: Backend) -> Self {
        ModelReference {
            a: Assembler::new(backend),
        }
    }
}

impl Reference for ModelReference {
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

    fn fresh(&self) -> Result<Box<dyn Reference>, Error> {
        Ok(Box::new(ModelReference::on(self.a.backend())))
    }

    fn is_model(&self) -> bool {
        true
    }
}

/// The golden model ticked once per cycle, its banks packed after each tick: the definition
/// [`ModelReference`]'s frames are tested against.
#[derive(Default)]
pub struct TickReference {
    p: Pipeline,
}

impl TickReference {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Reference for TickReference {
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

    fn fresh(&self) -> Result<Box<dyn Reference>, Error> {
        Ok(Box::new(TickReference::new()))
    }

    fn is_model(&self) -> bool {
        true
    }
}

/// Another RTL variant as the reference.
pub struct RtlReference {
    rtl: Rtl,
}

impl RtlReference {
    pub fn new(variant: &str) -> Result<Self, Error> {
        Ok(RtlReference {
            rtl: Rtl::new(variant, false)?,
        })
    }
}

impl Reference for RtlReference {
    fn name(&self) -> String {
        format!("rtl:{}", self.rtl.variant())
    }

    fn reset(&mut self) -> Result<(), Error> {
        self.rtl.reset()
    }

    fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> Result<(), Error> {
        self.rtl.run(inputs, frames)
    }

    fn fresh(&self) -> Result<Box<dyn Reference>, Error> {
        Ok(Box::new(RtlReference::new(self.rtl.variant())?))
    }
}

/// Parses `--golden`: `model`, or `rtl:<variant>`.
pub fn from_spec(spec: &str) -> Result<Box<dyn Reference>, Error> {
    match spec {
        "model" => Ok(Box::new(ModelReference::new())),
        _ => match spec.strip_prefix("rtl:") {
            Some(v) => Ok(Box::new(RtlReference::new(v)?)),
            None => Err(Error::new(format!(
                "--golden `{spec}`: expected `model` or `rtl:<variant>`"
            ))),
        },
    }
}

/// The lane engine's frames, assembled from per-operation banks, against the pipeline ticked
/// cycle by cycle: the two ways this module's references compute must agree word for word.
#[cfg(test)]
mod assembled_equals_ticked {
    use super::{Reference, TickReference};
    use crate::assemble::{Assembler, CTRL_MASK};
    use crate::frame::{self, WORDS};
    use crate::stream::{Families, Stream};
    use ptxfma_model::machine::lanes::Backend;
    use ptxfma_model::machine::pipeline::PipeIn;

    /// Frames of `inputs` in batches of `batch` from a reference and from the assembler.
    fn both(backend: Backend, inputs: &[PipeIn], batch: usize) -> (Vec<u32>, Vec<u32>, u64) {
        let mut tick = TickReference::new();
        let mut asm = Assembler::new(backend);
        let (mut want, mut got) = (vec![0; inputs.len() * WORDS], vec![0; inputs.len() * WORDS]);
        for (k, chunk) in inputs.chunks(batch).enumerate() {
            let at = k * batch * WORDS..(k * batch + chunk.len()) * WORDS;
            tick.run(chunk, &mut want[at.clone()]).unwrap();
            // Stale words must be overwritten.
            got[at.clone()].fill(0xA5A5_A5A5);
            asm.run(chunk, &mut got[at]);
        }
        (want, got, asm.laned())
    }

    fn assert_same(want: &[u32], got: &[u32], inputs: &[PipeIn], what: &str) {
        if let Some(t) =
            (0..inputs.len()).find(|&t| want[t * WORDS..][..WORDS] != got[t * WORDS..][..WORDS])
        {
            let banks =
                frame::differing_banks(&want[t * WORDS..][..WORDS], &got[t * WORDS..][..WORDS]);
            panic!(
                "{what}: cycle {t} differs in {banks:?}; input {:?}",
                inputs[t]
            );
        }
    }

    /// A stream of every family, with resets placed 0 to 12 cycles apart and close to the
    /// batch boundaries, besides the stream's own bubbles, bursts and resets.
    fn mixed(seed: u64, ops: u64) -> Vec<PipeIn> {
        let mut v: Vec<PipeIn> = Stream::new(seed, &Families::all(), ops).inputs().collect();
        let mut at = 100;
        for gap in 0..13 {
            for k in 0..3 {
                let i = at + k * (gap + 1);
                if i < v.len() {
                    v[i] = PipeIn {
                        reset: true,
                        valid: gap % 2 == 0,
                        ..v[i]
                    };
                }
            }
            at += 97 + 3 * gap;
        }
        v
    }

    /// Every backend this CPU runs, the scalar one included; the others are named as skipped
    /// (the test log shows which backends another machine must cover).
    fn backends() -> Vec<Backend> {
        let (b, skipped): (Vec<Backend>, Vec<Backend>) =
            Backend::ALL.into_iter().partition(|b| b.runs_here());
        assert!(b.contains(&Backend::Scalar) && b.contains(&Backend::Portable));
        for backend in skipped {
            eprintln!("SKIPPED: the {backend} lane backend (this CPU cannot run it)");
        }
        b
    }

    /// A run may hold more distinct control words than any fixed table: one per input here,
    /// valid words of every kind (legal or not) and bubbles, in one batch.
    #[test]
    fn a_batch_of_thousands_of_distinct_words_equals_ticking() {
        let mut rng = ptxfma_model::stimulus::Rng::new(5);
        let inputs: Vec<PipeIn> = (0..6_000u32)
            .map(|i| PipeIn {
                valid: i % 11 != 0,
                tag: i as u16,
                ctrl: (i.wrapping_mul(0x9E37_79B9) >> 5) & CTRL_MASK,
                a: rng.next_u64(),
                b: rng.next_u64(),
                c: rng.next_u64(),
                reset: false,
            })
            .collect();
        let words: std::collections::HashSet<u32> = inputs.iter().map(|p| p.ctrl).collect();
        assert_eq!(words.len(), inputs.len());
        for backend in backends() {
            let (want, got, _) = both(backend, &inputs, inputs.len());
            assert_same(&want, &got, &inputs, &format!("{backend}"));
        }
    }

    #[test]
    fn frames_equal_ticking_on_every_backend_with_resets_and_bubbles() {
        let inputs = mixed(11, 30_000);
        assert!(inputs.iter().filter(|p| p.reset).count() >= 30);
        assert!(inputs.iter().filter(|p| !p.valid).count() > 1000);
        for backend in backends() {
            for batch in [512, 1, 5, 7, 64, 4096] {
                let (want, got, _) = both(backend, &inputs, batch);
                assert_same(&want, &got, &inputs, &format!("{backend}, batch {batch}"));
            }
        }
    }

    #[test]
    fn one_family_streams_go_through_the_lanes_and_equal_ticking() {
        for family in ptxfma_model::stimulus::Family::ALL {
            let inputs: Vec<PipeIn> = Stream::new(3, &Families::one(family), 6_000)
                .inputs()
                .collect();
            for backend in backends() {
                let (want, got, laned) = both(backend, &inputs, 512);
                assert_same(
                    &want,
                    &got,
                    &inputs,
                    &format!("{}, {backend}", family.name()),
                );
                // Every kind but vmad has a lane form; the half kinds' via_f32 words do not.
                let share = laned as f64 / 6_000.0;
                let floor = match family {
                    _ if backend == Backend::Scalar => 0.0,
                    ptxfma_model::stimulus::Family::Vmad => 0.0,
                    ptxfma_model::stimulus::Family::F64 | ptxfma_model::stimulus::Family::Sm1x => {
                        0.9
                    }
                    _ => 0.3,
                };
                assert!(
                    share >= floor && (backend.is_lanes() || laned == 0),
                    "{}, {backend}: {share:.2} of the operations through the lanes",
                    family.name()
                );
            }
        }
    }
}

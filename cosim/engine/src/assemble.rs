//! The model's frames of a batch, assembled from per-operation banks.
//!
//! The pipe has no stalls and every flop loads every cycle, so between resets cycle t's frame
//! is input t's `s1`, input t-1's `s2`, input t-2's `s3` and input t-3's `out`
//! ([`OpBanks`]): a skewed view of banks that can be computed per operation, in any order.
//! The inputs that issue are grouped by control word and their banks computed sixteen at a
//! time by the lane engine, already packed ([`Engine::images_of`]); bubbles (whose control bits are random),
//! words without a lane form (vmad, the `via_f32` words), words with no PTX spelling and groups
//! too small to pay go through the scalar stages ([`OpBanks::load`]). Each operation's banks
//! are packed straight into the frames of the four cycles that show them.
//!
//! What the skew cannot give is ticked: the first [`LEAD`] cycles after the batch's start or
//! a reset (their later banks belong to inputs before it) and the reset cycle itself. The
//! scalar pipeline ([`Pipeline`]) carries the banks across batches and resets; at the end of
//! a run of inputs it is set to the banks the assembly computed, where `tick` would leave it.
//! The frames equal, word for word, those of ticking the pipeline once per input and packing
//! its banks ([`frame::write_model`]), which the tests hold this to on every lane backend.

use ptxfma_model::ctrl::legal::is_legal;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::batch::{Engine, Images, N};
use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{lanes, OpBanks, PipeIn, Pipeline, LATENCY};
use ptxfma_model::regs::Out;
use rustc_hash::FxHashMap;

use crate::frame::{self, Bank, WORDS};

/// Cycles after a batch's start or a reset whose frames hold banks of earlier inputs.
pub const LEAD: usize = LATENCY - 1;

/// Fewest operations of one control word that go through the lane engine together: a group of
/// sixteen lanes costs about as much as ten operations through the scalar stages, whatever its
/// fill (callgrind, AVX2 backend, `run --filter all`: the reference's instructions per
/// operation are 2,957 with 3, 1,921 with 8 and 1,899 with 12; 8 leaves room for the faster
/// AVX-512 backend).
const MIN_GROUP: usize = 8;

/// Control word bits (`CTRL_BITS`).
pub(crate) const CTRL_MASK: u32 = (1 << ptxfma_model::ctrl::CTRL_BITS) - 1;

/// The operations of one control word in the run being assembled.
struct Bucket {
    word: u32,
    ctrl: Ctrl,
    /// Whether the lane engine takes the word: it has a lane form and a PTX spelling.
    laned: bool,
    /// Indices of its inputs in the run.
    ops: Vec<u32>,
}

/// Buckets by control word, reused from run to run (the list keeps each bucket's `ops` storage):
/// a run may hold any number of distinct words, up to one per input.
struct Buckets {
    list: Vec<Bucket>,
    /// Buckets in use in this run.
    used: usize,
    /// Each word's bucket in `list`.
    index: FxHashMap<u32, u32>,
}

impl Buckets {
    fn new() -> Buckets {
        Buckets {
            list: Vec::new(),
            used: 0,
            index: FxHashMap::default(),
        }
    }

    fn clear(&mut self) {
        self.used = 0;
        self.index.clear();
    }

    /// The bucket of `word`, made on first sight in this run.
    #[inline]
    fn of(&mut self, word: u32, engine: bool) -> &mut Bucket {
        let b = *self.index.entry(word).or_insert_with(|| {
            let b = self.used;
            self.used += 1;
            let ctrl = Ctrl::decode(word);
            let laned = engine && ptxfma_model::machine::batch::supported(&ctrl) && is_legal(&ctrl);
            if b == self.list.len() {
                self.list.push(Bucket {
                    word,
                    ctrl,
                    laned,
                    ops: Vec::new(),
                });
            } else {
                let k = &mut self.list[b];
                (k.word, k.ctrl, k.laned) = (word, ctrl, laned);
                k.ops.clear();
            }
            b as u32
        });
        &mut self.list[b as usize]
    }
}

/// The model as the lockstep's reference: the scalar pipeline for what must be ticked, the lane
/// engine (when this CPU runs one) for the rest.
pub struct Assembler {
    pipe: Pipeline,
    engine: Option<Engine>,
    buckets: Buckets,
    /// Inputs of a run that go through the scalar stages one by one.
    singles: Vec<u32>,
    group: [PipeIn; N],
    /// A laned group's packed banks.
    images: Box<Images>,
    /// Banks of operations through the scalar stages, one at a time.
    banks: Box<OpBanks>,
    /// Operations whose banks came from the lane engine, since this assembler was made.
    laned: u64,
}

impl Assembler {
    /// On `backend` (`Backend::Scalar`: no lane engine, every operation through the scalar
    /// stages).
    ///
    /// # Panics
    /// If this CPU cannot run `backend`.
    pub fn new(backend: Backend) -> Assembler {
        Assembler {
            pipe: Pipeline::new(),
            engine: Engine::new(backend),
            buckets: Buckets::new(),
            singles: Vec::new(),
            group: [PipeIn::default(); N],
            images: Box::default(),
            banks: Box::default(),
            laned: 0,
        }
    }

    pub fn backend(&self) -> Backend {
        self.engine.map_or(Backend::Scalar, |e| e.backend())
    }

    /// Operations whose banks came from the lane engine so far (the tests check it ran).
    pub fn laned(&self) -> u64 {
        self.laned
    }

    /// Back to the reset state.
    pub fn reset(&mut self) {
        self.pipe.reset();
    }

    /// One frame per input, as ticking the pipeline once per input would write them.
    pub fn run(&mut self, inputs: &[PipeIn], frames: &mut [u32]) {
        assert_eq!(frames.len(), inputs.len() * WORDS, "one frame per input");
        let mut from = 0;
        while from < inputs.len() {
            from += self.up_to_reset(&inputs[from..], &mut frames[from * WORDS..]);
        }
    }

    /// Cycle `t`'s input ticked and its frame written from the pipeline.
    fn tick(&mut self, input: &PipeIn, frame: &mut [u32]) {
        let out = self.pipe.tick(input);
        frame::write_model(&self.pipe, &out, frame);
    }

    /// The inputs up to and including the first reset (or to the end); returns how many.
    fn up_to_reset(&mut self, inputs: &[PipeIn], frames: &mut [u32]) -> usize {
        let end = inputs.iter().position(|i| i.reset).unwrap_or(inputs.len());
        let taken = (end + 1).min(inputs.len());
        if end <= 2 * LEAD {
            // Too short to assemble: every cycle ticked, the reset included.
            for (t, input) in inputs[..taken].iter().enumerate() {
                self.tick(input, &mut frames[t * WORDS..][..WORDS]);
            }
            return taken;
        }
        for (t, input) in inputs[..LEAD].iter().enumerate() {
            self.tick(input, &mut frames[t * WORDS..][..WORDS]);
        }
        self.assemble(&inputs[..end], &mut frames[..end * WORDS]);
        if end < inputs.len() {
            self.tick(&inputs[end], &mut frames[end * WORDS..][..WORDS]);
        }
        taken
    }

    /// Frames `LEAD..inputs.len()` from the banks of every input (none a reset), and the
    /// pipeline left where the last input's cycle leaves it.
    fn assemble(&mut self, inputs: &[PipeIn], frames: &mut [u32]) {
        let engine = self.engine;
        self.buckets.clear();
        self.singles.clear();
        for (i, input) in inputs.iter().enumerate() {
            if input.valid {
                self.buckets
                    .of(input.ctrl & CTRL_MASK, engine.is_some())
                    .ops
                    .push(i as u32);
            } else {
                self.singles.push(i as u32);
            }
        }
        let mut sink = Sink {
            inputs,
            frames,
            end: inputs.len(),
            pipe: &mut self.pipe,
        };
        for b in 0..self.buckets.used {
            let bucket = &self.buckets.list[b];
            let mut ops: &[u32] = &bucket.ops;
            if let (true, Some(engine)) = (bucket.laned, engine) {
                while ops.len() >= MIN_GROUP {
                    let take = ops.len().min(N);
                    for (k, slot) in self.group.iter_mut().enumerate() {
                        // A short group repeats its first input in the lanes it does not use.
                        *slot = inputs[ops[if k < take { k } else { 0 }] as usize];
                    }
                    let laned = engine.images_of(&bucket.ctrl, &self.group, &mut self.images);
                    debug_assert!(laned, "the lane engine refused a word it supports");
                    for (k, &i) in ops[..take].iter().enumerate() {
                        let i = i as usize;
                        sink.put_images(i, &self.images, k);
                        if sink.ends_pipe(i) {
                            // The pipeline's banks after the run are structs: these few
                            // through the scalar stages.
                            self.banks.load(&inputs[i]);
                            sink.leave(i, &self.banks);
                        }
                    }
                    self.laned += take as u64;
                    ops = &ops[take..];
                }
            }
            for &i in ops {
                let banks = &mut self.banks;
                banks.load(&inputs[i as usize]);
                sink.put(i as usize, &bucket.ctrl, banks);
            }
        }
        for &i in &self.singles {
            let input = &inputs[i as usize];
            let banks = &mut self.banks;
            banks.load(input);
            sink.put(i as usize, &Ctrl::decode(input.ctrl & CTRL_MASK), banks);
        }
    }
}

/// Where one operation's banks go: the frames of the four cycles that show them, and the
/// pipeline's banks after the run's last cycle (those of its last four inputs).
struct Sink<'a> {
    inputs: &'a [PipeIn],
    frames: &'a mut [u32],
    /// Inputs in the run.
    end: usize,
    pipe: &'a mut Pipeline,
}

/// Words of `bank` in cycle `t`'s frame.
#[inline(always)]
fn at(t: usize, bank: Bank) -> std::ops::Range<usize> {
    let r = bank.range();
    t * WORDS + r.start..t * WORDS + r.end
}

impl Sink<'_> {
    /// Whether cycle `t`'s frame is assembled (not ticked) in this run.
    #[inline(always)]
    fn shown(&self, t: usize) -> bool {
        (LEAD..self.end).contains(&t)
    }

    /// Whether input `i`'s banks are among those the pipeline holds after the run.
    #[inline(always)]
    fn ends_pipe(&self, i: usize) -> bool {
        self.end - i <= LATENCY
    }

    /// Input `i`'s banks, packed as operation `k` of a laned group's images: each bank's
    /// words copied into its frame, and the ports from `out`'s fields. The pipeline's banks
    /// are left to [`Sink::leave`].
    #[inline]
    fn put_images(&mut self, i: usize, images: &Images, k: usize) {
        if self.shown(i) {
            self.frames[at(i, Bank::S1)].copy_from_slice(&images.s1[k]);
        }
        if self.shown(i + 1) {
            self.frames[at(i + 1, Bank::S2)].copy_from_slice(&images.s2[k]);
        }
        if self.shown(i + 2) {
            self.frames[at(i + 2, Bank::S3)].copy_from_slice(&images.s3[k]);
        }
        if self.shown(i + 3) {
            let t = i + 3;
            self.frames[at(t, Bank::Out)].copy_from_slice(&images.out[k]);
            let x = &self.inputs[i];
            let out = Out {
                valid: x.valid,
                tag: x.tag,
                d: images.d[k],
            };
            frame::write_ports(&out, &mut self.frames[at(t, Bank::Ports)]);
        }
    }

    /// Input `i`'s banks (`ctrl` decoded from its word).
    #[inline]
    fn put(&mut self, i: usize, ctrl: &Ctrl, b: &OpBanks) {
        let en = lanes(ctrl);
        let shown = |t: usize| (LEAD..self.end).contains(&t);
        if shown(i) {
            frame::pack_bank(&b.s1, en, &mut self.frames[at(i, Bank::S1)]);
        }
        if shown(i + 1) {
            frame::pack_bank(&b.s2, en, &mut self.frames[at(i + 1, Bank::S2)]);
        }
        if shown(i + 2) {
            frame::pack_bank(&b.s3, en, &mut self.frames[at(i + 2, Bank::S3)]);
        }
        if shown(i + 3) {
            let f = &mut self.frames[(i + 3) * WORDS..][..WORDS];
            frame::write_out(&b.out, f);
        }
        self.leave(i, b);
    }

    /// The banks of input `i` that the pipeline holds after the run's last cycle: its input's
    /// s1, the one before's s2, and so on.
    #[inline]
    fn leave(&mut self, i: usize, b: &OpBanks) {
        match self.end - i {
            1 => self.pipe.s1.clone_from(&b.s1),
            2 => self.pipe.s2.clone_from(&b.s2),
            3 => self.pipe.s3.clone_from(&b.s3),
            4 => self.pipe.out.clone_from(&b.out),
            _ => {}
        }
    }
}

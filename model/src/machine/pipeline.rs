//! The pipeline: four register banks and the pure functions between them.

use crate::ctrl::{Ctrl, Kind, CTRL_BITS};
use crate::machine::batch;
use crate::machine::lane;
use crate::machine::lanes::Backend;
use crate::parts::unpack::lane_operands;
use crate::parts::vmad_select::part_select;
use crate::parts::{adder, booth, csa_tree, round, vmad};
use crate::regs::{Out, S1Lane, S1Vmad, S2Lane, S3Lane, S1, S2, S3};

// The input ports live in `pipe_in`, below the lane engine too; named here as well, where every
// caller of the pipe finds them.
pub use crate::machine::pipe_in::PipeIn;

/// Cycles from an input being presented to its result appearing in `out`.
pub const LATENCY: usize = 4;

/// The four register banks. All flops load every cycle; reset clears them to zero.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    pub s1: S1,
    pub s2: S2,
    pub s3: S3,
    pub out: Out,
    /// Decoded control words of `s1`, `s2`, `s3` (not state: a memo of `Ctrl::decode`).
    dec: [Decoded; 3],
}

/// A control word and its decoding. The stages decode their register's word; in a stream the
/// same word usually repeats, so [`Decoded::get`] re-decodes only when the word changed (which
/// also covers a caller writing a bank directly).
#[derive(Clone, Copy, Debug)]
struct Decoded {
    word: u32,
    ctrl: Ctrl,
}

impl Default for Decoded {
    fn default() -> Self {
        Decoded {
            word: 0,
            ctrl: Ctrl::decode(0),
        }
    }
}

impl Decoded {
    #[inline(always)]
    fn get(&mut self, word: u32) -> Ctrl {
        if word != self.word {
            *self = Decoded {
                word,
                ctrl: Ctrl::decode(word),
            };
        }
        self.ctrl
    }
}

/// Evaluates `$body` with `$c` a copy of `$ctrl` whose `kind` is a constant in each arm, so
/// every stage is compiled once per kind with the other kinds' logic folded away (the stage
/// functions and the parts they call are all inlined). The value is the same in every arm.
macro_rules! by_kind {
    ($ctrl:expr, |$c:ident| $body:expr) => {{
        let ctrl: Ctrl = $ctrl;
        match ctrl.kind {
            Kind::F32 => {
                let $c = Ctrl {
                    kind: Kind::F32,
                    ..ctrl
                };
                $body
            }
            Kind::F64 => {
                let $c = Ctrl {
                    kind: Kind::F64,
                    ..ctrl
                };
                $body
            }
            Kind::F32x2 => {
                let $c = Ctrl {
                    kind: Kind::F32x2,
                    ..ctrl
                };
                $body
            }
            Kind::Sm1x => {
                let $c = Ctrl {
                    kind: Kind::Sm1x,
                    ..ctrl
                };
                $body
            }
            Kind::Vmad => {
                let $c = Ctrl {
                    kind: Kind::Vmad,
                    ..ctrl
                };
                $body
            }
            Kind::Half => {
                let $c = Ctrl {
                    kind: Kind::Half,
                    ..ctrl
                };
                $body
            }
            Kind::Half2 => {
                let $c = Ctrl {
                    kind: Kind::Half2,
                    ..ctrl
                };
                $body
            }
        }
    }};
}

impl Pipeline {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// One rising clock edge: every bank loads its next value. Returns the output bank after
    /// the edge (what retires this cycle when `valid` is set).
    pub fn tick(&mut self, inp: &PipeIn) -> Out {
        if inp.reset {
            self.reset();
            return self.out.clone();
        }
        let c3 = self.dec[2].get(self.s3.ctrl);
        self.out = by_kind!(c3, |c| stage4_with(&self.s3, &c));
        let c2 = self.dec[1].get(self.s2.ctrl);
        by_kind!(c2, |c| stage3_into(&self.s2, &c, &mut self.s3));
        let c1 = self.dec[0].get(self.s1.ctrl);
        by_kind!(c1, |c| stage2_into(&self.s1, &c, &mut self.s2));
        // The memo moves with the banks; slot 0 keeps its entry as a guess for the new word.
        self.dec = [self.dec[0], self.dec[0], self.dec[1]];
        let c0 = self.dec[0].get(inp.ctrl & CTRL_MASK);
        by_kind!(c0, |c| stage1_into(inp, &c, &mut self.s1));
        self.out.clone()
    }

    /// Ticks once per input and writes what retires each cycle to `out`: the same outputs,
    /// and the same banks at the end, as calling [`Pipeline::tick`] per input.
    ///
    /// The output of cycle t >= 3 is input t-3's result, a pure function of that input, so the
    /// inputs between the first and last three need not pass through the banks one cycle at a
    /// time: runs of [`LANES`] inputs that share a control word of a kind with a lane-parallel
    /// form (every float kind) go through the lane engine (`batch`) side by side, the rest
    /// through the scalar stages. The first three outputs come from the banks as they were, and
    /// the last three inputs are ticked in so the banks end where `tick` would leave them. A
    /// reset input breaks the t-3 rule, so the inputs on either side of one are run apart.
    ///
    /// The lane engine runs on [`Backend::selected`]: the fastest backend this CPU runs, or the
    /// one `PTXFMA_LANES` names. [`Pipeline::run_on`] takes the backend as an argument.
    ///
    /// Returns how many inputs the lane engine evaluated (the rest went through the scalar
    /// stages), so callers and tests can tell that it ran.
    ///
    /// # Panics
    /// If `out` is not as long as `inputs`, or `PTXFMA_LANES` is bad (see
    /// [`Backend::selected`]).
    pub fn run(&mut self, inputs: &[PipeIn], out: &mut [Out]) -> usize {
        self.run_on(Backend::selected(), inputs, out)
    }

    /// [`Pipeline::run`] with the lane engine on `backend` (`Backend::Scalar`: none), whatever
    /// `PTXFMA_LANES` says: the tests and the bench run every backend this CPU runs this way.
    ///
    /// # Panics
    /// If `out` is not as long as `inputs`, or this CPU cannot run `backend`.
    pub fn run_on(&mut self, backend: Backend, inputs: &[PipeIn], out: &mut [Out]) -> usize {
        assert_eq!(inputs.len(), out.len(), "one output slot per input");
        let engine = batch::Engine::new(backend);
        let mut dec = Decoded::default();
        let (mut laned, mut from) = (0, 0);
        while from < inputs.len() {
            from += self.run_to_reset(
                engine.as_ref(),
                &mut dec,
                &inputs[from..],
                &mut out[from..],
                &mut laned,
            );
        }
        laned
    }

    /// `run_on` up to and including the first reset in `inputs` (or to the end), returning how
    /// many inputs it took. A reset breaks the rule that output t is input t-3's result, so the
    /// inputs on either side of one are run apart. Where the next reset is, is found on the way,
    /// in the inputs each step reads anyway: a pass of its own over the block first cost 5-8%
    /// of `run`.
    fn run_to_reset(
        &mut self,
        engine: Option<&batch::Engine>,
        dec: &mut Decoded,
        inputs: &[PipeIn],
        out: &mut [Out],
        laned: &mut usize,
    ) -> usize {
        let lead = LATENCY - 1;
        let no_reset = |w: &[PipeIn]| w.iter().all(|i| !i.reset);
        let head = &inputs[..inputs.len().min(lead + LANES)];
        let first_reset = head.iter().position(|i| i.reset);
        if first_reset.is_some() || head.len() < lead + LANES {
            // Too few inputs before a reset (or the end) to be worth the lanes: `tick` them, the
            // reset included.
            let end = first_reset.map_or(head.len(), |r| r + 1);
            for (o, i) in out[..end].iter_mut().zip(inputs) {
                *o = self.tick(i);
            }
            return end;
        }
        for t in 0..lead {
            out[t] = self.tick(&inputs[t]);
        }
        // Input j's result is output j + lead where no reset comes before that output. Inputs
        // before j + lead hold none: the step before looked.
        let mut j = 0;
        loop {
            let word = inputs[j].ctrl & CTRL_MASK;
            let ctrl = dec.get(word);
            let group = inputs
                .get(j..j + LANES + lead)
                .filter(|w| {
                    w[..LANES]
                        .iter()
                        .all(|x| x.ctrl & CTRL_MASK == word && !x.reset)
                        && no_reset(&w[LANES..])
                })
                .and_then(|w| Some((&w[..LANES], lane_results(engine?, &ctrl, &w[..LANES])?)));
            if let Some((g, d)) = group {
                let dst = &mut out[j + lead..j + lead + LANES];
                for ((o, x), d) in dst.iter_mut().zip(g).zip(d) {
                    *o = Out {
                        valid: x.valid,
                        tag: x.tag,
                        d,
                    };
                }
                j += LANES;
                *laned += LANES;
            } else if inputs.get(j..=j + lead).is_some_and(no_reset) {
                let x = &inputs[j];
                out[j + lead] = by_kind!(ctrl, |c| {
                    let (mut s1, mut s2, mut s3) = (S1::default(), S2::default(), S3::default());
                    stage1_into(x, &c, &mut s1);
                    stage2_into(&s1, &c, &mut s2);
                    stage3_into(&s2, &c, &mut s3);
                    stage4_with(&s3, &c)
                });
                j += 1;
            } else {
                break;
            }
        }
        // Input j + lead is a reset or past the end. The `lead` inputs before it are ticked in
        // (j >= LANES >= lead, so none twice), leaving the banks where `tick` would; their
        // outputs are the results above.
        for i in &inputs[j..j + lead] {
            self.tick(i);
        }
        self.out = out[j + lead - 1].clone();
        match inputs.get(j + lead) {
            Some(reset) => {
                out[j + lead] = self.tick(reset);
                j + lead + 1
            }
            None => j + lead,
        }
    }
}

/// Whether `Pipeline::run` uses a lane engine: where the CPU has AVX2 or AVX-512, unless
/// `PTXFMA_LANES=scalar`; elsewhere only with `PTXFMA_LANES=portable` (see
/// [`Backend::best`] for why). The tests run every lane backend this CPU runs through
/// [`Pipeline::run_on`], whatever this says.
pub fn lanes_available() -> bool {
    Backend::selected().is_lanes()
}

/// Operations the lane engine takes at once: `run` sends it this many consecutive inputs that
/// share a control word.
pub const LANES: usize = batch::N;

/// The results of `LANES` inputs of one control word through the lane engine, where it has a
/// form for the kind (see `batch::Engine::results`).
#[inline]
fn lane_results(engine: &batch::Engine, ctrl: &Ctrl, g: &[PipeIn]) -> Option<[u64; LANES]> {
    if !batch::supported(ctrl) {
        return None;
    }
    engine.results_of(ctrl, g.try_into().ok()?)
}

/// Which register banks carry live data for a kind: the RTL's `ptxfma_pkg::lane_en_t`, field
/// for field. Unused banks load zero, as clock-gated flops would, so both sides of a
/// comparison agree on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneEn {
    /// Float lane 0 (every kind but vmad).
    pub lane0: bool,
    /// Float lane 1 (f32x2 and the two-lane half kind only).
    pub lane1: bool,
    /// The vmad side path.
    pub vm: bool,
}

/// The live banks of a kind (the RTL's `ptxfma_pkg::lane_enables`).
pub fn lanes(ctrl: &Ctrl) -> LaneEn {
    let vm = ctrl.kind == Kind::Vmad;
    LaneEn {
        lane0: !vm,
        lane1: matches!(ctrl.kind, Kind::F32x2 | Kind::Half2),
        vm,
    }
}

/// Stage 1: unpack, special cases, Booth array and carry-save tree, addend alignment.
pub fn stage1(inp: &PipeIn) -> S1 {
    let mut s = S1::default();
    stage1_into(inp, &Ctrl::decode(inp.ctrl), &mut s);
    s
}

/// Mask of the control word's defined bits.
const CTRL_MASK: u32 = (1 << CTRL_BITS) - 1;

/// [`stage1`] given `Ctrl::decode(inp.ctrl)`, loading the bank `s` in place (building a new
/// bank and copying it over costs more than the stage's own logic in places). The
/// destructuring names every field, so none can keep a stale value: each is written below,
/// unused ones with zero as in [`S1::default`].
#[inline(always)]
fn stage1_into(inp: &PipeIn, ctrl: &Ctrl, s: &mut S1) {
    let ctrl = *ctrl;
    let en = lanes(&ctrl);
    let S1 {
        valid,
        tag,
        ctrl: ctrl_q,
        mul_sum,
        mul_carry,
        vm,
        lane0,
        lane1,
    } = s;
    *valid = inp.valid;
    *tag = inp.tag;
    *ctrl_q = inp.ctrl & CTRL_MASK;
    let (mcand_lo, mcand_hi, mplier) = if en.vm {
        let ta = part_select(inp.a as u32, ctrl.asel, ctrl.a_signed);
        let tb = part_select(inp.b as u32, ctrl.bsel, ctrl.b_signed);
        *vm = vmad::prepare(&ctrl, inp.c as u32);
        *lane0 = S1Lane::default();
        *lane1 = S1Lane::default();
        let m = (ta as i128 as u128) & booth::MASK;
        (m, m, (tb as u64) & MPLIER_MASK)
    } else {
        *vm = S1Vmad::default();
        let l0 = lane_operands(&ctrl, 0, inp.a, inp.b, inp.c);
        *lane0 = lane::s1_lane(&ctrl, &l0);
        let narrow = |x: u64| x >> F32_ALIGN;
        if ctrl.kind == Kind::F64 {
            *lane1 = S1Lane::default();
            (l0.a.sig as u128, l0.a.sig as u128, l0.b.sig)
        } else if en.lane1 {
            let l1 = lane_operands(&ctrl, 1, inp.a, inp.b, inp.c);
            *lane1 = lane::s1_lane(&ctrl, &l1);
            (
                narrow(l0.a.sig) as u128,
                (narrow(l1.a.sig) as u128) << X2_SHIFT,
                narrow(l1.b.sig) << X2_SHIFT | narrow(l0.b.sig),
            )
        } else {
            *lane1 = S1Lane::default();
            let m = narrow(l0.a.sig) as u128;
            (m, m, narrow(l0.b.sig))
        }
    };
    debug_assert!(en.lane0 || en.vm);
    (*mul_sum, *mul_carry) = multiply(mcand_lo, mcand_hi, mplier);
}

/// Booth array and carry-save tree. A multiplier below 2^25 (every binary32 lane alone) has
/// only 13 non-zero digits; that case gets its own copy in which the zero rows are constants,
/// and with a narrow multiplicand too it runs on one word per row (`booth::rows_narrow`).
#[inline(always)]
fn multiply(mcand_lo: u128, mcand_hi: u128, mplier: u64) -> (u128, u128) {
    if (mplier as u128 | mcand_lo) >> booth::NARROW_BITS == 0 {
        csa_tree::reduce_narrow(&booth::rows_narrow(mcand_lo as u64, mplier))
    } else if mplier >> booth::NARROW_BITS == 0 {
        csa_tree::reduce(&booth::rows_used::<{ booth::NARROW_DIGITS }>(
            mcand_lo, mcand_hi, mplier,
        ))
    } else {
        csa_tree::reduce(&booth::rows_used::<{ booth::DIGITS }>(
            mcand_lo, mcand_hi, mplier,
        ))
    }
}

/// binary32 significands sit at bits 52:29 of the internal form; the array takes them at 23:0.
const F32_ALIGN: u32 = 29;
/// f32x2 lane 1 enters the array 28 bits up (see `booth`).
const X2_SHIFT: u32 = 28;
const MPLIER_MASK: u64 = (1 << 54) - 1;

/// Stage 2: product carry-propagate add, sm_1x truncation, significand add with LZA; vmad
/// accumulate.
pub fn stage2(s1: &S1) -> S2 {
    let mut s = S2::default();
    stage2_into(s1, &Ctrl::decode(s1.ctrl), &mut s);
    s
}

/// [`stage2`] given `Ctrl::decode(s1.ctrl)`, loading the bank in place (see [`stage1_into`]).
#[inline(always)]
fn stage2_into(s1: &S1, ctrl: &Ctrl, s: &mut S2) {
    let ctrl = *ctrl;
    let en = lanes(&ctrl);
    let prod = adder::product(s1.mul_sum, s1.mul_carry);
    let S2 {
        valid,
        tag,
        ctrl: ctrl_q,
        vm_tmp,
        lane0,
        lane1,
    } = s;
    *valid = s1.valid;
    *tag = s1.tag;
    *ctrl_q = s1.ctrl;
    *vm_tmp = if en.vm {
        vmad::accumulate(prod, &s1.vm)
    } else {
        0
    };
    *lane0 = if en.lane0 {
        let p = if ctrl.kind == Kind::F64 {
            prod
        } else {
            (prod & LANE_PROD_MASK) << LANE_PROD_SHIFT
        };
        lane::s2_lane(&ctrl, p, &s1.lane0)
    } else {
        S2Lane::default()
    };
    *lane1 = if en.lane1 {
        let p = ((prod >> 56) & LANE_PROD_MASK) << LANE_PROD_SHIFT;
        lane::s2_lane(&ctrl, p, &s1.lane1)
    } else {
        S2Lane::default()
    };
}

/// A binary32 product is 48 bits; it is MSB-aligned into the 106-bit product position.
const LANE_PROD_MASK: u128 = (1 << 48) - 1;
const LANE_PROD_SHIFT: u32 = 58;

/// Stage 3: normalisation; vmad scaling.
pub fn stage3(s2: &S2) -> S3 {
    let mut s = S3::default();
    stage3_into(s2, &Ctrl::decode(s2.ctrl), &mut s);
    s
}

/// [`stage3`] given `Ctrl::decode(s2.ctrl)`, loading the bank in place (see [`stage1_into`]).
#[inline(always)]
fn stage3_into(s2: &S2, ctrl: &Ctrl, s: &mut S3) {
    let ctrl = *ctrl;
    let en = lanes(&ctrl);
    let S3 {
        valid,
        tag,
        ctrl: ctrl_q,
        vm_res,
        lane0,
        lane1,
    } = s;
    *valid = s2.valid;
    *tag = s2.tag;
    *ctrl_q = s2.ctrl;
    *vm_res = if en.vm {
        vmad::scale(&ctrl, s2.vm_tmp)
    } else {
        0
    };
    *lane0 = if en.lane0 {
        lane::s3_lane(&ctrl, &s2.lane0)
    } else {
        S3Lane::default()
    };
    *lane1 = if en.lane1 {
        lane::s3_lane(&ctrl, &s2.lane1)
    } else {
        S3Lane::default()
    };
}

/// Stage 4: rounding, flushing, special results, saturation; result packing.
pub fn stage4(s3: &S3) -> Out {
    stage4_with(s3, &Ctrl::decode(s3.ctrl))
}

/// [`stage4`] given `Ctrl::decode(s3.ctrl)`.
#[inline(always)]
fn stage4_with(s3: &S3, ctrl: &Ctrl) -> Out {
    let ctrl = *ctrl;
    let d = match ctrl.kind {
        Kind::Vmad => vmad::saturate(&ctrl, s3.vm_res),
        Kind::F32x2 => round::round(&ctrl, &s3.lane1) << 32 | round::round(&ctrl, &s3.lane0),
        Kind::Half2 => round::round(&ctrl, &s3.lane1) << 16 | round::round(&ctrl, &s3.lane0),
        _ => round::round(&ctrl, &s3.lane0),
    };
    Out {
        valid: s3.valid,
        tag: s3.tag,
        d,
    }
}

/// Every bank one operation loads on its way through the pipe: `s1` in the cycle it is
/// presented, `s2`, `s3` and `out` in the three after. The pipe has no stalls and every flop
/// loads every cycle, so each is a pure function of the one before ([`stage2`] of `s1`, and so
/// on), whatever else is in flight: cycle t's banks are input t's `s1`, input t-1's `s2`, input
/// t-2's `s3` and input t-3's `out`, unless a reset came between. This is what lets the
/// co-simulator's reference compute the banks per operation, many at a time
/// ([`batch::Engine::images_of`], already packed), and assemble each cycle's frame from them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpBanks {
    pub s1: S1,
    pub s2: S2,
    pub s3: S3,
    pub out: Out,
}

impl OpBanks {
    /// The banks of `inp` through the scalar stages (what [`Pipeline::tick`] loads).
    pub fn of(inp: &PipeIn) -> OpBanks {
        let mut b = OpBanks::default();
        b.load(inp);
        b
    }

    /// [`OpBanks::of`] in place, overwriting every field.
    #[inline]
    pub fn load(&mut self, inp: &PipeIn) {
        let ctrl = Ctrl::decode(inp.ctrl & CTRL_MASK);
        by_kind!(ctrl, |c| {
            stage1_into(inp, &c, &mut self.s1);
            stage2_into(&self.s1, &c, &mut self.s2);
            stage3_into(&self.s2, &c, &mut self.s3);
            self.out = stage4_with(&self.s3, &c);
        });
    }
}

/// Runs one operation alone through the pipe and returns its result `d`.
pub fn eval(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    let mut p = Pipeline::new();
    let inp = PipeIn {
        valid: true,
        tag: 0,
        ctrl: ctrl.encode(),
        a,
        b,
        c,
        reset: false,
    };
    let mut out = p.tick(&inp);
    for _ in 1..LATENCY {
        out = p.tick(&PipeIn::default());
    }
    debug_assert!(out.valid);
    out.d
}

/// Inputs per `Pipeline::run` call in [`eval_batch`]: the three drain cycles per block cost
/// nothing, and the block stays in cache.
const EVAL_BLOCK: usize = 4096;

/// `d[i]` = the result of control word `ctrl(i)` on `a[i]`, `b[i]`, `c[i]`, each operation as
/// if alone: [`eval`] over arrays, on `Pipeline::run` (the lane engine). Each block is followed
/// by `LATENCY - 1` bubbles, and input t's result retires in cycle t + LATENCY - 1. The C ABI,
/// the Python module and `fma-model silicon` evaluate arrays through this.
///
/// # Panics
/// If `a`, `b`, `c` and `d` differ in length.
pub fn eval_batch(ctrl: impl Fn(usize) -> u32, a: &[u64], b: &[u64], c: &[u64], d: &mut [u64]) {
    let n = a.len();
    assert!(
        b.len() == n && c.len() == n && d.len() == n,
        "a, b, c, d of one length"
    );
    let lead = LATENCY - 1;
    let mut pipe = Pipeline::new();
    let mut inputs = Vec::with_capacity(EVAL_BLOCK.min(n) + lead);
    let mut outs = vec![Out::default(); EVAL_BLOCK.min(n) + lead];
    let mut start = 0;
    while start < n {
        let end = (start + EVAL_BLOCK).min(n);
        inputs.clear();
        inputs.extend((start..end).map(|i| PipeIn {
            valid: true,
            ctrl: ctrl(i),
            a: a[i],
            b: b[i],
            c: c[i],
            ..PipeIn::default()
        }));
        inputs.extend(std::iter::repeat_n(PipeIn::default(), lead));
        let outs = &mut outs[..inputs.len()];
        pipe.run(&inputs, outs);
        for (k, o) in outs[lead..].iter().enumerate() {
            d[start + k] = o.d;
        }
        start = end;
    }
}

#[cfg(test)]
mod tests;

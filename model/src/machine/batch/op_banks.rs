//! The banks path: every register bank of a group, as the scalar structs ([`OpBanks`]) the
//! co-simulator's reference compares with the RTL. The stages run as for the results, with two
//! differences that only the registers show: S2's count is the LZA's prediction
//! (`stage2::<_, _, true>`), and S1 holds the multiplier's carry-save pair (`booth`). Each
//! vector is stored once as a word per operation, then the step's structs are filled from the
//! words in place, every field written: the lanes a kind leaves idle and the vmad side path as
//! zero, as the scalar stages leave them.

use super::banks::{S1x, S2x, S3x};
use super::booth::{pair, pair_narrow, pair_two_lanes, Pair};
use super::stages::{stage1, stage2, stage3, stage4};
use super::{F32, F64, HALF, HALF_HI, N};
use crate::ctrl::{AbFmt, Ctrl, CTRL_BITS};
use crate::machine::lanes::Lanes;
use crate::machine::pipeline::{OpBanks, PipeIn};
use crate::regs::{Out, S1Lane, S1Vmad, S2Lane, S3Lane, S1, S2, S3};
use crate::wide::Wide;

/// The control word's defined bits: what a bank's `ctrl` holds of the input's.
const CTRL_MASK: u32 = (1 << CTRL_BITS) - 1;

/// A window's three limbs, a word per operation.
type Limbs<const W: usize> = [[u64; W]; 3];

/// Stores the limbs of a window.
#[inline(always)]
fn store3<L: Lanes, const W: usize>(w: &super::window::Window<L>, out: &mut Limbs<W>) {
    for (v, o) in w.0.iter().zip(out) {
        v.store(o);
    }
}

/// Zero words, the start of a step's words (every one is written before it is read, so the
/// zeroing folds away).
trait Zero {
    fn zero() -> Self;
}

impl<const W: usize> Zero for [u64; W] {
    #[inline(always)]
    fn zero() -> Self {
        [0; W]
    }
}

impl<const W: usize, const K: usize> Zero for [[u64; W]; K] {
    #[inline(always)]
    fn zero() -> Self {
        [[0; W]; K]
    }
}

/// A struct of words, `W` per field, and its zero.
macro_rules! words {
    ($(#[$m:meta])* struct $name:ident { $($f:ident: $t:ty,)* }) => {
        $(#[$m])*
        struct $name<const W: usize> {
            $($f: $t,)*
        }

        impl<const W: usize> Zero for $name<W> {
            #[inline(always)]
            fn zero() -> Self {
                $name { $($f: Zero::zero(),)* }
            }
        }
    };
}

/// Word `i` of a window's limbs as the bank's wide value.
#[inline(always)]
fn limbs<const B: usize, const W: usize>(x: &Limbs<W>, i: usize) -> Wide<B> {
    Wide::from_limbs([x[0][i], x[1][i], x[2][i]])
}

/// The lanes a kind leaves idle and the vmad side path, as the scalar stages load them
/// (`Default`): constants, which are stored as zero words; `default()` was stored field by
/// field.
const IDLE_S1: S1Lane = S1Lane {
    sign_p: false,
    sign_c: false,
    prod_zero: false,
    c_zero: false,
    eref: 0,
    c_aligned: Wide::from_limbs([0; 3]),
    align_sticky: false,
    spec_valid: false,
    spec_res: 0,
};
const IDLE_S2: S2Lane = S2Lane {
    sign: false,
    zero: false,
    flush_sign: false,
    mag: Wide::from_limbs([0; 3]),
    sticky: false,
    lza_cnt: 0,
    eref: 0,
    spec_valid: false,
    spec_res: 0,
};
const IDLE_S3: S3Lane = S3Lane {
    sign: false,
    zero: false,
    flush_sign: false,
    norm: Wide::from_limbs([0; 3]),
    sticky: false,
    exp: 0,
    spec_valid: false,
    spec_res: 0,
};
const IDLE_VM: S1Vmad = S1Vmad {
    vm_cext: 0,
    vm_inv: false,
    vm_lsb: false,
};

/// A word of `x` as a bank's flag (the word is a mask).
#[inline(always)]
fn flag<const W: usize>(x: &[u64; W], i: usize) -> bool {
    x[i] != 0
}

words! {
    /// One float lane's S1 fields, a word per operation.
    struct S1Words {
        sign_p: [u64; W],
        sign_c: [u64; W],
        prod_zero: [u64; W],
        c_zero: [u64; W],
        eref: [u64; W],
        c_aligned: Limbs<W>,
        align_sticky: [u64; W],
        spec_valid: [u64; W],
        spec_res: [u64; W],
    }
}

impl<const W: usize> S1Words<W> {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S1x<L>) {
        s.sign_p.store(&mut self.sign_p);
        s.sign_c.store(&mut self.sign_c);
        s.prod_zero.store(&mut self.prod_zero);
        s.c_zero.store(&mut self.c_zero);
        s.eref.store(&mut self.eref);
        store3(&s.c_aligned, &mut self.c_aligned);
        s.align_sticky.store(&mut self.align_sticky);
        s.spec_valid.store(&mut self.spec_valid);
        s.spec_res.store(&mut self.spec_res);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S1Lane {
        S1Lane {
            sign_p: flag(&self.sign_p, i),
            sign_c: flag(&self.sign_c, i),
            prod_zero: flag(&self.prod_zero, i),
            c_zero: flag(&self.c_zero, i),
            eref: self.eref[i] as i16,
            c_aligned: limbs(&self.c_aligned, i),
            align_sticky: flag(&self.align_sticky, i),
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

words! {
    /// One float lane's S2 fields, a word per operation.
    struct S2Words {
        sign: [u64; W],
        zero: [u64; W],
        flush_sign: [u64; W],
        mag: Limbs<W>,
        sticky: [u64; W],
        lza_cnt: [u64; W],
        eref: [u64; W],
        spec_valid: [u64; W],
        spec_res: [u64; W],
    }
}

impl<const W: usize> S2Words<W> {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S2x<L>) {
        s.sign.store(&mut self.sign);
        s.zero.store(&mut self.zero);
        s.flush_sign.store(&mut self.flush_sign);
        store3(&s.mag, &mut self.mag);
        s.sticky.store(&mut self.sticky);
        s.lza_cnt.store(&mut self.lza_cnt);
        s.eref.store(&mut self.eref);
        s.spec_valid.store(&mut self.spec_valid);
        s.spec_res.store(&mut self.spec_res);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S2Lane {
        S2Lane {
            sign: flag(&self.sign, i),
            zero: flag(&self.zero, i),
            flush_sign: flag(&self.flush_sign, i),
            mag: limbs(&self.mag, i),
            sticky: flag(&self.sticky, i),
            lza_cnt: self.lza_cnt[i] as u8,
            eref: self.eref[i] as i16,
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

words! {
    /// One float lane's S3 fields, a word per operation.
    struct S3Words {
        sign: [u64; W],
        zero: [u64; W],
        flush_sign: [u64; W],
        norm: Limbs<W>,
        sticky: [u64; W],
        exp: [u64; W],
        spec_valid: [u64; W],
        spec_res: [u64; W],
    }
}

impl<const W: usize> S3Words<W> {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S3x<L>) {
        s.sign.store(&mut self.sign);
        s.zero.store(&mut self.zero);
        s.flush_sign.store(&mut self.flush_sign);
        store3(&s.norm, &mut self.norm);
        s.sticky.store(&mut self.sticky);
        s.exp.store(&mut self.exp);
        s.spec_valid.store(&mut self.spec_valid);
        s.spec_res.store(&mut self.spec_res);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S3Lane {
        S3Lane {
            sign: flag(&self.sign, i),
            zero: flag(&self.zero, i),
            flush_sign: flag(&self.flush_sign, i),
            norm: limbs(&self.norm, i),
            sticky: flag(&self.sticky, i),
            exp: self.exp[i] as i16,
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

words! {
    /// One float lane's banks through stages 1 to 3.
    struct LaneWords {
        s1: S1Words<W>,
        s2: S2Words<W>,
        s3: S3Words<W>,
    }
}

impl<const W: usize> LaneWords<W> {
    /// Stages 2 to 4 of lane `s1` of a kind `KIND` group, every bank stored; returns the
    /// lane's result.
    #[inline(always)]
    fn run<L: Lanes, const KIND: u8>(&mut self, ctrl: &Ctrl, s1: &S1x<L>) -> L {
        let s2 = stage2::<L, KIND, true>(ctrl, s1);
        let s3 = stage3::<L, KIND>(ctrl, &s2);
        let d = stage4::<L, KIND>(ctrl, &s3);
        self.s1.store(s1);
        self.s2.store(&s2);
        self.s3.store(&s3);
        d
    }
}

words! {
    /// The carry-save pairs of a group, limbs 0 and 1 a word per operation.
    struct PairWords {
        sum: [[u64; W]; 2],
        carry: [[u64; W]; 2],
    }
}

impl<const W: usize> PairWords<W> {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, p: &Pair<L>) {
        for (v, o) in p.sum.iter().zip(&mut self.sum) {
            v.store(o);
        }
        for (v, o) in p.carry.iter().zip(&mut self.carry) {
            v.store(o);
        }
    }

    #[inline(always)]
    fn sum(&self, i: usize) -> u128 {
        self.sum[0][i] as u128 | (self.sum[1][i] as u128) << 64
    }

    #[inline(always)]
    fn carry(&self, i: usize) -> u128 {
        self.carry[0][i] as u128 | (self.carry[1][i] as u128) << 64
    }
}

/// Every bank of a group of sixteen inputs of one control word of kind `KIND` (`F32` for
/// f32x2, `HALF` for half2, with `TWO`: both lanes), `W` = `L::LANES` at a time, into `out`.
/// Each step's words are fully written before they are read, so their zeroing folds away.
#[inline(always)]
pub(super) fn banks_body<L: Lanes, const KIND: u8, const TWO: bool, const W: usize>(
    ctrl: &Ctrl,
    g: &[PipeIn; N],
    out: &mut [OpBanks; N],
) {
    const { assert!(N.is_multiple_of(W)) };
    assert_eq!(W, L::LANES);
    let w = PipeIn::words(g);
    for k in (0..N).step_by(W) {
        let [a, b, c] = L::load3_of4(&w[PipeIn::WORDS * k..]);
        let (mut lane0, mut lane1) = (LaneWords::<W>::zero(), LaneWords::<W>::zero());
        let s0 = stage1::<L, KIND>(ctrl, a, b, c);
        let d0 = lane0.run::<L, KIND>(ctrl, &s0);
        let (p, d) = if TWO && KIND == HALF {
            // Lane 1 reads bits 31:16 (`HALF_HI`).
            let s1 = stage1::<L, HALF_HI>(ctrl, a, b, c);
            let d1 = lane1.run::<L, HALF_HI>(ctrl, &s1);
            let p = pair_two_lanes([s0.mcand, s1.mcand], [s0.mplier, s1.mplier]);
            (p, d1.shl(16).or(d0))
        } else if TWO {
            // f32x2 lane 1 reads the upper words, but f16/bf16 sources are always bits 15:0
            // (`unpack::lane_operands`).
            let ab = if ctrl.ab_fmt == AbFmt::Native { 32 } else { 0 };
            let s1 = stage1::<L, F32>(ctrl, a.shr(ab), b.shr(ab), c.shr(32));
            let d1 = lane1.run::<L, F32>(ctrl, &s1);
            let p = pair_two_lanes([s0.mcand, s1.mcand], [s0.mplier, s1.mplier]);
            (p, d1.shl(32).or(d0))
        } else if KIND == F64 {
            (pair(s0.mcand, s0.mcand, s0.mplier), d0)
        } else {
            (pair_narrow(s0.mcand, s0.mplier), d0)
        };
        let mut pairs = PairWords::<W>::zero();
        pairs.store(&p);
        let mut dw = [0; W];
        d.store(&mut dw);
        let lane1 = if TWO { Some(&lane1) } else { None };
        for (i, (x, o)) in g[k..k + W].iter().zip(&mut out[k..k + W]).enumerate() {
            fill(x, o, i, &pairs, &lane0, lane1, dw[i]);
        }
    }
}

/// Writes every field of `o`, the banks of input `x`, from word `i` of a step's words: lane 1
/// where the kind has it, and zero where it has not, as the vmad side path.
#[inline(always)]
fn fill<const W: usize>(
    x: &PipeIn,
    o: &mut OpBanks,
    i: usize,
    pairs: &PairWords<W>,
    lane0: &LaneWords<W>,
    lane1: Option<&LaneWords<W>>,
    d: u64,
) {
    let (valid_in, tag_in, ctrl_in) = (x.valid, x.tag, x.ctrl & CTRL_MASK);
    // Field by field in place (the destructurings name every field): a whole bank built and
    // then moved in was copied through `memcpy`.
    let OpBanks { s1, s2, s3, out } = o;
    {
        let S1 {
            valid,
            tag,
            ctrl,
            mul_sum,
            mul_carry,
            vm,
            lane0: l0,
            lane1: l1,
        } = s1;
        (*valid, *tag, *ctrl) = (valid_in, tag_in, ctrl_in);
        (*mul_sum, *mul_carry) = (pairs.sum(i), pairs.carry(i));
        *vm = IDLE_VM;
        *l0 = lane0.s1.lane(i);
        *l1 = lane1.map_or(IDLE_S1, |l| l.s1.lane(i));
    }
    {
        let S2 {
            valid,
            tag,
            ctrl,
            vm_tmp,
            lane0: l0,
            lane1: l1,
        } = s2;
        (*valid, *tag, *ctrl) = (valid_in, tag_in, ctrl_in);
        *vm_tmp = 0;
        *l0 = lane0.s2.lane(i);
        *l1 = lane1.map_or(IDLE_S2, |l| l.s2.lane(i));
    }
    {
        let S3 {
            valid,
            tag,
            ctrl,
            vm_res,
            lane0: l0,
            lane1: l1,
        } = s3;
        (*valid, *tag, *ctrl) = (valid_in, tag_in, ctrl_in);
        *vm_res = 0;
        *l0 = lane0.s3.lane(i);
        *l1 = lane1.map_or(IDLE_S3, |l| l.s3.lane(i));
    }
    *out = Out {
        valid: valid_in,
        tag: tag_in,
        d,
    };
}

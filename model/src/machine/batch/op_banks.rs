//! The banks path: every register bank of a group, as the scalar structs ([`OpBanks`]) the
//! co-simulator's reference compares with the RTL. The stages run as for the results, with two
//! differences that only the registers show: S2's count is the LZA's prediction
//! (`stage2::<_, _, true>`), and S1 holds the multiplier's carry-save pair (`booth`). Each
//! vector is stored once as a word per operation, then the sixteen structs are filled from the
//! words, every field written: the lanes a kind leaves idle and the vmad side path as zero, as
//! the scalar stages leave them.

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

/// Words per operation of a window (three limbs).
type Limbs = [[u64; N]; 3];

/// Stores the limbs of a window into words `k..` of each limb's array.
#[inline(always)]
fn store3<L: Lanes>(w: &super::window::Window<L>, out: &mut Limbs, k: usize) {
    for (v, o) in w.0.iter().zip(out) {
        v.store(&mut o[k..]);
    }
}

/// A word of `x` as a bank's flag (the word is a mask).
#[inline(always)]
fn flag(x: &[u64; N], i: usize) -> bool {
    x[i] != 0
}

/// One float lane's S1 fields, a word per operation.
#[derive(Default)]
struct S1Words {
    sign_p: [u64; N],
    sign_c: [u64; N],
    prod_zero: [u64; N],
    c_zero: [u64; N],
    eref: [u64; N],
    c_aligned: Limbs,
    align_sticky: [u64; N],
    spec_valid: [u64; N],
    spec_res: [u64; N],
}

impl S1Words {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S1x<L>, k: usize) {
        s.sign_p.store(&mut self.sign_p[k..]);
        s.sign_c.store(&mut self.sign_c[k..]);
        s.prod_zero.store(&mut self.prod_zero[k..]);
        s.c_zero.store(&mut self.c_zero[k..]);
        s.eref.store(&mut self.eref[k..]);
        store3(&s.c_aligned, &mut self.c_aligned, k);
        s.align_sticky.store(&mut self.align_sticky[k..]);
        s.spec_valid.store(&mut self.spec_valid[k..]);
        s.spec_res.store(&mut self.spec_res[k..]);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S1Lane {
        S1Lane {
            sign_p: flag(&self.sign_p, i),
            sign_c: flag(&self.sign_c, i),
            prod_zero: flag(&self.prod_zero, i),
            c_zero: flag(&self.c_zero, i),
            eref: self.eref[i] as i16,
            c_aligned: Wide::from_limbs(self.c_aligned.map(|l| l[i])),
            align_sticky: flag(&self.align_sticky, i),
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

/// One float lane's S2 fields, a word per operation.
#[derive(Default)]
struct S2Words {
    sign: [u64; N],
    zero: [u64; N],
    flush_sign: [u64; N],
    mag: Limbs,
    sticky: [u64; N],
    lza_cnt: [u64; N],
    eref: [u64; N],
    spec_valid: [u64; N],
    spec_res: [u64; N],
}

impl S2Words {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S2x<L>, k: usize) {
        s.sign.store(&mut self.sign[k..]);
        s.zero.store(&mut self.zero[k..]);
        s.flush_sign.store(&mut self.flush_sign[k..]);
        store3(&s.mag, &mut self.mag, k);
        s.sticky.store(&mut self.sticky[k..]);
        s.lza_cnt.store(&mut self.lza_cnt[k..]);
        s.eref.store(&mut self.eref[k..]);
        s.spec_valid.store(&mut self.spec_valid[k..]);
        s.spec_res.store(&mut self.spec_res[k..]);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S2Lane {
        S2Lane {
            sign: flag(&self.sign, i),
            zero: flag(&self.zero, i),
            flush_sign: flag(&self.flush_sign, i),
            mag: Wide::from_limbs(self.mag.map(|l| l[i])),
            sticky: flag(&self.sticky, i),
            lza_cnt: self.lza_cnt[i] as u8,
            eref: self.eref[i] as i16,
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

/// One float lane's S3 fields, a word per operation.
#[derive(Default)]
struct S3Words {
    sign: [u64; N],
    zero: [u64; N],
    flush_sign: [u64; N],
    norm: Limbs,
    sticky: [u64; N],
    exp: [u64; N],
    spec_valid: [u64; N],
    spec_res: [u64; N],
}

impl S3Words {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, s: &S3x<L>, k: usize) {
        s.sign.store(&mut self.sign[k..]);
        s.zero.store(&mut self.zero[k..]);
        s.flush_sign.store(&mut self.flush_sign[k..]);
        store3(&s.norm, &mut self.norm, k);
        s.sticky.store(&mut self.sticky[k..]);
        s.exp.store(&mut self.exp[k..]);
        s.spec_valid.store(&mut self.spec_valid[k..]);
        s.spec_res.store(&mut self.spec_res[k..]);
    }

    #[inline(always)]
    fn lane(&self, i: usize) -> S3Lane {
        S3Lane {
            sign: flag(&self.sign, i),
            zero: flag(&self.zero, i),
            flush_sign: flag(&self.flush_sign, i),
            norm: Wide::from_limbs(self.norm.map(|l| l[i])),
            sticky: flag(&self.sticky, i),
            exp: self.exp[i] as i16,
            spec_valid: flag(&self.spec_valid, i),
            spec_res: self.spec_res[i],
        }
    }
}

/// One float lane's banks through stages 1 to 3.
#[derive(Default)]
struct LaneWords {
    s1: S1Words,
    s2: S2Words,
    s3: S3Words,
}

impl LaneWords {
    /// Stages 2 to 4 of lane `s1` of a kind `KIND` group, every bank stored at words `k..`;
    /// returns the lane's result.
    #[inline(always)]
    fn run<L: Lanes, const KIND: u8>(&mut self, ctrl: &Ctrl, s1: &S1x<L>, k: usize) -> L {
        let s2 = stage2::<L, KIND, true>(ctrl, s1);
        let s3 = stage3::<L, KIND>(ctrl, &s2);
        let d = stage4::<L, KIND>(ctrl, &s3);
        self.s1.store(s1, k);
        self.s2.store(&s2, k);
        self.s3.store(&s3, k);
        d
    }
}

/// The carry-save pairs of a group, limbs 0 and 1 a word per operation.
#[derive(Default)]
struct PairWords {
    sum: [[u64; N]; 2],
    carry: [[u64; N]; 2],
}

impl PairWords {
    #[inline(always)]
    fn store<L: Lanes>(&mut self, p: &Pair<L>, k: usize) {
        for (v, o) in p.sum.iter().zip(&mut self.sum) {
            v.store(&mut o[k..]);
        }
        for (v, o) in p.carry.iter().zip(&mut self.carry) {
            v.store(&mut o[k..]);
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
/// f32x2, `HALF` for half2, with `TWO`: both lanes), `L::LANES` at a time, into `out`.
#[inline(always)]
pub(super) fn banks_body<L: Lanes, const KIND: u8, const TWO: bool>(
    ctrl: &Ctrl,
    g: &[PipeIn; N],
    out: &mut [OpBanks; N],
) {
    let w = PipeIn::words(g);
    let mut pairs = PairWords::default();
    let mut lane0 = LaneWords::default();
    let mut lane1 = LaneWords::default();
    let mut d = [0; N];
    for k in (0..N).step_by(L::LANES) {
        let [a, b, c] = L::load3_of4(&w[PipeIn::WORDS * k..]);
        let s0 = stage1::<L, KIND>(ctrl, a, b, c);
        let d0 = lane0.run::<L, KIND>(ctrl, &s0, k);
        let (p, dk) = if TWO && KIND == HALF {
            // Lane 1 reads bits 31:16 (`HALF_HI`).
            let s1 = stage1::<L, HALF_HI>(ctrl, a, b, c);
            let d1 = lane1.run::<L, HALF_HI>(ctrl, &s1, k);
            let p = pair_two_lanes([s0.mcand, s1.mcand], [s0.mplier, s1.mplier]);
            (p, d1.shl(16).or(d0))
        } else if TWO {
            // f32x2 lane 1 reads the upper words, but f16/bf16 sources are always bits 15:0
            // (`unpack::lane_operands`).
            let ab = if ctrl.ab_fmt == AbFmt::Native { 32 } else { 0 };
            let s1 = stage1::<L, F32>(ctrl, a.shr(ab), b.shr(ab), c.shr(32));
            let d1 = lane1.run::<L, F32>(ctrl, &s1, k);
            let p = pair_two_lanes([s0.mcand, s1.mcand], [s0.mplier, s1.mplier]);
            (p, d1.shl(32).or(d0))
        } else if KIND == F64 {
            (pair(s0.mcand, s0.mcand, s0.mplier), d0)
        } else {
            (pair_narrow(s0.mcand, s0.mplier), d0)
        };
        pairs.store(&p, k);
        dk.store(&mut d[k..]);
    }
    for (i, (x, o)) in g.iter().zip(out.iter_mut()).enumerate() {
        let (valid, tag, ctrl) = (x.valid, x.tag, x.ctrl & CTRL_MASK);
        o.s1 = S1 {
            valid,
            tag,
            ctrl,
            mul_sum: pairs.sum(i),
            mul_carry: pairs.carry(i),
            vm: S1Vmad::default(),
            lane0: lane0.s1.lane(i),
            lane1: if TWO {
                lane1.s1.lane(i)
            } else {
                S1Lane::default()
            },
        };
        o.s2 = S2 {
            valid,
            tag,
            ctrl,
            vm_tmp: 0,
            lane0: lane0.s2.lane(i),
            lane1: if TWO {
                lane1.s2.lane(i)
            } else {
                S2Lane::default()
            },
        };
        o.s3 = S3 {
            valid,
            tag,
            ctrl,
            vm_res: 0,
            lane0: lane0.s3.lane(i),
            lane1: if TWO {
                lane1.s3.lane(i)
            } else {
                S3Lane::default()
            },
        };
        o.out = Out {
            valid,
            tag,
            d: d[i],
        };
    }
}

//! The lane engine's multiplier as the hardware builds it: the radix-4 Booth array
//! (`parts::booth`) and the carry-save tree (`parts::csa_tree`) per lane, giving the (sum,
//! carry) pair S1 registers (`S1::mul_sum`, `S1::mul_carry`), which the co-simulator compares
//! with the RTL every cycle.
//!
//! Only the banks path (`Engine::banks_of`) forms it: stage 2 reads the pair's sum, which the
//! results path takes from the machine multiply (`product`) at a fraction of the cost. The tree
//! is the scalar one (`csa_tree::levels`, generic over its [`Row`]): the pair depends on its
//! shape, and one definition cannot drift from the other.

use crate::machine::lanes::Lanes;
use crate::parts::booth::{HI_DIGIT, NEG_ROW_MASK, ROWS, W};
use crate::parts::csa_tree::{levels, Row};

/// A carry-save pair of 106-bit rows, each as limbs (bits 63:0, bits 105:64).
#[derive(Clone, Copy)]
pub(super) struct Pair<L> {
    pub sum: [L; 2],
    pub carry: [L; 2],
}

/// A whole row, bits 63:0 and 127:64 (the scalar tree's `u128`); bits above 105 are left as
/// they fall, and [`pair`] masks once at the end, as `csa_tree::reduce` does.
#[derive(Clone, Copy)]
struct Row2<L>([L; 2]);

impl<L: Lanes> Row for Row2<L> {
    /// `csa_tree::compress` on two limbs: the carry's shift crosses from the low limb up.
    #[inline(always)]
    fn compress(x: Self, y: Self, z: Self) -> (Self, Self) {
        let ([x0, x1], [y0, y1], [z0, z1]) = (x.0, y.0, z.0);
        let (t0, t1) = (x0.xor(y0), x1.xor(y1));
        let (m0, m1) = (x0.and(y0).or(z0.and(t0)), x1.and(y1).or(z1.and(t1)));
        (
            Row2([t0.xor(z0), t1.xor(z1)]),
            Row2([m0.shl(1), m1.shl(1).or(m0.shr(63))]),
        )
    }
}

/// A row whose bits from 63 up all equal bit 63 (`booth::rows_narrow`): its low word stands
/// for it, as `u64` does in `csa_tree::reduce_narrow`.
#[derive(Clone, Copy)]
struct Row1<L>(L);

impl<L: Lanes> Row for Row1<L> {
    #[inline(always)]
    fn compress(x: Self, y: Self, z: Self) -> (Self, Self) {
        let t = x.0.xor(y.0);
        (Row1(t.xor(z.0)), Row1(x.0.and(y.0).or(z.0.and(t)).shl(1)))
    }
}

/// The select lines of every Booth digit of a multiplier `b` (`booth::encode`), digit i at bit
/// 2i of each: `one` = b[2i] ^ b[2i-1], `two` = (b[2i+1] ^ b[2i]) & !one, `neg` = b[2i+1].
#[derive(Clone, Copy)]
struct Digits<L> {
    one: L,
    two: L,
    neg: L,
}

impl<L: Lanes> Digits<L> {
    #[inline(always)]
    fn of(b: L) -> Self {
        let one = b.xor(b.shl(1));
        let neg = b.shr(1);
        Digits {
            one,
            two: neg.xor(b).andn(one),
            neg,
        }
    }

    /// Digit `i`'s multiple of `m` (`booth::multiples`): 0, m or 2m, inverted where the digit is
    /// negative. Bits 63:0 of it; bits 127:64 are the negation mask, as `m` and `2m` (below
    /// 2^54) leave them zero.
    #[inline(always)]
    fn multiple(&self, i: u32, m: L, m2: L) -> (L, L) {
        let neg = self.neg.bitm(2 * i);
        let mag = self.one.bitm(2 * i).sel(m, self.two.bitm(2 * i).and(m2));
        (mag.xor(neg), neg)
    }
}

/// Spelled out digit by digit so that every shift is by a constant and a narrow multiplier's
/// zero rows are constants the tree folds away (as `booth::rows_used` does).
/// (Textual, not a closure: a closure may be compiled out of line, outside the backend's
/// `target_feature` kernel.)
macro_rules! rows {
    (|$i:ident| $row:expr, $zero:expr; $($n:literal)*; $($z:literal)*) => {
        [$({ let $i: u32 = $n; $row },)* $({ let _ = $z; $zero },)*]
    };
}

/// The pair for `mcand_lo`, `mcand_hi` and `mplier` as `pipeline::multiply` forms it: Booth
/// rows (`booth::rows_used`) with digits from `HI_DIGIT` up on `mcand_hi`, the negation row,
/// and the tree, on two limbs per row. The multiplicands are below 2^53 (a binary64
/// significand, or f32x2 and half2 lane 1's binary32 position shifted by 28) and the
/// multiplier below 2^54.
#[inline(always)]
pub(super) fn pair<L: Lanes>(mcand_lo: L, mcand_hi: L, mplier: L) -> Pair<L> {
    let d = Digits::of(mplier);
    let (lo2, hi2) = (mcand_lo.shl(1), mcand_hi.shl(1));
    let mut rows: [Row2<L>; ROWS] = rows!(
        |i| {
            let (v, neg) = if (i as usize) < HI_DIGIT {
                d.multiple(i, mcand_lo, lo2)
            } else {
                d.multiple(i, mcand_hi, hi2)
            };
            // The 128-bit (neg:v) << 2i, 2i below 64.
            let s = 2 * i;
            Row2(if s == 0 {
                [v, neg]
            } else {
                [v.shl(s), neg.shl(s).or(v.shr(64 - s))]
            })
        },
        Row2([L::zero(); 2]);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26; 27
    );
    rows[ROWS - 1] = Row2([mplier.shr(1).and(L::splat(NEG_ROW_MASK)), L::zero()]);
    levels(&mut rows);
    let top = L::splat((1 << (W - 64)) - 1);
    Pair {
        sum: [rows[0].0[0], rows[0].0[1].and(top)],
        carry: [rows[1].0[0], rows[1].0[1].and(top)],
    }
}

/// f32x2 and half2 lane 1 enter the array 28 bits up (`booth`'s module doc): its multiplier
/// bits at 51:28, its multiplicand on the digits from `HI_DIGIT`.
const LANE1_SHIFT: u32 = 28;

/// [`pair`] for the two lanes of f32x2 or half2, each significand at the array's binary32
/// position (bits 23:0), as `pipeline::stage1` packs them.
#[inline(always)]
pub(super) fn pair_two_lanes<L: Lanes>(mcand: [L; 2], mplier: [L; 2]) -> Pair<L> {
    pair(
        mcand[0],
        mcand[1].shl(LANE1_SHIFT),
        mplier[1].shl(LANE1_SHIFT).or(mplier[0]),
    )
}

/// [`pair`] for a multiplicand and multiplier both below 2^25 (a binary32 lane alone, the
/// mixed-precision kinds, sm_1x, one half lane): thirteen rows of one word each, the tree on
/// them, and the two results sign-extended from bit 63 (`booth::rows_narrow`,
/// `csa_tree::reduce_narrow`).
#[inline(always)]
pub(super) fn pair_narrow<L: Lanes>(m: L, mplier: L) -> Pair<L> {
    let d = Digits::of(mplier);
    let m2 = m.shl(1);
    let mut rows: [Row1<L>; ROWS] = rows!(
        |i| Row1(d.multiple(i, m, m2).0.shl(2 * i)),
        Row1(L::zero());
        0 1 2 3 4 5 6 7 8 9 10 11 12;
        13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
    );
    rows[ROWS - 1] = Row1(mplier.shr(1).and(L::splat(NEG_ROW_MASK)));
    levels(&mut rows);
    let top = L::splat((1 << (W - 64)) - 1);
    let (sum, carry) = (rows[0].0, rows[1].0);
    Pair {
        sum: [sum, sum.lts(L::zero()).and(top)],
        carry: [carry, carry.lts(L::zero()).and(top)],
    }
}

#[cfg(test)]
mod tests;

//! The lane engine's multiplier as the hardware builds it: the radix-4 Booth array
//! (`parts::booth`) and the carry-save tree (`parts::csa_tree`) per lane, giving the (sum,
//! carry) pair S1 registers (`S1::mul_sum`, `S1::mul_carry`), which the co-simulator compares
//! with the RTL every cycle.
//!
//! Only the images path (`Engine::images_of`) forms it: stage 2 reads the pair's sum, which the
//! results path takes from the machine multiply (`product`) at a fraction of the cost. The
//! compressor is `csa_tree`'s [`Row`] contract on lane rows; the tree is `csa_tree::levels`'s
//! shape written out wire by wire (`csa_tree!`, which keeps the rows in registers), held to
//! the scalar tree bit for bit by the tests (here, `engine::images_tests` and `engine::tree_tests`, whose data also
//! tells that shape from other trees of the same sum).

use crate::machine::lanes::Lanes;
use crate::parts::booth::{HI_DIGIT, NARROW_DIGITS, NEG_ROW_MASK, W};
use crate::parts::csa_tree::Row;

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
        let (m0, m1) = (x0.maj(y0, z0), x1.maj(y1, z1));
        (
            Row2([x0.xor3(y0, z0), x1.xor3(y1, z1)]),
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
        (Row1(x.0.xor3(y.0, z.0)), Row1(x.0.maj(y.0, z.0).shl(1)))
    }
}

/// The select lines of every Booth digit of a multiplier `b` (`booth::encode`), digit i at bit
/// 2i of each: `two` = (b[2i+1] ^ b[2i]) & !one, where `one` = b[2i] ^ b[2i-1]; `nz` = one | two
/// (a multiple is selected at all); `neg` = b[2i+1].
#[derive(Clone, Copy)]
struct Digits<L> {
    two: L,
    nz: L,
    neg: L,
}

impl<L: Lanes> Digits<L> {
    #[inline(always)]
    fn of(b: L) -> Self {
        let one = b.xor(b.shl(1));
        let neg = b.shr(1);
        let two = neg.xor(b).andn(one);
        Digits {
            two,
            nz: one.or(two),
            neg,
        }
    }

    /// Digit `i`'s multiple of `m` (`booth::multiples`): 0, m or 2m, inverted where the digit is
    /// negative. Bits 63:0 of it; `m` and `2m` are below 2^54, so bit 63 is the inversion and
    /// bits 127:64 are copies of it.
    #[inline(always)]
    fn multiple(&self, i: u32, m: L, m2: L) -> L {
        let (two, nz, neg) = (
            self.two.bitm(2 * i),
            self.nz.bitm(2 * i),
            self.neg.bitm(2 * i),
        );
        two.sel(m2, m).and(nz).xor(neg)
    }
}

/// The carry-save tree of `csa_tree::levels` wire by wire: `s<l>_<g>` and `c<l>_<g>` are the sum
/// and carry of compressor g of level l (the RTL's `g_level[l].g_csa[g]`), each three taken
/// from the front of the level before, the leftovers after. Written out, not as the scalar
/// tree's in-place array, so that the rows stay in registers rather than memory, and in depth
/// first order, each row formed (`$row!(i)`, a macro of the caller's) just before its
/// compressor, so that few are live at once.
macro_rules! csa_tree {
    ($R:ty, $row:ident) => {{
        let r0 = $row!(0);
        let r1 = $row!(1);
        let r2 = $row!(2);
        let (s1_0, c1_0) = <$R as Row>::compress(r0, r1, r2);
        let r3 = $row!(3);
        let r4 = $row!(4);
        let r5 = $row!(5);
        let (s1_1, c1_1) = <$R as Row>::compress(r3, r4, r5);
        let (s2_0, c2_0) = <$R as Row>::compress(s1_0, c1_0, s1_1);
        let r6 = $row!(6);
        let r7 = $row!(7);
        let r8 = $row!(8);
        let (s1_2, c1_2) = <$R as Row>::compress(r6, r7, r8);
        let (s2_1, c2_1) = <$R as Row>::compress(c1_1, s1_2, c1_2);
        let (s3_0, c3_0) = <$R as Row>::compress(s2_0, c2_0, s2_1);
        let r9 = $row!(9);
        let r10 = $row!(10);
        let r11 = $row!(11);
        let (s1_3, c1_3) = <$R as Row>::compress(r9, r10, r11);
        let r12 = $row!(12);
        let r13 = $row!(13);
        let r14 = $row!(14);
        let (s1_4, c1_4) = <$R as Row>::compress(r12, r13, r14);
        let (s2_2, c2_2) = <$R as Row>::compress(s1_3, c1_3, s1_4);
        let (s3_1, c3_1) = <$R as Row>::compress(c2_1, s2_2, c2_2);
        let (s4_0, c4_0) = <$R as Row>::compress(s3_0, c3_0, s3_1);
        let r15 = $row!(15);
        let r16 = $row!(16);
        let r17 = $row!(17);
        let (s1_5, c1_5) = <$R as Row>::compress(r15, r16, r17);
        let (s2_3, c2_3) = <$R as Row>::compress(c1_4, s1_5, c1_5);
        let r18 = $row!(18);
        let r19 = $row!(19);
        let r20 = $row!(20);
        let (s1_6, c1_6) = <$R as Row>::compress(r18, r19, r20);
        let r21 = $row!(21);
        let r22 = $row!(22);
        let r23 = $row!(23);
        let (s1_7, c1_7) = <$R as Row>::compress(r21, r22, r23);
        let (s2_4, c2_4) = <$R as Row>::compress(s1_6, c1_6, s1_7);
        let (s3_2, c3_2) = <$R as Row>::compress(s2_3, c2_3, s2_4);
        let (s4_1, c4_1) = <$R as Row>::compress(c3_1, s3_2, c3_2);
        let (s5_0, c5_0) = <$R as Row>::compress(s4_0, c4_0, s4_1);
        let r24 = $row!(24);
        let r25 = $row!(25);
        let r26 = $row!(26);
        let (s1_8, c1_8) = <$R as Row>::compress(r24, r25, r26);
        let (s2_5, c2_5) = <$R as Row>::compress(c1_7, s1_8, c1_8);
        let (s3_3, c3_3) = <$R as Row>::compress(c2_4, s2_5, c2_5);
        let r27 = $row!(27);
        let (s4_2, c4_2) = <$R as Row>::compress(s3_3, c3_3, r27);
        let (s5_1, c5_1) = <$R as Row>::compress(c4_1, s4_2, c4_2);
        let (s6_0, c6_0) = <$R as Row>::compress(s5_0, c5_0, s5_1);
        let (s7_0, c7_0) = <$R as Row>::compress(s6_0, c6_0, c5_1);
        (s7_0, c7_0)
    }};
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
    // Row i: digit i's multiple shifted by 2i; row 27 the negation bits.
    macro_rules! row {
        (27) => {
            Row2([mplier.shr(1).and(L::splat(NEG_ROW_MASK)), L::zero()])
        };
        ($i:literal) => {{
            let v = if $i < HI_DIGIT {
                d.multiple($i, mcand_lo, lo2)
            } else {
                d.multiple($i, mcand_hi, hi2)
            };
            // v sign-extended to 128 bits, shifted by 2i (below 64).
            if $i == 0 {
                Row2([v, v.sra(63)])
            } else {
                Row2([v.shl(2 * $i), v.sra(64 - 2 * $i)])
            }
        }};
    }
    let (sum, carry): (Row2<L>, Row2<L>) = csa_tree!(Row2<L>, row);
    let top = L::splat((1 << (W - 64)) - 1);
    Pair {
        sum: [sum.0[0], sum.0[1].and(top)],
        carry: [carry.0[0], carry.0[1].and(top)],
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
    // Rows from digit `NARROW_DIGITS` up are zero (constants the tree folds away).
    macro_rules! row {
        (27) => {
            Row1(mplier.shr(1).and(L::splat(NEG_ROW_MASK)))
        };
        ($i:literal) => {
            if $i < NARROW_DIGITS {
                Row1(d.multiple($i, m, m2).shl(2 * $i))
            } else {
                Row1(L::zero())
            }
        };
    }
    let (sum, carry): (Row1<L>, Row1<L>) = csa_tree!(Row1<L>, row);
    let top = L::splat((1 << (W - 64)) - 1);
    let (sum, carry) = (sum.0, carry.0);
    Pair {
        sum: [sum, sum.lts(L::zero()).and(top)],
        carry: [carry, carry.lts(L::zero()).and(top)],
    }
}

#[cfg(test)]
mod tests;

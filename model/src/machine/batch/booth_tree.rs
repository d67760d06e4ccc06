//! The lane engine's multiplier: Booth rows from per-digit shift tables and the carry-save tree
//! of `csa_tree`, for sixteen operations at once. The narrow form takes binary32 significands
//! (13 digits, one word a row), the full one binary64 significands (27 digits, two words a row).

use crate::machine::lanes::Lanes;
use crate::parts::booth::{self, B_MASK, DIGITS, NEG_ROW_MASK, ROWS};

/// A 2-limb multiplier row per lane (the scalar `u128` row).
#[derive(Clone, Copy)]
struct TwoLimbRow<L>([L; 2]);

/// A 3:2 compressor over narrow rows (`csa_tree::compress` on the low words).
#[inline(always)]
fn compress_narrow<L: Lanes>(x: L, y: L, z: L) -> (L, L) {
    (x.xor3(y, z), x.maj(y, z).shl(1))
}

/// A 3:2 compressor over two-limb rows.
#[inline(always)]
fn compress_full<L: Lanes>(
    x: TwoLimbRow<L>,
    y: TwoLimbRow<L>,
    z: TwoLimbRow<L>,
) -> (TwoLimbRow<L>, TwoLimbRow<L>) {
    let (x0, y0, z0) = (x.0[0], y.0[0], z.0[0]);
    let (x1, y1, z1) = (x.0[1], y.0[1], z.0[1]);
    let (m0, m1) = (x0.maj(y0, z0), x1.maj(y1, z1));
    (
        TwoLimbRow([x0.xor3(y0, z0), x1.xor3(y1, z1)]),
        TwoLimbRow([m0.shl(1), m1.shl(1).or(m0.shr(63))]),
    )
}

/// The carry-save tree of `csa_tree` (same shape: threes from the front, sum then carry, the
/// rest carried down), spelled out group by group.
macro_rules! tree_level {
    ($cur:ident, $compress:ident, $n:literal; $($g:literal)*) => {{
        $( ($cur[2 * $g], $cur[2 * $g + 1]) =
            $compress($cur[3 * $g], $cur[3 * $g + 1], $cur[3 * $g + 2]); )*
        const GROUPS: usize = $n / 3;
        const LEFT: usize = $n - 3 * GROUPS;
        let mut k = 0;
        while k < LEFT {
            $cur[2 * GROUPS + k] = $cur[3 * GROUPS + k];
            k += 1;
        }
    }};
}

macro_rules! tree {
    ($cur:ident, $compress:ident) => {{
        tree_level!($cur, $compress, 28; 0 1 2 3 4 5 6 7 8);
        tree_level!($cur, $compress, 19; 0 1 2 3 4 5);
        tree_level!($cur, $compress, 13; 0 1 2 3);
        tree_level!($cur, $compress, 9; 0 1 2);
        tree_level!($cur, $compress, 6; 0 1);
        tree_level!($cur, $compress, 4; 0);
        tree_level!($cur, $compress, 3; 0);
    }};
}

/// Booth rows of the listed digits, spelled out like the tree.
macro_rules! booth_rows {
    ($rows:ident = $row:ident($ctx:expr); $($i:literal)*) => {{
        $( $rows[$i] = $row($i, $ctx); )*
    }};
}

/// The row multiplexer as tables of shift amounts indexed by a digit's three multiplier bits
/// (the `sel` of `booth::rows_used`), one table per digit position `i`, so that a row is a few
/// table look-ups across the lanes ([`Lanes::lookup8`]) and shifts: the multiple `m`, `2m`, or
/// nothing, is `m` shifted left by 2i, 2i+1, or 64 (which clears it), and an inverted multiple
/// is that value XOR the ones from bit 2i up, since `(!x) << k == (x << k) ^ (!0 << k)`; those
/// ones are `!0` shifted left by 2i, or by 64 (none) for a positive digit. Every entry is a
/// shift amount (at most 64), so the tables are bytes, which every backend looks up cheaply.
struct BoothTables {
    /// Left shift of `m` for the low word.
    shl: [[u8; 8]; DIGITS],
    /// Right shift of `m` giving the high word (64 when the high word is zero).
    shr: [[u8; 8]; DIGITS],
    /// Left shift of `!0` giving the inversion mask of the low word (2i for negative digits).
    inv_lo: [[u8; 8]; DIGITS],
}

const BOOTH: BoothTables = {
    // sel: 0 -> 0, 1/2 -> m, 3 -> 2m, 4 -> !2m, 5/6 -> !m, 7 -> !0.
    const SHIFT: [u8; 8] = [64, 0, 0, 1, 1, 0, 0, 64];
    let mut t = BoothTables {
        shl: [[0; 8]; DIGITS],
        shr: [[0; 8]; DIGITS],
        inv_lo: [[0; 8]; DIGITS],
    };
    let mut i = 0;
    while i < DIGITS {
        let mut sel = 0;
        while sel < 8 {
            let at = 2 * i as u8;
            let (l, h) = if SHIFT[sel] == 64 {
                (64, 64)
            } else {
                let k = SHIFT[sel] + at;
                (k, if k == 0 { 64 } else { 64 - k })
            };
            t.shl[i][sel] = l;
            t.shr[i][sel] = h;
            t.inv_lo[i][sel] = if sel >= 4 { at } else { 64 };
            sel += 1;
        }
        i += 1;
    }
    t
};

/// Left shift of `!0` giving the inversion mask of the high word: all ones (shift 0) for a
/// negative digit at any position.
const INV_HI: [u8; 8] = [64, 64, 64, 64, 0, 0, 0, 0];

/// Row `i` of the narrow array (low words): `booth::rows_narrow`.
#[inline(always)]
fn narrow_row<L: Lanes>(i: usize, (mc, b2): (L, L)) -> L {
    let ix = b2.shr(2 * i as u32).index8();
    mc.shlv(L::lookup8(ix, &BOOTH.shl[i]))
        .xor(L::lookup8_ones_shl(ix, &BOOTH.inv_lo[i]))
}

/// Row `i` of the full array, two limbs (`booth::rows` for multiplicands below 2^53).
#[inline(always)]
fn full_row<L: Lanes>(i: usize, (mc, b2): (L, L)) -> TwoLimbRow<L> {
    let ix = b2.shr(2 * i as u32).index8();
    TwoLimbRow([
        mc.shlv(L::lookup8(ix, &BOOTH.shl[i]))
            .xor(L::lookup8_ones_shl(ix, &BOOTH.inv_lo[i])),
        mc.shrv(L::lookup8(ix, &BOOTH.shr[i]))
            .xor(L::lookup8_ones_shl(ix, &INV_HI)),
    ])
}

/// `booth::rows_narrow` + `csa_tree::reduce_narrow` per lane.
#[inline(always)]
pub(super) fn multiply_narrow<L: Lanes>(mc: L, mp: L) -> (L, L, L, L) {
    let b2 = mp.shl(1);
    let mut rows = [L::zero(); ROWS];
    booth_rows!(rows = narrow_row((mc, b2)); 0 1 2 3 4 5 6 7 8 9 10 11 12);
    const _: () = assert!(booth::NARROW_DIGITS == 13);
    narrow_tree(rows, mp)
}

/// [`multiply_narrow`] for the half kinds: their multipliers (binary16 and bfloat16
/// significands, at bits 23:13 and 23:16 of the binary32 position) leave Booth digits 0..5
/// zero, so those rows are the constant 0 and the tree's compressors on them fold away. The
/// sum and carry are the same values.
#[inline(always)]
pub(super) fn multiply_half<L: Lanes>(mc: L, mp: L) -> (L, L, L, L) {
    let b2 = mp.shl(1);
    let mut rows = [L::zero(); ROWS];
    booth_rows!(rows = narrow_row((mc, b2)); 6 7 8 9 10 11 12);
    narrow_tree(rows, mp)
}

/// The negation row and the tree over narrow rows; the sum and carry as two 64-bit limbs each.
#[inline(always)]
fn narrow_tree<L: Lanes>(mut rows: [L; ROWS], mp: L) -> (L, L, L, L) {
    rows[DIGITS] = mp.shr(1).and(L::splat(NEG_ROW_MASK));
    tree!(rows, compress_narrow);
    // Bit 63 stands for bits 127:63 (see `booth::rows_narrow`); keep 106 bits.
    let top = L::splat((1 << 42) - 1);
    (
        rows[0],
        rows[0].sra(63).and(top),
        rows[1],
        rows[1].sra(63).and(top),
    )
}

/// `booth::rows` + `csa_tree::reduce` per lane, for multiplicands below 2^53 (binary64
/// significands).
#[inline(always)]
pub(super) fn multiply_full<L: Lanes>(mc: L, mp: L) -> (L, L, L, L) {
    let mp = mp.and(L::splat(B_MASK));
    let b2 = mp.shl(1);
    let z = L::zero();
    let mut rows = [TwoLimbRow([z, z]); ROWS];
    booth_rows!(rows = full_row((mc, b2));
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
    const _: () = assert!(DIGITS == 27);
    rows[DIGITS] = TwoLimbRow([mp.shr(1).and(L::splat(NEG_ROW_MASK)), z]);
    tree!(rows, compress_full);
    let top = L::splat((1 << 42) - 1);
    (
        rows[0].0[0],
        rows[0].0[1].and(top),
        rows[1].0[0],
        rows[1].0[1].and(top),
    )
}

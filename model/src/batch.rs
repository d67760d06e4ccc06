//! Lane-parallel evaluation of the pipeline for a stream: sixteen consecutive operations that
//! share one control word go through the four stages side by side, one 64-bit lane per
//! operation, so that each step of a part (a Booth row, a compressor, a window shift) is one
//! vector instruction for eight of them (two registers per value, see [`N`]).
//!
//! This is how a compiled simulator levelises a design: stage k of the sixteen operations is
//! computed together, and because every stage is a pure function of the register before it,
//! the register values are the ones [`Pipeline::tick`](crate::Pipeline::tick) loads cycle by
//! cycle. The banks here ([`S1x`], [`S2x`], [`S3x`]) carry every field of the scalar banks
//! under the same names, one lane per operation; [`S1x::lane`] and friends give them back as
//! the scalar structs, and the tests require them to equal the scalar stage functions field
//! for field. The code follows the parts of the scalar datapath line for line, written without
//! data-dependent branches (a lane cannot branch on its own).
//!
//! Only the kinds the benchmark and long regressions stream (binary32 and binary64 fma with
//! every modifier, mixed precision and add/sub/mul included) have a lane-parallel form; the
//! others run through the scalar stages. The lanes are AVX-512 registers, written with the
//! intrinsics directly (the compiler's own vectorisation of lane loops was fragile: it turned
//! some masks back into per-lane branches); where the CPU lacks AVX-512, [`supported`] is false
//! and `Pipeline::run` uses the scalar stages.

use core::arch::x86_64::*;
use std::fmt;

use crate::booth::{self, B_MASK, DIGITS, NEG_ROW_MASK, ROWS};
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format::{self, Fmt};
use crate::regs::{S1Lane, S2Lane, S3Lane, U164, U165, U166};
use crate::special::{F32_NAN, F64_NAN};

/// AVX-512 registers per lane value: two, so that every step issues two independent
/// instructions (one dependency chain per register keeps the vector units busy).
const K: usize = 2;
/// Operations evaluated side by side.
pub const N: usize = 8 * K;

/// All ones for `true`: lane conditions are masks.
const fn mask_of(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
}

/// Marks the lane engine's functions: they are compiled for AVX-512, and run only after
/// [`available`] said the CPU has it. (`#[inline(always)]` cannot carry target features; these
/// small functions inline anyway.)
macro_rules! lanes {
    ($($(#[$m:meta])* $vis:vis fn $($rest:tt)*)?) => {
        $($(#[$m])*
        ///
        /// # Safety
        /// Compiled for AVX-512: call only where [`available`] is true.
        #[inline]
        #[target_feature(enable = "avx512f,avx512vl,avx512cd,avx512bw,avx512dq")]
        $vis fn $($rest)*)?
    };
}

/// One 64-bit value per operation, in one AVX-512 register. Conditions are masks: all ones in
/// the lanes where they hold, so selects and combinations are bitwise.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct V([__m512i; K]);

impl V {
    /// The value of each lane.
    pub fn to_array(self) -> [u64; N] {
        // SAFETY: `__m512i` is 64 bytes of plain data, like `[u64; 8]`.
        unsafe { core::mem::transmute::<[__m512i; K], [u64; N]>(self.0) }
    }

    pub fn from_array(a: [u64; N]) -> V {
        // SAFETY: as in `to_array`.
        V(unsafe { core::mem::transmute::<[u64; N], [__m512i; K]>(a) })
    }
}

impl fmt::Debug for V {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:x?}", self.to_array())
    }
}

impl PartialEq for V {
    fn eq(&self, o: &V) -> bool {
        self.to_array() == o.to_array()
    }
}

/// Applies a one-register operation to each register of the operands.
macro_rules! each {
    ($f:expr; $($a:expr),+) => {{
        const _: () = assert!(K == 2);
        V([$f($($a.0[0]),+), $f($($a.0[1]),+)])
    }};
}

/// Applies a one-register comparison to each register and widens its mask to all-ones lanes.
macro_rules! mv {
    ($f:expr; $($a:expr),+) => {{
        const _: () = assert!(K == 2);
        V([_mm512_movm_epi64($f($($a.0[0]),+)), _mm512_movm_epi64($f($($a.0[1]),+))])
    }};
}

impl V {
    lanes! { pub fn splat(x: u64) -> V { V([_mm512_set1_epi64(x as i64); K]) } }
    lanes! { fn zero() -> V { V([_mm512_setzero_si512(); K]) } }
    lanes! { fn and(self, o: V) -> V { each!(_mm512_and_si512; self, o) } }
    lanes! { fn or(self, o: V) -> V { each!(_mm512_or_si512; self, o) } }
    lanes! { fn xor(self, o: V) -> V { each!(_mm512_xor_si512; self, o) } }
    lanes! { fn not(self) -> V { each!(_mm512_ternarylogic_epi64::<0x55>; self, self, self) } }
    lanes! { /// `self & !o`.
    fn andn(self, o: V) -> V { each!(_mm512_andnot_si512; o, self) } }
    lanes! { fn add(self, o: V) -> V { each!(_mm512_add_epi64; self, o) } }
    lanes! { fn sub(self, o: V) -> V { each!(_mm512_sub_epi64; self, o) } }
    lanes! { fn shl(self, n: u32) -> V { self.shlv(V::splat(n as u64)) } }
    lanes! { fn shr(self, n: u32) -> V { self.shrv(V::splat(n as u64)) } }
    lanes! { /// Per-lane left shift; an amount of 64 or more gives zero.
    fn shlv(self, n: V) -> V { each!(_mm512_sllv_epi64; self, n) } }
    lanes! { fn shrv(self, n: V) -> V { each!(_mm512_srlv_epi64; self, n) } }
    lanes! { /// Arithmetic right shift.
    fn sra(self, n: u32) -> V { each!(_mm512_srav_epi64; self, V::splat(n as u64)) } }
    lanes! { /// `a` where the mask is set, else `b`.
        fn sel(self, a: V, b: V) -> V {
        each!(_mm512_ternarylogic_epi64::<0xCA>; self, a, b)
    } }
    lanes! { fn is0(self) -> V { mv!(_mm512_testn_epi64_mask; self, self) } }
    lanes! { /// Whether any lane is non-zero.
    fn any(self) -> bool {
        let [x, y] = self.0;
        (_mm512_test_epi64_mask(x, x) | _mm512_test_epi64_mask(y, y)) != 0
    } }
    lanes! { fn eq(self, o: V) -> V { mv!(_mm512_cmpeq_epi64_mask; self, o) } }
    lanes! { /// Signed less-than.
    fn lts(self, o: V) -> V { mv!(_mm512_cmplt_epi64_mask; self, o) } }
    lanes! { /// Unsigned less-than.
    fn ltu(self, o: V) -> V { mv!(_mm512_cmplt_epu64_mask; self, o) } }
    lanes! { fn mins(self, o: V) -> V { each!(_mm512_min_epi64; self, o) } }
    lanes! { fn maxs(self, o: V) -> V { each!(_mm512_max_epi64; self, o) } }
    lanes! { fn minu(self, o: V) -> V { each!(_mm512_min_epu64; self, o) } }
    lanes! { fn maxu(self, o: V) -> V { each!(_mm512_max_epu64; self, o) } }
    lanes! { /// Signed clamp.
        fn clamp(self, lo: i64, hi: i64) -> V {
        self.maxs(V::splat(lo as u64)).mins(V::splat(hi as u64))
    } }
    lanes! { fn lzcnt(self) -> V { each!(_mm512_lzcnt_epi64; self) } }
    lanes! { /// Bit `i` of every lane as a mask.
        fn bitm(self, i: u32) -> V {
        mv!(_mm512_test_epi64_mask; self, V::splat(1 << i))
    } }
    lanes! { /// A mask as 0 or 1.
    fn bit01(self) -> V { self.shr(63) } }
    lanes! { /// Sign-extends from bit 15: the value an `i16` register field holds.
    fn i16(self) -> V { self.shl(48).sra(48) } }
}

/// A 3-limb window value per lane (the scalar `Wide`), limbs little-endian.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct W(pub [V; 3]);

impl W {
    fn lane<const B: usize>(&self, i: usize) -> crate::wide::Wide<B> {
        let l = |k: usize| self.0[k].to_array()[i];
        crate::wide::Wide::from_limbs([l(0), l(1), l(2)])
    }

    lanes! {
        /// Drops bits at and above `b`.
        fn trunc(self, b: u32) -> W {
            let top = crate::wide::Wide::<192>::low_mask(b as usize).as_limbs()[2];
            W([self.0[0], self.0[1], self.0[2].and(V::splat(top))])
        }
    }

    lanes! { fn not(self, b: u32) -> W {
        W([self.0[0].not(), self.0[1].not(), self.0[2].not()]).trunc(b)
    } }

    lanes! { fn and(self, o: W) -> W {
        W([self.0[0].and(o.0[0]), self.0[1].and(o.0[1]), self.0[2].and(o.0[2])])
    } }

    lanes! { fn or(self, o: W) -> W {
        W([self.0[0].or(o.0[0]), self.0[1].or(o.0[1]), self.0[2].or(o.0[2])])
    } }

    lanes! { fn xor(self, o: W) -> W {
        W([self.0[0].xor(o.0[0]), self.0[1].xor(o.0[1]), self.0[2].xor(o.0[2])])
    } }

    lanes! { fn xor_mask(self, k: V, b: u32) -> W {
        W([self.0[0].xor(k), self.0[1].xor(k), self.0[2].xor(k)]).trunc(b)
    } }

    lanes! { fn sel(k: V, a: W, b: W) -> W {
        W([k.sel(a.0[0], b.0[0]), k.sel(a.0[1], b.0[1]), k.sel(a.0[2], b.0[2])])
    } }

    lanes! { fn is0(self) -> V {
        self.0[0].or(self.0[1]).or(self.0[2]).is0()
    } }

    lanes! {
        /// Bit `i` as a mask.
        fn bitm(self, i: u32) -> V {
            self.0[(i / 64) as usize].bitm(i % 64)
        }
    }

    lanes! {
        /// Sum modulo 2^b.
        fn add(self, o: W, b: u32) -> W {
            let s0 = self.0[0].add(o.0[0]);
            let c0 = s0.ltu(o.0[0]).bit01();
            let t1 = self.0[1].add(o.0[1]);
            let c1a = t1.ltu(o.0[1]);
            let s1 = t1.add(c0);
            let c1b = s1.ltu(t1);
            let s2 = self.0[2].add(o.0[2]).add(c1a.or(c1b).bit01());
            W([s0, s1, s2]).trunc(b)
        }
    }

    lanes! {
        /// Adds a 0/1 value per lane (a carry-in) modulo 2^b.
        fn add_bit(self, c: V, b: u32) -> W {
            let z = V::zero();
            self.add(W([c, z, z]), b)
        }
    }

    lanes! {
        /// Left shift by a constant `0 < n < 64`, modulo 2^b.
        fn shl_c(self, n: u32, b: u32) -> W {
            let [l0, l1, l2] = self.0;
            W([
                l0.shl(n),
                l1.shl(n).or(l0.shr(64 - n)),
                l2.shl(n).or(l1.shr(64 - n)),
            ])
            .trunc(b)
        }
    }

    lanes! {
        /// Right shift by a constant `0 < n < 64`.
        fn shr_c(self, n: u32) -> W {
            let [l0, l1, l2] = self.0;
            W([
                l0.shr(n).or(l1.shl(64 - n)),
                l1.shr(n).or(l2.shl(64 - n)),
                l2.shr(n),
            ])
        }
    }

    lanes! {
        /// Left shift by a per-lane amount, modulo 2^b (an amount of `b` or more gives zero).
        fn shl_v(self, n: V, b: u32) -> W {
            let [l0, l1, l2] = self.0;
            let k = n.and(V::splat(63));
            // `x >> (64 - k)`: a count of 64 gives zero, which is right for k = 0.
            let up = V::splat(64).sub(k);
            let t0 = l0.shlv(k);
            let t1 = l1.shlv(k).or(l0.shrv(up));
            let t2 = l2.shlv(k).or(l1.shrv(up));
            let q = n.shr(6);
            let live = n.ltu(V::splat(b as u64));
            let (q0, q1, q2) = (q.eq(V::splat(0)), q.eq(V::splat(1)), q.eq(V::splat(2)));
            W([
                t0.and(q0).and(live),
                q0.sel(t1, t0.and(q1)).and(live),
                q0.sel(t2, q1.sel(t1, t0.and(q2))).and(live),
            ])
            .trunc(b)
        }
    }

    lanes! {
        /// Right shift by a per-lane amount (`b` or more gives zero) and whether a set bit
        /// fell out.
        fn shr_sticky_v(self, n: V, b: u32) -> (W, V) {
            let [l0, l1, l2] = self.0;
            let k = n.and(V::splat(63));
            let dn = V::splat(64).sub(k);
            let t0 = l0.shrv(k).or(l1.shlv(dn));
            let t1 = l1.shrv(k).or(l2.shlv(dn));
            let t2 = l2.shrv(k);
            let q = n.shr(6);
            let live = n.ltu(V::splat(b as u64));
            let (q0, q1, q2) = (q.eq(V::splat(0)), q.eq(V::splat(1)), q.eq(V::splat(2)));
            let out = W([
                q0.sel(t0, q1.sel(t1, t2.and(q2))).and(live),
                q0.sel(t1, t2.and(q1)).and(live),
                t2.and(q0).and(live),
            ]);
            // The bits below the shift amount, limb by limb: `!0 >> (64 - kk)` keeps kk bits.
            let lost = l0
                .and(low_bits(n, 0))
                .or(l1.and(low_bits(n, 1)))
                .or(l2.and(low_bits(n, 2)));
            (out, lost.is0().not())
        }
    }

    lanes! {
        /// Leading zeros within a `b`-bit width (`b` for zero).
        fn leading_zeros(self, b: u32) -> V {
            let [l0, l1, l2] = self.0;
            let lz = l2
                .lzcnt()
                .add(l2.is0().and(l1.lzcnt().add(l1.is0().and(l0.lzcnt()))));
            lz.sub(V::splat(192 - b as u64))
        }
    }
}

lanes! {
    /// Limb `j` of a mask of the low `n` bits: `!0 >> (64 - kk)` keeps kk bits (a count of 64
    /// gives zero).
    fn low_bits(n: V, j: u64) -> V {
        let kk = n.sub(V::splat(64 * j)).clamp(0, 64);
        V::splat(!0).shrv(V::splat(64).sub(kk))
    }
}

/// A 2-limb multiplier row per lane (the scalar `u128` row).
#[derive(Clone, Copy)]
struct R2([V; 2]);

lanes! {
    /// A 3:2 compressor over narrow rows (`csa_tree::compress` on the low words).
    fn compress_narrow(x: V, y: V, z: V) -> (V, V) {
        let sum = each!(_mm512_ternarylogic_epi64::<0x96>; x, y, z);
        let maj = each!(_mm512_ternarylogic_epi64::<0xE8>; x, y, z);
        (sum, maj.shl(1))
    }
}

lanes! {
    /// A 3:2 compressor over two-limb rows.
    fn compress_full(x: R2, y: R2, z: R2) -> (R2, R2) {
        let (x0, y0, z0) = (x.0[0], y.0[0], z.0[0]);
        let (x1, y1, z1) = (x.0[1], y.0[1], z.0[1]);
        let s0 = each!(_mm512_ternarylogic_epi64::<0x96>; x0, y0, z0);
        let s1 = each!(_mm512_ternarylogic_epi64::<0x96>; x1, y1, z1);
        let m0 = each!(_mm512_ternarylogic_epi64::<0xE8>; x0, y0, z0);
        let m1 = each!(_mm512_ternarylogic_epi64::<0xE8>; x1, y1, z1);
        (R2([s0, s1]), R2([m0.shl(1), m1.shl(1).or(m0.shr(63))]))
    }
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

/// The row multiplexer as tables indexed by a digit's three multiplier bits (the `sel` of
/// `booth::rows_used`), one table per digit position `i`, so that a row is two table look-ups
/// across the lanes (`vpermq`, which reads only the index's low three bits) and two shifts:
/// the multiple `m`, `2m`, or nothing, is `m` shifted left by 2i, 2i+1, or 64 (which clears
/// it), and an inverted multiple is that value XOR the ones from bit 2i up, since
/// `(!x) << k == (x << k) ^ (!0 << k)`.
struct BoothTables {
    /// Left shift of `m` for the low word.
    shl: [[u64; 8]; DIGITS],
    /// Right shift of `m` giving the high word (64 when the high word is zero).
    shr: [[u64; 8]; DIGITS],
    /// Inversion mask of the low word (`!0 << 2i` for negative digits).
    inv_lo: [[u64; 8]; DIGITS],
}

const BOOTH: BoothTables = {
    // sel: 0 -> 0, 1/2 -> m, 3 -> 2m, 4 -> !2m, 5/6 -> !m, 7 -> !0.
    const SHIFT: [u64; 8] = [64, 0, 0, 1, 1, 0, 0, 64];
    let mut t = BoothTables {
        shl: [[0; 8]; DIGITS],
        shr: [[0; 8]; DIGITS],
        inv_lo: [[0; 8]; DIGITS],
    };
    let mut i = 0;
    while i < DIGITS {
        let mut sel = 0;
        while sel < 8 {
            let at = 2 * i as u64;
            let (l, h) = if SHIFT[sel] == 64 {
                (64, 64)
            } else {
                let k = SHIFT[sel] + at;
                (k, if k == 0 { 64 } else { 64 - k })
            };
            t.shl[i][sel] = l;
            t.shr[i][sel] = h;
            t.inv_lo[i][sel] = if sel >= 4 { !0 << at } else { 0 };
            sel += 1;
        }
        i += 1;
    }
    t
};

/// The high-word inversion mask: all ones for a negative digit at any position.
const INV_HI: [u64; 8] = [0, 0, 0, 0, !0, !0, !0, !0];

lanes! {
    /// Looks up each lane's entry of `table` by the low three bits of its `idx` lane.
    fn lookup(idx: V, table: &[u64; 8]) -> V {
        // SAFETY: eight u64 are the 64 bytes of one register.
        let t = unsafe { core::mem::transmute::<[u64; 8], __m512i>(*table) };
        V([
            _mm512_permutexvar_epi64(idx.0[0], t),
            _mm512_permutexvar_epi64(idx.0[1], t),
        ])
    }
}

lanes! {
    /// Row `i` of the narrow array (low words): `booth::rows_narrow`.
    fn narrow_row(i: usize, (mc, b2): (V, V)) -> V {
        let sel = b2.shr(2 * i as u32);
        mc.shlv(lookup(sel, &BOOTH.shl[i])).xor(lookup(sel, &BOOTH.inv_lo[i]))
    }
}

lanes! {
    /// Row `i` of the full array, two limbs (`booth::rows` for multiplicands below 2^53).
    fn full_row(i: usize, (mc, b2): (V, V)) -> R2 {
        let sel = b2.shr(2 * i as u32);
        R2([
            mc.shlv(lookup(sel, &BOOTH.shl[i])).xor(lookup(sel, &BOOTH.inv_lo[i])),
            mc.shrv(lookup(sel, &BOOTH.shr[i])).xor(lookup(sel, &INV_HI)),
        ])
    }
}

lanes! {
    /// `booth::rows_narrow` + `csa_tree::reduce_narrow` per lane.
    fn multiply_narrow(mc: V, mp: V) -> (V, V, V, V) {
        let b2 = mp.shl(1);
        let mut rows = [V::zero(); ROWS];
        booth_rows!(rows = narrow_row((mc, b2)); 0 1 2 3 4 5 6 7 8 9 10 11 12);
        const _: () = assert!(booth::NARROW_DIGITS == 13);
        rows[DIGITS] = mp.shr(1).and(V::splat(NEG_ROW_MASK));
        tree!(rows, compress_narrow);
        // Bit 63 stands for bits 127:63 (see `booth::rows_narrow`); keep 106 bits.
        let top = V::splat((1 << 42) - 1);
        (rows[0], rows[0].sra(63).and(top), rows[1], rows[1].sra(63).and(top))
    }
}

lanes! {
    /// `booth::rows` + `csa_tree::reduce` per lane, for multiplicands below 2^53 (binary64
    /// significands).
    fn multiply_full(mc: V, mp: V) -> (V, V, V, V) {
        let mp = mp.and(V::splat(B_MASK));
        let b2 = mp.shl(1);
        let z = V::zero();
        let mut rows = [R2([z, z]); ROWS];
        booth_rows!(rows = full_row((mc, b2));
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
        const _: () = assert!(DIGITS == 27);
        rows[DIGITS] = R2([mp.shr(1).and(V::splat(NEG_ROW_MASK)), z]);
        tree!(rows, compress_full);
        let top = V::splat((1 << 42) - 1);
        (
            rows[0].0[0],
            rows[0].0[1].and(top),
            rows[1].0[0],
            rows[1].0[1].and(top),
        )
    }
}

/// One unpacked float operand per lane (`unpack::Operand`); conditions are masks.
#[derive(Clone, Copy)]
struct Op {
    sign: V,
    exp: V,
    sig: V,
    zero: V,
    inf: V,
    nan: V,
}

lanes! {
/// `unpack::unpack` per lane.
fn unpack(bits: V, f: Fmt, flush: bool) -> Op {
    let (eb, fb) = (f.exp_bits, f.frac_bits);
    let emax_field = f.exp_max();
    let bias = f.bias() as u64;
    let e = bits.shr(fb).and(V::splat(emax_field));
    let frac = bits.and(V::splat(f.frac_mask()));
    let e0 = e.is0();
    let flushed = e0.and(V::splat(mask_of(flush)));
    let emax = e.eq(V::splat(emax_field));
    let f0 = frac.is0();
    Op {
        sign: bits.bitm(eb + fb),
        exp: e.maxu(V::splat(1)).sub(V::splat(bias)),
        sig: e0
            .not()
            .and(V::splat(1 << fb))
            .or(frac)
            .shl(52 - fb)
            .andn(flushed),
        zero: e0.and(f0.or(flushed)),
        inf: emax.and(f0),
        nan: emax.andn(f0),
    }
}
}

/// The lane-parallel stage-1 bank: the fields of [`S1`](crate::regs::S1) and of its lane 0.
#[derive(Clone, Copy)]
pub struct S1x {
    pub mul_sum: [V; 2],
    pub mul_carry: [V; 2],
    pub sign_p: V,
    pub sign_c: V,
    pub prod_zero: V,
    pub c_zero: V,
    pub eref: V,
    pub c_aligned: W,
    pub align_sticky: V,
    pub spec_valid: V,
    pub spec_res: V,
}

/// The lane-parallel stage-2 bank (lane 0 of [`S2`](crate::regs::S2)).
#[derive(Clone, Copy)]
pub struct S2x {
    pub sign: V,
    pub zero: V,
    pub flush_sign: V,
    pub mag: W,
    pub sticky: V,
    pub lza_cnt: V,
    pub eref: V,
    pub spec_valid: V,
    pub spec_res: V,
}

/// The lane-parallel stage-3 bank (lane 0 of [`S3`](crate::regs::S3)).
#[derive(Clone, Copy)]
pub struct S3x {
    pub sign: V,
    pub zero: V,
    pub flush_sign: V,
    pub norm: W,
    pub sticky: V,
    pub exp: V,
    pub spec_valid: V,
    pub spec_res: V,
}

lanes! {
/// Stage 1 for sixteen operations of one control word (`pipeline::stage1` per lane).
pub fn stage1<const F64: bool>(ctrl: &Ctrl, a: V, b: V, c: V) -> S1x {
    let ctrl = &with_kind::<F64>(ctrl);
    let f64 = ctrl.kind == Kind::F64;
    let flush = ctrl.flush();
    let (ua, ub, uc, raw) = if f64 {
        (
            unpack(a, format::F64, false),
            unpack(b, format::F64, false),
            unpack(c, format::F64, false),
            [a, b, c],
        )
    } else {
        let (w, h) = (V::splat(0xFFFF_FFFF), V::splat(0xFFFF));
        let (ua, ub) = match ctrl.ab_fmt {
            AbFmt::Native => (unpack(a.and(w), format::F32, flush), unpack(b.and(w), format::F32, flush)),
            AbFmt::F16 => (unpack(a.and(h), format::F16, false), unpack(b.and(h), format::F16, false)),
            AbFmt::Bf16 => (unpack(a.and(h), format::BF16, false), unpack(b.and(h), format::BF16, false)),
        };
        (ua, ub, unpack(c.and(w), format::F32, flush), [a.and(w), b.and(w), c.and(w)])
    };
    let z = V::zero();
    let ub = if ctrl.b_one {
        Op {
            sign: z,
            exp: z,
            sig: V::splat(1 << 52),
            zero: z,
            inf: z,
            nan: z,
        }
    } else {
        ub
    };
    let mut uc = if ctrl.c_zero {
        Op {
            sign: V::splat(mask_of(ctrl.rnd != Rnd::Rm)),
            exp: V::splat((1i64 - 127) as u64),
            sig: z,
            zero: V::splat(!0),
            inf: z,
            nan: z,
        }
    } else {
        uc
    };
    uc.sign = uc.sign.xor(V::splat(mask_of(ctrl.neg_c)));
    let (a, b, c) = (ua, ub, uc);

    // Special-case unit.
    let sign_p = a.sign.xor(b.sign);
    let p_inf = a.inf.or(b.inf);
    let any_nan = a.nan.or(b.nan).or(c.nan);
    let invalid = a
        .inf
        .and(b.zero)
        .or(a.zero.and(b.inf))
        .or(p_inf.and(c.inf).and(sign_p.xor(c.sign)));
    let (sign_bit, inf_bits) = if f64 {
        (1 << 63, 0x7FF0_0000_0000_0000)
    } else {
        (1 << 31, 0x7F80_0000)
    };
    let inf_p = sign_p.and(V::splat(sign_bit)).or(V::splat(inf_bits));
    let inf_c = c.sign.and(V::splat(sign_bit)).or(V::splat(inf_bits));
    let nan_res = if f64 {
        // S2: the first NaN operand, quieted; else the default NaN.
        let first = a.nan.sel(raw[0], b.nan.sel(raw[1], raw[2]));
        any_nan.sel(first.or(V::splat(1 << 51)), V::splat(F64_NAN))
    } else {
        V::splat(F32_NAN)
    };
    let is_nan = any_nan.or(invalid);
    let spec_valid = is_nan.or(p_inf).or(c.inf);
    let spec_res = is_nan.sel(nan_res, p_inf.sel(inf_p, c.inf.sel(inf_c, z)));

    // Alignment shifter.
    let prod_zero = a.zero.or(b.zero);
    let ep = a.exp.add(b.exp);
    let ec = c.exp;
    let d = ec.sub(ep);
    let far = prod_zero.or(V::splat(56).lts(d));
    let near_sh = V::splat(56)
        .sub(d)
        .clamp(0, crate::align::MAX_SHIFT as i64);
    let sh = c.zero.sel(
        V::splat(crate::align::MAX_SHIFT as u64),
        far.sel(z, near_sh),
    );
    let eref = c.zero.sel(ep, far.sel(ec.sub(V::splat(56)), ep)).i16();
    // The addend's leading bit at window bit 163: bit 52 of the significand goes to 163.
    let top = W([z, c.sig.shl(47), c.sig.shr(17)]);
    let (c_aligned, align_sticky) = top.shr_sticky_v(sh, 164);

    // Booth array and carry-save tree.
    let (s0, s1, c0, c1) = if f64 {
        multiply_full(a.sig, b.sig)
    } else {
        multiply_narrow(a.sig.shr(29), b.sig.shr(29))
    };
    S1x {
        mul_sum: [s0, s1],
        mul_carry: [c0, c1],
        sign_p,
        sign_c: c.sign,
        prod_zero,
        c_zero: c.zero,
        eref,
        c_aligned,
        align_sticky,
        spec_valid,
        spec_res,
    }
}
}

lanes! {
/// Stage 2 (`pipeline::stage2` per lane): product add, significand add, LZA.
pub fn stage2<const F64: bool>(ctrl: &Ctrl, s: &S1x) -> S2x {
    let ctrl = &with_kind::<F64>(ctrl);
    let z = V::zero();
    // Carry-propagate add of the pair, modulo 2^106.
    let lo = s.mul_sum[0].add(s.mul_carry[0]);
    let cy = lo.ltu(s.mul_sum[0]).bit01();
    let hi = s.mul_sum[1]
        .add(s.mul_carry[1])
        .add(cy)
        .and(V::splat((1 << 42) - 1));
    // The product in the window, as `adder::operands` places it (U166 of p << 3).
    let p = if ctrl.kind == Kind::F64 {
        W([lo, hi, z])
    } else {
        // (prod & (2^48 - 1)) << 58: bits 47:0 go to 105:58.
        let p48 = lo.and(V::splat((1 << 48) - 1));
        W([p48.shl(58), p48.shr(6), z])
    };
    let a = p.shl_c(3, 166);
    let eff_sub = s.sign_p.xor(s.sign_c);
    let b = s.c_aligned.xor_mask(eff_sub, 166);
    let sticky = s.align_sticky;
    // adder::add.
    let cin = eff_sub.andn(sticky).bit01();
    let sum = a.add(b, 166).add_bit(cin, 166);
    let neg = eff_sub.and(sum.bitm(165));
    let mag = W::sel(neg, sum.not(166), sum)
        .add_bit(neg.andn(sticky).bit01(), 166)
        .trunc(165);
    let zero = mag.is0().andn(sticky);
    let rm = V::splat(mask_of(crate::round::effective_rnd(ctrl) == Rnd::Rm));
    let sign = zero.sel(eff_sub.sel(rm, s.sign_p), neg.xor(s.sign_p));

    // lza::predict.
    let t = a.xor(b);
    let g = a.and(b);
    let zz = a.or(b).not(166);
    let t_up = t.shr_c(1);
    let g_dn = g.shl_c(1, 166);
    let z_dn = zz.shl_c(1, 166).or(W([V::splat(1), z, z]));
    let f = t_up
        .and(g.and(z_dn.not(166)).or(zz.and(g_dn.not(166))))
        .or(t_up
            .not(166)
            .and(zz.and(z_dn.not(166)).or(g.and(g_dn.not(166)))));
    let pos = V::splat(165).sub(f.leading_zeros(166));
    let cnt = V::splat(164).sub(pos).clamp(0, 165);
    let lza_cnt = f.is0().sel(V::splat(165), cnt);

    S2x {
        sign,
        zero,
        flush_sign: sign,
        mag,
        sticky,
        lza_cnt,
        eref: s.eref,
        spec_valid: s.spec_valid,
        spec_res: s.spec_res,
    }
}
}

lanes! {
/// Stage 3 (`pipeline::stage3` per lane): normalisation.
pub fn stage3<const F64: bool>(ctrl: &Ctrl, s: &S2x) -> S3x {
    let ctrl = &with_kind::<F64>(ctrl);
    let emin = crate::round::result_fmt(ctrl).emin as i64 as u64;
    let lim = s.eref.add(V::splat(57)).sub(V::splat(emin));
    let under_range = lim.lts(V::zero());
    // Below the format's range before any shift: shift right, collecting sticky.
    let rs = V::zero().sub(lim).clamp(0, 166);
    // Rare (a result far below the format's range): skipped when no lane needs it.
    let (rnorm, rsticky) = if under_range.any() {
        s.mag.shr_sticky_v(rs, 165)
    } else {
        (s.mag, V::zero())
    };
    // Otherwise: the LZA's shift, then one bit of correction either way.
    let s0 = s.lza_cnt.mins(lim).maxs(V::zero());
    let x = s.mag.shl_v(s0, 166);
    let over = x.bitm(165);
    let under = over.or(x.bitm(164)).not().and(s0.lts(lim));
    let x = W::sel(over, x.shr_c(1), W::sel(under, x.shl_c(1, 166), x)).trunc(165);
    let sh = s0.sub(over.bit01()).add(under.bit01());
    let exp = s.eref.add(V::splat(57)).sub(sh);
    S3x {
        sign: s.sign,
        zero: s.zero,
        flush_sign: s.flush_sign,
        norm: W::sel(under_range, rnorm, x),
        sticky: s.sticky.or(under_range.and(rsticky)),
        exp: under_range.sel(V::splat(emin), exp).i16(),
        spec_valid: s.spec_valid,
        spec_res: s.spec_res,
    }
}
}

lanes! {
/// Stage 4 (`round::round` per lane): the result word.
pub fn stage4<const F64: bool>(ctrl: &Ctrl, s: &S3x) -> V {
    let ctrl = &with_kind::<F64>(ctrl);
    let f = crate::round::result_fmt(ctrl);
    let rnd = crate::round::effective_rnd(ctrl);
    let p = f.p;
    let sign_at = f.width - 1;
    // The kept significand (bits 164:165-p) and what lies below it.
    let sig = if 165 - p >= 128 {
        s.norm.0[2].shr(165 - p - 128)
    } else {
        let k = 165 - p - 64;
        s.norm.0[1].shr(k).or(s.norm.0[2].shl(64 - k))
    };
    let rb = s.norm.bitm(164 - p);
    let below = s
        .norm
        .and({
            let [l0, l1, l2] = *U165::low_mask((164 - p) as usize).as_limbs();
            W([V::splat(l0), V::splat(l1), V::splat(l2)])
        })
        .is0()
        .not();
    let st = below.or(s.sticky);
    let one = V::splat(1);
    let inc = match rnd {
        Rnd::Rn => rb.and(st.or(sig.and(one).eq(one))),
        Rnd::Rz => V::zero(),
        Rnd::Rm => s.sign.and(rb.or(st)),
        Rnd::Rp => s.sign.not().and(rb.or(st)),
    }
    .and(one);
    let sum = sig.add(inc);
    let carry = sum.shr(p).is0().not();
    let sig_f = carry.sel(sum.shr(1), sum);
    let e = carry.and(one).add(s.exp);
    let normal = sig_f.bitm(p - 1);
    let sign = s.sign.and(one).shl(sign_at);
    let frac_mask = V::splat((1u64 << (p - 1)) - 1);
    let inf = sign.or(V::splat(((1u64 << (f.width - f.p)) - 1) << (p - 1)));
    let max = inf.sub(one);
    let ovf_val = match rnd {
        Rnd::Rn => inf,
        Rnd::Rz => max,
        Rnd::Rm => s.sign.sel(inf, max),
        Rnd::Rp => s.sign.sel(max, inf),
    };
    let ovf = normal.and(V::splat(f.emax as i64 as u64).lts(e));
    let biased = normal.and(e.sub(V::splat(f.emin as i64 as u64)).add(one));
    let flushed = biased.is0().and(V::splat(mask_of(ctrl.flush())));
    let fin = sign.or(biased.shl(p - 1)).or(sig_f.and(frac_mask));
    let fin = flushed.sel(s.flush_sign.and(one).shl(sign_at), fin);
    let enc = s
        .spec_valid
        .sel(s.spec_res, s.zero.sel(sign, ovf.sel(ovf_val, fin)));
    if ctrl.sat && f.width == 32 {
        // `round::saturate_f32`: NaN and anything <= 0 to +0, anything >= 1.0 to 1.0.
        let nan = enc
            .and(V::splat(0x7F80_0000))
            .eq(V::splat(0x7F80_0000))
            .andn(enc.and(V::splat(0x7F_FFFF)).is0());
        nan.or(enc.bitm(31)).sel(V::zero(), enc.minu(V::splat(0x3F80_0000)))
    } else {
        enc
    }
}
}

lanes! {
/// Results of sixteen operations of one control word, through all four stages, compiled once
/// per kind so that the other kind's logic folds away.
fn results_body<const F64: bool>(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    let s1 = stage1::<F64>(ctrl, a, b, c);
    let s2 = stage2::<F64>(ctrl, &s1);
    let s3 = stage3::<F64>(ctrl, &s2);
    stage4::<F64>(ctrl, &s3)
}
}

lanes! {
/// [`results_body`] for the control word's kind.
fn results_avx512(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    if ctrl.kind == Kind::F64 {
        results_body::<true>(ctrl, a, b, c)
    } else {
        results_body::<false>(ctrl, a, b, c)
    }
}
}

/// `ctrl` with its kind fixed at compile time: each stage is compiled once per kind (the
/// stages take `F64` as a parameter, as the scalar pipeline compiles its stages per kind).
#[inline(always)]
fn with_kind<const F64: bool>(ctrl: &Ctrl) -> Ctrl {
    let kind = if F64 { Kind::F64 } else { Kind::F32 };
    Ctrl { kind, ..*ctrl }
}

/// Whether this CPU runs the lane engine (AVX-512 F, VL, CD, BW and DQ), checked once.
pub fn available() -> bool {
    use std::sync::OnceLock;
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
    })
}

/// Whether `ctrl` goes through the lane engine here: a kind it has a form for, on a CPU that
/// runs it.
pub fn supported(ctrl: &Ctrl) -> bool {
    matches!(ctrl.kind, Kind::F32 | Kind::F64) && available()
}

/// The result words of sixteen operations of one control word, or `None` where
/// [`supported`] is false.
pub fn results(ctrl: &Ctrl, a: V, b: V, c: V) -> Option<V> {
    if !supported(ctrl) {
        return None;
    }
    // SAFETY: `available` confirmed every feature the engine is compiled for.
    Some(unsafe { results_avx512(ctrl, a, b, c) })
}

impl S1x {
    /// Lane `i` as the scalar bank's lane-0 fields and multiplier pair.
    pub fn lane(&self, i: usize) -> (u128, u128, S1Lane) {
        let w = |v: [V; 2]| v[0].to_array()[i] as u128 | (v[1].to_array()[i] as u128) << 64;
        let b = |v: V| v.to_array()[i] != 0;
        (
            w(self.mul_sum),
            w(self.mul_carry),
            S1Lane {
                sign_p: b(self.sign_p),
                sign_c: b(self.sign_c),
                prod_zero: b(self.prod_zero),
                c_zero: b(self.c_zero),
                eref: self.eref.to_array()[i] as i16,
                c_aligned: self.c_aligned.lane::<164>(i),
                align_sticky: b(self.align_sticky),
                spec_valid: b(self.spec_valid),
                spec_res: self.spec_res.to_array()[i],
            },
        )
    }
}

impl S2x {
    pub fn lane(&self, i: usize) -> S2Lane {
        let b = |v: V| v.to_array()[i] != 0;
        S2Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            mag: self.mag.lane::<165>(i),
            sticky: b(self.sticky),
            lza_cnt: self.lza_cnt.to_array()[i] as u8,
            eref: self.eref.to_array()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_array()[i],
        }
    }
}

impl S3x {
    pub fn lane(&self, i: usize) -> S3Lane {
        let b = |v: V| v.to_array()[i] != 0;
        S3Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            norm: self.norm.lane::<165>(i),
            sticky: b(self.sticky),
            exp: self.exp.to_array()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_array()[i],
        }
    }
}

// Window types the lanes mirror (their widths are the constants used above).
const _: () = {
    assert!(U164::BITS == 164 && U165::BITS == 165 && U166::BITS == 166);
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{stage1 as s1, stage2 as s2, stage3 as s3, stage4 as s4, PipeIn};
    use crate::stimulus::{operands_for, Family, Rng};

    /// The four lane banks and the results.
    unsafe fn chain<const F64: bool>(ctrl: &Ctrl, a: V, b: V, c: V) -> (S1x, S2x, S3x, V) {
        let l1 = stage1::<F64>(ctrl, a, b, c);
        let l2 = stage2::<F64>(ctrl, &l1);
        let l3 = stage3::<F64>(ctrl, &l2);
        let d = stage4::<F64>(ctrl, &l3);
        (l1, l2, l3, d)
    }

    /// Every register field of every lane, and the result, equal the scalar stage functions,
    /// for every control word of the supported families on edge-biased operands.
    #[test]
    fn lanes_equal_the_scalar_stages_field_for_field() {
        if !available() {
            eprintln!("skipped: this CPU lacks the AVX-512 subsets the lane engine needs");
            return;
        }
        let mut rng = Rng::new(11);
        let mut words = 0;
        for fam in [Family::F32, Family::F64, Family::Mixed, Family::AddSubMul] {
            for ctrl in fam.ctrls() {
                assert!(supported(&ctrl), "{ctrl:?}");
                words += 1;
                for _ in 0..100 {
                    let mut ins = [(0u64, 0u64, 0u64); N];
                    for x in ins.iter_mut() {
                        *x = operands_for(&ctrl, &mut rng);
                    }
                    let v = |k: usize| {
                        V::from_array(std::array::from_fn(|i| [ins[i].0, ins[i].1, ins[i].2][k]))
                    };
                    let (a, b, c) = (v(0), v(1), v(2));
                    // SAFETY: `available` said the CPU runs the engine.
                    let (l1, l2, l3, d) = unsafe {
                        if ctrl.kind == Kind::F64 {
                            chain::<true>(&ctrl, a, b, c)
                        } else {
                            chain::<false>(&ctrl, a, b, c)
                        }
                    };
                    assert_eq!(results(&ctrl, a, b, c), Some(d));
                    for (i, &(a, b, c)) in ins.iter().enumerate() {
                        let inp = PipeIn {
                            valid: true,
                            tag: 0,
                            ctrl: ctrl.encode(),
                            a,
                            b,
                            c,
                        };
                        let r1 = s1(&inp);
                        let (ms, mc, lane) = l1.lane(i);
                        let what = format!("{ctrl:?} a={a:#x} b={b:#x} c={c:#x}");
                        assert_eq!((ms, mc), (r1.mul_sum, r1.mul_carry), "S1 pair {what}");
                        assert_eq!(lane, r1.lane0, "S1 {what}");
                        let r2 = s2(&r1);
                        assert_eq!(l2.lane(i), r2.lane0, "S2 {what}");
                        let r3 = s3(&r2);
                        assert_eq!(l3.lane(i), r3.lane0, "S3 {what}");
                        assert_eq!(d.to_array()[i], s4(&r3).d, "d {what}");
                    }
                }
            }
        }
        assert!(words > 100, "only {words} control words");
        let other = Family::Vmad.ctrls()[0];
        let z = V::from_array([0; N]);
        assert_eq!(results(&other, z, z, z), None);
    }
}

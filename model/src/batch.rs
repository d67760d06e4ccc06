//! Lane-parallel evaluation of the pipeline for a stream: sixteen consecutive operations that
//! share one control word go through the four stages side by side, one 64-bit lane per
//! operation, so that each step of a part (a Booth row, a compressor, a window shift) is a few
//! vector instructions for all of them.
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
//! The stages are written once, generic over the vector primitives of [`Lanes`], and
//! instantiated per backend (`lanes::{avx512, avx2, portable}`) inside a function compiled for
//! that backend's target features, so the primitives inline and LLVM schedules the whole
//! pipeline for that instruction set; [`results`] runs the [`Backend`] it is given. The stages
//! are also compiled once per kind (the const parameter `K`), so the other kinds' logic folds
//! away, as in the scalar pipeline.
//!
//! The kinds with a lane-parallel form are the float ones: binary32 and binary64 fma with every
//! modifier (mixed precision and add/sub/mul included), sm_1x `mad.f32`, and f32x2, whose two
//! binary32 halves go through the binary32 stages as two groups of sixteen. vmad runs through
//! the scalar stages.

use crate::booth::{self, B_MASK, DIGITS, NEG_ROW_MASK, ROWS};
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format::{self, Fmt};
#[cfg(target_arch = "x86_64")]
use crate::lanes::{avx2::Avx2, avx512::Avx512};
use crate::lanes::{mask_of, portable::Portable, Backend, Lanes};
#[cfg(test)]
use crate::regs::{S1Lane, S2Lane, S3Lane};
use crate::regs::{U164, U165, U166};
use crate::special::{F32_NAN, F64_NAN};

pub use crate::lanes::N;

/// A 3-limb window value per lane (the scalar `Wide`), limbs little-endian.
#[derive(Clone, Copy)]
pub(crate) struct W<L>(pub [L; 3]);

impl<L: Lanes> W<L> {
    #[cfg(test)]
    fn lane<const B: usize>(&self, i: usize) -> crate::wide::Wide<B> {
        let l = |k: usize| self.0[k].to_vec()[i];
        crate::wide::Wide::from_limbs([l(0), l(1), l(2)])
    }

    /// Drops bits at and above `b`.
    #[inline(always)]
    fn trunc(self, b: u32) -> Self {
        let top = crate::wide::Wide::<192>::low_mask(b as usize).as_limbs()[2];
        W([self.0[0], self.0[1], self.0[2].and(L::splat(top))])
    }

    #[inline(always)]
    fn not(self, b: u32) -> Self {
        W([self.0[0].not(), self.0[1].not(), self.0[2].not()]).trunc(b)
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        W([
            self.0[0].and(o.0[0]),
            self.0[1].and(o.0[1]),
            self.0[2].and(o.0[2]),
        ])
    }

    #[inline(always)]
    fn or(self, o: Self) -> Self {
        W([
            self.0[0].or(o.0[0]),
            self.0[1].or(o.0[1]),
            self.0[2].or(o.0[2]),
        ])
    }

    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        W([
            self.0[0].xor(o.0[0]),
            self.0[1].xor(o.0[1]),
            self.0[2].xor(o.0[2]),
        ])
    }

    #[inline(always)]
    fn xor_mask(self, k: L, b: u32) -> Self {
        W([self.0[0].xor(k), self.0[1].xor(k), self.0[2].xor(k)]).trunc(b)
    }

    #[inline(always)]
    fn sel(k: L, a: Self, b: Self) -> Self {
        W([
            k.sel(a.0[0], b.0[0]),
            k.sel(a.0[1], b.0[1]),
            k.sel(a.0[2], b.0[2]),
        ])
    }

    #[inline(always)]
    fn is0(self) -> L {
        self.0[0].or(self.0[1]).or(self.0[2]).is0()
    }

    /// Bit `i` as a mask.
    #[inline(always)]
    fn bitm(self, i: u32) -> L {
        self.0[(i / 64) as usize].bitm(i % 64)
    }

    /// Sum modulo 2^b.
    #[inline(always)]
    fn add(self, o: Self, b: u32) -> Self {
        let s0 = self.0[0].add(o.0[0]);
        let c0 = s0.ltu(o.0[0]).bit01();
        let t1 = self.0[1].add(o.0[1]);
        let c1a = t1.ltu(o.0[1]);
        let s1 = t1.add(c0);
        let c1b = s1.ltu(t1);
        let s2 = self.0[2].add(o.0[2]).add(c1a.or(c1b).bit01());
        W([s0, s1, s2]).trunc(b)
    }

    /// Adds a 0/1 value per lane (a carry-in) modulo 2^b.
    #[inline(always)]
    fn add_bit(self, c: L, b: u32) -> Self {
        let z = L::zero();
        self.add(W([c, z, z]), b)
    }

    /// Left shift by a constant `0 < n < 64`, modulo 2^b.
    #[inline(always)]
    fn shl_c(self, n: u32, b: u32) -> Self {
        let [l0, l1, l2] = self.0;
        W([
            l0.shl(n),
            l1.shl(n).or(l0.shr(64 - n)),
            l2.shl(n).or(l1.shr(64 - n)),
        ])
        .trunc(b)
    }

    /// Right shift by a constant `0 < n < 64`.
    #[inline(always)]
    fn shr_c(self, n: u32) -> Self {
        let [l0, l1, l2] = self.0;
        W([
            l0.shr(n).or(l1.shl(64 - n)),
            l1.shr(n).or(l2.shl(64 - n)),
            l2.shr(n),
        ])
    }

    /// Left shift by a per-lane amount, modulo 2^b (an amount of `b` or more gives zero).
    #[inline(always)]
    fn shl_v(self, n: L, b: u32) -> Self {
        let [l0, l1, l2] = self.0;
        let k = n.and(L::splat(63));
        // `x >> (64 - k)`: a count of 64 gives zero, which is right for k = 0.
        let up = L::splat(64).sub(k);
        let t0 = l0.shlv(k);
        let t1 = l1.shlv(k).or(l0.shrv(up));
        let t2 = l2.shlv(k).or(l1.shrv(up));
        let q = n.shr(6);
        let live = n.ltu(L::splat(b as u64));
        let (q0, q1, q2) = (
            q.cmpeq(L::splat(0)),
            q.cmpeq(L::splat(1)),
            q.cmpeq(L::splat(2)),
        );
        W([
            t0.and(q0).and(live),
            q0.sel(t1, t0.and(q1)).and(live),
            q0.sel(t2, q1.sel(t1, t0.and(q2))).and(live),
        ])
        .trunc(b)
    }

    /// Right shift by a per-lane amount (`b` or more gives zero) and whether a set bit fell
    /// out.
    #[inline(always)]
    fn shr_sticky_v(self, n: L, b: u32) -> (Self, L) {
        let [l0, l1, l2] = self.0;
        let k = n.and(L::splat(63));
        let dn = L::splat(64).sub(k);
        let t0 = l0.shrv(k).or(l1.shlv(dn));
        let t1 = l1.shrv(k).or(l2.shlv(dn));
        let t2 = l2.shrv(k);
        let q = n.shr(6);
        let live = n.ltu(L::splat(b as u64));
        let (q0, q1, q2) = (
            q.cmpeq(L::splat(0)),
            q.cmpeq(L::splat(1)),
            q.cmpeq(L::splat(2)),
        );
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

    /// Leading zeros within a `b`-bit width (`b` for zero).
    #[inline(always)]
    fn leading_zeros(self, b: u32) -> L {
        let [l0, l1, l2] = self.0;
        let lz = l2
            .lzcnt()
            .add(l2.is0().and(l1.lzcnt().add(l1.is0().and(l0.lzcnt()))));
        lz.sub(L::splat(192 - b as u64))
    }
}

/// Limb `j` of a mask of the low `n` bits: `!0 >> (64 - kk)` keeps kk bits (a count of 64
/// gives zero).
#[inline(always)]
fn low_bits<L: Lanes>(n: L, j: u64) -> L {
    let kk = n.sub(L::splat(64 * j)).clamp(0, 64);
    L::splat(!0).shrv(L::splat(64).sub(kk))
}

/// A 2-limb multiplier row per lane (the scalar `u128` row).
#[derive(Clone, Copy)]
struct R2<L>([L; 2]);

/// A 3:2 compressor over narrow rows (`csa_tree::compress` on the low words).
#[inline(always)]
fn compress_narrow<L: Lanes>(x: L, y: L, z: L) -> (L, L) {
    (x.xor3(y, z), x.maj(y, z).shl(1))
}

/// A 3:2 compressor over two-limb rows.
#[inline(always)]
fn compress_full<L: Lanes>(x: R2<L>, y: R2<L>, z: R2<L>) -> (R2<L>, R2<L>) {
    let (x0, y0, z0) = (x.0[0], y.0[0], z.0[0]);
    let (x1, y1, z1) = (x.0[1], y.0[1], z.0[1]);
    let (m0, m1) = (x0.maj(y0, z0), x1.maj(y1, z1));
    (
        R2([x0.xor3(y0, z0), x1.xor3(y1, z1)]),
        R2([m0.shl(1), m1.shl(1).or(m0.shr(63))]),
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
fn full_row<L: Lanes>(i: usize, (mc, b2): (L, L)) -> R2<L> {
    let ix = b2.shr(2 * i as u32).index8();
    R2([
        mc.shlv(L::lookup8(ix, &BOOTH.shl[i]))
            .xor(L::lookup8_ones_shl(ix, &BOOTH.inv_lo[i])),
        mc.shrv(L::lookup8(ix, &BOOTH.shr[i]))
            .xor(L::lookup8_ones_shl(ix, &INV_HI)),
    ])
}

/// `booth::rows_narrow` + `csa_tree::reduce_narrow` per lane.
#[inline(always)]
fn multiply_narrow<L: Lanes>(mc: L, mp: L) -> (L, L, L, L) {
    let b2 = mp.shl(1);
    let mut rows = [L::zero(); ROWS];
    booth_rows!(rows = narrow_row((mc, b2)); 0 1 2 3 4 5 6 7 8 9 10 11 12);
    const _: () = assert!(booth::NARROW_DIGITS == 13);
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
fn multiply_full<L: Lanes>(mc: L, mp: L) -> (L, L, L, L) {
    let mp = mp.and(L::splat(B_MASK));
    let b2 = mp.shl(1);
    let z = L::zero();
    let mut rows = [R2([z, z]); ROWS];
    booth_rows!(rows = full_row((mc, b2));
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
    const _: () = assert!(DIGITS == 27);
    rows[DIGITS] = R2([mp.shr(1).and(L::splat(NEG_ROW_MASK)), z]);
    tree!(rows, compress_full);
    let top = L::splat((1 << 42) - 1);
    (
        rows[0].0[0],
        rows[0].0[1].and(top),
        rows[1].0[0],
        rows[1].0[1].and(top),
    )
}

/// One unpacked float operand per lane (`unpack::Operand`); conditions are masks.
#[derive(Clone, Copy)]
struct Op<L> {
    sign: L,
    exp: L,
    sig: L,
    zero: L,
    inf: L,
    nan: L,
}

/// `unpack::unpack` per lane.
#[inline(always)]
fn unpack<L: Lanes>(bits: L, f: Fmt, flush: bool) -> Op<L> {
    let (eb, fb) = (f.exp_bits, f.frac_bits);
    let emax_field = f.exp_max();
    let bias = f.bias() as u64;
    let e = bits.shr(fb).and(L::splat(emax_field));
    let frac = bits.and(L::splat(f.frac_mask()));
    let e0 = e.is0();
    let flushed = e0.and(L::splat(mask_of(flush)));
    let emax = e.cmpeq(L::splat(emax_field));
    let f0 = frac.is0();
    Op {
        sign: bits.bitm(eb + fb),
        exp: e.maxu(L::splat(1)).sub(L::splat(bias)),
        sig: e0
            .not()
            .and(L::splat(1 << fb))
            .or(frac)
            .shl(52 - fb)
            .andn(flushed),
        zero: e0.and(f0.or(flushed)),
        inf: emax.and(f0),
        nan: emax.andn(f0),
    }
}

/// The lane-parallel stage-1 bank: the fields of [`S1`](crate::regs::S1) and of its lane 0.
/// (Fields no later stage reads are kept, like the register's, for the field-for-field tests.)
#[derive(Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct S1x<L> {
    pub mul_sum: [L; 2],
    pub mul_carry: [L; 2],
    pub sign_p: L,
    pub sign_c: L,
    pub prod_zero: L,
    pub c_zero: L,
    pub eref: L,
    pub c_aligned: W<L>,
    pub align_sticky: L,
    pub spec_valid: L,
    pub spec_res: L,
}

/// The lane-parallel stage-2 bank (lane 0 of [`S2`](crate::regs::S2)).
#[derive(Clone, Copy)]
pub(crate) struct S2x<L> {
    pub sign: L,
    pub zero: L,
    pub flush_sign: L,
    pub mag: W<L>,
    pub sticky: L,
    pub lza_cnt: L,
    pub eref: L,
    pub spec_valid: L,
    pub spec_res: L,
}

/// The lane-parallel stage-3 bank (lane 0 of [`S3`](crate::regs::S3)).
#[derive(Clone, Copy)]
pub(crate) struct S3x<L> {
    pub sign: L,
    pub zero: L,
    pub flush_sign: L,
    pub norm: W<L>,
    pub sticky: L,
    pub exp: L,
    pub spec_valid: L,
    pub spec_res: L,
}

/// Stage 1 for sixteen operations of one control word (`pipeline::stage1` per lane).
#[inline(always)]
pub(crate) fn stage1<L: Lanes, const K: u8>(ctrl: &Ctrl, a: L, b: L, c: L) -> S1x<L> {
    let ctrl = &with_kind::<K>(ctrl);
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
        let (w, h) = (L::splat(0xFFFF_FFFF), L::splat(0xFFFF));
        let (ua, ub) = match ctrl.ab_fmt {
            AbFmt::Native => (
                unpack(a.and(w), format::F32, flush),
                unpack(b.and(w), format::F32, flush),
            ),
            AbFmt::F16 => (
                unpack(a.and(h), format::F16, false),
                unpack(b.and(h), format::F16, false),
            ),
            AbFmt::Bf16 => (
                unpack(a.and(h), format::BF16, false),
                unpack(b.and(h), format::BF16, false),
            ),
        };
        (
            ua,
            ub,
            unpack(c.and(w), format::F32, flush),
            [a.and(w), b.and(w), c.and(w)],
        )
    };
    let z = L::zero();
    let ub = if ctrl.b_one {
        Op {
            sign: z,
            exp: z,
            sig: L::splat(1 << 52),
            zero: z,
            inf: z,
            nan: z,
        }
    } else {
        ub
    };
    let mut uc = if ctrl.c_zero {
        Op {
            sign: L::splat(mask_of(ctrl.rnd != Rnd::Rm)),
            exp: L::splat((1i64 - 127) as u64),
            sig: z,
            zero: L::splat(!0),
            inf: z,
            nan: z,
        }
    } else {
        uc
    };
    uc.sign = uc.sign.xor(L::splat(mask_of(ctrl.neg_c)));
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
    let inf_p = sign_p.and(L::splat(sign_bit)).or(L::splat(inf_bits));
    let inf_c = c.sign.and(L::splat(sign_bit)).or(L::splat(inf_bits));
    let nan_res = if f64 {
        // S2: the first NaN operand, quieted; else the default NaN.
        let first = a.nan.sel(raw[0], b.nan.sel(raw[1], raw[2]));
        any_nan.sel(first.or(L::splat(1 << 51)), L::splat(F64_NAN))
    } else {
        L::splat(F32_NAN)
    };
    let is_nan = any_nan.or(invalid);
    let spec_valid = is_nan.or(p_inf).or(c.inf);
    let spec_res = is_nan.sel(nan_res, p_inf.sel(inf_p, c.inf.sel(inf_c, z)));

    // Alignment shifter.
    let prod_zero = a.zero.or(b.zero);
    let ep = a.exp.add(b.exp);
    let ec = c.exp;
    let d = ec.sub(ep);
    let far = prod_zero.or(L::splat(56).lts(d));
    let near_sh = L::splat(56).sub(d).clamp(0, crate::align::MAX_SHIFT as i64);
    let sh = c.zero.sel(
        L::splat(crate::align::MAX_SHIFT as u64),
        far.sel(z, near_sh),
    );
    let eref = c.zero.sel(ep, far.sel(ec.sub(L::splat(56)), ep)).i16();
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

/// Stage 2 (`pipeline::stage2` per lane): product add, significand add, LZA.
#[inline(always)]
pub(crate) fn stage2<L: Lanes, const K: u8>(ctrl: &Ctrl, s: &S1x<L>) -> S2x<L> {
    let ctrl = &with_kind::<K>(ctrl);
    let z = L::zero();
    // Carry-propagate add of the pair, modulo 2^106.
    let lo = s.mul_sum[0].add(s.mul_carry[0]);
    let cy = lo.ltu(s.mul_sum[0]).bit01();
    let hi = s.mul_sum[1]
        .add(s.mul_carry[1])
        .add(cy)
        .and(L::splat((1 << 42) - 1));
    // The product in the window, as `adder::operands` places it (U166 of p << 3).
    let p = if ctrl.kind == Kind::F64 {
        W([lo, hi, z])
    } else {
        // (prod & (2^48 - 1)) << 58: bits 47:0 go to 105:58.
        let p48 = lo.and(L::splat((1 << 48) - 1));
        W([p48.shl(58), p48.shr(6), z])
    };
    let sm1x = ctrl.kind == Kind::Sm1x;
    let p = if sm1x {
        // `sm1x::truncate_product` where c is not zero: the 24 bits from the leading one, at
        // bit 105 or 104 (bits 41 or 40 of limb 1; nothing of limb 0 survives).
        let keep = p.bitm(105).sel(
            L::splat(((1 << 24) - 1) << (82 - 64)),
            L::splat(((1 << 24) - 1) << (81 - 64)),
        );
        W::sel(s.c_zero, p, W([z, p.0[1].and(keep), z]))
    } else {
        p
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
    let rm = L::splat(mask_of(crate::round::effective_rnd(ctrl) == Rnd::Rm));
    let sign = zero.sel(eff_sub.sel(rm, s.sign_p), neg.xor(s.sign_p));

    // lza::predict.
    let t = a.xor(b);
    let g = a.and(b);
    let zz = a.or(b).not(166);
    let t_up = t.shr_c(1);
    let g_dn = g.shl_c(1, 166);
    let z_dn = zz.shl_c(1, 166).or(W([L::splat(1), z, z]));
    let f = t_up
        .and(g.and(z_dn.not(166)).or(zz.and(g_dn.not(166))))
        .or(t_up
            .not(166)
            .and(zz.and(z_dn.not(166)).or(g.and(g_dn.not(166)))));
    let pos = L::splat(165).sub(f.leading_zeros(166));
    let cnt = L::splat(164).sub(pos).clamp(0, 165);
    let lza_cnt = f.is0().sel(L::splat(165), cnt);

    S2x {
        sign,
        zero,
        // sm_1x with c = 0 is mul.rn then add.rn: a product flushed to zero meets c's zero.
        flush_sign: if sm1x {
            s.c_zero.sel(s.sign_p.and(s.sign_c), sign)
        } else {
            sign
        },
        mag,
        sticky,
        lza_cnt,
        eref: s.eref,
        spec_valid: s.spec_valid,
        spec_res: s.spec_res,
    }
}

/// Stage 3 (`pipeline::stage3` per lane): normalisation.
#[inline(always)]
pub(crate) fn stage3<L: Lanes, const K: u8>(ctrl: &Ctrl, s: &S2x<L>) -> S3x<L> {
    let ctrl = &with_kind::<K>(ctrl);
    let emin = crate::round::result_fmt(ctrl).emin as i64 as u64;
    let lim = s.eref.add(L::splat(57)).sub(L::splat(emin));
    let under_range = lim.lts(L::zero());
    // Below the format's range before any shift: shift right, collecting sticky.
    let rs = L::zero().sub(lim).clamp(0, 166);
    // Rare (a result far below the format's range): skipped when no lane needs it.
    let (rnorm, rsticky) = if under_range.any() {
        s.mag.shr_sticky_v(rs, 165)
    } else {
        (s.mag, L::zero())
    };
    // Otherwise: the LZA's shift, then one bit of correction either way.
    let s0 = s.lza_cnt.mins(lim).maxs(L::zero());
    let x = s.mag.shl_v(s0, 166);
    let over = x.bitm(165);
    let under = over.or(x.bitm(164)).not().and(s0.lts(lim));
    let x = W::sel(over, x.shr_c(1), W::sel(under, x.shl_c(1, 166), x)).trunc(165);
    let sh = s0.sub(over.bit01()).add(under.bit01());
    let exp = s.eref.add(L::splat(57)).sub(sh);
    S3x {
        sign: s.sign,
        zero: s.zero,
        flush_sign: s.flush_sign,
        norm: W::sel(under_range, rnorm, x),
        sticky: s.sticky.or(under_range.and(rsticky)),
        exp: under_range.sel(L::splat(emin), exp).i16(),
        spec_valid: s.spec_valid,
        spec_res: s.spec_res,
    }
}

/// Stage 4 (`round::round` per lane): the result word.
#[inline(always)]
pub(crate) fn stage4<L: Lanes, const K: u8>(ctrl: &Ctrl, s: &S3x<L>) -> L {
    let ctrl = &with_kind::<K>(ctrl);
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
            W([L::splat(l0), L::splat(l1), L::splat(l2)])
        })
        .is0()
        .not();
    let st = below.or(s.sticky);
    let one = L::splat(1);
    let inc = match rnd {
        Rnd::Rn => rb.and(st.or(sig.and(one).cmpeq(one))),
        Rnd::Rz => L::zero(),
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
    let frac_mask = L::splat((1u64 << (p - 1)) - 1);
    let inf = sign.or(L::splat(((1u64 << (f.width - f.p)) - 1) << (p - 1)));
    let max = inf.sub(one);
    let ovf_val = match rnd {
        Rnd::Rn => inf,
        Rnd::Rz => max,
        Rnd::Rm => s.sign.sel(inf, max),
        Rnd::Rp => s.sign.sel(max, inf),
    };
    let ovf = normal.and(L::splat(f.emax as i64 as u64).lts(e));
    let biased = normal.and(e.sub(L::splat(f.emin as i64 as u64)).add(one));
    let flushed = biased.is0().and(L::splat(mask_of(ctrl.flush())));
    let fin = sign.or(biased.shl(p - 1)).or(sig_f.and(frac_mask));
    let fin = flushed.sel(s.flush_sign.and(one).shl(sign_at), fin);
    let enc = s
        .spec_valid
        .sel(s.spec_res, s.zero.sel(sign, ovf.sel(ovf_val, fin)));
    if ctrl.sat && f.width == 32 {
        // `round::saturate_f32`: NaN and anything <= 0 to +0, anything >= 1.0 to 1.0.
        let nan = enc
            .and(L::splat(0x7F80_0000))
            .cmpeq(L::splat(0x7F80_0000))
            .andn(enc.and(L::splat(0x7F_FFFF)).is0());
        nan.or(enc.bitm(31))
            .sel(L::zero(), enc.minu(L::splat(0x3F80_0000)))
    } else {
        enc
    }
}

/// The kinds the stages are compiled for, as their const parameter `K`.
const F32: u8 = Kind::F32 as u8;
const F64: u8 = Kind::F64 as u8;
const SM1X: u8 = Kind::Sm1x as u8;

/// `ctrl` with its kind fixed at compile time: each stage is compiled once per kind (the
/// stages take `K` as a parameter, as the scalar pipeline compiles its stages per kind).
#[inline(always)]
fn with_kind<const K: u8>(ctrl: &Ctrl) -> Ctrl {
    let kind = match K {
        F64 => Kind::F64,
        SM1X => Kind::Sm1x,
        _ => Kind::F32,
    };
    Ctrl { kind, ..*ctrl }
}

/// Results of sixteen operations of one control word of kind `K`, through all four stages,
/// `L::LANES` at a time.
#[inline(always)]
fn results_body<L: Lanes, const K: u8>(
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> [u64; N] {
    let mut d = [0; N];
    for k in (0..N).step_by(L::LANES) {
        let s1 = stage1::<L, K>(ctrl, L::load(&a[k..]), L::load(&b[k..]), L::load(&c[k..]));
        let s2 = stage2::<L, K>(ctrl, &s1);
        let s3 = stage3::<L, K>(ctrl, &s2);
        stage4::<L, K>(ctrl, &s3).store(&mut d[k..]);
    }
    d
}

/// Every bank of every lane, as the scalar structs: the multiplier pair of S1, S1's lane, S2's
/// lane, S3's lane, and the result.
#[cfg(test)]
type LaneBanks = (u128, u128, S1Lane, S2Lane, S3Lane, u64);

#[cfg(test)]
#[inline(always)]
fn banks_body<L: Lanes, const K: u8>(
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Vec<LaneBanks> {
    let mut out = Vec::new();
    for k in (0..N).step_by(L::LANES) {
        let s1 = stage1::<L, K>(ctrl, L::load(&a[k..]), L::load(&b[k..]), L::load(&c[k..]));
        let s2 = stage2::<L, K>(ctrl, &s1);
        let s3 = stage3::<L, K>(ctrl, &s2);
        let d = stage4::<L, K>(ctrl, &s3).to_vec();
        out.extend((0..L::LANES).map(|i| {
            let (ms, mc, l1) = s1.lane(i);
            (ms, mc, l1, s2.lane(i), s3.lane(i), d[i])
        }));
    }
    out
}

/// The stages instantiated for one backend: `$results` (and, for the tests, `$banks`), each
/// compiled with the backend's target features (none for the portable one) so that the generic
/// stage code and the backend's primitives inline into one function per kind. The functions
/// for a backend with features are `unsafe`: callers check `Backend::runs_here` first.
macro_rules! instantiate {
    ($L:ty, $results:ident, $banks:ident $(, $features:literal)?) => {
        $(#[target_feature(enable = $features)])?
        #[inline(never)]
        unsafe fn $results<const K: u8>(
            ctrl: &Ctrl,
            a: &[u64; N],
            b: &[u64; N],
            c: &[u64; N],
        ) -> [u64; N] {
            results_body::<$L, K>(ctrl, a, b, c)
        }

        #[cfg(test)]
        $(#[target_feature(enable = $features)])?
        unsafe fn $banks<const K: u8>(
            ctrl: &Ctrl,
            a: &[u64; N],
            b: &[u64; N],
            c: &[u64; N],
        ) -> Vec<LaneBanks> {
            banks_body::<$L, K>(ctrl, a, b, c)
        }
    };
}

#[cfg(target_arch = "x86_64")]
instantiate!(
    Avx512,
    results_avx512,
    banks_avx512,
    "avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
);
#[cfg(target_arch = "x86_64")]
instantiate!(
    Avx2,
    results_avx2,
    banks_avx2,
    "avx2,bmi1,bmi2,lzcnt,popcnt"
);
instantiate!(Portable, results_portable, banks_portable);

/// Whether `ctrl`'s kind has a lane-parallel form (every float kind; not vmad).
pub fn supported(ctrl: &Ctrl) -> bool {
    ctrl.kind != Kind::Vmad
}

/// A group's kernel: the four stages of one kind for one backend.
type Kernel = unsafe fn(&Ctrl, &[u64; N], &[u64; N], &[u64; N]) -> [u64; N];

/// The lane engine on one backend, which this CPU was checked to run when the engine was made,
/// so that evaluating a group is one call through a table of kernels, with no checks per group.
#[derive(Clone, Copy)]
pub struct Engine {
    backend: Backend,
    /// The kernels for f32 (mixed precision and f32x2 halves included), f64 and sm_1x.
    kernels: [Kernel; 3],
}

impl Engine {
    /// The engine on `backend`; `None` for `Backend::Scalar`.
    ///
    /// # Panics
    /// If this CPU cannot run `backend`.
    pub fn new(backend: Backend) -> Option<Engine> {
        if !backend.is_lanes() {
            return None;
        }
        assert!(
            backend.runs_here(),
            "this CPU cannot run the {backend} lane backend"
        );
        let kernels: [Kernel; 3] = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => [
                results_avx512::<F32>,
                results_avx512::<F64>,
                results_avx512::<SM1X>,
            ],
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => [
                results_avx2::<F32>,
                results_avx2::<F64>,
                results_avx2::<SM1X>,
            ],
            _ => [
                results_portable::<F32>,
                results_portable::<F64>,
                results_portable::<SM1X>,
            ],
        };
        Some(Engine { backend, kernels })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The result words of sixteen operations of one control word, or `None` where the kind
    /// has no lane-parallel form ([`supported`]).
    #[inline]
    pub fn results(
        &self,
        ctrl: &Ctrl,
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
    ) -> Option<[u64; N]> {
        let k = match ctrl.kind {
            Kind::F32 => 0,
            Kind::F64 => 1,
            Kind::Sm1x => 2,
            Kind::F32x2 => return Some(self.f32x2(ctrl, a, b, c)),
            Kind::Vmad => return None,
        };
        // SAFETY: `new` checked that this CPU runs the backend the kernels are compiled for
        // (the portable one needs nothing).
        Some(unsafe { (self.kernels[k])(ctrl, a, b, c) })
    }

    /// f32x2: two binary32 groups, one per half (`pipeline::stage4` packs lane 1 above lane 0).
    #[inline(never)]
    fn f32x2(&self, ctrl: &Ctrl, a: &[u64; N], b: &[u64; N], c: &[u64; N]) -> [u64; N] {
        let [a0, b0, c0] = f32x2_half(ctrl, 0, a, b, c);
        let [a1, b1, c1] = f32x2_half(ctrl, 1, a, b, c);
        // SAFETY: as in `results`.
        let (lo, hi) = unsafe {
            (
                (self.kernels[0])(ctrl, &a0, &b0, &c0),
                (self.kernels[0])(ctrl, &a1, &b1, &c1),
            )
        };
        std::array::from_fn(|i| hi[i] << 32 | lo[i])
    }
}

/// The inputs of one f32x2 half as a binary32 operation: lane 1 reads the upper words, except
/// that f16/bf16 sources are always bits 15:0 (as `unpack::lane_operands` reads them).
fn f32x2_half(ctrl: &Ctrl, half: u32, a: &[u64; N], b: &[u64; N], c: &[u64; N]) -> [[u64; N]; 3] {
    let ab = if ctrl.ab_fmt == AbFmt::Native {
        32 * half
    } else {
        0
    };
    [
        a.map(|x| x >> ab),
        b.map(|x| x >> ab),
        c.map(|x| x >> (32 * half)),
    ]
}

/// The result words of sixteen operations of one control word through `backend`, or `None`
/// where `backend` is `Scalar` or the kind has no lane-parallel form ([`supported`]). (A stream
/// makes its [`Engine`] once instead.)
///
/// # Panics
/// If this CPU cannot run `backend`.
pub fn results(
    backend: Backend,
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Option<[u64; N]> {
    Engine::new(backend)?.results(ctrl, a, b, c)
}

#[cfg(test)]
impl<L: Lanes> S1x<L> {
    /// Lane `i` as the scalar bank's lane-0 fields and multiplier pair.
    pub fn lane(&self, i: usize) -> (u128, u128, S1Lane) {
        let w = |v: [L; 2]| v[0].to_vec()[i] as u128 | (v[1].to_vec()[i] as u128) << 64;
        let b = |v: L| v.to_vec()[i] != 0;
        (
            w(self.mul_sum),
            w(self.mul_carry),
            S1Lane {
                sign_p: b(self.sign_p),
                sign_c: b(self.sign_c),
                prod_zero: b(self.prod_zero),
                c_zero: b(self.c_zero),
                eref: self.eref.to_vec()[i] as i16,
                c_aligned: self.c_aligned.lane::<164>(i),
                align_sticky: b(self.align_sticky),
                spec_valid: b(self.spec_valid),
                spec_res: self.spec_res.to_vec()[i],
            },
        )
    }
}

#[cfg(test)]
impl<L: Lanes> S2x<L> {
    pub fn lane(&self, i: usize) -> S2Lane {
        let b = |v: L| v.to_vec()[i] != 0;
        S2Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            mag: self.mag.lane::<165>(i),
            sticky: b(self.sticky),
            lza_cnt: self.lza_cnt.to_vec()[i] as u8,
            eref: self.eref.to_vec()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_vec()[i],
        }
    }
}

#[cfg(test)]
impl<L: Lanes> S3x<L> {
    pub fn lane(&self, i: usize) -> S3Lane {
        let b = |v: L| v.to_vec()[i] != 0;
        S3Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            norm: self.norm.lane::<165>(i),
            sticky: b(self.sticky),
            exp: self.exp.to_vec()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_vec()[i],
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

    /// Every bank of every lane of one group of kind `K` through `backend`.
    fn banks<const K: u8>(
        backend: Backend,
        ctrl: &Ctrl,
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
    ) -> Vec<LaneBanks> {
        assert!(backend.runs_here());
        // SAFETY: as in `group`.
        unsafe {
            match backend {
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => banks_avx512::<K>(ctrl, a, b, c),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => banks_avx2::<K>(ctrl, a, b, c),
                Backend::Portable => banks_portable::<K>(ctrl, a, b, c),
                other => panic!("{other} is no lane backend"),
            }
        }
    }

    /// Every register field of every lane, and the result, equal the scalar stage functions,
    /// for every control word of the float families (f32, f64, mixed, add/sub/mul, f32x2 and
    /// sm_1x) on edge-biased operands, through `backend`.
    fn lanes_equal_the_scalar_stages(backend: Backend) {
        let mut rng = Rng::new(11);
        let mut words = 0;
        let families = [
            Family::F32,
            Family::F64,
            Family::Mixed,
            Family::AddSubMul,
            Family::F32x2,
            Family::Sm1x,
        ];
        for fam in families {
            for ctrl in fam.ctrls() {
                assert!(supported(&ctrl), "{ctrl:?}");
                words += 1;
                for _ in 0..40 {
                    let mut ins = [(0u64, 0u64, 0u64); N];
                    for x in ins.iter_mut() {
                        *x = operands_for(&ctrl, &mut rng);
                    }
                    let v = |k: usize| -> [u64; N] {
                        std::array::from_fn(|i| [ins[i].0, ins[i].1, ins[i].2][k])
                    };
                    let (a, b, c) = (v(0), v(1), v(2));
                    // The lane banks: one group, or one per half for f32x2.
                    let halves: Vec<Vec<LaneBanks>> = match ctrl.kind {
                        Kind::F64 => vec![banks::<F64>(backend, &ctrl, &a, &b, &c)],
                        Kind::Sm1x => vec![banks::<SM1X>(backend, &ctrl, &a, &b, &c)],
                        Kind::F32x2 => (0..2)
                            .map(|h| {
                                let [a, b, c] = f32x2_half(&ctrl, h, &a, &b, &c);
                                banks::<F32>(backend, &ctrl, &a, &b, &c)
                            })
                            .collect(),
                        _ => vec![banks::<F32>(backend, &ctrl, &a, &b, &c)],
                    };
                    let d = results(backend, &ctrl, &a, &b, &c).unwrap();
                    for (i, &(a, b, c)) in ins.iter().enumerate() {
                        let inp = PipeIn {
                            valid: true,
                            tag: 0,
                            ctrl: ctrl.encode(),
                            a,
                            b,
                            c,
                            reset: false,
                        };
                        let what = format!("{backend}: {ctrl:?} a={a:#x} b={b:#x} c={c:#x}");
                        let r1 = s1(&inp);
                        let r2 = s2(&r1);
                        let r3 = s3(&r2);
                        let want_d = s4(&r3).d;
                        assert_eq!(d[i], want_d, "d {what}");
                        let scalar = [
                            (&r1.lane0, &r2.lane0, &r3.lane0),
                            (&r1.lane1, &r2.lane1, &r3.lane1),
                        ];
                        for (h, lanes) in halves.iter().enumerate() {
                            let (ms, mc, l1, l2, l3, dh) = &lanes[i];
                            let (w1, w2, w3) = scalar[h];
                            let what = format!("{what} half {h}");
                            if ctrl.kind == Kind::F32x2 {
                                // The scalar array packs both products (lane 1 at bit 56): each
                                // half's product is its share of the scalar one.
                                let m = (1u128 << 48) - 1;
                                let prod = |s: u128, c: u128| s.wrapping_add(c);
                                let want = (prod(r1.mul_sum, r1.mul_carry) >> (56 * h)) & m;
                                assert_eq!(prod(*ms, *mc) & m, want, "S1 product {what}");
                                assert_eq!(*dh, (want_d >> (32 * h)) & 0xFFFF_FFFF, "d {what}");
                            } else {
                                assert_eq!(
                                    (*ms, *mc),
                                    (r1.mul_sum, r1.mul_carry),
                                    "S1 pair {what}"
                                );
                                assert_eq!(*dh, want_d, "d {what}");
                            }
                            assert_eq!(l1, w1, "S1 {what}");
                            assert_eq!(l2, w2, "S2 {what}");
                            assert_eq!(l3, w3, "S3 {what}");
                        }
                    }
                }
            }
        }
        assert!(words > 100, "only {words} control words");
        // Arbitrary control words (reserved codes, modifiers no instruction combines), as
        // `run` meets them in a stream.
        for _ in 0..300 {
            let ctrl = Ctrl::decode(rng.next_u64() as u32 & ((1 << crate::ctrl::CTRL_BITS) - 1));
            if !supported(&ctrl) {
                continue;
            }
            let ins: [(u64, u64, u64); N] = std::array::from_fn(|_| {
                let (a, b, c) = operands_for(&ctrl, &mut rng);
                // f32x2 operands with both halves live; other kinds with upper bits set too.
                (
                    a ^ rng.next_u64() << 32,
                    b ^ rng.next_u64() << 32,
                    c ^ rng.next_u64() << 32,
                )
            });
            let a = ins.map(|x| x.0);
            let b = ins.map(|x| x.1);
            let c = ins.map(|x| x.2);
            let d = results(backend, &ctrl, &a, &b, &c).unwrap();
            for i in 0..N {
                let want = crate::pipeline::eval(&ctrl, a[i], b[i], c[i]);
                assert_eq!(
                    d[i], want,
                    "{backend}: {ctrl:?} a={:#x} b={:#x} c={:#x}",
                    a[i], b[i], c[i]
                );
            }
        }
        let other = Family::Vmad.ctrls()[0];
        let z = [0; N];
        assert_eq!(results(backend, &other, &z, &z, &z), None);
    }

    /// The portable backend, which every CPU runs: so the stage code is checked everywhere.
    #[test]
    fn portable_lanes_equal_the_scalar_stages_field_for_field() {
        lanes_equal_the_scalar_stages(Backend::Portable);
    }

    /// Every other lane backend this CPU runs (AVX-512 and AVX2 where the CPU has them).
    #[test]
    fn native_lanes_equal_the_scalar_stages_field_for_field() {
        let here = Backend::lanes_here();
        println!("lane backends this CPU runs: {here:?}");
        for backend in here.into_iter().filter(|&b| b != Backend::Portable) {
            lanes_equal_the_scalar_stages(backend);
        }
    }

    #[test]
    fn scalar_backend_has_no_results() {
        let ctrl = Family::F32.ctrls()[0];
        let z = [0; N];
        assert_eq!(results(Backend::Scalar, &ctrl, &z, &z, &z), None);
    }
}

//! Lane-parallel evaluation of the pipeline for a stream: eight consecutive operations that
//! share one control word go through the four stages side by side, one 64-bit lane per
//! operation, so that each step of a part (a Booth row, a compressor, a window shift) is one
//! vector instruction for all eight.
//!
//! This is how a compiled simulator levelises a design: stage k of the eight operations is
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
//! others run through the scalar stages.

// Lane loops index several arrays in step (`r[i] = f(a[i], b[i])`); that is the form the
// compiler turns into one vector instruction.
#![allow(clippy::needless_range_loop)]

use crate::booth::{self, B_MASK, DIGITS, NEG_ROW_MASK, ROWS};
use crate::csa_tree::Row;
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::regs::{S1Lane, S2Lane, S3Lane, U164, U165, U166};
use crate::special::{F32_NAN, F64_NAN};

/// Operations evaluated side by side.
pub const N: usize = 8;

/// One 64-bit value per operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct V(pub [u64; N]);

/// All ones for `true`: lane conditions are masks, so selects are bitwise.
#[inline(always)]
const fn m(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
}

impl V {
    #[inline(always)]
    pub const fn splat(x: u64) -> V {
        V([x; N])
    }

    #[inline(always)]
    fn map(self, f: impl Fn(u64) -> u64) -> V {
        let mut r = [0; N];
        for i in 0..N {
            r[i] = f(self.0[i]);
        }
        V(r)
    }

    #[inline(always)]
    fn zip(self, o: V, f: impl Fn(u64, u64) -> u64) -> V {
        let mut r = [0; N];
        for i in 0..N {
            r[i] = f(self.0[i], o.0[i]);
        }
        V(r)
    }

    #[inline(always)]
    fn zip3(self, o: V, p: V, f: impl Fn(u64, u64, u64) -> u64) -> V {
        let mut r = [0; N];
        for i in 0..N {
            r[i] = f(self.0[i], o.0[i], p.0[i]);
        }
        V(r)
    }

    /// `a` where the mask is set, else `b`.
    #[inline(always)]
    fn sel(self, a: V, b: V) -> V {
        self.zip3(a, b, |k, a, b| (a & k) | (b & !k))
    }

    #[inline(always)]
    fn and(self, o: V) -> V {
        self.zip(o, |a, b| a & b)
    }

    #[inline(always)]
    fn or(self, o: V) -> V {
        self.zip(o, |a, b| a | b)
    }

    #[inline(always)]
    fn xor(self, o: V) -> V {
        self.zip(o, |a, b| a ^ b)
    }

    #[inline(always)]
    fn not(self) -> V {
        self.map(|a| !a)
    }

    #[inline(always)]
    fn andn(self, o: V) -> V {
        self.zip(o, |a, b| a & !b)
    }

    #[inline(always)]
    fn add(self, o: V) -> V {
        self.zip(o, u64::wrapping_add)
    }

    #[inline(always)]
    fn sub(self, o: V) -> V {
        self.zip(o, u64::wrapping_sub)
    }

    #[inline(always)]
    fn shl(self, n: u32) -> V {
        self.map(|a| a << n)
    }

    #[inline(always)]
    fn shr(self, n: u32) -> V {
        self.map(|a| a >> n)
    }

    /// Mask of lanes equal to zero.
    #[inline(always)]
    fn is0(self) -> V {
        self.map(|a| m(a == 0))
    }

    #[inline(always)]
    fn eq(self, o: V) -> V {
        self.zip(o, |a, b| m(a == b))
    }

    /// Signed (two's-complement) less-than mask.
    #[inline(always)]
    fn lts(self, o: V) -> V {
        self.zip(o, |a, b| m((a as i64) < (b as i64)))
    }

    /// Bit `i` of every lane as a mask.
    #[inline(always)]
    fn bitm(self, i: u32) -> V {
        self.map(|a| m((a >> i) & 1 != 0))
    }

    /// Sign-extends from bit 15: the value an `i16` register field holds.
    #[inline(always)]
    fn i16(self) -> V {
        self.map(|a| ((a as i64) << 48 >> 48) as u64)
    }
}

/// A 3-limb window value per lane (the scalar `Wide`), limbs little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct W(pub [V; 3]);

/// Mask of the top limb of a `B`-bit window.
const fn top_mask(b: u32) -> u64 {
    (1u64 << (b - 128)) - 1
}

impl W {
    #[inline(always)]
    fn lane<const B: usize>(&self, i: usize) -> crate::wide::Wide<B> {
        crate::wide::Wide::from_limbs([self.0[0].0[i], self.0[1].0[i], self.0[2].0[i]])
    }

    /// Drops bits at and above `b`.
    #[inline(always)]
    fn trunc(self, b: u32) -> W {
        W([self.0[0], self.0[1], self.0[2].and(V::splat(top_mask(b)))])
    }

    #[inline(always)]
    fn not(self, b: u32) -> W {
        W([self.0[0].not(), self.0[1].not(), self.0[2].not()]).trunc(b)
    }

    #[inline(always)]
    fn and(self, o: W) -> W {
        W([
            self.0[0].and(o.0[0]),
            self.0[1].and(o.0[1]),
            self.0[2].and(o.0[2]),
        ])
    }

    #[inline(always)]
    fn or(self, o: W) -> W {
        W([
            self.0[0].or(o.0[0]),
            self.0[1].or(o.0[1]),
            self.0[2].or(o.0[2]),
        ])
    }

    #[inline(always)]
    fn xor_mask(self, k: V, b: u32) -> W {
        W([self.0[0].xor(k), self.0[1].xor(k), self.0[2].xor(k)]).trunc(b)
    }

    #[inline(always)]
    fn sel(k: V, a: W, b: W) -> W {
        W([
            k.sel(a.0[0], b.0[0]),
            k.sel(a.0[1], b.0[1]),
            k.sel(a.0[2], b.0[2]),
        ])
    }

    #[inline(always)]
    fn is0(self) -> V {
        self.0[0].or(self.0[1]).or(self.0[2]).is0()
    }

    /// Bit `i` as a mask.
    #[inline(always)]
    fn bitm(self, i: u32) -> V {
        self.0[(i / 64) as usize].bitm(i % 64)
    }

    /// Sum modulo 2^b.
    #[inline(always)]
    fn add(self, o: W, b: u32) -> W {
        let mut r = [[0u64; N]; 3];
        for i in 0..N {
            let (s0, c0) = self.0[0].0[i].overflowing_add(o.0[0].0[i]);
            let (s1, c1a) = self.0[1].0[i].overflowing_add(o.0[1].0[i]);
            let (s1, c1b) = s1.overflowing_add(c0 as u64);
            let s2 = self.0[2].0[i]
                .wrapping_add(o.0[2].0[i])
                .wrapping_add((c1a | c1b) as u64);
            r[0][i] = s0;
            r[1][i] = s1;
            r[2][i] = s2;
        }
        W([V(r[0]), V(r[1]), V(r[2])]).trunc(b)
    }

    /// Adds a 0/1 value per lane (a carry-in) modulo 2^b.
    #[inline(always)]
    fn add_bit(self, c: V, b: u32) -> W {
        self.add(W([c, V::splat(0), V::splat(0)]), b)
    }

    /// Left shift by a constant `n < 64`, modulo 2^b.
    #[inline(always)]
    fn shl_c(self, n: u32, b: u32) -> W {
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
    fn shr_c(self, n: u32) -> W {
        let [l0, l1, l2] = self.0;
        W([
            l0.shr(n).or(l1.shl(64 - n)),
            l1.shr(n).or(l2.shl(64 - n)),
            l2.shr(n),
        ])
    }

    /// Left shift by a per-lane amount, modulo 2^b (an amount of `b` or more gives zero).
    #[inline(always)]
    fn shl_v(self, n: V, b: u32) -> W {
        let mut r = [[0u64; N]; 3];
        for i in 0..N {
            let (l0, l1, l2) = (self.0[0].0[i], self.0[1].0[i], self.0[2].0[i]);
            let s = n.0[i];
            let k = (s & 63) as u32;
            // `x >> (64 - k)` for k in 0..64, without an out-of-range shift.
            let up = |x: u64| (x >> 1) >> (63 - k);
            let t0 = l0 << k;
            let t1 = (l1 << k) | up(l0);
            let t2 = (l2 << k) | up(l1);
            let q = s >> 6;
            let live = m(s < b as u64);
            r[0][i] = if q == 0 { t0 } else { 0 } & live;
            r[1][i] = match q {
                0 => t1,
                1 => t0,
                _ => 0,
            } & live;
            r[2][i] = match q {
                0 => t2,
                1 => t1,
                2 => t0,
                _ => 0,
            } & live;
        }
        W([V(r[0]), V(r[1]), V(r[2])]).trunc(b)
    }

    /// Right shift by a per-lane amount (`b` or more gives zero) and whether a set bit fell out.
    #[inline(always)]
    fn shr_sticky_v(self, n: V, b: u32) -> (W, V) {
        let mut r = [[0u64; N]; 3];
        let mut st = [0u64; N];
        for i in 0..N {
            let (l0, l1, l2) = (self.0[0].0[i], self.0[1].0[i], self.0[2].0[i]);
            let s = n.0[i];
            let k = (s & 63) as u32;
            let dn = |x: u64| (x << 1) << (63 - k);
            let t0 = (l0 >> k) | dn(l1);
            let t1 = (l1 >> k) | dn(l2);
            let t2 = l2 >> k;
            let q = s >> 6;
            let live = m(s < b as u64);
            r[0][i] = match q {
                0 => t0,
                1 => t1,
                2 => t2,
                _ => 0,
            } & live;
            r[1][i] = match q {
                0 => t1,
                1 => t2,
                _ => 0,
            } & live;
            r[2][i] = if q == 0 { t2 } else { 0 } & live;
            // The bits below the shift amount: limbs wholly below it, and part of the next.
            let low = |j: u64| {
                let kk = s.saturating_sub(64 * j).min(64);
                if kk == 0 {
                    0
                } else {
                    !0u64 >> (64 - kk)
                }
            };
            let lost = (l0 & low(0)) | (l1 & low(1)) | (l2 & low(2));
            st[i] = m(lost != 0);
        }
        (W([V(r[0]), V(r[1]), V(r[2])]), V(st))
    }

    /// Leading zeros within a `b`-bit width (`b` for zero).
    #[inline(always)]
    fn leading_zeros(self, b: u32) -> V {
        let mut r = [0u64; N];
        for i in 0..N {
            let (l0, l1, l2) = (self.0[0].0[i], self.0[1].0[i], self.0[2].0[i]);
            let lz = |x: u64| x.leading_zeros() as u64;
            let lz = lz(l2) + (m(l2 == 0) & (lz(l1) + (m(l1 == 0) & lz(l0))));
            r[i] = lz - (192 - b as u64);
        }
        V(r)
    }
}

/// A 2-limb multiplier row per lane (the scalar `u128` row).
#[derive(Clone, Copy)]
struct R2([V; 2]);

impl Row for R2 {
    #[inline(always)]
    fn compress(x: R2, y: R2, z: R2) -> (R2, R2) {
        let limb = |k: usize| {
            let (a, b, c) = (x.0[k], y.0[k], z.0[k]);
            let t = a.xor(b);
            (t.xor(c), a.and(b).or(c.and(t)))
        };
        let (s0, j0) = limb(0);
        let (s1, j1) = limb(1);
        (R2([s0, s1]), R2([j0.shl(1), j1.shl(1).or(j0.shr(63))]))
    }
}

/// A narrow multiplier row per lane (the scalar narrow `u64` row).
impl Row for V {
    #[inline(always)]
    fn compress(x: V, y: V, z: V) -> (V, V) {
        let t = x.xor(y);
        (t.xor(z), x.and(y).or(z.and(t)).shl(1))
    }
}

/// The carry-save tree of `csa_tree` (same shape: threes from the front, sum then carry, the
/// rest carried down), spelled out group by group: over these wide rows a loop is neither
/// unrolled nor vectorised well.
macro_rules! tree_level {
    ($cur:ident, $n:literal; $($g:literal)*) => {{
        $( ($cur[2 * $g], $cur[2 * $g + 1]) =
            Row::compress($cur[3 * $g], $cur[3 * $g + 1], $cur[3 * $g + 2]); )*
        const GROUPS: usize = $n / 3;
        const LEFT: usize = $n - 3 * GROUPS;
        let mut k = 0;
        while k < LEFT {
            $cur[2 * GROUPS + k] = $cur[3 * GROUPS + k];
            k += 1;
        }
    }};
}

#[inline(always)]
fn tree<R: Row>(cur: &mut [R; ROWS]) {
    tree_level!(cur, 28; 0 1 2 3 4 5 6 7 8);
    tree_level!(cur, 19; 0 1 2 3 4 5);
    tree_level!(cur, 13; 0 1 2 3);
    tree_level!(cur, 9; 0 1 2);
    tree_level!(cur, 6; 0 1);
    tree_level!(cur, 4; 0);
    tree_level!(cur, 3; 0);
}

/// Booth rows of the listed digits, spelled out like the tree. (A closure would not do: it
/// is compiled as its own function, without the lane engine's target features.)
macro_rules! booth_rows {
    ($rows:ident = $row:ident($ctx:expr); $($i:literal)*) => {{
        $( $rows[$i] = $row($i, $ctx); )*
    }};
}

/// The Booth multiple a digit selects from multiplier bits `2i+1, 2i, 2i-1` (in `b2 >> 2i`),
/// as one/two/neg masks: the select lines of `booth::encode`.
#[inline(always)]
fn digit(b2: V, i: u32) -> (V, V, V) {
    let (hi, mid, lo) = (b2.bitm(2 * i + 2), b2.bitm(2 * i + 1), b2.bitm(2 * i));
    let one = mid.xor(lo);
    let two = hi.andn(mid).andn(lo).or(mid.and(lo).andn(hi));
    (one, two, hi)
}

/// Row `i` of the narrow array: the selected multiple, shifted to its digit.
#[inline(always)]
fn narrow_row(i: u32, (mc, m2, b2): (V, V, V)) -> V {
    let (one, two, neg) = digit(b2, i);
    mc.and(one).or(m2.and(two)).xor(neg).shl(2 * i)
}

/// Row `i` of the full array, two limbs.
#[inline(always)]
fn full_row(i: u32, (mc, m2, m2_hi, b2): (V, V, V, V)) -> R2 {
    let (one, two, neg) = digit(b2, i);
    let lo = mc.and(one).or(m2.and(two)).xor(neg);
    let hi = m2_hi.and(two).xor(neg);
    let s = 2 * i;
    if s == 0 {
        R2([lo, hi])
    } else {
        R2([lo.shl(s), hi.shl(s).or(lo.shr(64 - s))])
    }
}

/// `booth::rows_narrow` + `csa_tree::reduce_narrow` per lane.
#[inline(always)]
fn multiply_narrow(mc: V, mp: V) -> (V, V, V, V) {
    let m2 = mc.shl(1);
    let b2 = mp.shl(1);
    let mut rows = [V::splat(0); ROWS];
    booth_rows!(rows = narrow_row((mc, m2, b2)); 0 1 2 3 4 5 6 7 8 9 10 11 12);
    const _: () = assert!(booth::NARROW_DIGITS == 13);
    rows[DIGITS] = mp.shr(1).and(V::splat(NEG_ROW_MASK));
    tree(&mut rows);
    // Bit 63 stands for bits 127:63 (see `booth::rows_narrow`); keep 106 bits.
    let widen = |x: V| x.map(|a| ((a as i64) >> 63) as u64 & ((1 << 42) - 1));
    (rows[0], widen(rows[0]), rows[1], widen(rows[1]))
}

/// `booth::rows` + `csa_tree::reduce` per lane, for multiplicands below 2^64.
#[inline(always)]
fn multiply_full(mc: V, mp: V) -> (V, V, V, V) {
    let m2 = mc.shl(1);
    let m2_hi = mc.shr(63);
    let b2 = mp.and(V::splat(B_MASK)).shl(1);
    let mut rows = [R2([V::splat(0); 2]); ROWS];
    booth_rows!(rows = full_row((mc, m2, m2_hi, b2));
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
    const _: () = assert!(DIGITS == 27);
    rows[DIGITS] = R2([
        mp.and(V::splat(B_MASK)).shr(1).and(V::splat(NEG_ROW_MASK)),
        V::splat(0),
    ]);
    tree(&mut rows);
    let top = V::splat((1 << 42) - 1);
    (
        rows[0].0[0],
        rows[0].0[1].and(top),
        rows[1].0[0],
        rows[1].0[1].and(top),
    )
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

/// `unpack::unpack` per lane for a format of `eb` exponent and `fb` fraction bits.
#[inline(always)]
fn unpack(bits: V, eb: u32, fb: u32, flush: bool) -> Op {
    let emax_field = (1u64 << eb) - 1;
    let bias = (1u64 << (eb - 1)) - 1;
    let e = bits.shr(fb).and(V::splat(emax_field));
    let frac = bits.and(V::splat((1u64 << fb) - 1));
    let e0 = e.is0();
    let flushed = e0.and(V::splat(m(flush)));
    let emax = e.eq(V::splat(emax_field));
    let f0 = frac.is0();
    Op {
        sign: bits.bitm(eb + fb),
        exp: e.map(|x| x.max(1).wrapping_sub(bias)),
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

/// Whether `ctrl` has a lane-parallel form.
pub fn supported(ctrl: &Ctrl) -> bool {
    matches!(ctrl.kind, Kind::F32 | Kind::F64)
}

/// Stage 1 for eight operations of one control word (`pipeline::stage1` per lane).
#[inline(always)]
pub fn stage1(ctrl: &Ctrl, a: V, b: V, c: V) -> S1x {
    let f64 = ctrl.kind == Kind::F64;
    let flush = ctrl.flush();
    let (ua, ub, uc, raw) = if f64 {
        (
            unpack(a, 11, 52, false),
            unpack(b, 11, 52, false),
            unpack(c, 11, 52, false),
            [a, b, c],
        )
    } else {
        let w = |x: V| x.and(V::splat(0xFFFF_FFFF));
        let h = |x: V| x.and(V::splat(0xFFFF));
        let (ua, ub) = match ctrl.ab_fmt {
            AbFmt::Native => (unpack(w(a), 8, 23, flush), unpack(w(b), 8, 23, flush)),
            AbFmt::F16 => (unpack(h(a), 5, 10, false), unpack(h(b), 5, 10, false)),
            AbFmt::Bf16 => (unpack(h(a), 8, 7, false), unpack(h(b), 8, 7, false)),
        };
        (ua, ub, unpack(w(c), 8, 23, flush), [w(a), w(b), w(c)])
    };
    let z = V::splat(0);
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
            sign: V::splat(m(ctrl.rnd != Rnd::Rm)),
            exp: V::splat((1i64 - 127) as u64),
            sig: z,
            zero: V::splat(!0),
            inf: z,
            nan: z,
        }
    } else {
        uc
    };
    uc.sign = uc.sign.xor(V::splat(m(ctrl.neg_c)));
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
    let inf = |s: V| {
        if f64 {
            s.and(V::splat(1 << 63)).or(V::splat(0x7FF0_0000_0000_0000))
        } else {
            s.and(V::splat(1 << 31)).or(V::splat(0x7F80_0000))
        }
    };
    let nan_res = if f64 {
        let quiet = |x: V| x.or(V::splat(1 << 51));
        a.nan.sel(
            quiet(raw[0]),
            b.nan
                .sel(quiet(raw[1]), c.nan.sel(quiet(raw[2]), V::splat(F64_NAN))),
        )
    } else {
        V::splat(F32_NAN)
    };
    let is_nan = any_nan.or(invalid);
    let spec_valid = is_nan.or(p_inf).or(c.inf);
    let spec_res = is_nan.sel(nan_res, p_inf.sel(inf(sign_p), c.inf.sel(inf(c.sign), z)));

    // Alignment shifter.
    let prod_zero = a.zero.or(b.zero);
    let ep = a.exp.add(b.exp);
    let ec = c.exp;
    let d = ec.sub(ep);
    let far = prod_zero.or(V::splat(56).lts(d));
    let near_sh = V::splat(56)
        .sub(d)
        .map(|x| (x as i64).clamp(0, crate::align::MAX_SHIFT as i64) as u64);
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

/// Stage 2 (`pipeline::stage2` per lane): product add, significand add, LZA.
#[inline(always)]
pub fn stage2(ctrl: &Ctrl, s: &S1x) -> S2x {
    let z = V::splat(0);
    // Carry-propagate add of the pair, modulo 2^106.
    let lo = s.mul_sum[0].add(s.mul_carry[0]);
    let cy = lo.zip(s.mul_sum[0], |l, a| (l < a) as u64);
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
    let cin = eff_sub.andn(sticky).and(V::splat(1));
    let sum = a.add(b, 166).add_bit(cin, 166);
    let neg = eff_sub.and(sum.bitm(165));
    let mag = W::sel(neg, sum.not(166), sum)
        .add_bit(neg.andn(sticky).and(V::splat(1)), 166)
        .trunc(165);
    let zero = mag.is0().andn(sticky);
    let rm = V::splat(m(crate::round::effective_rnd(ctrl) == Rnd::Rm));
    let sign = zero.sel(eff_sub.sel(rm, s.sign_p), neg.xor(s.sign_p));

    // lza::predict.
    let t = W([a.0[0].xor(b.0[0]), a.0[1].xor(b.0[1]), a.0[2].xor(b.0[2])]);
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
    let cnt = V::splat(164)
        .sub(pos)
        .map(|x| (x as i64).clamp(0, 165) as u64);
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

/// Stage 3 (`pipeline::stage3` per lane): normalisation.
#[inline(always)]
pub fn stage3(ctrl: &Ctrl, s: &S2x) -> S3x {
    let emin = crate::round::result_fmt(ctrl).emin as i64 as u64;
    let lim = s.eref.add(V::splat(57)).sub(V::splat(emin));
    let under_range = lim.lts(V::splat(0));
    // Below the format's range before any shift: shift right, collecting sticky.
    let rs = lim.map(|x| (x as i64).wrapping_neg().clamp(0, 166) as u64);
    let (rnorm, rsticky) = s.mag.shr_sticky_v(rs, 165);
    // Otherwise: the LZA's shift, then one bit of correction either way.
    let s0 = s
        .lza_cnt
        .zip(lim, |c, l| (c as i64).min(l as i64).max(0) as u64);
    let x = s.mag.shl_v(s0, 166);
    let over = x.bitm(165);
    let under = over.or(x.bitm(164)).not().and(s0.lts(lim));
    let x = W::sel(over, x.shr_c(1), W::sel(under, x.shl_c(1, 166), x)).trunc(165);
    let sh = s0.sub(over.and(V::splat(1))).add(under.and(V::splat(1)));
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

/// Stage 4 (`round::round` per lane): the result word.
#[inline(always)]
pub fn stage4(ctrl: &Ctrl, s: &S3x) -> V {
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
    let below = s.norm.and(W(low_mask_c(164 - p))).is0().not();
    let st = below.or(s.sticky);
    let one = V::splat(1);
    let inc = match rnd {
        Rnd::Rn => rb.and(st.or(sig.and(one).eq(one))),
        Rnd::Rz => V::splat(0),
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
    let flushed = biased.is0().and(V::splat(m(ctrl.flush())));
    let fin = sign.or(biased.shl(p - 1)).or(sig_f.and(frac_mask));
    let fin = flushed.sel(s.flush_sign.and(one).shl(sign_at), fin);
    let enc = s
        .spec_valid
        .sel(s.spec_res, s.zero.sel(sign, ovf.sel(ovf_val, fin)));
    if ctrl.sat && f.width == 32 {
        enc.map(crate::round::saturate_f32)
    } else {
        enc
    }
}

/// Limbs of a mask of the low `n` bits.
#[inline(always)]
fn low_mask_c(n: u32) -> [V; 3] {
    let limb = |i: u32| -> u64 {
        if n >= 64 * (i + 1) {
            !0
        } else if n <= 64 * i {
            0
        } else {
            (1u64 << (n - 64 * i)) - 1
        }
    };
    [V::splat(limb(0)), V::splat(limb(1)), V::splat(limb(2))]
}

/// Results of eight operations of one control word, through all four stages.
#[inline(always)]
fn results_body(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    let s1 = stage1(ctrl, a, b, c);
    let s2 = stage2(ctrl, &s1);
    let s3 = stage3(ctrl, &s2);
    stage4(ctrl, &s3)
}

/// [`results_body`] for one kind as a constant, so the other kind's logic folds away.
#[inline(always)]
fn results_kind(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    if ctrl.kind == Kind::F64 {
        results_body(
            &Ctrl {
                kind: Kind::F64,
                ..*ctrl
            },
            a,
            b,
            c,
        )
    } else {
        results_body(
            &Ctrl {
                kind: Kind::F32,
                ..*ctrl
            },
            a,
            b,
            c,
        )
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512cd,avx512bw,avx512dq,bmi1,bmi2,lzcnt,popcnt")]
fn results_avx512(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    results_kind(ctrl, a, b, c)
}

fn results_portable(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    results_kind(ctrl, a, b, c)
}

/// Whether the AVX-512 build of the lane engine can run here (checked once).
fn have_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static HAVE: OnceLock<bool> = OnceLock::new();
        *HAVE.get_or_init(|| {
            is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512cd")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("bmi1")
                && is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("lzcnt")
                && is_x86_feature_detected!("popcnt")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The result words of eight operations of one supported control word (see [`supported`]).
pub fn results(ctrl: &Ctrl, a: V, b: V, c: V) -> V {
    debug_assert!(supported(ctrl));
    #[cfg(target_arch = "x86_64")]
    if have_avx512() {
        // SAFETY: the CPU has every feature `results_avx512` is compiled for.
        return unsafe { results_avx512(ctrl, a, b, c) };
    }
    results_portable(ctrl, a, b, c)
}

impl S1x {
    /// Lane `i` as the scalar bank's lane-0 fields and multiplier pair.
    pub fn lane(&self, i: usize) -> (u128, u128, S1Lane) {
        let w = |v: [V; 2]| v[0].0[i] as u128 | (v[1].0[i] as u128) << 64;
        let b = |v: V| v.0[i] != 0;
        (
            w(self.mul_sum),
            w(self.mul_carry),
            S1Lane {
                sign_p: b(self.sign_p),
                sign_c: b(self.sign_c),
                prod_zero: b(self.prod_zero),
                c_zero: b(self.c_zero),
                eref: self.eref.0[i] as i16,
                c_aligned: self.c_aligned.lane::<164>(i),
                align_sticky: b(self.align_sticky),
                spec_valid: b(self.spec_valid),
                spec_res: self.spec_res.0[i],
            },
        )
    }
}

impl S2x {
    pub fn lane(&self, i: usize) -> S2Lane {
        let b = |v: V| v.0[i] != 0;
        S2Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            mag: self.mag.lane::<165>(i),
            sticky: b(self.sticky),
            lza_cnt: self.lza_cnt.0[i] as u8,
            eref: self.eref.0[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.0[i],
        }
    }
}

impl S3x {
    pub fn lane(&self, i: usize) -> S3Lane {
        let b = |v: V| v.0[i] != 0;
        S3Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            norm: self.norm.lane::<165>(i),
            sticky: b(self.sticky),
            exp: self.exp.0[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.0[i],
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

    /// Every register field of every lane, and the result, equal the scalar stage functions,
    /// for every control word of the supported families on edge-biased operands, in both the
    /// AVX-512 build (where the CPU has it) and the portable one.
    #[test]
    fn lanes_equal_the_scalar_stages_field_for_field() {
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
                    let v =
                        |k: usize| V(std::array::from_fn(|i| [ins[i].0, ins[i].1, ins[i].2][k]));
                    let (a, b, c) = (v(0), v(1), v(2));
                    let kctrl = ctrl;
                    let l1 = stage1(&kctrl, a, b, c);
                    let l2 = stage2(&kctrl, &l1);
                    let l3 = stage3(&kctrl, &l2);
                    let d = stage4(&kctrl, &l3);
                    assert_eq!(results(&ctrl, a, b, c), d);
                    assert_eq!(results_portable(&ctrl, a, b, c), d);
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
                        assert_eq!(d.0[i], s4(&r3).d, "d {what}");
                    }
                }
            }
        }
        assert!(words > 100, "only {words} control words");
    }
}

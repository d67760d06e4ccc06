//! The lane engine's four stages, each the scalar stage of `pipeline` for lane 0, per lane and
//! without data-dependent branches, generic over the vector primitives of [`Lanes`] and
//! compiled once per kind (`KIND`).

use super::banks::{S1x, S2x, S3x};
use super::product::{product_full, product_narrow};
use super::unpack::{unpack, Operand};
use super::window::Window;
use super::{with_kind, HALF_HI};
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format;
use crate::machine::lanes::{mask_of, Lanes};
use crate::parts::special::{F32_NAN, F64_NAN, HALF_NAN, OOB_NAN};
use crate::regs::U165;

/// Stage 1 for sixteen operations of one control word (`pipeline::stage1` per lane).
#[inline(always)]
pub(crate) fn stage1<L: Lanes, const KIND: u8>(ctrl: &Ctrl, a: L, b: L, c: L) -> S1x<L> {
    let ctrl = &with_kind::<KIND>(ctrl);
    let f64 = ctrl.kind == Kind::F64;
    let half = ctrl.kind == Kind::Half;
    let flush = ctrl.flush();
    let (ua, ub, uc, raw) = if half {
        // One 16-bit lane: bits 15:0, or 31:16 for half2's lane 1 (`HALF_HI`).
        let h = L::splat(0xFFFF);
        let f = ctrl.half_fmt();
        let (a, b, c) = if KIND == HALF_HI {
            (a.shr(16).and(h), b.shr(16).and(h), c.shr(16).and(h))
        } else {
            (a.and(h), b.and(h), c.and(h))
        };
        (
            unpack(a, f, flush),
            unpack(b, f, flush),
            unpack(c, f, flush),
            [a, b, c],
        )
    } else if f64 {
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
        Operand {
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
        Operand {
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

    // Special-case unit. Every special result needs an infinite or NaN operand (the OOB NaN is a
    // NaN), so where no lane has one, as in most groups, both fields are zero and the unit is
    // skipped, like stage 3's rare path.
    let sign_p = a.sign.xor(b.sign);
    let special = a.inf.or(a.nan).or(b.inf).or(b.nan).or(c.inf).or(c.nan);
    let (spec_valid, spec_res) = if !special.any() {
        (z, z)
    } else {
        let p_inf = a.inf.or(b.inf);
        let any_nan = a.nan.or(b.nan).or(c.nan);
        let invalid = a
            .inf
            .and(b.zero)
            .or(a.zero.and(b.inf))
            .or(p_inf.and(c.inf).and(sign_p.xor(c.sign)));
        let (sign_bit, inf_bits) = if half {
            let f = ctrl.half_fmt();
            (f.sign_bit(), f.exp_max() << f.frac_bits)
        } else if f64 {
            (1 << 63, 0x7FF0_0000_0000_0000)
        } else {
            (1 << 31, 0x7F80_0000)
        };
        let inf_p = sign_p.and(L::splat(sign_bit)).or(L::splat(inf_bits));
        let inf_c = c.sign.and(L::splat(sign_bit)).or(L::splat(inf_bits));
        let nan_res = if f64 {
            // S2: the first NaN operand in b, c, a order, quieted; else the default NaN.
            let first = b.nan.sel(raw[1], c.nan.sel(raw[2], raw[0]));
            any_nan.sel(first.or(L::splat(1 << 51)), L::splat(F64_NAN))
        } else if half {
            L::splat(HALF_NAN)
        } else {
            L::splat(F32_NAN)
        };
        let is_nan = any_nan.or(invalid);
        // S12: the OOB NaN in a or b forces +0 before the rest.
        let oob = if half && ctrl.oob {
            let (m, pat) = (L::splat(0x7FFF), L::splat(OOB_NAN));
            raw[0].and(m).cmpeq(pat).or(raw[1].and(m).cmpeq(pat))
        } else {
            z
        };
        (
            oob.or(is_nan).or(p_inf).or(c.inf),
            oob.sel(
                z,
                is_nan.sel(nan_res, p_inf.sel(inf_p, c.inf.sel(inf_c, z))),
            ),
        )
    };

    // Alignment shifter.
    let prod_zero = a.zero.or(b.zero);
    let ep = a.exp.add(b.exp);
    let ec = c.exp;
    let d = ec.sub(ep);
    let far = prod_zero.or(L::splat(56).lts(d));
    let near_sh = L::splat(56)
        .sub(d)
        .clamp(0, crate::parts::align::MAX_SHIFT as i64);
    let sh = c.zero.sel(
        L::splat(crate::parts::align::MAX_SHIFT as u64),
        far.sel(z, near_sh),
    );
    let eref = c.zero.sel(ep, far.sel(ec.sub(L::splat(56)), ep)).i16();
    // The addend's leading bit at window bit 163: bit 52 of the significand goes to 163.
    // The narrow kinds' significands (24 bits or fewer, at bits 52:29) lie wholly in limb 2.
    let top = Window([z, if f64 { c.sig.shl(47) } else { z }, c.sig.shr(17)]);
    let (c_aligned, align_sticky) = top.shr_sticky_v(sh, 164);

    // The multiplier: the product the Booth array and carry-save tree sum to (`product`).
    let (mcand, mplier) = if f64 {
        (a.sig, b.sig)
    } else {
        (a.sig.shr(29), b.sig.shr(29))
    };
    let prod = if f64 {
        product_full(mcand, mplier)
    } else {
        product_narrow(mcand, mplier)
    };
    S1x {
        prod,
        mcand,
        mplier,
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
///
/// With `PREDICT` the count is the LZA's prediction, the register's value. Without it, it is the
/// magnitude's exact leading-zero count instead, which stage 3 turns into the same shift,
/// exponent and window: the prediction is the exact count or one off it either way, which the
/// normaliser's one-bit correction undoes, and a shift clamped to the format's range clamps
/// both alike. For a zero magnitude (whose exponent depends on the count itself) the two are
/// equal, 165. Both facts are proved on the RTL for every input (`make formal`, part `lza`:
/// `ok_within_one`, `ok_zero`; docs/formal.md). The lane engine's results take that path; its
/// bank tests take both and require stage 3's bank to be the same.
#[inline(always)]
pub(crate) fn stage2<L: Lanes, const KIND: u8, const PREDICT: bool>(
    ctrl: &Ctrl,
    s: &S1x<L>,
) -> S2x<L> {
    let ctrl = &with_kind::<KIND>(ctrl);
    let z = L::zero();
    // The product (the scalar stage's carry-propagate add of the pair, already done).
    let [lo, hi] = s.prod;
    // The product in the window, as `adder::operands` places it (U166 of p << 3).
    let p = if ctrl.kind == Kind::F64 {
        Window([lo, hi, z])
    } else {
        // (prod & (2^48 - 1)) << 58: bits 47:0 go to 105:58.
        let p48 = lo.and(L::splat((1 << 48) - 1));
        Window([p48.shl(58), p48.shr(6), z])
    };
    let sm1x = ctrl.kind == Kind::Sm1x;
    let p = if sm1x {
        // `sm1x::truncate_product` where c is not zero: the 24 bits from the leading one, at
        // bit 105 or 104 (bits 41 or 40 of limb 1; nothing of limb 0 survives).
        let keep = p.bitm(105).sel(
            L::splat(((1 << 24) - 1) << (82 - 64)),
            L::splat(((1 << 24) - 1) << (81 - 64)),
        );
        Window::sel(s.c_zero, p, Window([z, p.0[1].and(keep), z]))
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
    let mag = Window::sel(neg, sum.not(166), sum)
        .add_bit(neg.andn(sticky).bit01(), 166)
        .trunc(165);
    let zero = mag.is0().andn(sticky);
    let rm = L::splat(mask_of(crate::parts::round::effective_rnd(ctrl) == Rnd::Rm));
    let sign = zero.sel(eff_sub.sel(rm, s.sign_p), neg.xor(s.sign_p));

    let lza_cnt = if PREDICT {
        lza(a, b)
    } else {
        // The magnitude (165 bits) has its leading one at bit 165 - lz: 164 - that to normalise
        // (165 for a zero magnitude, the LZA's count for it too).
        mag.leading_zeros(166).sub(L::splat(1))
    };

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

/// `lza::predict` per lane: the leading-zero prediction from the adder's operands.
#[inline(always)]
fn lza<L: Lanes>(a: Window<L>, b: Window<L>) -> L {
    let z = L::zero();
    let t = a.xor(b);
    let g = a.and(b);
    let zz = a.or(b).not(166);
    let t_up = t.shr_c(1);
    let g_dn = g.shl_c(1, 166);
    let z_dn = zz.shl_c(1, 166).or(Window([L::splat(1), z, z]));
    let f = t_up
        .and(g.and(z_dn.not(166)).or(zz.and(g_dn.not(166))))
        .or(t_up
            .not(166)
            .and(zz.and(z_dn.not(166)).or(g.and(g_dn.not(166)))));
    let pos = L::splat(165).sub(f.leading_zeros(166));
    let cnt = L::splat(164).sub(pos).clamp(0, 165);
    f.is0().sel(L::splat(165), cnt)
}

/// Stage 3 (`pipeline::stage3` per lane): normalisation.
#[inline(always)]
pub(crate) fn stage3<L: Lanes, const KIND: u8>(ctrl: &Ctrl, s: &S2x<L>) -> S3x<L> {
    let ctrl = &with_kind::<KIND>(ctrl);
    let emin = crate::parts::round::normalize_emin(ctrl) as i64 as u64;
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
    let x = Window::sel(over, x.shr_c(1), Window::sel(under, x.shl_c(1, 166), x)).trunc(165);
    let sh = s0.sub(over.bit01()).add(under.bit01());
    let exp = s.eref.add(L::splat(57)).sub(sh);
    S3x {
        sign: s.sign,
        zero: s.zero,
        flush_sign: s.flush_sign,
        norm: Window::sel(under_range, rnorm, x),
        sticky: s.sticky.or(under_range.and(rsticky)),
        exp: under_range.sel(L::splat(emin), exp).i16(),
        spec_valid: s.spec_valid,
        spec_res: s.spec_res,
    }
}

/// The `p` significand bits from bit `top` of `s.norm` down to bit `top + 1 - p` (for `top` =
/// 163, bit 164 comes along and the caller masks it off), and whether rounding them in the
/// direction `rnd` increments them (a mask), from the round bit below them and the sticky below
/// that. A function, not a closure in `stage4`: the closure was compiled out of line, outside
/// the backends' `target_feature` kernels, and f32 `run` on AVX-512 fell from 75 to 26 M ops/s.
#[inline(always)]
fn round_at<L: Lanes>(s: &S3x<L>, p: u32, rnd: Rnd, top: u32) -> (L, L) {
    let one = L::splat(1);
    let sig = if top + 1 - p >= 128 {
        s.norm.0[2].shr(top + 1 - p - 128)
    } else {
        let k = top + 1 - p - 64;
        s.norm.0[1].shr(k).or(s.norm.0[2].shl(64 - k))
    };
    let rb = s.norm.bitm(top - p);
    let below = s
        .norm
        .and({
            let [l0, l1, l2] = *U165::low_mask((top - p) as usize).as_limbs();
            Window([L::splat(l0), L::splat(l1), L::splat(l2)])
        })
        .is0()
        .not();
    let st = below.or(s.sticky);
    let inc = match rnd {
        Rnd::Rn => rb.and(st.or(sig.and(one).cmpeq(one))),
        Rnd::Rz => L::zero(),
        Rnd::Rm => s.sign.and(rb.or(st)),
        Rnd::Rp => s.sign.not().and(rb.or(st)),
    };
    (sig, inc)
}

/// Stage 4 (`round::round` per lane): the result word.
#[inline(always)]
pub(crate) fn stage4<L: Lanes, const KIND: u8>(ctrl: &Ctrl, s: &S3x<L>) -> L {
    let ctrl = &with_kind::<KIND>(ctrl);
    let f = crate::parts::round::result_fmt(ctrl);
    let rnd = crate::parts::round::effective_rnd(ctrl);
    let p = f.p;
    let sign_at = f.width - 1;
    let one = L::splat(1);
    // The kept significand (bits 164:165-p) and what lies below it.
    let (sig, inc) = round_at(s, p, rnd, 164);
    let inc = inc.and(one);
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
    // S4 (`round`'s `Decisions::tininess`): below 2^emin before rounding, and not brought up
    // to it by rounding to p bits with an unbounded exponent (bits 163:164-p all ones and
    // rounding up).
    let flushed = if ctrl.flush() {
        let ones = L::splat((1u64 << p) - 1);
        let (sig_u, inc_u) = round_at(s, p, rnd, 163);
        let reaches = sig_u.and(ones).cmpeq(ones).and(inc_u);
        s.norm.bitm(164).or(reaches).not()
    } else {
        L::zero()
    };
    let fin = sign.or(biased.shl(p - 1)).or(sig_f.and(frac_mask));
    let fin = flushed.sel(s.flush_sign.and(one).shl(sign_at), fin);
    let enc = s
        .spec_valid
        .sel(s.spec_res, s.zero.sel(sign, ovf.sel(ovf_val, fin)));
    if (ctrl.sat && f.width <= 32) || ctrl.relu {
        let exp_field = L::splat(((1u64 << (f.width - f.p)) - 1) << (p - 1));
        let nan = enc
            .and(exp_field)
            .cmpeq(exp_field)
            .andn(enc.and(frac_mask).is0());
        let neg = enc.bitm(sign_at);
        if ctrl.sat {
            // `round::saturate`: NaN and anything <= 0 to +0, anything >= 1.0 to 1.0 (the sign
            // is the top bit: a result has nothing above it).
            let one = L::splat((f.emax as u64) << (p - 1));
            nan.or(neg).sel(L::zero(), enc.minu(one))
        } else {
            // `round::relu` (S11): NaN to the half NaN, anything negative to +0.
            nan.sel(L::splat(HALF_NAN), neg.sel(L::zero(), enc))
        }
    } else {
        enc
    }
}

//! The float corners of one lane: ties that carry, tiny results that round up, results of a
//! chosen class, cancellation, the limits of the datapath's comparisons, the half formats' and
//! sm_1x's own corners.

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::format::{Fmt, F32};

use super::exact::*;
use crate::stim::Rng;

/// Corner kinds of one float lane: a tie carrying into the exponent, a tiny result rounding
/// up, an sm_1x path (other families: a result class), a result class.
const TIE_CARRY: u64 = 0;
const TINY_UP: u64 = 1;
const SM1X: u64 = 2;
const HALF: u64 = 3;
const CANCEL: u64 = 4;
const BOUNDS: u64 = 5;
pub(super) const LANE_KINDS: u64 = 7;

/// a, b, c of one lane (in the lane's low bits) aimed at corner kind `kind`.
pub(super) fn lane_corner(rng: &mut Rng, ctrl: &Ctrl, kind: u64) -> Option<(u64, u64, u64)> {
    match kind {
        TIE_CARRY => tie_carry(rng, ctrl),
        TINY_UP => tiny_up(rng, ctrl),
        SM1X if ctrl.kind == Kind::Sm1x => sm1x_corner(rng, ctrl),
        HALF if ctrl.is_half() => half_corner(rng, ctrl),
        CANCEL => cancel_corner(rng, ctrl),
        BOUNDS => bounds_corner(rng, ctrl),
        _ => class_corner(rng, ctrl),
    }
}

/// c as written for an addend of sign `s` (sub negates its c).
fn c_sign(ctrl: &Ctrl, s: bool) -> bool {
    s ^ ctrl.neg_c
}

/// An all-ones significand plus exactly half an ulp: rounding up (rn always; rm negative; rp
/// positive) carries into the exponent, and at the top binade overflows.
fn tie_carry(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let r = res(ctrl);
    let (fab, _, fc) = ctrl.operand_formats();
    let normal_only = ctrl.flush();
    let s = rng.bit();
    let e = if rng.chance(1, 3) {
        r.emax
    } else {
        rng.range(r.emin as i64, (r.emax - 1) as i64) as i32
    };
    let ones = (1u64 << r.p) - 1;
    let sum = !ctrl.c_zero && (ctrl.b_one || fab.frac_bits + 1 < r.p || rng.bit());
    if sum {
        // c = ±(2^p - 1) * 2^(e - p + 1), product = ±2^(e - p).
        let c = make(fc, c_sign(ctrl, s), ones, e - r.p as i32 + 1, normal_only)?;
        let (a, b) = if ctrl.b_one {
            (make(fab, s, 1, e - r.p as i32, normal_only)?, 0)
        } else {
            let sa = rng.bit();
            split(rng, fab, (sa, sa ^ s), (1, 1), e - r.p as i32, normal_only)?
        };
        return Some((a, b, c));
    }
    if ctrl.b_one || fab.frac_bits + 1 < r.p {
        return None;
    }
    // Product of two factors of 2^(p+1) - 1, leading bit at 2^e; c = ±0.
    let &(f1, f2) = rng.pick(ones_factors(r.p));
    let (f1, f2) = if rng.bit() { (f1, f2) } else { (f2, f1) };
    let sa = rng.bit();
    let (a, b) = split(
        rng,
        fab,
        (sa, sa ^ s),
        (f1, f2),
        e - r.p as i32,
        normal_only,
    )?;
    let c = if ctrl.c_zero {
        0
    } else {
        fc.assemble(c_sign(ctrl, s), 0, 0)
    };
    Some((a, b, c))
}

/// A result just below the minimum normal that may round up to it: a product of
/// (2^p - 1 - j) * 2^-p and 2^emin (p bits, so under `.ftz` flushed, S4), or under `.ftz`, half
/// the time, of (2^(p-1) + 1) * 2^-p and (2^p - 2) * 2^(emin-p+1), which is
/// 2^emin (1 - 2^(2-2p)) and reaches 2^emin at p bits (kept in rn, and away from zero), or
/// (without a real b, or for f16/bf16 factors) the largest subnormal c plus a fraction of the
/// subnormal quantum.
fn tiny_up(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let r = res(ctrl);
    let (fab, _, fc) = ctrl.operand_formats();
    let s = rng.bit();
    let sa = rng.bit();
    if !ctrl.b_one && fab.frac_bits + 1 == r.p {
        let p = r.p as i32;
        let ((ma, ea), (mb, eb)) = if ctrl.flush() && rng.bit() {
            (((1 << (r.p - 1)) + 1, -p), ((1 << r.p) - 2, r.emin - p + 1))
        } else {
            let j = *rng.pick(&[0u64, 0, 1, 2]);
            (((1 << r.p) - 1 - j, -p), (1, r.emin))
        };
        let a = make(fab, sa, ma, ea, true)?;
        let b = make(fab, sa ^ s, mb, eb, true)?;
        let c = if ctrl.c_zero {
            0
        } else {
            fc.assemble(c_sign(ctrl, s), 0, 0)
        };
        return Some((a, b, c));
    }
    if ctrl.c_zero || ctrl.flush() {
        return None;
    }
    // c = largest subnormal, product = 3/4 or 1/4 of the quantum 2^(emin - p + 1).
    let c = make(
        fc,
        c_sign(ctrl, s),
        (1 << (r.p - 1)) - 1,
        r.emin - r.p as i32 + 1,
        false,
    )?;
    let m = *rng.pick(&[1u64, 3]);
    let e = r.emin - r.p as i32 - 1;
    let (a, b) = if ctrl.b_one {
        (make(fab, s, m, e, false)?, 0)
    } else {
        split(rng, fab, (sa, sa ^ s), (m, 1), e, false)?
    };
    Some((a, b, c))
}

/// Operands whose result has a chosen class: zero, normal, subnormal (or flushed), overflow,
/// inf or NaN.
fn class_corner(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let r = res(ctrl);
    let (fab, _, fc) = ctrl.operand_formats();
    let (lo, hi) = exp_range(fab, true);
    let s = rng.bit();
    let sa = rng.bit();
    let sig = |rng: &mut Rng, f: Fmt| rng.next_u64() & f.frac_mask() | 1 << f.frac_bits;
    let zero_c = |s| {
        if ctrl.c_zero {
            0
        } else {
            fc.assemble(c_sign(ctrl, s), 0, 0)
        }
    };
    let nan = |rng: &mut Rng, f: Fmt| {
        let q = if rng.bit() { f.quiet_bit() } else { 0 };
        f.assemble(
            rng.bit(),
            f.exp_max(),
            q | 1 | (rng.next_u64() & (f.quiet_bit() - 1)),
        )
    };
    match rng.below(6) {
        // Exact zero: a * b = m exactly, c = -m.
        0 if !ctrl.c_zero => {
            let m = 1 + rng.below(1 << 10);
            let e1 = rng.range(-10, 10) as i32;
            let (a, b) = if ctrl.b_one {
                (make(fab, s, m, 0, true)?, 0)
            } else {
                (
                    make(fab, sa, m, e1, true)?,
                    make(fab, sa ^ s, 1, -e1, true)?,
                )
            };
            Some((a, b, make(fc, c_sign(ctrl, !s), m, 0, true)?))
        }
        // Overflow: leading exponents that sum past emax.
        1 if !ctrl.b_one => {
            let t = r.emax + rng.range(0, 2) as i32;
            let (ea_lo, ea_hi) = (lo.max(t - hi), hi.min(t - lo));
            if ea_lo > ea_hi {
                return None;
            }
            let ea = rng.range(ea_lo as i64, ea_hi as i64) as i32;
            let fb = fab.frac_bits as i32;
            let a = make(fab, sa, sig(rng, fab), ea - fb, true)?;
            let b = make(fab, sa ^ s, sig(rng, fab), t - ea - fb, true)?;
            Some((a, b, zero_c(s)))
        }
        // Subnormal (flushed under .ftz) result: a product of two powers of two below 2^emin.
        2 if !ctrl.b_one => {
            let e = r.emin - 1 - rng.range(0, r.p as i64 - 2) as i32;
            let (a, b) = split(rng, fab, (sa, sa ^ s), (1, 1), e, true)?;
            Some((a, b, zero_c(s)))
        }
        // Infinite a.
        3 => {
            let b = if ctrl.b_one {
                0
            } else {
                make(fab, s, 1, 0, true)?
            };
            Some((fab.assemble(sa, fab.exp_max(), 0), b, zero_c(s)))
        }
        // NaNs.
        4 => {
            let b = if ctrl.b_one { 0 } else { nan(rng, fab) };
            let c = if ctrl.c_zero { 0 } else { nan(rng, fc) };
            Some((nan(rng, fab), b, c))
        }
        // Normal: operands near 1.
        _ => {
            let fb = fab.frac_bits as i32;
            let a = make(fab, sa, sig(rng, fab), -fb, true)?;
            let b = if ctrl.b_one {
                0
            } else {
                make(fab, sa ^ s, sig(rng, fab), -fb, true)?
            };
            let c = if ctrl.c_zero {
                0
            } else {
                make(
                    fc,
                    rng.bit(),
                    sig(rng, fc),
                    -(fc.frac_bits as i32) - 2,
                    true,
                )?
            };
            Some((a, b, c))
        }
    }
}

/// A binary32 product cancelled by its own value rounded to 24 bits: the difference is the
/// product's low half, its leading one anywhere in the 24 bits below the kept ones, so the
/// LZA's prediction and its one-bit correction land on every window bit there (the slice
/// boundaries of `lza.position` included, in either hardware lane).
fn cancel_corner(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let (fab, _, fc) = ctrl.operand_formats();
    if ctrl.b_one || ctrl.c_zero || fab != F32 || fc != F32 {
        return None;
    }
    let sig = |rng: &mut Rng| rng.next_u64() & F32.frac_mask() | 1 << F32.frac_bits;
    let e = rng.range(-20, 20) as i32;
    let sa = rng.bit();
    let s = rng.bit();
    let (a, b, c) = if rng.bit() {
        let a = make(F32, sa, sig(rng), e - 23, true)?;
        let b = make(F32, sa ^ s, sig(rng), -23, true)?;
        // Exact in f64 (48 bits); its binary32 rounding, negated so that it cancels.
        let prod = F32.to_f64(a) * F32.to_f64(b);
        (a, b, u64::from((-prod as f32).to_bits()))
    } else {
        // (2^23 + 1)(2^23 + k) = 2^46 + (k + 1) 2^23 + k: c takes the top 24 bits, leaving k,
        // whose leading one is 0..3 bits above the product's lowest bit (window bits 61..64).
        let k = rng.range(2, 15) as u64;
        let a = make(F32, sa, (1 << 23) + 1, e - 23, true)?;
        let b = make(F32, sa ^ s, (1 << 23) + k, -23, true)?;
        (a, b, make(F32, !s, (1 << 23) + k + 1, e - 23, true)?)
    };
    let c = if ctrl.neg_c { c ^ F32.sign_bit() } else { c };
    Some((a, b, c))
}

/// A value at, one below or one above a limit a comparison of the datapath decides on
/// (`coverage::bins::bounds`): the addend d = 55..57 binades above the product (the hold
/// limit) or 107..109 and 55..56 below it (the shift clamp, the addend's last bit at the
/// window's bottom); a product near 2^emin, or 57..58 binades below it, with c = 0 (the
/// normaliser's LZA count against its exponent limit, and the limit at 0 and -1); an addend
/// with one product bit just below its round bit; a product in the top binade or exactly one
/// above it; and 1.0, the value below it and the value above it for `.sat`.
fn bounds_corner(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    if tiny_sticky_word(ctrl) && rng.chance(1, 4) {
        return tiny_sticky(rng, ctrl);
    }
    let r = res(ctrl);
    let (fab, _, fc) = ctrl.operand_formats();
    let normal_only = ctrl.flush();
    let (pab, pc) = (fab.frac_bits + 1, fc.frac_bits + 1);
    let p = r.p as i32;
    let s = rng.bit();
    let sa = rng.bit();
    // a * b = m * 2^e (e: the exponent of m's lowest bit); b = 1.0 for add/sub.
    let product = |rng: &mut Rng, m: (u64, u64), e: i32| {
        if ctrl.b_one {
            (m.1 == 1).then(|| make(fab, s, m.0, e, normal_only).map(|a| (a, 0)))?
        } else {
            split(rng, fab, (sa, sa ^ s), m, e, normal_only)
        }
    };
    let c_zero = |s: bool| {
        if ctrl.c_zero {
            0
        } else {
            fc.assemble(c_sign(ctrl, s), 0, 0)
        }
    };
    match rng.below(10) {
        // 2^emin (1 - 2^-(p+1)): just below the minimum normal by half a p-bit ulp, a tie for
        // S4's test at p bits: c = 2^emin minus a product 2^(emin-p-1), or a product of two
        // factors of 2^(p+1) - 1.
        8 | 9 => {
            let e = r.emin - p - 1;
            if ctrl.c_zero || rng.bit() {
                let &(f1, f2) = rng.pick(ones_factors(r.p));
                let (a, b) = product(rng, (f1, f2), e)?;
                return Some((a, b, c_zero(s)));
            }
            let c = make(fc, c_sign(ctrl, s), 1, r.emin, normal_only)?;
            let sa = rng.bit();
            let (a, b) = if ctrl.b_one {
                (make(fab, !s, 1, e, normal_only)?, 0)
            } else {
                split(rng, fab, (sa, sa ^ !s), (1, 1), e, normal_only)?
            };
            Some((a, b, c))
        }
        // The smallest subnormal times 2^eb beside an addend 2^(ep - 56): shift 112, exact, the
        // addend's bits reaching below the product's round bit (only the window decides the
        // sticky bit).
        7 => {
            if ctrl.c_zero || ctrl.b_one || normal_only {
                return None;
            }
            let (emin_ab, emin_c) = (1 - fab.bias() as i32, 1 - fc.bias() as i32);
            // c = 2^(ep - 56) normal: ep = emin_ab + eb >= emin_c + 56.
            let eb = rng.range(0, 40) as i32 + emin_c - emin_ab + 56;
            let a = make(fab, sa, 1, emin_ab - pab as i32 + 1, false)?;
            let b = make(fab, sa ^ s, 1, eb, true)?;
            let c = make(fc, c_sign(ctrl, rng.bit()), 1, emin_ab + eb - 56, true)?;
            Some((a, b, c))
        }
        // The addend d binades above (below, for negative d) a product of leading bit 2^ep.
        0..=2 => {
            if ctrl.c_zero {
                return None;
            }
            let d = *rng.pick(&[55, 56, 57, -107, -108, -109, -55, -56]);
            let ep = rng.range(-30, 30) as i32 - d / 2;
            let (la, lb) = (pab, if ctrl.b_one { 1 } else { pab });
            let m = (
                sig_of(rng, la),
                if ctrl.b_one { 1 } else { sig_of(rng, lb) },
            );
            let (a, b) = product(rng, m, ep - (la + lb) as i32 + 2)?;
            let c = make(
                fc,
                c_sign(ctrl, rng.bit()),
                sig_of(rng, pc),
                ep + d - pc as i32 + 1,
                normal_only,
            )?;
            Some((a, b, c))
        }
        // A product of leading bit 2^(emin + k), c = 0.
        3 => {
            let k = *rng.pick(&[-3, -2, -1, 0, 1, 2, -57, -58]);
            let la = pab.min(r.p);
            let m = (sig_of(rng, la), 1);
            let (a, b) = product(rng, m, r.emin + k - la as i32 + 1)?;
            Some((a, b, c_zero(s)))
        }
        // c = m * 2^(ex - p + 1) with p bits, plus a product 2^(ex - p - 1): one bit just
        // below the round bit.
        4 => {
            if ctrl.c_zero || pc < r.p {
                return None;
            }
            let ex = rng.range((r.emin + p + 2) as i64, r.emax as i64) as i32;
            let c = make(
                fc,
                c_sign(ctrl, s),
                sig_of(rng, r.p),
                ex - p + 1,
                normal_only,
            )?;
            let (a, b) = product(rng, (1, 1), ex - p - 1)?;
            Some((a, b, c))
        }
        // An exact product with its leading bit at 2^emax or 2^(emax + 1), c = 0.
        5 => {
            let la = pab.min(r.p);
            let top = r.emax + rng.below(2) as i32;
            let m = sig_of(rng, la);
            let (a, b) = product(rng, (m, 1), top - la as i32 + 1)?;
            Some((a, b, c_zero(s)))
        }
        // .sat: 1 - 2^-p, 1.0 or 1 + 2^(1-p), as c beside a zero product, or as a * 1.0.
        _ => {
            if !ctrl.sat {
                return None;
            }
            let (m, e) = *rng.pick(&[
                ((1u64 << r.p) - 1, -p),
                (1, 0),
                ((1 << (r.p - 1)) + 1, 1 - p),
            ]);
            if ctrl.c_zero {
                Some((
                    make(fab, false, m, e, normal_only)?,
                    make(fab, false, 1, 0, true)?,
                    0,
                ))
            } else {
                let b = if ctrl.b_one {
                    0
                } else {
                    make(fab, rng.bit(), 1, rng.range(-4, 4) as i32, true)?
                };
                let c = make(fc, c_sign(ctrl, false), m, e, normal_only)?;
                Some((fab.assemble(false, 0, 0), b, c))
            }
        }
    }
}

/// Words where S4's test can be decided by the sticky alone: `.ftz` with `.rm`/`.rp`, a real
/// product (`coverage::bins::bounds::TINY_STICKY`).
fn tiny_sticky_word(c: &Ctrl) -> bool {
    c.flush() && !c.via_f32 && matches!(c.rnd, Rnd::Rm | Rnd::Rp) && !c.b_one
}

/// A result whose p bits one position below the minimum normal are all ones, with the round
/// bit there clear and something below it, signed so that `.rm`/`.rp` round it up: kept under
/// `.ftz` only because the sticky makes S4's test round up. Either the product
/// (2^(p-1) + x)(2^p - 2x) = 2^(2p-1) - 2x^2 with x^2 in (2^(p-3), 2^(p-2)) at 2^(emin - 2p + 1)
/// beside a zero c, or c = 2^emin less a product (2^q - 1) * 2^(emin - p - q).
fn tiny_sticky(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let r = res(ctrl);
    let (fab, _, fc) = ctrl.operand_formats();
    let p = r.p as i32;
    if fab.frac_bits + 1 != r.p {
        return None;
    }
    let s = ctrl.rnd == Rnd::Rm;
    let sa = rng.bit();
    if ctrl.c_zero || rng.bit() {
        // x from just above sqrt(2^(p-3)) to just below sqrt(2^(p-2)).
        let lo = (((1u64 << (p - 3)) as f64).sqrt() as u64 + 1).max(1);
        let hi = ((1u64 << (p - 2)) as f64).sqrt() as u64;
        let x = rng.range(lo as i64, hi as i64 - 1) as u64;
        let m = ((1u64 << (p - 1)) + x, (1u64 << p) - 2 * x);
        let (a, b) = split(rng, fab, (sa, sa ^ s), m, r.emin - 2 * p + 1, true)?;
        let c = if ctrl.c_zero {
            0
        } else {
            fc.assemble(c_sign(ctrl, s), 0, 0)
        };
        return Some((a, b, c));
    }
    let q = rng.range(2, p as i64) as i32;
    let c = make(fc, c_sign(ctrl, s), 1, r.emin, true)?;
    let (a, b) = split(
        rng,
        fab,
        (sa, sa ^ !s),
        ((1u64 << q) - 1, 1),
        r.emin - p - q,
        true,
    )?;
    Some((a, b, c))
}

/// The half formats' short operands: a product of (2^(p-1) + 1) * 2^(1-p) squared, whose 2p-2
/// bits the addend -(1 + 2^(2-p)) cancels down to the last (cancellation beyond p); and, for
/// bfloat16, a product of two tiny normals far below the subnormal range (the normaliser's
/// right shift into sticky).
fn half_corner(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let (f, _, _) = ctrl.operand_formats();
    let p = f.frac_bits + 1;
    let s = rng.bit();
    let sa = rng.bit();
    if ctrl.b_one || ctrl.c_zero {
        return None;
    }
    if ctrl.via_f32 && rng.bit() {
        return via_sticky(rng, ctrl);
    }
    if f.exp_bits == 8 && rng.bit() {
        let ea = -(rng.range(100, 126) as i32);
        let eb = -(rng.range(100, 126) as i32);
        let sig = |rng: &mut Rng| rng.next_u64() & f.frac_mask() | 1 << f.frac_bits;
        let fb = f.frac_bits as i32;
        let a = make(f, sa, sig(rng), ea - fb, true)?;
        let b = make(f, sa ^ s, sig(rng), eb - fb, true)?;
        let c = if rng.bit() {
            f.assemble(c_sign(ctrl, s), 0, 0)
        } else {
            make(f, c_sign(ctrl, s), 1, -133, false)?
        };
        return Some((a, b, c));
    }
    let m = (1u64 << (p - 1)) + 1;
    let e = rng.range(-4, 4) as i32;
    let (a, b) = split(rng, f, (sa, sa ^ s), (m, m), 2 * (e - p as i32 + 1), true)?;
    let c = make(
        f,
        c_sign(ctrl, !s),
        (1 << (p - 2)) + 1,
        2 * e - p as i32 + 2,
        true,
    )?;
    Some((a, b, c))
}

/// S13 (`fma.{rz,rm,rp}.bf16`, binary16 operands): a product that is an exact binary16 tie with
/// an even last bit, (2^j + 1)(2^(11-j) + 1) = 2^11 + 2^j + 2^(11-j) + 1 with j in 2..=9, beside
/// a c of the same sign below the binary32 round bit. `.rm`/`.rp` toward the sign lift the
/// binary32 step off the tie by its sticky alone (round bit clear), so the result rounds up;
/// the truncation would stay on the tie and round to even, down.
fn via_sticky(rng: &mut Rng, ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let (f, _, _) = ctrl.operand_formats();
    let p = (f.frac_bits + 1) as i32;
    let s = match ctrl.rnd {
        Rnd::Rm => true,
        Rnd::Rp => false,
        _ => rng.bit(),
    };
    let sa = rng.bit();
    let j = rng.range(2, p as i64 - 2) as u32;
    let m = ((1u64 << j) + 1, (1u64 << (p as u32 - j)) + 1);
    // The product's lead bit at 2^e; c at 2^ce, below the binary32 round bit 2^(e - 24).
    let (lo, hi) = exp_range(f, false);
    let e = rng.range((lo + 25) as i64, (hi - 1) as i64) as i32;
    let ce = rng.range(lo as i64, (e - 25) as i64) as i32;
    let (a, b) = split(rng, f, (sa, sa ^ s), m, e - p, ctrl.flush())?;
    let c = make(f, c_sign(ctrl, s), 1, ce, false)?;
    Some((a, b, c))
}

/// sm_1x (S7): a product beyond the f32 range brought back by a large c of the other sign; a
/// tiny negative product with c = +0 (-0 + +0 = +0); a product that overflows with c = ±0.
fn sm1x_corner(rng: &mut Rng, _ctrl: &Ctrl) -> Option<(u64, u64, u64)> {
    let sa = rng.bit();
    let sb = rng.bit();
    let sig = |rng: &mut Rng| rng.next_u64() & F32.frac_mask() | 1 << 23;
    match rng.below(3) {
        0 => {
            let t = rng.range(128, 129) as i32;
            let ea = rng.range((t - 127) as i64, 127) as i32;
            let a = make(F32, sa, sig(rng), ea - 23, true)?;
            let b = make(F32, sb, sig(rng), t - ea - 23, true)?;
            let c = make(
                F32,
                !(sa ^ sb),
                sig(rng),
                rng.range(126, 127) as i32 - 23,
                true,
            )?;
            Some((a, b, c))
        }
        1 => {
            let a = make(F32, true, sig(rng), -70 - 23, true)?;
            let b = make(F32, false, sig(rng), -70 - 23, true)?;
            let (a, b) = if rng.bit() {
                (a, b)
            } else {
                (b ^ 0x8000_0000, a ^ 0x8000_0000)
            };
            Some((a, b, 0))
        }
        _ => {
            let a = make(F32, sa, sig(rng), 64 - 23 + rng.range(0, 3) as i32, true)?;
            let b = make(F32, sb, sig(rng), 64 - 23 + rng.range(0, 3) as i32, true)?;
            Some((a, b, F32.assemble(rng.bit(), 0, 0)))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// vmad
// ---------------------------------------------------------------------------------------------

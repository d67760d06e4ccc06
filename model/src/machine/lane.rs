//! One float lane of each stage, the functions the RTL keeps in its lane modules: [`s1_lane`] is
//! `ptxfma_s1_lane`, [`s2_lane`] is `ptxfma_s2_lane`, [`s3_lane`] is `ptxfma_s3_lane`. The
//! pipeline (`pipeline`) instantiates each once per live lane, as `ptxfma_top` instantiates the
//! modules, and keeps what the lanes share: the Booth array and tree, the product slicing, the
//! vmad side path and the banks.
//!
//! The RTL ports are derived from the control word here: `f64_i` is `ctrl.kind == F64`,
//! `sm1x_i` is `ctrl.kind == Sm1x` and `rnd_rm_i` is `round::effective_rnd(ctrl) == Rm`.

use crate::ctrl::{Ctrl, Kind, Rnd};
use crate::parts::unpack::LaneOperands;
use crate::parts::{adder, align, lza, normalize, round, sm1x, special};
use crate::regs::{S1Lane, S2Lane, S3Lane};

/// `ptxfma_s1_lane`: the stage-1 front end of one float lane: product sign and exponent,
/// addend alignment against the product, and the special-case result. It runs beside the
/// shared Booth array, which takes the lane's significands directly.
#[inline(always)]
pub fn s1_lane(ctrl: &Ctrl, l: &LaneOperands) -> S1Lane {
    let (a, b, c) = (&l.a, &l.b, &l.c);
    let prod_zero = a.zero || b.zero;
    let al = align::align(c.sig, a.exp + b.exp, c.exp, prod_zero, c.zero);
    let spec = special::special(ctrl, l);
    S1Lane {
        sign_p: a.sign ^ b.sign,
        sign_c: c.sign,
        prod_zero,
        c_zero: c.zero,
        eref: al.eref as i16,
        c_aligned: al.c_aligned,
        align_sticky: al.sticky,
        spec_valid: spec.is_some(),
        spec_res: spec.unwrap_or(0),
    }
}

/// `ptxfma_s2_lane`: stage 2 of one float lane, given its product `p` MSB-aligned at bit 105:
/// sm_1x product truncation, the significand add with LZA, the result and zero signs.
#[inline(always)]
pub fn s2_lane(ctrl: &Ctrl, p: u128, l: &S1Lane) -> S2Lane {
    let p = if ctrl.kind == Kind::Sm1x && !l.c_zero {
        sm1x::truncate_product(p)
    } else {
        p
    };
    let eff_sub = l.sign_p ^ l.sign_c;
    let (a, b) = adder::operands(p, l.c_aligned, eff_sub);
    let sum = adder::add(a, b, eff_sub, l.align_sticky);
    let zero = sum.mag.is_zero() && !l.align_sticky;
    let sign = if zero {
        if eff_sub {
            round::effective_rnd(ctrl) == Rnd::Rm
        } else {
            l.sign_p
        }
    } else {
        sum.neg ^ l.sign_p
    };
    // sm_1x with c = 0 is mul.rn then add.rn: a product flushed to zero then meets c's zero.
    let flush_sign = if ctrl.kind == Kind::Sm1x && l.c_zero {
        l.sign_p && l.sign_c
    } else {
        sign
    };
    S2Lane {
        sign,
        zero,
        flush_sign,
        mag: sum.mag,
        sticky: l.align_sticky,
        lza_cnt: lza::predict(a, b),
        eref: l.eref,
        spec_valid: l.spec_valid,
        spec_res: l.spec_res,
    }
}

/// `ptxfma_s3_lane`: stage 3 of one float lane: normalisation; everything else rides along.
#[inline(always)]
pub fn s3_lane(ctrl: &Ctrl, l: &S2Lane) -> S3Lane {
    let emin = round::normalize_emin(ctrl);
    let n = normalize::normalize(l.mag, l.lza_cnt, l.eref as i32, emin);
    S3Lane {
        sign: l.sign,
        zero: l.zero,
        flush_sign: l.flush_sign,
        norm: n.norm,
        sticky: l.sticky || n.sticky,
        exp: n.exp as i16,
        spec_valid: l.spec_valid,
        spec_res: l.spec_res,
    }
}

//! The rounder's decisions for one lane in `s3`, restated from its register the way
//! `round::round` makes them, so the sampler can bin each step (round bit, sticky, increment,
//! carry, flush) that the model's rounder does not keep.

use ptxfma_model::ctrl::Rnd;
use ptxfma_model::parts::round;
use ptxfma_model::regs::{S3Lane, U165};

use super::bins::FloatOp;

/// What the rounder decides for one finite, nonzero lane: `round::round`'s steps, kept.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rounded {
    /// Round bit, sticky, increment, carry out of the significand.
    pub(super) rb: bool,
    pub(super) st: bool,
    /// The sticky bit alone makes `st` (no significand bit below the round bit is set).
    pub(super) sticky_only: bool,
    /// The only bit set below the round bit is the one just below it (and no sticky).
    pub(super) st_top: bool,
    /// Tiny before rounding with S4's test (p bits, one position lower) at a tie: an all-ones
    /// significand, the round bit set, nothing below.
    pub(super) tie_u: bool,
    /// S4's test decided by the sticky alone: an all-ones significand one position below the
    /// minimum normal, the round bit clear, something below it, rounded up to the minimum
    /// normal (`.rm` negative, `.rp` positive), under `.ftz` (the only place tininess shows).
    pub(super) tiny_sticky: bool,
    /// S13: the binary32 step rounded up by its sticky alone (its round bit clear), and the
    /// result differs from the one rounded from the binary32 truncation.
    pub(super) via_sticky: bool,
    /// The exponent after rounding (its carry included).
    pub(super) e: i32,
    pub(super) inc: bool,
    pub(super) carry: bool,
    /// The significand's top bit before and after rounding.
    pub(super) pre_normal: bool,
    pub(super) normal: bool,
    /// Rounded significand (0: the value rounded to zero).
    pub(super) sig_f: u64,
    pub(super) overflow: bool,
    pub(super) flushed: bool,
    /// The encoded result before `.sat`, as `round::round` gives it.
    pub(super) enc: u64,
}

#[inline(always)]
pub(super) fn rounded(op: &FloatOp, l: &S3Lane) -> Rounded {
    if !op.ctrl.via_f32 {
        return finish(op, l, l.norm, l.sticky, l.exp as i32);
    }
    // S13: the binary32 step first, then the rounding below at the half format, to nearest.
    let x = round::Finite {
        sign: l.sign,
        norm: l.norm,
        sticky: l.sticky,
        exp: l.exp as i32,
    };
    let at = |rnd| round::at_f32(rnd, x, op.emin as i32);
    let y = at(op.ctrl.rnd);
    let mut r = finish(op, l, y.norm, y.sticky, y.exp);
    // The binary32 step's round bit and sticky (24 bits below the lead bit 164).
    let rb32 = l.norm.bit(164 - 24);
    let st32 = !(l.norm & U165::low_mask(164 - 24)).is_zero() | l.sticky;
    let up = match op.ctrl.rnd {
        Rnd::Rm => l.sign,
        Rnd::Rp => !l.sign,
        _ => false,
    };
    if up & !rb32 & st32 {
        let t = at(Rnd::Rz);
        r.via_sticky = finish(op, l, t.norm, t.sticky, t.exp).enc != r.enc;
    }
    r
}

/// The rounding of a normalised value at the result format (`op.p`, `op.rnd`).
#[inline(always)]
fn finish(op: &FloatOp, l: &S3Lane, norm: U165, sticky: bool, exp: i32) -> Rounded {
    let p = op.p as usize;
    let sig = (norm >> (165 - p)).as_limbs()[0];
    let rb = norm.bit(164 - p);
    let below = !(norm & U165::low_mask(164 - p)).is_zero();
    let st = below | sticky;
    let inc = match op.rnd {
        Rnd::Rn => rb & (st | (sig & 1 != 0)),
        Rnd::Rz => false,
        Rnd::Rm => l.sign & (rb | st),
        Rnd::Rp => !l.sign & (rb | st),
    };
    let sum = sig + inc as u64;
    let carry = sum >> p != 0;
    let sig_f = sum >> carry as u32;
    let e = exp + carry as i32;
    let normal = (sig_f >> (p - 1)) & 1 != 0;
    let overflow = normal & (e > op.emax as i32);
    // S4: tiny after rounding. Below 2^emin before rounding (bit 164 clear) and not brought up
    // to it by rounding the p bits one position lower (all ones, incremented).
    let ones = (1u64 << p) - 1;
    let sig_u = (norm >> (164 - p)).as_limbs()[0] & ones;
    let rb_u = norm.bit(163 - p);
    let st_u = !(norm & U165::low_mask(163 - p)).is_zero() | sticky;
    let inc_u = match op.rnd {
        Rnd::Rn => rb_u & (st_u | (sig_u & 1 != 0)),
        Rnd::Rz => false,
        Rnd::Rm => l.sign & (rb_u | st_u),
        Rnd::Rp => !l.sign & (rb_u | st_u),
    };
    let tiny = !norm.bit(164) & !(sig_u == ones && inc_u);
    let flushed = tiny & op.flush;
    let width = op.width as usize;
    let sign = (l.sign as u64) << (width - 1);
    let enc = if overflow {
        let inf = ((1u64 << (width - p)) - 1) << (p - 1);
        let max = matches!(
            (op.rnd, l.sign),
            (Rnd::Rz, _) | (Rnd::Rm, false) | (Rnd::Rp, true)
        );
        sign | (inf - max as u64)
    } else if flushed {
        (l.flush_sign as u64) << (width - 1)
    } else {
        let biased = if normal {
            (e - op.emin as i32 + 1) as u64
        } else {
            0
        };
        sign | biased << (p - 1) | (sig_f & ((1u64 << (p - 1)) - 1))
    };
    Rounded {
        rb,
        st,
        sticky_only: sticky & !below,
        st_top: !sticky && norm.bit(163 - p) && (norm & U165::low_mask(163 - p)).is_zero(),
        tie_u: !norm.bit(164) & (sig_u == ones) & rb_u & !st_u,
        tiny_sticky: op.flush & !norm.bit(164) & (sig_u == ones) & !rb_u & st_u & inc_u,
        via_sticky: false,
        e,
        inc,
        carry,
        pre_normal: (sig >> (p - 1)) & 1 != 0,
        normal,
        sig_f,
        overflow,
        flushed,
        enc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::coverage::bins::{self, Op};
    use ptxfma_model::ctrl::Ctrl;
    use ptxfma_model::machine::pipeline::Pipeline;
    use ptxfma_model::parts::round::round;
    use ptxfma_model::stimulus::{FamilyFilter, Stimulus};

    /// The sampler's restatement of the rounder must encode exactly what `round::round` does
    /// (before `.sat`), on every kind of lane the stimulus produces.
    #[test]
    fn rounded_encodes_as_the_rounder() {
        let m = bins::model();
        let mut p = Pipeline::new();
        let mut checked = 0;
        for (i, v) in Stimulus::new(11, FamilyFilter::all())
            .take(300_000)
            .enumerate()
        {
            p.tick(&v.input(i as u16));
            let Some(Op::Float(op)) = m.op(p.s3.ctrl) else {
                continue;
            };
            let plain = Ctrl {
                sat: false,
                relu: false,
                ..op.ctrl
            };
            for l in [&p.s3.lane0, &p.s3.lane1] {
                if l.spec_valid || l.zero {
                    continue;
                }
                if op.lanes == 1 && std::ptr::eq(l, &p.s3.lane1) {
                    continue;
                }
                assert_eq!(rounded(op, l).enc, round(&plain, l), "{:?} {l:?}", op.ctrl);
                checked += 1;
            }
        }
        assert!(checked > 100_000, "{checked}");
    }
}

//! `s3`: the rounder's decisions.

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::parts::round as rounder;
use ptxfma_model::regs::S3Lane;

use super::*;

/// Rounding event by (round bit, sticky, increment).
const EVENT: [usize; 8] = [
    round::EXACT,
    round::EXACT,
    round::BELOW_DOWN,
    round::BELOW_UP,
    round::TIE_DOWN,
    round::TIE_UP,
    round::ABOVE_DOWN,
    round::ABOVE_UP,
];

/// `s3` for one float lane: the rounder's decisions, as `round::rounding` reports them (the
/// bins that need more derive it from those). Returns the lane's `bins::lane` class.
pub(super) fn s3_lane(
    h: &mut [u64],
    m: &Model,
    op: &FloatOp,
    lane: usize,
    l: &S3Lane,
    sh: Option<&LaneShadow>,
) -> usize {
    let fx = m.ix.fam[op.family as usize];
    let bd = fx.bounds + lane * bounds::N;
    let rs = fx.result;
    let ctrl = &op.ctrl;
    let sm = ctrl.kind == Kind::Sm1x;
    let sat = ctrl.sat;
    let mut overflow = false;
    let mut flushed = false;
    let r = rounder::rounding(ctrl, l);
    // The encoding before .sat and .relu.
    let enc = r.unclamped;
    let width = op.width as u32;
    let sign_bit = 1u64 << (width - 1);
    let inf = (sign_bit - 1) & !((1u64 << (op.p - 1)) - 1);
    let is_nan = |x: u64| x & (sign_bit - 1) > inf;
    let cls = match r.decisions {
        None if l.spec_valid => {
            let nan = is_nan(l.spec_res);
            h[rs + pick(nan, result::NAN, result::INF)] += 1;
            pick(nan, lane::NAN, lane::INF)
        }
        None => {
            h[rs + pick(l.sign, result::ZERO_NEG, result::ZERO_POS)] += 1;
            let cancel = sh.is_some_and(|s| s.both);
            h[rs + result::ZERO_CANCEL] += cancel as u64;
            if sm {
                h[m.ix.sm1x + sm1x::ZERO_SUM] += cancel as u64;
            }
            lane::ZERO
        }
        Some(d) => {
            let s = d.step;
            let inexact = s.rb | s.st;
            let ev = EVENT[(s.rb as usize) << 2 | (s.st as usize) << 1 | s.inc as usize];
            let rd = fx.round + op.rnd as usize * round::N;
            let rd = &mut h[rd..rd + round::N];
            rd[ev] += 1;
            rd[round::CARRY] += s.carry as u64;
            rd[round::TIE_CARRY] += (s.carry & (ev == round::TIE_UP)) as u64;
            rd[pick(s.inc, round::SUB_UP, round::SUB_DOWN)] += (!d.normal & inexact) as u64;
            // The sticky bit alone makes the sticky (no significand bit below the round bit).
            rd[pick(s.rb, round::STICKY_ABOVE, round::STICKY_INEXACT)] +=
                (s.sticky_in & !s.below) as u64;

            // S4's test rounds one position lower: its round bit is the bit just below the
            // result's. `edge`: tiny before rounding, an all-ones significand there, one unit
            // below 2^emin.
            let t = d.tininess;
            let edge = d.tiny_before & (t.kept == (1 << op.p) - 1);
            let bds = &mut h[bd..bd + bounds::N];
            // The only bit set below the round bit is the one just below it (and no sticky).
            bds[bounds::ST_TOP] += (t.rb & !t.st) as u64;
            // The test at a tie; the test decided by the sticky alone, rounded up to the
            // minimum normal (`.rm` negative, `.rp` positive) under `.ftz`, where it shows.
            bds[bounds::TINY_TIE] += (edge & t.rb & !t.st) as u64;
            bds[bounds::TINY_STICKY] += (op.flush & edge & !t.rb & t.st & t.inc) as u64;
            bds[bounds::PAST_EXACT] += (!inexact & sh.is_some_and(|s| s.past)) as u64;
            bds[bounds::EMAX] += (d.normal & !d.overflow & (s.exp == op.emax as i32)) as u64;
            bds[bounds::EMAX1] += (d.overflow & !s.carry & (s.exp == op.emax as i32 + 1)) as u64;

            // S13: the binary32 step rounded up by its sticky alone (its round bit clear), and
            // the result differs from the one the rounder gives from the binary32 truncation
            // (the same lane in `.rz`).
            if let Some(s32) = d.at_f32 {
                if s32.inc & !s32.rb {
                    let truncated = Ctrl {
                        rnd: Rnd::Rz,
                        sat: false,
                        relu: false,
                        ..*ctrl
                    };
                    if rounder::round(&truncated, l) != enc {
                        let k = pick(
                            ctrl.rnd == Rnd::Rm,
                            half::VIA_RM_STICKY,
                            half::VIA_RP_STICKY,
                        );
                        h[m.ix.half + k] += 1;
                    }
                }
            }
            overflow = d.overflow;
            flushed = d.flushed;
            let idx = pick(
                overflow,
                result::OVERFLOW + 2 * op.rnd as usize + l.sign as usize,
                pick(
                    flushed,
                    result::FTZ_OUT,
                    pick(
                        d.normal,
                        result::NORMAL,
                        pick(
                            s.sig == 0,
                            result::UNDERFLOW_ZERO,
                            pick(inexact, result::SUB_INEXACT, result::SUB_EXACT),
                        ),
                    ),
                ),
            );
            h[rs + idx] += 1;
            h[rs + result::OVERFLOW_CARRY] += (overflow & s.carry & (l.exp == op.emax)) as u64;
            // Below 2^emin before rounding, normal after it (at the subnormal quantum): kept
            // without .ftz; with it kept or flushed as the p-bit rounding decides (S4; a value
            // that reaches 2^emin at p bits reaches it at the coarser quantum too).
            let up = d.normal & !overflow & d.tiny_before;
            h[rs + pick(
                op.flush,
                pick(flushed, result::FTZ_BAND_FLUSHED, result::FTZ_BAND),
                result::SUB_TO_NORMAL,
            )] += up as u64;
            pick(
                overflow,
                lane::OVERFLOW,
                pick(
                    flushed,
                    lane::FLUSHED,
                    pick(
                        d.normal,
                        lane::NORMAL,
                        pick(s.sig == 0, lane::ZERO, lane::SUBNORMAL),
                    ),
                ),
            )
        }
    };

    if sat {
        let x = enc & ((sign_bit << 1) - 1);
        let one = ((op.emax as u64) << (op.p - 1)) & (sign_bit - 1);
        let k = pick(
            is_nan(x),
            result::SAT_NAN,
            pick(
                x == sign_bit,
                result::SAT_NEG_ZERO,
                pick(
                    x & sign_bit != 0,
                    result::SAT_NEG,
                    pick(
                        x == inf,
                        result::SAT_INF,
                        pick(x >= one, result::SAT_ONE, result::SAT_KEEP),
                    ),
                ),
            ),
        );
        h[rs + k] += 1;
        if (one - 1..=one + 1).contains(&x) {
            h[bd + bounds::SAT_BELOW + (x + 1 - one) as usize] += 1;
        }
    }
    if ctrl.relu {
        let k = pick(
            is_nan(enc),
            half::RELU_NAN,
            pick(
                enc == sign_bit,
                half::RELU_NEG_ZERO,
                pick(enc & sign_bit != 0, half::RELU_NEG, half::RELU_KEEP),
            ),
        );
        h[m.ix.half + k] += 1;
    }

    if sm {
        if let Some(s) = sh {
            let b = m.ix.sm1x;
            if s.c_zero {
                h[b + sm1x::CZERO_OVF] += overflow as u64;
                h[b + sm1x::CZERO_FLUSH] += flushed as u64;
                h[b + sm1x::CZERO_NEG_TINY] += (flushed & s.sign_p & !s.sign_c) as u64;
            } else if s.big && !l.spec_valid {
                h[b + pick(overflow, sm1x::BIG_OVF, sm1x::BIG_BACK)] += 1;
            }
        }
    }
    cls
}

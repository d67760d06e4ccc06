//! `s2`: the LZA, the cancellation and the normaliser's limit.

use ptxfma_model::regs::S2Lane;

use super::*;

/// `s2` for one float lane: where the LZA points and its error against the true count, the
/// cancellation (by the shadow's larger operand), the normaliser's shift against its limit.
pub(super) fn s2_lane(
    h: &mut [u64],
    m: &Model,
    op: &FloatOp,
    lane: usize,
    l: &S2Lane,
    sh: Option<&LaneShadow>,
) {
    if l.spec_valid {
        return;
    }
    let fx = m.ix.fam[op.family as usize];
    let lz = l.mag.leading_zeros() as i32;
    let cnt = l.lza_cnt as i32;

    // LZA position, per hardware lane.
    let lp = m.ix.lza_pos + lane * lzapos::N;
    let pos = 164 - cnt;
    h[lp + pick(cnt >= 165, lzapos::NONE, (pos.max(0) / 64) as usize)] += 1;
    h[lp + lzapos::BIT63] += (pos == 63) as u64;
    h[lp + lzapos::BIT64] += (pos == 64) as u64;
    h[lp + lzapos::BIT127] += (pos == 127) as u64;
    h[lp + lzapos::BIT128] += (pos == 128) as u64;
    h[lp + lzapos::CROSS64] += ((pos == 64) & (lz == cnt + 1)) as u64;
    h[lp + lzapos::CROSS128] += ((pos == 128) & (lz == cnt + 1)) as u64;

    let Some(s) = sh else { return };
    // LZA accuracy (the difference is -1, 0 or 1 on every sum; counted only then).
    let err = lz - cnt;
    let sub = 2 * s.eff_sub as usize;
    let k = pick(
        err == 0,
        lza::EXACT + sub,
        pick(err == 1, lza::SHORT + sub, lza::OVER),
    );
    h[fx.lza + lane * lza::N + k] += (!l.mag.is_zero() & ((err + 1) as u32 <= 2)) as u64;

    // Cancellation.
    if s.both {
        let ca = fx.cancel + lane * cancel::N;
        h[ca + cancel::ADD] += !s.eff_sub as u64;
        h[ca + cancel::SUB] += s.eff_sub as u64;
        let depth = s.opmax as i32 - (164 - lz);
        let k = pick(
            l.zero,
            cancel::TOTAL,
            pick(
                depth <= 0,
                cancel::DEPTH0,
                pick(
                    depth == 1,
                    cancel::DEPTH1,
                    pick(depth <= op.p as i32, cancel::DEPTH_P, cancel::BEYOND_P),
                ),
            ),
        );
        h[ca + k] += s.eff_sub as u64;
    }

    // Normaliser.
    if !l.zero {
        let nb = fx.norm + lane * norm::N;
        let lim = l.eref as i32 + 57 - op.emin as i32;
        if lim < 0 {
            h[nb + norm::RIGHT] += 1;
            h[nb + norm::RIGHT_STICKY] += l.mag.shr_sticky((-lim).min(166) as usize).1 as u64;
        } else {
            h[nb + pick(cnt > lim, norm::LIMIT, norm::LZA)] += 1;
            h[nb + norm::LIMIT_SUB] += (lz > lim) as u64;
        }
        let bd = fx.bounds + lane * bounds::N;
        if (lim - 1..=lim + 1).contains(&cnt) && lim >= 0 {
            h[bd + bounds::CNT_BELOW + (cnt - lim + 1) as usize] += 1;
        }
        h[bd + bounds::LIM_ZERO] += (lim == 0) as u64;
        h[bd + bounds::LIM_NEG] += (lim == -1) as u64;
    }
}

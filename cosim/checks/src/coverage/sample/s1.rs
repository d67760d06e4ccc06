//! `s1`: the operands, the instruction and the alignment of an operation entering the pipe.

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::format::{Fmt, F64};
use ptxfma_model::machine::pipeline::{OpBanks, PipeIn};
use ptxfma_model::parts::special::is_oob_nan;
use ptxfma_model::parts::unpack::lane_operands;
use ptxfma_model::parts::vmad_select::part_select;
use ptxfma_model::parts::{align as malign, sm1x as msm1x};
use ptxfma_model::regs::S1Lane;

use super::*;
use crate::coverage::classify::{classify, is_sub};

/// `s1` of a half-precision word: what `.oob` sees in each lane (S12), and whether the binary32
/// step of `via_f32` changes the result against rounding once (S13; both from the model, as
/// pure functions of the input).
pub(super) fn s1_half(h: &mut [u64], m: &Model, op: &FloatOp, inp: &PipeIn) {
    let ctrl = &op.ctrl;
    let hb = m.ix.half;
    if ctrl.oob {
        let f = ctrl.half_fmt();
        for lane in 0..op.lanes as u32 {
            let raw = |x: u64| (x >> (16 * lane)) & 0xFFFF;
            let (a, b, c) = (raw(inp.a), raw(inp.b), raw(inp.c));
            let nan = |x: u64| f.exp_of(x) == f.exp_max() && x & f.frac_mask() != 0;
            let (oa, ob) = (is_oob_nan(a), is_oob_nan(b));
            h[hb + half::OOB_A] += oa as u64;
            h[hb + half::OOB_B] += (ob & !oa) as u64;
            let other_nan = (nan(a) & !oa) | (nan(b) & !ob) | nan(c);
            h[hb + half::OOB_NAN] += ((oa | ob) & other_nan) as u64;
            h[hb + half::OOB_C] += (!oa & !ob & is_oob_nan(c)) as u64;
        }
    }
    if ctrl.via_f32 {
        let once = Ctrl {
            via_f32: false,
            ..*ctrl
        };
        let same = alone(ctrl, inp) == alone(&once, inp);
        let k = match ctrl.rnd {
            Rnd::Rz => half::VIA_RZ_SAME,
            Rnd::Rm => half::VIA_RM_SAME,
            _ => half::VIA_RP_SAME,
        };
        h[hb + k + !same as usize] += 1;
    }
}

/// The result of `inp`'s operands under `ctrl`, the operation alone: `pipeline::eval`, through
/// the stages once rather than four ticks of a pipe of bubbles.
fn alone(ctrl: &Ctrl, inp: &PipeIn) -> u64 {
    let inp = PipeIn {
        valid: true,
        ctrl: ctrl.encode(),
        reset: false,
        ..*inp
    };
    OpBanks::of(&inp).out.d
}

pub(super) fn s1_vmad(h: &mut [u64], m: &Model, op: &VmadOp, inp: &PipeIn) {
    let c = &op.ctrl;
    h[op.word as usize] += 1;
    h[op.mode as usize] += 1;
    h[op.types as usize] += 1;
    h[op.forms as usize] += 1;
    h[op.scale as usize] += 1;
    let ta = part_select(inp.a as u32, c.asel, c.a_signed);
    let tb = part_select(inp.b as u32, c.bsel, c.b_signed);
    // c is always read sign-extended (S8).
    let cn = (inp.c as u32 as i32) < 0;
    let mask = (ta < 0) as usize | ((tb < 0) as usize) << 1 | (cn as usize) << 2;
    h[m.ix.vm_signs + mask] += 1;
}

/// `s1` for one float lane: operand classes, special cases, alignment, and the facts the later
/// stages need. Data-dependent decisions are counted as `+= condition` or as one computed
/// index rather than by branches: operand classes are random, and mispredictions would cost
/// more than the counting.
pub(super) fn s1_lane(
    h: &mut [u64],
    m: &Model,
    op: &FloatOp,
    inp: &PipeIn,
    lane: usize,
    l: &S1Lane,
    prod: u128,
) -> LaneShadow {
    let ctrl = &op.ctrl;
    let fx = m.ix.fam[op.family as usize];
    let (fab, _, fc) = ctrl.operand_formats();
    let sh = if ctrl.is_half() { 16 } else { 32 } * lane as u32;
    let word = |x: u64, f: Fmt| {
        if f == F64 {
            x
        } else {
            (x >> sh) & f.mask()
        }
    };
    let raws = [word(inp.a, fab), word(inp.b, fab), word(inp.c, fc)];
    let fmts = [fab, fab, fc];
    let mut cls = [usize::MAX; 3];
    let mut subs = [false; 3];
    for pos in 0..3 {
        let base = op.slots[lane][pos];
        if base != NO_BIN {
            let k = classify(fmts[pos], raws[pos]);
            cls[pos] = k;
            subs[pos] = is_sub(k);
            h[base as usize + k] += 1;
        }
    }
    if op.flush {
        for (pos, &s) in subs.iter().enumerate() {
            h[fx.result + result::FTZ_IN + pos] += s as u64;
        }
    }
    for (pos, &base) in op.mixed.iter().enumerate() {
        if base != NO_BIN {
            let (k, b) = (cls[pos], base as usize);
            h[b + mixed::SUB] += is_sub(k) as u64;
            h[b + mixed::INF] += (k | 1 == class::NEG_INF) as u64;
            h[b + mixed::NAN] += (k >= class::QNAN) as u64;
        }
    }

    // Special cases, from the unpacked (flushed, substituted) operands.
    let lo = lane_operands(ctrl, lane as u32, inp.a, inp.b, inp.c);
    let (a, b, c) = (&lo.a, &lo.b, &lo.c);
    let sp = &mut h[fx.special..fx.special + special::N];
    let az_bi = a.zero & b.inf;
    let ai_bz = a.inf & b.zero;
    let invalid_p = az_bi | ai_bz;
    let p_inf = a.inf | b.inf;
    let any_nan = a.nan | b.nan | c.nan;
    let sign_p = a.sign ^ b.sign;
    let inf_p = p_inf & !invalid_p & !any_nan;
    sp[special::ZERO_X_INF] += az_bi as u64;
    sp[special::INF_X_ZERO] += ai_bz as u64;
    sp[special::INF_X_FLUSHED] += ((az_bi & subs[0]) | (ai_bz & subs[1])) as u64;
    sp[special::INF_PLUS_INF] += (inf_p & c.inf & (sign_p == c.sign)) as u64;
    sp[special::INF_MINUS_INF] += (inf_p & c.inf & (sign_p != c.sign)) as u64;
    sp[special::INF_PRODUCT] += (inf_p & !c.inf) as u64;
    sp[special::INF_C] += (!p_inf & c.inf & !any_nan) as u64;
    if any_nan {
        let mask = a.nan as usize | (b.nan as usize) << 1 | (c.nan as usize) << 2;
        sp[special::NAN + mask - 1] += 1;
        sp[special::NAN_OVER_INVALID] += (invalid_p & c.nan) as u64;
        // S2: the first NaN in b, c, a order (positions 1, 2, 0).
        let first = if b.nan {
            1
        } else if c.nan {
            2
        } else {
            0
        };
        let quiet = raws[first] & fmts[first].quiet_bit() != 0;
        sp[special::FIRST + 2 * first + quiet as usize] += 1;
    }
    if l.spec_valid {
        return LaneShadow::default();
    }

    // Alignment.
    let f64_ = ctrl.kind == Kind::F64;
    let ep = a.exp + b.exp;
    let d = c.exp - ep;
    let (shift, _) = malign::shift_amount(ep, c.exp, l.prod_zero, l.c_zero);
    let (pc, plo) = if f64_ {
        (53, 3)
    } else {
        (fc.frac_bits as i32 + 1, 61)
    };
    let geo = align_class(shift as i32, pc, plo);
    let k = pick(
        l.c_zero,
        align::C_ZERO,
        pick(
            l.prod_zero,
            align::P_ZERO,
            pick(
                d > 56,
                align::FAR_ABOVE,
                pick(
                    56 - d > 164,
                    align::CLAMP,
                    pick(shift == 164, align::OUT, geo),
                ),
            ),
        ),
    );
    let al = fx.align + lane * align::N;
    let al = &mut h[al..al + align::N];
    al[k] += 1;
    al[align::STICKY] += l.align_sticky as u64;
    if !l.c_zero & !l.prod_zero {
        let bd = fx.bounds + lane * bounds::N;
        let bd = &mut h[bd..bd + bounds::N];
        let rs = 56 - d;
        if (55..=57).contains(&d) {
            bd[bounds::D55 + (d - 55) as usize] += 1;
        }
        if (163..=165).contains(&rs) {
            bd[bounds::SH163 + (rs - 163) as usize] += 1;
        }
        if d <= 56 && (111..=112).contains(&rs) {
            bd[bounds::SH111 + (rs - 111) as usize] += 1;
        }
    }

    // The lane's product as stage 2 adds it.
    let pl = if f64_ {
        prod
    } else {
        ((prod >> (56 * lane)) & M48) << 58
    };
    let sm = ctrl.kind == Kind::Sm1x;
    let pt = if sm && !l.c_zero {
        msm1x::truncate_product(pl)
    } else {
        pl
    };
    let msb_a = 127 - pt.leading_zeros() as i32 + 3;
    let msb_a = if pt == 0 { -1 } else { msb_a };
    let msb_c = 163 - l.c_aligned.leading_zeros() as i32;
    let mut out = LaneShadow {
        both: !l.prod_zero & !l.c_zero,
        eff_sub: l.sign_p ^ l.sign_c,
        opmax: msb_a.max(msb_c) as i16,
        big: false,
        c_zero: l.c_zero,
        sign_p: l.sign_p,
        sign_c: l.sign_c,
        past: !l.c_zero & !l.prod_zero & (shift > 111),
    };
    if sm {
        let s = m.ix.sm1x;
        if l.c_zero {
            h[s + pick(l.sign_c, sm1x::CZERO_NEG, sm1x::CZERO_POS)] += 1;
        } else if pl >> 24 != 0 {
            // Flushed inputs: a nonzero product has its leading one at bit 105 or 104.
            let msb = 127 - pl.leading_zeros() as i32;
            let low = (msb - 23) as u32;
            let dropped = pl & ((1u128 << low) - 1) != 0;
            let rb = (pl >> (low - 1)) & 1 != 0;
            let rest = pl & ((1u128 << (low - 1)) - 1) != 0;
            let lsb = (pl >> low) & 1 != 0;
            let k = pick(
                !dropped,
                sm1x::TRUNC_EXACT,
                pick(rb & (rest | lsb), sm1x::TRUNC_DIFF, sm1x::TRUNC_SAME),
            );
            h[s + k] += 1;
            let e = ep + msb - 104;
            out.big = e >= 128;
            h[s + sm1x::TINY_PROD] += (e < -126) as u64;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_cosim_engine::stim::{Family, Stimulus};
    use ptxfma_model::machine::pipeline::eval;

    /// `alone` is `eval`, with the binary32 step and without it (S13's two results).
    #[test]
    fn alone_is_eval() {
        let mut via = 0;
        for (i, v) in Stimulus::new(3, &[Family::Half, Family::Half2])
            .take(20_000)
            .enumerate()
        {
            let inp = v.input(i as u16);
            let ctrl = Ctrl::decode(inp.ctrl);
            let once = Ctrl {
                via_f32: false,
                ..ctrl
            };
            via += ctrl.via_f32 as u32;
            for c in [ctrl, once] {
                assert_eq!(alone(&c, &inp), eval(&c, inp.a, inp.b, inp.c), "{v:?}");
            }
        }
        assert!(via > 500, "{via} words with the binary32 step");
    }
}

//! Sampling: one call per cycle, reading the input of the cycle and the golden model's banks.
//!
//! Each operation is sampled once per bank it passes: its operands, instruction and alignment
//! when it enters `s1`; the adder, LZA and cancellation when it is in `s2`; the rounder's
//! decisions (the model's rounder run on `s3`, `round::rounding`) when it is in `s3`. A few bins
//! need facts from an earlier stage (the larger operand's position for the cancellation depth,
//! the sm_1x product's range for the result): those ride along in a three-entry shadow of the
//! pipeline, checked against each bank's valid bit, tag and control word.

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd, CTRL_BITS};
use ptxfma_model::format::{Fmt, F64};
use ptxfma_model::machine::pipeline::{eval, PipeIn};
use ptxfma_model::parts::round as rounder;
use ptxfma_model::parts::special::is_oob_nan;
use ptxfma_model::parts::unpack::lane_operands;
use ptxfma_model::parts::vmad_select::part_select;
use ptxfma_model::parts::{align as malign, booth, sm1x as msm1x};
use ptxfma_model::regs::{S1Lane, S2Lane, S3Lane, S1, S2, S3};
use ptxfma_model::stimulus::Family;

use super::bins::{self, *};
use super::classify::{classify, is_sub};

/// Mask of the control word's defined bits.
const CTRL_MASK: u32 = (1 << CTRL_BITS) - 1;

/// Facts about one lane of an operation, carried from `s1` to the later banks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LaneShadow {
    /// Product and addend both nonzero.
    both: bool,
    eff_sub: bool,
    /// Window bit of the larger operand's leading one (-1: both zero).
    opmax: i16,
    /// sm_1x: product >= 2^128; c is zero; sign of the product and of c.
    big: bool,
    c_zero: bool,
    sign_p: bool,
    sign_c: bool,
    /// The addend is shifted past window bit 0 (shift > 111).
    past: bool,
}

/// One operation's entry in the shadow pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entry {
    valid: bool,
    tag: u16,
    ctrl: u32,
    /// The decoded word (`None`: no instruction decodes to it).
    op: Option<Op>,
    lanes: [LaneShadow; 2],
}

/// The shadow of `s1`, `s2`, `s3`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shadow {
    e: [Entry; 3],
}

impl Entry {
    fn matches(&self, valid: bool, tag: u16, ctrl: u32) -> bool {
        self.valid == valid && self.tag == tag && self.ctrl == ctrl
    }
}

/// The decoded word of a bank: from the shadow entry when it follows this bank, else looked
/// up (the first cycles, or a caller that skipped cycles).
#[inline(always)]
fn decode(m: &'static Model, e: &Entry, valid: bool, tag: u16, ctrl: u32) -> Option<Op> {
    if e.matches(valid, tag, ctrl) {
        e.op
    } else {
        m.op(ctrl)
    }
}

const M48: u128 = (1 << 48) - 1;

/// Counters the sampler updates.
pub(crate) struct Counts<'a> {
    pub hits: &'a mut [u64],
    pub operations: &'a mut u64,
    pub unspelled: &'a mut u64,
}

/// The stage registers a cycle is sampled from: the model's, or those read back from its
/// frame.
#[derive(Clone, Copy)]
pub struct Banks<'a> {
    pub s1: &'a S1,
    pub s2: &'a S2,
    pub s3: &'a S3,
}

/// One cycle (see `Coverage::sample`).
pub(crate) fn sample(
    c: Counts<'_>,
    shadow: &mut Shadow,
    inp: &PipeIn,
    prev: &PipeIn,
    p: Banks<'_>,
) {
    let m = bins::model();
    let h = c.hits;
    shadow.e[2] = shadow.e[1];
    shadow.e[1] = shadow.e[0];

    // ---- s1: the input of this cycle ----------------------------------------------------
    let op = if p.s1.valid { m.op(p.s1.ctrl) } else { None };
    let mut e = Entry {
        valid: p.s1.valid,
        tag: p.s1.tag,
        ctrl: p.s1.ctrl,
        op,
        lanes: [LaneShadow::default(); 2],
    };
    if p.s1.valid {
        match op {
            None => *c.unspelled += 1,
            Some(op) => {
                *c.operations += 1;
                if prev.valid {
                    // The previous cycle's input is the shadow's s2 entry now.
                    let prev_op = decode(m, &shadow.e[1], true, prev.tag, prev.ctrl & CTRL_MASK);
                    if let Some(pr) = prev_op {
                        h[m.ix.traffic
                            + pr.family() as usize * Family::ALL.len()
                            + op.family() as usize] += 1;
                    }
                }
                match op {
                    Op::Vmad(v) => s1_vmad(h, m, &v, inp),
                    Op::Float(f) => {
                        h[f.bin_word as usize] += 1;
                        h[f.bin_mode as usize] += 1;
                        let prod = (p.s1.mul_sum.wrapping_add(p.s1.mul_carry)) & booth::MASK;
                        e.lanes[0] = s1_lane(h, m, f, inp, 0, &p.s1.lane0, prod);
                        if f.lanes == 2 {
                            e.lanes[1] = s1_lane(h, m, f, inp, 1, &p.s1.lane1, prod);
                        }
                        if f.ctrl.is_half() {
                            s1_half(h, m, f, inp);
                        }
                    }
                }
            }
        }
    }
    shadow.e[0] = e;

    // ---- s2 ------------------------------------------------------------------------------
    if p.s2.valid {
        let sh = &shadow.e[1];
        if let Some(Op::Float(f)) = decode(m, sh, true, p.s2.tag, p.s2.ctrl) {
            let sh = sh.matches(true, p.s2.tag, p.s2.ctrl).then_some(sh);
            s2_lane(h, m, f, 0, &p.s2.lane0, sh.map(|e| &e.lanes[0]));
            if f.lanes == 2 {
                s2_lane(h, m, f, 1, &p.s2.lane1, sh.map(|e| &e.lanes[1]));
            }
        }
    }

    // ---- s3 ------------------------------------------------------------------------------
    if p.s3.valid {
        let sh = &shadow.e[2];
        match decode(m, sh, true, p.s3.tag, p.s3.ctrl) {
            Some(Op::Vmad(v)) if v.ctrl.sat => {
                // Both final types read the 64-bit result as signed (S8).
                let x = p.s3.vm_res as i64;
                let (lo, hi) = if v.ctrl.signed_final() {
                    (i32::MIN as i64, i32::MAX as i64)
                } else {
                    (0, u32::MAX as i64)
                };
                let k = pick(x > hi, clamp::HIGH, pick(x < lo, clamp::LOW, clamp::PASS));
                h[v.clamp as usize + k] += 1;
                let signed = v.ctrl.signed_final();
                let vb = m.ix.vm_bounds;
                for (i, &(s, at, _)) in vmbounds::AROUND_AT.iter().enumerate() {
                    h[vb + vmbounds::AROUND + i] += (s == signed && at == x) as u64;
                }
                // Bits 62:32 holding exactly one set bit, bit 63 clear.
                let high = (x as u64) >> vmbounds::HIGH_LSB;
                if !signed && high.is_power_of_two() && high >> 31 == 0 {
                    h[vb + vmbounds::HIGH_BIT + high.trailing_zeros() as usize] += 1;
                }
            }
            Some(Op::Float(f)) => {
                let sh = sh.matches(true, p.s3.tag, p.s3.ctrl).then_some(sh);
                let c0 = s3_lane(h, m, f, 0, &p.s3.lane0, sh.map(|e| &e.lanes[0]));
                if f.lanes == 2 {
                    let c1 = s3_lane(h, m, f, 1, &p.s3.lane1, sh.map(|e| &e.lanes[1]));
                    let pairs = if f.ctrl.is_half() {
                        m.ix.h2_lanes
                    } else {
                        m.ix.x2_lanes
                    };
                    h[pairs + lanes_bin(c0, c1)] += 1;
                }
            }
            _ => {}
        }
    }
}

/// `s1` of a half-precision word: what `.oob` sees in each lane (S12), and whether the binary32
/// step of `via_f32` changes the result against rounding once (S13; both from the model, as
/// pure functions of the input).
fn s1_half(h: &mut [u64], m: &Model, op: &FloatOp, inp: &PipeIn) {
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
        let same = eval(ctrl, inp.a, inp.b, inp.c) == eval(&once, inp.a, inp.b, inp.c);
        let k = match ctrl.rnd {
            Rnd::Rz => half::VIA_RZ_SAME,
            Rnd::Rm => half::VIA_RM_SAME,
            _ => half::VIA_RP_SAME,
        };
        h[hb + k + !same as usize] += 1;
    }
}

fn s1_vmad(h: &mut [u64], m: &Model, op: &VmadOp, inp: &PipeIn) {
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

/// `a` if `c`, else `b` (constants: compiles to a select, not a branch).
#[inline(always)]
fn pick(c: bool, a: usize, b: usize) -> usize {
    if c {
        a
    } else {
        b
    }
}

/// `s1` for one float lane: operand classes, special cases, alignment, and the facts the later
/// stages need. Data-dependent decisions are counted as `+= condition` or as one computed
/// index rather than by branches: operand classes are random, and mispredictions would cost
/// more than the counting.
fn s1_lane(
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

fn s2_lane(
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
fn s3_lane(
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

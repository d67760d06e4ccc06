//! Sampling: one call per cycle, reading the input of the cycle and the reference's banks
//! (packed, as its frame holds them; `banks.rs` reads only what is sampled).
//!
//! Each operation is sampled once per bank it passes: its operands, instruction and alignment
//! when it enters `s1`; the adder, LZA and cancellation when it is in `s2`; the rounder's
//! decisions (the model's rounder run on `s3`, `round::rounding`) when it is in `s3`. A few bins
//! need facts from an earlier stage (the larger operand's position for the cancellation depth,
//! the sm_1x product's range for the result): those ride along in a three-entry shadow of the
//! pipeline, checked against each bank's valid bit, tag and control word.

use ptxfma_model::ctrl::CTRL_BITS;
use ptxfma_model::machine::pipeline::PipeIn;
use ptxfma_model::stimulus::Family;

use super::bins::{self, *};

mod banks;
mod s1;
mod s2;
mod s3;

use s1::{s1_half, s1_lane, s1_vmad};
use s2::s2_lane;
use s3::s3_lane;

#[cfg(test)]
pub(crate) use banks::assert_reads_the_models;
pub use banks::Banks;
pub(crate) use banks::Packed;

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
    let s1 = p.s1_head();
    let op = if s1.valid { m.op(s1.ctrl) } else { None };
    let mut e = Entry {
        valid: s1.valid,
        tag: s1.tag,
        ctrl: s1.ctrl,
        op,
        lanes: [LaneShadow::default(); 2],
    };
    if s1.valid {
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
                        let prod = p.s1_product();
                        e.lanes[0] = s1_lane(h, m, f, inp, 0, &p.s1_lane(0), prod);
                        if f.lanes == 2 {
                            e.lanes[1] = s1_lane(h, m, f, inp, 1, &p.s1_lane(1), prod);
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
    let s2 = p.s2_head();
    if s2.valid {
        let sh = &shadow.e[1];
        if let Some(Op::Float(f)) = decode(m, sh, true, s2.tag, s2.ctrl) {
            let sh = sh.matches(true, s2.tag, s2.ctrl).then_some(sh);
            s2_lane(h, m, f, 0, &p.s2_lane(0), sh.map(|e| &e.lanes[0]));
            if f.lanes == 2 {
                s2_lane(h, m, f, 1, &p.s2_lane(1), sh.map(|e| &e.lanes[1]));
            }
        }
    }

    // ---- s3 ------------------------------------------------------------------------------
    let s3 = p.s3_head();
    if s3.valid {
        let sh = &shadow.e[2];
        match decode(m, sh, true, s3.tag, s3.ctrl) {
            Some(Op::Vmad(v)) if v.ctrl.sat => {
                // Both final types read the 64-bit result as signed (S8).
                let x = p.s3_vm_res() as i64;
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
                let sh = sh.matches(true, s3.tag, s3.ctrl).then_some(sh);
                let c0 = s3_lane(h, m, f, 0, &p.s3_lane(0), sh.map(|e| &e.lanes[0]));
                if f.lanes == 2 {
                    let c1 = s3_lane(h, m, f, 1, &p.s3_lane(1), sh.map(|e| &e.lanes[1]));
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

/// `a` if `c`, else `b` (constants: compiles to a select, not a branch).
#[inline(always)]
fn pick(c: bool, a: usize, b: usize) -> usize {
    if c {
        a
    } else {
        b
    }
}

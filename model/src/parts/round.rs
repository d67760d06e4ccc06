//! Rounder: rounds the normalised significand to the lane's precision in the instruction's
//! direction, handles overflow, flushes tiny results (`.ftz`, sm_1x: S4), takes the special
//! result when there is one, and saturates (`.sat`).

use crate::ctrl::{Ctrl, Kind, Rnd};
use crate::format;
use crate::geometry::MAG_W;
use crate::regs::{S3Lane, U165};

/// The normalised significand's leading bit.
const LEAD_BIT: usize = MAG_W as usize - 1;

/// Precision and exponent range of a result format.
#[derive(Clone, Copy, Debug)]
pub struct ResultFmt {
    /// Significand bits including the hidden one.
    pub p: u32,
    pub emin: i32,
    pub emax: i32,
    /// Total encoding width.
    pub width: u32,
}

pub const F64: ResultFmt = ResultFmt::of(format::F64);
pub const F32: ResultFmt = ResultFmt::of(format::F32);

impl ResultFmt {
    /// The rounder's view of an IEEE format.
    pub const fn of(f: format::Fmt) -> ResultFmt {
        let bias = (1i32 << (f.exp_bits - 1)) - 1;
        ResultFmt {
            p: f.frac_bits + 1,
            emin: 1 - bias,
            emax: bias,
            width: f.width(),
        }
    }
}

#[inline(always)]
pub fn result_fmt(ctrl: &Ctrl) -> ResultFmt {
    if ctrl.kind == Kind::F64 {
        F64
    } else {
        F32
    }
}

/// The rounding direction the datapath uses: sm_1x mad always rounds to nearest even.
#[inline(always)]
pub fn effective_rnd(ctrl: &Ctrl) -> Rnd {
    if ctrl.kind == Kind::Sm1x {
        Rnd::Rn
    } else {
        ctrl.rnd
    }
}

/// binary32 1.0, the upper bound of `.sat`.
const F32_ONE: u64 = 0x3F80_0000;

/// Rounds one lane and returns its encoding (binary32 in bits 31:0 for f32 kinds).
#[inline(always)]
pub fn round(ctrl: &Ctrl, l: &S3Lane) -> u64 {
    let f = result_fmt(ctrl);
    let rnd = effective_rnd(ctrl);
    let sign_at = f.width - 1;
    let enc = if l.spec_valid {
        l.spec_res
    } else if l.zero {
        (l.sign as u64) << sign_at
    } else {
        let p = f.p as usize;
        let sig = (l.norm >> (LEAD_BIT + 1 - p)).as_limbs()[0];
        let rb = l.norm.bit(LEAD_BIT - p);
        let below = l.norm & U165::low_mask(LEAD_BIT - p);
        let st = !below.is_zero() | l.sticky;
        let inc = increment(rnd, l.sign, sig & 1 != 0, rb, st);
        let sum = sig + inc as u64;
        let (sig_f, e) = if sum >> p != 0 {
            (sum >> 1, l.exp as i32 + 1)
        } else {
            (sum, l.exp as i32)
        };
        let normal = (sig_f >> (p - 1)) & 1 != 0;
        let sign = (l.sign as u64) << sign_at;
        let frac_mask = (1u64 << (p - 1)) - 1;
        if normal && e > f.emax {
            let inf = (((1u64 << (f.width - f.p)) - 1) << (p - 1)) | sign;
            let max = inf - 1;
            match rnd {
                Rnd::Rn => inf,
                Rnd::Rz => max,
                Rnd::Rm => {
                    if l.sign {
                        inf
                    } else {
                        max
                    }
                }
                Rnd::Rp => {
                    if l.sign {
                        max
                    } else {
                        inf
                    }
                }
            }
        } else {
            let biased = if normal { (e - f.emin + 1) as u64 } else { 0 };
            if ctrl.flush() && tiny(rnd, l, p) {
                (l.flush_sign as u64) << sign_at
            } else {
                sign | biased << (p - 1) | (sig_f & frac_mask)
            }
        }
    };
    if ctrl.sat && f.width == 32 {
        saturate_f32(enc)
    } else {
        enc
    }
}

/// Whether a value with this sign, kept least significant bit, round bit and sticky bit rounds
/// its magnitude up one unit in direction `rnd`; the result's rounding and the tininess test
/// both ask it.
#[inline(always)]
fn increment(rnd: Rnd, sign: bool, lsb: bool, rb: bool, st: bool) -> bool {
    match rnd {
        Rnd::Rn => rb & (st | lsb),
        Rnd::Rz => false,
        Rnd::Rm => sign & (rb | st),
        Rnd::Rp => !sign & (rb | st),
    }
}

/// S4: the value is tiny after rounding, i.e. rounded to `p` bits with an unbounded exponent it
/// is below `2^emin`. Only a value below `2^emin` before rounding can be (its leading one is not
/// at the lead bit: the normaliser stops at `emin`), and such a value reaches `2^emin` only if
/// its `p` bits from the bit below the lead down are all ones and round up, one position below the subnormal
/// quantum the result itself is rounded at. Every value that rounds to a subnormal is tiny.
#[inline(always)]
fn tiny(rnd: Rnd, l: &S3Lane, p: usize) -> bool {
    let ones = (1u64 << p) - 1;
    let sig = (l.norm >> (LEAD_BIT - p)).as_limbs()[0] & ones;
    let rb = l.norm.bit(LEAD_BIT - 1 - p);
    let st = !(l.norm & U165::low_mask(LEAD_BIT - 1 - p)).is_zero() | l.sticky;
    let inc = increment(rnd, l.sign, sig & 1 != 0, rb, st);
    !l.norm.bit(LEAD_BIT) & !(sig == ones && inc)
}

/// S3: NaN and anything <= 0 go to +0, anything >= 1.0 (+inf too) to 1.0.
#[inline(always)]
pub fn saturate_f32(x: u64) -> u64 {
    let nan = (x & 0x7F80_0000) == 0x7F80_0000 && (x & 0x7F_FFFF) != 0;
    if nan || x >> 31 != 0 {
        0
    } else {
        x.min(F32_ONE)
    }
}

//! Rounder: rounds the normalised significand to the lane's precision in the instruction's
//! direction (through binary32 first where `via_f32` says so, S13), handles overflow, flushes
//! tiny results (`.ftz`, sm_1x: S4), takes the special result when there is one, and saturates
//! (`.sat`) or clamps at zero (`.relu`, S11).

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format;
use crate::geometry::MAG_W;
use crate::parts::special;
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
pub const F16: ResultFmt = ResultFmt::of(format::F16);
pub const BF16: ResultFmt = ResultFmt::of(format::BF16);

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

    /// 1.0, the upper bound of `.sat`.
    const fn one(self) -> u64 {
        ((self.emax as u64) << (self.p - 1)) & ((1 << (self.width - 1)) - 1)
    }
}

#[inline(always)]
pub fn result_fmt(ctrl: &Ctrl) -> ResultFmt {
    match ctrl.kind {
        Kind::F64 => F64,
        Kind::Half | Kind::Half2 if ctrl.ab_fmt == AbFmt::Bf16 => BF16,
        Kind::Half | Kind::Half2 => F16,
        _ => F32,
    }
}

/// The exponent the normaliser stops at: the result format's minimum, except where the sum is
/// first rounded to binary32 (`via_f32`), which needs binary32's.
#[inline(always)]
pub fn normalize_emin(ctrl: &Ctrl) -> i32 {
    if ctrl.via_f32 {
        F32.emin
    } else {
        result_fmt(ctrl).emin
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

/// A finite nonzero value on its way through the rounder: sign, the normalised significand
/// (leading one at the lead bit unless the value is below `2^emin`), the bits already shifted
/// out, and the exponent of the lead bit.
#[derive(Clone, Copy, Debug)]
pub struct Finite {
    pub sign: bool,
    pub norm: U165,
    pub sticky: bool,
    pub exp: i32,
}

/// Rounds one lane and returns its encoding (binary32 in bits 31:0 for f32 kinds, the half
/// format in bits 15:0 for half kinds).
#[inline(always)]
pub fn round(ctrl: &Ctrl, l: &S3Lane) -> u64 {
    let f = result_fmt(ctrl);
    let rnd = effective_rnd(ctrl);
    let enc = if l.spec_valid {
        l.spec_res
    } else if l.zero {
        (l.sign as u64) << (f.width - 1)
    } else {
        let x = Finite {
            sign: l.sign,
            norm: l.norm,
            sticky: l.sticky,
            exp: l.exp as i32,
        };
        if ctrl.via_f32 {
            // S13: binary32 first (normal there: a half product is at least 2^-48), then to
            // nearest in the half format.
            round_finite(f, Rnd::Rn, false, l.flush_sign, at_f32(rnd, x, f.emin))
        } else {
            round_finite(f, rnd, ctrl.flush(), l.flush_sign, x)
        }
    };
    if ctrl.sat && f.width <= 32 {
        saturate(f, enc)
    } else if ctrl.relu {
        relu(f, enc)
    } else {
        enc
    }
}

/// Rounds `x` in `f` and direction `rnd`: overflow by direction, tiny results flushed to
/// `flush_sign` zero under `flush` (S4), subnormals at the format's quantum.
#[inline(always)]
fn round_finite(f: ResultFmt, rnd: Rnd, flush: bool, flush_sign: bool, x: Finite) -> u64 {
    let sign_at = f.width - 1;
    let p = f.p as usize;
    let sig = (x.norm >> (LEAD_BIT + 1 - p)).as_limbs()[0];
    let rb = x.norm.bit(LEAD_BIT - p);
    let below = x.norm & U165::low_mask(LEAD_BIT - p);
    let st = !below.is_zero() | x.sticky;
    let inc = increment(rnd, x.sign, sig & 1 != 0, rb, st);
    let sum = sig + inc as u64;
    let (sig_f, e) = if sum >> p != 0 {
        (sum >> 1, x.exp + 1)
    } else {
        (sum, x.exp)
    };
    let normal = (sig_f >> (p - 1)) & 1 != 0;
    let sign = (x.sign as u64) << sign_at;
    let frac_mask = (1u64 << (p - 1)) - 1;
    if normal && e > f.emax {
        let inf = (((1u64 << (f.width - f.p)) - 1) << (p - 1)) | sign;
        let max = inf - 1;
        match rnd {
            Rnd::Rn => inf,
            Rnd::Rz => max,
            Rnd::Rm => {
                if x.sign {
                    inf
                } else {
                    max
                }
            }
            Rnd::Rp => {
                if x.sign {
                    max
                } else {
                    inf
                }
            }
        }
    } else {
        let biased = if normal { (e - f.emin + 1) as u64 } else { 0 };
        if flush && tiny(rnd, &x, p) {
            (flush_sign as u64) << sign_at
        } else {
            sign | biased << (p - 1) | (sig_f & frac_mask)
        }
    }
}

/// S13: `x` (normalised at binary32's minimum exponent) rounded to binary32's 24 bits in
/// direction `rnd`, then placed as the normaliser would for a format whose minimum exponent is
/// `emin`: shifted right, into sticky, where it lies below `2^emin`.
#[inline(always)]
pub fn at_f32(rnd: Rnd, x: Finite, emin: i32) -> Finite {
    let p = F32.p as usize;
    let sig = (x.norm >> (LEAD_BIT + 1 - p)).as_limbs()[0];
    let rb = x.norm.bit(LEAD_BIT - p);
    let st = !(x.norm & U165::low_mask(LEAD_BIT - p)).is_zero() | x.sticky;
    let sum = sig + increment(rnd, x.sign, sig & 1 != 0, rb, st) as u64;
    let (sig, exp) = if sum >> p != 0 {
        (sum >> 1, x.exp + 1)
    } else {
        (sum, x.exp)
    };
    let norm = U165::from_limbs([sig, 0, 0]) << (LEAD_BIT + 1 - p);
    let (norm, sticky) = norm.shr_sticky((emin - exp).clamp(0, MAG_W as i32) as usize);
    Finite {
        sign: x.sign,
        norm,
        sticky,
        exp: exp.max(emin),
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
fn tiny(rnd: Rnd, x: &Finite, p: usize) -> bool {
    let ones = (1u64 << p) - 1;
    let sig = (x.norm >> (LEAD_BIT - p)).as_limbs()[0] & ones;
    let rb = x.norm.bit(LEAD_BIT - 1 - p);
    let st = !(x.norm & U165::low_mask(LEAD_BIT - 1 - p)).is_zero() | x.sticky;
    let inc = increment(rnd, x.sign, sig & 1 != 0, rb, st);
    !x.norm.bit(LEAD_BIT) & !(sig == ones && inc)
}

/// S3: NaN and anything <= 0 go to +0, anything >= 1.0 (+inf too) to 1.0; for binary32 and
/// the half formats (`f` says which).
#[inline(always)]
pub fn saturate(f: ResultFmt, x: u64) -> u64 {
    let exp_field = ((1u64 << (f.width - f.p)) - 1) << (f.p - 1);
    let nan = (x & exp_field) == exp_field && (x & ((1 << (f.p - 1)) - 1)) != 0;
    if nan || x >> (f.width - 1) != 0 {
        0
    } else {
        x.min(f.one())
    }
}

/// binary32 `.sat` ([`saturate`] in [`F32`]).
#[inline(always)]
pub fn saturate_f32(x: u64) -> u64 {
    saturate(F32, x)
}

/// `.relu` (S11): a NaN gives the half NaN, anything negative (-0 and -inf too) +0.
#[inline(always)]
pub fn relu(f: ResultFmt, x: u64) -> u64 {
    let exp_field = ((1u64 << (f.width - f.p)) - 1) << (f.p - 1);
    let nan = (x & exp_field) == exp_field && (x & ((1 << (f.p - 1)) - 1)) != 0;
    if nan {
        special::HALF_NAN
    } else if x >> (f.width - 1) != 0 {
        0
    } else {
        x
    }
}

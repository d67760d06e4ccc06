//! Operand unpack: format decode, exact f16/bf16 widening, input flushing, and the `b_one` /
//! `c_zero` / `neg_c` substitutions that put add, sub and mul on the FMA datapath.
//!
//! Every operand leaves here in one internal form for all float kinds: a 53-bit significand
//! with its leading (hidden) bit at bit 52, and the unbiased exponent of bit 52. Narrower formats
//! are MSB-aligned, so binary32 uses bits 52:29; subnormals keep their leading zeros and the
//! format's minimum exponent. That one form lets one back end serve every format.

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format::{Fmt, BF16, F16, F32, F64};

/// One unpacked float operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operand {
    pub sign: bool,
    /// Unbiased exponent of significand bit 52.
    pub exp: i32,
    /// 53-bit MSB-aligned significand (hidden bit at 52 for normals).
    pub sig: u64,
    pub zero: bool,
    pub inf: bool,
    pub nan: bool,
}

#[inline(always)]
fn unpack(bits: u64, f: Fmt, flush: bool) -> Operand {
    let emax_field = f.exp_max();
    let bias = f.bias() as i32;
    let e = f.exp_of(bits);
    let frac = bits & f.frac_mask();
    let sign = bits & f.sign_bit() != 0;
    let align = 52 - f.frac_bits;
    let hidden = (e != 0) as u64;
    // Input flushing zeroes a subnormal's significand; written as a mask so that no branch
    // depends on the operand's value.
    let flushed = flush & (e == 0);
    let keep = (flushed as u64).wrapping_sub(1);
    Operand {
        sign,
        // A subnormal's exponent is that of the smallest normal: field 0 reads as field 1.
        exp: e.max(1) as i32 - bias,
        sig: (((hidden << f.frac_bits) | frac) << align) & keep,
        zero: (e == 0) & ((frac == 0) | flushed),
        inf: (e == emax_field) & (frac == 0),
        nan: (e == emax_field) & (frac != 0),
    }
}

#[inline(always)]
pub fn unpack_f64(bits: u64) -> Operand {
    unpack(bits, F64, false)
}

#[inline(always)]
pub fn unpack_f32(bits: u32, flush: bool) -> Operand {
    unpack(bits as u64, F32, flush)
}

#[inline(always)]
pub fn unpack_f16(bits: u16) -> Operand {
    unpack(bits as u64, F16, false)
}

#[inline(always)]
pub fn unpack_bf16(bits: u16) -> Operand {
    unpack(bits as u64, BF16, false)
}

/// +1.0 in the internal form.
pub const ONE: Operand = Operand {
    sign: false,
    exp: 0,
    sig: 1 << 52,
    zero: false,
    inf: false,
    nan: false,
};

/// The three operands of one lane, plus the raw words the f64 NaN rule (S2) propagates.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneOperands {
    pub a: Operand,
    pub b: Operand,
    pub c: Operand,
    pub raw: [u64; 3],
}

/// Unpacks lane `lane` (0 or 1) of a float instruction: the 32-bit half of each word for
/// f32x2, its 16-bit half for half2. Inlined into stage 1 so the operands
/// stay in registers instead of going through memory on their way to alignment and the
/// special-case logic.
#[inline(always)]
pub fn lane_operands(ctrl: &Ctrl, lane: u32, a: u64, b: u64, c: u64) -> LaneOperands {
    let flush = ctrl.flush();
    let word = |x: u64| (x >> (32 * lane)) as u32;
    let half = |x: u64| (x >> (16 * lane)) & 0xFFFF;
    let (ua, ub, uc, raw) = if ctrl.is_half() {
        let f = ctrl.half_fmt();
        let [a, b, c] = [half(a), half(b), half(c)];
        (
            unpack(a, f, flush),
            unpack(b, f, flush),
            unpack(c, f, flush),
            [a, b, c],
        )
    } else if ctrl.kind == Kind::F64 {
        (unpack_f64(a), unpack_f64(b), unpack_f64(c), [a, b, c])
    } else {
        // One format decision for both factors.
        let (ua, ub) = match ctrl.ab_fmt {
            AbFmt::Native => (unpack_f32(word(a), flush), unpack_f32(word(b), flush)),
            AbFmt::F16 => (unpack_f16(a as u16), unpack_f16(b as u16)),
            AbFmt::Bf16 => (unpack_bf16(a as u16), unpack_bf16(b as u16)),
        };
        let raw = [word(a) as u64, word(b) as u64, word(c) as u64];
        (ua, ub, unpack_f32(word(c), flush), raw)
    };
    let ub = if ctrl.b_one { ONE } else { ub };
    let mut uc = if ctrl.c_zero {
        // mul: a*b + (-0) returns every product unchanged, signed zeros included; under .rm an
        // exact zero sum is -0, so there +0 is the neutral addend.
        Operand {
            sign: ctrl.rnd != Rnd::Rm,
            exp: 1 - 127,
            sig: 0,
            zero: true,
            inf: false,
            nan: false,
        }
    } else {
        uc
    };
    uc.sign ^= ctrl.neg_c;
    LaneOperands {
        a: ua,
        b: ub,
        c: uc,
        raw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_share_one_internal_scale() {
        // 1.5 in every format is sig 0b11 << 51, exp 0.
        for op in [
            unpack_f64(0x3FF8_0000_0000_0000),
            unpack_f32(0x3FC0_0000, false),
            unpack_f16(0x3E00),
            unpack_bf16(0x3FC0),
        ] {
            assert_eq!((op.sig, op.exp), (3 << 51, 0));
        }
        // Smallest subnormals keep their leading zeros at the format's emin.
        assert_eq!(
            (unpack_f32(1, false).sig, unpack_f32(1, false).exp),
            (1 << 29, -126)
        );
        assert_eq!((unpack_f16(1).sig, unpack_f16(1).exp), (1 << 42, -14));
        assert!(unpack_f32(1, true).zero && unpack_f32(0x8000_0001, true).sign);
        assert!(unpack_f16(0x7E00).nan && unpack_bf16(0xFF80).inf);
    }
}

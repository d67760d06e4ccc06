//! Operand classes (`bins::class`) by format, from a small table rather than branches: the
//! sampler classifies every operand of every operation.

use ptxfma_model::format::Fmt;

use super::bins::class;

/// Operand class by a six-bit key: bit 0 exponent all ones, 1 exponent zero, 2 fraction
/// zero, 3 quiet bit, 4 the minimum normal, 5 the maximum finite. Bit 7 of an entry: the class
/// has a sign (add the sign bit).
const CLASS_TAB: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        let (top, ze, fz, q) = (k & 1 != 0, k & 2 != 0, k & 4 != 0, k & 8 != 0);
        let (min, max) = (k & 16 != 0, k & 32 != 0);
        t[k] = if top {
            if fz {
                class::POS_INF as u8 | 0x80
            } else if q {
                class::QNAN as u8
            } else {
                class::SNAN as u8
            }
        } else if ze {
            if fz {
                class::POS_ZERO as u8 | 0x80
            } else {
                class::POS_SUB as u8 | 0x80
            }
        } else if min {
            class::POS_MIN as u8 | 0x80
        } else if max {
            class::POS_MAX as u8 | 0x80
        } else {
            class::POS_NORMAL as u8 | 0x80
        };
        k += 1;
    }
    t
};

/// Operand class (`bins::class`) of `bits` in format `f`, without branches.
#[inline(always)]
pub fn classify(f: Fmt, bits: u64) -> usize {
    let e = f.exp_of(bits);
    let frac = bits & f.frac_mask();
    let fz = frac == 0;
    let k = (e == f.exp_max()) as usize
        | ((e == 0) as usize) << 1
        | (fz as usize) << 2
        | ((frac & f.quiet_bit() != 0) as usize) << 3
        | (((e == 1) & fz) as usize) << 4
        | (((e == f.exp_max() - 1) & (frac == f.frac_mask())) as usize) << 5;
    let t = CLASS_TAB[k];
    let s = ((bits >> (f.width() - 1)) & 1) as usize;
    (t & 0x7F) as usize + (s & (t >> 7) as usize)
}

#[inline(always)]
pub(super) fn is_sub(c: usize) -> bool {
    c | 1 == class::NEG_SUB
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::format::{BF16, F16, F32, F64};

    #[test]
    fn classes_by_format() {
        use class::*;
        for (f, bits, k) in [
            (F32, 0x0000_0000, POS_ZERO),
            (F32, 0x8000_0000, NEG_ZERO),
            (F32, 0x0000_0001, POS_SUB),
            (F32, 0x807F_FFFF, NEG_SUB),
            (F32, 0x0080_0000, POS_MIN),
            (F32, 0x8080_0000, NEG_MIN),
            (F32, 0x0080_0001, POS_NORMAL),
            (F32, 0x7F7F_FFFF, POS_MAX),
            (F32, 0xFF7F_FFFF, NEG_MAX),
            (F32, 0x7F7F_FFFE, POS_NORMAL),
            (F32, 0xFF80_0000, NEG_INF),
            (F32, 0xFFC0_0000, QNAN),
            (F32, 0x7F80_0001, SNAN),
            (F16, 0x7BFF, POS_MAX),
            (F16, 0x0400, POS_MIN),
            (BF16, 0x7F81, SNAN),
            (F64, 0x7FF8_0000_0000_0000, QNAN),
            (F64, 0x000F_FFFF_FFFF_FFFF, POS_SUB),
        ] {
            assert_eq!(classify(f, bits), k, "{bits:#x}");
        }
    }
}

//! When two results of one operation are the same PTX result (docs/semantics.md S1).

use ptxfma_model::ctrl::{Ctrl, Kind};

/// Whether `got` is an acceptable result where `expected` is the reference's, for an operation
/// with control word `ctrl`: bit for bit, except that PTX leaves an f32 NaN's bits open (S1), so
/// unless `strict_nan` any f32 NaN matches any f32 NaN, lane by lane for f32x2, and an f32 result
/// must have bits 63:32 clear; the same for the half formats' NaNs (S10), per 16-bit lane, with
/// the bits above the lanes clear. f64 NaN payloads (S2) and vmad results are always exact.
pub fn same_result(ctrl: &Ctrl, got: u64, expected: u64, strict_nan: bool) -> bool {
    if got == expected || strict_nan {
        return got == expected;
    }
    let f32_nan = |v: u64| f32::from_bits(v as u32).is_nan();
    match ctrl.kind {
        Kind::F32 | Kind::Sm1x => {
            got >> 32 == 0 && expected >> 32 == 0 && f32_nan(got) && f32_nan(expected)
        }
        Kind::F32x2 => (0..2).all(|k| {
            let (g, e) = (
                got >> (32 * k) & 0xFFFF_FFFF,
                expected >> (32 * k) & 0xFFFF_FFFF,
            );
            g == e || (f32_nan(g) && f32_nan(e))
        }),
        Kind::Half | Kind::Half2 => {
            let f = ctrl.half_fmt();
            let lanes = if ctrl.kind == Kind::Half2 { 2 } else { 1 };
            let nan = |v: u64| f.exp_of(v) == f.exp_max() && v & f.frac_mask() != 0;
            got >> (16 * lanes) == 0
                && expected >> (16 * lanes) == 0
                && (0..lanes).all(|k| {
                    let (g, e) = (got >> (16 * k) & 0xFFFF, expected >> (16 * k) & 0xFFFF);
                    g == e || (nan(g) && nan(e))
                })
        }
        Kind::F64 | Kind::Vmad => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::ctrl::Rnd;

    #[test]
    fn any_f32_nan_is_the_same_result_but_f64_payloads_are_exact() {
        let f32 = Ctrl::fma(Kind::F32, Rnd::Rn);
        let x2 = Ctrl::fma(Kind::F32x2, Rnd::Rn);
        let f64 = Ctrl::fma(Kind::F64, Rnd::Rn);
        assert!(same_result(&f32, 0x7fc0_0000, 0x7fff_ffff, false));
        assert!(same_result(&f32, 0xffc0_0001, 0x7fff_ffff, false));
        assert!(!same_result(&f32, 0x7fc0_0000, 0x7fff_ffff, true));
        assert!(!same_result(&f32, 0x7f80_0000, 0x7fff_ffff, false));
        assert!(!same_result(
            &f32,
            1 << 32 | 0x7fc0_0000,
            0x7fff_ffff,
            false
        ));
        assert!(same_result(
            &x2,
            0x7fc0_0000_3f80_0000,
            0x7fff_ffff_3f80_0000,
            false
        ));
        assert!(!same_result(
            &x2,
            0x7fc0_0000_3f80_0001,
            0x7fff_ffff_3f80_0000,
            false
        ));
        assert!(!same_result(
            &f64,
            0x7ff8_0000_0000_0000,
            0x7ff8_0000_0000_0001,
            false
        ));
    }

    #[test]
    fn any_half_nan_is_the_same_result_lane_by_lane() {
        use ptxfma_model::ctrl::AbFmt;
        let h2 = Ctrl {
            kind: Kind::Half2,
            ab_fmt: AbFmt::F16,
            ..Ctrl::default()
        };
        let bf = Ctrl {
            kind: Kind::Half,
            ab_fmt: AbFmt::Bf16,
            ..Ctrl::default()
        };
        // f16 NaNs 0x7e00 / 0xfc01 in lane 1, lane 0 equal.
        assert!(same_result(&h2, 0x7e00_3c00, 0xfc01_3c00, false));
        assert!(!same_result(&h2, 0x7e00_3c00, 0xfc01_3c01, false));
        // 0x7c00 is f16 infinity, not a NaN.
        assert!(!same_result(&h2, 0x7c00_0000, 0x7e00_0000, false));
        assert!(!same_result(&h2, 0x7e00_3c00, 0xfc01_3c00, true));
        // bf16: 0x7f81 is a NaN, 0x7f80 infinity; bits above the lane must be clear.
        assert!(same_result(&bf, 0x7f81, 0x7fff, false));
        assert!(!same_result(&bf, 0x7f80, 0x7fff, false));
        assert!(!same_result(&bf, 0x1_7f81, 0x7fff, false));
    }
}

//! When two results of one operation are the same PTX result (docs/semantics.md S1).

use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::format::{F32, F64};

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

/// How a design's NaN results are judged (a `dut build` manifest's `contract.nan`): its lanes
/// that are not NaN are always bit-exact, and a NaN for a number or a number for a NaN always
/// differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NanConvention {
    /// PTX's rule, [`same_result`]: any f32 or half NaN for a NaN; f64 NaNs bit-exact (S1, S2,
    /// S10).
    #[default]
    Ptx,
    /// Where the reference has a NaN, the design's one NaN of the lane's format, lane by lane:
    /// by default the format's default quiet NaN ([`CanonicalNans::default`], RISC-V's and
    /// Arm's default-NaN mode); a manifest may name others (x86's is negative).
    Canonical(CanonicalNans),
    /// Where the reference has a NaN, any NaN of the lane's format.
    Any,
}

/// The NaN a design under [`NanConvention::Canonical`] returns, per format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CanonicalNans {
    pub f32: u32,
    pub f64: u64,
    pub f16: u16,
    pub bf16: u16,
}

impl Default for CanonicalNans {
    /// Each format's default quiet NaN: exponent all ones, the quiet bit alone, sign clear.
    fn default() -> Self {
        CanonicalNans {
            f32: 0x7fc0_0000,
            f64: 0x7ff8_0000_0000_0000,
            f16: 0x7e00,
            bf16: 0x7fc0,
        }
    }
}

impl CanonicalNans {
    /// The formats by the names a manifest uses, each with its width in bits.
    pub const FORMATS: [(&'static str, u32); 4] =
        [("f32", 32), ("f64", 64), ("f16", 16), ("bf16", 16)];

    /// The NaN of format `name` (one of [`CanonicalNans::FORMATS`]).
    pub fn get(&self, name: &str) -> Option<u64> {
        match name {
            "f32" => Some(self.f32.into()),
            "f64" => Some(self.f64),
            "f16" => Some(self.f16.into()),
            "bf16" => Some(self.bf16.into()),
            _ => None,
        }
    }

    /// Sets the NaN of format `name` to `v`: `Err` with the reason where `v` is not a NaN of
    /// that format.
    pub fn set(&mut self, name: &str, v: u64) -> Result<(), String> {
        let f = match name {
            "f32" => F32,
            "f64" => F64,
            "f16" => ptxfma_model::format::F16,
            "bf16" => ptxfma_model::format::BF16,
            _ => return Err(format!("`{name}` is not one of f32, f64, f16, bf16")),
        };
        let width = f.width();
        let fits = width == 64 || v >> width == 0;
        if !fits || f.exp_of(v) != f.exp_max() || v & f.frac_mask() == 0 {
            return Err(format!("{v:#x} is not a {width}-bit {name} NaN"));
        }
        match name {
            "f32" => self.f32 = v as u32,
            "f64" => self.f64 = v,
            "f16" => self.f16 = v as u16,
            _ => self.bf16 = v as u16,
        }
        Ok(())
    }

    /// The formats whose NaN is not the default, as `f64 0xfff8000000000000`.
    pub fn overrides(&self) -> Vec<String> {
        let d = CanonicalNans::default();
        CanonicalNans::FORMATS
            .iter()
            .filter(|(n, _)| self.get(n) != d.get(n))
            .map(|(n, w)| {
                format!(
                    "{n} {:#0width$x}",
                    self.get(n).unwrap_or(0),
                    width = *w as usize / 4 + 2
                )
            })
            .collect()
    }
}

impl NanConvention {
    pub const ALL: [NanConvention; 3] = [
        NanConvention::Ptx,
        NanConvention::Canonical(CanonicalNans {
            f32: 0x7fc0_0000,
            f64: 0x7ff8_0000_0000_0000,
            f16: 0x7e00,
            bf16: 0x7fc0,
        }),
        NanConvention::Any,
    ];

    /// From the manifest's spelling (`canonical` with the default NaNs).
    pub fn parse(s: &str) -> Option<NanConvention> {
        NanConvention::ALL.into_iter().find(|n| n.name() == s)
    }

    /// The manifest's spelling.
    pub fn name(self) -> &'static str {
        match self {
            NanConvention::Ptx => "ptx",
            NanConvention::Canonical(_) => "canonical",
            NanConvention::Any => "any",
        }
    }

    /// As reports say it: the name, and the NaNs a canonical convention names that are not the
    /// formats' defaults (`canonical (f32 0xffc00000, f64 0xfff8000000000000)`).
    pub fn describe(self) -> String {
        match self {
            NanConvention::Canonical(t) if !t.overrides().is_empty() => {
                format!("canonical ({})", t.overrides().join(", "))
            }
            _ => self.name().to_string(),
        }
    }
}

/// A result judged under a [`NanConvention`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The same result under PTX's rule.
    Same,
    /// Accepted by the convention only: PTX's rule would call it a divergence.
    Accepted,
    Differs,
}

/// `got` against the reference's `expected` for control word `ctrl`, under `nan`.
pub fn judge(ctrl: &Ctrl, got: u64, expected: u64, nan: NanConvention) -> Judgement {
    let ptx = same_result(ctrl, got, expected, false);
    if nan == NanConvention::Ptx || (ptx && nan == NanConvention::Any) {
        return if ptx {
            Judgement::Same
        } else {
            Judgement::Differs
        };
    }
    let (width, lanes, name): (u32, u32, &str) = match ctrl.kind {
        Kind::F32 | Kind::Sm1x => (32, 1, "f32"),
        Kind::F32x2 => (32, 2, "f32"),
        Kind::F64 => (64, 1, "f64"),
        Kind::Half | Kind::Half2 => (
            16,
            if ctrl.kind == Kind::Half2 { 2 } else { 1 },
            if ctrl.half_fmt() == ptxfma_model::format::BF16 {
                "bf16"
            } else {
                "f16"
            },
        ),
        Kind::Vmad => {
            return if got == expected {
                Judgement::Same
            } else {
                Judgement::Differs
            }
        }
    };
    let f = match width {
        64 => F64,
        32 => F32,
        _ => ctrl.half_fmt(),
    };
    let canon = match nan {
        NanConvention::Canonical(t) => t.get(name).unwrap_or(0),
        _ => 0,
    };
    let is_nan = |v: u64| f.exp_of(v) == f.exp_max() && v & f.frac_mask() != 0;
    let used = width * lanes;
    if used < 64 && (got >> used != 0 || expected >> used != 0) {
        return Judgement::Differs;
    }
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let ok = (0..lanes).all(|k| {
        let (g, e) = (got >> (width * k) & mask, expected >> (width * k) & mask);
        match (is_nan(e), nan) {
            (false, _) => g == e,
            (true, NanConvention::Canonical(_)) => g == canon,
            (true, _) => is_nan(g),
        }
    });
    match (ok, ptx) {
        (false, _) => Judgement::Differs,
        (true, true) => Judgement::Same,
        (true, false) => Judgement::Accepted,
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

    #[test]
    fn a_nan_convention_accepts_only_nans_for_nans() {
        use NanConvention::*;
        let canonical = Canonical(CanonicalNans::default());
        let f64 = Ctrl::fma(Kind::F64, Rnd::Rn);
        let f32 = Ctrl::fma(Kind::F32, Rnd::Rn);
        let x2 = Ctrl::fma(Kind::F32x2, Rnd::Rn);
        let model_nan = 0x7ff8_0000_0000_0001; // S2: an operand's payload
        let canon = 0x7ff8_0000_0000_0000;
        assert_eq!(judge(&f64, canon, model_nan, Ptx), Judgement::Differs);
        assert_eq!(
            judge(&f64, canon, model_nan, canonical),
            Judgement::Accepted
        );
        assert_eq!(
            judge(&f64, model_nan, model_nan, canonical),
            Judgement::Differs
        );
        assert_eq!(
            judge(&f64, 0xfff0_0000_0000_0001, model_nan, Any),
            Judgement::Accepted
        );
        assert_eq!(judge(&f64, model_nan, model_nan, Any), Judgement::Same);
        // A number for a NaN, a NaN for a number, a wrong number: always divergences.
        for n in [Ptx, canonical, Any] {
            assert_eq!(
                judge(&f64, 0x3ff0_0000_0000_0000, model_nan, n),
                Judgement::Differs
            );
            assert_eq!(
                judge(&f64, canon, 0x3ff0_0000_0000_0000, n),
                Judgement::Differs
            );
            assert_eq!(
                judge(&f64, 0x3ff0_0000_0000_0001, 0x3ff0_0000_0000_0000, n),
                Judgement::Differs
            );
        }
        // f32: any NaN is already PTX's rule; canonical wants exactly 0x7fc00000.
        assert_eq!(
            judge(&f32, 0x7fff_ffff, 0x7fff_ffff, canonical),
            Judgement::Differs
        );
        assert_eq!(
            judge(&f32, 0x7fc0_0000, 0x7fff_ffff, canonical),
            Judgement::Same
        );
        assert_eq!(judge(&f32, 0x7fc0_0001, 0x7fff_ffff, Any), Judgement::Same);
        // f32x2 lane by lane: the number lane stays exact.
        assert_eq!(
            judge(&x2, 0x7fc0_0000_3f80_0000, 0x7fff_ffff_3f80_0000, canonical),
            Judgement::Same
        );
        assert_eq!(
            judge(&x2, 0x7fc0_0000_3f80_0001, 0x7fff_ffff_3f80_0000, canonical),
            Judgement::Differs
        );
        // Half formats: binary16 0x7e00, bfloat16 0x7fc0.
        let h = Ctrl::fma(Kind::Half, Rnd::Rn);
        let bf = Ctrl {
            ab_fmt: ptxfma_model::ctrl::AbFmt::Bf16,
            ..h
        };
        assert_eq!(judge(&h, 0x7e00, 0x7fff, canonical), Judgement::Same);
        assert_eq!(judge(&h, 0x7e01, 0x7fff, canonical), Judgement::Differs);
        assert_eq!(judge(&bf, 0x7fc0, 0x7fff, canonical), Judgement::Same);
        assert_eq!(judge(&bf, 0x7e00, 0x7fff, canonical), Judgement::Differs);
    }

    #[test]
    fn a_canonical_convention_may_name_each_formats_nan() {
        let f64 = Ctrl::fma(Kind::F64, Rnd::Rn);
        let f32 = Ctrl::fma(Kind::F32, Rnd::Rn);
        let h = Ctrl::fma(Kind::Half, Rnd::Rn);
        // x86's default NaN is negative.
        let mut t = CanonicalNans::default();
        t.set("f64", 0xfff8_0000_0000_0000).unwrap();
        t.set("f32", 0xffc0_0000).unwrap();
        let x86 = NanConvention::Canonical(t);
        let model_nan = 0x7ff8_0000_0000_0001;
        assert_eq!(
            judge(&f64, 0xfff8_0000_0000_0000, model_nan, x86),
            Judgement::Accepted
        );
        assert_eq!(
            judge(&f64, 0x7ff8_0000_0000_0000, model_nan, x86),
            Judgement::Differs
        );
        // The design's one f32 NaN; PTX's rule would take any, the convention takes that one.
        assert_eq!(judge(&f32, 0xffc0_0000, 0x7fff_ffff, x86), Judgement::Same);
        assert_eq!(
            judge(&f32, 0x7fc0_0000, 0x7fff_ffff, x86),
            Judgement::Differs
        );
        // The half formats keep their defaults.
        assert_eq!(judge(&h, 0x7e00, 0x7fff, x86), Judgement::Same);
        assert_eq!(
            x86.describe(),
            "canonical (f32 0xffc00000, f64 0xfff8000000000000)"
        );
        assert_eq!(
            NanConvention::parse("canonical").unwrap().describe(),
            "canonical"
        );
        // Only a NaN of the format, of its width.
        for (name, v) in [
            ("f32", 0x7f80_0000u64),
            ("f32", 0x1_7fc0_0000),
            ("f16", 0x7c00),
            ("bf16", 0x7f80),
            ("f64", 0x7ff0_0000_0000_0000),
            ("f8", 0x7f),
        ] {
            assert!(t.set(name, v).is_err(), "{name} {v:#x}");
        }
    }
}

//! The vmad decoder: `vmad.dtype.atype.btype{.po}{.sat}{.scale}` with its operand decorations.

use super::error::{bail, DecodeError};
use super::float::require_sm;
use super::mnemonic::{classify, split_mnemonic, ty_name, Modifier, Opcode, Ty};
use super::target::Target;
use ptxfma_model::ctrl::{Ctrl, Kind, Scale, Sel};

/// The vmad source-operand decorations, which PTX writes on the operands rather than the opcode:
/// `{-}a{.asel}, {-}b{.bsel}, {-}c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmadSrc {
    pub a_neg: bool,
    pub b_neg: bool,
    pub c_neg: bool,
    /// [`Sel::W`] when the operand has no selector.
    pub asel: Sel,
    pub bsel: Sel,
}

impl Default for VmadSrc {
    fn default() -> Self {
        VmadSrc {
            a_neg: false,
            b_neg: false,
            c_neg: false,
            asel: Sel::W,
            bsel: Sel::W,
        }
    }
}

/// The rows of the PTX vmad table of supported sign combinations, as
/// (atype signed, btype signed, product negated, c negated). `c`'s own signedness is not an
/// independent choice: PTX gives it the sign of the intermediate result. Every type pair appears
/// with `+`, negated-product and negated-c forms, and no row negates both.
const VMAD_SIGN_TABLE: &[(bool, bool, bool, bool)] = &[
    (false, false, false, false), //  (u32 * u32) + u32
    (false, false, true, false),  // -(u32 * u32) + s32
    (false, false, false, true),  //  (u32 * u32) - u32
    (false, true, false, false),  //  (u32 * s32) + s32
    (false, true, true, false),   // -(u32 * s32) + s32
    (false, true, false, true),   //  (u32 * s32) - s32
    (true, false, false, false),  //  (s32 * u32) + s32
    (true, false, true, false),   // -(s32 * u32) + s32
    (true, false, false, true),   //  (s32 * u32) - s32
    (true, true, false, false),   //  (s32 * s32) + s32
    (true, true, true, false),    // -(s32 * s32) + s32
    (true, true, false, true),    //  (s32 * s32) - s32
];

/// Decodes `vmad.dtype.atype.btype{.po}{.sat}{.scale}` together with its operand decorations.
///
/// Rules, from `vmad.md` where `ptxas` (CUDA 13.5, sm_90 and sm_100) agrees, and from `ptxas`
/// where it does not (`ptx/tests/ptxas` holds the decoder to it):
/// - vmad requires sm_20 or higher.
/// - Exactly three types, `.dtype.atype.btype`, each `.u32` or `.s32`, come first; `.po`, `.sat`
///   and one of `.shr7`/`.shr15` follow in any order, each at most once.
/// - The product is negated iff exactly one of `a`, `b` is negated ("negation of the product"),
///   so `-a, -b` together is accepted and means the plain product: the pseudo-code only ever
///   looks at `a.negate ^ b.negate`. Consequently `-a, -b, -c` is the allowed `(a*b) - c`.
/// - Negating both the product and `c` is not in the PTX table and is rejected.
/// - `.po` allows neither a negated product nor `-c`; `-a, -b` is the plain product there too
///   (the page says no operand may be negated; `ptxas` takes `-a, -b`).
/// - `.dtype` is either type whatever the final signedness (the page's table pairs each form
///   with one; `ptxas` takes both, and an H100 computes the same for both: S8).
pub fn decode_vmad(mnemonic: &str, target: Target, src: VmadSrc) -> Result<Ctrl, DecodeError> {
    let (op, mods) = split_mnemonic(mnemonic)?;
    if op != Opcode::Vmad {
        bail!("decode_vmad needs a vmad mnemonic, found `{}`", op.name());
    }
    decode_vmad_mods(&mods, target, src)
}

pub(crate) fn decode_vmad_mods(
    mods: &[&str],
    target: Target,
    src: VmadSrc,
) -> Result<Ctrl, DecodeError> {
    let mut signed = [false; 3];
    const WHICH: [&str; 3] = [".dtype", ".atype", ".btype"];
    for (i, which) in WHICH.iter().enumerate() {
        let Some(&m) = mods.get(i) else {
            bail!("vmad needs three types .dtype.atype.btype (each .u32 or .s32), found {i}");
        };
        signed[i] = match classify(m) {
            Some(Modifier::Ty(Ty::U32)) => false,
            Some(Modifier::Ty(Ty::S32)) => true,
            Some(Modifier::Ty(t)) => {
                bail!("vmad {which} must be .u32 or .s32, found `{}`", ty_name(t))
            }
            Some(_) => bail!(
                "vmad needs three types .dtype.atype.btype (each .u32 or .s32) first, found `.{m}` where {which} belongs"
            ),
            None => bail!("unknown modifier `.{m}`"),
        };
    }
    let [d_signed, a_signed, b_signed] = signed;
    let rest = &mods[3..];
    let mut po = false;
    let mut sat = false;
    let mut scale: Option<(Scale, &str)> = None;
    for (i, &m) in rest.iter().enumerate() {
        if rest[..i].contains(&m) {
            bail!("duplicate modifier `.{m}`");
        }
        match classify(m) {
            None => bail!("unknown modifier `.{m}`"),
            Some(Modifier::Po) => po = true,
            Some(Modifier::Sat) => sat = true,
            Some(Modifier::Scale(s)) => {
                if let Some((_, prev)) = scale {
                    bail!("conflicting scales `.{prev}` and `.{m}`");
                }
                scale = Some((s, m));
            }
            Some(Modifier::Ty(t)) => {
                bail!("vmad takes exactly three types (.dtype.atype.btype); extra `{}`", ty_name(t))
            }
            Some(Modifier::Sel(_)) => bail!(
                "`.{m}` is an operand selector: write it on the a or b operand (e.g. `0x12345678.{m}`), not on vmad"
            ),
            Some(Modifier::Rnd(_) | Modifier::Ftz | Modifier::Relu | Modifier::Oob) => {
                bail!("`.{m}` is not a vmad modifier")
            }
        }
    }
    require_sm("vmad", 20, target)?;

    let neg_ab = src.a_neg ^ src.b_neg;
    let neg_c = src.c_neg;
    if po && (neg_ab || neg_c) {
        bail!("vmad .po does not allow a negated product or c");
    }
    if !VMAD_SIGN_TABLE.contains(&(a_signed, b_signed, neg_ab, neg_c)) {
        // Only reachable with both negations: every other combination is a table row.
        bail!("vmad cannot negate both the product and c (not a PTX vmad sign combination)");
    }
    let ctrl = Ctrl {
        kind: Kind::Vmad,
        sat,
        neg_c,
        neg_ab,
        a_signed,
        b_signed,
        asel: src.asel,
        bsel: src.bsel,
        po,
        scale: scale.map_or(Scale::None, |(s, _)| s),
        ..Ctrl::default()
    };
    // The dtype as written does not change what is computed (docs/semantics.md S8): ptxas
    // takes either, and an H100 gives the same result for both.
    let _ = d_signed;
    Ok(ctrl)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::*;
    use ptxfma_model::ctrl::{Kind, Scale, Sel};

    // ---- vmad ----

    #[test]
    fn vmad_every_table_row() {
        // (atype, btype, a_neg, b_neg, c_neg, dtype) for each row of the PTX table.
        let rows = [
            ("u32", "u32", false, false, false, "u32"),
            ("u32", "u32", true, false, false, "s32"),
            ("u32", "u32", false, false, true, "s32"),
            ("u32", "s32", false, false, false, "s32"),
            ("u32", "s32", false, true, false, "s32"),
            ("u32", "s32", false, false, true, "s32"),
            ("s32", "u32", false, false, false, "s32"),
            ("s32", "u32", true, false, false, "s32"),
            ("s32", "u32", false, false, true, "s32"),
            ("s32", "s32", false, false, false, "s32"),
            ("s32", "s32", false, true, false, "s32"),
            ("s32", "s32", false, false, true, "s32"),
        ];
        for (at, bt, an, bn, cn, dt) in rows {
            let m = format!("vmad.{dt}.{at}.{bt}");
            let got = vmad(&m, negs(an, bn, cn)).unwrap_or_else(|e| panic!("{m}: {e}"));
            let want = vw(
                at == "s32",
                bt == "s32",
                an ^ bn,
                cn,
                false,
                false,
                Scale::None,
                Sel::W,
                Sel::W,
            );
            assert_eq!(got, want, "{m} {an} {bn} {cn}");
            // ptxas takes the other dtype too, and it computes the same (S8).
            let other = if dt == "u32" { "s32" } else { "u32" };
            assert_eq!(
                vmad(&format!("vmad.{other}.{at}.{bt}"), negs(an, bn, cn)),
                Ok(want),
                "{m} with .{other}"
            );
        }
    }

    #[test]
    fn vmad_negating_both_a_and_b_cancels() {
        // -a * -b is the plain product: (u32*u32)+u32 stays unsigned.
        let c = vmad("vmad.u32.u32.u32", negs(true, true, false)).unwrap();
        assert!(!c.neg_ab && !c.neg_c && !c.signed_final());
        // -a, -b, -c is (a*b) - c: allowed, signed final.
        let c = vmad("vmad.s32.u32.u32", negs(true, true, true)).unwrap();
        assert!(!c.neg_ab && c.neg_c);
        // So is .po with -a, -b: the plain .po.
        let po = vmad("vmad.u32.u32.u32.po", negs(true, true, false)).unwrap();
        assert_eq!(
            po,
            vmad("vmad.u32.u32.u32.po", negs(false, false, false)).unwrap()
        );
    }

    #[test]
    fn vmad_rejects_negated_product_and_c() {
        for (a, b) in [(true, false), (false, true)] {
            for types in ["s32.s32.s32", "s32.u32.u32", "s32.u32.s32"] {
                let e = vmad(&format!("vmad.{types}"), negs(a, b, true)).unwrap_err();
                assert!(
                    e.message()
                        .contains("vmad cannot negate both the product and c"),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn vmad_po_scale_sat_and_selectors() {
        let sels = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
        for (ss, s) in [
            ("", Scale::None),
            (".shr7", Scale::Shr7),
            (".shr15", Scale::Shr15),
        ] {
            for sat in [false, true] {
                for po in [false, true] {
                    let m = format!(
                        "vmad.u32.u32.u32{}{}{ss}",
                        if po { ".po" } else { "" },
                        if sat { ".sat" } else { "" }
                    );
                    for asel in sels {
                        for bsel in sels {
                            let src = VmadSrc {
                                asel,
                                bsel,
                                ..VmadSrc::default()
                            };
                            assert_eq!(
                                vmad(&m, src).unwrap(),
                                vw(false, false, false, false, po, sat, s, asel, bsel),
                                "{m}"
                            );
                        }
                    }
                }
            }
        }
        // Any order after the types.
        assert_eq!(
            vmad("vmad.s32.s32.u32.shr15.sat.po", VmadSrc::default()).unwrap(),
            vw(
                true,
                false,
                false,
                false,
                true,
                true,
                Scale::Shr15,
                Sel::W,
                Sel::W
            )
        );
        // decode() of a vmad mnemonic: no negation, whole words.
        assert_eq!(
            ok("vmad.s32.s32.s32.sat", "sm_20"),
            vw(
                true,
                true,
                false,
                false,
                false,
                true,
                Scale::None,
                Sel::W,
                Sel::W
            )
        );
    }

    #[test]
    fn vmad_errors() {
        let d = VmadSrc::default();
        for src in [
            negs(true, false, false),
            negs(false, true, false),
            negs(false, false, true),
            negs(true, true, true),
        ] {
            let e = vmad("vmad.s32.s32.s32.po", src).unwrap_err();
            assert!(
                e.message()
                    .contains("vmad .po does not allow a negated product or c"),
                "{e}"
            );
        }
        let cases: &[(&str, &str)] = &[
            ("vmad", "vmad needs three types"),
            ("vmad.u32.u32", "vmad needs three types"),
            ("vmad.u32.u32.sat", "where .btype belongs"),
            ("vmad.sat.u32.u32.u32", "where .dtype belongs"),
            ("vmad.f32.u32.u32", "vmad .dtype must be .u32 or .s32"),
            ("vmad.u32.u64.u32", "unknown modifier `.u64`"),
            ("vmad.u32.u32.u32.u32", "exactly three types"),
            ("vmad.u32.u32.u32.sat.sat", "duplicate modifier `.sat`"),
            ("vmad.u32.u32.u32.po.po", "duplicate modifier `.po`"),
            (
                "vmad.u32.u32.u32.shr7.shr15",
                "conflicting scales `.shr7` and `.shr15`",
            ),
            ("vmad.u32.u32.u32.shr7.shr7", "duplicate modifier `.shr7`"),
            ("vmad.u32.u32.u32.shr8", "unknown modifier `.shr8`"),
            ("vmad.u32.u32.u32.rn", "`.rn` is not a vmad modifier"),
            ("vmad.u32.u32.u32.ftz", "`.ftz` is not a vmad modifier"),
            ("vmad.u32.u32.u32.h0", "operand selector"),
            ("vmad.u32..u32.u32", "empty modifier"),
        ];
        for (m, needle) in cases {
            let e = vmad(m, d).unwrap_err();
            assert!(e.message().contains(needle), "{m}: {e}");
        }
        assert!(decode_vmad("fma.rn.f32", t("sm_100"), d)
            .unwrap_err()
            .message()
            .contains("needs a vmad mnemonic"));
        err(
            "vmad.u32.u32.u32",
            "sm_13",
            &["vmad requires sm_20 or higher (target is sm_13)"],
        );
        assert!(ok("vmad.u32.u32.u32", "sm_20").kind == Kind::Vmad);
    }
}

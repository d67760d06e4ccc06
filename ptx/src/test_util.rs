//! Helpers shared by the decoder tests in `float`, `vmad` and `line`.

use super::*;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};

pub(crate) fn t(s: &str) -> Target {
    Target::parse(s).unwrap()
}

pub(crate) fn ok(m: &str, target: &str) -> Ctrl {
    decode(m, t(target)).unwrap_or_else(|e| panic!("`{m}` on {target}: {e}"))
}

/// Asserts that `m` is rejected on `target` with a message containing every `needle`.
pub(crate) fn err(m: &str, target: &str, needles: &[&str]) {
    match decode(m, t(target)) {
        Ok(c) => panic!("`{m}` on {target} was accepted as {c:?}"),
        Err(e) => {
            for n in needles {
                assert!(
                    e.message().contains(n),
                    "`{m}` on {target}: `{e}` lacks `{n}`"
                );
            }
        }
    }
}

pub(crate) fn line_err(l: &str, target: &str, needles: &[&str]) {
    match parse_line(l, t(target)) {
        Ok(i) => panic!("`{l}` on {target} was accepted as {i:?}"),
        Err(e) => {
            for n in needles {
                assert!(
                    e.message().contains(n),
                    "`{l}` on {target}: `{e}` lacks `{n}`"
                );
            }
        }
    }
}

/// A float control word written field by field, so the expectations do not go through the
/// decoder's own construction.
#[allow(clippy::too_many_arguments)]
/// A float control word: `kind`, `rnd`, and the flags named in `flags` (any of `ftz`,
/// `sat`, `b_one`, `c_zero`, `neg_c`, `f16`, `bf16`, `relu`, `oob`, `via_f32`); everything
/// else off.
pub(crate) fn fw(kind: Kind, rnd: Rnd, flags: &str) -> Ctrl {
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    for f in flags.split_whitespace() {
        assert!(
            ["ftz", "sat", "b_one", "c_zero", "neg_c", "f16", "bf16", "relu", "oob", "via_f32"]
                .contains(&f),
            "unknown flag {f}"
        );
    }
    Ctrl {
        kind,
        rnd,
        ftz: has("ftz"),
        sat: has("sat"),
        ab_fmt: if has("f16") {
            AbFmt::F16
        } else if has("bf16") {
            AbFmt::Bf16
        } else {
            AbFmt::Native
        },
        b_one: has("b_one"),
        c_zero: has("c_zero"),
        neg_c: has("neg_c"),
        neg_ab: false,
        a_signed: false,
        b_signed: false,
        asel: Sel::B0,
        bsel: Sel::B0,
        po: false,
        scale: Scale::None,
        relu: has("relu"),
        oob: has("oob"),
        via_f32: has("via_f32"),
    }
}

pub(crate) const RNDS: [(&str, Rnd); 4] = [
    ("rn", Rnd::Rn),
    ("rz", Rnd::Rz),
    ("rm", Rnd::Rm),
    ("rp", Rnd::Rp),
];

pub(crate) fn vmad(m: &str, src: VmadSrc) -> Result<Ctrl, DecodeError> {
    decode_vmad(m, t("sm_100"), src)
}

pub(crate) fn negs(a: bool, b: bool, c: bool) -> VmadSrc {
    VmadSrc {
        a_neg: a,
        b_neg: b,
        c_neg: c,
        ..VmadSrc::default()
    }
}

/// A vmad control word written field by field.
#[allow(clippy::too_many_arguments)]
pub(crate) fn vw(
    a_s: bool,
    b_s: bool,
    neg_ab: bool,
    neg_c: bool,
    po: bool,
    sat: bool,
    scale: Scale,
    asel: Sel,
    bsel: Sel,
) -> Ctrl {
    Ctrl {
        kind: Kind::Vmad,
        rnd: Rnd::Rn,
        ftz: false,
        sat,
        ab_fmt: AbFmt::Native,
        b_one: false,
        c_zero: false,
        neg_c,
        neg_ab,
        a_signed: a_s,
        b_signed: b_s,
        asel,
        bsel,
        po,
        scale,
        relu: false,
        oob: false,
        via_f32: false,
    }
}

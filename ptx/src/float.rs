//! The float decoder: `fma`, `mad`, `add`, `sub`, `mul` in every precision the datapath runs.

use super::error::{bail, DecodeError};
use super::mnemonic::{classify, ty_name, Modifier, Opcode, Ty};
use super::target::Target;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd};

/// The type part of a float mnemonic, once validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FloatForm {
    F32,
    F64,
    F32x2,
    /// `.f32.f16` / `.f32.bf16`.
    Mixed(AbFmt),
    /// `.f16` / `.bf16`: one half-precision lane.
    Half(AbFmt),
    /// `.f16x2` / `.bf16x2`: two half-precision lanes.
    Half2(AbFmt),
}

impl FloatForm {
    fn name(self) -> &'static str {
        match self {
            FloatForm::F32 => ".f32",
            FloatForm::F64 => ".f64",
            FloatForm::F32x2 => ".f32x2",
            FloatForm::Mixed(AbFmt::Bf16) => ".f32.bf16",
            FloatForm::Mixed(_) => ".f32.f16",
            FloatForm::Half(AbFmt::Bf16) => ".bf16",
            FloatForm::Half(_) => ".f16",
            FloatForm::Half2(AbFmt::Bf16) => ".bf16x2",
            FloatForm::Half2(_) => ".f16x2",
        }
    }

    /// The half-precision format, for the half forms.
    fn half(self) -> Option<AbFmt> {
        match self {
            FloatForm::Half(f) | FloatForm::Half2(f) => Some(f),
            _ => None,
        }
    }
}

pub(crate) fn require_sm(what: &str, min: u32, target: Target) -> Result<(), DecodeError> {
    if target.sm() < min {
        bail!("{what} requires sm_{min} or higher (target is {target})");
    }
    Ok(())
}

pub(crate) fn decode_float(op: Opcode, mods: &[&str], target: Target) -> Result<Ctrl, DecodeError> {
    let opn = op.name();
    let mut rnd: Option<(Rnd, &str)> = None;
    let mut ftz = false;
    let mut sat = false;
    let mut relu = false;
    let mut oob = false;
    let mut types: Vec<Ty> = Vec::with_capacity(2);
    for (i, &m) in mods.iter().enumerate() {
        if mods[..i].contains(&m) {
            bail!("duplicate modifier `.{m}`");
        }
        let Some(modifier) = classify(m) else {
            bail!("unknown modifier `.{m}`");
        };
        let before_type = |what: &str| -> Result<(), DecodeError> {
            if !types.is_empty() {
                bail!("`.{what}` must come before the type");
            }
            Ok(())
        };
        match modifier {
            Modifier::Rnd(r) => {
                before_type(m)?;
                if let Some((_, prev)) = rnd {
                    bail!("conflicting rounding modifiers `.{prev}` and `.{m}`");
                }
                rnd = Some((r, m));
            }
            Modifier::Ftz => {
                before_type(m)?;
                ftz = true;
            }
            Modifier::Relu => {
                before_type(m)?;
                relu = true;
            }
            Modifier::Oob => {
                before_type(m)?;
                oob = true;
            }
            Modifier::Sat => {
                // Before the type, or after both types of a mixed-precision form.
                if types.len() == 1 {
                    bail!(
                        "`.sat` must come before the type (or after both types of mixed precision)"
                    );
                }
                sat = true;
            }
            Modifier::Ty(t @ (Ty::U32 | Ty::S32)) => {
                bail!("`{}` is an integer type; {opn} here takes .f32, .f64, .f32x2, .f32.f16/.f32.bf16 or .f16/.bf16(x2)", ty_name(t))
            }
            Modifier::Ty(t) => {
                if types.len() == 2 {
                    bail!(
                        "too many types: `{}` after `{}{}`",
                        ty_name(t),
                        ty_name(types[0]),
                        ty_name(types[1])
                    );
                }
                types.push(t);
            }
            Modifier::Po | Modifier::Scale(_) => bail!("`.{m}` is only allowed on vmad"),
            Modifier::Sel(_) => {
                bail!("`.{m}` is a vmad operand selector, not an {opn} modifier")
            }
        }
    }
    let form = match types[..] {
        [] => bail!(
            "missing type: {opn} needs {}",
            match op {
                Opcode::Fma =>
                    ".f32, .f64, .f32x2, .f32.f16, .f32.bf16, .f16, .bf16, .f16x2 or .bf16x2",
                Opcode::Add | Opcode::Sub | Opcode::Mul =>
                    ".f32, .f64, .f32x2, .f32.f16, .f32.bf16, .f16, .bf16, .f16x2 or .bf16x2",
                _ => ".f32 or .f64",
            }
        ),
        [Ty::F32] => FloatForm::F32,
        [Ty::F64] => FloatForm::F64,
        [Ty::F32x2] => FloatForm::F32x2,
        [Ty::F32, Ty::F16] => FloatForm::Mixed(AbFmt::F16),
        [Ty::F32, Ty::Bf16] => FloatForm::Mixed(AbFmt::Bf16),
        [Ty::F16] => FloatForm::Half(AbFmt::F16),
        [Ty::Bf16] => FloatForm::Half(AbFmt::Bf16),
        [Ty::F16x2] => FloatForm::Half2(AbFmt::F16),
        [Ty::Bf16x2] => FloatForm::Half2(AbFmt::Bf16),
        [t0, t1] => bail!(
            "unsupported type combination `{}{}` (mixed precision is .f32.f16 or .f32.bf16)",
            ty_name(t0),
            ty_name(t1)
        ),
        _ => unreachable!("at most two types are collected"),
    };
    let fname = form.name();

    // Which forms each opcode has at all.
    match (op, form) {
        (Opcode::Mad, FloatForm::F32x2) => bail!("mad has no .f32x2 form (only fma.f32x2)"),
        (Opcode::Mad, FloatForm::Half(_) | FloatForm::Half2(_)) => {
            bail!("mad has no half-precision form (fma, add, sub and mul have)")
        }
        (Opcode::Mad | Opcode::Mul, FloatForm::Mixed(_)) => {
            bail!(
                "{opn} has no mixed-precision form (only add, sub and fma take .f32.f16/.f32.bf16)"
            )
        }
        _ => {}
    }

    // Modifiers each form allows.
    if form.half().is_none() || op != Opcode::Fma {
        for (on, name) in [(relu, "relu"), (oob, "oob")] {
            if on {
                bail!("`.{name}` is only allowed on half-precision fma (.f16, .bf16 and their x2)");
            }
        }
    }
    match form {
        FloatForm::Half(AbFmt::Bf16) | FloatForm::Half2(AbFmt::Bf16) if ftz => {
            bail!("`.ftz` is not allowed on {fname}")
        }
        FloatForm::Half(AbFmt::Bf16) | FloatForm::Half2(AbFmt::Bf16) if sat => {
            bail!("`.sat` is not allowed on {fname}")
        }
        FloatForm::Half(_) | FloatForm::Half2(_) if sat && relu => {
            bail!("`.sat` and `.relu` exclude each other")
        }
        FloatForm::Half(_) | FloatForm::Half2(_) if oob && ftz => {
            bail!("`.ftz` is not allowed with `.oob`")
        }
        _ => {}
    }
    match form {
        FloatForm::F64 if sat => bail!("`.sat` is not allowed on .f64"),
        FloatForm::F64 if ftz => bail!("`.ftz` is not allowed on .f64"),
        FloatForm::F32x2 if sat => bail!("`.sat` is not allowed on .f32x2"),
        FloatForm::Mixed(_) if ftz => bail!("`.ftz` is not allowed on mixed-precision {opn}"),
        _ => {}
    }

    // Targets.
    match form {
        FloatForm::F32 if op == Opcode::Fma => require_sm("fma.f32", 20, target)?,
        FloatForm::F64 => require_sm(&format!("{opn}.f64"), 13, target)?,
        FloatForm::F32x2 => require_sm(&format!("{opn}.f32x2"), 100, target)?,
        FloatForm::Mixed(_) => require_sm(&format!("{opn}{fname}"), 100, target)?,
        FloatForm::F32 => {}
        FloatForm::Half(f) | FloatForm::Half2(f) => {
            let fma = op == Opcode::Fma;
            if oob {
                require_sm(&format!("{opn}.oob{fname}"), 90, target)?;
            }
            match f {
                AbFmt::Bf16 if !fma => require_sm(&format!("{opn}{fname}"), 90, target)?,
                AbFmt::Bf16 => require_sm(&format!("{opn}{fname}"), 80, target)?,
                _ if relu => require_sm(&format!("{opn}.relu{fname}"), 80, target)?,
                _ => require_sm(&format!("{opn}{fname}"), 53, target)?,
            }
        }
    }

    if let Some(fmt) = form.half() {
        return decode_half(op, form, fmt, rnd, ftz, sat, relu, oob);
    }

    // Rounding modifier: required, optional with a default, or (sm_1x mad.f32) forbidden.
    let mut kind = match form {
        FloatForm::F64 => Kind::F64,
        FloatForm::F32x2 => Kind::F32x2,
        FloatForm::F32 | FloatForm::Mixed(_) => Kind::F32,
        FloatForm::Half(_) | FloatForm::Half2(_) => unreachable!("decoded above"),
    };
    let rnd = match (op, form, rnd) {
        (Opcode::Mad, FloatForm::F32, Some((_, r))) if target.is_sm1x() => {
            bail!("rounding modifiers on mad.f32 require sm_20 or higher (`.{r}` given, target is {target})")
        }
        (Opcode::Mad, FloatForm::F32, None) if target.is_sm1x() => {
            // `ftz` stays as written: `Kind::Sm1x` flushes either way (`Ctrl::flush`).
            kind = Kind::Sm1x;
            Rnd::Rn
        }
        (Opcode::Mad, FloatForm::F32, None) => {
            bail!("mad.f32 on sm_20+ requires a rounding modifier (.rn, .rz, .rm or .rp; target is {target})")
        }
        // Legacy `mad.f64` maps to `mad.rn.f64`, but PTX ISA 1.4 and later require the rounding
        // modifier; a target above sm_1x needs PTX ISA 2.0 or later, so only sm_1x code can be
        // legacy (ptxas refuses `mad.f64` for sm_90 and sm_100).
        (Opcode::Mad, FloatForm::F64, None) if target.is_sm1x() => Rnd::Rn,
        (Opcode::Mad, FloatForm::F64, None) => {
            bail!("mad.f64 requires a rounding modifier (.rn, .rz, .rm or .rp) on sm_20 and higher (legacy mad.f64 is sm_1x only; target is {target})")
        }
        (Opcode::Fma, _, None) => {
            bail!("fma{fname} requires a rounding modifier (.rn, .rz, .rm or .rp)")
        }
        (
            Opcode::Add | Opcode::Sub | Opcode::Mul,
            FloatForm::F32,
            Some((Rnd::Rm | Rnd::Rp, name)),
        ) if target.is_sm1x() => {
            bail!("`.{name}` on {opn}.f32 requires sm_20 or higher (target is {target}; sm_1x has .rn and .rz)")
        }
        (_, _, Some((r, _))) => r,
        // add/sub/mul default to round-to-nearest-even.
        (_, _, None) => Rnd::Rn,
    };

    if kind == Kind::F32 && target.is_sm1x() {
        // sm_1x single precision always flushes subnormal inputs and results; an `F32` word
        // does not know its target, so the flush has to be in the word.
        ftz = true;
    }

    Ok(Ctrl {
        kind,
        rnd,
        ftz,
        sat,
        ab_fmt: match form {
            FloatForm::Mixed(f) => f,
            _ => AbFmt::Native,
        },
        b_one: matches!(op, Opcode::Add | Opcode::Sub),
        c_zero: op == Opcode::Mul,
        neg_c: op == Opcode::Sub,
        ..Ctrl::default()
    })
}

/// The half-precision forms, once the modifiers and the target are checked. `fma` needs a
/// rounding modifier, `.rn` for binary16; `add/sub/mul` take `.rn` or none. bfloat16 `fma` with
/// `.rz/.rm/.rp` is what an H100 computes for it (S13): one lane, the binary16 word that rounds
/// through binary32 (`.relu` dropped); two lanes, the `.rn` word.
#[allow(clippy::too_many_arguments)]
fn decode_half(
    op: Opcode,
    form: FloatForm,
    fmt: AbFmt,
    rnd: Option<(Rnd, &str)>,
    ftz: bool,
    sat: bool,
    relu: bool,
    oob: bool,
) -> Result<Ctrl, DecodeError> {
    let (opn, fname) = (op.name(), form.name());
    let x2 = matches!(form, FloatForm::Half2(_));
    let word = Ctrl {
        kind: if x2 { Kind::Half2 } else { Kind::Half },
        ab_fmt: fmt,
        ftz,
        sat,
        relu,
        oob,
        b_one: matches!(op, Opcode::Add | Opcode::Sub),
        c_zero: op == Opcode::Mul,
        neg_c: op == Opcode::Sub,
        ..Ctrl::default()
    };
    match (op, fmt, rnd) {
        (Opcode::Fma, _, None) => bail!("fma{fname} requires a rounding modifier (.rn)"),
        (_, _, None | Some((Rnd::Rn, _))) => Ok(word),
        (Opcode::Fma, AbFmt::Bf16, Some((r, _))) if x2 => {
            let _ = r;
            Ok(word)
        }
        (Opcode::Fma, AbFmt::Bf16, Some((r, _))) => Ok(Ctrl {
            ab_fmt: AbFmt::F16,
            rnd: r,
            relu: false,
            oob: false,
            via_f32: true,
            ..word
        }),
        (_, _, Some((_, name))) => {
            bail!("`.{name}` is not allowed on {opn}{fname} (half precision rounds .rn)")
        }
    }
}

#[cfg(test)]
mod tests;

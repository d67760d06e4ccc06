//! The PTX instruction decoder: turns a PTX spelling such as `fma.rn.ftz.f32` or
//! `vmad.s32.u32.s32.sat.shr7` into the one control word ([`Ctrl`]) that the model and the RTL
//! both execute, and rejects everything the PTX pages do not allow for the selected target with a
//! message that names the rule broken.
//!
//! What is accepted (issue 2, section 1; the PTX pages are in `shared/ptx/`):
//!
//! | spelling | target | control word |
//! | --- | --- | --- |
//! | `fma.rnd{.ftz}{.sat}.f32` | sm_20+ | `F32` |
//! | `fma.rnd{.ftz}.f32x2` | sm_100+ | `F32x2` |
//! | `fma.rnd.f64`, `mad.rnd.f64`, legacy `mad.f64` (= `mad.rn.f64`) | sm_13+ | `F64` |
//! | `mad.rnd{.ftz}{.sat}.f32` | sm_20+ | `F32` |
//! | `mad{.ftz}{.sat}.f32` (no `.rnd`) | sm_10..sm_13 only | `Sm1x` (flushes with or without `.ftz`) |
//! | `{add,sub}{.rnd}{.sat}.f32.{f16,bf16}`, `fma.rnd{.sat}.f32.{f16,bf16}` | sm_100+ | `F32` + `ab_fmt` |
//! | `{add,sub,mul}{.rnd}{.ftz}{.sat}.f32` (default `.rn`) | all | `F32` (`ftz` forced on sm_1x) |
//! | `{add,sub,mul}{.rnd}.f64` (default `.rn`) | sm_13+ | `F64` |
//! | `vmad.dtype.atype.btype{.po}{.sat}{.scale}` | sm_20+ | `Vmad` |
//!
//! Decisions the PTX pages leave open, taken here:
//! - Modifier order: PTX writes `.rnd`, `.ftz`, `.sat`, then the type. Any order of those three
//!   before the type is accepted (ptxas is order-tolerant in practice and nothing is ambiguous),
//!   but every modifier must come before the type, except that mixed precision may also put
//!   `.sat` after both types, as the PTX example `add.rz.f32.bf16.sat` does. Repeating a modifier
//!   is an error, even where the PTX example `fma.rz.sat.f32.f16.sat` shows it: that example
//!   contradicts its own syntax line, which has one optional `{.sat}`.
//! - `add`/`sub`/`mul` `.f32` on sm_1x: the PTX `add`/`sub`/`mul` pages allow only `.rn` and `.rz`
//!   there (`.rm`/`.rp` on `.f32` need sm_20); the floating-point summary says sm_1x single
//!   precision flushes subnormals, so the control word gets `ftz` whether or not it was written.
//! - sm_1x `mad.f32` and `mad.ftz.f32` are the same operation, but `ftz` in the word records
//!   whether `.ftz` was written: `Kind::Sm1x` flushes regardless (`Ctrl::flush`), and keeping
//!   the spelling lets a word print back (`stimulus::ptx_spelling`) as the text it came from.
//!   Its final rounding is to nearest even, so `rnd` is `Rn`.
//! - vmad: see [`decode_vmad`].
//!
//! [`parse_line`] reads the `fma-model eval` line format: the mnemonic followed by hex operands in
//! place of registers and no destination.

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
use std::fmt;

/// A rejected instruction, target or operand; the message names the rule that was broken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(String);

impl DecodeError {
    fn new(msg: impl Into<String>) -> Self {
        DecodeError(msg.into())
    }

    /// The human-readable reason (the same text as `Display`).
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

macro_rules! bail {
    ($($t:tt)*) => {
        return Err(DecodeError::new(format!($($t)*)))
    };
}

/// The architecture-specific (`a`) or family (`f`) variant of a target. It never changes what
/// this datapath accepts (every rule here is "sm_NN or higher"), but it is kept so that a target
/// prints back the way it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetVariant {
    Plain,
    /// `sm_90a`, `sm_100a`, ...
    Arch,
    /// `sm_100f`, ...
    Family,
}

/// A PTX compilation target (`.target sm_NN`). Ordering by [`Target::sm`] decides every
/// "requires sm_NN or higher" rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    sm: u16,
    variant: TargetVariant,
}

/// The `sm_NN` numbers PTX defines. A number outside the list is almost certainly a typo, and
/// silently treating `sm_14` as "some sm_1x" would hide it.
const KNOWN_SM: &[u16] = &[
    10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89,
    90, 100, 101, 103, 110, 120, 121,
];

impl Default for Target {
    /// The default target, sm_100: the lowest one on which every form here exists.
    fn default() -> Self {
        Target::SM_100
    }
}

impl Target {
    /// `sm_100`, the default target.
    pub const SM_100: Target = Target {
        sm: 100,
        variant: TargetVariant::Plain,
    };

    /// Parses `sm_NN`, `sm_NNa` or `sm_NNf` (lower case, as PTX writes them).
    pub fn parse(s: &str) -> Result<Target, DecodeError> {
        let Some(rest) = s.strip_prefix("sm_") else {
            bail!("unknown target `{s}` (expected sm_NN, e.g. sm_13, sm_90a, sm_100)");
        };
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], TargetVariant::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], TargetVariant::Family),
            _ => (rest, TargetVariant::Plain),
        };
        let numeric = !digits.is_empty()
            && digits.len() <= 3
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        if !numeric {
            bail!("unknown target `{s}` (expected sm_NN, e.g. sm_13, sm_90a, sm_100)");
        }
        let sm: u16 = digits.parse().expect("at most three ASCII digits");
        if !KNOWN_SM.contains(&sm) {
            bail!("unknown target `{s}`: sm_{sm} is not a PTX target");
        }
        match variant {
            TargetVariant::Arch if sm < 90 => {
                bail!("unknown target `{s}`: `a` variants exist only for sm_90 and sm_100+")
            }
            TargetVariant::Family if sm < 100 => {
                bail!("unknown target `{s}`: `f` variants exist only for sm_100+")
            }
            _ => {}
        }
        Ok(Target { sm, variant })
    }

    /// The architecture number: 13 for `sm_13`, 100 for `sm_100a`.
    pub fn sm(&self) -> u32 {
        u32::from(self.sm)
    }

    /// sm_10..sm_13: single precision flushes subnormals and `mad.f32` is the truncating form.
    pub fn is_sm1x(&self) -> bool {
        self.sm < 20
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            TargetVariant::Plain => "",
            TargetVariant::Arch => "a",
            TargetVariant::Family => "f",
        };
        write!(f, "sm_{}{}", self.sm, suffix)
    }
}

/// One decoded `eval` line: the control word and the three source operands as raw bits.
/// Operands an instruction does not take are 0 (`b` of add/sub, whose +1.0 comes from
/// `ctrl.b_one`; `c` of mul, whose signed zero comes from `ctrl.c_zero`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub ctrl: Ctrl,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

impl Instr {
    /// Whether the result `d` is 64 bits wide (f64, f32x2) rather than 32 (everything else),
    /// which is how `fma-model eval` chooses its print width.
    pub fn result_is_64bit(&self) -> bool {
        matches!(self.ctrl.kind, Kind::F64 | Kind::F32x2)
    }
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opcode {
    Fma,
    Mad,
    Add,
    Sub,
    Mul,
    Vmad,
}

impl Opcode {
    fn parse(s: &str) -> Result<Opcode, DecodeError> {
        Ok(match s {
            "fma" => Opcode::Fma,
            "mad" => Opcode::Mad,
            "add" => Opcode::Add,
            "sub" => Opcode::Sub,
            "mul" => Opcode::Mul,
            "vmad" => Opcode::Vmad,
            "" => bail!("empty instruction"),
            _ => bail!("unknown instruction `{s}` (supported: fma, mad, add, sub, mul, vmad)"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Opcode::Fma => "fma",
            Opcode::Mad => "mad",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Vmad => "vmad",
        }
    }

    /// The source operands written on an `eval` line, in order.
    fn operands(self) -> &'static [char] {
        match self {
            Opcode::Add | Opcode::Sub => &['a', 'c'],
            Opcode::Mul => &['a', 'b'],
            Opcode::Fma | Opcode::Mad | Opcode::Vmad => &['a', 'b', 'c'],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F32,
    F64,
    F32x2,
    F16,
    Bf16,
    U32,
    S32,
}

/// Every modifier this decoder knows, in any family. Knowing the ones that belong to the other
/// family lets the message say "not allowed here" instead of "unknown".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modifier {
    Rnd(Rnd),
    Ftz,
    Sat,
    Po,
    Scale(Scale),
    Sel(Sel),
    Ty(Ty),
}

fn classify(tok: &str) -> Option<Modifier> {
    use Modifier as M;
    Some(match tok {
        "rn" => M::Rnd(Rnd::Rn),
        "rz" => M::Rnd(Rnd::Rz),
        "rm" => M::Rnd(Rnd::Rm),
        "rp" => M::Rnd(Rnd::Rp),
        "ftz" => M::Ftz,
        "sat" => M::Sat,
        "po" => M::Po,
        "shr7" => M::Scale(Scale::Shr7),
        "shr15" => M::Scale(Scale::Shr15),
        "f32" => M::Ty(Ty::F32),
        "f64" => M::Ty(Ty::F64),
        "f32x2" => M::Ty(Ty::F32x2),
        "f16" => M::Ty(Ty::F16),
        "bf16" => M::Ty(Ty::Bf16),
        "u32" => M::Ty(Ty::U32),
        "s32" => M::Ty(Ty::S32),
        _ => M::Sel(parse_sel(tok)?),
    })
}

fn parse_sel(tok: &str) -> Option<Sel> {
    Some(match tok {
        "b0" => Sel::B0,
        "b1" => Sel::B1,
        "b2" => Sel::B2,
        "b3" => Sel::B3,
        "h0" => Sel::H0,
        "h1" => Sel::H1,
        _ => return None,
    })
}

/// Splits `fma.rn.f32` into the opcode and its modifiers (without dots).
fn split_mnemonic(mnemonic: &str) -> Result<(Opcode, Vec<&str>), DecodeError> {
    let mut parts = mnemonic.split('.');
    let op = Opcode::parse(parts.next().unwrap_or(""))?;
    let mods: Vec<&str> = parts.collect();
    if mods.iter().any(|m| m.is_empty()) {
        bail!("empty modifier (stray `.`) in `{mnemonic}`");
    }
    Ok((op, mods))
}

/// Decodes an opcode with its modifiers, e.g. `fma.rn.ftz.sat.f32`, for `target`. A vmad
/// mnemonic decodes as if its operands had no negation and no selector; use [`decode_vmad`]
/// (or [`parse_line`]) to supply them.
pub fn decode(mnemonic: &str, target: Target) -> Result<Ctrl, DecodeError> {
    let (op, mods) = split_mnemonic(mnemonic)?;
    if op == Opcode::Vmad {
        decode_vmad_mods(&mods, target, VmadSrc::default())
    } else {
        decode_float(op, &mods, target)
    }
}

/// The type part of a float mnemonic, once validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FloatForm {
    F32,
    F64,
    F32x2,
    /// `.f32.f16` / `.f32.bf16`.
    Mixed(AbFmt),
}

impl FloatForm {
    fn name(self) -> &'static str {
        match self {
            FloatForm::F32 => ".f32",
            FloatForm::F64 => ".f64",
            FloatForm::F32x2 => ".f32x2",
            FloatForm::Mixed(AbFmt::Bf16) => ".f32.bf16",
            FloatForm::Mixed(_) => ".f32.f16",
        }
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
        Ty::F32x2 => ".f32x2",
        Ty::F16 => ".f16",
        Ty::Bf16 => ".bf16",
        Ty::U32 => ".u32",
        Ty::S32 => ".s32",
    }
}

fn require_sm(what: &str, min: u32, target: Target) -> Result<(), DecodeError> {
    if target.sm() < min {
        bail!("{what} requires sm_{min} or higher (target is {target})");
    }
    Ok(())
}

fn decode_float(op: Opcode, mods: &[&str], target: Target) -> Result<Ctrl, DecodeError> {
    let opn = op.name();
    let mut rnd: Option<(Rnd, &str)> = None;
    let mut ftz = false;
    let mut sat = false;
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
                bail!("`{}` is an integer type; {opn} here takes .f32, .f64, .f32x2 or .f32.f16/.f32.bf16", ty_name(t))
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
                Opcode::Fma => ".f32, .f64, .f32x2, .f32.f16 or .f32.bf16",
                Opcode::Add | Opcode::Sub => ".f32, .f64, .f32.f16 or .f32.bf16",
                _ => ".f32 or .f64",
            }
        ),
        [Ty::F32] => FloatForm::F32,
        [Ty::F64] => FloatForm::F64,
        [Ty::F32x2] => FloatForm::F32x2,
        [Ty::F32, Ty::F16] => FloatForm::Mixed(AbFmt::F16),
        [Ty::F32, Ty::Bf16] => FloatForm::Mixed(AbFmt::Bf16),
        [t @ (Ty::F16 | Ty::Bf16)] => bail!(
            "`{opn}{}` is not executed by this datapath: {} appears only as the source type of mixed precision (`{opn}.f32{}`)",
            ty_name(t), ty_name(t), ty_name(t)
        ),
        [t0, t1] => bail!(
            "unsupported type combination `{}{}` (mixed precision is .f32.f16 or .f32.bf16)",
            ty_name(t0), ty_name(t1)
        ),
        _ => unreachable!("at most two types are collected"),
    };
    let fname = form.name();

    // Which forms each opcode has at all.
    match (op, form) {
        (Opcode::Mad, FloatForm::F32x2) => bail!("mad has no .f32x2 form (only fma.f32x2)"),
        (Opcode::Add | Opcode::Sub | Opcode::Mul, FloatForm::F32x2) => {
            bail!("{opn}.f32x2 is not supported on this datapath (only fma.f32x2)")
        }
        (Opcode::Mad | Opcode::Mul, FloatForm::Mixed(_)) => {
            bail!(
                "{opn} has no mixed-precision form (only add, sub and fma take .f32.f16/.f32.bf16)"
            )
        }
        _ => {}
    }

    // Modifiers each form allows.
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
        FloatForm::F32x2 => require_sm("fma.f32x2", 100, target)?,
        FloatForm::Mixed(_) => require_sm(&format!("{opn}{fname}"), 100, target)?,
        FloatForm::F32 => {}
    }

    // Rounding modifier: required, optional with a default, or (sm_1x mad.f32) forbidden.
    let mut kind = match form {
        FloatForm::F64 => Kind::F64,
        FloatForm::F32x2 => Kind::F32x2,
        FloatForm::F32 | FloatForm::Mixed(_) => Kind::F32,
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
        // Legacy `mad.f64` maps to `mad.rn.f64` (PTX ISA notes).
        (Opcode::Mad, FloatForm::F64, None) => Rnd::Rn,
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
/// Rules, from `vmad.md`:
/// - vmad requires sm_20 or higher.
/// - Exactly three types, `.dtype.atype.btype`, each `.u32` or `.s32`, come first; `.po`, `.sat`
///   and one of `.shr7`/`.shr15` follow in any order, each at most once.
/// - `.po` allows no negated operand.
/// - The product is negated iff exactly one of `a`, `b` is negated ("negation of the product"),
///   so `-a, -b` together is accepted and means the plain product: the pseudo-code only ever
///   looks at `a.negate ^ b.negate`. Consequently `-a, -b, -c` is the allowed `(a*b) - c`.
/// - Negating both the product and `c` is not in the PTX table and is rejected.
/// - `.dtype` must match the final signedness (`signedFinal` in the pseudo-code): `.s32` iff
///   atype or btype is signed or anything is negated.
pub fn decode_vmad(mnemonic: &str, target: Target, src: VmadSrc) -> Result<Ctrl, DecodeError> {
    let (op, mods) = split_mnemonic(mnemonic)?;
    if op != Opcode::Vmad {
        bail!("decode_vmad needs a vmad mnemonic, found `{}`", op.name());
    }
    decode_vmad_mods(&mods, target, src)
}

fn decode_vmad_mods(mods: &[&str], target: Target, src: VmadSrc) -> Result<Ctrl, DecodeError> {
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
            Some(Modifier::Rnd(_) | Modifier::Ftz) => bail!("`.{m}` is not a vmad modifier"),
        }
    }
    require_sm("vmad", 20, target)?;

    if po && (src.a_neg || src.b_neg || src.c_neg) {
        bail!("vmad .po does not allow negated operands");
    }
    let neg_ab = src.a_neg ^ src.b_neg;
    let neg_c = src.c_neg;
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
    let final_signed = ctrl.signed_final();
    if d_signed != final_signed {
        let (d, f) = if d_signed {
            (".s32", "unsigned")
        } else {
            (".u32", "signed")
        };
        bail!("vmad dtype {d} disagrees with the {f} final result");
    }
    Ok(ctrl)
}

/// How one source operand is written and how wide it may be.
#[derive(Clone, Copy)]
struct OperandSpec {
    /// PTX type of the operand, for messages.
    ty: &'static str,
    bits: u32,
    /// Which PTX float-literal form (`0f` / `0d`) spells a value of this operand, if any.
    float_lit: Option<FloatLit>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatLit {
    /// `0fXXXXXXXX`.
    F32,
    /// `0dXXXXXXXXXXXXXXXX`.
    F64,
}

fn operand_spec(ctrl: &Ctrl, name: char) -> OperandSpec {
    const F32: OperandSpec = OperandSpec {
        ty: ".f32",
        bits: 32,
        float_lit: Some(FloatLit::F32),
    };
    const F64: OperandSpec = OperandSpec {
        ty: ".f64",
        bits: 64,
        float_lit: Some(FloatLit::F64),
    };
    let int = |signed: bool| OperandSpec {
        ty: if signed { ".s32" } else { ".u32" },
        bits: 32,
        float_lit: None,
    };
    match ctrl.kind {
        Kind::F64 => F64,
        Kind::F32x2 => OperandSpec {
            ty: ".f32x2",
            bits: 64,
            float_lit: None,
        },
        Kind::Vmad => match name {
            'a' => int(ctrl.a_signed),
            'b' => int(ctrl.b_signed),
            // c has the signedness of the intermediate product.
            _ => int(ctrl.a_signed || ctrl.b_signed || ctrl.neg_ab),
        },
        Kind::F32 | Kind::Sm1x => match (ctrl.ab_fmt, name) {
            (AbFmt::F16, 'a' | 'b') => OperandSpec {
                ty: ".f16",
                bits: 16,
                float_lit: None,
            },
            (AbFmt::Bf16, 'a' | 'b') => OperandSpec {
                ty: ".bf16",
                bits: 16,
                float_lit: None,
            },
            _ => F32,
        },
    }
}

/// One operand token split into its parts: `-0x12345678.h0` -> (true, "0x12345678", Some("h0")).
struct OperandTok<'a> {
    text: &'a str,
    neg: bool,
    lit: &'a str,
    sel: Option<&'a str>,
}

fn split_operand(text: &str) -> OperandTok<'_> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (lit, sel) = match body.split_once('.') {
        Some((l, s)) => (l, Some(s)),
        None => (body, None),
    };
    OperandTok {
        text,
        neg,
        lit,
        sel,
    }
}

/// Parses `0x...`, `0f` + 8 hex digits or `0d` + 16 hex digits and checks the width.
fn parse_value(tok: &OperandTok<'_>, name: char, spec: OperandSpec) -> Result<u64, DecodeError> {
    let text = tok.text;
    let hex_ok = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit());
    let lit = tok.lit;
    let (digits, form) = if let Some(d) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X"))
    {
        (d, None)
    } else if let Some(d) = lit.strip_prefix("0f").or_else(|| lit.strip_prefix("0F")) {
        (d, Some((FloatLit::F32, 8)))
    } else if let Some(d) = lit.strip_prefix("0d").or_else(|| lit.strip_prefix("0D")) {
        (d, Some((FloatLit::F64, 16)))
    } else {
        bail!("operand {name} `{text}` is not a hex literal (0x..., 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX)");
    };
    if !hex_ok(digits) {
        bail!("operand {name} `{text}` is not a hex literal (0x..., 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX)");
    }
    if let Some((fl, len)) = form {
        let (pfx, fty) = match fl {
            FloatLit::F32 => ("0f", ".f32"),
            FloatLit::F64 => ("0d", ".f64"),
        };
        if digits.len() != len {
            bail!("operand {name} `{text}`: a `{pfx}` literal has exactly {len} hex digits");
        }
        if spec.float_lit != Some(fl) {
            bail!(
                "operand {name} `{text}`: a `{pfx}` literal is {fty}, but operand {name} is {}",
                spec.ty
            );
        }
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 16 {
        bail!(
            "operand {name} `{text}` is wider than {} ({} bits)",
            spec.ty,
            spec.bits
        );
    }
    let v = if significant.is_empty() {
        0
    } else {
        u64::from_str_radix(significant, 16).expect("checked hex digits, at most 16")
    };
    if spec.bits < 64 && v >> spec.bits != 0 {
        bail!(
            "operand {name} `{text}` is wider than {} ({} bits)",
            spec.ty,
            spec.bits
        );
    }
    Ok(v)
}

/// Splits the operand list: operands are separated by commas and/or white space; an empty
/// operand between commas is an error rather than silently skipped.
fn split_operands(rest: &str) -> Result<Vec<&str>, DecodeError> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for piece in rest.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            bail!("empty operand (stray comma)");
        }
        out.extend(piece.split_whitespace());
    }
    Ok(out)
}

/// Parses one `eval` line: a mnemonic followed by hex source operands (no destination), e.g.
/// `fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000` or
/// `vmad.u32.u32.u32.shr15 0x12345678.h0, 0x9abcdef0.h0, 0x00000003;`.
///
/// add/sub take `a, c`; mul takes `a, b`; everything else `a, b, c`. vmad operands may carry a
/// leading `-` (negation) and a `.b0`..`.b3`/`.h0`/`.h1` selector on `a` and `b`; the hex value is
/// the register's bits, so `-0x5` is "negate the register holding 5". Operand widths are checked
/// against their PTX types (16 bits for f16/bf16, 32 for f32/u32/s32, 64 for f64/f32x2).
pub fn parse_line(line: &str, target: Target) -> Result<Instr, DecodeError> {
    let s = line.trim();
    let s = s.strip_suffix(';').unwrap_or(s).trim_end();
    if s.is_empty() {
        bail!("empty instruction");
    }
    let split = s
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(s.len());
    let (mnemonic, rest) = s.split_at(split);
    let (op, mods) = split_mnemonic(mnemonic)?;
    let names = op.operands();
    let toks: Vec<OperandTok<'_>> = split_operands(rest)?
        .into_iter()
        .map(split_operand)
        .collect();
    let expected = |found: usize| -> DecodeError {
        let list: Vec<String> = names.iter().map(char::to_string).collect();
        DecodeError::new(format!(
            "expected {} operands, found {found} ({} takes {})",
            names.len(),
            op.name(),
            list.join(", ")
        ))
    };

    let ctrl = if op == Opcode::Vmad {
        if toks.len() != names.len() {
            return Err(expected(toks.len()));
        }
        let sel = |t: &OperandTok<'_>, name: char| -> Result<Sel, DecodeError> {
            match t.sel {
                None => Ok(Sel::W),
                Some(s) if name == 'c' => {
                    bail!("operand c `{}`: c takes no selector (`.{s}`)", t.text)
                }
                Some(s) => match parse_sel(s) {
                    Some(v) => Ok(v),
                    None => bail!(
                        "operand {name} `{}`: unknown selector `.{s}` (expected .b0, .b1, .b2, .b3, .h0 or .h1)",
                        t.text
                    ),
                },
            }
        };
        sel(&toks[2], 'c')?;
        let src = VmadSrc {
            a_neg: toks[0].neg,
            b_neg: toks[1].neg,
            c_neg: toks[2].neg,
            asel: sel(&toks[0], 'a')?,
            bsel: sel(&toks[1], 'b')?,
        };
        decode_vmad_mods(&mods, target, src)?
    } else {
        let ctrl = decode_float(op, &mods, target)?;
        if toks.len() != names.len() {
            return Err(expected(toks.len()));
        }
        for (t, &name) in toks.iter().zip(names) {
            if t.neg {
                bail!(
                    "operand {name} `{}`: negation (`-`) is only allowed on vmad operands",
                    t.text
                );
            }
        }
        ctrl
    };

    let mut vals = [0u64; 3];
    for (t, &name) in toks.iter().zip(names) {
        let v = parse_value(t, name, operand_spec(&ctrl, name))?;
        if op != Opcode::Vmad {
            if let Some(s) = t.sel {
                bail!(
                    "operand {name} `{}`: selectors (`.{s}`) are only allowed on vmad a and b",
                    t.text
                );
            }
        }
        vals[(name as u8 - b'a') as usize] = v;
    }
    Ok(Instr {
        ctrl,
        a: vals[0],
        b: vals[1],
        c: vals[2],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Target {
        Target::parse(s).unwrap()
    }

    fn ok(m: &str, target: &str) -> Ctrl {
        decode(m, t(target)).unwrap_or_else(|e| panic!("`{m}` on {target}: {e}"))
    }

    /// Asserts that `m` is rejected on `target` with a message containing every `needle`.
    fn err(m: &str, target: &str, needles: &[&str]) {
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

    fn line_err(l: &str, target: &str, needles: &[&str]) {
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
    /// `sat`, `b_one`, `c_zero`, `neg_c`, `f16`, `bf16`); everything else off.
    fn fw(kind: Kind, rnd: Rnd, flags: &str) -> Ctrl {
        let has = |f: &str| flags.split_whitespace().any(|x| x == f);
        for f in flags.split_whitespace() {
            assert!(
                ["ftz", "sat", "b_one", "c_zero", "neg_c", "f16", "bf16"].contains(&f),
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
        }
    }

    const RNDS: [(&str, Rnd); 4] = [
        ("rn", Rnd::Rn),
        ("rz", Rnd::Rz),
        ("rm", Rnd::Rm),
        ("rp", Rnd::Rp),
    ];

    // ---- targets ----

    #[test]
    fn targets_parse_and_print() {
        for s in [
            "sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_30", "sm_35", "sm_50",
            "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100",
            "sm_100a", "sm_100f", "sm_101", "sm_103a", "sm_120", "sm_120f", "sm_121a",
        ] {
            assert_eq!(t(s).to_string(), s);
        }
        assert_eq!(t("sm_13").sm(), 13);
        assert_eq!(t("sm_90a").sm(), 90);
        assert!(t("sm_13").is_sm1x());
        assert!(!t("sm_20").is_sm1x());
        assert_eq!(Target::default(), t("sm_100"));
    }

    #[test]
    fn bad_targets_are_rejected() {
        for s in [
            "",
            "sm",
            "sm_",
            "sm_14",
            "sm_013",
            "sm_1000",
            "SM_90",
            "compute_90",
            "sm_80a",
            "sm_90f",
            "sm_90x",
            "sm_a",
            "sm_-1",
            " sm_90",
        ] {
            let e = Target::parse(s).expect_err(s);
            assert!(e.message().contains("unknown target"), "{s}: {e}");
        }
        assert!(Target::parse("sm_80a")
            .unwrap_err()
            .message()
            .contains("sm_90 and sm_100+"));
        assert!(Target::parse("sm_14")
            .unwrap_err()
            .message()
            .contains("not a PTX target"));
    }

    // ---- fma / mad, f32 ----

    #[test]
    fn fma_f32_every_modifier_combination() {
        for (rs, r) in RNDS {
            for ftz in [false, true] {
                for sat in [false, true] {
                    let m = format!(
                        "fma.{rs}{}{}.f32",
                        if ftz { ".ftz" } else { "" },
                        if sat { ".sat" } else { "" }
                    );
                    let want = Ctrl {
                        ftz,
                        sat,
                        ..fw(Kind::F32, r, "")
                    };
                    for target in ["sm_20", "sm_90", "sm_100", "sm_120"] {
                        assert_eq!(ok(&m, target), want, "{m} {target}");
                    }
                    // mad.rnd.f32 is the same operation on sm_20+.
                    assert_eq!(ok(&m.replacen("fma", "mad", 1), "sm_20"), want);
                }
            }
        }
    }

    #[test]
    fn modifiers_before_the_type_in_any_order() {
        let want = fw(Kind::F32, Rnd::Rz, "ftz sat");
        for m in [
            "fma.rz.ftz.sat.f32",
            "fma.sat.ftz.rz.f32",
            "fma.ftz.rz.sat.f32",
            "fma.sat.rz.ftz.f32",
        ] {
            assert_eq!(ok(m, "sm_100"), want, "{m}");
        }
    }

    #[test]
    fn fma_f32_needs_sm20_and_a_rounding_modifier() {
        err(
            "fma.rn.f32",
            "sm_13",
            &["fma.f32 requires sm_20 or higher", "target is sm_13"],
        );
        err("fma.rn.f32", "sm_10", &["fma.f32 requires sm_20"]);
        err("fma.f32", "sm_90", &["requires a rounding modifier"]);
        err(
            "fma.ftz.sat.f32",
            "sm_100",
            &["requires a rounding modifier"],
        );
    }

    #[test]
    fn mad_f32_sm1x_is_the_truncating_form() {
        let want = |ftz, sat| Ctrl {
            ftz,
            sat,
            ..fw(Kind::Sm1x, Rnd::Rn, "")
        };
        for target in ["sm_10", "sm_11", "sm_12", "sm_13"] {
            assert_eq!(ok("mad.f32", target), want(false, false));
            assert_eq!(ok("mad.ftz.f32", target), want(true, false));
            assert_eq!(ok("mad.sat.f32", target), want(false, true));
            assert_eq!(ok("mad.ftz.sat.f32", target), want(true, true));
            assert_eq!(ok("mad.sat.ftz.f32", target), want(true, true));
            // Flushing is part of Sm1x whether or not `.ftz` was written.
            assert!(ok("mad.f32", target).flush());
            for (rs, _) in RNDS {
                err(
                    &format!("mad.{rs}.f32"),
                    target,
                    &[
                        "rounding modifiers on mad.f32 require sm_20",
                        &format!("target is {target}"),
                    ],
                );
            }
        }
    }

    #[test]
    fn mad_f32_sm20_requires_rounding() {
        for target in ["sm_20", "sm_21", "sm_90", "sm_100"] {
            err(
                "mad.f32",
                target,
                &["mad.f32 on sm_20+ requires a rounding modifier"],
            );
            err(
                "mad.ftz.sat.f32",
                target,
                &["mad.f32 on sm_20+ requires a rounding modifier"],
            );
        }
    }

    // ---- f64 ----

    #[test]
    fn f64_forms() {
        for (rs, r) in RNDS {
            let want = fw(Kind::F64, r, "");
            for target in ["sm_13", "sm_20", "sm_100"] {
                assert_eq!(ok(&format!("fma.{rs}.f64"), target), want);
                assert_eq!(ok(&format!("mad.{rs}.f64"), target), want);
            }
        }
        // Legacy mad.f64 = mad.rn.f64.
        assert_eq!(ok("mad.f64", "sm_13"), fw(Kind::F64, Rnd::Rn, ""));
        assert_eq!(ok("mad.f64", "sm_100"), ok("mad.rn.f64", "sm_100"));
    }

    #[test]
    fn f64_errors() {
        err(
            "fma.rn.f64",
            "sm_12",
            &["fma.f64 requires sm_13 or higher", "target is sm_12"],
        );
        err("mad.rn.f64", "sm_10", &["mad.f64 requires sm_13 or higher"]);
        err("mad.f64", "sm_12", &["mad.f64 requires sm_13"]);
        err("add.f64", "sm_12", &["add.f64 requires sm_13"]);
        err("mul.rz.f64", "sm_11", &["mul.f64 requires sm_13"]);
        err(
            "fma.f64",
            "sm_100",
            &["fma.f64 requires a rounding modifier"],
        );
        for op in ["fma.rn", "mad.rn", "mad", "add", "sub.rz", "mul"] {
            err(
                &format!("{op}.sat.f64"),
                "sm_100",
                &["`.sat` is not allowed on .f64"],
            );
            err(
                &format!("{op}.ftz.f64"),
                "sm_100",
                &["`.ftz` is not allowed on .f64"],
            );
        }
    }

    // ---- f32x2 ----

    #[test]
    fn f32x2_forms() {
        for (rs, r) in RNDS {
            for target in ["sm_100", "sm_100a", "sm_101", "sm_120"] {
                assert_eq!(
                    ok(&format!("fma.{rs}.f32x2"), target),
                    fw(Kind::F32x2, r, "")
                );
                assert_eq!(
                    ok(&format!("fma.{rs}.ftz.f32x2"), target),
                    fw(Kind::F32x2, r, "ftz")
                );
            }
        }
    }

    #[test]
    fn f32x2_errors() {
        err(
            "fma.rn.f32x2",
            "sm_90",
            &["fma.f32x2 requires sm_100 or higher (target is sm_90)"],
        );
        err(
            "fma.rn.f32x2",
            "sm_90a",
            &["fma.f32x2 requires sm_100 or higher (target is sm_90a)"],
        );
        err(
            "fma.rn.sat.f32x2",
            "sm_100",
            &["`.sat` is not allowed on .f32x2"],
        );
        err(
            "fma.f32x2",
            "sm_100",
            &["fma.f32x2 requires a rounding modifier"],
        );
        err("mad.rn.f32x2", "sm_100", &["mad has no .f32x2 form"]);
        err("add.f32x2", "sm_100", &["add.f32x2 is not supported"]);
        err("mul.rn.f32x2", "sm_100", &["mul.f32x2 is not supported"]);
    }

    // ---- mixed precision ----

    #[test]
    fn mixed_precision_forms() {
        for (ts, ab) in [("f16", AbFmt::F16), ("bf16", AbFmt::Bf16)] {
            for sat in [false, true] {
                let s = if sat { ".sat" } else { "" };
                // add/sub default to .rn.
                assert_eq!(
                    ok(&format!("add{s}.f32.{ts}"), "sm_100"),
                    Ctrl {
                        sat,
                        ab_fmt: ab,
                        ..fw(Kind::F32, Rnd::Rn, "b_one")
                    }
                );
                assert_eq!(
                    ok(&format!("sub{s}.f32.{ts}"), "sm_100"),
                    Ctrl {
                        sat,
                        ab_fmt: ab,
                        ..fw(Kind::F32, Rnd::Rn, "b_one neg_c")
                    }
                );
                for (rs, r) in RNDS {
                    assert_eq!(
                        ok(&format!("add.{rs}{s}.f32.{ts}"), "sm_120"),
                        Ctrl {
                            sat,
                            ab_fmt: ab,
                            ..fw(Kind::F32, r, "b_one")
                        }
                    );
                    assert_eq!(
                        ok(&format!("sub.{rs}{s}.f32.{ts}"), "sm_100"),
                        Ctrl {
                            sat,
                            ab_fmt: ab,
                            ..fw(Kind::F32, r, "b_one neg_c")
                        }
                    );
                    assert_eq!(
                        ok(&format!("fma.{rs}{s}.f32.{ts}"), "sm_100"),
                        Ctrl {
                            sat,
                            ab_fmt: ab,
                            ..fw(Kind::F32, r, "")
                        }
                    );
                }
            }
        }
        // .sat after both types, as in the PTX example.
        assert_eq!(
            ok("add.rz.f32.bf16.sat", "sm_100"),
            ok("add.rz.sat.f32.bf16", "sm_100")
        );
        assert_eq!(
            ok("sub.rz.f32.f16.sat", "sm_100"),
            ok("sub.rz.sat.f32.f16", "sm_100")
        );
        assert_eq!(
            ok("fma.rz.f32.f16.sat", "sm_100"),
            ok("fma.rz.sat.f32.f16", "sm_100")
        );
    }

    #[test]
    fn mixed_precision_errors() {
        err(
            "add.f32.f16",
            "sm_90",
            &["add.f32.f16 requires sm_100 or higher (target is sm_90)"],
        );
        err(
            "sub.rn.f32.bf16",
            "sm_89",
            &["sub.f32.bf16 requires sm_100"],
        );
        err("fma.rn.f32.f16", "sm_90a", &["fma.f32.f16 requires sm_100"]);
        err(
            "add.ftz.f32.f16",
            "sm_100",
            &["`.ftz` is not allowed on mixed-precision add"],
        );
        err(
            "sub.rn.ftz.f32.bf16",
            "sm_100",
            &["`.ftz` is not allowed on mixed-precision sub"],
        );
        err(
            "fma.rn.ftz.f32.f16",
            "sm_100",
            &["`.ftz` is not allowed on mixed-precision fma"],
        );
        err(
            "fma.f32.f16",
            "sm_100",
            &["fma.f32.f16 requires a rounding modifier"],
        );
        err(
            "mul.f32.f16",
            "sm_100",
            &["mul has no mixed-precision form"],
        );
        err(
            "mad.rn.f32.bf16",
            "sm_100",
            &["mad has no mixed-precision form"],
        );
        // The PTX example `fma.rz.sat.f32.f16.sat` repeats .sat: rejected.
        err(
            "fma.rz.sat.f32.f16.sat",
            "sm_100",
            &["duplicate modifier `.sat`"],
        );
        err(
            "add.f32.sat.f16",
            "sm_100",
            &["`.sat` must come before the type"],
        );
        err(
            "add.f16",
            "sm_100",
            &["only as the source type of mixed precision"],
        );
        err("fma.rn.bf16", "sm_100", &["not executed by this datapath"]);
        err(
            "add.f16.f32",
            "sm_100",
            &["unsupported type combination `.f16.f32`"],
        );
        err("add.f64.f16", "sm_100", &["unsupported type combination"]);
        err("add.f32.f16.bf16", "sm_100", &["too many types"]);
        err(
            "add.f32.f16.rn",
            "sm_100",
            &["`.rn` must come before the type"],
        );
    }

    // ---- add / sub / mul ----

    #[test]
    fn add_sub_mul_forms() {
        for target in ["sm_20", "sm_100"] {
            assert_eq!(ok("add.f32", target), fw(Kind::F32, Rnd::Rn, "b_one"));
            assert_eq!(ok("sub.f32", target), fw(Kind::F32, Rnd::Rn, "b_one neg_c"));
            assert_eq!(ok("mul.f32", target), fw(Kind::F32, Rnd::Rn, "c_zero"));
            for (rs, r) in RNDS {
                assert_eq!(
                    ok(&format!("add.{rs}.ftz.sat.f32"), target),
                    fw(Kind::F32, r, "ftz sat b_one")
                );
                assert_eq!(
                    ok(&format!("sub.{rs}.sat.f32"), target),
                    fw(Kind::F32, r, "sat b_one neg_c")
                );
                assert_eq!(
                    ok(&format!("mul.{rs}.ftz.f32"), target),
                    fw(Kind::F32, r, "ftz c_zero")
                );
                assert_eq!(
                    ok(&format!("add.{rs}.f64"), target),
                    fw(Kind::F64, r, "b_one")
                );
                assert_eq!(
                    ok(&format!("sub.{rs}.f64"), target),
                    fw(Kind::F64, r, "b_one neg_c")
                );
                assert_eq!(
                    ok(&format!("mul.{rs}.f64"), target),
                    fw(Kind::F64, r, "c_zero")
                );
            }
            assert_eq!(ok("mul.f64", target), fw(Kind::F64, Rnd::Rn, "c_zero"));
        }
    }

    #[test]
    fn add_sub_mul_sm1x_flush_and_round_to_rn_or_rz() {
        for target in ["sm_10", "sm_13"] {
            // ftz is implied on sm_1x, written or not.
            assert_eq!(ok("add.f32", target), fw(Kind::F32, Rnd::Rn, "ftz b_one"));
            assert_eq!(ok("add.ftz.f32", target), ok("add.f32", target));
            assert_eq!(
                ok("sub.rz.sat.f32", target),
                fw(Kind::F32, Rnd::Rz, "ftz sat b_one neg_c")
            );
            assert_eq!(
                ok("mul.rn.f32", target),
                fw(Kind::F32, Rnd::Rn, "ftz c_zero")
            );
            for op in ["add", "sub", "mul"] {
                for rs in ["rm", "rp"] {
                    err(
                        &format!("{op}.{rs}.f32"),
                        target,
                        &[&format!("`.{rs}` on {op}.f32 requires sm_20 or higher")],
                    );
                }
            }
        }
        // f64 on sm_13 has all four rounding modes and no forced flush.
        assert_eq!(ok("mul.rp.f64", "sm_13"), fw(Kind::F64, Rnd::Rp, "c_zero"));
    }

    // ---- syntax errors common to the float forms ----

    #[test]
    fn float_syntax_errors() {
        err("fma.rx.f32", "sm_100", &["unknown modifier `.rx`"]);
        err(
            "fma.rn.ftz.ftz.f32",
            "sm_100",
            &["duplicate modifier `.ftz`"],
        );
        err("fma.rn.rn.f32", "sm_100", &["duplicate modifier `.rn`"]);
        err(
            "fma.rn.rz.f32",
            "sm_100",
            &["conflicting rounding modifiers `.rn` and `.rz`"],
        );
        err(
            "fma.rn.sat.sat.f32",
            "sm_100",
            &["duplicate modifier `.sat`"],
        );
        err("fma.rn.f32.f32", "sm_100", &["duplicate modifier `.f32`"]);
        err("fma.rn", "sm_100", &["missing type"]);
        err("add", "sm_100", &["missing type"]);
        err(
            "fma.rn.f32.ftz",
            "sm_100",
            &["`.ftz` must come before the type"],
        );
        err("fma.f32.rn", "sm_100", &["`.rn` must come before the type"]);
        err(
            "fma.rn.f32.sat",
            "sm_100",
            &["`.sat` must come before the type"],
        );
        err("fma.rn.u32", "sm_100", &["integer type"]);
        err(
            "fma.rn.po.f32",
            "sm_100",
            &["`.po` is only allowed on vmad"],
        );
        err(
            "mad.rn.shr7.f32",
            "sm_100",
            &["`.shr7` is only allowed on vmad"],
        );
        err("fma.rn.h0.f32", "sm_100", &["vmad operand selector"]);
        err("fma..rn.f32", "sm_100", &["empty modifier"]);
        err("fma.rn.f32.", "sm_100", &["empty modifier"]);
        err("fmax.rn.f32", "sm_100", &["unknown instruction `fmax`"]);
        err("FMA.rn.f32", "sm_100", &["unknown instruction `FMA`"]);
        err("div.rn.f32", "sm_100", &["unknown instruction `div`"]);
        err("", "sm_100", &["empty instruction"]);
        err(".rn.f32", "sm_100", &["empty instruction"]);
        err("fma.rn.f16x2", "sm_100", &["unknown modifier `.f16x2`"]);
    }

    // ---- vmad ----

    fn vmad(m: &str, src: VmadSrc) -> Result<Ctrl, DecodeError> {
        decode_vmad(m, t("sm_100"), src)
    }

    fn negs(a: bool, b: bool, c: bool) -> VmadSrc {
        VmadSrc {
            a_neg: a,
            b_neg: b,
            c_neg: c,
            ..VmadSrc::default()
        }
    }

    /// A vmad control word written field by field.
    #[allow(clippy::too_many_arguments)]
    fn vw(
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
        }
    }

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
            // The other dtype disagrees with the final signedness.
            let other = if dt == "u32" { "s32" } else { "u32" };
            let e = vmad(&format!("vmad.{other}.{at}.{bt}"), negs(an, bn, cn)).unwrap_err();
            let want_msg = if dt == "u32" {
                "vmad dtype .s32 disagrees with the unsigned final result"
            } else {
                "vmad dtype .u32 disagrees with the signed final result"
            };
            assert_eq!(e.message(), want_msg);
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
        assert!(vmad("vmad.u32.u32.u32", negs(true, true, true))
            .unwrap_err()
            .message()
            .contains("disagrees with the signed final"));
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
            negs(true, true, false),
        ] {
            let e = vmad("vmad.s32.s32.s32.po", src).unwrap_err();
            assert!(
                e.message()
                    .contains("vmad .po does not allow negated operands"),
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

    // ---- parse_line ----

    #[test]
    fn lines_with_operands() {
        let i = parse_line(
            "fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000",
            Target::default(),
        )
        .unwrap();
        assert_eq!((i.a, i.b, i.c), (1, 0x3f80_0000, 0x8000_0000));
        assert_eq!(i.ctrl, fw(Kind::F32, Rnd::Rz, "ftz"));
        assert!(!i.result_is_64bit());

        // Commas, extra space, trailing semicolon, upper-case X and hex digits.
        let j = parse_line(
            "  fma.rz.ftz.f32  0X1,0x3F800000 ,  0x80000000 ; ",
            Target::default(),
        )
        .unwrap();
        assert_eq!(j, i);

        // Float literal forms.
        let k = parse_line(
            "fma.rz.ftz.f32 0f00000001 0F3f800000 0f80000000",
            Target::default(),
        )
        .unwrap();
        assert_eq!(k, i);
        let d = parse_line(
            "fma.rn.f64 0d3ff0000000000000 0x4000000000000000 0D8000000000000000",
            Target::default(),
        )
        .unwrap();
        assert_eq!(
            (d.a, d.b, d.c),
            (
                0x3ff0_0000_0000_0000,
                0x4000_0000_0000_0000,
                0x8000_0000_0000_0000
            )
        );
        assert!(d.result_is_64bit());

        let x2 = parse_line(
            "fma.rn.f32x2 0xffffffffffffffff 0x0 0x0000000100000000",
            Target::default(),
        )
        .unwrap();
        assert_eq!((x2.a, x2.b, x2.c), (u64::MAX, 0, 1 << 32));
        assert!(x2.result_is_64bit());

        // add/sub take a, c with b = 0; mul takes a, b with c = 0.
        let a = parse_line("add.f32 0x3f800000 0x40000000", Target::default()).unwrap();
        assert_eq!((a.a, a.b, a.c), (0x3f80_0000, 0, 0x4000_0000));
        assert!(a.ctrl.b_one);
        let s = parse_line("sub.rn.f32.f16 0x3c00, 0x3f800000;", Target::default()).unwrap();
        assert_eq!((s.a, s.b, s.c), (0x3c00, 0, 0x3f80_0000));
        assert_eq!(s.ctrl, fw(Kind::F32, Rnd::Rn, "f16 b_one neg_c"));
        let m = parse_line("mul.rm.f64 0x1 0x2", Target::default()).unwrap();
        assert_eq!((m.a, m.b, m.c), (1, 2, 0));
        let f = parse_line(
            "fma.rn.f32.bf16 0xffff 0x3f80 0xffffffff",
            Target::default(),
        )
        .unwrap();
        assert_eq!((f.a, f.b, f.c), (0xffff, 0x3f80, 0xffff_ffff));

        // sm_1x mad.
        let s1 = parse_line("mad.sat.f32 0x3f800000 0x3f800000 0x0", t("sm_13")).unwrap();
        assert_eq!(s1.ctrl.kind, Kind::Sm1x);
        assert!(!s1.result_is_64bit());
    }

    #[test]
    fn vmad_lines() {
        let v = parse_line(
            "vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 0x00000003",
            Target::default(),
        )
        .unwrap();
        assert_eq!((v.a, v.b, v.c), (0x1234_5678, 0x9abc_def0, 3));
        assert_eq!(
            v.ctrl,
            vw(
                false,
                false,
                false,
                false,
                false,
                false,
                Scale::Shr15,
                Sel::H0,
                Sel::H0
            )
        );
        assert!(!v.result_is_64bit());

        let n = parse_line("vmad.s32.s32.s32 -0x5, 0x7.b3, 0x3", Target::default()).unwrap();
        assert_eq!((n.a, n.b, n.c), (5, 7, 3));
        assert_eq!(
            n.ctrl,
            vw(
                true,
                true,
                true,
                false,
                false,
                false,
                Scale::None,
                Sel::W,
                Sel::B3
            )
        );

        let both = parse_line("vmad.s32.u32.u32 -0x5.b1 -0x7.h1 -0x3", Target::default()).unwrap();
        assert_eq!(
            both.ctrl,
            vw(
                false,
                false,
                false,
                true,
                false,
                false,
                Scale::None,
                Sel::B1,
                Sel::H1
            )
        );

        let po = parse_line(
            "vmad.u32.u32.u32.po.sat 0xffffffff 0xffffffff 0xffffffff",
            Target::default(),
        )
        .unwrap();
        assert_eq!(
            po.ctrl,
            vw(
                false,
                false,
                false,
                false,
                true,
                true,
                Scale::None,
                Sel::W,
                Sel::W
            )
        );
    }

    #[test]
    fn line_errors() {
        let d = "sm_100";
        line_err("", d, &["empty instruction"]);
        line_err(";", d, &["empty instruction"]);
        line_err("fma.rn.f32 0x1 0x2", d, &["expected 3 operands, found 2"]);
        line_err(
            "fma.rn.f32 0x1 0x2 0x3 0x4",
            d,
            &["expected 3 operands, found 4"],
        );
        line_err("fma.rn.f32", d, &["expected 3 operands, found 0"]);
        line_err(
            "add.f32 0x1 0x2 0x3",
            d,
            &["expected 2 operands, found 3", "add takes a, c"],
        );
        line_err(
            "mul.f32 0x1",
            d,
            &["expected 2 operands, found 1", "mul takes a, b"],
        );
        line_err(
            "vmad.u32.u32.u32 0x1 0x2",
            d,
            &["expected 3 operands, found 2"],
        );
        line_err("fma.rn.f32 0x1,,0x2 0x3", d, &["empty operand"]);
        line_err("fma.rn.f32 0x1, 0x2, 0x3,", d, &["empty operand"]);
        line_err("fma.rn.f32,0x1, 0x2, 0x3", d, &["empty operand"]);
        // Widths.
        line_err(
            "fma.rn.f32 0x1ffffffff 0x0 0x0",
            d,
            &["operand a", "wider than .f32 (32 bits)"],
        );
        line_err(
            "fma.rn.f32 0x0 0x0 0x100000000",
            d,
            &["operand c", "wider than .f32"],
        );
        line_err(
            "add.f32.f16 0x10000 0x0",
            d,
            &["operand a", "wider than .f16 (16 bits)"],
        );
        line_err(
            "fma.rn.f32.bf16 0x0 0x10000 0x0",
            d,
            &["operand b", "wider than .bf16 (16 bits)"],
        );
        line_err(
            "add.f32.f16 0x0 0x100000000",
            d,
            &["operand c", "wider than .f32"],
        );
        line_err(
            "fma.rn.f64 0x0 0x0 0x10000000000000000",
            d,
            &["operand c", "wider than .f64 (64 bits)"],
        );
        line_err(
            "fma.rn.f32x2 0x10000000000000000 0x0 0x0",
            d,
            &["wider than .f32x2 (64 bits)"],
        );
        line_err(
            "vmad.u32.u32.u32 0x100000000 0x0 0x0",
            d,
            &["operand a", "wider than .u32 (32 bits)"],
        );
        line_err(
            "vmad.s32.u32.s32 0x0 0x0 0x100000000",
            d,
            &["operand c", "wider than .s32"],
        );
        // Leading zeros do not count towards the width.
        assert_eq!(
            parse_line("add.f32.f16 0x00000000ffff 0x0", t(d))
                .unwrap()
                .a,
            0xffff
        );
        // Literal forms.
        line_err(
            "fma.rn.f32 1 0x0 0x0",
            d,
            &["operand a `1` is not a hex literal"],
        );
        line_err("fma.rn.f32 1.0 0x0 0x0", d, &["not a hex literal"]);
        line_err("fma.rn.f32 0x 0x0 0x0", d, &["not a hex literal"]);
        line_err("fma.rn.f32 0xg 0x0 0x0", d, &["not a hex literal"]);
        line_err("fma.rn.f32 %r1 0x0 0x0", d, &["not a hex literal"]);
        line_err("fma.rn.f32 0f3f80000 0x0 0x0", d, &["exactly 8 hex digits"]);
        line_err(
            "fma.rn.f32 0d3ff0000000000000 0x0 0x0",
            d,
            &["`0d` literal is .f64, but operand a is .f32"],
        );
        line_err(
            "fma.rn.f64 0f3f800000 0x0 0x0",
            d,
            &["`0f` literal is .f32, but operand a is .f64"],
        );
        line_err(
            "fma.rn.f32x2 0f3f800000 0x0 0x0",
            d,
            &["operand a is .f32x2"],
        );
        line_err("add.f32.f16 0f3f800000 0x0", d, &["operand a is .f16"]);
        line_err(
            "vmad.u32.u32.u32 0f3f800000 0x0 0x0",
            d,
            &["operand a is .u32"],
        );
        line_err(
            "fma.rn.f64 0d3ff00000 0x0 0x0",
            d,
            &["exactly 16 hex digits"],
        );
        // Negation and selectors only on vmad.
        line_err(
            "fma.rn.f32 -0x1 0x0 0x0",
            d,
            &["negation (`-`) is only allowed on vmad"],
        );
        line_err(
            "fma.rn.f32 0x1.h0 0x0 0x0",
            d,
            &["selectors (`.h0`) are only allowed on vmad"],
        );
        line_err(
            "vmad.u32.u32.u32 0x1 0x2 0x3.h0",
            d,
            &["c takes no selector"],
        );
        line_err(
            "vmad.u32.u32.u32 0x1.h2 0x2 0x3",
            d,
            &["unknown selector `.h2`"],
        );
        line_err("vmad.u32.u32.u32 0x1. 0x2 0x3", d, &["unknown selector"]);
        // Decode errors still come through.
        line_err(
            "vmad.s32.s32.s32 -0x5 0x7 -0x3",
            d,
            &["vmad cannot negate both the product and c"],
        );
        line_err(
            "vmad.s32.s32.s32.po -0x5 0x7 0x3",
            d,
            &["vmad .po does not allow negated operands"],
        );
        line_err(
            "vmad.u32.u32.u32 -0x5 0x7 0x3",
            d,
            &["vmad dtype .u32 disagrees with the signed final result"],
        );
        line_err(
            "fma.rn.f32x2 0x0 0x0 0x0",
            "sm_90",
            &["fma.f32x2 requires sm_100"],
        );
        line_err(
            "mad.f32 0x0 0x0 0x0",
            "sm_20",
            &["requires a rounding modifier"],
        );
        line_err(
            "@p fma.rn.f32 0x0 0x0 0x0",
            d,
            &["unknown instruction `@p`"],
        );
    }
}

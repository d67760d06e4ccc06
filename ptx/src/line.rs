//! The `fma-model eval` line: a mnemonic followed by hex operands in place of registers.

use super::error::{bail, DecodeError};
use super::float::decode_float;
use super::mnemonic::{parse_sel, split_mnemonic, Opcode};
use super::target::Target;
use super::vmad::{decode_vmad_mods, VmadSrc};
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Sel};

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
        self.result_bits() == 64
    }

    /// The width of the result: 64 for f64 and f32x2, 16 for one half-precision lane, 32 for
    /// the rest (two half lanes, binary32, vmad).
    pub fn result_bits(&self) -> u32 {
        match self.ctrl.kind {
            Kind::F64 | Kind::F32x2 => 64,
            Kind::Half => 16,
            _ => 32,
        }
    }
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
        Kind::Half | Kind::Half2 => {
            let x2 = ctrl.kind == Kind::Half2;
            OperandSpec {
                ty: match (ctrl.ab_fmt == AbFmt::Bf16, x2) {
                    (false, false) => ".f16",
                    (true, false) => ".bf16",
                    (false, true) => ".f16x2",
                    (true, true) => ".bf16x2",
                },
                bits: if x2 { 32 } else { 16 },
                float_lit: None,
            }
        }
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
    use super::super::test_util::*;
    use crate::*;
    use ptxfma_model::ctrl::{Kind, Rnd, Scale, Sel};

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
            &["vmad .po does not allow a negated product or c"],
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

//! Berkeley TestFloat vectors (`testfloat_gen` output): the functions this pipe executes, their
//! line format, and how a result is compared with the expected one.
//!
//! Read by `fma-model check` (the model alone) and by `fma-cosim run --vectors` (the RTL and the
//! model in lockstep), so both read a corpus the same way.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_ptx::quote::quote;
use ptxfma_ptx::same_result;

/// A TestFloat function that is one PTX instruction on this pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    F32MulAdd,
    F64MulAdd,
    F32Add,
    F64Add,
    F32Sub,
    F64Sub,
    F32Mul,
    F64Mul,
}

impl Func {
    pub const ALL: [Func; 8] = [
        Func::F32MulAdd,
        Func::F64MulAdd,
        Func::F32Add,
        Func::F64Add,
        Func::F32Sub,
        Func::F64Sub,
        Func::F32Mul,
        Func::F64Mul,
    ];

    /// TestFloat's name (`f32_mulAdd`).
    pub fn name(self) -> &'static str {
        match self {
            Func::F32MulAdd => "f32_mulAdd",
            Func::F64MulAdd => "f64_mulAdd",
            Func::F32Add => "f32_add",
            Func::F64Add => "f64_add",
            Func::F32Sub => "f32_sub",
            Func::F64Sub => "f64_sub",
            Func::F32Mul => "f32_mul",
            Func::F64Mul => "f64_mul",
        }
    }

    pub fn parse(s: &str) -> Result<Func, String> {
        Func::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Func::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unsupported function `{}` (supported: {})",
                    quote(s),
                    names.join(", ")
                )
            })
    }

    fn is_f64(self) -> bool {
        matches!(
            self,
            Func::F64MulAdd | Func::F64Add | Func::F64Sub | Func::F64Mul
        )
    }

    /// Source operands on a line: 3 for mulAdd, 2 for the others.
    pub fn operands(self) -> usize {
        match self {
            Func::F32MulAdd | Func::F64MulAdd => 3,
            _ => 2,
        }
    }

    /// The PTX instruction (`fma`, `add`, `sub` or `mul` with the rounding mode, no `.ftz`,
    /// no `.sat`) as this pipe's control word.
    pub fn ctrl(self, rnd: Rnd) -> Ctrl {
        let kind = if self.is_f64() { Kind::F64 } else { Kind::F32 };
        let mut c = Ctrl::fma(kind, rnd);
        match self {
            Func::F32Add | Func::F64Add => c.b_one = true,
            Func::F32Sub | Func::F64Sub => {
                c.b_one = true;
                c.neg_c = true;
            }
            Func::F32Mul | Func::F64Mul => c.c_zero = true,
            Func::F32MulAdd | Func::F64MulAdd => {}
        }
        c
    }

    /// Hex digits testfloat_gen prints for each operand and the result.
    pub fn digits(self) -> usize {
        if self.is_f64() {
            16
        } else {
            8
        }
    }

    pub fn is_nan(self, v: u64) -> bool {
        if self.is_f64() {
            f64::from_bits(v).is_nan()
        } else {
            // An f32 result must also have bits 63:32 clear; a NaN with junk above is no match.
            v >> 32 == 0 && f32::from_bits(v as u32).is_nan()
        }
    }

    /// The value, for a mismatch report.
    pub fn show(self, v: u64) -> String {
        if self.is_f64() {
            format!("{:e}", f64::from_bits(v))
        } else if v >> 32 == 0 {
            format!("{:e}", f32::from_bits(v as u32))
        } else {
            "not an f32".into()
        }
    }

    /// Whether the pipe's result `got` matches TestFloat's `expected`: bit for bit, except that
    /// any NaN matches any NaN unless `strict_nan` (TestFloat's NaNs follow SoftFloat's x86
    /// convention, PTX's follow decisions S1/S2): for f32 that is [`same_result`]; for f64 the
    /// payloads S2 fixes are TestFloat's to differ on, so any f64 NaN matches too.
    pub fn matches(self, got: u64, expected: u64, strict_nan: bool) -> bool {
        if self.is_f64() {
            got == expected || (!strict_nan && self.is_nan(got) && self.is_nan(expected))
        } else {
            same_result(&self.ctrl(Rnd::Rn), got, expected, strict_nan)
        }
    }
}

/// TestFloat's name of a rounding mode (`-rmin` is `min`).
pub fn parse_rounding(mode: &str) -> Result<Rnd, String> {
    match mode {
        "near_even" => Ok(Rnd::Rn),
        "minMag" => Ok(Rnd::Rz),
        "min" => Ok(Rnd::Rm),
        "max" => Ok(Rnd::Rp),
        "near_maxMag" | "odd" => Err(format!(
            "rounding mode `-r{mode}` has no PTX counterpart (PTX has rn, rz, rm, rp)"
        )),
        _ => Err(format!(
            "unknown rounding mode `-r{}` (TestFloat's are near_even, minMag, min, max)",
            quote(mode)
        )),
    }
}

/// One TestFloat case, operands placed on the pipe's ports (`add`/`sub` take `a, c`, `mul`
/// takes `a, b`, as the PTX instructions do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub line: usize,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub expected: u64,
}

fn parse_hex(field: &str, what: &str, func: Func) -> Result<u64, String> {
    let digits = func.digits();
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{what} `{}` is not a hex number", quote(field)));
    }
    if field.len() != digits {
        return Err(format!(
            "{what} `{}` has {} hex digits; {} wants {digits}",
            quote(field),
            field.len(),
            func.name()
        ));
    }
    u64::from_str_radix(field, 16).map_err(|e| format!("{what} `{}`: {e}", quote(field)))
}

/// Parses one line (`a b c expected flags`, or `a b expected flags` for add/sub/mul); `Ok(None)`
/// for a blank one. The flags are checked for form but not returned: this pipe has none.
pub fn parse_line(text: &str, line: usize, func: Func) -> Result<Option<Case>, String> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if fields.is_empty() {
        return Ok(None);
    }
    let n = func.operands();
    if fields.len() != n + 2 {
        let names = if n == 3 { "a b c" } else { "a b" };
        return Err(format!(
            "expected {} fields ({names} expected flags), found {}",
            n + 2,
            fields.len()
        ));
    }
    let ops: Vec<u64> = ["operand a", "operand b", "operand c"][..n]
        .iter()
        .zip(&fields)
        .map(|(what, f)| parse_hex(f, what, func))
        .collect::<Result<_, _>>()?;
    let expected = parse_hex(fields[n], "expected result", func)?;
    let flags = fields[n + 1];
    if flags.is_empty() || flags.len() > 2 || !flags.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "flags `{}` are not 1 or 2 hex digits",
            quote(flags)
        ));
    }
    let (a, b, c) = match func {
        Func::F32MulAdd | Func::F64MulAdd => (ops[0], ops[1], ops[2]),
        Func::F32Mul | Func::F64Mul => (ops[0], ops[1], 0),
        _ => (ops[0], 0, ops[1]),
    };
    Ok(Some(Case {
        line,
        a,
        b,
        c,
        expected,
    }))
}

/// Opens a corpus, gunzipping it when it starts with the gzip magic bytes, so `.gz` files and
/// gzipped stdin need no flag. `None` is stdin.
pub fn open(input: Option<&Path>) -> io::Result<Box<dyn BufRead>> {
    let raw: Box<dyn Read> = match input {
        Some(path) => Box::new(File::open(path)?),
        None => Box::new(io::stdin()),
    };
    let mut buf = BufReader::with_capacity(1 << 16, raw);
    let head = buf.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(buf),
        )))
    } else {
        Ok(Box::new(buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_place_operands_on_the_instructions_ports() {
        let c = parse_line("3F800000 40000000 40400000 40A00000 00", 7, Func::F32MulAdd)
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.line, c.a, c.b, c.c, c.expected),
            (7, 0x3F80_0000, 0x4000_0000, 0x4040_0000, 0x40A0_0000)
        );
        let c = parse_line("3F800000 40000000 40400000 00", 1, Func::F32Add)
            .unwrap()
            .unwrap();
        assert_eq!((c.a, c.b, c.c), (0x3F80_0000, 0, 0x4000_0000));
        let c = parse_line("3F800000 40000000 40000000 01", 1, Func::F32Mul)
            .unwrap()
            .unwrap();
        assert_eq!((c.a, c.b, c.c), (0x3F80_0000, 0x4000_0000, 0));
        assert_eq!(parse_line("   ", 1, Func::F64Sub), Ok(None));
        for (bad, func) in [
            ("3F800000 40000000 40400000 00", Func::F32MulAdd),
            ("3F800000 40000000 40400000 40A00000 00", Func::F32Add),
            ("3F80000 40000000 40400000 00", Func::F32Add),
            ("3F800000 4000000G 40400000 00", Func::F32Sub),
            ("3F800000 40000000 40400000 100", Func::F32Add),
        ] {
            assert!(parse_line(bad, 1, func).is_err(), "{bad}");
        }
    }

    #[test]
    fn functions_are_the_ptx_instructions() {
        use ptxfma_ptx::{decode, Target};
        let t = Target::default();
        for (f, ptx) in [
            (Func::F32MulAdd, "fma.rm.f32"),
            (Func::F64MulAdd, "fma.rm.f64"),
            (Func::F32Add, "add.rm.f32"),
            (Func::F64Add, "add.rm.f64"),
            (Func::F32Sub, "sub.rm.f32"),
            (Func::F64Sub, "sub.rm.f64"),
            (Func::F32Mul, "mul.rm.f32"),
            (Func::F64Mul, "mul.rm.f64"),
        ] {
            assert_eq!(f.ctrl(Rnd::Rm), decode(ptx, t).unwrap(), "{ptx}");
            assert_eq!(Func::parse(f.name()), Ok(f));
        }
        assert!(Func::parse("f16_mulAdd").is_err());
    }

    #[test]
    fn nans_match_any_nan_unless_strict() {
        let f = Func::F32MulAdd;
        assert!(f.matches(0x7FC0_0000, 0xFFC0_0000, false));
        assert!(!f.matches(0x7FC0_0000, 0xFFC0_0000, true));
        assert!(!f.matches(0x1_7FC0_0000, 0x7FC0_0000, false));
        assert!(!f.matches(0x7F80_0000, 0x7FC0_0000, false));
        assert!(Func::F64Add.matches(0x7FF8_0000_0000_0001, 0x7FF8_0000_0000_0000, false));
    }

    #[test]
    fn rounding_names() {
        assert_eq!(parse_rounding("min"), Ok(Rnd::Rm));
        assert_eq!(parse_rounding("minMag"), Ok(Rnd::Rz));
        assert!(parse_rounding("odd").is_err());
        assert!(parse_rounding("\x1b").unwrap_err().contains("\\u{1b}"));
    }
}

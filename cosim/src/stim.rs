//! TEMPORARY stand-in for `ptxfma_model::stimulus`, which is being written elsewhere. It has
//! the same shape (`Stimulus::new(seed, filter)` yielding `Vector { ctrl, a, b, c }`, `Family`
//! with `name`/`parse`, `ptx_spelling`, `operand_text`) so that the co-simulator can switch by
//! replacing this module with `pub use ptxfma_model::stimulus as stim;` (plus `eval_line` and
//! `target` if the real module lacks them). Its operands are only lightly edge-biased.

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};

/// Instruction families: each co-simulation segment runs one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// `fma.rnd{.ftz}{.sat}.f32` (and `mad.rnd` .f32, the same operation).
    FmaF32,
    /// `fma.rnd.f64`.
    FmaF64,
    /// `fma.rnd{.ftz}.f32x2`.
    FmaF32x2,
    /// `add/sub/fma .f32.{f16,bf16}`.
    Mixed,
    /// sm_1x `mad{.ftz}{.sat}.f32`.
    Sm1x,
    /// `add/sub/mul{.rnd}{.ftz}{.sat}.f32`.
    ArithF32,
    /// `add/sub/mul{.rnd}.f64`.
    ArithF64,
    /// `vmad`.
    Vmad,
}

impl Family {
    pub const ALL: [Family; 8] = [
        Family::FmaF32,
        Family::FmaF64,
        Family::FmaF32x2,
        Family::Mixed,
        Family::Sm1x,
        Family::ArithF32,
        Family::ArithF64,
        Family::Vmad,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::FmaF32 => "fma.f32",
            Family::FmaF64 => "fma.f64",
            Family::FmaF32x2 => "fma.f32x2",
            Family::Mixed => "mixed",
            Family::Sm1x => "sm1x",
            Family::ArithF32 => "arith.f32",
            Family::ArithF64 => "arith.f64",
            Family::Vmad => "vmad",
        }
    }

    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// One operation: the control word and the raw operand bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector {
    pub ctrl: Ctrl,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

/// Deterministic stream of vectors drawn from the families in the filter.
pub struct Stimulus {
    rng: Rng,
    families: Vec<Family>,
}

impl Stimulus {
    /// An empty filter means every family.
    pub fn new(seed: u64, filter: &[Family]) -> Stimulus {
        Stimulus {
            rng: Rng::new(seed),
            families: if filter.is_empty() {
                Family::ALL.to_vec()
            } else {
                filter.to_vec()
            },
        }
    }
}

impl Iterator for Stimulus {
    type Item = Vector;

    fn next(&mut self) -> Option<Vector> {
        let r = &mut self.rng;
        let fam = self.families[r.below(self.families.len() as u64) as usize];
        let rnd = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp][r.below(4) as usize];
        let mut c = Ctrl::fma(Kind::F32, rnd);
        let (mut a, mut b, mut cc);
        match fam {
            Family::FmaF32 | Family::ArithF32 | Family::Sm1x => {
                c.ftz = r.bit();
                c.sat = r.bit();
                if fam == Family::Sm1x {
                    c.kind = Kind::Sm1x;
                    c.rnd = Rnd::Rn;
                }
                if fam == Family::ArithF32 {
                    arith(r, &mut c);
                }
                a = f32_operand(r);
                b = f32_operand(r);
                cc = f32_operand(r);
                if r.below(8) == 0 {
                    cc = cancel32(a, b, r);
                }
            }
            Family::FmaF64 | Family::ArithF64 => {
                c.kind = Kind::F64;
                if fam == Family::ArithF64 {
                    arith(r, &mut c);
                }
                a = f64_operand(r);
                b = f64_operand(r);
                cc = f64_operand(r);
                if r.below(8) == 0 {
                    cc = (-(f64::from_bits(a) * f64::from_bits(b))).to_bits() ^ r.below(4);
                }
            }
            Family::FmaF32x2 => {
                c.kind = Kind::F32x2;
                c.ftz = r.bit();
                a = f32_operand(r) | f32_operand(r) << 32;
                b = f32_operand(r) | f32_operand(r) << 32;
                cc = f32_operand(r) | f32_operand(r) << 32;
            }
            Family::Mixed => {
                c.ab_fmt = if r.bit() { AbFmt::F16 } else { AbFmt::Bf16 };
                c.sat = r.bit();
                match r.below(3) {
                    0 => c.b_one = true,
                    1 => {
                        c.b_one = true;
                        c.neg_c = true;
                    }
                    _ => {}
                }
                a = r.next_u64() & 0xFFFF;
                b = r.next_u64() & 0xFFFF;
                cc = f32_operand(r);
            }
            Family::Vmad => {
                c = Ctrl {
                    kind: Kind::Vmad,
                    rnd: Rnd::Rn,
                    a_signed: r.bit(),
                    b_signed: r.bit(),
                    asel: SELS[r.below(7) as usize],
                    bsel: SELS[r.below(7) as usize],
                    sat: r.bit(),
                    scale: [Scale::None, Scale::Shr7, Scale::Shr15][r.below(3) as usize],
                    ..Ctrl::default()
                };
                match r.below(4) {
                    0 => c.neg_ab = true,
                    1 => c.neg_c = true,
                    2 => c.po = true,
                    _ => {}
                }
                a = r.next_u64() & 0xFFFF_FFFF;
                b = r.next_u64() & 0xFFFF_FFFF;
                cc = r.next_u64() & 0xFFFF_FFFF;
            }
        }
        // Unused operand bits are driven with noise: the datapath must ignore them.
        if c.ab_fmt != AbFmt::Native {
            a |= r.next_u64() & !0xFFFF;
            b |= r.next_u64() & !0xFFFF;
        }
        Some(Vector {
            ctrl: c,
            a,
            b,
            c: cc,
        })
    }
}

const SELS: [Sel; 7] = [Sel::W, Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1];

fn arith(r: &mut Rng, c: &mut Ctrl) {
    match r.below(3) {
        0 => c.b_one = true,
        1 => {
            c.b_one = true;
            c.neg_c = true;
        }
        _ => c.c_zero = true,
    }
}

fn f32_operand(r: &mut Rng) -> u64 {
    const EDGE: [u32; 12] = [
        0x0000_0000,
        0x8000_0000,
        0x3F80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0x0000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x7F7F_FFFF,
        0x3F7F_FFFF,
    ];
    let v = match r.below(8) {
        0 => EDGE[r.below(EDGE.len() as u64) as usize],
        1 => (r.next_u64() as u32) & 0x807F_FFFF, // subnormal or zero
        2 => ((r.below(64) as u32 + 95) << 23) | (r.next_u64() as u32 & 0x807F_FFFF), // near 1
        _ => r.next_u64() as u32,
    };
    v as u64
}

fn f64_operand(r: &mut Rng) -> u64 {
    const EDGE: [u64; 8] = [
        0,
        0x8000_0000_0000_0000,
        0x3FF0_0000_0000_0000,
        0x7FF0_0000_0000_0000,
        0x7FF8_0000_0000_0000,
        0x0000_0000_0000_0001,
        0x0010_0000_0000_0000,
        0x7FEF_FFFF_FFFF_FFFF,
    ];
    match r.below(8) {
        0 => EDGE[r.below(EDGE.len() as u64) as usize],
        1 => r.next_u64() & 0x800F_FFFF_FFFF_FFFF,
        2 => ((r.below(128) + 959) << 52) | (r.next_u64() & 0x800F_FFFF_FFFF_FFFF),
        _ => r.next_u64(),
    }
}

/// A c close to -a*b (exact product in f64), so the sum cancels heavily.
fn cancel32(a: u64, b: u64, r: &mut Rng) -> u64 {
    let p = f32::from_bits(a as u32) as f64 * f32::from_bits(b as u32) as f64;
    ((-p) as f32).to_bits() as u64 ^ r.below(4)
}

/// The instruction's opcode and modifiers in PTX spelling, e.g. `fma.rz.ftz.f32`,
/// `add.rn.sat.f32.bf16`, `vmad.s32.u32.s32.sat.shr7`.
pub fn ptx_spelling(c: &Ctrl) -> String {
    let rnd = match c.rnd {
        Rnd::Rn => ".rn",
        Rnd::Rz => ".rz",
        Rnd::Rm => ".rm",
        Rnd::Rp => ".rp",
    };
    let ftz = if c.ftz { ".ftz" } else { "" };
    let sat = if c.sat { ".sat" } else { "" };
    let op = if c.b_one {
        if c.neg_c {
            "sub"
        } else {
            "add"
        }
    } else if c.c_zero {
        "mul"
    } else {
        "fma"
    };
    match c.kind {
        Kind::F32 if c.ab_fmt != AbFmt::Native => {
            let t = if c.ab_fmt == AbFmt::F16 {
                "f16"
            } else {
                "bf16"
            };
            format!("{op}{rnd}{sat}.f32.{t}")
        }
        Kind::F32 => format!("{op}{rnd}{ftz}{sat}.f32"),
        Kind::F64 => format!("{op}{rnd}.f64"),
        Kind::F32x2 => format!("{op}{rnd}{ftz}.f32x2"),
        Kind::Sm1x => format!("mad{ftz}{sat}.f32"),
        Kind::Vmad => {
            let t = |s: bool| if s { "s32" } else { "u32" };
            let po = if c.po { ".po" } else { "" };
            let scale = match c.scale {
                Scale::None => "",
                Scale::Shr7 => ".shr7",
                Scale::Shr15 => ".shr15",
            };
            format!(
                "vmad.{}.{}.{}{po}{sat}{scale}",
                t(c.signed_final()),
                t(c.a_signed),
                t(c.b_signed)
            )
        }
    }
}

/// The PTX target an instruction needs when it is not the default (`sm_100`).
pub fn target(c: &Ctrl) -> Option<&'static str> {
    (c.kind == Kind::Sm1x).then_some("sm_13")
}

/// Operand `which` (0 = a, 1 = b, 2 = c) as written in a `fma-model eval` line: hex, with
/// vmad's negation and selector (`-0x12345678.h0`).
pub fn operand_text(c: &Ctrl, which: usize, v: u64) -> String {
    let digits = match c.kind {
        Kind::F64 | Kind::F32x2 => 16,
        Kind::F32 if which < 2 && c.ab_fmt != AbFmt::Native => 4,
        _ => 8,
    };
    let mask = if digits == 16 {
        u64::MAX
    } else {
        (1u64 << (4 * digits)) - 1
    };
    let hex = format!("0x{:0digits$x}", v & mask);
    if c.kind != Kind::Vmad {
        return hex;
    }
    let neg = (which == 0 && c.neg_ab) || (which == 2 && c.neg_c);
    let sel = match (which, if which == 0 { c.asel } else { c.bsel }) {
        (2, _) | (_, Sel::W) => "",
        (_, Sel::B0) => ".b0",
        (_, Sel::B1) => ".b1",
        (_, Sel::B2) => ".b2",
        (_, Sel::B3) => ".b3",
        (_, Sel::H0) => ".h0",
        (_, Sel::H1) => ".h1",
    };
    format!("{}{hex}{sel}", if neg { "-" } else { "" })
}

/// Which operands the PTX spelling takes (add/sub take a and c; mul takes a and b).
pub fn operands(c: &Ctrl) -> &'static [usize] {
    if c.kind == Kind::Vmad {
        &[0, 1, 2]
    } else if c.b_one {
        &[0, 2]
    } else if c.c_zero {
        &[0, 1]
    } else {
        &[0, 1, 2]
    }
}

/// The whole instruction as one `fma-model eval` line, e.g. `fma.rz.f32 0x3f800000 ...`.
pub fn eval_line(v: &Vector) -> String {
    let mut s = ptx_spelling(&v.ctrl);
    let ops = [v.a, v.b, v.c];
    for &i in operands(&v.ctrl) {
        s.push(' ');
        s.push_str(&operand_text(&v.ctrl, i, ops[i]));
    }
    s
}

/// splitmix64: small, fast, and good enough for stimulus.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    pub fn bit(&mut self) -> bool {
        self.next_u64() & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_filtered() {
        let a: Vec<Vector> = Stimulus::new(7, &[Family::Vmad]).take(100).collect();
        let b: Vec<Vector> = Stimulus::new(7, &[Family::Vmad]).take(100).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|v| v.ctrl.kind == Kind::Vmad));
    }

    #[test]
    fn spellings() {
        let mut c = Ctrl::fma(Kind::F32, Rnd::Rz);
        c.ftz = true;
        assert_eq!(ptx_spelling(&c), "fma.rz.ftz.f32");
        c.b_one = true;
        c.neg_c = true;
        c.ftz = false;
        c.ab_fmt = AbFmt::Bf16;
        assert_eq!(ptx_spelling(&c), "sub.rz.f32.bf16");
        let v = Vector {
            ctrl: c,
            a: 0x1234_3f80,
            b: 0,
            c: 0x4000_0000,
        };
        assert_eq!(eval_line(&v), "sub.rz.f32.bf16 0x3f80 0x40000000");
        let vm = Ctrl {
            kind: Kind::Vmad,
            a_signed: true,
            neg_ab: true,
            asel: Sel::H1,
            scale: Scale::Shr15,
            ..Ctrl::default()
        };
        assert_eq!(ptx_spelling(&vm), "vmad.s32.s32.u32.shr15");
        assert_eq!(operand_text(&vm, 0, 0xdead_beef), "-0xdeadbeef.h1");
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
        }
    }
}

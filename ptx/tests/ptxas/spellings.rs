//! The FMA-pipe spelling space, enumerated: each spelling as a PTX instruction with registers of
//! the right types (for `ptxas`) and as an `fma-model eval` line with hex operands (for the
//! decoder).

/// One spelling, written both ways.
pub struct Spelling {
    /// The instruction for `ptxas`: `fma.rn.f32 %f0, %f1, %f2, %f3;`.
    pub ptx: String,
    /// The same instruction for the decoder: `fma.rn.f32 0x3f800000 0x3f800000 0x3f800000`.
    pub eval: String,
    /// The part of the space it comes from: `float`, `half` or `vmad`.
    pub family: &'static str,
}

pub const FLOAT_OPCODES: [&str; 5] = ["fma", "mad", "add", "sub", "mul"];
/// No rounding modifier, the four IEEE directions, and two that are not float roundings.
pub const ROUNDINGS: [&str; 7] = ["", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni"];
/// The datapath's float types, then types no FMA-pipe instruction takes.
pub const FLOAT_TYPES: [&str; 11] = [
    ".f32",
    ".f64",
    ".f32x2",
    ".f32.f16",
    ".f32.bf16",
    ".b32",
    ".f64.f32",
    ".f16.f32",
    ".f32.f32",
    ".f32.f64",
    ".f64x2",
];
pub const INT_TYPES: [&str; 2] = [".u32", ".s32"];
/// The half-precision types, then one no instruction takes.
pub const HALF_TYPES: [&str; 5] = [".f16", ".f16x2", ".bf16", ".bf16x2", ".bf16x4"];
/// The half-precision modifiers after the rounding: every subset, in this order and reversed.
pub const HALF_MODIFIERS: [&str; 4] = [".ftz", ".sat", ".relu", ".oob"];
pub const SCALES: [&str; 3] = ["", ".shr7", ".shr15"];
pub const SELECTORS: [&str; 7] = ["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];

/// A register class: its PTX declaration, register prefix, and the hex digits of an operand.
#[derive(Clone, Copy)]
struct Class {
    prefix: &'static str,
    digits: usize,
}

const F32: Class = Class {
    prefix: "%f",
    digits: 8,
};
const F64: Class = Class {
    prefix: "%fd",
    digits: 16,
};
const B64: Class = Class {
    prefix: "%rd",
    digits: 16,
};
const F16: Class = Class {
    prefix: "%h",
    digits: 4,
};
const B16: Class = Class {
    prefix: "%hb",
    digits: 4,
};
const B32: Class = Class {
    prefix: "%r",
    digits: 8,
};

/// The register declarations the body needs.
pub const DECLARATIONS: &str = ".reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n.reg .b64 %rd<4>;\n\
                                .reg .f16 %h<4>;\n.reg .b16 %hb<4>;\n.reg .b32 %r<4>;\n";

/// Destination and a, b, c classes of a float type suffix.
fn float_classes(ty: &str) -> [Class; 4] {
    match ty {
        ".f64" => [F64; 4],
        ".f32x2" => [B64; 4],
        ".f32.f16" => [F32, F16, F16, F32],
        ".f32.bf16" => [F32, B16, B16, F32],
        _ => [F32; 4],
    }
}

/// The source registers an opcode reads: add/sub a and c, mul a and b, fma/mad all three.
fn sources(op: &str) -> &'static [usize] {
    match op {
        "add" | "sub" => &[1, 3],
        "mul" => &[1, 2],
        _ => &[1, 2, 3],
    }
}

/// Every float spelling: opcode x rounding x `.ftz` x `.sat` x type, in that order.
fn floats(out: &mut Vec<Spelling>) {
    for op in FLOAT_OPCODES {
        let sources = sources(op);
        for rnd in ROUNDINGS {
            for ftz in ["", ".ftz"] {
                for sat in ["", ".sat"] {
                    for ty in FLOAT_TYPES {
                        let mnemonic = format!("{op}{rnd}{ftz}{sat}{ty}");
                        let class = float_classes(ty);
                        let regs: Vec<String> = std::iter::once(0)
                            .chain(sources.iter().copied())
                            .map(|i| format!("{}{}", class[i].prefix, i))
                            .collect();
                        let hex: Vec<String> = sources
                            .iter()
                            .map(|&i| format!("0x{}", "1".repeat(class[i].digits)))
                            .collect();
                        out.push(Spelling {
                            ptx: format!("{mnemonic} {};", regs.join(", ")),
                            eval: format!("{mnemonic} {}", hex.join(" ")),
                            family: "float",
                        });
                    }
                }
            }
        }
    }
}

/// Every half-precision spelling: opcode x rounding (none, the four, `.rna`) x every subset of
/// `.ftz .sat .relu .oob` (in that order and reversed) x type.
fn halves(out: &mut Vec<Spelling>) {
    for op in FLOAT_OPCODES {
        let sources = sources(op);
        for rnd in ["", ".rn", ".rz", ".rm", ".rp", ".rna"] {
            let mut orders = Vec::new();
            for set in 0..16u32 {
                let mods: Vec<&str> = (0..4)
                    .filter(|i| set >> i & 1 == 1)
                    .map(|i| HALF_MODIFIERS[i])
                    .collect();
                orders.push(mods.concat());
                if mods.len() > 1 {
                    orders.push(mods.iter().rev().copied().collect::<String>());
                }
            }
            for mods in &orders {
                for ty in HALF_TYPES {
                    let mnemonic = format!("{op}{rnd}{mods}{ty}");
                    let class = if ty.ends_with("x2") || ty.ends_with("x4") {
                        B32
                    } else {
                        B16
                    };
                    let regs: Vec<String> = std::iter::once(0)
                        .chain(sources.iter().copied())
                        .map(|i| format!("{}{}", class.prefix, i))
                        .collect();
                    let hex: Vec<String> = sources
                        .iter()
                        .map(|_| format!("0x{}", "1".repeat(class.digits)))
                        .collect();
                    out.push(Spelling {
                        ptx: format!("{mnemonic} {};", regs.join(", ")),
                        eval: format!("{mnemonic} {}", hex.join(" ")),
                        family: "half",
                    });
                }
            }
        }
    }
}

/// The whole vmad syntax: dtype x atype x btype x `.po` x `.sat` x scale x a negation on each
/// of a, b, c x the a and b selectors (37,632 spellings).
fn vmads(out: &mut Vec<Spelling>) {
    for dt in INT_TYPES {
        for at in INT_TYPES {
            for bt in INT_TYPES {
                for po in ["", ".po"] {
                    for sat in ["", ".sat"] {
                        for scale in SCALES {
                            let mnemonic = format!("vmad{dt}{at}{bt}{po}{sat}{scale}");
                            for neg in 0..8 {
                                let n = |bit: u32| if neg >> bit & 1 == 1 { "-" } else { "" };
                                for asel in SELECTORS {
                                    for bsel in SELECTORS {
                                        let (na, nb, nc) = (n(0), n(1), n(2));
                                        out.push(Spelling {
                                            ptx: format!(
                                                "{mnemonic} {p}0, {na}{p}1{asel}, \
                                                 {nb}{p}2{bsel}, {nc}{p}3;",
                                                p = B32.prefix
                                            ),
                                            eval: format!(
                                                "{mnemonic} {na}0x11111111{asel}, \
                                                 {nb}0x22222222{bsel}, {nc}0x33333333"
                                            ),
                                            family: "vmad",
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The spelling space: floats, half precision, vmad.
pub fn enumerate() -> Vec<Spelling> {
    let mut out = Vec::new();
    floats(&mut out);
    halves(&mut out);
    vmads(&mut out);
    out
}

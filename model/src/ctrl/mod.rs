//! The control word: the one decoded form of an instruction that both the model and the RTL
//! consume. Its bit layout is fixed by `docs/microarchitecture.md` (section "Control word") and by
//! `ptxfma_pkg::ctrl_t` in the RTL, which is generated from [`CTRL_FIELDS`]; [`Ctrl::encode`] /
//! [`Ctrl::decode`] use the same positions.

pub mod legal;

use crate::format::{Fmt, BF16, F16, F32, F64};

/// Declares a field enum of the control word with its codes, and lists its variants (with
/// their names) for the RTL package generator, which names them `PREFIX_VARIANT`.
macro_rules! coded_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident { $( $(#[doc = $vdoc:literal])* $v:ident = $code:literal ),* $(,)? }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[doc = $vdoc])* $v = $code ),* }

        impl $name {
            /// Every variant with its name, in code order.
            pub const VARIANTS: &'static [($name, &'static str)] =
                &[ $( ($name::$v, stringify!($v)) ),* ];
        }
    };
}

coded_enum! {
    /// Datapath kind: which operation family flows down the pipe.
    pub enum Kind {
        /// IEEE binary32 fused multiply-add (also mixed precision, add/sub/mul .f32).
        F32 = 0,
        /// IEEE binary64 fused multiply-add (also add/sub/mul .f64).
        F64 = 1,
        /// Two independent binary32 lanes, lane 0 in bits 31:0 (`fma.rnd.f32x2`).
        F32x2 = 2,
        /// sm_1x `mad.f32`: product truncated to 24 bits, exponent unbounded (decision S7).
        Sm1x = 3,
        /// Integer `vmad`.
        Vmad = 4,
        /// One half-precision lane in bits 15:0, every operand and the result in the format
        /// `ab_fmt` names (binary16, or bfloat16): `fma/add/sub/mul .f16/.bf16`.
        Half = 5,
        /// Two independent half-precision lanes, lane 0 in bits 15:0 and lane 1 in 31:16
        /// (`.f16x2`, `.bf16x2`).
        Half2 = 6,
    }
}

coded_enum! {
    /// IEEE rounding direction, encoded as the RTL's `rnd_e`.
    pub enum Rnd {
        Rn = 0,
        Rz = 1,
        Rm = 2,
        Rp = 3,
    }
}

coded_enum! {
    /// Source format of `a` (and `b`, unless `b_one`) for the f32 kinds; for the half kinds the
    /// format of every operand and of the result (`Native` acts as `F16` there).
    pub enum AbFmt {
        /// The kind's own format (binary32 or binary64).
        Native = 0,
        /// IEEE binary16 in bits 15:0, converted exactly to binary32.
        F16 = 1,
        /// bfloat16 in bits 15:0, converted exactly to binary32.
        Bf16 = 2,
    }
}

coded_enum! {
    /// vmad byte/half/word selector of one source operand.
    pub enum Sel {
        B0 = 0,
        B1 = 1,
        B2 = 2,
        B3 = 3,
        H0 = 4,
        H1 = 5,
        /// No selector: the whole 32-bit word.
        W = 6,
    }
}

coded_enum! {
    /// vmad scaling of the intermediate result.
    pub enum Scale {
        None = 0,
        Shr7 = 1,
        Shr15 = 2,
    }
}

/// The decoded control word. Field meanings are in `docs/microarchitecture.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ctrl {
    pub kind: Kind,
    pub rnd: Rnd,
    pub ftz: bool,
    pub sat: bool,
    pub ab_fmt: AbFmt,
    /// `b` is replaced by +1.0 (add/sub on the FMA datapath).
    pub b_one: bool,
    /// `c` is replaced by a signed zero: -0, or +0 under `.rm` (mul on the FMA datapath).
    pub c_zero: bool,
    /// `c` is negated (sub; vmad `-c`).
    pub neg_c: bool,
    /// vmad only: the product is negated (exactly one of `-a`, `-b`).
    pub neg_ab: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub asel: Sel,
    pub bsel: Sel,
    /// vmad `.po` (plus one).
    pub po: bool,
    pub scale: Scale,
    /// Half kinds: a negative result becomes +0 and a NaN the canonical NaN (`.relu`).
    pub relu: bool,
    /// Half kinds: a lane whose `a` or `b` is the OOB NaN gives +0 (`.oob`, S12).
    pub oob: bool,
    /// Half kind: the sum is rounded to binary32 in `rnd`'s direction, then to the half format
    /// to nearest (what an H100 computes for `fma.{rz,rm,rp}.bf16`, S13).
    pub via_f32: bool,
}

/// Width of the encoded control word in bits.
pub const CTRL_BITS: u32 = 27;

/// Where each field of the control word starts (its least significant bit).
mod at {
    pub const KIND: u32 = 0;
    pub const RND: u32 = 3;
    pub const FTZ: u32 = 5;
    pub const SAT: u32 = 6;
    pub const AB_FMT: u32 = 7;
    pub const B_ONE: u32 = 9;
    pub const C_ZERO: u32 = 10;
    pub const NEG_C: u32 = 11;
    pub const NEG_AB: u32 = 12;
    pub const A_SIGNED: u32 = 13;
    pub const B_SIGNED: u32 = 14;
    pub const ASEL: u32 = 15;
    pub const BSEL: u32 = 18;
    pub const PO: u32 = 21;
    pub const SCALE: u32 = 22;
    pub const RELU: u32 = 24;
    pub const OOB: u32 = 25;
    pub const VIA_F32: u32 = 26;
}

/// A field of the control word, as the RTL's `ctrl_t` declares it.
#[derive(Clone, Copy, Debug)]
pub struct CtrlField {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    /// The RTL type: an enum of the package, or `None` for a one-bit `logic`.
    pub rtl_type: Option<&'static str>,
}

/// The control word's fields, least significant first: the positions [`Ctrl::encode`] and
/// [`Ctrl::decode`] use, and what the RTL package's `ctrl_t` is generated from.
pub const CTRL_FIELDS: &[CtrlField] = &[
    CtrlField {
        name: "kind",
        lsb: at::KIND,
        width: 3,
        rtl_type: Some("kind_e"),
    },
    CtrlField {
        name: "rnd",
        lsb: at::RND,
        width: 2,
        rtl_type: Some("rnd_e"),
    },
    CtrlField {
        name: "ftz",
        lsb: at::FTZ,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "sat",
        lsb: at::SAT,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "ab_fmt",
        lsb: at::AB_FMT,
        width: 2,
        rtl_type: Some("ab_fmt_e"),
    },
    CtrlField {
        name: "b_one",
        lsb: at::B_ONE,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "c_zero",
        lsb: at::C_ZERO,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "neg_c",
        lsb: at::NEG_C,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "neg_ab",
        lsb: at::NEG_AB,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "a_signed",
        lsb: at::A_SIGNED,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "b_signed",
        lsb: at::B_SIGNED,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "asel",
        lsb: at::ASEL,
        width: 3,
        rtl_type: Some("sel_e"),
    },
    CtrlField {
        name: "bsel",
        lsb: at::BSEL,
        width: 3,
        rtl_type: Some("sel_e"),
    },
    CtrlField {
        name: "po",
        lsb: at::PO,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "scale",
        lsb: at::SCALE,
        width: 2,
        rtl_type: Some("scale_e"),
    },
    CtrlField {
        name: "relu",
        lsb: at::RELU,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "oob",
        lsb: at::OOB,
        width: 1,
        rtl_type: None,
    },
    CtrlField {
        name: "via_f32",
        lsb: at::VIA_F32,
        width: 1,
        rtl_type: None,
    },
];

impl Default for Ctrl {
    fn default() -> Self {
        Ctrl::decode(0)
    }
}

impl Ctrl {
    /// A plain `fma.<rnd>.<kind>` control word with every modifier off.
    pub fn fma(kind: Kind, rnd: Rnd) -> Ctrl {
        Ctrl {
            kind,
            rnd,
            ..Ctrl::default()
        }
    }

    /// Packs the fields into the [`CTRL_BITS`]-bit layout shared with the RTL.
    pub fn encode(&self) -> u32 {
        (self.kind as u32) << at::KIND
            | (self.rnd as u32) << at::RND
            | (self.ftz as u32) << at::FTZ
            | (self.sat as u32) << at::SAT
            | (self.ab_fmt as u32) << at::AB_FMT
            | (self.b_one as u32) << at::B_ONE
            | (self.c_zero as u32) << at::C_ZERO
            | (self.neg_c as u32) << at::NEG_C
            | (self.neg_ab as u32) << at::NEG_AB
            | (self.a_signed as u32) << at::A_SIGNED
            | (self.b_signed as u32) << at::B_SIGNED
            | (self.asel as u32) << at::ASEL
            | (self.bsel as u32) << at::BSEL
            | (self.po as u32) << at::PO
            | (self.scale as u32) << at::SCALE
            | (self.relu as u32) << at::RELU
            | (self.oob as u32) << at::OOB
            | (self.via_f32 as u32) << at::VIA_F32
    }

    /// Unpacks a control word exactly as the RTL reads it: reserved codes fall back to the
    /// documented defaults (kind 7 -> `F32`, ab_fmt 3 -> `Native`, sel 7 -> `W`,
    /// scale 3 -> `None`; `relu`, `oob`, `via_f32` -> 0 outside the half kinds), so every
    /// pattern of the word has one meaning on both sides.
    pub fn decode(w: u32) -> Ctrl {
        // Table look-ups rather than matches: every stage decodes its register's word.
        const KIND: [Kind; 8] = [
            Kind::F32,
            Kind::F64,
            Kind::F32x2,
            Kind::Sm1x,
            Kind::Vmad,
            Kind::Half,
            Kind::Half2,
            Kind::F32,
        ];
        const RND: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
        const AB: [AbFmt; 4] = [AbFmt::Native, AbFmt::F16, AbFmt::Bf16, AbFmt::Native];
        const SEL: [Sel; 8] = [
            Sel::B0,
            Sel::B1,
            Sel::B2,
            Sel::B3,
            Sel::H0,
            Sel::H1,
            Sel::W,
            Sel::W,
        ];
        const SCALE: [Scale; 4] = [Scale::None, Scale::Shr7, Scale::Shr15, Scale::None];
        let bit = |n: u32| (w >> n) & 1 != 0;
        let f = |n: u32, m: u32| ((w >> n) & m) as usize;
        let kind = KIND[f(at::KIND, 7)];
        // The half kinds' own fields mean nothing elsewhere: they read as 0 there.
        let half = matches!(kind, Kind::Half | Kind::Half2);
        Ctrl {
            kind,
            rnd: RND[f(at::RND, 3)],
            ftz: bit(at::FTZ),
            sat: bit(at::SAT),
            ab_fmt: AB[f(at::AB_FMT, 3)],
            b_one: bit(at::B_ONE),
            c_zero: bit(at::C_ZERO),
            neg_c: bit(at::NEG_C),
            neg_ab: bit(at::NEG_AB),
            a_signed: bit(at::A_SIGNED),
            b_signed: bit(at::B_SIGNED),
            asel: SEL[f(at::ASEL, 7)],
            bsel: SEL[f(at::BSEL, 7)],
            po: bit(at::PO),
            scale: SCALE[f(at::SCALE, 3)],
            relu: half && bit(at::RELU),
            oob: half && bit(at::OOB),
            via_f32: half && bit(at::VIA_F32),
        }
    }

    /// vmad: the final result is signed (PTX `signedFinal`).
    pub fn signed_final(&self) -> bool {
        self.a_signed || self.b_signed || self.neg_ab || self.neg_c
    }

    /// The float kinds whose results are binary32 (f32, f32x2, sm_1x).
    pub fn is_f32(&self) -> bool {
        matches!(self.kind, Kind::F32 | Kind::F32x2 | Kind::Sm1x)
    }

    /// The half-precision kinds (one or two 16-bit lanes).
    pub fn is_half(&self) -> bool {
        matches!(self.kind, Kind::Half | Kind::Half2)
    }

    /// The format of a half kind's operands and result: bfloat16 if `ab_fmt` says so, else
    /// binary16.
    pub fn half_fmt(&self) -> Fmt {
        if self.ab_fmt == AbFmt::Bf16 {
            BF16
        } else {
            F16
        }
    }

    /// The formats of the a, b and c operands (of each lane for f32x2 and half2). vmad's 32-bit
    /// integer sources are given f32's width.
    pub fn operand_formats(&self) -> (Fmt, Fmt, Fmt) {
        if self.is_half() {
            let h = self.half_fmt();
            return (h, h, h);
        }
        let ab = match (self.kind, self.ab_fmt) {
            (Kind::F64, _) => F64,
            (Kind::F32, AbFmt::F16) => F16,
            (Kind::F32, AbFmt::Bf16) => BF16,
            _ => F32,
        };
        let c = if self.kind == Kind::F64 { F64 } else { F32 };
        (ab, ab, c)
    }

    /// Subnormal inputs and results flush to signed zero (`.ftz` on binary32 and half kinds,
    /// or always on sm_1x mad).
    pub fn flush(&self) -> bool {
        (self.ftz && (self.is_f32() || self.is_half())) || self.kind == Kind::Sm1x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_table_tiles_the_word_and_matches_encode() {
        let mut next = 0;
        for f in CTRL_FIELDS {
            assert_eq!(f.lsb, next, "{} is not contiguous", f.name);
            next += f.width;
            // A field's bits, set alone, decode to a word that sets nothing else, and its code 1
            // (a valid code of every field) survives at its position.
            let ones = ((1u32 << f.width) - 1) << f.lsb;
            assert_eq!(Ctrl::decode(ones).encode() & !ones, 0, "{}", f.name);
            // The half kinds' fields are read under a half kind only.
            let half = ["relu", "oob", "via_f32"].contains(&f.name);
            let base = if half { Kind::Half as u32 } else { 0 };
            let w = base | 1 << f.lsb;
            assert_eq!(Ctrl::decode(w).encode(), w, "{}", f.name);
            if half {
                assert_eq!(Ctrl::decode(1 << f.lsb).encode(), 0, "{}", f.name);
            }
        }
        assert_eq!(next, CTRL_BITS);
    }

    #[test]
    fn every_canonical_word_round_trips() {
        // Decode every word, re-encode, decode again: the canonical form must be a fixed point,
        // and canonical words must survive unchanged.
        for w in 0..(1u32 << CTRL_BITS) {
            let c = Ctrl::decode(w);
            let e = c.encode();
            assert_eq!(Ctrl::decode(e), c, "word {w:#x}");
            assert!(e < 1 << CTRL_BITS);
        }
    }
}

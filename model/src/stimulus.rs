//! Stimulus: seeded, edge-biased instruction vectors for the bulk tests and the co-simulator.
//!
//! Random bit patterns almost never hit the cases where a fused multiply-add goes wrong (exact
//! cancellation, rounding at the overflow threshold, subnormal results, NaN payloads), so most
//! operands here are built the way Berkeley TestFloat builds them: an exponent taken from a short
//! list of boundaries, a significand taken from a short list of bit patterns, plus the special
//! values. About a quarter stay uniformly random so that nothing the lists forgot is out of reach.
//!
//! Everything is a pure function of a `u64` seed through the small PRNG below, written out here
//! rather than taken from a crate: a failing seed printed in a divergence report has to replay the
//! same vectors after any dependency upgrade.

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};

// ---------------------------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------------------------

/// One step of SplitMix64 (Steele, Lea, Flood 2014). Used only to spread a seed over the
/// xoshiro state, because xoshiro needs a state that is not all zero and whose words differ.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256** (Blackman, Vigna 2018): fast, small, and good enough for test vectors. Fixed here
/// so that its sequence never depends on a crate version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Expands `seed` with SplitMix64, as the xoshiro authors recommend.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng::from_state(s)
    }

    /// Starts from a raw state (used by the known-answer test). An all-zero state would only
    /// ever produce zeros, so it is replaced by the state of seed 0.
    pub fn from_state(s: [u64; 4]) -> Rng {
        if s == [0; 4] {
            return Rng::new(0);
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A value in `0..n` (`n > 0`), by the multiply-high method. Its bias is below 2^-32 for the
    /// small `n` used here, which does not matter for test vectors.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A value in `lo..=hi` (`lo <= hi`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        debug_assert!(lo <= hi);
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    pub fn bit(&mut self) -> bool {
        self.next_u64() >> 63 != 0
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Families
// ---------------------------------------------------------------------------------------------

/// Instruction families: the unit in which the tests count vectors and the co-simulator reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// `fma.rnd{.ftz}{.sat}.f32`
    F32,
    /// `fma.rnd.f64`
    F64,
    /// `fma.rnd{.ftz}.f32x2`
    F32x2,
    /// `add`/`sub`/`fma` `.f32.f16` and `.f32.bf16`
    Mixed,
    /// sm_1x `mad{.ftz}{.sat}.f32` (truncated product)
    Sm1x,
    /// `add`/`sub`/`mul` `.f32` and `.f64` on the FMA datapath
    AddSubMul,
    /// integer `vmad`
    Vmad,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::F32,
        Family::F64,
        Family::F32x2,
        Family::Mixed,
        Family::Sm1x,
        Family::AddSubMul,
        Family::Vmad,
    ];

    /// Short lower-case name used on command lines and in report tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::F32 => "f32",
            Family::F64 => "f64",
            Family::F32x2 => "f32x2",
            Family::Mixed => "mixed",
            Family::Sm1x => "sm1x",
            Family::AddSubMul => "addsubmul",
            Family::Vmad => "vmad",
        }
    }

    /// Inverse of [`Family::name`], case-insensitive; `sm_1x` is accepted for `sm1x`.
    pub fn parse(s: &str) -> Option<Family> {
        let s = s.trim().to_ascii_lowercase();
        if s == "sm_1x" {
            return Some(Family::Sm1x);
        }
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The family a control word belongs to. Total, so that a report can classify any word,
    /// including one with no PTX spelling (see [`is_legal`]).
    pub fn of(ctrl: &Ctrl) -> Family {
        match ctrl.kind {
            Kind::Vmad => Family::Vmad,
            Kind::Sm1x => Family::Sm1x,
            Kind::F32x2 => Family::F32x2,
            Kind::F32 if ctrl.ab_fmt != AbFmt::Native => Family::Mixed,
            Kind::F32 | Kind::F64 if ctrl.b_one || ctrl.c_zero => Family::AddSubMul,
            Kind::F32 => Family::F32,
            Kind::F64 => Family::F64,
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Every legal control word of the family, in a fixed order. Sweeps and exhaustive tests
    /// iterate over this; the generator draws from it uniformly.
    pub fn ctrls(self) -> Vec<Ctrl> {
        let mut v = Vec::new();
        let base = Ctrl::default();
        let float = |kind, rnd, ftz, sat| Ctrl {
            kind,
            rnd,
            ftz,
            sat,
            ..base
        };
        match self {
            Family::F32 => {
                for rnd in RNDS {
                    for ftz in [false, true] {
                        for sat in [false, true] {
                            v.push(float(Kind::F32, rnd, ftz, sat));
                        }
                    }
                }
            }
            Family::F64 => {
                for rnd in RNDS {
                    v.push(float(Kind::F64, rnd, false, false));
                }
            }
            Family::F32x2 => {
                for rnd in RNDS {
                    for ftz in [false, true] {
                        v.push(float(Kind::F32x2, rnd, ftz, false));
                    }
                }
            }
            Family::Mixed => {
                for ab_fmt in [AbFmt::F16, AbFmt::Bf16] {
                    for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Fma] {
                        for rnd in RNDS {
                            for sat in [false, true] {
                                v.push(op.apply(Ctrl {
                                    ab_fmt,
                                    ..float(Kind::F32, rnd, false, sat)
                                }));
                            }
                        }
                    }
                }
            }
            Family::Sm1x => {
                // `mad.f32` and `mad.ftz.f32` are both legal sm_1x spellings; the flush is
                // implied either way, so both control words must behave the same.
                for ftz in [false, true] {
                    for sat in [false, true] {
                        v.push(float(Kind::Sm1x, Rnd::Rn, ftz, sat));
                    }
                }
            }
            Family::AddSubMul => {
                for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Mul] {
                    for rnd in RNDS {
                        for ftz in [false, true] {
                            for sat in [false, true] {
                                v.push(op.apply(float(Kind::F32, rnd, ftz, sat)));
                            }
                        }
                        v.push(op.apply(float(Kind::F64, rnd, false, false)));
                    }
                }
            }
            Family::Vmad => {
                for asel in SELS {
                    for bsel in SELS {
                        for a_signed in [false, true] {
                            for b_signed in [false, true] {
                                for (neg_ab, neg_c, po) in VMAD_FORMS {
                                    for scale in [Scale::None, Scale::Shr7, Scale::Shr15] {
                                        for sat in [false, true] {
                                            v.push(Ctrl {
                                                kind: Kind::Vmad,
                                                asel,
                                                bsel,
                                                a_signed,
                                                b_signed,
                                                neg_ab,
                                                neg_c,
                                                po,
                                                scale,
                                                sat,
                                                ..base
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
        v
    }
}

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
const SELS: [Sel; 7] = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
/// The vmad (neg_ab, neg_c, po) forms PTX allows: plain, `-(a*b)`, `-c`, `.po`. Negating both
/// and negating under `.po` are not in the PTX table.
const VMAD_FORMS: [(bool, bool, bool); 4] = [
    (false, false, false),
    (true, false, false),
    (false, true, false),
    (false, false, true),
];

/// The float operation spelled by the b_one / c_zero / neg_c fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FloatOp {
    Fma,
    Add,
    Sub,
    Mul,
}

impl FloatOp {
    fn apply(self, c: Ctrl) -> Ctrl {
        match self {
            FloatOp::Fma => c,
            FloatOp::Add => Ctrl { b_one: true, ..c },
            FloatOp::Sub => Ctrl {
                b_one: true,
                neg_c: true,
                ..c
            },
            FloatOp::Mul => Ctrl { c_zero: true, ..c },
        }
    }

    fn of(c: &Ctrl) -> Option<FloatOp> {
        match (c.b_one, c.c_zero, c.neg_c) {
            (false, false, false) => Some(FloatOp::Fma),
            (true, false, false) => Some(FloatOp::Add),
            (true, false, true) => Some(FloatOp::Sub),
            (false, true, false) => Some(FloatOp::Mul),
            _ => None,
        }
    }

    fn mnemonic(self) -> &'static str {
        match self {
            FloatOp::Fma => "fma",
            FloatOp::Add => "add",
            FloatOp::Sub => "sub",
            FloatOp::Mul => "mul",
        }
    }
}

/// A set of families, e.g. from a `--families f32,vmad` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FamilyFilter {
    mask: u8,
}

impl Default for FamilyFilter {
    fn default() -> Self {
        FamilyFilter::all()
    }
}

impl FamilyFilter {
    pub fn all() -> FamilyFilter {
        FamilyFilter {
            mask: Family::ALL.iter().fold(0, |m, f| m | f.bit()),
        }
    }

    pub fn none() -> FamilyFilter {
        FamilyFilter { mask: 0 }
    }

    pub fn only(f: Family) -> FamilyFilter {
        FamilyFilter { mask: f.bit() }
    }

    pub fn with(self, f: Family) -> FamilyFilter {
        FamilyFilter {
            mask: self.mask | f.bit(),
        }
    }

    pub fn contains(self, f: Family) -> bool {
        self.mask & f.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.mask == 0
    }

    /// The members in [`Family::ALL`] order.
    pub fn families(self) -> Vec<Family> {
        Family::ALL
            .into_iter()
            .filter(|&f| self.contains(f))
            .collect()
    }

    /// Parses `all` or a comma-separated list of family names.
    pub fn parse(s: &str) -> Result<FamilyFilter, String> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(FamilyFilter::all());
        }
        let mut f = FamilyFilter::none();
        for part in s.split(',') {
            match Family::parse(part) {
                Some(fam) => f = f.with(fam),
                None => {
                    let names: Vec<_> = Family::ALL.iter().map(|f| f.name()).collect();
                    return Err(format!(
                        "unknown instruction family `{}` (known: all, {})",
                        part.trim(),
                        names.join(", ")
                    ));
                }
            }
        }
        Ok(f)
    }
}

/// Whether `ctrl` is a control word that some PTX instruction decodes to, i.e. one that
/// [`ptx_spelling`] can print and the generator may produce. Fields an instruction does not use
/// must keep their [`Ctrl::default`] values, so that each legal word has one spelling.
pub fn is_legal(ctrl: &Ctrl) -> bool {
    let d = Ctrl::default();
    if ctrl.kind == Kind::Vmad {
        return ctrl.rnd == d.rnd
            && ctrl.ftz == d.ftz
            && ctrl.ab_fmt == d.ab_fmt
            && ctrl.b_one == d.b_one
            && ctrl.c_zero == d.c_zero
            && !(ctrl.neg_ab && ctrl.neg_c)
            && !(ctrl.po && (ctrl.neg_ab || ctrl.neg_c));
    }
    let vmad_fields_clear = !ctrl.neg_ab
        && ctrl.a_signed == d.a_signed
        && ctrl.b_signed == d.b_signed
        && ctrl.asel == d.asel
        && ctrl.bsel == d.bsel
        && ctrl.po == d.po
        && ctrl.scale == d.scale;
    let Some(op) = FloatOp::of(ctrl) else {
        return false;
    };
    vmad_fields_clear
        && match ctrl.kind {
            Kind::F32 => match ctrl.ab_fmt {
                AbFmt::Native => true,
                // Mixed precision: no .ftz, and there is no mixed mul.
                AbFmt::F16 | AbFmt::Bf16 => !ctrl.ftz && op != FloatOp::Mul,
            },
            Kind::F64 => !ctrl.ftz && !ctrl.sat && ctrl.ab_fmt == AbFmt::Native,
            Kind::F32x2 => !ctrl.sat && ctrl.ab_fmt == AbFmt::Native && op == FloatOp::Fma,
            Kind::Sm1x => ctrl.rnd == Rnd::Rn && ctrl.ab_fmt == AbFmt::Native && op == FloatOp::Fma,
            Kind::Vmad => unreachable!(),
        }
}

// ---------------------------------------------------------------------------------------------
// Spelling (for reports and replay lines)
// ---------------------------------------------------------------------------------------------

/// The PTX spelling of a rounding mode (`rn`), without the dot.
pub fn rnd_name(r: Rnd) -> &'static str {
    match r {
        Rnd::Rn => "rn",
        Rnd::Rz => "rz",
        Rnd::Rm => "rm",
        Rnd::Rp => "rp",
    }
}

/// The PTX spelling of a vmad operand selector (`.b0`; empty for the whole word).
pub fn sel_suffix(s: Sel) -> &'static str {
    match s {
        Sel::B0 => ".b0",
        Sel::B1 => ".b1",
        Sel::B2 => ".b2",
        Sel::B3 => ".b3",
        Sel::H0 => ".h0",
        Sel::H1 => ".h1",
        Sel::W => "",
    }
}

/// The PTX mnemonic of `ctrl`, e.g. `fma.rn.ftz.sat.f32`, `add.rz.f32.bf16`, `mul.rm.f64`,
/// `mad.ftz.f32` (sm_1x) or `vmad.s32.u32.s32.po.sat.shr7`. The rounding modifier is always
/// written, even where PTX makes it optional, so the text names the mode without a default to
/// remember. A word with no PTX form (see [`is_legal`]) prints as `ctrl(0x......)`.
pub fn ptx_spelling(ctrl: &Ctrl) -> String {
    if !is_legal(ctrl) {
        return format!("ctrl({:#08x})", ctrl.encode());
    }
    let mut s = String::new();
    let flag = |s: &mut String, on: bool, text: &str| {
        if on {
            s.push_str(text);
        }
    };
    match ctrl.kind {
        Kind::Vmad => {
            let ty = |signed: bool| if signed { ".s32" } else { ".u32" };
            s.push_str("vmad");
            s.push_str(ty(ctrl.signed_final()));
            s.push_str(ty(ctrl.a_signed));
            s.push_str(ty(ctrl.b_signed));
            flag(&mut s, ctrl.po, ".po");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(match ctrl.scale {
                Scale::None => "",
                Scale::Shr7 => ".shr7",
                Scale::Shr15 => ".shr15",
            });
        }
        Kind::Sm1x => {
            s.push_str("mad");
            flag(&mut s, ctrl.ftz, ".ftz");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(".f32");
        }
        Kind::F32 | Kind::F64 | Kind::F32x2 => {
            let op = FloatOp::of(ctrl).expect("legal float ctrl has an op");
            s.push_str(op.mnemonic());
            s.push('.');
            s.push_str(rnd_name(ctrl.rnd));
            flag(&mut s, ctrl.ftz, ".ftz");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(match (ctrl.kind, ctrl.ab_fmt) {
                (Kind::F64, _) => ".f64",
                (Kind::F32x2, _) => ".f32x2",
                (_, AbFmt::F16) => ".f32.f16",
                (_, AbFmt::Bf16) => ".f32.bf16",
                (_, AbFmt::Native) => ".f32",
            });
        }
    }
    s
}

/// Which source operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    A,
    B,
    C,
}

/// The operand as written on an `fma-model eval` line: hex sized to the operand's format
/// (`0x3c00` for an f16 `a`, `0x3f800000` for f32, 16 digits for f64 and f32x2, 8 for vmad),
/// with vmad's `-` negation on `a` (for a negated product) or `c`, and its `.b0`..`.h1` selector.
/// `None` for an operand the instruction does not write: `b` of add/sub, `c` of mul. A value with
/// bits set outside its format is printed in full (16 digits) so a report never hides them.
pub fn operand_text(ctrl: &Ctrl, which: Operand, value: u64) -> Option<String> {
    let op = FloatOp::of(ctrl);
    if ctrl.kind != Kind::Vmad {
        match (which, op) {
            (Operand::B, Some(FloatOp::Add | FloatOp::Sub)) => return None,
            (Operand::C, Some(FloatOp::Mul)) => return None,
            _ => {}
        }
    }
    let bits = match (ctrl.kind, which, ctrl.ab_fmt) {
        (Kind::F64 | Kind::F32x2, _, _) => 64,
        (Kind::F32, Operand::A | Operand::B, AbFmt::F16 | AbFmt::Bf16) => 16,
        _ => 32,
    };
    let hex = if bits < 64 && value >> bits != 0 {
        format!("0x{value:016x}")
    } else {
        format!("0x{:0w$x}", value, w = (bits / 4) as usize)
    };
    if ctrl.kind != Kind::Vmad {
        return Some(hex);
    }
    let (neg, sel) = match which {
        Operand::A => (ctrl.neg_ab, sel_suffix(ctrl.asel)),
        Operand::B => (false, sel_suffix(ctrl.bsel)),
        Operand::C => (ctrl.neg_c, ""),
    };
    Some(format!("{}{hex}{sel}", if neg { "-" } else { "" }))
}

/// One complete `fma-model eval` line: mnemonic and the written operands.
pub fn eval_line(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> String {
    let mut s = ptx_spelling(ctrl);
    for (w, v) in [(Operand::A, a), (Operand::B, b), (Operand::C, c)] {
        if let Some(t) = operand_text(ctrl, w, v) {
            s.push(' ');
            s.push_str(&t);
        }
    }
    s
}

/// The target under which [`ptx_spelling`] means `ctrl`: sm_1x `mad.f32` exists only below
/// sm_20, everything else is accepted by the default `sm_100`. A replay script writes
/// `.target <this>` before the line.
pub fn target(ctrl: &Ctrl) -> &'static str {
    if ctrl.kind == Kind::Sm1x {
        "sm_13"
    } else {
        "sm_100"
    }
}

// ---------------------------------------------------------------------------------------------
// Float operands
// ---------------------------------------------------------------------------------------------

pub use crate::format::{Fmt, BF16, F16, F32, F64};

/// A significand pattern of `n` bits: TestFloat-style walking ones and zeros, runs of ones and
/// zeros from either end or inside, and random fill.
pub fn frac_pattern(n: u32, rng: &mut Rng) -> u64 {
    let all = (1u64 << n) - 1;
    let ones = |k: u32| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    let k = rng.below(n as u64 + 1) as u32; // 0..=n
    let pos = rng.below(n as u64) as u32;
    match rng.below(12) {
        0 => 0,
        1 => all,
        2 => 1 << pos,                         // walking one
        3 => all ^ (1 << pos),                 // walking zero
        4 => ones(k) << (n - k),               // run of ones from the top
        5 => ones(k),                          // run of ones from the bottom
        6 => all ^ (ones(k) << (n - k)),       // run of zeros from the top
        7 => all ^ ones(k),                    // run of zeros from the bottom
        8 => (ones(k) << pos) & all,           // run of ones inside
        9 => all ^ ((ones(k) << pos) & all),   // run of zeros inside
        10 => (1 << (n - 1)) | 1 | (1 << pos), // both ends (rounding/sticky edges)
        _ => rng.next_u64() & all,
    }
}

/// A biased exponent from TestFloat's boundary list: 1 and 2 (emin), the top (emax and below),
/// around the bias (values near 1.0), around the bias +- the precision (where an addend stops
/// overlapping a product) and +- half the range (products that overflow or underflow), or random.
fn edge_exponent(fmt: Fmt, rng: &mut Rng) -> u64 {
    let bias = fmt.bias();
    let emax = fmt.exp_max() as i64 - 1;
    let p = fmt.frac_bits as i64 + 1;
    let e = match rng.below(7) {
        0 => rng.range(1, 3),
        1 => rng.range(emax - 2, emax),
        2 => bias + rng.range(-2, 2),
        3 => bias + p + rng.range(-1, 1),
        4 => bias - p + rng.range(-1, 1),
        5 => bias + (if rng.bit() { 1 } else { -1 }) * (bias / 2) + rng.range(-2, 2),
        _ => rng.range(1, emax),
    };
    e.clamp(1, emax) as u64
}

/// One edge-biased operand of `fmt`, in the low bits of the result.
pub fn float_operand(fmt: Fmt, rng: &mut Rng) -> u64 {
    if rng.chance(1, 4) {
        return rng.next_u64() & fmt.mask();
    }
    let sign = rng.bit();
    let top = fmt.exp_max();
    let payload_mask = fmt.quiet_bit() - 1;
    match rng.below(16) {
        0 => fmt.assemble(sign, 0, 0),
        1 => fmt.assemble(sign, top, 0),
        2 => {
            let payload = frac_pattern(fmt.frac_bits - 1, rng) & payload_mask;
            fmt.assemble(sign, top, fmt.quiet_bit() | payload)
        }
        3 => {
            let payload = match frac_pattern(fmt.frac_bits - 1, rng) & payload_mask {
                0 => 1,
                p => p,
            };
            fmt.assemble(sign, top, payload)
        }
        4 | 5 => {
            let f = match frac_pattern(fmt.frac_bits, rng) {
                0 => 1,
                f => f,
            };
            fmt.assemble(sign, 0, f)
        }
        _ => fmt.assemble(
            sign,
            edge_exponent(fmt, rng),
            frac_pattern(fmt.frac_bits, rng),
        ),
    }
}

/// Moves `bits` (a value of `fmt`) a little: unchanged, a few ulps up or down, or its low bits
/// scrambled. Applied to `-(a*b)` it gives the near-total cancellations that exercise the
/// leading-zero anticipator and the normaliser.
fn perturb(fmt: Fmt, bits: u64, rng: &mut Rng) -> u64 {
    match rng.below(3) {
        0 => bits,
        1 => bits.wrapping_add(rng.range(-4, 4) as u64) & fmt.mask(),
        _ => {
            let k = rng.range(1, 12) as u32;
            bits ^ (rng.next_u64() & ((1u64 << k) - 1))
        }
    }
}

/// A `c` (of `fmt`, f32 or f64) close to `-target`.
fn near_negation(fmt: Fmt, target: f64, rng: &mut Rng) -> u64 {
    let neg = -target;
    let bits = if fmt == F64 {
        neg.to_bits()
    } else {
        (neg as f32).to_bits() as u64
    };
    perturb(fmt, bits, rng)
}

/// a, b, c for one binary32 or binary64 fma-shaped operation whose a/b are of `ab` and c of
/// `cf`; one in five gets a c that nearly cancels the product: c ~ -(a*b), or c ~ +a for `sub`
/// (`neg_c`), which computes a - c.
fn fma_operands(ab: Fmt, cf: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    let b_one = ctrl.b_one;
    let a = float_operand(ab, rng);
    let b = if b_one { 0 } else { float_operand(ab, rng) };
    let c = if rng.chance(1, 5) {
        let pa = ab.to_f64(a);
        // Product exact in f64 for every format narrower than f64; f64 gets the rounded one,
        // whose rounding error is exactly what a fused operation must keep.
        let prod = if b_one { pa } else { pa * ab.to_f64(b) };
        near_negation(cf, if ctrl.neg_c { -prod } else { prod }, rng)
    } else {
        float_operand(cf, rng)
    };
    (a, b, c)
}

/// sm_1x cases the generic operands rarely hit: a product beyond the f32 range (its exponent is
/// unbounded in the truncated form) brought back by a large `c` of opposite sign, and a product
/// below the f32 range next to a small normal `c`.
fn sm1x_range_operands(rng: &mut Rng) -> (u64, u64, u64) {
    let bias = F32.bias();
    let (ea, eb, ec) = if rng.bit() {
        let t = rng.range(128, 129);
        let ea = rng.range(t - 127, 127);
        (ea, t - ea, rng.range(126, 127))
    } else {
        let t = rng.range(-150, -127);
        let ea = rng.range(-126, (t + 126).min(-1));
        (ea, t - ea, rng.range(-126, -124))
    };
    let sa = rng.bit();
    let sb = rng.bit();
    // Mostly the opposite sign of the product, so c pulls it back; sometimes the same sign.
    let sc = if rng.chance(7, 8) {
        !(sa ^ sb)
    } else {
        sa ^ sb
    };
    let f = |rng: &mut Rng| frac_pattern(F32.frac_bits, rng);
    let a = F32.assemble(sa, (ea + bias) as u64, f(rng));
    let b = F32.assemble(sb, (eb + bias) as u64, f(rng));
    let c = F32.assemble(sc, (ec + bias) as u64, f(rng));
    (a, b, c)
}

// ---------------------------------------------------------------------------------------------
// vmad operands
// ---------------------------------------------------------------------------------------------

/// A 32-bit vmad source: word, half and byte boundaries (so every selector sees its own edge
/// values), powers of two and their neighbours, or random.
pub fn int_operand(rng: &mut Rng) -> u64 {
    const WORDS: [u32; 16] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
    ];
    const BYTES: [u32; 7] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff];
    const HALVES: [u32; 6] = [0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff];
    if rng.chance(1, 4) {
        return rng.next_u64() & 0xffff_ffff;
    }
    let v = match rng.below(4) {
        0 => *rng.pick(&WORDS),
        1 => (0..4).fold(0u32, |acc, i| {
            let byte = if rng.chance(1, 5) {
                rng.below(256) as u32
            } else {
                *rng.pick(&BYTES)
            };
            acc | byte << (8 * i)
        }),
        2 => (0..2).fold(0u32, |acc, i| {
            let half = if rng.chance(1, 5) {
                rng.below(1 << 16) as u32
            } else {
                *rng.pick(&HALVES)
            };
            acc | half << (16 * i)
        }),
        _ => {
            let one = 1u32 << rng.below(32);
            match rng.below(3) {
                0 => one,
                1 => one.wrapping_sub(1),
                _ => !one,
            }
        }
    };
    v as u64
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

/// One operation: control word and the three 64-bit source buses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vector {
    pub ctrl: Ctrl,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

/// Operands for a fixed control word. Operands the instruction does not read are zero (`b` of
/// add/sub, `c` of mul, bits 63:16 of f16/bf16 and 63:32 of f32 and vmad sources), so that a
/// vector replays exactly from its [`eval_line`].
pub fn operands_for(ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    match ctrl.kind {
        Kind::Vmad => (int_operand(rng), int_operand(rng), int_operand(rng)),
        Kind::F64 => {
            let (a, b, c) = fma_operands(F64, F64, ctrl, rng);
            (a, b, if ctrl.c_zero { 0 } else { c })
        }
        Kind::F32x2 => {
            let (a0, b0, c0) = fma_operands(F32, F32, ctrl, rng);
            let (a1, b1, c1) = fma_operands(F32, F32, ctrl, rng);
            (a0 | a1 << 32, b0 | b1 << 32, c0 | c1 << 32)
        }
        Kind::Sm1x => {
            if rng.chance(1, 5) {
                sm1x_range_operands(rng)
            } else {
                fma_operands(F32, F32, ctrl, rng)
            }
        }
        Kind::F32 => {
            let ab = match ctrl.ab_fmt {
                AbFmt::Native => F32,
                AbFmt::F16 => F16,
                AbFmt::Bf16 => BF16,
            };
            let (a, b, c) = fma_operands(ab, F32, ctrl, rng);
            (a, b, if ctrl.c_zero { 0 } else { c })
        }
    }
}

/// One vector of a fixed control word.
pub fn vector_for(ctrl: &Ctrl, rng: &mut Rng) -> Vector {
    let (a, b, c) = operands_for(ctrl, rng);
    Vector {
        ctrl: *ctrl,
        a,
        b,
        c,
    }
}

/// The endless vector stream of one seed: a family drawn uniformly from the filter, then one of
/// its legal control words uniformly (so every rounding mode and modifier gets its share), then
/// operands from [`operands_for`].
#[derive(Clone, Debug)]
pub struct Stimulus {
    seed: u64,
    rng: Rng,
    ctrls: Vec<Vec<Ctrl>>,
}

impl Stimulus {
    pub fn new(seed: u64, families: FamilyFilter) -> Stimulus {
        Stimulus {
            seed,
            rng: Rng::new(seed),
            ctrls: families.families().into_iter().map(Family::ctrls).collect(),
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl Iterator for Stimulus {
    type Item = Vector;

    /// Never ends, except for an empty filter, which yields nothing.
    fn next(&mut self) -> Option<Vector> {
        if self.ctrls.is_empty() {
            return None;
        }
        let fam = self.rng.below(self.ctrls.len() as u64) as usize;
        let ctrl = *self.rng.pick(&self.ctrls[fam]);
        Some(vector_for(&ctrl, &mut self.rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn splitmix64_known_answers() {
        // Published outputs of the reference splitmix64.c for seed 1234567.
        let mut s = 1234567u64;
        let got: Vec<u64> = (0..5).map(|_| splitmix64(&mut s)).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423,
                4593380528125082431,
                16408922859458223821
            ]
        );
    }

    #[test]
    fn xoshiro256starstar_known_answers() {
        // Reference xoshiro256starstar.c started from the state {1, 2, 3, 4}.
        let mut r = Rng::from_state([1, 2, 3, 4]);
        let got: Vec<u64> = (0..10).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                11520,
                0,
                1509978240,
                1215971899390074240,
                1216172134540287360,
                607988272756665600,
                16172922978634559625,
                8476171486693032832,
                10595114339597558777,
                2904607092377533576
            ]
        );
    }

    #[test]
    fn same_seed_same_sequence_other_seed_differs() {
        let a: Vec<Vector> = Stimulus::new(42, FamilyFilter::all()).take(5000).collect();
        let b: Vec<Vector> = Stimulus::new(42, FamilyFilter::all()).take(5000).collect();
        let c: Vec<Vector> = Stimulus::new(43, FamilyFilter::all()).take(5000).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Not merely shifted or mostly equal: most positions differ.
        let same = a.iter().zip(&c).filter(|(x, y)| x == y).count();
        assert!(same < 50, "{same} equal vectors between seeds 42 and 43");
        // operands_for is just as deterministic.
        let ctrl = Ctrl::fma(Kind::F64, Rnd::Rm);
        let x: Vec<_> = {
            let mut r = Rng::new(9);
            (0..100).map(|_| operands_for(&ctrl, &mut r)).collect()
        };
        let y: Vec<_> = {
            let mut r = Rng::new(9);
            (0..100).map(|_| operands_for(&ctrl, &mut r)).collect()
        };
        assert_eq!(x, y);
    }

    #[test]
    fn filter_restricts_families() {
        let f = FamilyFilter::parse("vmad, sm1x").unwrap();
        for v in Stimulus::new(1, f).take(2000) {
            let fam = Family::of(&v.ctrl);
            assert!(fam == Family::Vmad || fam == Family::Sm1x, "{fam:?}");
        }
        assert!(FamilyFilter::parse("f32,bogus").is_err());
        assert_eq!(FamilyFilter::parse("ALL").unwrap(), FamilyFilter::all());
        assert_eq!(Stimulus::new(1, FamilyFilter::none()).next(), None);
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
        }
        assert_eq!(Family::parse("sm_1x"), Some(Family::Sm1x));
    }

    /// Legal vmad forms counted straight from the PTX table: 12 sign/negation rows plus `.po`
    /// with each of the 4 source signedness pairs, times 7x7 selectors, 3 scales, sat on/off.
    #[test]
    fn vmad_ctrls_are_exactly_the_ptx_combinations() {
        let v = Family::Vmad.ctrls();
        assert_eq!(v.len(), (12 + 4) * 7 * 7 * 3 * 2);
        let set: HashSet<_> = v.iter().map(|c| c.encode()).collect();
        assert_eq!(set.len(), v.len(), "duplicates");
        for c in &v {
            assert!(!(c.neg_ab && c.neg_c), "{c:?}");
            assert!(!(c.po && (c.neg_ab || c.neg_c)), "{c:?}");
        }
        // The unsigned-final rows are exactly (u32*u32)+u32 with or without .po.
        let unsigned_final = v.iter().filter(|c| !c.signed_final()).count();
        assert_eq!(unsigned_final, 2 * 49 * 3 * 2);
    }

    #[test]
    fn enumeration_and_legality_rule_agree_on_every_word() {
        // Two independent descriptions of the legal set: the per-family enumeration and the
        // field rules of is_legal. Every canonical 24-bit word must get the same answer.
        let mut fam_of: HashMap<u32, Family> = HashMap::new();
        for f in Family::ALL {
            for c in f.ctrls() {
                assert_eq!(Family::of(&c), f, "{c:?}");
                assert!(fam_of.insert(c.encode(), f).is_none(), "{c:?} twice");
            }
        }
        for w in 0..(1u32 << crate::ctrl::CTRL_BITS) {
            let c = Ctrl::decode(w);
            if c.encode() != w {
                continue;
            }
            assert_eq!(is_legal(&c), fam_of.contains_key(&w), "{c:?}");
        }
    }

    #[test]
    fn spellings() {
        let base = Ctrl::default();
        let f32c = Ctrl {
            ftz: true,
            sat: true,
            ..Ctrl::fma(Kind::F32, Rnd::Rn)
        };
        assert_eq!(ptx_spelling(&f32c), "fma.rn.ftz.sat.f32");
        let bf = Ctrl {
            b_one: true,
            ab_fmt: AbFmt::Bf16,
            ..Ctrl::fma(Kind::F32, Rnd::Rz)
        };
        assert_eq!(ptx_spelling(&bf), "add.rz.f32.bf16");
        let mul = Ctrl {
            c_zero: true,
            ..Ctrl::fma(Kind::F64, Rnd::Rm)
        };
        assert_eq!(ptx_spelling(&mul), "mul.rm.f64");
        let sm = Ctrl {
            ftz: true,
            ..Ctrl::fma(Kind::Sm1x, Rnd::Rn)
        };
        assert_eq!(ptx_spelling(&sm), "mad.ftz.f32");
        assert_eq!(target(&sm), "sm_13");
        let x2 = Ctrl::fma(Kind::F32x2, Rnd::Rp);
        assert_eq!(ptx_spelling(&x2), "fma.rp.f32x2");
        let vm = Ctrl {
            kind: Kind::Vmad,
            b_signed: true,
            po: true,
            sat: true,
            scale: Scale::Shr7,
            asel: Sel::W,
            bsel: Sel::W,
            ..base
        };
        assert_eq!(ptx_spelling(&vm), "vmad.s32.u32.s32.po.sat.shr7");
        let vm2 = Ctrl {
            kind: Kind::Vmad,
            asel: Sel::H0,
            bsel: Sel::H0,
            scale: Scale::Shr15,
            ..base
        };
        assert_eq!(
            eval_line(&vm2, 0x1234_5678, 0x9abc_def0, 3),
            "vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 0x00000003"
        );
        let vm3 = Ctrl {
            kind: Kind::Vmad,
            neg_ab: true,
            asel: Sel::B3,
            bsel: Sel::W,
            ..base
        };
        assert_eq!(
            eval_line(&vm3, 1, 2, 0xffff_ffff),
            "vmad.s32.u32.u32 -0x00000001.b3 0x00000002 0xffffffff"
        );
        let sub = Ctrl { neg_c: true, ..bf };
        assert_eq!(
            eval_line(&sub, 0x3f80, 7, 0x4000_0000),
            "sub.rz.f32.bf16 0x3f80 0x40000000"
        );
        assert_eq!(
            eval_line(&mul, 1, 2, 0),
            "mul.rm.f64 0x0000000000000001 0x0000000000000002"
        );
        // Junk above a format's width is shown, not dropped.
        assert_eq!(
            operand_text(&f32c, Operand::A, 1 << 40).unwrap(),
            "0x0000010000000000"
        );
        // Words with no PTX form say so.
        let bad = Ctrl {
            sat: true,
            ..Ctrl::fma(Kind::F64, Rnd::Rn)
        };
        assert!(ptx_spelling(&bad).starts_with("ctrl(0x"));
    }

    /// Edge classes of one operand, decided from its bits alone.
    fn classes(fmt: Fmt, bits: u64, out: &mut HashMap<&'static str, usize>) {
        let e = fmt.exp_of(bits);
        let f = bits & fmt.frac_mask();
        let top = fmt.exp_max();
        let bias = fmt.bias() as u64;
        let mut add = |k| *out.entry(k).or_default() += 1;
        match (e, f) {
            (0, 0) => add("zero"),
            (0, _) => add("subnormal"),
            (x, 0) if x == top => add("inf"),
            (x, f) if x == top && f & fmt.quiet_bit() != 0 => add("qnan"),
            (x, _) if x == top => add("snan"),
            _ => {}
        }
        if e == 1 {
            add("emin");
        }
        if e == 2 {
            add("emin+1");
        }
        if e == top - 1 {
            add("emax");
        }
        if e == bias || e == bias - 1 {
            add("near one");
        }
        if e == bias + fmt.frac_bits as u64 + 1 {
            add("2^p");
        }
        if e != 0 && e != top {
            if f.count_ones() == 1 {
                add("walking one");
            }
            if f.count_ones() == fmt.frac_bits - 1 {
                add("walking zero");
            }
            if f == fmt.frac_mask() {
                add("all ones");
            }
        }
    }

    #[test]
    fn coverage_over_100k_vectors() {
        let mut fams: HashMap<Family, usize> = HashMap::new();
        let mut fields: HashMap<String, usize> = HashMap::new();
        let mut edges: HashMap<&'static str, HashMap<&'static str, usize>> = HashMap::new();
        let mut cancel = HashMap::<String, usize>::new();
        let mut vmad_vals: HashMap<u64, usize> = HashMap::new();
        let mut seen_sm1x_comeback = 0;
        for v in Stimulus::new(2024, FamilyFilter::all()).take(100_000) {
            let c = v.ctrl;
            assert!(is_legal(&c), "illegal {c:?}");
            let fam = Family::of(&c);
            *fams.entry(fam).or_default() += 1;
            let mut field = |k: String| *fields.entry(k).or_default() += 1;
            field(format!("{fam:?} rnd {:?}", c.rnd));
            field(format!("{fam:?} ftz {}", c.ftz));
            field(format!("{fam:?} sat {}", c.sat));
            field(format!("{fam:?} {:?}", FloatOp::of(&c)));
            field(format!("{fam:?} {:?} {:?}", c.kind, c.ab_fmt));
            if fam == Family::Vmad {
                field(format!("asel {:?}", c.asel));
                field(format!("bsel {:?}", c.bsel));
                field(format!("scale {:?}", c.scale));
                field(format!(
                    "signs {} {} {} {} {}",
                    c.a_signed, c.b_signed, c.neg_ab, c.neg_c, c.po
                ));
                for x in [v.a, v.b, v.c] {
                    assert_eq!(x >> 32, 0);
                    *vmad_vals.entry(x).or_default() += 1;
                }
                continue;
            }
            let (ab, cf, lanes) = match (c.kind, c.ab_fmt) {
                (Kind::F64, _) => (F64, F64, 1),
                (Kind::F32x2, _) => (F32, F32, 2),
                (_, AbFmt::F16) => (F16, F32, 1),
                (_, AbFmt::Bf16) => (BF16, F32, 1),
                _ => (F32, F32, 1),
            };
            for lane in 0..lanes {
                let sh = 32 * lane;
                let (a, b, cc) = (v.a >> sh, v.b >> sh, v.c >> sh);
                let (a, b, cc) = (a & ab.mask(), b & ab.mask(), cc & cf.mask());
                let ka = if ab == F16 {
                    "f16"
                } else if ab == BF16 {
                    "bf16"
                } else if ab == F64 {
                    "f64"
                } else {
                    "f32"
                };
                classes(ab, a, edges.entry(ka).or_default());
                if !c.b_one {
                    classes(ab, b, edges.entry(ka).or_default());
                }
                if !c.c_zero {
                    classes(
                        cf,
                        cc,
                        edges
                            .entry(if cf == F64 { "f64" } else { "f32" })
                            .or_default(),
                    );
                }
                // Near-total cancellation, judged in exact-enough f64 arithmetic.
                let p = if c.b_one {
                    ab.to_f64(a)
                } else {
                    ab.to_f64(a) * ab.to_f64(b)
                };
                let cv = if c.neg_c {
                    -cf.to_f64(cc)
                } else {
                    cf.to_f64(cc)
                };
                if !c.c_zero && p.is_finite() && p != 0.0 && cv != 0.0 {
                    let r = (p + cv).abs() / p.abs();
                    if r < 2f64.powi(-16) {
                        *cancel
                            .entry(format!("{fam:?} {:?}", FloatOp::of(&c)))
                            .or_default() += 1;
                    }
                }
                if fam == Family::Sm1x
                    && p.abs() >= 2f64.powi(128)
                    && (p + cv).abs() < 2f64.powi(128)
                {
                    seen_sm1x_comeback += 1;
                }
            }
        }
        for f in Family::ALL {
            assert!(fams.get(&f).copied().unwrap_or(0) > 5000, "{f:?}: {fams:?}");
        }
        let need = |k: String| {
            assert!(fields.get(&k).copied().unwrap_or(0) > 0, "never saw `{k}`");
        };
        for f in [
            Family::F32,
            Family::F64,
            Family::F32x2,
            Family::Mixed,
            Family::AddSubMul,
        ] {
            for r in RNDS {
                need(format!("{f:?} rnd {r:?}"));
            }
        }
        for f in [Family::F32, Family::F32x2, Family::Sm1x, Family::AddSubMul] {
            need(format!("{f:?} ftz true"));
            need(format!("{f:?} ftz false"));
        }
        for f in [
            Family::F32,
            Family::Mixed,
            Family::Sm1x,
            Family::AddSubMul,
            Family::Vmad,
        ] {
            need(format!("{f:?} sat true"));
        }
        for op in ["Add", "Sub", "Fma"] {
            need(format!("Mixed Some({op})"));
        }
        for op in ["Add", "Sub", "Mul"] {
            need(format!("AddSubMul Some({op})"));
        }
        need("AddSubMul F64 Native".into());
        need("AddSubMul F32 Native".into());
        need("Mixed F32 F16".into());
        need("Mixed F32 Bf16".into());
        for s in SELS {
            need(format!("asel {s:?}"));
            need(format!("bsel {s:?}"));
        }
        for s in ["None", "Shr7", "Shr15"] {
            need(format!("scale {s}"));
        }
        for a_s in [false, true] {
            for b_s in [false, true] {
                for (n_ab, n_c, po) in VMAD_FORMS {
                    need(format!("signs {a_s} {b_s} {n_ab} {n_c} {po}"));
                }
            }
        }
        for fmt in ["f16", "bf16", "f32", "f64"] {
            let e = &edges[fmt];
            for k in [
                "zero",
                "subnormal",
                "inf",
                "qnan",
                "snan",
                "emin",
                "emin+1",
                "emax",
                "near one",
                "2^p",
                "walking one",
                "walking zero",
                "all ones",
            ] {
                assert!(e.get(k).copied().unwrap_or(0) > 0, "{fmt}: no {k}: {e:?}");
            }
        }
        for k in [
            "F32 Some(Fma)",
            "F64 Some(Fma)",
            "F32x2 Some(Fma)",
            "Sm1x Some(Fma)",
            "Mixed Some(Fma)",
            "Mixed Some(Add)",
            "Mixed Some(Sub)",
            "AddSubMul Some(Add)",
            "AddSubMul Some(Sub)",
        ] {
            assert!(cancel.get(k).copied().unwrap_or(0) > 50, "{k}: {cancel:?}");
        }
        assert!(seen_sm1x_comeback > 10, "{seen_sm1x_comeback}");
        for x in [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xff, 0x8000] {
            assert!(
                vmad_vals.get(&x).copied().unwrap_or(0) > 0,
                "vmad never {x:#x}"
            );
        }
        // Uniform random words appear too: plenty of distinct values.
        assert!(vmad_vals.len() > 10_000, "{}", vmad_vals.len());
    }

    #[test]
    fn unused_operand_bits_are_zero() {
        let mut r = Rng::new(5);
        for f in Family::ALL {
            for c in f.ctrls().iter().step_by(7) {
                for _ in 0..50 {
                    let (a, b, cc) = operands_for(c, &mut r);
                    let ab_bits = match (c.kind, c.ab_fmt) {
                        (Kind::F64 | Kind::F32x2, _) => 64,
                        (Kind::F32, AbFmt::F16 | AbFmt::Bf16) => 16,
                        _ => 32,
                    };
                    let c_bits = if matches!(c.kind, Kind::F64 | Kind::F32x2) {
                        64
                    } else {
                        32
                    };
                    let fits = |v: u64, n: u32| n == 64 || v >> n == 0;
                    assert!(
                        fits(a, ab_bits) && fits(b, ab_bits) && fits(cc, c_bits),
                        "{c:?}"
                    );
                    if c.b_one {
                        assert_eq!(b, 0);
                    }
                    if c.c_zero {
                        assert_eq!(cc, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn fmt_to_f64_matches_host_conversions() {
        let mut r = Rng::new(11);
        for _ in 0..10_000 {
            let x = r.next_u64() as u32;
            let h = f32::from_bits(x) as f64;
            let m = F32.to_f64(x as u64);
            assert!(
                h.to_bits() == m.to_bits() || (h.is_nan() && m.is_nan()),
                "{x:#x}"
            );
            let bf = (x >> 16) as u64;
            let hb = f32::from_bits((bf as u32) << 16) as f64;
            let mb = BF16.to_f64(bf);
            assert!(
                hb.to_bits() == mb.to_bits() || (hb.is_nan() && mb.is_nan()),
                "{bf:#x}"
            );
        }
        // f16 spot values from the IEEE 754 definition.
        assert_eq!(F16.to_f64(0x3c00), 1.0);
        assert_eq!(F16.to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(F16.to_f64(0x7bff), 65504.0);
        assert_eq!(F16.to_f64(0xc000), -2.0);
        assert_eq!(F16.to_f64(0x7c00), f64::INFINITY);
        assert!(F16.to_f64(0x7c01).is_nan());
    }
}

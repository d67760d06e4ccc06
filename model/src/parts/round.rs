//! Rounder: rounds the normalised significand to the lane's precision in the instruction's
//! direction (through binary32 first where `via_f32` says so, S13), handles overflow, flushes
//! tiny results (`.ftz`, sm_1x: S4), takes the special result when there is one, and saturates
//! (`.sat`) or clamps at zero (`.relu`, S11).
//!
//! [`round`] gives the result's bits; [`rounding`] gives them with the [`Decisions`] that made
//! them (round bit, sticky, increment, carry, tininess, overflow, flush, the binary32 step),
//! which the co-simulator's coverage bins. Both are the one function below, so the decisions are
//! the rounder's own values (as HardFloat's `RoundAnyRawFNToRecFN` writes each decision once).

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};
use crate::format;
use crate::geometry::MAG_W;
use crate::parts::special;
use crate::regs::{S3Lane, U165};

/// The normalised significand's leading bit.
const LEAD_BIT: usize = MAG_W as usize - 1;

/// Precision and exponent range of a result format.
#[derive(Clone, Copy, Debug)]
pub struct ResultFmt {
    /// Significand bits including the hidden one.
    pub p: u32,
    pub emin: i32,
    pub emax: i32,
    /// Total encoding width.
    pub width: u32,
}

pub const F64: ResultFmt = ResultFmt::of(format::F64);
pub const F32: ResultFmt = ResultFmt::of(format::F32);
pub const F16: ResultFmt = ResultFmt::of(format::F16);
pub const BF16: ResultFmt = ResultFmt::of(format::BF16);

impl ResultFmt {
    /// The rounder's view of an IEEE format.
    pub const fn of(f: format::Fmt) -> ResultFmt {
        let bias = (1i32 << (f.exp_bits - 1)) - 1;
        ResultFmt {
            p: f.frac_bits + 1,
            emin: 1 - bias,
            emax: bias,
            width: f.width(),
        }
    }

    /// 1.0, the upper bound of `.sat`.
    const fn one(self) -> u64 {
        ((self.emax as u64) << (self.p - 1)) & ((1 << (self.width - 1)) - 1)
    }
}

#[inline(always)]
pub fn result_fmt(ctrl: &Ctrl) -> ResultFmt {
    match ctrl.kind {
        Kind::F64 => F64,
        Kind::Half | Kind::Half2 if ctrl.ab_fmt == AbFmt::Bf16 => BF16,
        Kind::Half | Kind::Half2 => F16,
        _ => F32,
    }
}

/// The exponent the normaliser stops at: the result format's minimum, except where the sum is
/// first rounded to binary32 (`via_f32`), which needs binary32's.
#[inline(always)]
pub fn normalize_emin(ctrl: &Ctrl) -> i32 {
    if ctrl.via_f32 {
        F32.emin
    } else {
        result_fmt(ctrl).emin
    }
}

/// The rounding direction the datapath uses: sm_1x mad always rounds to nearest even.
#[inline(always)]
pub fn effective_rnd(ctrl: &Ctrl) -> Rnd {
    if ctrl.kind == Kind::Sm1x {
        Rnd::Rn
    } else {
        ctrl.rnd
    }
}

/// A finite nonzero value on its way through the rounder: sign, the normalised significand
/// (leading one at the lead bit unless the value is below `2^emin`), the bits already shifted
/// out, and the exponent of the lead bit.
#[derive(Clone, Copy, Debug)]
struct Finite {
    sign: bool,
    norm: U165,
    sticky: bool,
    exp: i32,
}

/// One rounding of a finite value's significand to `p` bits in one direction: the bits it read
/// and what it decided. The result's rounding, the binary32 step of S13 and S4's tininess test
/// are each one of these, made by one function ([`step`]), so a decision is written once and
/// whoever wants to see it (the coverage sampler bins them) reads the value the rounder used
/// instead of working it out again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The `p` bits kept: the significand truncated, its top bit the value's `2^exp` bit.
    pub kept: u64,
    /// The round bit: the first bit below the kept ones.
    pub rb: bool,
    /// Some significand bit below the round bit is set.
    pub below: bool,
    /// The sticky bit the value came with (bits shifted out before this rounding: by the
    /// normaliser, or by the binary32 step's placement).
    pub sticky_in: bool,
    /// The sticky bit the increment reads: `below | sticky_in`.
    pub st: bool,
    /// The magnitude rounds up one unit in the last kept place.
    pub inc: bool,
    /// `kept + inc` needs `p + 1` bits (all ones rounded up): the significand moves one place
    /// right and the exponent up one.
    pub carry: bool,
    /// The rounded significand: `kept + inc`, one place right after a carry.
    pub sig: u64,
    /// The exponent of `sig`'s top bit (the value's, plus the carry).
    pub exp: i32,
}

/// What the rounder decided for a finite, nonzero lane (a special result or a zero passes
/// through with no decision).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decisions {
    /// S13 (`via_f32`): the rounding to binary32 in the instruction's direction; its result,
    /// placed at the result format's minimum exponent, is what [`Decisions::step`] rounds.
    /// `None` without `via_f32`.
    pub at_f32: Option<Step>,
    /// The rounding at the result format (to nearest after the binary32 step, and for sm_1x).
    pub step: Step,
    /// S4's tininess test: the same value rounded, in the same direction, to `p` bits one
    /// position lower (the quantum a normal number would have with an unbounded exponent). Its
    /// `kept` is `p + 1` bits wide: the lead bit, then the `p` bits below it. Made for every lane
    /// here; [`round`] makes it only where a tiny result would flush.
    pub tininess: Step,
    /// The value is below `2^emin` before rounding (its lead bit clear: the normaliser stops at
    /// `emin`).
    pub tiny_before: bool,
    /// S4: tiny after rounding: below `2^emin` before it, and still below rounded by
    /// [`Decisions::tininess`]. Every value that rounds to a subnormal or zero is tiny.
    pub tiny_after: bool,
    /// The rounded significand's top bit is set: a normal result (or one rounded up to
    /// `2^emin`), unless it overflows.
    pub normal: bool,
    /// The rounded value is normal and its exponent is above the format's maximum: the result
    /// is infinity or the largest finite value, by direction.
    pub overflow: bool,
    /// The result was flushed to a signed zero: tiny after rounding under `.ftz` or sm_1x (S4).
    pub flushed: bool,
}

/// A lane's rounding: the result and, for a finite nonzero lane, the decisions that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounding {
    /// The lane's result, what [`round`] returns.
    pub bits: u64,
    /// The encoding before `.sat` and `.relu` clamp it (`bits` where neither applies).
    pub unclamped: u64,
    /// `None` for a special result or a zero.
    pub decisions: Option<Decisions>,
}

/// Rounds one lane and returns its encoding (binary32 in bits 31:0 for f32 kinds, the half
/// format in bits 15:0 for half kinds). The scalar pipeline's hot path: [`rounding`]'s code,
/// keeping no decisions.
#[inline(always)]
pub fn round(ctrl: &Ctrl, l: &S3Lane) -> u64 {
    round_with::<false>(ctrl, l).bits
}

/// Rounds one lane like [`round`] and says what it decided. One function makes the bits and the
/// decisions, so the decisions are the ones the result came from, not a restatement of them.
#[inline]
pub fn rounding(ctrl: &Ctrl, l: &S3Lane) -> Rounding {
    round_with::<true>(ctrl, l)
}

/// The rounder, once for both entries. With `DECIDE` it keeps its decisions and makes S4's
/// tininess test for every finite lane; without it (the hot path) it keeps none and makes the
/// test only where a tiny result would flush, as a rounder that only gives bits needs to.
#[inline(always)]
fn round_with<const DECIDE: bool>(ctrl: &Ctrl, l: &S3Lane) -> Rounding {
    let f = result_fmt(ctrl);
    let rnd = effective_rnd(ctrl);
    let (unclamped, decisions) = if l.spec_valid {
        (l.spec_res, None)
    } else if l.zero {
        ((l.sign as u64) << (f.width - 1), None)
    } else {
        let x = Finite {
            sign: l.sign,
            norm: l.norm,
            sticky: l.sticky,
            exp: l.exp as i32,
        };
        let (enc, d) = if ctrl.via_f32 {
            // S13: binary32 first (normal there: a half product is at least 2^-48), then to
            // nearest in the half format.
            let (y, s32) = at_f32(rnd, x, f.emin);
            let (enc, d) = round_finite::<DECIDE>(f, Rnd::Rn, false, l.flush_sign, y);
            let d = d.map(|d| Decisions {
                at_f32: Some(s32),
                ..d
            });
            (enc, d)
        } else {
            round_finite::<DECIDE>(f, rnd, ctrl.flush(), l.flush_sign, x)
        };
        (enc, d)
    };
    let bits = if ctrl.sat && f.width <= 32 {
        saturate(f, unclamped)
    } else if ctrl.relu {
        relu(f, unclamped)
    } else {
        unclamped
    };
    Rounding {
        bits,
        unclamped,
        decisions,
    }
}

/// Rounds the significand of `x` to `p` bits in direction `rnd`.
#[inline(always)]
fn step(rnd: Rnd, x: &Finite, p: usize) -> Step {
    let kept = (x.norm >> (LEAD_BIT + 1 - p)).as_limbs()[0];
    let rb = x.norm.bit(LEAD_BIT - p);
    let below = !(x.norm & U165::low_mask(LEAD_BIT - p)).is_zero();
    let st = below | x.sticky;
    let inc = increment(rnd, x.sign, kept & 1 != 0, rb, st);
    let sum = kept + inc as u64;
    let carry = sum >> p != 0;
    Step {
        kept,
        rb,
        below,
        sticky_in: x.sticky,
        st,
        inc,
        carry,
        sig: sum >> carry as u32,
        exp: x.exp + carry as i32,
    }
}

/// Rounds `x` in `f` and direction `rnd`: overflow by direction, tiny results flushed to
/// `flush_sign` zero under `flush` (S4), subnormals at the format's quantum.
#[inline(always)]
fn round_finite<const DECIDE: bool>(
    f: ResultFmt,
    rnd: Rnd,
    flush: bool,
    flush_sign: bool,
    x: Finite,
) -> (u64, Option<Decisions>) {
    let sign_at = f.width - 1;
    let p = f.p as usize;
    let s = step(rnd, &x, p);
    let normal = (s.sig >> (p - 1)) & 1 != 0;
    let overflow = normal && s.exp > f.emax;
    // S4: only a value below 2^emin before rounding (lead bit clear) can be tiny after it, and
    // such a value reaches 2^emin only if its p bits from the bit below the lead down are all
    // ones and round up, one position below the subnormal quantum the result itself is rounded
    // at. Every value that rounds to a subnormal is tiny.
    let below_emin = |t: &Step| !x.norm.bit(LEAD_BIT) & !(t.kept == (1 << p) - 1 && t.inc);
    let tininess = DECIDE.then(|| step(rnd, &x, p + 1));
    let mut flushed = false;
    let sign = (x.sign as u64) << sign_at;
    let frac_mask = (1u64 << (p - 1)) - 1;
    let enc = if overflow {
        let inf = (((1u64 << (f.width - f.p)) - 1) << (p - 1)) | sign;
        let max = inf - 1;
        match rnd {
            Rnd::Rn => inf,
            Rnd::Rz => max,
            Rnd::Rm => {
                if x.sign {
                    inf
                } else {
                    max
                }
            }
            Rnd::Rp => {
                if x.sign {
                    max
                } else {
                    inf
                }
            }
        }
    } else {
        let biased = if normal {
            (s.exp - f.emin + 1) as u64
        } else {
            0
        };
        flushed = flush && below_emin(&tininess.unwrap_or_else(|| step(rnd, &x, p + 1)));
        if flushed {
            (flush_sign as u64) << sign_at
        } else {
            sign | biased << (p - 1) | (s.sig & frac_mask)
        }
    };
    let d = tininess.map(|tininess| Decisions {
        at_f32: None,
        step: s,
        tininess,
        tiny_before: !x.norm.bit(LEAD_BIT),
        tiny_after: below_emin(&tininess),
        normal,
        overflow,
        flushed,
    });
    (enc, d)
}

/// S13: `x` (normalised at binary32's minimum exponent) rounded to binary32's 24 bits in
/// direction `rnd`, then placed as the normaliser would for a format whose minimum exponent is
/// `emin`: shifted right, into sticky, where it lies below `2^emin`. Returns the placed value and
/// the binary32 rounding.
#[inline(always)]
fn at_f32(rnd: Rnd, x: Finite, emin: i32) -> (Finite, Step) {
    let p = F32.p as usize;
    let s = step(rnd, &x, p);
    let norm = U165::from_limbs([s.sig, 0, 0]) << (LEAD_BIT + 1 - p);
    let (norm, sticky) = norm.shr_sticky((emin - s.exp).clamp(0, MAG_W as i32) as usize);
    let y = Finite {
        sign: x.sign,
        norm,
        sticky,
        exp: s.exp.max(emin),
    };
    (y, s)
}

/// Whether a value with this sign, kept least significant bit, round bit and sticky bit rounds
/// its magnitude up one unit in direction `rnd`; every [`step`] asks it.
#[inline(always)]
fn increment(rnd: Rnd, sign: bool, lsb: bool, rb: bool, st: bool) -> bool {
    match rnd {
        Rnd::Rn => rb & (st | lsb),
        Rnd::Rz => false,
        Rnd::Rm => sign & (rb | st),
        Rnd::Rp => !sign & (rb | st),
    }
}

/// S3: NaN and anything <= 0 go to +0, anything >= 1.0 (+inf too) to 1.0; for binary32 and
/// the half formats (`f` says which).
#[inline(always)]
pub fn saturate(f: ResultFmt, x: u64) -> u64 {
    let exp_field = ((1u64 << (f.width - f.p)) - 1) << (f.p - 1);
    let nan = (x & exp_field) == exp_field && (x & ((1 << (f.p - 1)) - 1)) != 0;
    if nan || x >> (f.width - 1) != 0 {
        0
    } else {
        x.min(f.one())
    }
}

/// binary32 `.sat` ([`saturate`] in [`F32`]).
#[inline(always)]
pub fn saturate_f32(x: u64) -> u64 {
    saturate(F32, x)
}

/// `.relu` (S11): a NaN gives the half NaN, anything negative (-0 and -inf too) +0.
#[inline(always)]
pub fn relu(f: ResultFmt, x: u64) -> u64 {
    let exp_field = ((1u64 << (f.width - f.p)) - 1) << (f.p - 1);
    let nan = (x & exp_field) == exp_field && (x & ((1 << (f.p - 1)) - 1)) != 0;
    if nan {
        special::HALF_NAN
    } else if x >> (f.width - 1) != 0 {
        0
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctrl::{AbFmt, Kind};

    /// xorshift64*: the lanes below, the same on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Every result format, direction and flush: binary64, binary32 (`.ftz`, `.sat`), sm_1x,
    /// binary16 and bfloat16 (`.ftz`, `.sat`, `.relu`) and S13's binary16 through binary32.
    fn ctrls() -> Vec<Ctrl> {
        let mut v = Vec::new();
        for rnd in [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            v.push(Ctrl::fma(Kind::F64, rnd));
            v.push(Ctrl::fma(Kind::Sm1x, rnd));
            for (ftz, sat) in [(false, false), (true, false), (false, true), (true, true)] {
                v.push(Ctrl {
                    ftz,
                    sat,
                    ..Ctrl::fma(Kind::F32, rnd)
                });
            }
            for ab_fmt in [AbFmt::F16, AbFmt::Bf16] {
                for (ftz, sat, relu) in [
                    (false, false, false),
                    (true, true, false),
                    (true, false, true),
                ] {
                    v.push(Ctrl {
                        ab_fmt,
                        ftz,
                        sat,
                        relu,
                        ..Ctrl::fma(Kind::Half, rnd)
                    });
                }
            }
            v.push(Ctrl {
                ab_fmt: AbFmt::F16,
                via_f32: true,
                ..Ctrl::fma(Kind::Half, rnd)
            });
        }
        v
    }

    /// A finite nonzero lane as the normaliser leaves it for `ctrl`: the lead bit set above the
    /// normaliser's minimum exponent, anything below it at that exponent; exponents crowded
    /// at the format's edges and significands at the rounding's (all ones, ties, nothing below
    /// the round bit, a lone sticky).
    fn lane(rng: &mut Rng, ctrl: &Ctrl) -> S3Lane {
        let f = result_fmt(ctrl);
        let emin = normalize_emin(ctrl);
        let p = f.p as usize;
        let exp = if ctrl.via_f32 {
            // A half product-sum is at least 2^-48 and below 2^18.
            -48 + rng.below(66) as i32
        } else {
            match rng.below(4) {
                0 => emin,
                1 => emin + rng.below(3) as i32,
                2 => f.emax - 1 + rng.below(3) as i32,
                _ => emin + rng.below((f.emax - emin + 3) as u64) as i32,
            }
        };
        let mut norm = U165::from_limbs([rng.next(), rng.next(), rng.next()]);
        // Where the rounding looks: the result's round bit, and the binary32 step's.
        let at = LEAD_BIT
            - if ctrl.via_f32 && rng.below(2) == 0 {
                24
            } else {
                p
            };
        let ones = |n: usize| U165::low_mask(n);
        match rng.below(6) {
            // All ones from the lead bit to the round bit: every increment carries.
            0 => norm = norm | (ones(LEAD_BIT + 1) & !ones(at)),
            // Nothing below the round bit, or only the bit just below it.
            1 => norm = norm & !ones(at),
            2 => norm = (norm & !ones(at)) | (U165::from(1u8) << (at - 1)),
            // A tie at the round bit.
            3 => norm = (norm & !ones(at + 1)) | (U165::from(1u8) << at),
            _ => {}
        }
        let sticky = rng.below(3) == 0;
        if exp > emin || ctrl.via_f32 {
            norm = norm | (U165::from(1u8) << LEAD_BIT);
        } else if rng.below(2) == 0 {
            norm = norm >> rng.below(p as u64 + 3) as usize;
        }
        S3Lane {
            sign: rng.below(2) != 0,
            flush_sign: rng.below(2) != 0,
            norm,
            sticky,
            exp: exp as i16,
            ..S3Lane::default()
        }
    }

    /// What one [`Step`] says of itself: the sticky is its parts, the rounded significand is
    /// the kept one plus the increment (after a carry, one place right), an exact value is never
    /// incremented, and the increment goes the way the direction says.
    fn check_step(s: &Step, p: usize, rnd: Rnd, sign: bool) {
        assert_eq!(s.st, s.below | s.sticky_in, "{s:?}");
        let sum = s.kept + s.inc as u64;
        assert_eq!(s.carry, sum == 1 << p, "{s:?}");
        assert_eq!(s.sig, if s.carry { sum >> 1 } else { sum }, "{s:?}");
        assert!(s.kept >> p == 0, "{s:?}");
        if !(s.rb | s.st) {
            assert!(!s.inc, "exact, yet incremented: {s:?}");
        }
        match rnd {
            Rnd::Rz => assert!(!s.inc, "{s:?}"),
            Rnd::Rm | Rnd::Rp => {
                assert_eq!(s.inc, (s.rb | s.st) & ((rnd == Rnd::Rm) == sign), "{s:?}")
            }
            Rnd::Rn => assert_eq!(s.inc, s.rb & (s.st | (s.kept & 1 != 0)), "{s:?}"),
        }
    }

    /// The decisions [`rounding`] reports are those the bits came from: over random lanes of
    /// every result format, direction and flush, the encoded result is the reported rounded
    /// significand and exponent, or the overflow's infinity or largest finite value, or the
    /// flushed zero; tininess, overflow and flush agree with each other and with the bits; and
    /// [`round`] gives the same bits.
    #[test]
    fn decisions_agree_with_the_bits() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        // Counts of the decisions seen, so the lanes are known to reach each.
        let mut seen = [0u32; 8];
        for ctrl in ctrls() {
            let f = result_fmt(&ctrl);
            let p = f.p as usize;
            let rnd = if ctrl.via_f32 {
                Rnd::Rn
            } else {
                effective_rnd(&ctrl)
            };
            let flush = ctrl.flush() && !ctrl.via_f32;
            let sign_bit = 1u64 << (f.width - 1);
            let inf = (sign_bit - 1) & !((1u64 << (p - 1)) - 1);
            for _ in 0..20_000 {
                let l = lane(&mut rng, &ctrl);
                let r = rounding(&ctrl, &l);
                assert_eq!(r.bits, round(&ctrl, &l));
                let d = r.decisions.expect("a finite nonzero lane has decisions");
                let s = d.step;
                let ctx = format!("{ctrl:?} {l:?} {d:?}");
                check_step(&s, p, rnd, l.sign);
                check_step(&d.tininess, p + 1, rnd, l.sign);
                match d.at_f32 {
                    Some(s32) => {
                        assert!(ctrl.via_f32, "{ctx}");
                        check_step(&s32, 24, effective_rnd(&ctrl), l.sign);
                        assert_eq!(s32.exp, l.exp as i32 + s32.carry as i32, "{ctx}");
                        // The binary32 value is normal there, and it is what the half rounding
                        // read: its top 11 bits kept where it is normal in binary16, the rest in
                        // the round bit and below, nothing more shifted out.
                        assert!(s32.sig >> 23 == 1, "{ctx}");
                        if s32.exp >= f.emin {
                            assert_eq!(s.kept, s32.sig >> 13, "{ctx}");
                            assert_eq!(s.rb, s32.sig >> 12 & 1 != 0, "{ctx}");
                            assert_eq!(s.below, s32.sig & 0xFFF != 0, "{ctx}");
                            assert!(!s.sticky_in, "{ctx}");
                        }
                        seen[7] += s32.inc as u32;
                    }
                    None => {
                        assert!(!ctrl.via_f32, "{ctx}");
                        assert_eq!(s.exp, l.exp as i32 + s.carry as i32, "{ctx}");
                        assert_eq!(s.sticky_in, l.sticky, "{ctx}");
                    }
                }
                // Tininess: before rounding is the lead bit clear; after it, only a value tiny
                // before; every value that rounds to a subnormal or zero is tiny, and one that
                // reaches 2^emin one position lower reaches it at the result's precision too.
                assert_eq!(d.tiny_before, s.kept >> (p - 1) == 0, "{ctx}");
                assert!(!d.tiny_after | d.tiny_before, "{ctx}");
                assert!(d.normal | d.tiny_after, "{ctx}");
                assert!(!(d.tiny_before & !d.tiny_after) | d.normal, "{ctx}");
                assert_eq!(d.normal, s.sig >> (p - 1) == 1, "{ctx}");
                assert_eq!(d.overflow, d.normal & (s.exp > f.emax), "{ctx}");
                assert_eq!(d.flushed, flush & d.tiny_after & !d.overflow, "{ctx}");

                let enc = r.unclamped;
                let mag = enc & (sign_bit - 1);
                let toward_inf = match rnd {
                    Rnd::Rn => true,
                    Rnd::Rz => false,
                    Rnd::Rm => l.sign,
                    Rnd::Rp => !l.sign,
                };
                assert_eq!(mag == inf, d.overflow && toward_inf, "{ctx} {enc:#x}");
                if d.overflow {
                    assert_eq!(mag, if toward_inf { inf } else { inf - 1 }, "{ctx}");
                    assert_eq!(enc & sign_bit != 0, l.sign, "{ctx}");
                } else if d.flushed {
                    assert_eq!(enc, (l.flush_sign as u64) << (f.width - 1), "{ctx}");
                } else {
                    // The encoding is the rounded significand at the rounded exponent:
                    // the kept significand, plus one exactly where the rounder incremented.
                    assert_eq!(enc & sign_bit != 0, l.sign, "{ctx}");
                    let field = mag >> (p - 1);
                    let sig = (mag & ((1 << (p - 1)) - 1)) | ((field != 0) as u64) << (p - 1);
                    assert_eq!(sig, s.sig, "{ctx} {enc:#x}");
                    assert_eq!(
                        field,
                        if d.normal {
                            (s.exp - f.emin + 1) as u64
                        } else {
                            0
                        }
                    );
                    let unshifted = if s.carry { sig << 1 } else { sig };
                    assert_eq!(unshifted, s.kept + s.inc as u64, "{ctx}");
                }
                for (k, hit) in [s.inc, s.carry, d.overflow, d.flushed, d.tiny_after]
                    .into_iter()
                    .enumerate()
                {
                    seen[k] += hit as u32;
                }
                seen[5] += (d.tiny_before & !d.tiny_after) as u32;
                seen[6] += (!d.normal & !d.flushed & (s.sig != 0)) as u32;
            }
        }
        // inc, carry, overflow, flushed, tiny after rounding, tiny only before it, a subnormal
        // result, the binary32 step's increment: every one reached.
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    /// A special result or a zero passes through with no decision.
    #[test]
    fn specials_and_zeros_have_no_decisions() {
        let ctrl = Ctrl::fma(Kind::F32, Rnd::Rn);
        let nan = S3Lane {
            spec_valid: true,
            spec_res: 0x7FC0_0000,
            ..S3Lane::default()
        };
        let zero = S3Lane {
            zero: true,
            sign: true,
            ..S3Lane::default()
        };
        for (l, want) in [(nan, 0x7FC0_0000), (zero, 0x8000_0000)] {
            let r = rounding(&ctrl, &l);
            assert_eq!((r.bits, r.unclamped, r.decisions), (want, want, None));
        }
    }
}

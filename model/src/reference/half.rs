//! Half-precision PTX semantics (decisions S10-S13 of `docs/semantics.md`) on `rustc_apfloat`'s
//! `Half` and `BFloat`, sharing no code with the datapath.
//!
//! IEEE gives the correctly rounded `a*b+c` with gradual underflow in each format; PTX's
//! additions are written out here: operand substitution for add/sub/mul, `.ftz` on inputs and
//! results (tininess after rounding, from the same fma in an 11-bit format with an unbounded
//! exponent), the one NaN (S10), `.sat`, `.relu` (S11), `.oob` (S12), and the binary32 route of
//! `fma.{rz,rm,rp}.bf16` (S13).

use rustc_apfloat::ieee::{BFloatS, HalfS, IeeeFloat, Semantics, SingleS};
use rustc_apfloat::{Float, FloatConvert, Round};

use super::soft::round;
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};

/// The NaN of every half-precision result (S10).
const NAN: u16 = 0x7fff;
/// The OOB NaN `.oob` looks for, either sign (S12).
const OOB_NAN: u16 = 0x7ff7;

/// binary16's precision with an exponent range no FMA of binary16 operands leaves: rounding
/// there is rounding "to 11 bits with an unbounded exponent", the `.ftz` tininess rule (S4).
/// (`.ftz` exists for binary16 only.)
struct UnboundedHalfS;

impl Semantics for UnboundedHalfS {
    const BITS: usize = 1 + 15 + 10;
    const EXP_BITS: usize = 15;
}

/// The PTX result of the half-kind instruction `ctrl`: one 16-bit lane in bits 15:0 (`Half`),
/// or lane 0 in 15:0 and lane 1 in 31:16 (`Half2`).
///
/// # Panics
/// If `ctrl` is not of a half kind.
pub fn eval(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    let lane = |k: u32| {
        let h = |x: u64| (x >> (16 * k)) as u16;
        u64::from(if ctrl.ab_fmt == AbFmt::Bf16 {
            lane_in::<BFloatS>(ctrl, h(a), h(b), h(c))
        } else {
            lane_in::<HalfS>(ctrl, h(a), h(b), h(c))
        })
    };
    match ctrl.kind {
        Kind::Half => lane(0),
        Kind::Half2 => lane(0) | lane(1) << 16,
        k => panic!("not a half-precision kind: {k:?}"),
    }
}

fn from16<S: Semantics>(x: u16) -> IeeeFloat<S> {
    IeeeFloat::<S>::from_bits(u128::from(x))
}

fn convert<S: Semantics, T: Semantics>(x: IeeeFloat<S>, r: Round) -> IeeeFloat<T>
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<T>>,
{
    x.convert_r(r, &mut false).value
}

/// One lane in format `S` (binary16 or bfloat16).
fn lane_in<S: Semantics>(ctrl: &Ctrl, a: u16, b: u16, c: u16) -> u16
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<SingleS>> + FloatConvert<IeeeFloat<UnboundedHalfS>>,
    IeeeFloat<SingleS>: FloatConvert<IeeeFloat<S>>,
{
    let sign = 1u16 << 15;
    let one = IeeeFloat::<S>::from_u128(1).value.to_bits() as u16;
    // S12: the OOB NaN in a or b gives +0 whatever else happens.
    if ctrl.oob && (a & !sign == OOB_NAN || b & !sign == OOB_NAN) {
        return 0;
    }
    // add/sub/mul on the FMA datapath: b = 1.0, c negated, c = -0 (+0 under rm).
    let b = if ctrl.b_one { one } else { b };
    let c = if ctrl.c_zero {
        if ctrl.rnd == Rnd::Rm {
            0
        } else {
            sign
        }
    } else {
        c
    };
    let c = if ctrl.neg_c { c ^ sign } else { c };
    let flush = |x: u16| {
        let f = from16::<S>(x);
        if ctrl.ftz && f.is_denormal() {
            x & sign
        } else {
            x
        }
    };
    let (a, b, c) = (flush(a), flush(b), flush(c));
    let (fa, fb, fc) = (from16::<S>(a), from16::<S>(b), from16::<S>(c));
    let r = if ctrl.via_f32 {
        // S13: binary32 in the written direction, then the half format to nearest.
        let s = |x| convert::<S, SingleS>(x, Round::NearestTiesToEven);
        let r32 = s(fa).mul_add_r(s(fb), s(fc), round(ctrl.rnd)).value;
        convert::<SingleS, S>(r32, Round::NearestTiesToEven)
    } else {
        fa.mul_add_r(fb, fc, round(ctrl.rnd)).value
    };
    let mut d = if r.is_nan() { NAN } else { r.to_bits() as u16 };
    if ctrl.ftz && !r.is_nan() && r.is_finite() {
        assert_eq!(S::PRECISION, 11, ".ftz is a binary16 modifier");
        // Tiny after rounding: the same fma at the same precision with an unbounded exponent
        // lies below the smallest normal.
        let u = |x| convert::<S, UnboundedHalfS>(x, Round::NearestTiesToEven);
        let wide = u(fa).mul_add_r(u(fb), u(fc), round(ctrl.rnd)).value;
        let min_normal = convert::<S, UnboundedHalfS>(
            IeeeFloat::<S>::smallest_normalized(),
            Round::NearestTiesToEven,
        );
        if !wide.is_zero() && wide.abs() < min_normal {
            d &= sign;
        }
    }
    let is_nan = |x: u16| from16::<S>(x).is_nan();
    if ctrl.sat {
        // S3 in the half format: NaN and anything <= 0 to +0, >= 1.0 to 1.0.
        if is_nan(d) || d & sign != 0 {
            d = 0;
        } else if from16::<S>(d) >= from16::<S>(one) {
            d = one;
        }
    }
    if ctrl.relu {
        // S11: NaN to the NaN, anything negative (-0 too) to +0.
        if is_nan(d) {
            d = NAN;
        } else if d & sign != 0 {
            d = 0;
        }
    }
    d
}

//! Portable IEEE fma reference: `rustc_apfloat` (a Rust port of LLVM's APFloat).
//!
//! It shares nothing with the host FPU or with the datapath, so it is the default engine of
//! [`super::ptx::eval`] and the one that runs on every machine. It is slow (a few hundred ns per
//! call), which is fine for an oracle.

use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};

use super::Ieee;
use crate::ctrl::Rnd;

/// The `rustc_apfloat` engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct Soft;

/// Maps the PTX rounding modifier to APFloat's; the four PTX modes are exactly IEEE's
/// roundTiesToEven, roundTowardZero, roundTowardNegative and roundTowardPositive.
pub(super) fn round(rnd: Rnd) -> Round {
    match rnd {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
    }
}

/// IEEE binary32 `a * b + c` (raw bits), one rounding in direction `rnd`.
pub fn fma32(a: u32, b: u32, c: u32, rnd: Rnd) -> u32 {
    let r = Single::from_bits(a.into()).mul_add_r(
        Single::from_bits(b.into()),
        Single::from_bits(c.into()),
        round(rnd),
    );
    r.value.to_bits() as u32
}

/// IEEE binary64 `a * b + c` (raw bits), one rounding in direction `rnd`.
pub fn fma64(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
    let r = Double::from_bits(a.into()).mul_add_r(
        Double::from_bits(b.into()),
        Double::from_bits(c.into()),
        round(rnd),
    );
    r.value.to_bits() as u64
}

impl Ieee for Soft {
    fn fma32(&self, a: u32, b: u32, c: u32, rnd: Rnd) -> u32 {
        fma32(a, b, c, rnd)
    }
    fn fma64(&self, a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
        fma64(a, b, c, rnd)
    }
}

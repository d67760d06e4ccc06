//! Operand generators: TestFloat-style edge-biased floats (`float`), boundary-biased vmad
//! integers (`vmad`), and here the per-control-word choice between them ([`operands_for`]) and
//! the [`Vector`] it makes.

mod float;
mod vmad;

pub use crate::format::{Fmt, BF16, F16, F32, F64};
pub use float::{float_operand, frac_pattern};
pub use vmad::{int_operand, VMAD_EDGES};

use super::rng::Rng;
use crate::ctrl::{AbFmt, Ctrl, Kind};
use float::{fma_operands, half_operands, sm1x_range_operands};

/// One operation: control word and the three 64-bit source buses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vector {
    pub ctrl: Ctrl,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

impl Vector {
    /// This vector presented to the pipe as a valid input with `tag`.
    pub fn input(&self, tag: u16) -> crate::machine::pipe_in::PipeIn {
        crate::machine::pipe_in::PipeIn {
            valid: true,
            tag,
            ctrl: self.ctrl.encode(),
            a: self.a,
            b: self.b,
            c: self.c,
            reset: false,
        }
    }
}

/// Operands for a fixed control word. Operands the instruction does not read are zero (`b` of
/// add/sub, `c` of mul, bits 63:16 of f16/bf16 and 63:32 of f32 and vmad sources), so that a
/// vector replays exactly from its `fma-model eval` line (`ptxfma_ptx::print::eval_line`).
pub fn operands_for(ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    operands_inline(ctrl, rng)
}

/// [`operands_for`], inlined into the generator's loop ([`super::Stimulus`]).
#[inline(always)]
pub(super) fn operands_inline(ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    // Each arm names its formats as constants (those of `Ctrl::operand_formats`), so that
    // `fma_operands` compiles once per pair.
    let zero_c = |(a, b, c): (u64, u64, u64)| (a, b, if ctrl.c_zero { 0 } else { c });
    match ctrl.kind {
        Kind::Vmad => (int_operand(rng), int_operand(rng), int_operand(rng)),
        Kind::F64 => zero_c(fma_operands(F64, F64, ctrl, rng)),
        Kind::F32x2 => {
            let (mut a, mut b, mut c) = (0, 0, 0);
            for lane in 0..2 {
                let (la, lb, lc) = fma_operands(F32, F32, ctrl, rng);
                a |= la << (32 * lane);
                b |= lb << (32 * lane);
                c |= lc << (32 * lane);
            }
            zero_c((a, b, c))
        }
        Kind::Sm1x => {
            if rng.chance(1, 5) {
                sm1x_range_operands(rng)
            } else {
                fma_operands(F32, F32, ctrl, rng)
            }
        }
        Kind::F32 => zero_c(match ctrl.ab_fmt {
            AbFmt::F16 => fma_operands(F16, F32, ctrl, rng),
            AbFmt::Bf16 => fma_operands(BF16, F32, ctrl, rng),
            AbFmt::Native => fma_operands(F32, F32, ctrl, rng),
        }),
        Kind::Half | Kind::Half2 => {
            if ctrl.ab_fmt == AbFmt::Bf16 {
                half_lanes(BF16, ctrl, rng)
            } else {
                half_lanes(F16, ctrl, rng)
            }
        }
    }
}

/// The lanes of a half kind (one, or two for `Half2`), each of `fmt` ([`Ctrl::half_fmt`]).
#[inline(always)]
fn half_lanes(fmt: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    let lanes = if ctrl.kind == Kind::Half2 { 2 } else { 1 };
    let (mut a, mut b, mut c) = (0, 0, 0);
    for lane in 0..lanes {
        let (la, lb, lc) = half_operands(fmt, ctrl, rng);
        a |= la << (16 * lane);
        b |= lb << (16 * lane);
        c |= lc << (16 * lane);
    }
    (a, b, c)
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

#[cfg(test)]
mod tests;

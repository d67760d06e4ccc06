//! Independent references: the oracles the cycle-level model is judged against (the same role
//! one level up is the co-simulator's `reference.rs`, where the model is what the RTL is judged
//! against).
//!
//! Nothing here imports the datapath (`booth`, `align`, `round`, `sm1x`, `vmad`, ...): the only
//! shared code is the control word in [`crate::ctrl`], which is the interface under test, not an
//! implementation of it. A bug in the datapath therefore cannot hide by being copied here.
//!
//! * [`host`] (x86-64 only): IEEE fma through the host's FMA3 instruction, one `asm!` block per
//!   call that owns MXCSR for its duration.
//! * [`soft`]: the same with `rustc_apfloat`, portable, so the project builds and tests anywhere.
//! * [`ptx`]: the PTX semantics (decisions S1-S9 in `docs/semantics.md`) layered on either IEEE
//!   engine, dispatching sm_1x `mad` to [`sm1x`], `vmad` to [`vmad`] and the half kinds to
//!   [`half`].
//! * [`half`]: `fma/add/sub/mul` on binary16 and bfloat16 (S10-S13) on `rustc_apfloat`'s half
//!   formats.
//! * [`sm1x`]: sm_1x `mad.f32` from the PTX text in exact big-integer arithmetic.
//! * [`f32_rules`]: the f32 NaN and saturation rules both [`ptx`] and [`sm1x`] apply.
//! * [`vmad`]: the PTX `vmad` pseudo-code with a 128-bit intermediate, with the three changes
//!   sm_90 silicon makes to it (S8).

use crate::ctrl::Rnd;

pub mod f32_rules;
pub mod half;
#[cfg(target_arch = "x86_64")]
pub mod host;
pub mod ptx;
pub mod sm1x;
pub mod soft;
pub mod vmad;

/// An IEEE 754 fused multiply-add engine on raw bits, with no flushing of any kind.
///
/// The PTX layer is generic over this so that the same S1-S9 code can sit on two unrelated IEEE
/// implementations (the host instruction and `rustc_apfloat`); agreement of the two is then a
/// check of both. NaN results are only required to be *some* NaN: [`ptx`] replaces them anyway.
pub trait Ieee {
    /// `a * b + c` in binary32, rounded once in direction `rnd`, gradual underflow.
    fn fma32(&self, a: u32, b: u32, c: u32, rnd: Rnd) -> u32;
    /// `a * b + c` in binary64, rounded once in direction `rnd`, gradual underflow.
    fn fma64(&self, a: u64, b: u64, c: u64, rnd: Rnd) -> u64;
}

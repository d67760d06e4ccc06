//! Host IEEE fma reference: the x86-64 FMA3 instruction (`vfmadd231ss` / `vfmadd231sd`).
//!
//! The rounding direction lives in MXCSR, which Rust code is not allowed to leave changed
//! (the compiler assumes round-to-nearest and no FTZ/DAZ everywhere). So each call is ONE `asm!`
//! block that saves MXCSR (`stmxcsr`), installs the wanted rounding control with FTZ and DAZ off
//! and every exception masked, runs the fma, and restores the saved MXCSR (`ldmxcsr`) before
//! the block ends. The `_mm_setcsr` / `_MM_SET_ROUNDING_MODE` intrinsics are deprecated precisely
//! because a change made between two Rust statements is not guaranteed to reach the
//! floating-point operation in between.
//!
//! FTZ and DAZ stay off on purpose: x86's FTZ detects tininess differently from PTX `.ftz`
//! (see S4 in `docs/semantics.md`), so flushing is done by [`super::ptx`] on IEEE results.

use std::arch::asm;

use super::Ieee;
use crate::ctrl::Rnd;

/// MXCSR rounding-control field (bits 14:13).
const MXCSR_RC_MASK: u32 = 0b11 << 13;
/// MXCSR flush-to-zero (bit 15) and denormals-are-zero (bit 6).
const MXCSR_FTZ: u32 = 1 << 15;
const MXCSR_DAZ: u32 = 1 << 6;
/// MXCSR exception masks (bits 12:7): all set, so an invalid or inexact fma never traps even
/// if the caller had unmasked an exception.
const MXCSR_MASKS: u32 = 0x3f << 7;

/// Proof that the CPU has FMA3 (and the OS saves AVX state, which `std` checks along with it).
/// Only [`Host::detect`] makes one, so holding a `Host` makes the `asm!` sound.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    _private: (),
}

impl Host {
    /// `Some` when the host can execute FMA3 instructions, `None` otherwise.
    pub fn detect() -> Option<Host> {
        if std::arch::is_x86_feature_detected!("fma") {
            Some(Host { _private: () })
        } else {
            None
        }
    }
}

/// The MXCSR rounding-control encoding of each PTX direction (00 nearest, 01 down, 10 up,
/// 11 toward zero), already shifted into bits 14:13.
fn rc_bits(rnd: Rnd) -> u32 {
    let rc = match rnd {
        Rnd::Rn => 0b00,
        Rnd::Rm => 0b01,
        Rnd::Rp => 0b10,
        Rnd::Rz => 0b11,
    };
    rc << 13
}

/// One fused multiply-add under `rnd`, in one `asm!` block: save MXCSR, set the rounding
/// control (with FTZ/DAZ off and exceptions masked), compute, restore. `$insn` is the scalar
/// FMA3 instruction and `$t` its float type; both widths share this one template.
macro_rules! fma_under_mxcsr {
    ($insn:literal, $t:ty, $a:expr, $b:expr, $c:expr, $rnd:expr) => {{
        let keep = !(MXCSR_RC_MASK | MXCSR_FTZ | MXCSR_DAZ);
        let set = rc_bits($rnd) | MXCSR_MASKS;
        let mut saved: u32 = 0;
        let mut scratch: u32 = 0;
        let mut acc = <$t>::from_bits($c);
        // SAFETY: `Host` exists only if FMA3 is available. The block writes only the two local
        // u32 slots it is given, touches no stack, and leaves MXCSR exactly as it found it.
        unsafe {
            asm!(
                "stmxcsr dword ptr [{saved}]",
                "mov {t:e}, dword ptr [{saved}]",
                "and {t:e}, {keep:e}",
                "or {t:e}, {set:e}",
                "mov dword ptr [{scratch}], {t:e}",
                "ldmxcsr dword ptr [{scratch}]",
                concat!($insn, " {acc}, {x}, {y}"),
                "ldmxcsr dword ptr [{saved}]",
                saved = in(reg) &mut saved as *mut u32,
                scratch = in(reg) &mut scratch as *mut u32,
                keep = in(reg) keep,
                set = in(reg) set,
                t = out(reg) _,
                acc = inout(xmm_reg) acc,
                x = in(xmm_reg) <$t>::from_bits($a),
                y = in(xmm_reg) <$t>::from_bits($b),
                options(nostack),
            );
        }
        acc.to_bits()
    }};
}

impl Ieee for Host {
    fn fma32(&self, a: u32, b: u32, c: u32, rnd: Rnd) -> u32 {
        fma_under_mxcsr!("vfmadd231ss", f32, a, b, c, rnd)
    }

    fn fma64(&self, a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
        fma_under_mxcsr!("vfmadd231sd", f64, a, b, c, rnd)
    }
}

/// IEEE binary32 `a * b + c` on the host FPU; `None` when the CPU lacks FMA3.
pub fn fma32(a: u32, b: u32, c: u32, rnd: Rnd) -> Option<u32> {
    Host::detect().map(|h| h.fma32(a, b, c, rnd))
}

/// IEEE binary64 `a * b + c` on the host FPU; `None` when the CPU lacks FMA3.
pub fn fma64(a: u64, b: u64, c: u64, rnd: Rnd) -> Option<u64> {
    Host::detect().map(|h| h.fma64(a, b, c, rnd))
}

//! vmad side path. The product comes from the shared Booth array; these are the integer steps
//! around it, one per stage, following the PTX pseudo-code as sm_90 computes it (decision S8: c
//! always sign-extended, an unsigned result scaled with zeros shifted in, `.sat` reading the
//! 64-bit result as signed) with an 80-bit
//! intermediate (bits above 79 of the 128-bit `tmp` never reach the result).

use crate::ctrl::{Ctrl, Scale};
use crate::regs::S1Vmad;

pub const TMP_MASK: u128 = (1 << 80) - 1;

/// Stage 1: the negation choice and the addend, sign-extended whatever the final type (S8).
pub fn prepare(ctrl: &Ctrl, c: u32) -> S1Vmad {
    let (inv, lsb, c) = if ctrl.po {
        (false, true, c)
    } else if ctrl.neg_ab {
        (true, true, c)
    } else if ctrl.neg_c {
        (false, true, !c)
    } else {
        (false, false, c)
    };
    let cext = c as i32 as i128 as u128;
    S1Vmad {
        vm_cext: cext & TMP_MASK,
        vm_inv: inv,
        vm_lsb: lsb,
    }
}

/// Stage 2: tmp = (~)product + c + lsb.
pub fn accumulate(product: u128, vm: &S1Vmad) -> u128 {
    let p = if vm.vm_inv { !product } else { product };
    (p & TMP_MASK)
        .wrapping_add(vm.vm_cext)
        .wrapping_add(vm.vm_lsb as u128)
        & TMP_MASK
}

/// Stage 3: the 64-bit result after `.shr7` / `.shr15`: the low 64 bits of `tmp` shifted
/// right, sign-extended for a signed final result and zero-extended for an unsigned one (S8),
/// so a negative unsigned sum scaled comes out as a large positive one.
pub fn scale(ctrl: &Ctrl, tmp: u128) -> u64 {
    let shift = match ctrl.scale {
        Scale::None => return tmp as u64,
        Scale::Shr7 => 7,
        Scale::Shr15 => 15,
    };
    if ctrl.signed_final() {
        (tmp >> shift) as u64
    } else {
        (tmp as u64) >> shift
    }
}

/// Stage 4: optional saturation, then the low word. Both final types read the 64-bit result
/// as signed (S8): an unsigned one clamps to [0, U32_MAX], so a negative result gives 0.
pub fn saturate(ctrl: &Ctrl, res: u64) -> u64 {
    let r = if !ctrl.sat {
        res
    } else if ctrl.signed_final() {
        (res as i64).clamp(i32::MIN as i64, i32::MAX as i64) as u64
    } else {
        (res as i64).clamp(0, u32::MAX as i64) as u64
    };
    r & 0xFFFF_FFFF
}

//! Addend alignment shifter with sticky, working in parallel with the multiplier array.
//!
//! The window's geometry is drawn in [`crate::geometry`]. The addend starts with its leading bit
//! at window bit [`C_TOP`] and shifts right by `NEAR - (ec - ep)`; an addend more than
//! [`NEAR`] binades above the product stays at the top, which leaves a two-bit gap above the
//! product, enough for the product to act as a sticky contribution only.

use crate::geometry::{ALIGN_W, C_TOP, REF_BIT, SIG_W};
use crate::regs::U164;

/// Largest shift: the whole addend is below the window.
pub const MAX_SHIFT: u32 = ALIGN_W;
/// Binades from the reference bit up to the addend's leading bit before the shift: an addend
/// this far above the product is not shifted.
const NEAR: i32 = (C_TOP - REF_BIT) as i32;

/// Output of the alignment shifter for one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aligned {
    /// Window bit k weighs 2^(eref - REF_BIT + k).
    pub eref: i32,
    pub c_aligned: U164,
    pub sticky: bool,
}

/// Right shift amount and reference exponent for addend exponent `ec` and product exponent
/// `ep` (the exponent of product bit 104, the sum of the factors' exponents).
#[inline(always)]
pub fn shift_amount(ep: i32, ec: i32, prod_zero: bool, c_zero: bool) -> (u32, i32) {
    let d = ec - ep;
    // Branch-free: whether the addend is far above the product is data-dependent.
    let far = prod_zero | (d > NEAR);
    let near_sh = (NEAR - d).clamp(0, MAX_SHIFT as i32) as u32;
    let sh = if far { 0 } else { near_sh };
    let eref = if far { ec - NEAR } else { ep };
    if c_zero {
        // Nothing to align; keep the product's scale.
        (MAX_SHIFT, ep)
    } else {
        (sh, eref)
    }
}

/// Places the SIG_W-bit MSB-aligned addend significand in the window.
#[inline(always)]
pub fn align(c_sig: u64, ep: i32, ec: i32, prod_zero: bool, c_zero: bool) -> Aligned {
    let (sh, eref) = shift_amount(ep, ec, prod_zero, c_zero);
    let top = U164::from(c_sig) << (C_TOP + 1 - SIG_W) as usize;
    let (c_aligned, sticky) = top.shr_sticky(sh as usize);
    Aligned {
        eref,
        c_aligned,
        sticky,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_keeps_value_and_collects_sticky() {
        let c = (1u64 << 52) | 0b1011;
        let a = align(c, 0, 0, false, false);
        // ec == ep: the addend's leading bit lines up with product bit 104 (window bit 107).
        assert_eq!(a.c_aligned, U164::from(c) << 55);
        assert!(!a.sticky);
        let a = align(c, 60, 0, false, false); // 56 - (-60) = 116: low 4 bits fall out
        assert_eq!(a.c_aligned, U164::from(c) >> 5);
        assert!(a.sticky);
        let a = align(c, -100, 0, false, false); // far above: clamped to the top
        assert_eq!((a.eref, a.c_aligned >> 111), (-56, U164::from(c)));
        let a = align(c, 500, 0, false, false);
        assert!(a.c_aligned.is_zero() && a.sticky);
    }
}

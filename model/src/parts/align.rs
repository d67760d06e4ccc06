//! Addend alignment shifter with sticky, working in parallel with the multiplier array.
//!
//! The adder window is 164 bits. The product sits at bits 108:3 (three guard bits below it
//! keep the addend's shifted-out bits below the round position even when a subnormal factor
//! leaves the product short). The addend starts with its leading bit at window bit 163 and
//! shifts right by `56 - (ec - ep)`; an addend more than 56 binades above the product stays at
//! the top, which leaves a two-bit gap above the product, enough for the product to act as a
//! sticky contribution only.

use crate::machine::regs::U164;

/// Window bit of the addend's leading bit before shifting.
pub const C_TOP: usize = 163;
/// Largest shift: the whole addend is below the window.
pub const MAX_SHIFT: u32 = 164;

/// Output of the alignment shifter for one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aligned {
    /// Window bit k weighs 2^(eref - 107 + k).
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
    let far = prod_zero | (d > 56);
    let near_sh = (56 - d).clamp(0, MAX_SHIFT as i32) as u32;
    let sh = if far { 0 } else { near_sh };
    let eref = if far { ec - 56 } else { ep };
    if c_zero {
        // Nothing to align; keep the product's scale.
        (MAX_SHIFT, ep)
    } else {
        (sh, eref)
    }
}

/// Places the 53-bit MSB-aligned addend significand in the window.
#[inline(always)]
pub fn align(c_sig: u64, ep: i32, ec: i32, prod_zero: bool, c_zero: bool) -> Aligned {
    let (sh, eref) = shift_amount(ep, ec, prod_zero, c_zero);
    let top = U164::from(c_sig) << (C_TOP - 52);
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

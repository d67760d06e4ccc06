//! The datapath's widths and the adder window's geometry, by name, derived from the formats.
//!
//! These are the widths the register banks and the parts are written in; the RTL package
//! (`rtl/ptxfma_pkg.sv`) gets the same names as generated localparams (`ALIGN_W` is `AlignW`),
//! so a width is written once, here.
//!
//! The adder window (one lane; bit numbers for f64, which sets every width):
//!
//! ```text
//!  AddW-1   MagW-1   AlignW-1 = CTop                 RefBit       ProdLsb
//!  165      164      163                             107   ...    3      0
//!  |sign    |carry   |<-- addend before the shift: SigW bits -->|
//!                             (shifted right by CTop - RefBit - (ec - ep))
//!                    ...      |<---------- product: MulW bits, 108:3 ----------->|guard|
//!                                                    ^ product bit 2 * F64 frac_bits,
//!                                                      weight 2^ep, is window bit RefBit
//! ```
//!
//! Window bit k weighs `2^(eref - REF_BIT + k)`. The addend's leading bit starts at `C_TOP`
//! and an addend exactly `C_TOP - REF_BIT` binades above the product stays there; the
//! product's `PROD_LSB` guard bits keep the addend's shifted-out bits below the round
//! position even when a subnormal factor leaves the product short. The normaliser puts the
//! leading one at `MAG_W - 1`.

use crate::format::F64;

/// Declares each width as a `pub const` and lists them all, with their docs, in [`ALL`], from
/// which the RTL package's localparams are generated.
macro_rules! widths {
    ($( $(#[doc = $doc:literal])* $name:ident = $value:expr; )*) => {
        $( $(#[doc = $doc])* pub const $name: u32 = $value; )*

        /// Every width above, in declaration order: (name, value, doc).
        pub const ALL: &[(&str, u32, &str)] = &[
            $( (stringify!($name), $name, concat!($($doc, "\n"),*)) ),*
        ];
    };
}

widths! {
    /// Operand and result words: a binary64, two binary32 or a vmad word in the low bits.
    DATA_W = F64.width();
    /// The operation tag that rides along with each operation.
    TAG_W = 16;
    /// The internal significand: binary64's, with the hidden one, MSB-aligned.
    SIG_W = F64.frac_bits + 1;
    /// The multiplier's product and carry-save rows: a full binary64 significand product.
    MUL_W = 2 * SIG_W;
    /// Guard bits below the product in the adder window.
    PROD_LSB = 3;
    /// The window bit of the product's bit 104 (twice binary64's fraction), which weighs 2^ep.
    REF_BIT = PROD_LSB + 2 * F64.frac_bits;
    /// The aligned addend: the product's guard bits and rows, a two-bit gap, and the addend's
    /// significand on top.
    ALIGN_W = PROD_LSB + MUL_W + 2 + SIG_W;
    /// The sum's magnitude and the normalised significand: the aligned addend plus a carry.
    MAG_W = ALIGN_W + 1;
    /// The signed adder: the magnitude plus a sign.
    ADD_W = MAG_W + 1;
    /// Shift counts over the adder window, 0 up to its width: the LZA's count and the
    /// normaliser's.
    SHIFT_CNT_W = u32::BITS - ADD_W.leading_zeros();
    /// vmad's intermediate: a 66-bit product and a sign-extended c, with room to spare.
    VM_TMP_W = 80;
    /// Internal exponent arithmetic (holds every exponent the datapath forms).
    EXP_W = 16;
    /// Exponents as the registers keep them: the low bits, two's complement.
    EXP_REG_W = 14;
}

/// The addend's leading bit before the alignment shift.
pub const C_TOP: u32 = ALIGN_W - 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_as_drawn() {
        assert_eq!((SIG_W, MUL_W, REF_BIT), (53, 106, 107));
        assert_eq!((ALIGN_W, MAG_W, ADD_W, C_TOP), (164, 165, 166, 163));
        // The product, MUL_W bits from PROD_LSB, ends two bits below the addend's top.
        assert_eq!(PROD_LSB + MUL_W, 109);
        assert_eq!(C_TOP - REF_BIT, 56);
        // $clog2(ADD_W + 1): a count of 0..=166 takes 8 bits.
        assert_eq!(SHIFT_CNT_W, 8);
        assert_eq!(ALL.len(), 13);
    }
}

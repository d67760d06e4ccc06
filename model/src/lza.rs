//! Leading-zero anticipator: predicts the normalisation shift from the adder's two operands
//! while the carry-propagate add runs, so the shifter does not wait for the sum.
//!
//! The indicator is Schmookler and Nowka's: with t = a^b, g = a&b, z = ~a&~b,
//! f_i = t_{i+1} (g_i ~z_{i-1} | z_i ~g_{i-1}) | ~t_{i+1} (z_i ~z_{i-1} | g_i ~g_{i-1}),
//! taking t_166 = 0, g_{-1} = 0, z_{-1} = 1. Its leading one marks the first significant digit
//! of the two's-complement sum to within one position; the carry-in of a subtraction and the
//! complement that turns a negative sum into a magnitude can move it one place the other way,
//! so the normaliser corrects by one bit in either direction.

use crate::regs::U166;

/// Predicted leading zeros of the 165-bit magnitude (bits 164:0) of `a + b`.
pub fn predict(a: U166, b: U166) -> u8 {
    let t = a ^ b;
    let g = a & b;
    let z = !(a | b);
    let t_up: U166 = t >> 1usize;
    let g_dn: U166 = g << 1usize;
    let z_dn: U166 = (z << 1usize) | U166::from(1u8);
    let f = (t_up & ((g & !z_dn) | (z & !g_dn))) | (!t_up & ((z & !z_dn) | (g & !g_dn)));
    if f.is_zero() {
        return 165;
    }
    // leading_zeros counts within the 166-bit width.
    let pos = 165 - f.leading_zeros() as i32;
    (164 - pos).clamp(0, 165) as u8
}

//! Leading-zero anticipator: predicts the normalisation shift from the adder's two operands
//! while the carry-propagate add runs, so the shifter does not wait for the sum.
//!
//! The indicator is Schmookler and Nowka's: with t = a^b, g = a&b, z = ~a&~b,
//! f_i = t_{i+1} (g_i ~z_{i-1} | z_i ~g_{i-1}) | ~t_{i+1} (z_i ~z_{i-1} | g_i ~g_{i-1}),
//! taking t_ADD_W = 0, g_{-1} = 0, z_{-1} = 1. Its leading one marks the first significant digit
//! of the two's-complement sum to within one position; the carry-in of a subtraction and the
//! complement that turns a negative sum into a magnitude can move it one place the other way,
//! so the normaliser corrects by one bit in either direction.

use crate::geometry::MAG_W;
use crate::regs::U166;

/// Predicted leading zeros of the MAG_W-bit magnitude of `a + b`.
#[inline(always)]
pub fn predict(a: U166, b: U166) -> u8 {
    let t = a ^ b;
    let g = a & b;
    let z = !(a | b);
    let t_up: U166 = t >> 1usize;
    let g_dn: U166 = g << 1usize;
    let z_dn: U166 = (z << 1usize) | U166::from(1u8);
    let f = (t_up & ((g & !z_dn) | (z & !g_dn))) | (!t_up & ((z & !z_dn) | (g & !g_dn)));
    if f.is_zero() {
        return MAG_W as u8;
    }
    // leading_zeros counts within the ADD_W-bit width, one above the magnitude's.
    let pos = MAG_W as i32 - f.leading_zeros() as i32;
    (MAG_W as i32 - 1 - pos).clamp(0, MAG_W as i32) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parts::adder;
    use crate::regs::U164;

    /// The normaliser corrects one bit either way; the prediction must never be further off.
    #[test]
    fn prediction_is_within_one_bit() {
        let mut x = 0x243F_6A88_85A3_08D3u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..200_000u32 {
            let p = ((next() as u128) << 64 | next() as u128) >> (22 + next() % 100);
            let p = p & ((1 << 106) - 1);
            // Addends near the product (cancellation) and anywhere in the window.
            let c = if i % 2 == 0 {
                U164::from(p) << 3
            } else {
                U164::from(next() | 1 << 52) << (next() % 111) as usize
            };
            let c = c ^ U164::from(next() % 8);
            for eff_sub in [false, true] {
                for sticky in [false, true] {
                    let (a, b) = adder::operands(p, c, eff_sub);
                    let sum = adder::add(a, b, eff_sub, sticky);
                    if sum.mag.is_zero() {
                        continue;
                    }
                    let true_lz = sum.mag.leading_zeros() as i32;
                    let pred = predict(a, b) as i32;
                    assert!(
                        (true_lz - pred).abs() <= 1,
                        "p={p:#x} c={c:#x} sub={eff_sub} sticky={sticky}: lz {true_lz} pred {pred}"
                    );
                }
            }
        }
    }
}

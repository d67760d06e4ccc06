//! sm_1x product truncation (S7): the exact product keeps its top 24 significant bits, cut
//! toward zero, and its exponent, before the addition. Inputs are already flushed, so a
//! non-zero product of two normal binary32 significands has its leading one at bit 105 or 104 of
//! the MSB-aligned 106-bit product.

/// Truncates the MSB-aligned product to 24 significant bits.
#[inline(always)]
pub fn truncate_product(p: u128) -> u128 {
    let keep: u128 = if (p >> 105) & 1 != 0 {
        ((1 << 24) - 1) << 82
    } else {
        ((1 << 24) - 1) << 81
    };
    p & keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_24_bits_from_the_leading_one() {
        let all = (1u128 << 106) - 1;
        assert_eq!(truncate_product(all).count_ones(), 24);
        assert_eq!(truncate_product(all >> 1), ((1 << 24) - 1) << 81);
        assert_eq!(truncate_product(0), 0);
    }
}

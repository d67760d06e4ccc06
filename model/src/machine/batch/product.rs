//! The lane engine's multiplier: the exact product of the significands by the machine's
//! 32 x 32 -> 64-bit multiply (`vpmuludq`), for sixteen operations at once.
//!
//! The scalar pipeline and the RTL form the product as a Booth array reduced by a carry-save
//! tree, and register the (sum, carry) pair (`S1::mul_sum`, `S1::mul_carry`): that pair is
//! compared with the RTL every cycle, so [`Pipeline::tick`](crate::machine::pipeline::Pipeline::tick)
//! keeps it. Stage 2 reads only its sum, the product modulo 2^106, which is what this engine
//! computes and carries in [`S1x::prod`](super::banks::S1x); the images path forms the pair
//! itself (`booth`) beside it. Forming 27 Booth rows and 26 compressors on two limbs per lane
//! cost as much as the rest of the stages together: with machine multiplies the lane engine
//! runs binary64 about twice as fast (`make bench`).

use crate::machine::lanes::Lanes;

/// The product of two significands below 2^53 (binary64, hidden bit included), 106 bits as two
/// limbs (bits 63:0, bits 105:64). With a = a1 2^32 + a0 and b = b1 2^32 + b0 (a1, b1 below
/// 2^21): a0 b0 < 2^64, the cross terms a1 b0 + a0 b1 < 2^54 and a1 b1 < 2^42, so no partial
/// sum overflows its word and the high limb stays below 2^42.
#[inline(always)]
pub(super) fn product_full<L: Lanes>(a: L, b: L) -> [L; 2] {
    let (a1, b1) = (a.shr(32), b.shr(32));
    let low = a.mul32(b);
    let cross = a1.mul32(b).add(a.mul32(b1));
    let lo = low.add(cross.shl(32));
    let carry = lo.ltu(low).bit01();
    [lo, a1.mul32(b1).add(cross.shr(32)).add(carry)]
}

/// The product of two significands below 2^32 (binary32, f16 and bf16 ones at their binary32
/// position): one multiply, at most 48 bits.
#[inline(always)]
pub(super) fn product_narrow<L: Lanes>(a: L, b: L) -> [L; 2] {
    [a.mul32(b), L::zero()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::lanes::portable::Portable;

    /// Both products against `u128` multiplication, lane by lane, on the values where a limb
    /// carry or the top of the range would show: all ones, the hidden bit alone, the halves'
    /// boundaries, and a seeded stream. (The backends' `mul32` is checked against the portable
    /// one in `lanes::tests`, so this covers them too.)
    #[test]
    fn products_are_exact() {
        let top = (1u64 << 53) - 1;
        let mut vals = vec![
            0,
            1,
            top,
            1 << 52,
            (1 << 52) | 1,
            0xFFFF_FFFF,
            1 << 32,
            (1 << 32) - 1 + (1 << 52),
            top ^ (1 << 31),
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x & top | 1 << 52);
        }
        let lanes = Portable::LANES;
        let mut carries = 0;
        for (i, chunk) in vals.chunks(lanes).enumerate() {
            let a: Vec<u64> = (0..lanes).map(|k| chunk[k % chunk.len()]).collect();
            let b: Vec<u64> = (0..lanes)
                .map(|k| vals[(i * 7 + k * 13) % vals.len()])
                .collect();
            let [lo, hi] = product_full(Portable::load(&a), Portable::load(&b));
            let [nlo, nhi] = product_narrow(Portable::load(&a).shr(29), Portable::load(&b).shr(29));
            let (lo, hi, nlo, nhi) = (lo.to_vec(), hi.to_vec(), nlo.to_vec(), nhi.to_vec());
            for k in 0..lanes {
                let want = a[k] as u128 * b[k] as u128;
                let got = lo[k] as u128 | (hi[k] as u128) << 64;
                assert_eq!(got, want, "{:#x} * {:#x}", a[k], b[k]);
                assert!(hi[k] < 1 << 42, "high limb of {:#x} * {:#x}", a[k], b[k]);
                // The low limb's sum carried into the high one.
                let low = (a[k] & 0xFFFF_FFFF) * (b[k] & 0xFFFF_FFFF);
                carries += (lo[k] < low) as u32;
                let want = (a[k] >> 29) as u128 * (b[k] >> 29) as u128;
                assert_eq!(nlo[k] as u128 | (nhi[k] as u128) << 64, want);
            }
        }
        assert!(
            carries > 100,
            "only {carries} products carried out of the low limb"
        );
    }
}

//! The stimulus PRNG (splitmix64 seeding xoshiro256**), written out here rather than taken from a
//! crate: a failing seed printed in a divergence report has to replay the same vectors after any
//! dependency upgrade.

/// One step of SplitMix64 (Steele, Lea, Flood 2014). Used only to spread a seed over the
/// xoshiro state, because xoshiro needs a state that is not all zero and whose words differ.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256** (Blackman, Vigna 2018): fast, small, and good enough for test vectors. Fixed here
/// so that its sequence never depends on a crate version. The draws are always inlined: a call
/// per draw, with the state stored and reloaded around it, would cost more than the draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Expands `seed` with SplitMix64, as the xoshiro authors recommend.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng::from_state(s)
    }

    /// Starts from a raw state (used by the known-answer test). An all-zero state would only
    /// ever produce zeros, so it is replaced by the state of seed 0.
    pub fn from_state(s: [u64; 4]) -> Rng {
        if s == [0; 4] {
            return Rng::new(0);
        }
        Rng { s }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A value in `0..n` (`n > 0`), by the multiply-high method. Its bias is below 2^-32 for the
    /// small `n` used here, which does not matter for test vectors.
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A value in `lo..=hi` (`lo <= hi`).
    #[inline(always)]
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        debug_assert!(lo <= hi);
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    #[inline(always)]
    pub fn bit(&mut self) -> bool {
        self.next_u64() >> 63 != 0
    }

    /// True with probability `num / den`.
    #[inline(always)]
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    #[inline(always)]
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_known_answers() {
        // Published outputs of the reference splitmix64.c for seed 1234567.
        let mut s = 1234567u64;
        let got: Vec<u64> = (0..5).map(|_| splitmix64(&mut s)).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423,
                4593380528125082431,
                16408922859458223821
            ]
        );
    }

    #[test]
    fn xoshiro256starstar_known_answers() {
        // Reference xoshiro256starstar.c started from the state {1, 2, 3, 4}.
        let mut r = Rng::from_state([1, 2, 3, 4]);
        let got: Vec<u64> = (0..10).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                11520,
                0,
                1509978240,
                1215971899390074240,
                1216172134540287360,
                607988272756665600,
                16172922978634559625,
                8476171486693032832,
                10595114339597558777,
                2904607092377533576
            ]
        );
    }
}

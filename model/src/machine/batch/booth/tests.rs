use super::*;
use crate::machine::lanes::portable::Portable;
use crate::parts::{booth, csa_tree};
use crate::stimulus::Rng;

/// Lane `i` of a pair as the scalar (sum, carry).
fn lane(p: &Pair<Portable>, i: usize) -> (u128, u128) {
    let w = |v: [Portable; 2]| v[0].to_vec()[i] as u128 | (v[1].to_vec()[i] as u128) << 64;
    (w(p.sum), w(p.carry))
}

/// A significand of `bits` bits: edge values (zero, one, the hidden bit alone, all ones) or
/// random, with or without its top bit.
fn sig(rng: &mut Rng, bits: u32) -> u64 {
    let all = (1u64 << bits) - 1;
    match rng.below(6) {
        0 => 0,
        1 => 1,
        2 => 1 << (bits - 1),
        3 => all,
        _ => rng.next_u64() & all,
    }
}

/// The lane forms against `booth::rows` and `csa_tree::reduce` (and the narrow ones against
/// `booth::rows_narrow` and `csa_tree::reduce_narrow`, the scalar pipeline's fast path) on the
/// portable backend; `Engine::images_of`'s tests cover the other backends through the images.
#[test]
fn lane_pairs_equal_the_scalar_array_and_tree() {
    let mut rng = Rng::new(39);
    let lanes = Portable::LANES;
    let mut negative_narrow = 0;
    for _ in 0..4000 {
        let draw =
            |rng: &mut Rng, bits| -> Vec<u64> { (0..lanes).map(|_| sig(rng, bits)).collect() };
        let (m, b) = (draw(&mut rng, 53), draw(&mut rng, 53));
        let (m0, m1, b0, b1) = (
            draw(&mut rng, 24),
            draw(&mut rng, 24),
            draw(&mut rng, 24),
            draw(&mut rng, 24),
        );
        let (n, nb) = (draw(&mut rng, 25), draw(&mut rng, 25));
        let ld = |v: &Vec<u64>| Portable::load(v);
        let full = pair(ld(&m), ld(&m), ld(&b));
        let two = pair_two_lanes([ld(&m0), ld(&m1)], [ld(&b0), ld(&b1)]);
        let narrow = pair_narrow(ld(&n), ld(&nb));
        for i in 0..lanes {
            let want = csa_tree::reduce(&booth::rows(m[i] as u128, m[i] as u128, b[i]));
            assert_eq!(lane(&full, i), want, "{:#x} * {:#x}", m[i], b[i]);
            let (lo, hi, mp) = (m0[i] as u128, (m1[i] as u128) << 28, b1[i] << 28 | b0[i]);
            let want = csa_tree::reduce(&booth::rows(lo, hi, mp));
            assert_eq!(lane(&two, i), want, "two lanes {lo:#x} {hi:#x} {mp:#x}");
            let want = csa_tree::reduce_narrow(&booth::rows_narrow(n[i], nb[i]));
            assert_eq!(lane(&narrow, i), want, "narrow {:#x} * {:#x}", n[i], nb[i]);
            // The sign extension from bit 63 is exercised.
            negative_narrow += (want.0 >> 105 != 0 || want.1 >> 105 != 0) as u32;
        }
    }
    assert!(
        negative_narrow > 1000,
        "{negative_narrow} narrow pairs with bit 105 set"
    );
}

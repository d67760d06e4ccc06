use super::*;

#[test]
fn levels_table_matches_the_reduction() {
    let mut n = LEVELS[0];
    for want in &LEVELS[1..] {
        n = 2 * (n / 3) + n % 3;
        assert_eq!(n, *want);
    }
}

#[test]
fn reduction_preserves_the_sum() {
    let mut rows = [0u128; ROWS];
    let mut x = 1u128;
    for r in rows.iter_mut() {
        x = x
            .wrapping_mul(0x2545_F491_4F6C_DD1D_1234_5678_9ABC_DEF1)
            .wrapping_add(7);
        *r = x & MASK;
    }
    let want = rows.iter().fold(0u128, |s, r| s.wrapping_add(*r)) & MASK;
    let (s, c) = reduce(&rows);
    assert_eq!(s.wrapping_add(c) & MASK, want);
    assert_eq!(reduce_portable(&rows), (s, c));
}

/// The narrow form against the full one for every multiplier shape it is used for.
#[test]
fn narrow_form_matches_full_form() {
    use crate::parts::booth::{rows, rows_narrow, NARROW_BITS};
    let mut rng = crate::stimulus::Rng::new(0x0123_4567_89AB_CDEF);
    for i in 0..100_000 {
        let x = rng.next_u64();
        let lim = (1u64 << NARROW_BITS) - 1;
        let m = if i % 8 == 0 { lim } else { x & lim };
        let b = if i % 16 == 1 {
            lim
        } else {
            x.rotate_left(27) & lim
        };
        assert_eq!(
            reduce_narrow(&rows_narrow(m, b)),
            reduce(&rows(m as u128, m as u128, b)),
            "m={m:#x} b={b:#x}"
        );
    }
}

/// The SSE2 form against the portable one on rows with every bit live (bits above 105
/// included, and carries across bit 63 in every compressor).
#[test]
fn simd_form_matches_portable_form() {
    let mut x = 0x0123_4567_89AB_CDEFu128;
    for _ in 0..10_000 {
        let mut rows = [0u128; ROWS];
        for r in rows.iter_mut() {
            x = x
                .wrapping_mul(0x2545_F491_4F6C_DD1D_1234_5678_9ABC_DEF1)
                .wrapping_add(7);
            *r = x ^ (x >> 61);
        }
        assert_eq!(reduce(&rows), reduce_portable(&rows));
    }
}

use super::*;

fn sum(r: &[u128]) -> u128 {
    r.iter().fold(0u128, |s, x| s.wrapping_add(*x)) & MASK
}

#[test]
fn table_matches_the_encoder() {
    let m = 0x1234_5678_9ABC_DEF0_1357u128;
    let t = multiples(m);
    for bits in 0..8u64 {
        let d = encode(bits << 1, 1);
        let sel = if d.one {
            m
        } else if d.two {
            m << 1
        } else {
            0
        };
        assert_eq!(
            t[bits as usize],
            if d.neg { !sel } else { sel },
            "bits {bits:03b}"
        );
        assert_eq!(d.neg, bits >> 2 != 0);
    }
}

/// Rows straight from the encoder's select lines, one digit at a time (the array's
/// definition), bits above 105 included: the tree's register values depend on them.
fn rows_from_encoder(lo: u128, hi: u128, b: u64) -> [u128; ROWS] {
    let mut out = [0u128; ROWS];
    for i in 0..DIGITS {
        let d = encode(b, i);
        let m = if i >= HI_DIGIT { hi } else { lo };
        let sel = if d.one {
            m
        } else if d.two {
            m << 1
        } else {
            0
        };
        out[i] = (if d.neg { !sel } else { sel }) << (2 * i);
        out[DIGITS] |= (d.neg as u128) << (2 * i);
    }
    out
}

#[test]
fn rows_match_the_encoder_bit_for_bit() {
    let mut rng = crate::stimulus::Rng::new(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let x = rng.next_u64();
        let lo = (x as u128 * 0x9E37_79B9_7F4A_7C15) & MASK;
        let hi = (x.rotate_left(9) as u128) << 40;
        let b = x.rotate_left(31) & ((1 << 54) - 1);
        assert_eq!(rows(lo, hi, b), rows_from_encoder(lo, hi, b));
        let nb = b >> 29;
        let want = rows_from_encoder(lo, hi, nb);
        assert_eq!(rows_used::<13>(lo, hi, nb), want);
        assert_eq!(rows(lo, hi, nb), want);
    }
}

#[test]
fn narrow_rows_are_the_low_words_of_the_full_rows() {
    let mut rng = crate::stimulus::Rng::new(0x2545_F491_4F6C_DD1D);
    for i in 0..50_000 {
        let x = rng.next_u64();
        let m = match i % 4 {
            0 => x & 0xFF_FFFF,
            1 => x & ((1 << NARROW_BITS) - 1),
            2 => (1 << NARROW_BITS) - 1,
            _ => x & 0xFF_FFFF | 0x80_0000,
        };
        let b = x.rotate_left(29) & ((1 << NARROW_BITS) - 1);
        let full = rows(m as u128, m as u128, b);
        let narrow = rows_narrow(m, b);
        for (k, (f, n)) in full.iter().zip(narrow).enumerate() {
            assert_eq!(*f as u64, n, "row {k}");
            // Uniform from bit 50 up: what the narrow tree relies on.
            let top = (*f >> 50) as i128;
            assert!(
                top == 0 || top == ((1i128 << 78) - 1),
                "row {k} not uniform"
            );
        }
    }
}

#[test]
fn rows_sum_to_the_product() {
    let mut rng = crate::stimulus::Rng::new(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let x = rng.next_u64();
        let a = (x as u128) & ((1 << 53) - 1);
        let b = x.rotate_left(23) & ((1 << 53) - 1);
        assert_eq!(sum(&rows(a, a, b)), a * b as u128);
        // Signed 33-bit operands, sign-extended.
        let sa = ((x as i64) << 31) >> 31;
        let sb = ((x.rotate_left(7) as i64) << 31) >> 31;
        let p = sum(&rows(
            (sa as i128 as u128) & MASK,
            (sa as i128 as u128) & MASK,
            sb as u64 & ((1 << 54) - 1),
        ));
        assert_eq!(p, ((sa as i128 * sb as i128) as u128) & MASK);
        // Two 24-bit lanes.
        let (a0, a1) = (x as u128 & 0xFF_FFFF, (x >> 24) as u128 & 0xFF_FFFF);
        let (b0, b1) = ((x >> 40) & 0xFF_FFFF, x.rotate_left(11) & 0xFF_FFFF);
        let p = sum(&rows(a0, a1 << 28, b1 << 28 | b0));
        assert_eq!(p & ((1 << 48) - 1), a0 * b0 as u128);
        assert_eq!(p >> 56, a1 * b1 as u128);
    }
}

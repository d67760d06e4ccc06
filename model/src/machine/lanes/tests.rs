use super::*;

/// Every backend this CPU runs computes every primitive like the portable one, on edge
/// values and random words (the stage-level tests in `batch` cover the compositions).
#[test]
fn primitives_agree_with_the_portable_backend() {
    let here = Backend::lanes_here();
    assert_eq!(here.last(), Some(&Backend::Portable));
    let mut rng = crate::stimulus::Rng::new(3);
    let edges = [
        0,
        1,
        2,
        63,
        64,
        65,
        127,
        128,
        1 << 31,
        1 << 32,
        1 << 63,
        !0,
        !0 >> 1,
        !0 << 1,
    ];
    for round in 0..400 {
        let mut word = |k: usize| -> [u64; N] {
            std::array::from_fn(|i| match (round + i * 3 + k) % 4 {
                0 => edges[(round * 7 + i + k) % edges.len()],
                1 => {
                    let s = rng.below(64);
                    rng.next_u64() >> s
                }
                2 => rng.below(200),
                _ => rng.next_u64(),
            })
        };
        let (x, y, z) = (word(0), word(1), word(2));
        let want = portable::all_primitives(x, y, z);
        for b in &here {
            let got = match b {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `lanes_here` lists only backends this CPU runs.
                Backend::Avx512 => unsafe { avx512::all_primitives(x, y, z) },
                #[cfg(target_arch = "x86_64")]
                // SAFETY: as above.
                Backend::Avx2 => unsafe { avx2::all_primitives(x, y, z) },
                _ => portable::all_primitives(x, y, z),
            };
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{b}: primitive {k} of x={x:x?} y={y:x?} z={z:x?}");
            }
        }
    }
}

/// The portable backend against plain scalar arithmetic, lane by lane.
#[test]
fn portable_primitives_are_the_scalar_operations() {
    let x: [u64; N] = std::array::from_fn(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let y: [u64; N] = std::array::from_fn(|i| (i as u64 * 9) % 70);
    let z: [u64; N] = std::array::from_fn(|i| !(i as u64) << (i * 4));
    let r = portable::all_primitives(x, y, z);
    let m = mask_of;
    for i in 0..N {
        let (a, b, c) = (x[i], y[i], z[i]);
        let sh = |v: u64, n: u64, left: bool| match (n < 64, left) {
            (false, _) => 0,
            (true, true) => v << n,
            (true, false) => v >> n,
        };
        let want = [
            a & b,
            a | b,
            a ^ b,
            a & !b,
            a.wrapping_add(b),
            a.wrapping_sub(b),
            a << 5,
            a >> 7,
            sh(a, b, true),
            sh(a, b, false),
            if c >> 5 & 1 != 0 { a } else { b },
            m(a == 0),
            m(a == b),
            m((a as i64) < (b as i64)),
            m(a < b),
            (a as i64).min(b as i64) as u64,
            (a as i64).max(b as i64) as u64,
            a.min(b),
            a.leading_zeros() as u64,
            !a,
            ((a as i64) >> 9) as u64,
            m(a >> 33 & 1 != 0),
            (a as i64).clamp(-3, 90) as u64,
            a as i16 as i64 as u64,
            m(a & b != 0),
            0,
            a >> 63,
            m(x.iter().zip(&y).zip(&z).any(|((p, q), r)| p & q | r != 0)),
            (a as u32 as u64) * (b as u32 as u64),
            a ^ b ^ c,
            (a & b) | (a & c) | (b & c),
            a,
            b,
            c,
        ];
        assert_eq!(r.len(), want.len());
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                r[k][i], *w,
                "primitive {k}, lane {i}: a={a:#x} b={b:#x} c={c:#x}"
            );
        }
    }
}

#[test]
fn names_parse_and_bad_ones_are_one_line_errors() {
    for b in Backend::ALL {
        assert_eq!(b.name().parse::<Backend>(), Ok(b));
    }
    let e = "avx1024".parse::<Backend>().unwrap_err();
    assert_eq!(
        e,
        "PTXFMA_LANES=\"avx1024\" is not one of avx512, avx2, portable, scalar"
    );
    assert!(Backend::Portable.runs_here() && Backend::Scalar.runs_here());
    let best = Backend::best();
    assert!(best.runs_here());
    assert_eq!(best.is_lanes(), Backend::Avx2.runs_here());
}

//! The generator pinned to digests of its vectors: the bulk tests, the C ABI's and Python's
//! tests and the co-simulator's streams replay a seed only while the same (seed, families)
//! gives the same vectors, so a faster generator must leave them byte-identical.
//!
//! The digests were computed once by the generator of commit 78e743f (before it was made
//! cheaper, issue 39), with this file's `digest` over that commit's `Stimulus`. They are not
//! derived from the code under test: change one only with a generator change that is meant to
//! move every stream.

use super::*;
use std::hash::Hasher;

/// FNV-1a (64-bit) over each vector's encoded control word and operands, and the count.
fn digest(vectors: impl Iterator<Item = Vector>) -> u64 {
    let mut h = fnv::FnvHasher::default();
    let mut n = 0u64;
    for v in vectors {
        h.write(&v.ctrl.encode().to_le_bytes());
        h.write(&v.a.to_le_bytes());
        h.write(&v.b.to_le_bytes());
        h.write(&v.c.to_le_bytes());
        n += 1;
    }
    h.write(&n.to_le_bytes());
    h.finish()
}

/// (seed, families, vectors, digest).
const GENERATORS: &[(u64, &str, usize, u64)] = &[
    (42, "all", 200_000, 0x5eec_ef34_a957_e60c),
    (0xffff_ffff_0000_0001, "all", 50_000, 0x61b7_6f95_3c4f_a84c),
    (3, "vmad,f64", 20_000, 0x0b98_d8c5_3ea7_74f6),
    (11, "f32", 20_000, 0x6e25_4ef0_4bf7_412a),
    (11, "f64", 20_000, 0x671a_201b_6791_6e5e),
    (11, "f32x2", 20_000, 0x7224_99fe_3eae_3912),
    (11, "mixed", 20_000, 0x39b6_6127_a6d0_3301),
    (11, "sm1x", 20_000, 0x42c9_db14_058b_87d3),
    (11, "addsubmul", 20_000, 0x8808_da85_a2e5_5391),
    (11, "vmad", 20_000, 0x74c1_9447_6ce5_7e06),
    (11, "half", 20_000, 0x8592_08e6_b42b_8445),
    (11, "half2", 20_000, 0x6a61_6231_15f0_a400),
];

#[test]
fn generators_are_those_of_the_pinned_digests() {
    let mut wrong = Vec::new();
    for &(seed, families, n, want) in GENERATORS {
        let filter = FamilyFilter::parse(families).unwrap();
        let got = digest(Stimulus::new(seed, filter).take(n));
        if got != want {
            wrong.push(format!(
                "({seed:#x}, {families:?}, {n}): {got:#018x}, pinned {want:#018x}"
            ));
        }
    }
    assert!(wrong.is_empty(), "generators moved:\n{}", wrong.join("\n"));
}

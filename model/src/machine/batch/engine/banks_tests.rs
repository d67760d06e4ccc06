//! `Engine::banks_of` against `OpBanks::of` (the scalar stages), and the test data's power to
//! tell the multiplier's tree from other shapes.

use super::*;
use crate::ctrl::CTRL_BITS;
use crate::parts::unpack::lane_operands;
use crate::parts::{booth, csa_tree};
use crate::stimulus::{operands_for, Family, Rng};

/// Groups per control word.
const GROUPS: usize = 24;

/// Words that are a zero, an infinity, a NaN (quiet and signalling), a subnormal (the smallest,
/// the largest, and binary64 ones whose significand is below 2^25, the scalar multiplier's
/// narrow case) or one in some format, in one or both halves of the two-lane kinds.
const SPECIALS: [u64; 34] = [
    0,
    0x8000_0000_0000_0000,
    1,
    0x8000_0000_0000_0001,
    0x0000_0000_01FF_FFFF,
    0x000F_FFFF_FFFF_FFFF,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0001,
    0x7FF0_0000_0000_0001,
    0x3FF0_0000_0000_0000,
    0x8000_0000,
    0x007F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x7F80_0001,
    0x3F80_0000,
    0x7F80_0000_0000_0001,
    0x0000_0001_7FC0_0000,
    0x8000_0000_007F_FFFF,
    0x3F80_0000_0000_0000,
    0x03FF,
    0x7C00,
    0xFC00,
    0x7E00,
    0x7C01,
    0x8000,
    0x3C00,
    0x7C00_0001,
    0x0001_7E00,
    0x8000_03FF,
    0x7F80_007F,
    0xFFC0_3F80,
];

/// The operands of one input of `ctrl`: edge-biased (`operands_for`), random bits, edge-biased
/// with specials mixed in, or edge-biased with random upper bits (which a one-lane kind must
/// ignore).
fn operands(ctrl: &Ctrl, rng: &mut Rng) -> [u64; 3] {
    let (a, b, c) = operands_for(ctrl, rng);
    let mut x = [a, b, c];
    match rng.below(4) {
        0 => {}
        1 => x = [rng.next_u64(), rng.next_u64(), rng.next_u64()],
        2 => {
            for v in &mut x {
                if rng.bit() {
                    *v = *rng.pick(&SPECIALS);
                }
            }
        }
        _ => {
            for v in &mut x {
                *v ^= rng.next_u64() << 32;
            }
        }
    }
    x
}

/// A group of sixteen inputs of `ctrl`, valid or not, with random tags and random bits above
/// the control word's (which the banks' `ctrl` drops).
fn group_of(ctrl: &Ctrl, rng: &mut Rng) -> [PipeIn; N] {
    std::array::from_fn(|_| {
        let [a, b, c] = operands(ctrl, rng);
        PipeIn {
            a,
            b,
            c,
            ctrl: ctrl.encode() | (rng.next_u64() as u32) << CTRL_BITS,
            tag: rng.next_u64() as u16,
            valid: rng.below(8) != 0,
            reset: false,
        }
    })
}

/// Banks that `banks_of` must overwrite in full: a vmad operation's (the side path's fields
/// set) or an f32x2 operation's (lane 1 set).
fn stale(rng: &mut Rng) -> [OpBanks; N] {
    let kinds = [Family::Vmad.ctrls(), Family::F32x2.ctrls()];
    std::array::from_fn(|i| {
        let ctrls = &kinds[i % 2];
        let ctrl = ctrls[rng.below(ctrls.len() as u64) as usize];
        let g = group_of(&ctrl, rng);
        OpBanks::of(&g[0])
    })
}

/// `banks_of` equals `OpBanks::of` for every input, every bank, on `engine`'s backend: every
/// supported word of every family, `GROUPS` groups each, then arbitrary control words; the
/// words without a lane-parallel form refused with `out` untouched.
fn banks_equal_the_scalar_banks(engine: &Engine) -> (usize, usize) {
    let backend = engine.backend();
    let mut rng = Rng::new(39);
    let (mut words, mut refused) = (0, 0);
    let mut check = |ctrl: &Ctrl, rng: &mut Rng, groups: usize| {
        for _ in 0..groups {
            let g = group_of(ctrl, rng);
            let mut out = stale(rng);
            let before = out.clone();
            if !engine.banks_of(ctrl, &g, &mut out) {
                assert!(!supported(ctrl), "{backend}: {ctrl:?} refused");
                assert_eq!(out, before, "{backend}: {ctrl:?} refused but wrote `out`");
                refused += 1;
                return;
            }
            for (x, o) in g.iter().zip(&out) {
                let want = OpBanks::of(x);
                let what = format!("{backend}: {ctrl:?} {x:x?}");
                assert_eq!(o.s1, want.s1, "S1 {what}");
                assert_eq!(o.s2, want.s2, "S2 {what}");
                assert_eq!(o.s3, want.s3, "S3 {what}");
                assert_eq!(o.out, want.out, "Out {what}");
            }
        }
        words += 1;
    };
    for fam in Family::ALL {
        for ctrl in fam.ctrls() {
            check(&ctrl, &mut rng, GROUPS);
        }
    }
    // Arbitrary control words (reserved codes, modifiers no instruction combines), as a
    // stream meets them.
    for _ in 0..400 {
        let ctrl = Ctrl::decode(rng.next_u64() as u32 & ((1 << CTRL_BITS) - 1));
        check(&ctrl, &mut rng, 2);
    }
    (words, refused)
}

#[test]
fn banks_of_equals_the_scalar_banks_on_every_backend() {
    let here = Backend::lanes_here();
    println!("lane backends this CPU runs: {here:?}");
    for backend in here {
        let engine = Engine::new(backend).unwrap();
        let (words, refused) = banks_equal_the_scalar_banks(&engine);
        let vmad = Family::Vmad.ctrls().len();
        assert!(words > 200, "{backend}: only {words} words");
        assert!(
            refused > vmad,
            "{backend}: {refused} words refused, vmad alone has {vmad}"
        );
    }
}

/// vmad and the words that round through binary32 (`via_f32`) have no lane-parallel form:
/// `banks_of` says so and leaves `out` alone, on every backend.
#[test]
fn banks_of_refuses_vmad_and_via_f32() {
    let mut rng = Rng::new(7);
    let via: Vec<Ctrl> = [Family::Half, Family::Half2]
        .into_iter()
        .flat_map(Family::ctrls)
        .filter(|c| c.via_f32)
        .collect();
    assert!(!via.is_empty());
    let vmad = Family::Vmad.ctrls();
    for backend in Backend::lanes_here() {
        let engine = Engine::new(backend).unwrap();
        for ctrl in via.iter().chain(vmad.iter().step_by(7)) {
            let g = group_of(ctrl, &mut rng);
            let mut out = stale(&mut rng);
            let before = out.clone();
            assert!(!engine.banks_of(ctrl, &g, &mut out), "{backend}: {ctrl:?}");
            assert_eq!(out, before, "{backend}: {ctrl:?}");
        }
    }
}

/// How a carry-save tree could be wired instead of `csa_tree::levels`'s fixed shape (threes
/// from the front, (sum, carry) in that order, leftovers after).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// `csa_tree::levels`.
    Fixed,
    /// The leftover rows first.
    LeftoversFirst,
    /// (carry, sum) for each three.
    CarryFirst,
    /// Threes taken from the back, the leftovers (the first rows) first.
    FromTheBack,
}

/// A tree of `shape` on `rows`, with compressor `broken` (level, three) passing its carry on
/// unshifted where given; masked to 106 bits.
fn tree(rows: &[u128; booth::ROWS], shape: Shape, broken: Option<(usize, usize)>) -> (u128, u128) {
    let mut cur = rows.to_vec();
    let mut level = 0;
    while cur.len() > 2 {
        let left = cur.len() % 3;
        let (lead, body) = match shape {
            Shape::FromTheBack => cur.split_at(left),
            _ => (&cur[..0], &cur[..]),
        };
        let mut out: Vec<u128> = lead.to_vec();
        let mut tail = Vec::new();
        for (j, t) in body.chunks(3).enumerate() {
            if t.len() < 3 {
                tail.extend_from_slice(t);
                continue;
            }
            let (s, c) = csa_tree::compress(t[0], t[1], t[2]);
            let c = if broken == Some((level, j)) {
                c >> 1
            } else {
                c
            };
            match shape {
                Shape::CarryFirst => out.extend([c, s]),
                _ => out.extend([s, c]),
            }
        }
        if shape == Shape::LeftoversFirst {
            tail.append(&mut out);
            out = tail;
        } else {
            out.append(&mut tail);
        }
        cur = out;
        level += 1;
    }
    (cur[0] & booth::MASK, cur[1] & booth::MASK)
}

/// The Booth rows of an input, from its operands as `pipeline::stage1` packs them for the array.
fn rows_of(ctrl: &Ctrl, x: &PipeIn) -> [u128; booth::ROWS] {
    let l0 = lane_operands(ctrl, 0, x.a, x.b, x.c);
    let narrow = |s: u64| s >> 29;
    let (lo, hi, b) = match ctrl.kind {
        Kind::F64 => (l0.a.sig, l0.a.sig, l0.b.sig),
        Kind::F32x2 | Kind::Half2 => {
            let l1 = lane_operands(ctrl, 1, x.a, x.b, x.c);
            (
                narrow(l0.a.sig),
                narrow(l1.a.sig) << 28,
                narrow(l1.b.sig) << 28 | narrow(l0.b.sig),
            )
        }
        _ => (narrow(l0.a.sig), narrow(l0.a.sig), narrow(l0.b.sig)),
    };
    booth::rows(lo as u128, hi as u128, b)
}

/// The test data of `banks_of_equals_the_scalar_banks_on_every_backend` tells the register's
/// tree apart from other plausible shapes and from a tree with any one compressor miswired:
/// each gives another (sum, carry) pair for the same product on many inputs of every class of
/// kind (one-lane narrow, binary64, two-lane), so that a lane tree (`booth`'s `csa_tree!`,
/// written out apart from the scalar one) of another shape, or with a compressor miswired, fails
/// that test.
#[test]
fn test_data_tells_tree_shapes_apart() {
    let mut rng = Rng::new(39);
    // Per class: inputs, inputs where each other shape differs, the compressors that form a
    // non-zero carry on some input, and those whose unshifted carry some input shows.
    let mut inputs = [0u32; 3];
    let mut differ = [[0u32; 3]; 3];
    let mut live = [
        std::collections::BTreeSet::new(),
        Default::default(),
        Default::default(),
    ];
    let mut killed = [
        std::collections::BTreeSet::new(),
        Default::default(),
        Default::default(),
    ];
    let compressors: Vec<(usize, usize)> = csa_tree::LEVELS[..7]
        .iter()
        .enumerate()
        .flat_map(|(l, &n)| (0..n / 3).map(move |j| (l, j)))
        .collect();
    assert_eq!(compressors.len(), 26);
    for fam in Family::ALL {
        for ctrl in fam.ctrls().into_iter().filter(supported) {
            let class = match ctrl.kind {
                Kind::F64 => 1,
                Kind::F32x2 | Kind::Half2 => 2,
                _ => 0,
            };
            for _ in 0..GROUPS {
                for x in group_of(&ctrl, &mut rng).iter().step_by(3) {
                    let s1 = OpBanks::of(x).s1;
                    let rows = rows_of(&ctrl, x);
                    let fixed = tree(&rows, Shape::Fixed, None);
                    assert_eq!(fixed, (s1.mul_sum, s1.mul_carry), "{ctrl:?} {x:x?}");
                    let product = |(s, c): (u128, u128)| s.wrapping_add(c) & booth::MASK;
                    inputs[class] += 1;
                    for (k, shape) in [Shape::LeftoversFirst, Shape::CarryFirst, Shape::FromTheBack]
                        .into_iter()
                        .enumerate()
                    {
                        let other = tree(&rows, shape, None);
                        assert_eq!(product(other), product(fixed), "{shape:?}");
                        differ[class][k] += (other != fixed) as u32;
                    }
                    for &c in &compressors {
                        if tree(&rows, Shape::Fixed, Some(c)) != fixed {
                            killed[class].insert(c);
                        }
                        if carries(&rows, c) {
                            live[class].insert(c);
                        }
                    }
                }
            }
        }
    }
    for class in 0..3 {
        let n = inputs[class];
        assert!(n > 1000, "class {class}: {n} inputs");
        for (k, &d) in differ[class].iter().enumerate() {
            assert!(
                d > n / 4,
                "class {class}: shape {k} differs on {d} of {n} inputs"
            );
        }
        assert_eq!(killed[class], live[class], "class {class}");
    }
    // Every compressor of the binary64 and two-lane arrays carries; the narrow arrays' rows
    // from digit 13 up are zero, and so are the compressors that see only those.
    assert_eq!(live[1].len(), 26);
    assert_eq!(live[2].len(), 26);
    assert!(
        live[0].len() >= 12,
        "{} narrow compressors carry",
        live[0].len()
    );
}

/// Whether compressor `c` of the fixed tree gets a non-zero carry from `rows`.
fn carries(rows: &[u128; booth::ROWS], c: (usize, usize)) -> bool {
    let mut cur = rows.to_vec();
    for level in 0..=c.0 {
        let mut out = Vec::new();
        let groups = cur.len() / 3;
        for j in 0..groups {
            let (s, k) = csa_tree::compress(cur[3 * j], cur[3 * j + 1], cur[3 * j + 2]);
            if (level, j) == c {
                return k & booth::MASK != 0;
            }
            out.extend([s, k]);
        }
        out.extend_from_slice(&cur[3 * groups..]);
        cur = out;
    }
    unreachable!("compressor {c:?} past the tree")
}

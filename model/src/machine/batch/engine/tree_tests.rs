//! The images test's data (`images_tests::group_of`) has the power to tell the multiplier's
//! carry-save tree from other shapes.

use super::images_tests::group_of;
use super::*;
use crate::machine::pipeline::OpBanks;
use crate::parts::unpack::lane_operands;
use crate::parts::{booth, csa_tree};
use crate::stimulus::{Family, Rng};

/// Groups per control word.
const GROUPS: usize = 24;

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

/// The test data of `images_equal_the_packed_scalar_banks_on_every_backend` tells the register's
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

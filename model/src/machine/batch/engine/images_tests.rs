//! `Engine::images_of` against `Reg::pack` of `OpBanks::of` (the scalar stages, packed bit by
//! bit), and the test data's power to catch a field out of place.

use super::*;
use crate::ctrl::CTRL_BITS;
use crate::machine::pipeline::OpBanks;
use crate::regs::{extract, extract64, Leaf, Out, Reg, S1, S2, S3};
use crate::stimulus::{operands_for, Family, Rng};

/// Groups per control word.
const GROUPS: usize = 12;

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
/// the control word's (which the banks' `ctrl` drops). The tree test (`tree_tests`) reads
/// these too.
pub(super) fn group_of(ctrl: &Ctrl, rng: &mut Rng) -> [PipeIn; N] {
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

/// Images that `images_of` must overwrite in full: every word set.
fn stale() -> Images {
    let mut out = Images::default();
    let fill = |rows: &mut [u32]| rows.fill(0xA5A5_A5A5);
    out.s1.iter_mut().for_each(|r| fill(r));
    out.s2.iter_mut().for_each(|r| fill(r));
    out.s3.iter_mut().for_each(|r| fill(r));
    out.out.iter_mut().for_each(|r| fill(r));
    out.d.fill(0xA5A5_A5A5_A5A5_A5A5);
    out
}

/// `R`'s packed image.
fn packed<R: Reg>(r: &R) -> Vec<u32> {
    let mut w = vec![0; R::WORDS];
    r.pack(&mut w);
    w
}

/// Per leaf of one bank: whether it was seen non-zero, and its top bit set, in a packed image.
struct Seen {
    leaves: Vec<Leaf>,
    nonzero: Vec<bool>,
    top: Vec<bool>,
}

impl Seen {
    fn new<R: Reg>() -> Seen {
        let leaves = R::layout();
        let n = leaves.len();
        Seen {
            leaves,
            nonzero: vec![false; n],
            top: vec![false; n],
        }
    }

    fn see(&mut self, words: &[u32]) {
        for (k, l) in self.leaves.iter().enumerate() {
            self.nonzero[k] |= extract(words, l.lsb, l.width()) != [0; 3];
            self.top[k] |= extract64(words, l.msb, 1) != 0;
        }
    }

    /// The leaves no image set, and those whose top bit none set.
    fn unset(&self) -> (Vec<&str>, Vec<&str>) {
        let names = |seen: &[bool]| {
            (0..self.leaves.len())
                .filter(|&k| !seen[k] && !self.leaves[k].name.starts_with("vm"))
                .map(|k| self.leaves[k].name.as_str())
                .collect()
        };
        (names(&self.nonzero), names(&self.top))
    }
}

/// On every lane backend this CPU runs: every supported word of every family (`GROUPS` groups
/// each, so both one-lane and two-lane kinds, valid and invalid inputs) and then arbitrary
/// control words give, for every input, images equal word for word to the scalar banks
/// packed; the words without a lane form (vmad, `via_f32`) are refused with `out` untouched.
/// Every leaf field but the vmad side path (zero on these words) is non-zero in some image: a
/// field written one bit too high or too low then differs in that image (a non-zero value
/// shifted by one is another value). All but three have their top bit set too, so a
/// field masked too narrow differs; the control word's top bit, `mul_carry`'s and lane 1's
/// `spec_res`'s (a binary32 or half at most) are zero on every word the lanes take.
#[test]
fn images_equal_the_packed_scalar_banks_on_every_backend() {
    let here = Backend::lanes_here();
    assert!(here.contains(&Backend::Portable));
    for backend in here {
        let engine = Engine::new(backend).unwrap();
        let mut rng = Rng::new(41);
        let mut seen = [Seen::new::<S1>(), Seen::new::<S2>(), Seen::new::<S3>()];
        let mut seen_out = Seen::new::<Out>();
        let (mut words, mut refused) = (0, 0);
        let mut check = |ctrl: &Ctrl, rng: &mut Rng, groups: usize| {
            for _ in 0..groups {
                let g = group_of(ctrl, rng);
                let mut out = stale();
                let before = out.clone();
                if !engine.images_of(ctrl, &g, &mut out) {
                    assert!(!supported(ctrl), "{backend}: {ctrl:?} refused");
                    assert_eq!(out, before, "{backend}: {ctrl:?} refused but wrote `out`");
                    refused += 1;
                    return;
                }
                for (i, x) in g.iter().enumerate() {
                    let want = OpBanks::of(x);
                    let what = format!("{backend}: {ctrl:?} {x:x?}");
                    let (s1, s2, s3) = (packed(&want.s1), packed(&want.s2), packed(&want.s3));
                    assert_eq!(out.s1[i][..], s1[..], "S1 {what}");
                    assert_eq!(out.s2[i][..], s2[..], "S2 {what}");
                    assert_eq!(out.s3[i][..], s3[..], "S3 {what}");
                    assert_eq!(out.out[i][..], packed(&want.out)[..], "Out {what}");
                    assert_eq!(out.d[i], want.out.d, "d {what}");
                    for (s, w) in seen.iter_mut().zip([&s1, &s2, &s3]) {
                        s.see(w);
                    }
                    seen_out.see(&out.out[i]);
                }
            }
            words += 1;
        };
        for fam in Family::ALL {
            for ctrl in fam.ctrls() {
                check(&ctrl, &mut rng, GROUPS);
            }
        }
        for _ in 0..400 {
            let ctrl = Ctrl::decode(rng.next_u64() as u32 & ((1 << CTRL_BITS) - 1));
            check(&ctrl, &mut rng, 1);
        }
        assert!(words > 200, "{backend}: only {words} words");
        assert!(
            refused > Family::Vmad.ctrls().len(),
            "{backend}: {refused} words refused"
        );
        for (bank, s) in ["S1", "S2", "S3", "Out"]
            .iter()
            .zip(seen.iter().chain([&seen_out]))
        {
            let (zero, top) = s.unset();
            assert!(
                zero.is_empty(),
                "{backend}: {bank} fields always zero: {zero:?}"
            );
            assert!(
                top.iter()
                    .all(|n| ["ctrl", "lane0.mag", "lane1.mag", "lane1.spec_res"].contains(n)),
                "{backend}: {bank} top bits never set: {top:?}"
            );
        }
    }
}

/// vmad and the words that round through binary32 (`via_f32`) have no lane-parallel form:
/// `images_of` says so and leaves `out` alone, on every backend.
#[test]
fn images_of_refuses_vmad_and_via_f32() {
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
            let mut out = stale();
            assert!(!engine.images_of(ctrl, &g, &mut out), "{backend}: {ctrl:?}");
            assert_eq!(out, stale(), "{backend}: {ctrl:?}");
        }
    }
}

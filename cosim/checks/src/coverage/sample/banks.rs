//! The stage registers a cycle is sampled from, read in their packed images: only the fields
//! the sampler asks for, each at a position fixed at compile time. A bank that is not valid,
//! an idle lane, a vmad's float lanes and the side paths no bin reads (`s1.vm`, `s2.vm_tmp`)
//! are never unpacked.

use ptxfma_model::machine::pipeline::Pipeline;
use ptxfma_model::parts::booth;
use ptxfma_model::regs::{FieldAt, Reg, S1Lane, S2Lane, S3Lane, S1, S2, S3};

const S1_WORDS: usize = S1::WIDTH.div_ceil(32) as usize;
const S2_WORDS: usize = S2::WIDTH.div_ceil(32) as usize;
const S3_WORDS: usize = S3::WIDTH.div_ceil(32) as usize;

/// The fields every bank starts with: what the shadow matches and the word decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub valid: bool,
    pub tag: u16,
    pub ctrl: u32,
}

/// The packed images (`Reg::pack`) of `s1`, `s2` and `s3` of one cycle. Arrays of their exact
/// length, so that the reads need no bounds checks.
#[derive(Clone, Copy)]
pub struct Banks<'a> {
    s1: &'a [u32; S1_WORDS],
    s2: &'a [u32; S2_WORDS],
    s3: &'a [u32; S3_WORDS],
}

impl<'a> Banks<'a> {
    /// The images, each exactly `Reg::words` long (a reference frame's banks).
    pub fn new(s1: &'a [u32], s2: &'a [u32], s3: &'a [u32]) -> Banks<'a> {
        Banks {
            s1: s1.try_into().expect("an s1 image"),
            s2: s2.try_into().expect("an s2 image"),
            s3: s3.try_into().expect("an s3 image"),
        }
    }

    #[inline(always)]
    pub(crate) fn s1_head(&self) -> Head {
        head::<S1>(self.s1)
    }

    /// The product as the carry-save pair holds it, added (modulo the tree's width).
    #[inline(always)]
    pub(crate) fn s1_product(&self) -> u128 {
        let sum: u128 = const { FieldAt::of::<S1>("mul_sum") }.read(self.s1);
        let carry: u128 = const { FieldAt::of::<S1>("mul_carry") }.read(self.s1);
        sum.wrapping_add(carry) & booth::MASK
    }

    #[inline(always)]
    pub(crate) fn s1_lane(&self, lane: usize) -> S1Lane {
        const AT: [FieldAt; 2] = [FieldAt::of::<S1>("lane0"), FieldAt::of::<S1>("lane1")];
        AT[lane].read(self.s1)
    }

    #[inline(always)]
    pub(crate) fn s2_head(&self) -> Head {
        head::<S2>(self.s2)
    }

    #[inline(always)]
    pub(crate) fn s2_lane(&self, lane: usize) -> S2Lane {
        const AT: [FieldAt; 2] = [FieldAt::of::<S2>("lane0"), FieldAt::of::<S2>("lane1")];
        AT[lane].read(self.s2)
    }

    #[inline(always)]
    pub(crate) fn s3_head(&self) -> Head {
        head::<S3>(self.s3)
    }

    #[inline(always)]
    pub(crate) fn s3_lane(&self, lane: usize) -> S3Lane {
        const AT: [FieldAt; 2] = [FieldAt::of::<S3>("lane0"), FieldAt::of::<S3>("lane1")];
        AT[lane].read(self.s3)
    }

    /// vmad's 64-bit result after scaling.
    #[inline(always)]
    pub(crate) fn s3_vm_res(&self) -> u64 {
        const { FieldAt::of::<S3>("vm_res") }.read(self.s3)
    }
}

#[inline(always)]
fn head<R: Reg>(words: &[u32]) -> Head {
    Head {
        valid: const { FieldAt::of::<R>("valid") }.read(words),
        tag: const { FieldAt::of::<R>("tag") }.read(words),
        ctrl: const { FieldAt::of::<R>("ctrl") }.read(words),
    }
}

/// A model pipeline's stage registers packed, to sample them as a frame's.
pub(crate) struct Packed {
    s1: [u32; S1_WORDS],
    s2: [u32; S2_WORDS],
    s3: [u32; S3_WORDS],
}

impl Packed {
    pub(crate) fn of(p: &Pipeline) -> Packed {
        let mut b = Packed {
            s1: [0; S1_WORDS],
            s2: [0; S2_WORDS],
            s3: [0; S3_WORDS],
        };
        p.s1.pack(&mut b.s1);
        p.s2.pack(&mut b.s2);
        p.s3.pack(&mut b.s3);
        b
    }

    pub(crate) fn banks(&self) -> Banks<'_> {
        Banks {
            s1: &self.s1,
            s2: &self.s2,
            s3: &self.s3,
        }
    }
}

/// Asserts that what the sampler reads of `b` is `p`'s registers, field for field.
#[cfg(test)]
pub(crate) fn assert_reads_the_models(b: &Banks<'_>, p: &Pipeline) {
    let head = |valid, tag, ctrl| Head { valid, tag, ctrl };
    assert_eq!(b.s1_head(), head(p.s1.valid, p.s1.tag, p.s1.ctrl));
    assert_eq!(b.s2_head(), head(p.s2.valid, p.s2.tag, p.s2.ctrl));
    assert_eq!(b.s3_head(), head(p.s3.valid, p.s3.tag, p.s3.ctrl));
    let prod = p.s1.mul_sum.wrapping_add(p.s1.mul_carry) & booth::MASK;
    assert_eq!(b.s1_product(), prod);
    assert_eq!(
        [b.s1_lane(0), b.s1_lane(1)],
        [&p.s1.lane0, &p.s1.lane1].map(Clone::clone)
    );
    assert_eq!(
        [b.s2_lane(0), b.s2_lane(1)],
        [&p.s2.lane0, &p.s2.lane1].map(Clone::clone)
    );
    assert_eq!(
        [b.s3_lane(0), b.s3_lane(1)],
        [&p.s3.lane0, &p.s3.lane1].map(Clone::clone)
    );
    assert_eq!(b.s3_vm_res(), p.s3.vm_res);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_cosim_engine::stim::{Family, Stimulus};

    /// The model's registers packed read back as they are (`Coverage::sample`'s path).
    #[test]
    fn the_models_registers_packed_read_back() {
        let mut p = Pipeline::new();
        for (i, v) in Stimulus::new(9, &Family::ALL).take(20_000).enumerate() {
            p.tick(&v.input(i as u16));
            assert_reads_the_models(&Packed::of(&p).banks(), &p);
        }
    }
}

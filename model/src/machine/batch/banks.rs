//! The lane engine's register banks: every field of the scalar banks' lane 0 under the same
//! names, one 64-bit lane per operation. The images path (`op_images`) packs them into the
//! banks' images; the stage tests read them back lane by lane ([`S1x::lane`] and friends).

use super::window::Window;
#[cfg(test)]
use crate::machine::lanes::Lanes;
#[cfg(test)]
use crate::regs::{S1Lane, S2Lane, S3Lane};
use crate::regs::{U164, U165, U166};

/// The lane-parallel stage-1 bank: the fields of [`S1`](crate::regs::S1) and of its lane 0,
/// but the multiplier's carry-save pair, of which it holds the sum (the product, see
/// `product`). (Fields no later stage reads are kept, like the register's, for the
/// field-for-field tests.)
#[derive(Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct S1x<L> {
    /// `mul_sum + mul_carry` modulo 2^106, as bits 63:0 and 105:64.
    pub prod: [L; 2],
    /// The multiplier's inputs, the significands of a and b as the array takes them (bits
    /// 52:0 for binary64, 23:0 for the narrow kinds): the images path forms the pair from them
    /// (`booth`); the results path leaves them unread.
    pub mcand: L,
    pub mplier: L,
    pub sign_p: L,
    pub sign_c: L,
    pub prod_zero: L,
    pub c_zero: L,
    pub eref: L,
    pub c_aligned: Window<L>,
    pub align_sticky: L,
    pub spec_valid: L,
    pub spec_res: L,
}

/// The lane-parallel stage-2 bank (lane 0 of [`S2`](crate::regs::S2)).
#[derive(Clone, Copy)]
pub(crate) struct S2x<L> {
    pub sign: L,
    pub zero: L,
    pub flush_sign: L,
    pub mag: Window<L>,
    pub sticky: L,
    pub lza_cnt: L,
    pub eref: L,
    pub spec_valid: L,
    pub spec_res: L,
}

/// The lane-parallel stage-3 bank (lane 0 of [`S3`](crate::regs::S3)).
#[derive(Clone, Copy)]
pub(crate) struct S3x<L> {
    pub sign: L,
    pub zero: L,
    pub flush_sign: L,
    pub norm: Window<L>,
    pub sticky: L,
    pub exp: L,
    pub spec_valid: L,
    pub spec_res: L,
}

#[cfg(test)]
impl<L: Lanes> S1x<L> {
    /// Lane `i` as the product and the scalar bank's lane-0 fields.
    pub fn lane(&self, i: usize) -> (u128, S1Lane) {
        let w = |v: [L; 2]| v[0].to_vec()[i] as u128 | (v[1].to_vec()[i] as u128) << 64;
        let b = |v: L| v.to_vec()[i] != 0;
        (
            w(self.prod),
            S1Lane {
                sign_p: b(self.sign_p),
                sign_c: b(self.sign_c),
                prod_zero: b(self.prod_zero),
                c_zero: b(self.c_zero),
                eref: self.eref.to_vec()[i] as i16,
                c_aligned: self.c_aligned.lane::<164>(i),
                align_sticky: b(self.align_sticky),
                spec_valid: b(self.spec_valid),
                spec_res: self.spec_res.to_vec()[i],
            },
        )
    }
}

#[cfg(test)]
impl<L: Lanes> S2x<L> {
    pub fn lane(&self, i: usize) -> S2Lane {
        let b = |v: L| v.to_vec()[i] != 0;
        S2Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            mag: self.mag.lane::<165>(i),
            sticky: b(self.sticky),
            lza_cnt: self.lza_cnt.to_vec()[i] as u8,
            eref: self.eref.to_vec()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_vec()[i],
        }
    }
}

#[cfg(test)]
impl<L: Lanes> S3x<L> {
    pub fn lane(&self, i: usize) -> S3Lane {
        let b = |v: L| v.to_vec()[i] != 0;
        S3Lane {
            sign: b(self.sign),
            zero: b(self.zero),
            flush_sign: b(self.flush_sign),
            norm: self.norm.lane::<165>(i),
            sticky: b(self.sticky),
            exp: self.exp.to_vec()[i] as i16,
            spec_valid: b(self.spec_valid),
            spec_res: self.spec_res.to_vec()[i],
        }
    }
}

// Window types the lanes mirror (their widths are the constants used above).
const _: () = {
    assert!(U164::BITS == 164 && U165::BITS == 165 && U166::BITS == 166);
};

//! The lane engine's operand unpacker (`unpack::unpack` per lane): sign, exponent, significand
//! and class masks of one float format.

use crate::format::Fmt;
use crate::machine::lanes::{mask_of, Lanes};

/// One unpacked float operand per lane (`unpack::Operand`); conditions are masks.
#[derive(Clone, Copy)]
pub(super) struct Operand<L> {
    pub sign: L,
    pub exp: L,
    pub sig: L,
    pub zero: L,
    pub inf: L,
    pub nan: L,
}

/// `unpack::unpack` per lane.
#[inline(always)]
pub(super) fn unpack<L: Lanes>(bits: L, f: Fmt, flush: bool) -> Operand<L> {
    let (eb, fb) = (f.exp_bits, f.frac_bits);
    let emax_field = f.exp_max();
    let bias = f.bias() as u64;
    let e = bits.shr(fb).and(L::splat(emax_field));
    let frac = bits.and(L::splat(f.frac_mask()));
    let e0 = e.is0();
    let flushed = e0.and(L::splat(mask_of(flush)));
    let emax = e.cmpeq(L::splat(emax_field));
    let f0 = frac.is0();
    Operand {
        sign: bits.bitm(eb + fb),
        // max(e, 1): a subnormal's exponent is emin, as the smallest normal's.
        exp: e.or(e0.and(L::splat(1))).sub(L::splat(bias)),
        sig: e0
            .not()
            .and(L::splat(1 << fb))
            .or(frac)
            .shl(52 - fb)
            .andn(flushed),
        zero: e0.and(f0.or(flushed)),
        inf: emax.and(f0),
        nan: emax.andn(f0),
    }
}

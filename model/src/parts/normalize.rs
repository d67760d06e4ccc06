//! Normaliser: shifts the magnitude so its leading one reaches bit 164, by the LZA's
//! prediction and then one bit of correction either way, but never below the format's minimum
//! exponent (gradual underflow). A value below even that before any shift is shifted right,
//! collecting sticky.

use crate::machine::regs::U165;
use crate::parts::adder::resize;
use crate::wide::Wide;

/// Output of the normaliser for one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalized {
    pub norm: U165,
    /// Bits shifted out on the right.
    pub sticky: bool,
    /// Unbiased exponent of bit 164.
    pub exp: i32,
}

/// `eref` is the window's reference exponent (bit k weighs 2^(eref - 107 + k)); a leading one
/// at bit 164 after a left shift by s has exponent eref + 57 - s.
#[inline(always)]
pub fn normalize(mag: U165, lza_cnt: u8, eref: i32, emin: i32) -> Normalized {
    let lim = eref + 57 - emin;
    if lim < 0 {
        let rs = (-lim).min(166) as usize;
        let (norm, sticky) = mag.shr_sticky(rs);
        return Normalized {
            norm,
            sticky,
            exp: emin,
        };
    }
    let s0 = (lza_cnt as i32).min(lim);
    let x = resize::<165, 166>(mag) << s0 as usize;
    // The correction, chosen without branches (which way it goes is data-dependent): one
    // right if the prediction overshot into bit 165, one left if it fell short of bit 164 and
    // the exponent limit allows it.
    let over = x.bit(165);
    let under = !over & !x.bit(164) & (s0 < lim);
    let (xr, xl) = (x >> 1usize, x << 1usize);
    let x = Wide::select(over, xr, Wide::select(under, xl, x));
    let s = s0 - over as i32 + under as i32;
    Normalized {
        norm: resize::<166, 165>(x),
        sticky: false,
        exp: eref + 57 - s,
    }
}

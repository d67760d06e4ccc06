//! Normaliser: shifts the magnitude so its leading one reaches bit MAG_W - 1, by the LZA's
//! prediction and then one bit of correction either way, but never below the format's minimum
//! exponent (gradual underflow). A value below even that before any shift is shifted right,
//! collecting sticky.

use crate::geometry::{ADD_W, MAG_W, REF_BIT};
use crate::parts::adder::resize;
use crate::regs::U165;
use crate::wide::Wide;

/// Output of the normaliser for one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalized {
    pub norm: U165,
    /// Bits shifted out on the right.
    pub sticky: bool,
    /// Unbiased exponent of bit MAG_W - 1.
    pub exp: i32,
}

/// Binades from the reference bit up to the normalised leading bit.
const LEAD: i32 = (MAG_W - 1 - REF_BIT) as i32;
/// The widths the normaliser shifts in.
const MAG: usize = MAG_W as usize;
const ADD: usize = ADD_W as usize;

/// `eref` is the window's reference exponent (bit k weighs 2^(eref - REF_BIT + k)); a leading
/// one at bit MAG_W - 1 after a left shift by s has exponent eref + LEAD - s.
#[inline(always)]
pub fn normalize(mag: U165, lza_cnt: u8, eref: i32, emin: i32) -> Normalized {
    let lim = eref + LEAD - emin;
    if lim < 0 {
        let rs = (-lim).min(ADD_W as i32) as usize;
        let (norm, sticky) = mag.shr_sticky(rs);
        return Normalized {
            norm,
            sticky,
            exp: emin,
        };
    }
    let s0 = (lza_cnt as i32).min(lim);
    let x = resize::<MAG, ADD>(mag) << s0 as usize;
    // The correction, chosen without branches (which way it goes is data-dependent): one
    // right if the prediction overshot into the carry bit, one left if it fell short of the lead and
    // the exponent limit allows it.
    let over = x.bit(MAG);
    let under = !over & !x.bit(MAG - 1) & (s0 < lim);
    let (xr, xl) = (x >> 1usize, x << 1usize);
    let x = Wide::select(over, xr, Wide::select(under, xl, x));
    let s = s0 - over as i32 + under as i32;
    Normalized {
        norm: resize::<ADD, MAG>(x),
        sticky: false,
        exp: eref + LEAD - s,
    }
}

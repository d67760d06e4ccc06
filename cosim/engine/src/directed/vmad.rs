//! The vmad corners: `.sat` results at the clamp limits, selected values at their extremes.

use ptxfma_model::ctrl::Ctrl;

use crate::stim::Rng;

/// The limits' neighbours, as (final type signed, 64-bit result, name), in `AROUND` order.
pub const AROUND_AT: [(bool, i64, &str); 12] = [
    (true, i32::MAX as i64 - 1, "s32 .sat: INT_MAX - 1 (kept)"),
    (true, i32::MAX as i64, "s32 .sat: INT_MAX (kept)"),
    (
        true,
        i32::MAX as i64 + 1,
        "s32 .sat: INT_MAX + 1 (clamped high)",
    ),
    (true, i32::MIN as i64 + 1, "s32 .sat: INT_MIN + 1 (kept)"),
    (true, i32::MIN as i64, "s32 .sat: INT_MIN (kept)"),
    (
        true,
        i32::MIN as i64 - 1,
        "s32 .sat: INT_MIN - 1 (clamped low)",
    ),
    (false, -1, "u32 .sat: -1 (clamped low)"),
    (false, 0, "u32 .sat: 0 (kept)"),
    (false, 1, "u32 .sat: 1 (kept)"),
    (false, u32::MAX as i64 - 1, "u32 .sat: UINT_MAX - 1 (kept)"),
    (false, u32::MAX as i64, "u32 .sat: UINT_MAX (kept)"),
    (
        false,
        u32::MAX as i64 + 1,
        "u32 .sat: UINT_MAX + 1 (clamped high)",
    ),
];
/// The lowest of the u32 high clamp's bits.
pub const HIGH_LSB: u32 = 32;

/// Half the time a `.sat` result at a clamp limit ([`vmad_bounds`]), else the drawn word with
/// selected values at their extremes ([`vmad_extremes`]).
pub(super) fn vmad_corner(rng: &mut Rng, ctrl: Ctrl) -> (Ctrl, (u64, u64, u64)) {
    if rng.bit() {
        if let Some(v) = vmad_bounds(rng, ctrl) {
            return v;
        }
    }
    (ctrl, vmad_extremes(rng))
}

/// A `.sat` word of whole s32 words (S8: a whole word is read as s32 whatever its type) whose
/// 64-bit result sits at, one below or one above a clamp limit (`vmad.bounds`), or, u32,
/// holds a single set bit among bits 62:32.
fn vmad_bounds(rng: &mut Rng, ctrl: Ctrl) -> Option<(Ctrl, (u64, u64, u64))> {
    use ptxfma_model::ctrl::{Scale, Sel};
    let k = rng.below(AROUND_AT.len() as u64 + 31) as usize;
    let signed = k < AROUND_AT.len() && AROUND_AT[k].0;
    let c = Ctrl {
        sat: true,
        scale: Scale::None,
        asel: Sel::W,
        bsel: Sel::W,
        a_signed: signed,
        b_signed: signed && rng.bit(),
        neg_ab: false,
        neg_c: false,
        po: false,
        ..ctrl
    };
    if !ptxfma_model::ctrl::legal::is_legal(&c) {
        return None;
    }
    let (ta, tb, tc): (i64, i64, i64) = if k < AROUND_AT.len() {
        // ta * tb + tc = target, every operand an s32.
        let t = AROUND_AT[k].1;
        let ta = *rng.pick(&[1i64, 2, 3, 4, -1, -2]);
        let (lo, hi) = (i32::MIN as i64, i32::MAX as i64);
        // tc = t - ta * tb in [lo, hi], tb in [lo, hi].
        let (b1, b2) = ((t - hi) as f64 / ta as f64, (t - lo) as f64 / ta as f64);
        let tb_lo = (b1.min(b2).ceil() as i64).max(lo);
        let tb_hi = (b1.max(b2).floor() as i64).min(hi);
        if tb_lo > tb_hi {
            return None;
        }
        let tb = rng.range(tb_lo, tb_hi);
        (ta, tb, t - ta * tb)
    } else {
        // 2^bit as (+-2^j)(+-2^(bit - j)), j and bit - j at most 30 (31 when negative).
        let bit = (HIGH_LSB as usize + k - AROUND_AT.len()) as i64;
        let neg = bit > 60 || rng.bit();
        let top = if neg { 31 } else { 30 };
        let j = rng.range(bit - top, top);
        let sg = if neg { -1 } else { 1 };
        (sg << j, sg << (bit - j), rng.range(0, i32::MAX as i64))
    };
    Some((c, (ta as u32 as u64, tb as u32 as u64, tc as u32 as u64)))
}

/// Selected values at their extremes (every byte and half at a sign boundary), so that `.sat`
/// clamps high and low under every scale.
fn vmad_extremes(rng: &mut Rng) -> (u64, u64, u64) {
    const EXTREME: [u32; 8] = [
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0x8080_8080,
        0x7F7F_7F7F,
        0x8000_8000,
        0x7FFF_7FFF,
        0xFFFF_0000,
    ];
    const C: [u32; 5] = [0, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 1];
    (
        *rng.pick(&EXTREME) as u64,
        *rng.pick(&EXTREME) as u64,
        *rng.pick(&C) as u64,
    )
}

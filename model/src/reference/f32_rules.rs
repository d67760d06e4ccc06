//! The f32 result rules the PTX reference and the sm_1x reference share (S1, S3): the
//! canonical NaN and saturation. Kept apart so that neither reference imports the other.

/// The one f32 NaN every f32 result NaN becomes (S1).
pub const F32_NAN: u32 = 0x7fff_ffff;
pub(super) const F32_SIGN: u32 = 0x8000_0000;
pub(super) const F32_ONE: u32 = 0x3f80_0000;

pub(super) fn f32_is_nan(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// S3 on an f32 result that is already rounded, flushed and NaN-canonical.
pub fn f32_sat(x: u32) -> u32 {
    if f32_is_nan(x) || x & F32_SIGN != 0 {
        // NaN, -0, negative values and -inf all saturate to +0.
        0
    } else if x >= F32_ONE {
        // Positive, so the bit pattern orders like the value; +inf included.
        F32_ONE
    } else {
        x
    }
}

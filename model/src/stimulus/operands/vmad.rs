//! vmad operands: 32-bit integer sources biased to the byte, half and word boundaries that every
//! part selector reads. A file of its own: they share nothing with the float operands.

use crate::stimulus::rng::Rng;

/// The vmad sources at each byte, half and word boundary, so that every selector reads its own
/// edges: the directed silicon vectors and the reference self-test take them all.
pub const VMAD_EDGES: [u32; 11] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
];

/// A 32-bit vmad source: word, half and byte boundaries (so every selector sees its own edge
/// values), powers of two and their neighbours, or random.
pub fn int_operand(rng: &mut Rng) -> u64 {
    const WORDS: [u32; 16] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
    ];
    const BYTES: [u32; 7] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff];
    const HALVES: [u32; 6] = [0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff];
    if rng.chance(1, 4) {
        return rng.next_u64() & 0xffff_ffff;
    }
    let v = match rng.below(4) {
        0 => *rng.pick(&WORDS),
        1 => (0..4).fold(0u32, |acc, i| {
            let byte = if rng.chance(1, 5) {
                rng.below(256) as u32
            } else {
                *rng.pick(&BYTES)
            };
            acc | byte << (8 * i)
        }),
        2 => (0..2).fold(0u32, |acc, i| {
            let half = if rng.chance(1, 5) {
                rng.below(1 << 16) as u32
            } else {
                *rng.pick(&HALVES)
            };
            acc | half << (16 * i)
        }),
        _ => {
            let one = 1u32 << rng.below(32);
            match rng.below(3) {
                0 => one,
                1 => one.wrapping_sub(1),
                _ => !one,
            }
        }
    };
    v as u64
}

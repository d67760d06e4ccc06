//! Pipeline registers.
//!
//! Each struct here is one flop bank of the RTL, field for field: the RTL declares the same
//! fields, in the same order, with the same widths, as `packed` structs in `ptxfma_pkg`. A packed
//! struct puts its first field at the most significant end, so [`Reg::pack`] writes fields from
//! the top down. The co-simulator compares the packed images word by word and, on a difference,
//! walks [`Reg::layout`] to name the field.
//!
//! The parts, from the bits up: `bits` (reading and writing a packed image's words), `layout`
//! (a value's or register's place in an image: [`Field`], [`Reg`], and `reg!`, which declares a
//! bank), `banks` (the four banks, `s1_t` .. `out_t`). Everything is named from here
//! (`regs::S1`, `regs::BitReader`).

mod banks;
mod bits;
mod layout;

pub use banks::{Out, S1Lane, S1Vmad, S2Lane, S3Lane, S1, S2, S3, U164, U165, U166};
pub use bits::{extract, extract64, BitReader, BitWriter};
pub use layout::{Field, FieldAt, Leaf, Reg, RtlField};

#[cfg(test)]
mod tests;

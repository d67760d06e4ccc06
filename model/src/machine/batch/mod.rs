//! Lane-parallel evaluation of the pipeline for a stream: sixteen consecutive operations that
//! share one control word go through the four stages side by side, one 64-bit lane per
//! operation, so that each step of a part (a multiply, an addition, a window shift) is a few
//! vector instructions for all of them.
//!
//! This is how a compiled simulator levelises a design: stage k of the sixteen operations is
//! computed together, and because every stage is a pure function of the register before it,
//! the register values are the ones [`Pipeline::tick`](crate::machine::pipeline::Pipeline::tick) loads cycle by
//! cycle. The banks here (`S1x`, `S2x`, `S3x` in `banks`) carry every field of the scalar banks
//! under the same names, one lane per operation. Two paths read them: the results
//! ([`Engine::results_of`], what `Pipeline::run` calls) keep only the result word, and the
//! images ([`Engine::images_of`], the co-simulator's reference, `op_images`) give every bank of
//! every operation as its packed image, which the tests require to equal the scalar stages'
//! banks ([`OpBanks`](crate::machine::pipeline::OpBanks)) packed, word for word. The code follows the parts of
//! the scalar datapath line for line, written without branches on a lane's data (a lane cannot
//! branch on its own); a group skips a part only where no lane needs it and its output is then
//! known (the special-case unit without an infinite or NaN operand, stage 3's shift of a result
//! far below the range).
//!
//! The stages are written once, generic over the vector primitives of
//! [`Lanes`](crate::machine::lanes::Lanes), and instantiated per backend (`lanes::{avx512, avx2,
//! portable}`) inside a function compiled for that backend's target features, so the
//! primitives inline and LLVM schedules the whole pipeline for that instruction set;
//! [`results`] runs the [`Backend`](crate::machine::lanes::Backend) it is given. The stages are also
//! compiled once per kind (the const parameter `KIND`), so the other kinds' logic folds
//! away, as in the scalar pipeline.
//!
//! The kinds with a lane-parallel form are the float ones: binary32 and binary64 fma with every
//! modifier (mixed precision and add/sub/mul included), sm_1x `mad.f32`, f32x2, whose two
//! binary32 halves go through the binary32 stages as two groups of sixteen, and the half kinds
//! (half2 as two groups of one-lane half). vmad, and the six words that round through binary32
//! first (`via_f32`, S13), run through the scalar stages.
//!
//! The files follow the block diagram: `window` (the wide value), `unpack`, `product` and
//! `booth` (the multiplier), `banks` (the registers), `stages` (the four stages), `op_images`
//! (the images path) and `engine` (per-backend kernels and dispatch). The results path departs
//! from the hardware in two places where a later stage cannot tell: the multiplier is the
//! machine's multiply (`product`), the sum of the (sum, carry) pair the Booth array and
//! carry-save tree register, which only the images path forms (`booth`, at about the cost of the
//! rest of the stages); and stage 2's count is the magnitude's exact leading-zero count in place
//! of the LZA's prediction, which the normaliser's one-bit correction turns into the same
//! stage-3 bank (`stages::stage2`; the images path takes the prediction, the register's value).
//! Every other field is the register's.

mod banks;
mod booth;
mod engine;
mod op_images;
mod product;
mod stages;
mod unpack;
mod window;

use crate::ctrl::{Ctrl, Kind};

pub use crate::machine::lanes::N;
pub use engine::{results, supported, Engine};
pub use op_images::Images;

/// The kinds the stages are compiled for, as their const parameter `KIND`.
const F32: u8 = Kind::F32 as u8;
const F64: u8 = Kind::F64 as u8;
const SM1X: u8 = Kind::Sm1x as u8;
const HALF: u8 = Kind::Half as u8;
/// Lane 1 of half2 (bits 31:16) as a one-lane half group.
const HALF_HI: u8 = Kind::Half2 as u8;

/// `ctrl` with its kind fixed at compile time: each stage is compiled once per kind (the
/// stages take `KIND` as a parameter, as the scalar pipeline compiles its stages per kind).
#[inline(always)]
fn with_kind<const KIND: u8>(ctrl: &Ctrl) -> Ctrl {
    let kind = match KIND {
        F64 => Kind::F64,
        SM1X => Kind::Sm1x,
        HALF | HALF_HI => Kind::Half,
        _ => Kind::F32,
    };
    Ctrl { kind, ..*ctrl }
}

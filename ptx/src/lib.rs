//! The PTX instruction decoder: turns a PTX spelling such as `fma.rn.ftz.f32` or
//! `vmad.s32.u32.s32.sat.shr7` into the one control word ([`Ctrl`]) that the model and the RTL
//! both execute, and rejects everything the PTX pages do not allow for the selected target with a
//! message that names the rule broken.
//!
//! What is accepted: what the PTX pages (`shared/ptx/`) allow, and where they and NVIDIA's
//! assembler disagree, what `ptxas` (CUDA 13.5) accepts for sm_90 and sm_100 (`tests/ptxas`
//! holds the decoder to it on every spelling of the FMA pipe):
//!
//! | spelling | target | control word |
//! | --- | --- | --- |
//! | `fma.rnd{.ftz}{.sat}.f32` | sm_20+ | `F32` |
//! | `fma.rnd{.ftz}.f32x2`, `{add,sub,mul}{.rnd}{.ftz}.f32x2` | sm_100+ | `F32x2` |
//! | `fma.rnd.f64`, `mad.rnd.f64`, legacy `mad.f64` (= `mad.rn.f64`, sm_1x only) | sm_13+ | `F64` |
//! | `mad.rnd{.ftz}{.sat}.f32` | sm_20+ | `F32` |
//! | `mad{.ftz}{.sat}.f32` (no `.rnd`) | sm_10..sm_13 only | `Sm1x` (flushes with or without `.ftz`) |
//! | `{add,sub}{.rnd}{.sat}.f32.{f16,bf16}`, `fma.rnd{.sat}.f32.{f16,bf16}` | sm_100+ | `F32` + `ab_fmt` |
//! | `{add,sub,mul}{.rnd}{.ftz}{.sat}.f32` (default `.rn`) | all | `F32` (`ftz` forced on sm_1x) |
//! | `{add,sub,mul}{.rnd}.f64` (default `.rn`) | sm_13+ | `F64` |
//! | `vmad.dtype.atype.btype{.po}{.sat}{.scale}` | sm_20+ | `Vmad` |
//! | `fma.rn{.ftz}{.sat}.f16`, `fma.rn{.ftz}.relu.f16`, `fma.rn.oob{.sat}.f16`, `fma.rn.oob.relu.f16` | sm_53+ (`.relu` sm_80, `.oob` sm_90) | `Half`, `ab_fmt` `F16` |
//! | `fma.rn{.oob}{.relu}.bf16` | sm_80+ (`.oob` sm_90) | `Half`, `ab_fmt` `Bf16` |
//! | `fma.{rz,rm,rp}{.oob}{.relu}.bf16` | sm_80+ (`.oob` sm_90) | `Half`, `ab_fmt` `F16`, `via_f32`, the written `rnd`, no `relu`, no `oob` (S13) |
//! | `{add,sub,mul}{.rn}{.ftz}{.sat}.f16` (default `.rn`) | sm_53+ | `Half`, `ab_fmt` `F16` |
//! | `{add,sub,mul}{.rn}.bf16` (default `.rn`) | sm_90+ | `Half`, `ab_fmt` `Bf16` |
//! | the same with `.f16x2` and `.bf16x2` (two lanes, lane 0 in bits 15:0); `fma.{rz,rm,rp}{.oob}{.relu}.bf16x2` | as above | `Half2`; the `.rz/.rm/.rp` bf16x2 forms are the `.rn` word (S13) |
//!
//! Decisions the PTX pages leave open, taken here:
//! - Modifier order: PTX writes `.rnd`, `.ftz`, `.sat`, then the type. Any order of those three
//!   before the type is accepted (ptxas is order-tolerant in practice and nothing is ambiguous),
//!   but every modifier must come before the type, except that mixed precision may also put
//!   `.sat` after both types, as the PTX example `add.rz.f32.bf16.sat` does. Repeating a modifier
//!   is an error, even where the PTX example `fma.rz.sat.f32.f16.sat` shows it: that example
//!   contradicts its own syntax line, which has one optional `{.sat}`.
//! - `add`/`sub`/`mul` `.f32` on sm_1x: the PTX `add`/`sub`/`mul` pages allow only `.rn` and `.rz`
//!   there (`.rm`/`.rp` on `.f32` need sm_20); the floating-point summary says sm_1x single
//!   precision flushes subnormals, so the control word gets `ftz` whether or not it was written.
//! - sm_1x `mad.f32` and `mad.ftz.f32` are the same operation, but `ftz` in the word records
//!   whether `.ftz` was written: `Kind::Sm1x` flushes regardless (`Ctrl::flush`), and keeping
//!   the spelling lets a word print back ([`print::ptx_spelling`]) as the text it came from.
//!   Its final rounding is to nearest even, so `rnd` is `Rn`.
//! - Half precision (`.f16`, `.bf16`, `.f16x2`, `.bf16x2`), as `ptxas` accepts it: `fma` needs a
//!   rounding modifier, `.rn`, and bfloat16 `fma` also takes `.rz/.rm/.rp`, decoded to what an
//!   H100 computes (S13); `add/sub/mul` take `.rn` or none (the same word); `.ftz` and `.sat` on
//!   binary16 only; `.sat` and `.relu` exclude each other; `.relu` and `.oob` on `fma` only, and
//!   `.oob` takes no `.ftz`; `mad` has no half form.
//! - vmad: see [`decode_vmad`].
//!
//! [`parse_line`] reads the `fma-model eval` line format: the mnemonic followed by hex operands in
//! place of registers and no destination.
//!
//! The crate also holds what every front end (the `fma-model` command, the co-simulator, the C
//! ABI, Python) shares about PTX text: [`read`] (the bounded line reader and the eval line
//! format), [`quote`] (how input is quoted in messages) and [`same_result`] (S1: any f32 NaN is
//! the same result). What only the commands share, the wording of clap's errors and the
//! TestFloat vector reader, is in `ptxfma-cli-common` (`cli-common/`), so that the libraries
//! over this crate pull in neither clap nor flate2.
//!
//! Where each part lives:
//! - `error`: [`DecodeError`], the one error type, and the `bail!` shorthand;
//! - `target`: [`Target`], `sm_NN` parsing and printing;
//! - `mnemonic`: the opcode and modifier tokens, shared by both decoders;
//! - `float`: `fma`/`mad`/`add`/`sub`/`mul` in every float precision;
//! - `vmad`: the integer `vmad` and its operand decorations ([`VmadSrc`]);
//! - `line`: [`parse_line`], the `eval` line with its hex operands ([`Instr`]);
//! - `legal_check`: the decoder against `ctrl::legal::is_legal`, which control words have a
//!   PTX spelling, on every word;
//! - `print`: the inverse of the decoder, a control word and its operands back to PTX text.

mod error;
mod float;
#[cfg(test)]
mod legal_check;
mod line;
mod mnemonic;
pub mod print;
pub mod quote;
pub mod read;
mod same_result;
mod target;
#[cfg(test)]
mod test_util;
mod vmad;

pub use error::DecodeError;
pub use line::{parse_line, Instr};
pub use same_result::{judge, same_result, CanonicalNans, Judgement, NanConvention};
pub use target::{Target, TargetVariant};
pub use vmad::{decode_vmad, VmadSrc};

use float::decode_float;
use mnemonic::{split_mnemonic, Opcode};
use ptxfma_model::ctrl::Ctrl;
use vmad::decode_vmad_mods;

/// Decodes an opcode with its modifiers, e.g. `fma.rn.ftz.sat.f32`, for `target`. A vmad
/// mnemonic decodes as if its operands had no negation and no selector; use [`decode_vmad`]
/// (or [`parse_line`]) to supply them.
pub fn decode(mnemonic: &str, target: Target) -> Result<Ctrl, DecodeError> {
    let (op, mods) = split_mnemonic(mnemonic)?;
    if op == Opcode::Vmad {
        decode_vmad_mods(&mods, target, VmadSrc::default())
    } else {
        decode_float(op, &mods, target)
    }
}

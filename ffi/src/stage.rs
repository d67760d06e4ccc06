//! The register banks of a pipeline instance as packed images: the RTL's stage taps.

use ptxfma_model::machine::pipeline::Pipeline;
use ptxfma_model::regs::{Out, Reg, S1, S2, S3};

use crate::args::out_ptr;
use crate::pipe::with_pipe;
use crate::status::{fail, guard, Res};
use crate::{PtxfmaPipe, PtxfmaStatus};

/// A pipeline register bank, for `ptxfma_stage_width` and `ptxfma_pipe_stage`: the RTL's `s1_q`,
/// `s2_q`, `s3_q` and `out_q`, packed as in `docs/microarchitecture.md` (word 0 = bits 31:0).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxfmaStage {
    S1 = 0,
    S2 = 1,
    S3 = 2,
    Out = 3,
}

fn stage_of(stage: u32) -> Res<PtxfmaStage> {
    Ok(match stage {
        0 => PtxfmaStage::S1,
        1 => PtxfmaStage::S2,
        2 => PtxfmaStage::S3,
        3 => PtxfmaStage::Out,
        _ => {
            return fail(
                PtxfmaStatus::BadArg,
                format!("stage {stage}: 0 (s1), 1 (s2), 2 (s3) or 3 (out)"),
            )
        }
    })
}

fn width(stage: PtxfmaStage) -> u32 {
    match stage {
        PtxfmaStage::S1 => S1::WIDTH,
        PtxfmaStage::S2 => S2::WIDTH,
        PtxfmaStage::S3 => S3::WIDTH,
        PtxfmaStage::Out => Out::WIDTH,
    }
}

/// The packed image of one bank, word 0 = bits 31:0 (the RTL's `s1_o`..`out_o` taps).
fn image(p: &Pipeline, stage: PtxfmaStage) -> Vec<u32> {
    let mut w = vec![0u32; width(stage).div_ceil(32) as usize];
    match stage {
        PtxfmaStage::S1 => p.s1.pack(&mut w),
        PtxfmaStage::S2 => p.s2.pack(&mut w),
        PtxfmaStage::S3 => p.s3.pack(&mut w),
        PtxfmaStage::Out => p.out.pack(&mut w),
    }
    w
}

/// The width in bits of a bank's packed image (`PtxfmaStage`); it takes `(bits + 31) / 32` words.
///
/// # Safety
/// `bits` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_stage_width(stage: u32, bits: *mut u32) -> i32 {
    guard("ptxfma_stage_width", || {
        let s = stage_of(stage)?;
        *out_ptr(bits, "bits")? = width(s);
        Ok(PtxfmaStatus::Ok)
    })
}

/// Copies a bank's packed image after the last tick into `words` (word 0 = bits 31:0), which
/// must hold `n_words` >= `(ptxfma_stage_width + 31) / 32` words.
///
/// # Safety
/// `words` is null or holds `n_words` writable elements.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_pipe_stage(
    h: *mut PtxfmaPipe,
    stage: u32,
    words: *mut u32,
    n_words: usize,
) -> i32 {
    guard("ptxfma_pipe_stage", || {
        let s = stage_of(stage)?;
        if words.is_null() {
            return fail(PtxfmaStatus::Null, "words is a null pointer");
        }
        let img = with_pipe(h, |p| Ok(image(p, s)))?;
        if n_words < img.len() {
            return fail(
                PtxfmaStatus::BadArg,
                format!(
                    "stage {stage} takes {} words, n_words = {n_words}",
                    img.len()
                ),
            );
        }
        std::ptr::copy_nonoverlapping(img.as_ptr(), words, img.len());
        Ok(PtxfmaStatus::Ok)
    })
}

/// One 32-bit word of a bank's packed image: the form DPI-C reads without open arrays.
///
/// # Safety
/// `word` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_pipe_stage_word(
    h: *mut PtxfmaPipe,
    stage: u32,
    index: u32,
    word: *mut u32,
) -> i32 {
    guard("ptxfma_pipe_stage_word", || {
        let s = stage_of(stage)?;
        let out = out_ptr(word, "word")?;
        let img = with_pipe(h, |p| Ok(image(p, s)))?;
        match img.get(index as usize) {
            Some(&w) => {
                *out = w;
                Ok(PtxfmaStatus::Ok)
            }
            None => fail(
                PtxfmaStatus::BadArg,
                format!("stage {stage} has {} words; index {index}", img.len()),
            ),
        }
    })
}

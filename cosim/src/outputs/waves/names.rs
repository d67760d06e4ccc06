//! What the co-simulator adds to a waveform beside the RTL's own signals, for the waveform
//! and its view alike: the time base, and the instruction in flight by name.

use crate::engine::frame::{self, Bank};

/// The written waveform's clock period in its time unit (ps): one cycle per ns.
pub const PERIOD: u64 = 1000;

/// Characters of an instruction name signal (`cosim.*_instr`): the longest spelling with its
/// vmad operand forms fits.
pub const INSTR_CHARS: usize = 48;

/// The instruction name signals under `cosim`: at the input ports, then after each stage.
pub const INSTR_SIGNALS: [&str; 5] = ["in_instr", "s1_instr", "s2_instr", "s3_instr", "out_instr"];

/// The control word of the operation a stage bank holds in a frame (`None`: an empty slot).
pub fn stage_ctrl(frame: &[u32], bank: Bank) -> Option<u32> {
    let words = &frame[bank.range()];
    let leaf = |name: &str| bank.leaves().iter().find(|l| l.name == name);
    let valid = frame::field(words, leaf("valid")?)[0] & 1 != 0;
    let ctrl = frame::field(words, leaf("ctrl")?)[0] as u32;
    valid.then_some(ctrl)
}

/// The PTX spelling of a control word, as the instruction name signals and the report write it.
pub fn instr_name(ctrl: u32) -> String {
    crate::engine::stim::ptx_spelling(&ptxfma_model::ctrl::Ctrl::decode(ctrl))
}

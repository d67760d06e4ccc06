//! The half-precision control words `dut prove` issues to its miter: every `.f16`, `.f16x2`,
//! `.bf16` and `.bf16x2` spelling the PTX decoder accepts, encoded, kept where a design's
//! manifest allows it, and written as the SystemVerilog functions the miter's assumption and
//! its comparison read (`formal/miter_half.sv` includes them as `miter_forms.svh`).
//!
//! The words come from the decoder (`ptxfma-ptx`) rather than from the model's family tables,
//! so that the proof covers exactly what a PTX program can ask for; `cosim/cli/tests/dut_prove.rs`
//! holds the two to the same set.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::format::BF16;
use ptxfma_ptx::Target;

use ptxfma_cosim_engine::stim::{ptx_spelling, Family, Forms};

/// One half control word: its encoding, its decoded fields and how PTX spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfWord {
    pub word: u32,
    pub ctrl: Ctrl,
    pub spelling: String,
}

impl HalfWord {
    /// Two lanes (`.f16x2`, `.bf16x2`).
    pub fn x2(&self) -> bool {
        self.ctrl.kind == Kind::Half2
    }

    /// The result is bfloat16 (the lanes' NaN test and canonical NaN).
    pub fn bf16(&self) -> bool {
        self.ctrl.half_fmt() == BF16
    }
}

/// Every half-precision word the decoder accepts for sm_100 (which has every half form), by
/// encoding: each combination of opcode, rounding, `.ftz`, `.oob`, `.sat`, `.relu` and half type
/// is decoded, and the spellings that decode to one word (`add.f16` and `add.rn.f16`) count
/// once.
pub fn all() -> Vec<HalfWord> {
    let mut words: BTreeMap<u32, HalfWord> = BTreeMap::new();
    for op in ["fma", "add", "sub", "mul"] {
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
            for ftz in ["", ".ftz"] {
                for oob in ["", ".oob"] {
                    for sat in ["", ".sat"] {
                        for relu in ["", ".relu"] {
                            for ty in [".f16", ".bf16", ".f16x2", ".bf16x2"] {
                                let text = format!("{op}{rnd}{ftz}{oob}{sat}{relu}{ty}");
                                let Ok(ctrl) = ptxfma_ptx::decode(&text, Target::SM_100) else {
                                    continue;
                                };
                                if matches!(ctrl.kind, Kind::Half | Kind::Half2) {
                                    words.entry(ctrl.encode()).or_insert_with(|| HalfWord {
                                        word: ctrl.encode(),
                                        ctrl,
                                        spelling: ptx_spelling(&ctrl),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    words.into_values().collect()
}

/// The words of [`all`] in `families` (`half`, `half2`) that `forms` allows (None: every form).
pub fn allowed(families: &[Family], forms: Option<Forms>) -> Vec<HalfWord> {
    all()
        .into_iter()
        .filter(|w| families.contains(&Family::of(&w.ctrl)))
        .filter(|w| forms.is_none_or(|f| f.allows(&w.ctrl)))
        .collect()
}

/// `miter_forms.svh`: `legal_ctrl` (the words issued), `ctrl_x2` and `ctrl_bf16` (how the
/// result of each is compared), as plain Verilog functions for Yosys's own parser.
pub fn svh(words: &[HalfWord]) -> String {
    let mut s = String::from(
        "// Written by `fma-cosim dut prove`: the half-precision control words the design's\n\
         // manifest allows (from the PTX decoder), and the lanes and format of each result.\n",
    );
    let func = |s: &mut String, name: &str, what: &str, pick: &dyn Fn(&HalfWord) -> bool| {
        let _ = writeln!(s, "// {what}");
        let _ = writeln!(s, "function automatic {name}(input [26:0] c);");
        let _ = writeln!(s, "  case (c)");
        for w in words.iter().filter(|w| pick(w)) {
            let _ = writeln!(
                s,
                "    27'h{:07x}: {name} = 1'b1;  // {}",
                w.word, w.spelling
            );
        }
        let _ = writeln!(s, "    default: {name} = 1'b0;");
        let _ = writeln!(s, "  endcase");
        let _ = writeln!(s, "endfunction");
    };
    func(&mut s, "legal_ctrl", "The words issued.", &|_| true);
    func(&mut s, "ctrl_x2", "Two 16-bit lanes.", &|w| w.x2());
    func(&mut s, "ctrl_bf16", "bfloat16 lanes.", &|w| w.bf16());
    s
}

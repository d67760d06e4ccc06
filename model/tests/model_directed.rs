//! The directed S1-S9 cases of `directed/cases.rs`, run through the cycle-level model instead of
//! the references: every decision in `docs/semantics.md` checked on the datapath against values
//! worked out by hand.

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
use ptxfma_model::machine::pipeline::eval;

fn ev(c: &Ctrl, a: u64, b: u64, cc: u64) -> u64 {
    eval(c, a, b, cc)
}

fn mad1x_sat(a: u32, b: u32, c: u32, sat: bool) -> u32 {
    let k = Ctrl {
        sat,
        ..Ctrl::fma(Kind::Sm1x, Rnd::Rn)
    };
    eval(&k, a.into(), b.into(), c.into()) as u32
}

include!("directed/cases.rs");

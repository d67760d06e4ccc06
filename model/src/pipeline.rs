//! The pipeline: four register banks and the pure functions between them.

use crate::ctrl::Ctrl;
use crate::regs::{Out, S1, S2, S3};

/// Cycles from an input being presented to its result appearing in `out`.
pub const LATENCY: usize = 4;

/// What the pipe sees on its input ports in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeIn {
    pub valid: bool,
    pub tag: u16,
    /// Encoded control word ([`Ctrl::encode`]).
    pub ctrl: u32,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

/// The four register banks. All flops load every cycle; reset clears them to zero.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    pub s1: S1,
    pub s2: S2,
    pub s3: S3,
    pub out: Out,
}

impl Pipeline {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// One rising clock edge: every bank loads its next value. Returns the output bank after
    /// the edge (what retires this cycle when `valid` is set).
    pub fn tick(&mut self, inp: &PipeIn) -> Out {
        self.out = stage4(&self.s3);
        self.s3 = stage3(&self.s2);
        self.s2 = stage2(&self.s1);
        self.s1 = stage1(inp);
        self.out.clone()
    }
}

pub fn stage1(_inp: &PipeIn) -> S1 {
    todo!()
}
pub fn stage2(_s1: &S1) -> S2 {
    todo!()
}
pub fn stage3(_s2: &S2) -> S3 {
    todo!()
}
pub fn stage4(_s3: &S3) -> Out {
    todo!()
}

/// Runs one operation alone through the pipe and returns its result `d`.
pub fn eval(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    let mut p = Pipeline::new();
    let inp = PipeIn {
        valid: true,
        tag: 0,
        ctrl: ctrl.encode(),
        a,
        b,
        c,
    };
    let mut out = p.tick(&inp);
    for _ in 1..LATENCY {
        out = p.tick(&PipeIn::default());
    }
    debug_assert!(out.valid);
    out.d
}

//! One `a` of a form through the design alone: its 65,536 operations issued back to back, one
//! per cycle (the design's own speed: no model in lockstep), each under the tag that is its
//! second operand, then idle cycles until every one has retired. A result is read from the
//! ports (`out_valid_o`, `out_tag_o`, `out_d_o`) as `run --compare ports` reads it, through the
//! same [`Rtl`] (tags widened for a design with fewer or none, a handshake design's results
//! taken as they come).

use ptxfma_cli_common::fingerprints::PER_FORM;
use ptxfma_model::machine::pipeline::PipeIn;

use ptxfma_cosim_engine::frame::PORT_WORDS;
use ptxfma_cosim_engine::rtl::{encode_input, Rtl, IN_WORDS};
use ptxfma_cosim_engine::Error;

use super::forms::Form;

/// Cycles per call into the design: large enough that the call costs nothing, small enough
/// that the buffers stay in cache.
const BATCH: usize = 4096;

/// A result slot no operation filled: the design never retired it.
pub const NOT_RETIRED: u64 = u64::MAX;
/// A result slot filled twice: the design retired a tag with nothing in flight under it.
pub const RETIRED_TWICE: u64 = u64::MAX - 1;

/// A design and its buffers.
pub struct Driver {
    rtl: Rtl,
    bound: u64,
    inputs: Vec<u64>,
    ports: Vec<u32>,
}

impl Driver {
    /// A fresh instance of `variant` (`default`, or `dut:DIR`); `bound` cycles from issue
    /// within which each result must retire.
    pub fn new(variant: &str, bound: u64) -> Result<Driver, Error> {
        Ok(Driver {
            rtl: Rtl::new(variant, false)?,
            bound,
            inputs: Vec::with_capacity(BATCH * IN_WORDS),
            ports: Vec::with_capacity(BATCH * PORT_WORDS),
        })
    }

    /// Runs the cycles in `self.inputs` and files their retirements into `out`; returns how
    /// many there were.
    fn flush(&mut self, out: &mut [u64]) -> Result<usize, Error> {
        self.ports.clear();
        self.ports
            .resize(self.inputs.len() / IN_WORDS * PORT_WORDS, 0);
        self.rtl.run_ports_only(&self.inputs, &mut self.ports)?;
        self.inputs.clear();
        let mut n = 0;
        for p in self.ports.chunks_exact(PORT_WORDS) {
            if p[0] & 1 == 0 {
                continue;
            }
            n += 1;
            let slot = &mut out[p[1] as u16 as usize];
            *slot = if *slot == NOT_RETIRED {
                u64::from(p[2]) | u64::from(p[3]) << 32
            } else {
                RETIRED_TWICE
            };
        }
        Ok(n)
    }

    /// The design's result of `form` for every second operand `x` of `a`, indexed by `x`
    /// (`out` is [`PER_FORM`] long): [`NOT_RETIRED`] for one that did not retire within the
    /// bound after the last issue, [`RETIRED_TWICE`] for one whose tag retired twice. After
    /// either the design is reset, so that the next `a` starts from nothing in flight.
    pub fn results(&mut self, form: &Form, a: u16, out: &mut [u64]) -> Result<(), Error> {
        out[..PER_FORM].fill(NOT_RETIRED);
        let ctrl = form.issued.encode();
        let mut retired = 0;
        for x in 0..=u16::MAX {
            let (a, b, c) = form.operands(a, x);
            self.inputs.extend(encode_input(&PipeIn {
                valid: true,
                reset: false,
                tag: x,
                ctrl,
                a,
                b,
                c,
            }));
            if self.inputs.len() == BATCH * IN_WORDS {
                retired += self.flush(out)?;
            }
        }
        // Idle cycles until every operation is back, at most the bound after the last issue
        // (a handshake design may hold operations back: its results come one per cycle).
        let idle = encode_input(&PipeIn::default());
        let mut waited = 0;
        while retired < PER_FORM && waited <= self.bound {
            let n = (self.bound + 1 - waited).min(BATCH as u64);
            (0..n).for_each(|_| self.inputs.extend(idle));
            waited += n;
            retired += self.flush(out)?;
        }
        if retired != PER_FORM {
            self.rtl.reset()?;
        }
        Ok(())
    }
}

//! What a co-simulation run observes beside the verdict: [`coverage`], functional coverage
//! sampled from the reference's stage registers as a subscriber of the lockstep
//! (`ptxfma_cosim_engine::subscriber`). Built on the engine; the outputs and the command build
//! on it.

pub mod coverage;

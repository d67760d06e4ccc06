//! What a run observes beside the verdict: [`coverage`], functional coverage sampled from the
//! reference's stage registers as a subscriber of the lockstep.

pub mod coverage;

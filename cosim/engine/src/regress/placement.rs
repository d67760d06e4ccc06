//! Where the reference runs beside the worker that drives the RTL, and the cores there are.

/// Where the reference runs relative to the worker that drives the RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Placement {
    /// Its own thread when the workers leave a core spare, the worker's thread otherwise.
    Auto,
    /// Its own thread, one batch ahead of the RTL.
    Thread,
    /// The worker's thread, one batch after the other.
    Inline,
}

impl Placement {
    /// Whether the reference gets a thread of its own with `jobs` workers on `cores` cores.
    pub fn overlap(self, jobs: usize, cores: usize) -> bool {
        match self {
            Placement::Auto => jobs < cores,
            Placement::Thread => true,
            Placement::Inline => false,
        }
    }
}

/// Cores this process may use.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

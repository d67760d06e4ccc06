//! The lockstep engine: the RTL and the golden reference get the same input every cycle, and
//! every cycle's frames (output ports and all four register banks) are compared; or, with
//! [`Compare::Ports`], only the retired results, matched by tag ([`crate::ports`]).
//!
//! Speed: crossing into C++ once per cycle would dominate, so the RTL runs in batches of
//! cycles (the shim fills a frame per cycle). The reference runs either on a second thread, one
//! batch ahead, so the two sides overlap when a core is spare ([`Config::overlap`]), or in the
//! calling thread, one batch after the other.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

use crate::batch::{Batch, Producer};
use crate::frame;
use crate::ports::Compare;
use crate::reference::Reference;
use crate::rtl::Rtl;
use crate::scoreboard::{History, Ports, Registers, Scoreboard};
use crate::stim::Family;
use crate::stream::Cycle;
use crate::subscriber::{NewSubscriber, Subscriber};
use crate::Error;

pub use crate::scoreboard::Divergence;
pub use crate::stream::Stream;

/// Cycles per RTL batch by default. Both sides' frames of a batch (about 570 bytes a cycle)
/// stay in a core's L2 at 512 cycles (`make bench-footprint`, cachegrind with the last level
/// set to a 1 MiB L2: 0.7 misses per operation, against 19 at 2048 and 25 at 4096), and one
/// call into C++ per 512 cycles costs nothing measurable.
pub const DEFAULT_BATCH: usize = 512;

/// Knobs of a lockstep run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Cycles per RTL batch.
    pub batch: usize,
    /// Stop after this many divergent operations (1: stop at the first).
    pub max_divergences: usize,
    /// Input history kept for the waveform window, in cycles.
    pub window: usize,
    /// Run the reference on a thread of its own, one batch ahead of the RTL (faster when a
    /// core is spare), rather than in the calling thread.
    pub overlap: bool,
    /// Keep the RTL's retired results (`Outcome::retired`).
    pub retired: bool,
    /// Feed the reference's frames to a subscriber made by this (`Outcome::subscriber`), when
    /// the reference is the model.
    pub subscribe: Option<NewSubscriber>,
    /// Whole frames every cycle, or only the retired results.
    pub compare: Compare,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            batch: DEFAULT_BATCH,
            max_divergences: 1,
            window: 32,
            overlap: true,
            retired: false,
            subscribe: None,
            compare: Compare::Registers,
        }
    }
}

/// The result of running one stream.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Valid operations presented (all of them compared in every stage they reached).
    pub vectors: u64,
    /// Of those, how many of each family, in [`Family::ALL`] order.
    pub by_family: [u64; Family::ALL.len()],
    pub cycles: u64,
    pub seconds: f64,
    pub divergences: Vec<Divergence>,
    /// Inputs of the cycles up to and including the first divergence (at most
    /// `Config::window` of them), and the cycle of the first one: the waveform's window.
    pub window: Vec<PipeIn>,
    pub window_start: u64,
    /// Stopped by [`Hooks::stop`] before the end of the stream.
    pub interrupted: bool,
    /// Per family, results accepted under the NaN convention that PTX's rule would not
    /// ([`Compare::Ports`]).
    pub nan_accepted: [u64; Family::ALL.len()],
    /// With [`Config::retired`]: (tag, d) of every result the RTL retired, in order.
    pub retired: Vec<(u16, u64)>,
    /// The subscriber that watched this stream ([`Config::subscribe`]).
    pub subscriber: Option<Box<dyn Subscriber>>,
}

/// What a caller can see and steer while a stream runs.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// When set, the run stops after the batch in progress (`Outcome::interrupted`).
    pub stop: Option<&'a AtomicBool>,
    /// Valid operations compared so far are added here after every batch.
    pub done: Option<&'a AtomicU64>,
}

/// The RTL side and the judging of its frames: runs the RTL on each batch, hands both sides'
/// frames to the scoreboard and the reference's to the subscriber, and counts.
struct Checker<'c> {
    cfg: &'c Config,
    hooks: Hooks<'c>,
    out: Outcome,
    hist_cap: usize,
    hist: History,
    actual: Vec<u32>,
    scoreboard: Box<dyn Scoreboard>,
    /// Fed every cycle's input and the reference's frame.
    subscriber: Option<Box<dyn Subscriber>>,
}

impl<'c> Checker<'c> {
    fn new(
        cfg: &'c Config,
        hooks: Hooks<'c>,
        subscriber: Option<Box<dyn Subscriber>>,
        handover: crate::ports::Handover,
    ) -> Checker<'c> {
        let hist_cap = cfg.window.max(LATENCY);
        Checker {
            cfg,
            hooks,
            out: Outcome::default(),
            hist_cap,
            hist: History::with_capacity(hist_cap + cfg.batch.max(1)),
            actual: Vec::new(),
            scoreboard: match cfg.compare {
                Compare::Registers => Box::new(Registers::new()),
                Compare::Ports { bound, nan } => Box::new(Ports::new(bound, nan, handover)),
            },
            subscriber,
        }
    }

    /// The outcome once the stream has run: unless interrupted, the end of the stream is
    /// judged too.
    fn into_outcome(mut self) -> Outcome {
        if !self.out.interrupted {
            let had = self.out.divergences.len();
            let (cycle, max) = (self.out.cycles, self.cfg.max_divergences);
            self.scoreboard
                .finish(cycle, max, &mut self.out.divergences);
            if had == 0 && !self.out.divergences.is_empty() {
                // Found at the end of the stream: the window is the last cycles kept.
                let d = &self.out.divergences[0];
                self.out.window = self.hist.iter().map(|&(p, _)| p).collect();
                self.out.window_start = d.cycle() - self.out.window.len() as u64;
            }
        }
        self.out.nan_accepted = self.scoreboard.nan_accepted();
        self.out.subscriber = self.subscriber;
        self.out
    }

    /// Keeps the inputs of the cycles up to cycle `i` of the batch (`cycle`) as the window of
    /// the first divergence.
    fn set_window(&mut self, b: &Batch, i: usize, cycle: u64) {
        let (out, hist, hist_cap) = (&mut self.out, &self.hist, self.hist_cap);
        let keep = (i + 1).min(hist_cap);
        let from_hist = hist_cap.saturating_sub(i + 1).min(hist.len());
        out.window = hist
            .iter()
            .skip(hist.len() - from_hist)
            .map(|&(p, _)| p)
            .collect();
        out.window.extend_from_slice(&b.inputs[i + 1 - keep..=i]);
        out.window_start = cycle + 1 - out.window.len() as u64;
    }

    /// Runs and checks one batch; true when the run must stop (enough divergences, or asked).
    fn check(&mut self, rtl: &mut Rtl, b: &Batch) -> Result<bool, Error> {
        if self.hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.out.interrupted = true;
            return Ok(true);
        }
        let n = b.inputs.len();
        self.actual.resize(n * frame::WORDS, 0);
        rtl.run_encoded(&b.enc, &mut self.actual)?;
        let had = self.out.divergences.len();
        let stop_at = self.scoreboard.batch(
            b,
            &self.actual,
            &self.hist,
            self.cfg.max_divergences,
            &mut self.out.divergences,
        );
        if had == 0 {
            if let Some(cycle) = self.out.divergences.first().map(Divergence::cycle) {
                let i = (cycle.max(b.start) - b.start) as usize;
                self.set_window(b, i, cycle);
            }
        }
        let done = stop_at.unwrap_or(n);
        // Only the cycles compared: coverage counts what the run checked, the operations the
        // summary counts (not the rest of a batch after the divergence that stopped it).
        if let Some(w) = &mut self.subscriber {
            for (inp, f) in b.inputs[..done]
                .iter()
                .zip(b.expected.chunks_exact(frame::WORDS))
            {
                w.feed(inp, f);
            }
        }
        if self.cfg.retired {
            for f in self.actual[..done * frame::WORDS].chunks_exact(frame::WORDS) {
                // The output ports lead the frame: valid, tag, d (low word first).
                if f[0] & 1 != 0 {
                    let d = f[2] as u64 | (f[3] as u64) << 32;
                    self.out.retired.push((f[1] as u16, d));
                }
            }
        }
        let mut valid = 0;
        for (p, f) in b.inputs[..done].iter().zip(&b.families[..done]) {
            if p.issues() {
                valid += 1;
                if let Some(f) = f {
                    self.out.by_family[*f as usize] += 1;
                }
            }
        }
        self.out.cycles += done as u64;
        self.out.vectors += valid;
        if let Some(d) = self.hooks.done {
            d.fetch_add(valid, Ordering::Relaxed);
        }
        self.hist.extend((0..done).map(|i| b.cycle(i)));
        let excess = self.hist.len().saturating_sub(self.hist_cap);
        self.hist.drain(..excess);
        Ok(stop_at.is_some())
    }
}

/// Runs `stream` through `rtl` and `golden` from reset, comparing every cycle.
pub fn run(
    rtl: &mut Rtl,
    golden: &mut dyn Reference,
    stream: impl Iterator<Item = Cycle> + Send,
    cfg: &Config,
) -> Result<Outcome, Error> {
    run_with(rtl, golden, stream, cfg, Hooks::default())
}

/// [`run`], with a stop flag and a progress counter.
pub fn run_with(
    rtl: &mut Rtl,
    golden: &mut dyn Reference,
    stream: impl Iterator<Item = Cycle> + Send,
    cfg: &Config,
    hooks: Hooks<'_>,
) -> Result<Outcome, Error> {
    let drain = drain_cycles(rtl, cfg)?;
    let stream = stream.chain(std::iter::repeat_n((PipeIn::default(), None), drain));
    rtl.reset()?;
    golden.reset()?;
    let subscriber = cfg.subscribe.filter(|_| golden.is_model()).map(|new| new());
    let golden_name = golden.name();
    let producer = Producer::new(stream, golden, cfg.batch.max(1));
    let t0 = Instant::now();
    let mut checker = Checker::new(cfg, hooks, subscriber, rtl.handover());
    if cfg.overlap {
        overlapped(rtl, producer, &mut checker, golden_name)?;
    } else {
        inline(rtl, producer, &mut checker)?;
    }
    let mut out = checker.into_outcome();
    out.seconds = t0.elapsed().as_secs_f64();
    Ok(out)
}

/// The idle cycles that follow the stream: ports-only checking gives every operation `bound`
/// more cycles to retire; register checking needs a design with its registers on ports.
fn drain_cycles(rtl: &Rtl, cfg: &Config) -> Result<usize, Error> {
    match cfg.compare {
        Compare::Registers if !rtl.has_registers() => Err(Error::PortsOnly {
            variant: rtl.variant().to_string(),
        }),
        Compare::Registers => Ok(0),
        Compare::Ports { bound, .. } => Ok(bound as usize),
    }
}

/// Both sides in the calling thread, one batch after the other.
fn inline(
    rtl: &mut Rtl,
    mut producer: Producer<'_, impl Iterator<Item = Cycle>>,
    checker: &mut Checker<'_>,
) -> Result<(), Error> {
    let mut b = producer.empty();
    while producer.fill(&mut b)? {
        if checker.check(rtl, &b)? {
            break;
        }
    }
    Ok(())
}

/// The stimulus and the reference on a second thread, one batch ahead, so the two sides
/// overlap.
fn overlapped(
    rtl: &mut Rtl,
    producer: Producer<'_, impl Iterator<Item = Cycle> + Send>,
    checker: &mut Checker<'_>,
    golden_name: String,
) -> Result<(), Error> {
    let (tx, rx) = mpsc::sync_channel::<Result<Batch, Error>>(2);
    let (back_tx, back_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|s| -> Result<(), Error> {
        let worker = s.spawn(move || fill_batches(producer, &tx, &back_rx));
        let compared = check_batches(rtl, checker, &rx, &back_tx);
        // Unblock and stop the reference's thread whatever happened here.
        drop(rx);
        let joined = worker.join();
        compared?;
        joined.map_err(|p| Error::ReferencePanicked {
            reference: golden_name,
            message: panic_text(&p),
        })
    })
}

/// The second thread of [`overlapped`]: produces batches (reusing those `back` returns) and
/// sends them on `tx`, until the stream ends, the reference fails (the error is sent) or the
/// receiver is gone.
fn fill_batches(
    mut producer: Producer<'_, impl Iterator<Item = Cycle>>,
    tx: &mpsc::SyncSender<Result<Batch, Error>>,
    back: &mpsc::Receiver<Batch>,
) {
    loop {
        let mut b = back.try_recv().unwrap_or_else(|_| producer.empty());
        let r = match producer.fill(&mut b) {
            Ok(false) => return,
            Ok(true) => Ok(b),
            Err(e) => Err(e),
        };
        let failed = r.is_err();
        if tx.send(r).is_err() || failed {
            return;
        }
    }
}

/// The comparing side of [`overlapped`]: checks each batch from `rx` and hands it `back` for
/// reuse, until the stream ends or the run must stop.
fn check_batches(
    rtl: &mut Rtl,
    checker: &mut Checker<'_>,
    rx: &mpsc::Receiver<Result<Batch, Error>>,
    back: &mpsc::Sender<Batch>,
) -> Result<(), Error> {
    for msg in rx.iter() {
        let b = msg?;
        if checker.check(rtl, &b)? {
            return Ok(());
        }
        let _ = back.send(b);
    }
    Ok(())
}

/// The message of a panic payload.
pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

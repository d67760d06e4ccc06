//! A design with a ready/valid handshake (`contract.handshake`), driven one design cycle at a
//! time so that the co-simulator can hold an operation until the design takes it.
//!
//! The stream still has one input per cycle, and the checker one frame per stream cycle. Each
//! stream cycle, the operation it issues joins the operations held for the design; the design
//! is clocked, the oldest held operation presented, until it has taken every held operation
//! (at most [`CAP`] design cycles; what is left is held into the next stream cycle), a bubble
//! cycle is one design cycle. `out_ready_i` is high unless random back-pressure
//! ([`set_backpressure`]) lowers it; a result is taken at a rising edge where `out_valid_o`
//! and `out_ready_i` are both high. Results taken wait in order and are shown to the checker one
//! per stream cycle: results are matched by tag, so only the latency bound sees the delay, and
//! it is counted in stream cycles.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use super::load::Instance;
use super::tags::TagMap;
use crate::Error;

/// Design cycles at most per stream cycle.
pub const CAP: u32 = 16;

/// Percentage of design cycles in which `out_ready_i` is low (`run --backpressure`).
static BACKPRESSURE: AtomicU64 = AtomicU64::new(0);

/// Stall and result-hold cycles of every instance so far (summed when each batch ends).
static STALLS: AtomicU64 = AtomicU64::new(0);
static HELD_RESULTS: AtomicU64 = AtomicU64::new(0);

/// Design cycles so far in which an operation presented was not taken, and in which a valid
/// result was not taken (`out_ready_i` low), over every instance of this process.
pub fn totals() -> (u64, u64) {
    (
        STALLS.load(Ordering::Relaxed),
        HELD_RESULTS.load(Ordering::Relaxed),
    )
}

/// Sets the back-pressure of every handshake design created from now on (0 to 100).
pub fn set_backpressure(percent: u64) {
    BACKPRESSURE.store(percent.min(100), Ordering::Relaxed);
}

/// The hold queue, the results taken, and the counts of one design instance.
pub struct Handshake {
    held: VecDeque<[u64; 4]>,
    taken: VecDeque<(u32, u64)>,
    /// Stream cycles since the last reset: with the design cycle within it, what the
    /// back-pressure is drawn from, so that it is the same for any --jobs.
    cycle: u64,
    percent: u64,
    /// Design cycles in which a presented operation was not taken.
    stalls: u64,
    /// Design cycles in which a valid result was not taken (`out_ready_i` low).
    held_results: u64,
}

impl Default for Handshake {
    fn default() -> Handshake {
        Handshake {
            held: VecDeque::new(),
            taken: VecDeque::new(),
            cycle: 0,
            percent: BACKPRESSURE.load(Ordering::Relaxed),
            stalls: 0,
            held_results: 0,
        }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Handshake {
    /// Forgets everything in flight (the design was reset).
    pub fn reset(&mut self) {
        self.held.clear();
        self.taken.clear();
        self.cycle = 0;
    }

    fn out_ready(&self, n: u32) -> bool {
        self.percent == 0 || splitmix(self.cycle << 8 | n as u64) % 100 >= self.percent
    }

    /// One frame of ports words (valid, tag, d low, d high) per stream cycle of `inputs`.
    pub fn run(
        &mut self,
        dut: &mut Instance,
        mut tags: Option<&mut TagMap>,
        inputs: &[u64],
        ports: &mut [u32],
    ) -> Result<(), Error> {
        for (w, p) in inputs.chunks_exact(4).zip(ports.chunks_exact_mut(4)) {
            let w: [u64; 4] = w.try_into().expect("4 words");
            p.fill(0);
            if w[0] & 2 != 0 {
                // A reset cycle: nothing survives it.
                self.reset();
                if let Some(t) = tags.as_deref_mut() {
                    t.issue(w[0]);
                }
                dut.step(&w)?;
                self.cycle += 1;
                continue;
            }
            if w[0] & 1 != 0 {
                self.held.push_back(w);
            }
            let mut n = 0;
            loop {
                let present = self.held.front().copied().unwrap_or([0; 4]);
                let ready = self.out_ready(n);
                let mut word = present;
                if let Some(t) = tags.as_deref() {
                    word[0] = t.narrow(word[0]);
                }
                word[0] |= (ready as u64) << 2;
                let s = dut.step(&word)?;
                if s[1] & 1 != 0 {
                    if ready {
                        let tag = match tags.as_deref_mut() {
                            Some(t) => t.retire(s[2]),
                            None => s[2],
                        };
                        self.taken
                            .push_back((tag, s[3] as u64 | (s[4] as u64) << 32));
                    } else {
                        self.held_results += 1;
                    }
                }
                if present[0] & 1 != 0 {
                    if s[0] & 1 != 0 {
                        self.held.pop_front();
                        if let Some(t) = tags.as_deref_mut() {
                            t.issue(present[0]);
                        }
                    } else {
                        self.stalls += 1;
                    }
                }
                n += 1;
                if self.held.is_empty() || n >= CAP {
                    break;
                }
            }
            if let Some((tag, d)) = self.taken.pop_front() {
                p.copy_from_slice(&[1, tag, d as u32, (d >> 32) as u32]);
            }
            self.cycle += 1;
        }
        STALLS.fetch_add(std::mem::take(&mut self.stalls), Ordering::Relaxed);
        HELD_RESULTS.fetch_add(std::mem::take(&mut self.held_results), Ordering::Relaxed);
        Ok(())
    }
}

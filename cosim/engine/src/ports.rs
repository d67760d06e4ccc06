//! Ports-only checking (`fma-cosim run --compare ports`): a design is judged by its result
//! ports alone, so it may have any microarchitecture and latency (docs/dut.md).
//!
//! Every valid input is an issued operation, except in a reset cycle, which also throws away
//! every operation in flight (nothing issued before it may retire after it). The reference (the model, whose latency is fixed)
//! gives each one its expected `d`; the design's retirements (`out_valid_o`) are matched to
//! issued operations by `out_tag_o`, oldest first among those in flight with that tag (the
//! stream's tags are its cycle numbers modulo 2^16, so a tag comes back every 65,536 cycles and
//! each tag has a FIFO). Three things are divergences: a result with the wrong value
//! ([`ptxfma_ptx::same_result`]), a tag retired with nothing in flight under it (never issued, or
//! retired twice), and an operation not retired within `bound` cycles of its issue. The
//! stream is followed by `bound` bubbles so that every operation has its chance.

use std::collections::hash_map::Entry;
use std::collections::VecDeque;
use std::ops::RangeInclusive;

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};
use ptxfma_ptx::{Judgement, NanConvention};
use rustc_hash::FxHashMap;

use crate::frame::Bank;
use crate::stim::Family;
use crate::stream::Cycle;

/// Cycles from an operation's issue to the cycle after whose edge the reference shows it at
/// its ports (`LATENCY - 1`, 3: it hands the result over at the next edge, latency 4).
fn reference_age() -> u64 {
    Bank::Ports.age()
}

/// Default of `--latency-bound`: cycles from issue within which a result must retire.
pub const DEFAULT_BOUND: u64 = 64;

/// The latency bounds a run takes (`--latency-bound`, a manifest's `contract.latency_bound`, a
/// build's record): at least the reference's latency, at most 2^20 cycles (the stream is
/// followed by this many bubbles).
pub const BOUND_RANGE: RangeInclusive<u64> = LATENCY as u64..=1 << 20;

/// What a run compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// Every cycle's whole frame: the output ports and the four stage registers.
    Registers,
    /// Only the retired results, matched to operations by tag, each within `bound` cycles,
    /// their NaNs judged under `nan`.
    Ports { bound: u64, nan: NanConvention },
}

/// The kind of a ports divergence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `out_d_o` is not the reference's result.
    Value,
    /// `out_tag_o` names no operation in flight: never issued, or retired twice.
    Unissued,
    /// The operation did not retire within the bound.
    Unretired,
}

impl Fault {
    /// The port that shows it: the field of the divergence and of its signature.
    pub fn port(self) -> &'static str {
        match self {
            Fault::Value => "out_d_o",
            Fault::Unissued => "out_tag_o",
            Fault::Unretired => "out_valid_o",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Fault::Value => "wrong result",
            Fault::Unissued => "a tag retired with no operation in flight under it",
            Fault::Unretired => "an operation did not retire within the latency bound",
        }
    }
}

/// One ports divergence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortsDiff {
    pub fault: Fault,
    pub tag: u16,
    /// The reference's result (none for [`Fault::Unissued`]).
    pub expected: Option<u64>,
    /// The design's result (none for [`Fault::Unretired`]).
    pub actual: Option<u64>,
    /// The cycle whose ending edge handed the result over (the latency's count, [`Handover`];
    /// none for [`Fault::Unretired`]).
    pub retired: Option<u64>,
    /// The latency bound of the run.
    pub bound: u64,
}

/// A ports divergence as the checker finds it: the cycle it is seen in, the issue cycle,
/// input and family of its operation (none for an unissued tag), and the details.
pub struct Found {
    pub cycle: u64,
    pub issue: Option<u64>,
    pub input: Option<PipeIn>,
    pub family: Option<Family>,
    pub diff: PortsDiff,
}

/// An issued operation not yet settled.
struct Pending {
    input: PipeIn,
    family: Option<Family>,
    expected: Option<u64>,
    /// (d, cycle) once the design retired it.
    actual: Option<(u64, u64)>,
}

/// The operations in flight under each tag, oldest first: how a retirement names its
/// operation. An operation is known by an id of the caller's (its issue cycle, its index).
/// A tag with nothing in flight has no entry, so the map holds only what is in flight and a
/// lone operation under its tag (the common case) allocates nothing.
#[derive(Default)]
pub struct Tags {
    by_tag: FxHashMap<u16, InFlight>,
}

/// The ids in flight under one tag, oldest first.
enum InFlight {
    One(u64),
    More(VecDeque<u64>),
}

impl InFlight {
    fn front(&self) -> Option<u64> {
        match self {
            InFlight::One(id) => Some(*id),
            InFlight::More(q) => q.front().copied(),
        }
    }
}

impl Tags {
    /// Operation `id` issued under `tag`.
    pub fn issue(&mut self, tag: u16, id: u64) {
        match self.by_tag.entry(tag) {
            Entry::Vacant(v) => {
                v.insert(InFlight::One(id));
            }
            Entry::Occupied(mut o) => match o.get_mut() {
                InFlight::One(first) => {
                    let first = *first;
                    o.insert(InFlight::More(VecDeque::from([first, id])));
                }
                InFlight::More(q) => q.push_back(id),
            },
        }
    }

    /// A result retired under `tag`: the oldest operation in flight under it, which is no
    /// longer in flight (none: the tag names no operation in flight).
    pub fn retire(&mut self, tag: u16) -> Option<u64> {
        let Entry::Occupied(mut o) = self.by_tag.entry(tag) else {
            return None;
        };
        match o.get_mut() {
            InFlight::One(id) => {
                let id = *id;
                o.remove();
                Some(id)
            }
            InFlight::More(q) => {
                let id = q.pop_front();
                if q.is_empty() {
                    o.remove();
                }
                id
            }
        }
    }

    /// Stops waiting for operation `id` under `tag`.
    pub fn forget(&mut self, tag: u16, id: u64) {
        let Entry::Occupied(mut o) = self.by_tag.entry(tag) else {
            return;
        };
        let empty = match o.get_mut() {
            InFlight::One(x) => *x == id,
            InFlight::More(q) => {
                q.retain(|&c| c != id);
                q.is_empty()
            }
        };
        if empty {
            o.remove();
        }
    }

    /// The oldest operation still in flight under any tag.
    pub fn oldest(&self) -> Option<u64> {
        self.by_tag.values().filter_map(InFlight::front).min()
    }

    /// Nothing in flight any more (a reset).
    pub fn clear(&mut self) {
        self.by_tag.clear();
    }
}

/// Where a design's frame of cycle `s` stands against the rising edge that hands its result
/// over: the one count of latency (docs/dut.md, "Latency") is from the edge that takes an
/// operation (`in_valid_i` high at it: its issue cycle's edge) to the edge that hands its result
/// over (`out_valid_o` high at it), so that an operation issued in cycle `i` and handed over at
/// the edge ending cycle `r` has latency `r - i`: a pipe of N registers, N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handover {
    /// Outputs read after the edge ending cycle `s` (every design without a handshake): a
    /// result there is handed over at the next edge, the one ending cycle `s + 1`.
    NextEdge,
    /// Outputs read before the edge ending cycle `s`, the one that takes the result (a
    /// handshake design: `out_valid_o` and `out_ready_i` high at it).
    ThisEdge,
}

impl Handover {
    /// Cycles from a frame to the hand-over of the result it shows.
    fn lag(self) -> u64 {
        match self {
            Handover::NextEdge => 1,
            Handover::ThisEdge => 0,
        }
    }
}

/// The state of a ports-only check across the batches of one stream.
pub struct Checker {
    bound: u64,
    handover: Handover,
    nan: NanConvention,
    /// Per family ([`Family::ALL`] order), results `nan` accepted that PTX's rule would not.
    accepted: [u64; Family::ALL.len()],
    /// Operations by issue cycle, from `base` on; `None` for cycles with nothing pending.
    inflight: VecDeque<Option<Pending>>,
    base: u64,
    /// Issue cycles of the operations in flight under each tag not yet retired.
    tags: Tags,
}

impl Checker {
    pub fn new(bound: u64, nan: NanConvention) -> Checker {
        Checker {
            bound,
            handover: Handover::NextEdge,
            nan,
            accepted: [0; Family::ALL.len()],
            inflight: VecDeque::new(),
            base: 0,
            tags: Tags::default(),
        }
    }

    /// The same check of a design whose frames show a result at the edge that takes it
    /// ([`Handover::ThisEdge`]: a handshake design).
    pub fn with_handover(mut self, handover: Handover) -> Checker {
        self.handover = handover;
        self
    }

    fn slot(&mut self, issue: u64) -> Option<&mut Option<Pending>> {
        let i = issue.checked_sub(self.base)?;
        self.inflight.get_mut(i as usize)
    }

    /// Cycle `cycle`: its input and family, the reference's ports and the design's ports
    /// (valid, tag, d low, d high). Divergences go to `found`.
    pub fn cycle(
        &mut self,
        cycle: u64,
        (input, family): Cycle,
        expected: &[u32],
        actual: &[u32],
        found: &mut Vec<Found>,
    ) {
        // A reset (rst_ni held low through this cycle) throws away whatever is in flight.
        if input.reset {
            self.inflight.iter_mut().for_each(|p| *p = None);
            self.tags.clear();
        }
        // Issue.
        self.inflight.push_back(input.issues().then_some(Pending {
            input,
            family,
            expected: None,
            actual: None,
        }));
        if input.issues() {
            self.tags.issue(input.tag, cycle);
        }
        let d = |w: &[u32]| w[2] as u64 | (w[3] as u64) << 32;
        // The reference retires in order, a fixed number of cycles after issue.
        if expected[0] & 1 != 0 {
            let issue = cycle.wrapping_sub(reference_age());
            if let Some(Some(p)) = self.slot(issue) {
                p.expected = Some(d(expected));
            }
            self.settle(issue, found);
        }
        // The cycle whose ending edge hands over what this frame shows (module doc).
        let handed = cycle + self.handover.lag();
        // Operations past the bound, before this cycle's retirement: handed over at the edge
        // ending cycle issue + bound + 1 is late.
        while let Some(front) = self.inflight.front() {
            let issue = self.base;
            match front {
                None => {}
                Some(_) if issue + self.bound >= handed => break,
                Some(p) if p.actual.is_some() && p.expected.is_none() => break,
                Some(_) => self.expire(issue, cycle, found),
            }
            self.inflight.pop_front();
            self.base += 1;
        }
        // The design retires by tag.
        if actual[0] & 1 != 0 {
            let tag = actual[1] as u16;
            match self.tags.retire(tag) {
                Some(issue) => {
                    if let Some(Some(p)) = self.slot(issue) {
                        p.actual = Some((d(actual), handed));
                    }
                    self.settle(issue, found);
                }
                None => found.push(Found {
                    cycle,
                    issue: None,
                    input: None,
                    family: None,
                    diff: PortsDiff {
                        fault: Fault::Unissued,
                        tag,
                        expected: None,
                        actual: Some(d(actual)),
                        retired: Some(handed),
                        bound: self.bound,
                    },
                }),
            }
        }
    }

    /// Compares operation `issue` once both results are known, and forgets it.
    fn settle(&mut self, issue: u64, found: &mut Vec<Found>) {
        let bound = self.bound;
        let Some(slot) = self.slot(issue) else {
            return;
        };
        let Some(Pending {
            input,
            family,
            expected: Some(e),
            actual: Some((a, retired)),
        }) = slot
        else {
            return;
        };
        let (input, family, e, a, retired) = (*input, *family, *e, *a, *retired);
        *slot = None;
        // Bit-exact is the common case and needs no decoding (except under the canonical
        // convention, where the reference's own NaN payload is not the design's to return).
        let judged = if a == e && !matches!(self.nan, NanConvention::Canonical(_)) {
            Judgement::Same
        } else {
            ptxfma_ptx::judge(&Ctrl::decode(input.ctrl), a, e, self.nan)
        };
        if judged == Judgement::Accepted {
            if let Some(f) = family {
                self.accepted[f as usize] += 1;
            }
        }
        if judged == Judgement::Differs {
            found.push(Found {
                // The frame it was seen in.
                cycle: retired - self.handover.lag(),
                issue: Some(issue),
                input: Some(input),
                family,
                diff: PortsDiff {
                    fault: Fault::Value,
                    tag: input.tag,
                    expected: Some(e),
                    actual: Some(a),
                    retired: Some(retired),
                    bound,
                },
            });
        }
    }

    /// Reports operation `issue` as not retired by `cycle`, and stops waiting for it.
    fn expire(&mut self, issue: u64, cycle: u64, found: &mut Vec<Found>) {
        let Some(Some(p)) = self.slot(issue).map(Option::take) else {
            return;
        };
        self.tags.forget(p.input.tag, issue);
        found.push(Found {
            cycle,
            issue: Some(issue),
            input: Some(p.input),
            family: p.family,
            diff: PortsDiff {
                fault: Fault::Unretired,
                tag: p.input.tag,
                expected: p.expected,
                actual: None,
                retired: None,
                bound: self.bound,
            },
        });
    }

    /// Per family, the results the NaN convention accepted that PTX's rule would not.
    pub fn nan_accepted(&self) -> [u64; Family::ALL.len()] {
        self.accepted
    }

    /// The end of the stream (`cycle` is the first cycle after it): whatever is still in
    /// flight never retired.
    pub fn finish(&mut self, cycle: u64, found: &mut Vec<Found>) {
        for k in 0..self.inflight.len() as u64 {
            self.expire(self.base + k, cycle, found);
        }
        self.inflight.clear();
        self.tags.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::ctrl::{Kind, Rnd};

    /// A tag names the oldest operation in flight under it; a forgotten one is skipped.
    #[test]
    fn tags_retire_oldest_first() {
        let mut t = Tags::default();
        for (tag, id) in [(7, 0), (3, 1), (7, 2), (7, 3)] {
            t.issue(tag, id);
        }
        assert_eq!(t.oldest(), Some(0));
        assert_eq!(t.retire(7), Some(0));
        t.forget(7, 2);
        assert_eq!(t.retire(7), Some(3));
        assert_eq!(t.retire(7), None);
        assert_eq!(t.retire(5), None);
        assert_eq!(t.oldest(), Some(1));
        t.clear();
        assert_eq!(t.oldest(), None);
    }

    fn ports(valid: bool, tag: u16, d: u64) -> [u32; 4] {
        [valid as u32, tag as u32, d as u32, (d >> 32) as u32]
    }

    fn op(tag: u16) -> PipeIn {
        PipeIn {
            valid: true,
            tag,
            ctrl: Ctrl::fma(Kind::F32, Rnd::Rn).encode(),
            a: 1,
            b: 2,
            c: 3,
            reset: false,
        }
    }

    /// Runs `n` cycles: operations issued at the given cycles with tag = cycle, the reference
    /// retiring each `reference_age()` cycles later with d = 100 + cycle, the design retiring what
    /// `design` says at each cycle.
    fn run(
        n: u64,
        issue: &[u64],
        design: &dyn Fn(u64) -> Option<(u16, u64)>,
        bound: u64,
    ) -> Vec<Found> {
        let mut c = Checker::new(bound, NanConvention::Ptx);
        let mut found = Vec::new();
        for t in 0..n {
            let inp = if issue.contains(&t) {
                op(t as u16)
            } else {
                PipeIn::default()
            };
            let r = t.checked_sub(reference_age()).filter(|i| issue.contains(i));
            let e = ports(r.is_some(), r.unwrap_or(0) as u16, 100 + r.unwrap_or(0));
            let (av, (at, ad)) = (design(t).is_some(), design(t).unwrap_or((0, 0)));
            c.cycle(t, (inp, None), &e, &ports(av, at, ad), &mut found);
        }
        c.finish(n, &mut found);
        found
    }

    #[test]
    fn any_latency_and_order_passes() {
        // Latency 2 (before the reference) and 9 (after), and out of order.
        for lat in [0u64, 2, 9] {
            let f = run(
                40,
                &[1, 2, 5],
                &|t| {
                    [1u64, 2, 5]
                        .contains(&(t.wrapping_sub(lat)))
                        .then(|| (t.wrapping_sub(lat) as u16, 100 + t - lat))
                },
                16,
            );
            assert!(f.is_empty(), "latency {lat}");
        }
        let f = run(
            40,
            &[1, 2],
            &|t| match t {
                3 => Some((2, 102)),
                7 => Some((1, 101)),
                _ => None,
            },
            16,
        );
        assert!(f.is_empty());
    }

    #[test]
    fn each_fault_is_found() {
        let f = run(40, &[1], &|t| (t == 6).then_some((1, 999)), 16);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].diff.fault, Fault::Value);
        assert_eq!((f[0].issue, f[0].cycle), (Some(1), 6));
        assert_eq!(
            (f[0].diff.expected, f[0].diff.actual),
            (Some(101), Some(999))
        );

        let f = run(40, &[1], &|t| (t == 6 || t == 7).then_some((1, 101)), 16);
        assert_eq!(f.len(), 1, "retired twice");
        assert_eq!((f[0].diff.fault, f[0].cycle), (Fault::Unissued, 7));

        let f = run(40, &[1], &|t| (t == 6).then_some((9, 101)), 16);
        assert_eq!(
            f.len(),
            2,
            "wrong tag: unissued, and the operation never retires"
        );
        assert_eq!(f[0].diff.fault, Fault::Unissued);
        assert_eq!((f[1].diff.fault, f[1].cycle), (Fault::Unretired, 17));

        // Handed over one cycle after the bound is late; on the bound is in time. A frame
        // shows what the edge ending its cycle put on the outputs, handed over at the next.
        let f = run(40, &[1], &|t| (t == 17).then_some((1, 101)), 16);
        assert_eq!(f[0].diff.fault, Fault::Unretired);
        assert!(run(40, &[1], &|t| (t == 16).then_some((1, 101)), 16).is_empty());

        // Never retired at all, with the stream too short for the bound: found at the end.
        let f = run(10, &[1], &|_| None, 16);
        assert_eq!((f[0].diff.fault, f[0].cycle), (Fault::Unretired, 10));
    }

    /// One count of latency (docs/dut.md): from the issue edge to the edge that hands the
    /// result over. A result on the outputs after the edge ending cycle 4 (frame 4) is handed
    /// over at the edge ending cycle 5; a handshake design's frame 5 shows the result taken at
    /// the edge ending cycle 5. Issued in cycle 1, both are latency 4 and retire in cycle 5.
    #[test]
    fn both_hand_overs_count_the_same_latency() {
        for (handover, frame) in [(Handover::NextEdge, 4), (Handover::ThisEdge, 5)] {
            let mut c = Checker::new(16, NanConvention::Ptx).with_handover(handover);
            let mut found = Vec::new();
            for t in 0..30u64 {
                let inp = if t == 1 { op(1) } else { PipeIn::default() };
                let e = ports(t == 1 + reference_age(), 1, 7);
                let a = ports(t == frame, 1, 8);
                c.cycle(t, (inp, None), &e, &a, &mut found);
            }
            assert_eq!(found.len(), 1, "{handover:?}");
            assert_eq!(found[0].diff.retired, Some(5), "{handover:?}");
            assert_eq!(
                found[0].cycle, frame,
                "{handover:?}: the frame it was seen in"
            );
        }
    }

    #[test]
    fn a_reset_throws_away_what_is_in_flight() {
        let mut c = Checker::new(16, NanConvention::Ptx);
        let mut found = Vec::new();
        let none = ports(false, 0, 0);
        c.cycle(0, (op(1), None), &none, &none, &mut found);
        // A reset cycle: its valid input is not an operation, and operation 1 is gone.
        let reset = PipeIn {
            reset: true,
            ..op(2)
        };
        c.cycle(1, (reset, None), &none, &none, &mut found);
        c.cycle(2, (op(3), None), &none, &none, &mut found);
        for t in 3..40 {
            let done = t == 2 + reference_age();
            let p = ports(done, 3, 7);
            c.cycle(t, (PipeIn::default(), None), &p, &p, &mut found);
        }
        c.finish(40, &mut found);
        assert!(found.is_empty(), "{}", found.len());
        // A result under the reset operation's tag was never issued.
        c.cycle(
            40,
            (PipeIn::default(), None),
            &none,
            &ports(true, 1, 0),
            &mut found,
        );
        assert_eq!(found[0].diff.fault, Fault::Unissued);
    }

    #[test]
    fn a_reused_tag_matches_in_issue_order() {
        let mut c = Checker::new(64, NanConvention::Ptx);
        let mut found = Vec::new();
        let none = ports(false, 0, 0);
        // Two operations with tag 5 in flight; the reference's results differ.
        c.cycle(0, (op(5), None), &none, &none, &mut found);
        c.cycle(1, (op(5), None), &none, &none, &mut found);
        for t in 2..reference_age() {
            c.cycle(t, (PipeIn::default(), None), &none, &none, &mut found);
        }
        let t = reference_age();
        c.cycle(
            t,
            (PipeIn::default(), None),
            &ports(true, 5, 10),
            &ports(true, 5, 10),
            &mut found,
        );
        c.cycle(
            t + 1,
            (PipeIn::default(), None),
            &ports(true, 5, 11),
            &ports(true, 5, 12),
            &mut found,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].issue, Some(1));
        assert_eq!(found[0].diff.expected, Some(11));
    }
}

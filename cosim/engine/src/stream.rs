//! The cycle-by-cycle input of one chunk: operations of one or several families, interleaved
//! cycle by cycle, with bubbles, then an idle drain.
//!
//! Traffic, one cycle at a time:
//! - a bubble (valid = 0, random data and control bits) in 1 cycle of 16, and a burst of 2 to
//!   16 bubbles starting in 1 cycle of 256 (a stalled producer);
//! - otherwise an operation. With several families each family has the same weight: an
//!   operation's family is drawn uniformly, and in 1 draw of 8 that family keeps the issue
//!   slot for a run of 4 to 32 back-to-back operations, so both rapid family changes (f64
//!   right after vmad right after f32x2) and long same-family runs are exercised;
//! - reset held for one cycle in 1 cycle of [`RESET_EVERY`] while operations remain, with
//!   whatever is in flight: both sides must clear every register and carry on (its other
//!   inputs are random and ignored; it presents no operation). Drawn from a generator of its
//!   own, so the operations and the rest of the traffic are those of a stream without resets;
//! - each family's vectors come from its own generator (`ptxfma_model::stimulus`), so a
//!   family's vectors do not depend on what the others drew; one vector in
//!   [`directed::RATE`] of each is replaced by a directed corner of that family
//!   ([`crate::directed`]), aimed at the coverage bins random operands rarely reach.
//!
//! A stream is entirely determined by (seed, families in order, operations), which is what
//! makes a reported cycle replayable. It yields each cycle's input with the family of the
//! operation it issues, as drawn: nothing downstream decodes a control word to get it back.

use std::fmt;

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

use crate::directed::{self, Biased};
use crate::stim::{splitmix64, Family, Rng, Stimulus};

/// One bubble (valid = 0) in this many cycles.
const BUBBLE_EVERY: u64 = 16;
/// A burst of bubbles starts in one cycle of this many.
const BUBBLE_BURST_EVERY: u64 = 256;
/// A family draw starts a back-to-back run in one of this many.
const RUN_EVERY: u64 = 8;
/// A reset cycle is inserted in one cycle of this many.
pub const RESET_EVERY: u64 = 8192;

/// The families of a stream, in the order that seeds their generators; `all` on a command line
/// is [`Family::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Families(pub Vec<Family>);

impl Families {
    /// A comma-separated list (`f32,vmad`) or `all`. Empty names are errors, not a default;
    /// repeats are dropped.
    pub fn parse(s: &str) -> Result<Families, String> {
        let quote = ptxfma_ptx::quote::quote;
        let known = || {
            let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            format!("{}, all", names.join(", "))
        };
        let mut out: Vec<Family> = Vec::new();
        for name in s.split(',').map(str::trim) {
            if name.is_empty() {
                return Err(format!(
                    "empty family name in `{}` (known: {})",
                    quote(s),
                    known()
                ));
            }
            let add: Vec<Family> = if name == "all" {
                Family::ALL.to_vec()
            } else {
                vec![Family::parse(name).ok_or_else(|| {
                    format!("unknown family `{}` (known: {})", quote(name), known())
                })?]
            };
            for f in add {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        Ok(Families(out))
    }

    pub fn all() -> Families {
        Families(Family::ALL.to_vec())
    }

    pub fn one(f: Family) -> Families {
        Families(vec![f])
    }
}

impl fmt::Display for Families {
    /// `all`, or the comma list: what `--filter` takes back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == Family::ALL {
            return f.write_str("all");
        }
        let names: Vec<&str> = self.0.iter().map(|x| x.name()).collect();
        f.write_str(&names.join(","))
    }
}

/// One cycle of a stream: its input, and the family of the operation it issues (`None` when it
/// issues nothing: a bubble, a reset, the drain).
pub type Cycle = (PipeIn, Option<Family>);

/// Inputs that come from outside a stream (a file, a command line) as cycles: the family of an
/// operation is then that of its control word.
pub fn decoded(inputs: impl IntoIterator<Item = PipeIn>) -> impl Iterator<Item = Cycle> {
    inputs.into_iter().map(|p| {
        let family = p.issues().then(|| Family::of(&Ctrl::decode(p.ctrl)));
        (p, family)
    })
}

/// A run of back-to-back operations of one family.
struct Run {
    family: usize,
    left: u32,
}

pub struct Stream {
    /// One generator per family, in the order of the stream's families.
    stims: Vec<Biased<Stimulus>>,
    families: Vec<Family>,
    traffic: Rng,
    resets: Rng,
    run: Option<Run>,
    bubble_burst: u32,
    left: u64,
    drain: usize,
    cycle: u64,
    /// Only words these allow ([`crate::stim::set_forms`]).
    forms: Option<crate::stim::Forms>,
}

impl Stream {
    pub fn new(seed: u64, families: &Families, vectors: u64) -> Stream {
        Stream::with_forms(seed, families, vectors, crate::stim::forms())
    }

    /// [`Stream::new`] drawing only the words `forms` allows, whatever [`set_forms`] set.
    ///
    /// [`set_forms`]: crate::stim::set_forms
    pub fn with_forms(
        seed: u64,
        families: &Families,
        vectors: u64,
        forms: Option<crate::stim::Forms>,
    ) -> Stream {
        // Each generator draws from the words the forms allow (all of them without forms):
        // a design's stream never draws a word only to throw it away.
        let biased = |seed: u64, f: Family| {
            let stim = Stimulus::with_forms(seed, &[f], forms);
            Biased::with_forms(stim, seed, &[f], directed::RATE, forms)
        };
        let stims = match &families.0[..] {
            // One family: its generator has the stream's own seed.
            [f] => vec![biased(seed, *f)],
            fams => fams
                .iter()
                .enumerate()
                .map(|(k, f)| {
                    let mut s = seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    biased(splitmix64(&mut s), *f)
                })
                .collect(),
        };
        Stream {
            stims,
            families: families.0.clone(),
            traffic: Rng::new(seed ^ 0x0B0B_B1E5),
            resets: Rng::new(seed ^ 0x2E5E_7000_0000_0001),
            run: None,
            bubble_burst: 0,
            left: vectors,
            drain: LATENCY,
            cycle: 0,
            forms,
        }
    }

    /// The input of cycle `index` (cycles count from 0 after reset).
    pub fn nth(seed: u64, families: &Families, vectors: u64, index: u64) -> Option<PipeIn> {
        let mut s = Stream::new(seed, families, vectors);
        for _ in 0..index {
            s.next()?;
        }
        s.next().map(|(p, _)| p)
    }

    /// The inputs alone.
    pub fn inputs(self) -> impl Iterator<Item = PipeIn> {
        self.map(|(p, _)| p)
    }

    /// A bubble: it still carries arbitrary data and control bits, and both sides must compute
    /// the same stage registers from them even though nothing retires.
    fn bubble(&mut self, tag: u16) -> PipeIn {
        let r = &mut self.traffic;
        PipeIn {
            valid: false,
            tag,
            ctrl: (r.next_u64() & 0xFF_FFFF) as u32,
            a: r.next_u64(),
            b: r.next_u64(),
            c: r.next_u64(),
            reset: false,
        }
    }

    /// The family (index into `stims`) of the next operation.
    fn next_family(&mut self) -> usize {
        let n = self.stims.len() as u64;
        if n == 1 {
            return 0;
        }
        if let Some(run) = &mut self.run {
            if run.left > 0 {
                run.left -= 1;
                return run.family;
            }
        }
        self.run = None;
        let family = self.traffic.below(n) as usize;
        if self.traffic.below(RUN_EVERY) == 0 {
            let len = 4 + self.traffic.below(29) as u32;
            self.run = Some(Run {
                family,
                left: len - 1,
            });
        }
        family
    }
}

impl Iterator for Stream {
    type Item = Cycle;

    fn next(&mut self) -> Option<Cycle> {
        let tag = self.cycle as u16;
        let mut family = None;
        let inp = if self.left == 0 {
            if self.drain == 0 {
                return None;
            }
            self.drain -= 1;
            PipeIn {
                tag,
                ..PipeIn::default()
            }
        } else if self.resets.below(RESET_EVERY) == 0 {
            let r = &mut self.resets;
            PipeIn {
                valid: r.below(2) == 1,
                tag,
                ctrl: (r.next_u64() & 0xFF_FFFF) as u32,
                a: r.next_u64(),
                b: r.next_u64(),
                c: r.next_u64(),
                reset: true,
            }
        } else if self.bubble_burst > 0 {
            self.bubble_burst -= 1;
            self.bubble(tag)
        } else if self.traffic.below(BUBBLE_EVERY) == 0 {
            self.bubble(tag)
        } else if self.traffic.below(BUBBLE_BURST_EVERY) == 0 {
            self.bubble_burst = 1 + self.traffic.below(15) as u32;
            self.bubble(tag)
        } else {
            let f = self.next_family();
            let mut p = self.stims[f].next_input(tag)?;
            if let Some(forms) = self.forms {
                // The generators draw allowed words; only a corner's construction can step
                // outside (a vmad `.sat` bound), one draw in [`directed::RATE`] at most, so
                // this ends at once. A family the forms leave no word (a manifest refuses
                // that) has no generator words: the stream ends there rather than spin.
                while !forms.allows_word(p.ctrl) {
                    p = self.stims[f].next_input(tag)?;
                }
            }
            self.left -= 1;
            family = Some(self.families[f]);
            p
        };
        self.cycle += 1;
        Some((inp, family))
    }
}

#[cfg(test)]
mod pinned;

#[cfg(test)]
mod tests {
    use super::*;

    fn family_of(p: &PipeIn) -> Family {
        Family::of(&Ctrl::decode(p.ctrl))
    }

    #[test]
    fn the_family_yielded_is_that_of_the_control_word() {
        for (p, f) in Stream::new(4, &Families::all(), 20_000) {
            assert_eq!(f, p.issues().then(|| family_of(&p)), "{p:?}");
        }
    }

    #[test]
    fn all_families_interleave_cycle_by_cycle() {
        let s: Vec<PipeIn> = Stream::new(3, &Families::all(), 90_000).inputs().collect();
        let ops: Vec<&PipeIn> = s.iter().filter(|p| p.issues()).collect();
        assert_eq!(ops.len(), 90_000);
        // Resets land about once in RESET_EVERY cycles, some of them with valid inputs that
        // must be ignored.
        let resets: Vec<&PipeIn> = s.iter().filter(|p| p.reset).collect();
        let expected = s.len() as u64 / RESET_EVERY;
        assert!((expected / 2..expected * 2).contains(&(resets.len() as u64)));
        assert!(resets.iter().any(|p| p.valid));
        // Every family gets about its share.
        for f in Family::ALL {
            let n = ops.iter().filter(|p| family_of(p) == f).count();
            assert!((8_000..12_000).contains(&n), "{}: {n}", f.name());
        }
        // Back-to-back pairs of every (previous, current) family occur.
        let mut pairs = std::collections::HashSet::new();
        for w in s.windows(2) {
            if w[0].issues() && w[1].issues() {
                pairs.insert((family_of(&w[0]), family_of(&w[1])));
            }
        }
        assert_eq!(
            pairs.len(),
            Family::ALL.len() * Family::ALL.len(),
            "{} of {} family pairs back to back",
            pairs.len(),
            Family::ALL.len() * Family::ALL.len()
        );
        // Runs of one family longer than 20 operations occur, and so do bubble bursts.
        let longest = s
            .iter()
            .filter(|p| p.issues())
            .map(family_of)
            .collect::<Vec<_>>()
            .chunk_by(|a, b| a == b)
            .map(<[Family]>::len)
            .max()
            .unwrap();
        assert!(longest > 20, "{longest}");
        let bubbles = s.chunk_by(|a, b| !a.valid && !b.valid);
        assert!(bubbles.map(<[PipeIn]>::len).max().unwrap() >= 4);
        // The drain closes it.
        assert!(s[s.len() - LATENCY..].iter().all(|p| !p.valid));
    }

    #[test]
    fn a_single_family_stream_holds_only_that_family() {
        for f in Family::ALL {
            let s: Vec<PipeIn> = Stream::new(9, &Families::one(f), 500).inputs().collect();
            assert!(s.iter().filter(|p| p.issues()).all(|p| family_of(p) == f));
        }
    }

    #[test]
    fn streams_are_replayable_and_seeded() {
        let fams = Families::parse("vmad,f64").unwrap();
        let a: Vec<PipeIn> = Stream::new(5, &fams, 300).inputs().collect();
        assert_eq!(a, Stream::new(5, &fams, 300).inputs().collect::<Vec<_>>());
        assert_ne!(a, Stream::new(6, &fams, 300).inputs().collect::<Vec<_>>());
        for i in [0u64, 17, 299] {
            assert_eq!(Stream::nth(5, &fams, 300, i), Some(a[i as usize]));
        }
        // A family's vectors do not depend on the other families' draws: the f64 vectors of
        // `vmad,f64` are those of its own generator in order.
        let f64s: Vec<(u64, u64, u64)> = a
            .iter()
            .filter(|p| p.issues() && family_of(p) == Family::F64)
            .map(|p| (p.a, p.b, p.c))
            .collect();
        let mut s = 5 ^ 2u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let seed = splitmix64(&mut s);
        let own: Vec<(u64, u64, u64)> = Biased::new(
            Stimulus::new(seed, &[Family::F64]),
            seed,
            &[Family::F64],
            directed::RATE,
        )
        .take(f64s.len())
        .map(|v| (v.a, v.b, v.c))
        .collect();
        assert_eq!(f64s, own);
    }

    #[test]
    fn family_lists_parse_and_print_back() {
        assert_eq!(Families::parse("all").unwrap(), Families::all());
        assert_eq!(Families::all().to_string(), "all");
        let f = Families::parse("vmad, f32,vmad").unwrap();
        assert_eq!(f.0, vec![Family::Vmad, Family::F32]);
        assert_eq!(f.to_string(), "vmad,f32");
        assert_eq!(Families::parse(&f.to_string()).unwrap(), f);
        for bad in ["", ",", "f32,,vmad", "fma.f16"] {
            assert!(Families::parse(bad).is_err(), "{bad}");
        }
    }
}

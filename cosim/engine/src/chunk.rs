//! A run as a list of chunks, and the shards of that list.
//!
//! A chunk is one stream (family, seed, operations) run from reset, so any chunk can be replayed
//! alone with `fma-cosim replay --seed S --filter F --count N --index I`. The list depends only
//! on the run's parameters (seed, count, families, chunk size), never on how many workers or
//! shards run it: that is what makes a run's summary the same for every `--jobs` and the union
//! of the shards exactly the unsharded run.

use std::fmt;

use crate::stim::splitmix64;
use crate::stream::{Families, Stream};
use crate::Error;

/// Default operations per chunk.
pub const DEFAULT_SIZE: u64 = 65_536;

/// One chunk of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Position in the run's chunk list (from 0).
    pub index: usize,
    /// The families its stream interleaves (the run's `--filter`).
    pub families: Families,
    /// Seed of this chunk's stream: the run's seed for the first chunk (so a one-chunk run
    /// replays with the run's own seed), a hash of the run's seed and the chunk's position
    /// otherwise.
    pub seed: u64,
    /// Valid operations in the chunk.
    pub ops: u64,
}

impl Chunk {
    /// The chunk's cycle-by-cycle input (operations, bubbles, drain).
    pub fn stream(&self) -> Stream {
        Stream::new(self.seed, &self.families, self.ops)
    }

    /// The `fma-cosim replay` arguments that regenerate this chunk's stream, as words.
    pub fn replay_args(&self) -> Vec<String> {
        stream_words(self.seed, &self.families, self.ops)
    }

    /// The same, as one line for a message.
    pub fn stream_args(&self) -> String {
        self.replay_args().join(" ")
    }
}

/// The `replay` arguments of the stream of `ops` operations of `families` seeded `seed`.
pub fn stream_words(seed: u64, families: &Families, ops: u64) -> Vec<String> {
    vec![
        "--seed".into(),
        seed.to_string(),
        "--filter".into(),
        families.to_string(),
        "--count".into(),
        ops.to_string(),
    ]
}

/// The seed of the `k`-th chunk (from 0) of a run seeded `seed`.
pub fn chunk_seed(seed: u64, k: u64) -> u64 {
    if k == 0 {
        return seed;
    }
    let mut s = seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03);
    splitmix64(&mut s)
}

/// The chunks of a run: `count` operations of the stream interleaving `families`, cut into
/// chunks of at most `size` operations. The whole list, for a run known to be small; a run
/// takes its chunks from [`Chunks`], one at a time.
pub fn plan(seed: u64, count: u64, families: &Families, size: u64) -> Result<Vec<Chunk>, Error> {
    Ok(Chunks::new(seed, count, families, size)?.iter().collect())
}

/// A run's chunk list, or one shard of it, as index arithmetic: each chunk is made when it is
/// asked for, so the list is never held whole, whatever the run's count and chunk size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunks {
    seed: u64,
    count: u64,
    families: Families,
    size: u64,
    shard: Option<Shard>,
    /// Only the run's chunk at this position (a chunk run again alone).
    only: Option<u64>,
}

impl Chunks {
    /// The whole list of [`plan`], checked as it checks it.
    pub fn new(seed: u64, count: u64, families: &Families, size: u64) -> Result<Chunks, Error> {
        check(count, families, size)?;
        Ok(Chunks {
            seed,
            count,
            families: families.clone(),
            size,
            shard: None,
            only: None,
        })
    }

    /// Only the run's chunk at position `k` (none when the run has no such chunk): one chunk
    /// of a shard run again alone, as `merge --verify` does.
    pub fn only(mut self, k: u64) -> Chunks {
        self.shard = None;
        self.only = Some(k);
        self
    }

    /// Only the chunks `shard` holds (all of them for `None`).
    pub fn sharded(mut self, shard: Option<Shard>) -> Chunks {
        self.shard = shard;
        self
    }

    /// Chunks in the whole run, every shard's.
    pub fn total(&self) -> u64 {
        self.count.div_ceil(self.size)
    }

    /// Chunks in this list (this shard's).
    pub fn len(&self) -> u64 {
        if let Some(k) = self.only {
            return u64::from(k < self.total());
        }
        match self.shard {
            None => self.total(),
            Some(s) => {
                let first = u64::from(s.index - 1);
                self.total()
                    .saturating_sub(first)
                    .div_ceil(u64::from(s.count))
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The run's position of the `j`-th chunk of this list.
    fn position(&self, j: u64) -> u64 {
        if let Some(k) = self.only {
            return k + j;
        }
        match self.shard {
            None => j,
            Some(s) => j * u64::from(s.count) + u64::from(s.index - 1),
        }
    }

    /// The `j`-th chunk (from 0) of this list; `None` past its end.
    pub fn get(&self, j: u64) -> Option<Chunk> {
        if j >= self.len() {
            return None;
        }
        nth(
            self.seed,
            self.count,
            &self.families,
            self.size,
            self.position(j),
        )
    }

    /// The chunks in order, each made as it is taken.
    pub fn iter(&self) -> impl Iterator<Item = Chunk> + '_ {
        (0..self.len()).map_while(|j| self.get(j))
    }

    /// Operations in this list's chunks: all of them `size` but the run's last, which holds
    /// what is left.
    pub fn ops(&self) -> u64 {
        let mut ops = self.len() * self.size;
        let last = self.total() - 1;
        let holds_last = match self.only {
            Some(k) => k == last,
            None => self.shard.is_none_or(|s| s.holds_position(last)),
        };
        if holds_last && ops > 0 {
            ops -= self.size - (self.count - last * self.size);
        }
        ops
    }

    /// Where the run's chunk at position `k` starts in the run's operations.
    pub fn start(&self, k: u64) -> u64 {
        k * self.size
    }
}

/// Whether a run of `count` operations of `families` in chunks of `size` checks something in
/// every family: what [`plan`] asks of its parameters.
pub fn check(count: u64, families: &Families, size: u64) -> Result<(), Error> {
    if families.0.is_empty() {
        return Err(Error::new("no family to run"));
    }
    let n = families.0.len() as u64;
    if count < n {
        return Err(Error::new(format!(
            "--count {count} is below the number of families ({n}): some family would run \
             nothing"
        )));
    }
    if size == 0 {
        return Err(Error::new("--chunk-size must be at least 1"));
    }
    Ok(())
}

/// Chunk `k` (from 0) of [`plan`]'s list, without listing the others (a results file's
/// parameters are checked chunk by chunk); `None` past the end.
pub fn nth(seed: u64, count: u64, families: &Families, size: u64, k: u64) -> Option<Chunk> {
    let start = k.checked_mul(size).filter(|&s| s < count)?;
    Some(Chunk {
        index: usize::try_from(k).ok()?,
        families: families.clone(),
        seed: chunk_seed(seed, k),
        ops: (count - start).min(size),
    })
}

/// Shard `index` (1-based) of `count`: the chunks whose position is `index - 1` modulo `count`,
/// so every shard gets a similar mix of families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether chunk `i` of the run belongs to this shard.
    pub fn holds(&self, i: usize) -> bool {
        self.holds_position(i as u64)
    }

    /// The same for a position that may not fit a `usize`.
    pub fn holds_position(&self, i: u64) -> bool {
        i % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || "expected K/N with 1 <= K <= N <= 100000, as in 2/8".to_string();
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n || n > 100_000 {
            return Err(bad());
        }
        Ok(Shard { index: k, count: n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stim::Family;

    #[test]
    fn plan_cuts_the_stream_into_chunks() {
        let fams = Families(vec![Family::F32, Family::Vmad]);
        let p = plan(5, 11, &fams, 4).unwrap();
        let ops: Vec<u64> = p.iter().map(|c| c.ops).collect();
        assert_eq!(ops, vec![4, 4, 3]);
        assert!(p
            .iter()
            .enumerate()
            .all(|(i, c)| c.index == i && c.families == fams));
        // The first chunk keeps the run's seed; the others differ from it and each other.
        assert_eq!(p[0].seed, 5);
        assert_ne!(p[1].seed, p[2].seed);
        assert_ne!(p[1].seed, 5);
        assert_eq!(
            p[1].stream_args(),
            format!("--seed {} --filter f32,vmad --count 4", p[1].seed)
        );
    }

    #[test]
    fn plan_rejects_what_would_check_nothing() {
        let one = Families(vec![Family::F32]);
        assert!(plan(1, 0, &one, 8).is_err());
        let n = Family::ALL.len() as u64;
        assert!(plan(1, n - 1, &Families::all(), 8).is_err());
        assert!(plan(1, n, &Families::all(), 8).is_ok());
        assert!(plan(1, 10, &one, 0).is_err());
        assert!(plan(1, 10, &Families(vec![]), 8).is_err());
    }

    #[test]
    fn chunks_are_the_plan_made_one_at_a_time() {
        let fams = Families(vec![Family::F32, Family::Vmad]);
        for (count, size) in [(11, 4), (12, 4), (3, 7), (100, 1)] {
            let all = plan(3, count, &fams, size).unwrap();
            let lazy = Chunks::new(3, count, &fams, size).unwrap();
            assert_eq!(lazy.iter().collect::<Vec<_>>(), all);
            assert_eq!(lazy.ops(), count);
            for n in 1..=5u32 {
                for k in 1..=n {
                    let s = Shard { index: k, count: n };
                    let mine: Vec<Chunk> =
                        all.iter().filter(|c| s.holds(c.index)).cloned().collect();
                    let lazy = lazy.clone().sharded(Some(s));
                    assert_eq!(lazy.len(), mine.len() as u64);
                    assert_eq!(lazy.iter().collect::<Vec<_>>(), mine);
                    assert_eq!(lazy.ops(), mine.iter().map(|c| c.ops).sum::<u64>());
                }
            }
            // Each chunk alone, as `merge --verify` runs it again; none past the end.
            for c in &all {
                let one = lazy.clone().only(c.index as u64);
                assert_eq!(one.iter().collect::<Vec<_>>(), vec![c.clone()]);
                assert_eq!(one.ops(), c.ops);
            }
            let past = lazy.clone().only(all.len() as u64);
            assert!(past.is_empty());
            assert_eq!(past.ops(), 0);
        }
        // A list far too long to hold is still only arithmetic.
        let huge = Chunks::new(1, 1 << 40, &fams, 1).unwrap();
        assert_eq!(huge.len(), 1 << 40);
        assert_eq!(huge.get((1 << 40) - 1).unwrap().ops, 1);
    }

    #[test]
    fn shards_partition_the_chunks() {
        for n in 1..=5u32 {
            let shards: Vec<Shard> = (1..=n).map(|k| Shard { index: k, count: n }).collect();
            for i in 0..23 {
                assert_eq!(shards.iter().filter(|s| s.holds(i)).count(), 1);
            }
        }
    }

    #[test]
    fn shard_spelling() {
        assert_eq!("2/8".parse::<Shard>(), Ok(Shard { index: 2, count: 8 }));
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 3, count: 4 }.to_string(), "3/4");
    }
}

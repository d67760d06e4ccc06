//! Step one: the vectors of every form with the model's answers, written to a vector file.
//!
//! A block per form: its directed vectors ([`super::directed`]) and then the project's
//! edge-biased stimulus ([`ptxfma_model::stimulus::operands_for`], near-cancellations included) up to
//! the form's count. Each form draws from its own generator, seeded from the run's seed and the
//! form's id, so one form's vectors do not depend on which others are generated.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::eval_batch;
use ptxfma_model::stimulus::{operands_for, splitmix64, Rng};

use super::files::{write_block, write_vectors_head, Block, Output, VectorsHead};
use super::forms::{self, Form};
use super::{directed, SiliconError};

/// What to generate.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Vectors per row of the table: per float form, and per vmad mnemonic (shared among its
    /// selector and sign decorations).
    pub count: u32,
    pub seed: u64,
    /// Leave out forms above this compute capability (`sm_XX` as XX); `None` keeps all.
    pub sm: Option<u32>,
    /// Keep only forms whose mnemonic is one of these (a trailing `*` matches a prefix).
    pub only: Vec<String>,
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub forms: usize,
    pub vectors: u64,
}

impl Plan {
    fn keeps(&self, f: &Form) -> bool {
        let m = f.mnemonic();
        self.sm.is_none_or(|sm| f.min_sm() <= sm)
            && (self.only.is_empty()
                || self.only.iter().any(|p| match p.strip_suffix('*') {
                    Some(prefix) => m.starts_with(prefix),
                    None => m == *p,
                }))
    }
}

/// The model's results for `ctrl` on these operands ([`eval_batch`], the lane engine).
pub fn answers(ctrl: &Ctrl, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    let word = ctrl.encode();
    let mut d = vec![0; a.len()];
    eval_batch(|_| word, a, b, c, &mut d);
    d
}

/// One form's block.
fn block(id: usize, form: &Form, count: u32, seed: u64) -> Block {
    let mut state = seed ^ (id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng::new(splitmix64(&mut state));
    let mut ops = directed::vectors(form);
    while ops.len() < count as usize {
        ops.push(operands_for(&form.ctrl, &mut rng));
    }
    let a: Vec<u64> = ops.iter().map(|x| x.0).collect();
    let b: Vec<u64> = ops.iter().map(|x| x.1).collect();
    let c: Vec<u64> = ops.iter().map(|x| x.2).collect();
    let model = answers(&form.ctrl, &a, &b, &c);
    Block {
        form: id as u32,
        a,
        b,
        c,
        model,
    }
}

/// Writes the vector file of `plan` to `path`, on `threads` threads; `progress` is called
/// after each block with the number written so far and the total.
pub fn generate(
    path: &Path,
    plan: &Plan,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Written, SiliconError> {
    if plan.count == 0 {
        return Err(SiliconError::Usage("--count must be at least 1".into()));
    }
    let all = forms::all();
    let mut per_form = vec![0u32; all.len()];
    for row in forms::rows(&all) {
        let share = plan.count.div_ceil(row.forms.len() as u32);
        for &i in &row.forms {
            per_form[i] = share;
        }
    }
    let chosen: Vec<usize> = (0..all.len()).filter(|&i| plan.keeps(&all[i])).collect();
    if chosen.is_empty() {
        return Err(SiliconError::Usage(format!(
            "no form matches --forms {}",
            plan.only.join(",")
        )));
    }
    let mut out = Output::create(path)?;
    write_vectors_head(
        &mut out,
        &VectorsHead {
            fingerprint: forms::fingerprint(&all),
            seed: plan.seed,
            blocks: chosen.len() as u32,
        },
    )?;
    let mut written = Written {
        forms: chosen.len(),
        vectors: 0,
    };
    // Batches of blocks made in parallel and written in order.
    let threads = threads.max(1);
    let mut done = 0;
    for batch in chosen.chunks(threads) {
        let next = AtomicUsize::new(0);
        let mut made: Vec<(usize, Block)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads.min(batch.len()))
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&id) = batch.get(k) else { break mine };
                            mine.push((k, block(id, &all[id], per_form[id], plan.seed)));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a generator thread panicked"))
                .collect()
        });
        made.sort_by_key(|(k, _)| *k);
        for (_, b) in made {
            written.vectors += b.a.len() as u64;
            write_block(&mut out, &b)?;
        }
        done += batch.len();
        progress(done, chosen.len());
    }
    out.finish()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::silicon::files::VectorsReader;
    use ptxfma_model::machine::pipeline::eval;

    #[test]
    fn answers_are_the_pipes_results_one_by_one() {
        let all = forms::all();
        for id in [0usize, 40, 100, 200, 3000] {
            let b = block(id, &all[id], 300, 7);
            for i in (0..b.a.len()).step_by(97) {
                assert_eq!(
                    b.model[i],
                    eval(&all[id].ctrl, b.a[i], b.b[i], b.c[i]),
                    "{}",
                    all[id].eval_line(b.a[i], b.b[i], b.c[i])
                );
            }
        }
    }

    #[test]
    fn a_file_holds_the_chosen_forms_with_their_counts() {
        let dir = std::env::temp_dir().join(format!("ptxfma-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.bin");
        let plan = Plan {
            count: 5000,
            seed: 3,
            sm: Some(90),
            only: vec![
                "fma.rn.f32".into(),
                "vmad.u32.u32.u32.sat".into(),
                "fma.rn.f32x2".into(),
            ],
        };
        let w = generate(&path, &plan, 2, &mut |_, _| {}).unwrap();
        let all = forms::all();
        let mut r = VectorsReader::open(&path).unwrap();
        assert_eq!(r.head.seed, 3);
        assert_eq!(r.head.fingerprint, forms::fingerprint(&all));
        let mut n = 0;
        let mut vmad = 0;
        while let Some(b) = r.next_block().unwrap() {
            let f = &all[b.form as usize];
            match f.mnemonic().as_str() {
                "fma.rn.f32" => assert_eq!(b.a.len(), 5000),
                // 49 selector pairs share the row's 5000, after their 1331 directed vectors.
                "vmad.u32.u32.u32.sat" => {
                    assert_eq!(b.a.len(), 1331);
                    vmad += 1;
                }
                m => panic!("{m} was not asked for"),
            }
            n += b.a.len() as u64;
        }
        // The row's 49 selector pairs, and for 3 selector pairs its -a, -b spelling and the
        // -a and -c words respelled with .u32 (9).
        assert_eq!(vmad, 49 + 9, "and no f32x2 for sm_90");
        assert_eq!(n, w.vectors);
        assert_eq!(w.forms, 1 + 49 + 9);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

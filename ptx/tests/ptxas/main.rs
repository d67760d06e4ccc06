//! NVIDIA's assembler as the decoder's oracle: every FMA-pipe spelling of a systematic enumeration
//! is written into one `.ptx` file per target, one instruction a line, and `ptxas` judges them
//! all at once (it names every bad line). The decoder's verdict on the same spelling, as an
//! `fma-model eval` line for the same target, must be the same on every line, but for the named
//! exceptions in [`EXCEPTIONS`].
//!
//! `ptxas` comes from the PyPI package `nvidia-cuda-nvcc`, which `make test` installs into the
//! project's virtual environment; `PTXAS` names another one. A missing `ptxas` fails the test.

mod spellings;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use ptxfma_ptx::{parse_line, Target};
use spellings::{enumerate, Spelling};

/// Spellings where the decoder deliberately differs from `ptxas`, as (target, PTX line, reason).
/// Each entry must still differ (a stale exception fails the test).
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn ptxas() -> PathBuf {
    if let Some(p) = std::env::var_os("PTXAS") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    // `make test` builds the virtual environment here (the Makefile's PY_BUILD).
    let lib = target.join("py/venv/lib");
    let found = std::fs::read_dir(&lib).ok().and_then(|dirs| {
        dirs.flatten()
            .map(|d| d.path().join("site-packages/nvidia/cu13/bin/ptxas"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "ptxas not found: neither PTXAS nor {}/python3.*/site-packages/nvidia/cu13/bin/ptxas; \
             `make ptxas` installs it (PyPI nvidia-cuda-nvcc, pinned in python/requirements-dev.txt)",
            lib.display()
        )
    })
}

/// What `ptxas` says of each spelling for `target`: `None` if accepted, else its first message.
fn ptxas_verdicts(ptxas: &Path, target: &str, spellings: &[Spelling]) -> Vec<Option<String>> {
    let dir = std::env::temp_dir().join(format!("ptxfma-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{target}.ptx"));
    let mut text = format!(
        ".version 9.1\n.target {target}\n.address_size 64\n.visible .entry spellings()\n{{\n{}",
        spellings::DECLARATIONS
    );
    let first = text.lines().count() + 1;
    for s in spellings {
        text.push_str(&s.ptx);
        text.push('\n');
    }
    text.push_str("ret;\n}\n");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", ptxas.display()));
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut verdicts = vec![None; spellings.len()];
    let mut errors = 0;
    for line in stderr.lines() {
        // `ptxas FILE, line N; error   : MESSAGE`
        let Some((head, msg)) = line.split_once("; error") else {
            continue;
        };
        let n: usize = head.rsplit("line ").next().unwrap().trim().parse().unwrap();
        let i = n
            .checked_sub(first)
            .filter(|&i| i < spellings.len())
            .unwrap_or_else(|| panic!("ptxas names line {n}, outside the instructions: {line}"));
        let msg = msg.trim_start_matches([' ', ':']).trim().to_string();
        verdicts[i].get_or_insert(msg);
        errors += 1;
    }
    // A fatal error other than the usual "aborted due to errors" would leave lines unjudged.
    assert!(
        stderr
            .lines()
            .all(|l| !l.contains("fatal") || l.contains("aborted due to errors")),
        "ptxas failed on the file as a whole:\n{stderr}"
    );
    assert_eq!(
        out.status.success(),
        errors == 0,
        "ptxas exit status vs messages:\n{stderr}"
    );
    verdicts
}

/// The decoder's verdict on each spelling for `target`: `None` if accepted, else its message.
fn decoder_verdicts(target: &str, spellings: &[Spelling]) -> Vec<Option<String>> {
    let t = Target::parse(target).unwrap();
    spellings
        .iter()
        .map(|s| parse_line(&s.eval, t).err().map(|e| e.to_string()))
        .collect()
}

/// `ptxas` and the decoder agree on every spelling for sm_90 and sm_100, but for the named
/// exceptions; the table of counts is printed (`--nocapture`).
#[test]
fn the_decoder_accepts_what_ptxas_accepts() {
    let ptxas = ptxas();
    let spellings = enumerate();
    let mut failures = Vec::new();
    for target in ["sm_90", "sm_100"] {
        let by_ptxas = ptxas_verdicts(&ptxas, target, &spellings);
        let by_decoder = decoder_verdicts(target, &spellings);
        // (family, ptxas accepts, decoder accepts) -> spellings
        let mut table: BTreeMap<(&str, bool, bool), usize> = BTreeMap::new();
        let mut excepted = vec![false; EXCEPTIONS.len()];
        for (i, s) in spellings.iter().enumerate() {
            let family = s.family;
            let (p, d) = (by_ptxas[i].is_none(), by_decoder[i].is_none());
            *table.entry((family, p, d)).or_default() += 1;
            if p == d {
                continue;
            }
            if let Some(k) = EXCEPTIONS
                .iter()
                .position(|(t, line, _)| *t == target && *line == s.ptx)
            {
                excepted[k] = true;
                continue;
            }
            failures.push(format!(
                "{target}: `{}`: ptxas {}, the decoder {}",
                s.ptx,
                by_ptxas[i]
                    .as_deref()
                    .map_or("accepts".to_string(), |m| format!("refuses ({m})")),
                by_decoder[i]
                    .as_deref()
                    .map_or("accepts".to_string(), |m| format!("refuses ({m})")),
            ));
        }
        // A ptxas that judged nothing (or everything) would make agreement meaningless.
        for family in ["float", "half", "vmad"] {
            let by = |p: bool| {
                table
                    .iter()
                    .filter(|((f, q, _), _)| *f == family && *q == p)
                    .map(|(_, n)| n)
                    .sum::<usize>()
            };
            assert!(
                by(true) >= 100 && by(false) >= 100,
                "{target}: ptxas accepted {} and refused {} {family} spellings",
                by(true),
                by(false)
            );
        }
        println!("{target}: family, ptxas accepts, decoder accepts: spellings");
        for ((family, p, d), n) in &table {
            println!("  {family:5} {p:5} {d:5} {n:6}");
        }
        for (k, hit) in excepted.iter().enumerate() {
            if !hit && EXCEPTIONS[k].0 == target {
                failures.push(format!("{target}: stale exception `{}`", EXCEPTIONS[k].1));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with ptxas, the first 20:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

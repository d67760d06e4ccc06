//! The host side of `make silicon` as a user runs it, with no GPU: `fma-model silicon gen`
//! writes vectors, a result file stands in for the GPU's (the model's answers, then with planted
//! wrong answers), and `fma-model silicon compare` must pass the first and catch every planted
//! mismatch; bad files and bad usage are one line and exit 2; the checked-in table of forms of
//! the CUDA program is current; `silicon/run.sh` without nvcc or a GPU says so and exits 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fma_model::silicon::files::{write_results, ResultBlock, ResultsHead, VectorsReader};
use fma_model::silicon::forms;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fma-model"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxfma-silicon-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("spawn")
}

/// `fma-model silicon gen` of a few forms.
fn gen(dir: &Path, forms: &str, count: u32) -> PathBuf {
    let path = dir.join("vectors.bin");
    let o = run(bin()
        .args([
            "silicon",
            "gen",
            "--count",
            &count.to_string(),
            "--seed",
            "5",
        ])
        .args(["--forms", forms, "--jobs", "2", "--out"])
        .arg(&path));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    path
}

/// The blocks of a vector file with, as the GPU's answers, the model's.
fn model_results(vectors: &Path) -> (ResultsHead, Vec<ResultBlock>) {
    let mut r = VectorsReader::open(vectors).unwrap();
    let head = ResultsHead {
        fingerprint: r.head.fingerprint,
        info: vec![
            ("gpu".into(), "Test GPU".into()),
            ("compute_capability".into(), "9.0".into()),
        ],
        blocks: r.head.blocks,
    };
    let mut blocks = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        blocks.push(ResultBlock {
            form: b.form,
            count: b.a.len() as u32,
            d: Some(b.model.clone()),
        });
    }
    (head, blocks)
}

fn compare(vectors: &Path, results: &Path) -> Output {
    run(bin()
        .args(["silicon", "compare", "--show", "50"])
        .arg(vectors)
        .arg(results))
}

/// The table row of `mnemonic`: (vectors, mismatches), or the note of a row that did not run.
fn row(report: &str, mnemonic: &str) -> Vec<String> {
    let line = report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(mnemonic))
        .unwrap_or_else(|| panic!("no row {mnemonic} in\n{report}"));
    line.split_whitespace().skip(1).map(str::to_owned).collect()
}

fn decision(report: &str, name: &str) -> (u64, u64) {
    let line = report
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no decision {name} in\n{report}"));
    let v: Vec<u64> = line[name.len()..]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1])
}

const FORMS: &str = "fma.rn.f32,mad.rp.ftz.sat.f32,sub.rn.f64,fma.rz.f64,vmad.s32.s32.s32.sat";

#[test]
fn the_model_agrees_with_itself_and_every_planted_mismatch_is_caught() {
    let dir = scratch("agree");
    let vectors = gen(&dir, FORMS, 6000);
    let all = forms::all();
    let (head, mut blocks) = model_results(&vectors);
    let results = dir.join("results.bin");
    write_results(&results, &head, &blocks).unwrap();

    let o = compare(&vectors, &results);
    let report = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{report}{}", text(&o.stderr));
    assert!(
        report.contains("GPU: Test GPU, compute capability 9.0"),
        "{report}"
    );
    assert_eq!(row(&report, "fma.rn.f32"), ["6000", "0"]);
    assert_eq!(row(&report, "mad.rp.ftz.sat.f32"), ["6000", "0"]);
    // 49 selector pairs times plain, `-a` and `-c` (all spelled s32.s32.s32), and for 3 pairs
    // plain and `-c` spelled with `-a, -b`, each with its 11^3 directed vectors, more than its
    // share of the 6000.
    assert_eq!(
        row(&report, "vmad.s32.s32.s32.sat"),
        [((3 * 49 + 2 * 3) * 1331).to_string(), "0".into()]
    );
    assert_eq!(row(&report, "fma.rn.f32x2")[..2], ["-", "-"]);
    for d in [
        "S1 f32 NaN result",
        "S2 f64 NaN operand or result",
        "S9 sub.f64 with a NaN c",
    ] {
        let (n, bad) = decision(&report, d);
        assert!(n > 0 && bad == 0, "{d}: {n} {bad}");
    }
    for d in [
        "S3 .sat changed the result",
        "S4 .ftz changed the result",
        "S8 vmad",
    ] {
        assert!(decision(&report, d).0 > 0, "{d}");
    }

    // Plant wrong answers: another NaN where the model says f32 NaN (S1), an unquieted payload
    // where sub.f64 returns a NaN c (S9), and one bit off in vmad.
    let mut planted = Vec::new();
    let mut r = VectorsReader::open(&vectors).unwrap();
    for blk in blocks.iter_mut() {
        let vb = r.next_block().unwrap().unwrap();
        let m = all[blk.form as usize].mnemonic();
        let d = blk.d.as_mut().unwrap();
        let pick = match m.as_str() {
            "fma.rn.f32" => vb.model.iter().position(|&x| x == 0x7fff_ffff),
            "sub.rn.f64" => (0..vb.c.len()).find(|&i| vb.c[i] == 0x7ff0_0000_0000_0001),
            "vmad.s32.s32.s32.sat" if planted.len() == 2 => Some(7),
            _ => None,
        };
        if let Some(i) = pick {
            d[i] = match m.as_str() {
                "fma.rn.f32" => 0x7fc0_0000,
                "sub.rn.f64" => 0x7ff0_0000_0000_0001,
                _ => d[i] ^ 1,
            };
            planted.push((m, vb.a[i], vb.b[i], vb.c[i], d[i], vb.model[i]));
        }
    }
    assert_eq!(planted.len(), 3, "{planted:?}");
    write_results(&results, &head, &blocks).unwrap();
    let o = compare(&vectors, &results);
    let report = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{report}{}", text(&o.stderr));
    assert_eq!(row(&report, "fma.rn.f32"), ["6000", "1"]);
    assert_eq!(row(&report, "sub.rn.f64")[1], "1");
    assert_eq!(row(&report, "vmad.s32.s32.s32.sat")[1], "1");
    assert_eq!(decision(&report, "S1 f32 NaN result").1, 1);
    assert_eq!(decision(&report, "S9 sub.f64 with a NaN c").1, 1);
    assert_eq!(decision(&report, "S8 vmad").1, 1);
    assert!(report.contains(", 3 mismatches"), "{report}");
    // Each mismatch is printed as an eval line that `fma-model eval` answers with the model's
    // value shown beside it.
    let lines: Vec<&str> = report.lines().filter(|l| l.contains("   gpu 0x")).collect();
    assert_eq!(lines.len(), 3, "{report}");
    for l in lines {
        let (instr, answers) = l.trim().split_once("   gpu ").unwrap();
        let model = answers.split(" model ").nth(1).unwrap();
        let o = run(bin().arg("eval").arg(instr));
        assert_eq!(o.status.code(), Some(0), "{instr}");
        let got = u64::from_str_radix(text(&o.stdout).trim().trim_start_matches("0x"), 16).unwrap();
        assert_eq!(
            got,
            u64::from_str_radix(model.trim_start_matches("0x"), 16).unwrap(),
            "{l}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn forms_the_gpu_lacks_are_reported_as_not_run() {
    let dir = scratch("lacks");
    let vectors = gen(&dir, "fma.rn.f32,fma.rn.f32x2,add.rz.sat.f32.bf16", 300);
    let (head, mut blocks) = model_results(&vectors);
    let all = forms::all();
    for b in &mut blocks {
        if all[b.form as usize].min_sm() > 90 {
            b.d = None;
        }
    }
    let results = dir.join("results.bin");
    write_results(&results, &head, &blocks).unwrap();
    let o = compare(&vectors, &results);
    let report = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{report}");
    let f32_row = row(&report, "fma.rn.f32");
    assert!(
        f32_row[0].parse::<u64>().unwrap() >= 300 && f32_row[1] == "0",
        "{report}"
    );
    assert!(row(&report, "fma.rn.f32x2")
        .join(" ")
        .contains("not run: needs sm_100"));
    assert!(row(&report, "add.rz.sat.f32.bf16")
        .join(" ")
        .contains("not run: needs sm_100"));
    assert!(row(&report, "fma.rn.ftz.f32")
        .join(" ")
        .contains("not in the vector file"));
    assert!(report.contains("sm_1x only"), "{report}");
    assert!(report.contains(" in 1 forms, 0 mismatches"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One line on stderr starting `error: `, nothing on stdout, exit 2.
fn assert_bad(o: &Output, says: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(says), "{err}");
    assert_eq!(text(&o.stdout), "");
}

#[test]
fn bad_files_are_one_line_and_exit_2() {
    let dir = scratch("bad");
    let vectors = gen(&dir, "fma.rn.f32,vmad.u32.u32.u32", 2000);
    let (head, blocks) = model_results(&vectors);
    let results = dir.join("results.bin");
    write_results(&results, &head, &blocks).unwrap();
    let bytes = std::fs::read(&vectors).unwrap();
    let bad = dir.join("bad.bin");

    std::fs::write(&bad, &bytes[..bytes.len() - 5]).unwrap();
    assert_bad(&compare(&bad, &results), "cut short");
    std::fs::write(&bad, b"hello").unwrap();
    assert_bad(&compare(&bad, &results), "not a vector file");
    assert_bad(&compare(&vectors, &bad), "not a result file");
    // A block header that claims four billion vectors: an error, not an allocation.
    let mut huge = bytes[..28].to_vec();
    huge.extend_from_slice(&0u32.to_le_bytes());
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&bad, &huge).unwrap();
    assert_bad(&compare(&bad, &results), "cut short");
    // Another table of forms.
    let mut other = bytes.clone();
    other[8] ^= 1;
    std::fs::write(&bad, &other).unwrap();
    assert_bad(&compare(&bad, &results), "another table of forms");
    // Results of other vectors.
    let fewer = gen(&scratch("bad-other"), "fma.rn.f32", 10);
    assert_bad(&compare(&fewer, &results), "not its results");
    let mut tail = bytes.clone();
    tail.push(0);
    std::fs::write(&bad, &tail).unwrap();
    assert_bad(&compare(&bad, &results), "after the last block");
    assert_bad(&compare(&dir.join("missing.bin"), &results), "missing.bin");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_usage_is_one_line_exit_2_and_leaves_no_file() {
    let dir = scratch("usage");
    let out = dir.join("v.bin");
    let gen_with =
        |args: &[&str]| run(bin().args(["silicon", "gen", "--out"]).arg(&out).args(args));
    assert_bad(&gen_with(&["--count", "0"]), "--count");
    assert_bad(&gen_with(&["--arch", "90"]), "sm_90");
    assert_bad(&gen_with(&["--forms", "fma.rx.f32"]), "no form matches");
    assert_bad(
        &run(bin()
            .args(["silicon", "gen", "--out"])
            .arg(dir.join("no/such/dir/v.bin"))),
        "v.bin",
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "a file was left behind"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_during_gen_leaves_nothing_behind() {
    let dir = scratch("ctrlc");
    let child = bin()
        .args([
            "silicon", "gen", "--count", "2000000", "--jobs", "1", "--out",
        ])
        .arg(dir.join("v.bin"))
        .spawn()
        .unwrap();
    // Wait until the temporary exists, so the signal lands while it is being written.
    let t0 = std::time::Instant::now();
    while std::fs::read_dir(&dir).unwrap().count() == 0 {
        assert!(t0.elapsed().as_secs() < 60, "gen never started writing");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let o = run(Command::new("kill").args(["-INT", &child.id().to_string()]));
    assert!(o.status.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cuda_programs_table_of_forms_is_current() {
    let path = repo().join("silicon/forms.inc");
    let want = forms::include_file(&forms::all());
    if std::env::var_os("PTXFMA_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(
        have == want,
        "silicon/forms.inc is stale: run `fma-model silicon forms --out silicon/forms.inc` \
         (or PTXFMA_BLESS=1 cargo test -p fma-model --test silicon_cli)"
    );
}

#[test]
fn make_silicon_without_nvcc_or_gpu_says_so_and_exits_2() {
    let dir = scratch("nogpu");
    let script = repo().join("silicon/run.sh");
    let bash = "/bin/bash";
    // No nvcc anywhere on PATH.
    let o = run(Command::new(bash).arg(&script).env("PATH", &dir));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no nvcc"), "{err}");
    // An nvcc, but no nvidia-smi and so no GPU.
    let nvcc = dir.join("nvcc");
    std::fs::write(&nvcc, "#!/bin/bash\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = run(Command::new(bash).arg(&script).env("PATH", &dir));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no NVIDIA GPU"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! The model is compiled once for every way the workspace is built: `ptxfma-model`'s own
//! dependencies resolve to the same features in every plan, so cargo gives the model one
//! metadata hash and reuses its build. A plan is what one cargo command resolves: a member built
//! alone (`cargo build -p X`, maturin's build of the Python module), a member's tests alone
//! (`cargo test -p X`, dev-dependencies included), and the whole workspace's tests, with and
//! without the co-simulator's test features. A difference here costs a full compile of the model
//! in `make test` (issue 48); `model/Cargo.toml` states the features that keep them alike.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

/// The co-simulator's test features, as the Makefile's `TEST_FEATURES` names them.
const TEST_FEATURES: &str = "ptxfma-cosim/fault-sticky,ptxfma-cosim/alt-design,\
                             ptxfma-cosim/rtl-coverage,ptxfma-cosim/random-init";

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(&cargo)
        .args(args)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo:?}: {e}"));
    assert!(
        out.status.success(),
        "cargo {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo's output is UTF-8")
}

/// `cargo tree` of a plan, one line per package: `name vX.Y.Z [features]`.
fn tree(plan: &[&str]) -> Vec<String> {
    let mut args = vec!["tree", "--locked", "--prefix", "none", "-f", "{p} [{f}]"];
    args.extend_from_slice(plan);
    cargo(&args).lines().map(str::to_owned).collect()
}

/// `name vX.Y.Z` of a `cargo tree` line (without a path or the `(*)` of a repeated package).
fn package(line: &str) -> String {
    line.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// The feature lists each of `packages` has in `plan` (more than one where a package is built
/// twice, for the host and the target).
fn features_in(plan: &[&str], packages: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in tree(plan) {
        let p = package(&line);
        if packages.contains(&p) {
            let f = line
                .rsplit_once('[')
                .map_or("", |(_, f)| f.trim_end_matches(']'));
            found
                .entry(p)
                .or_default()
                .insert(f.trim_end_matches("] (*)").to_owned());
        }
    }
    found
}

#[test]
fn the_model_resolves_alike_in_every_plan() {
    // What the model's compile depends on: its normal and build dependencies.
    let closure: BTreeSet<String> = tree(&["-p", "ptxfma-model", "-e", "normal,build"])
        .iter()
        .map(|l| package(l))
        .filter(|p| !p.starts_with("ptxfma-model "))
        .collect();
    assert!(
        closure.iter().any(|p| p.starts_with("num-bigint ")),
        "the model's dependencies were not found in cargo tree's output: {closure:?}"
    );

    let metadata = cargo(&["metadata", "--locked", "--format-version", "1", "--no-deps"]);
    let metadata: serde_json::Value = serde_json::from_str(&metadata).expect("cargo metadata");
    let members: Vec<String> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_owned())
        .collect();
    assert!(members.len() >= 8, "workspace members: {members:?}");

    let mut plans: Vec<Vec<String>> = vec![
        vec!["--workspace".into()],
        vec![
            "--workspace".into(),
            "--features".into(),
            TEST_FEATURES.into(),
        ],
    ];
    for m in &members {
        plans.push(vec![
            "-p".into(),
            m.clone(),
            "-e".into(),
            "normal,build".into(),
        ]);
        plans.push(vec!["-p".into(), m.clone()]);
    }

    let mut seen: BTreeMap<BTreeMap<String, BTreeSet<String>>, Vec<String>> = BTreeMap::new();
    for plan in &plans {
        let args: Vec<&str> = plan.iter().map(String::as_str).collect();
        let f = features_in(&args, &closure);
        // A plan that does not build the model (none today) has nothing to compare.
        if !f.is_empty() {
            seen.entry(f).or_default().push(plan.join(" "));
        }
    }
    if seen.len() > 1 {
        let mut msg = format!(
            "ptxfma-model's dependencies resolve {} ways, so `make test` compiles the model {} \
             times; state the features in model/Cargo.toml:\n",
            seen.len(),
            seen.len()
        );
        for (features, plans) in &seen {
            msg += &format!("  plans {plans:?}:\n");
            for (p, f) in features {
                msg += &format!("    {p} {f:?}\n");
            }
        }
        panic!("{msg}");
    }
    assert_eq!(seen.values().map(Vec::len).sum::<usize>(), plans.len());
}

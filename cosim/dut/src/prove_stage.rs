//! Both designs of a `dut prove` miter copied into the run's directory, and the Yosys commands
//! that read them and turn a miter into the model yosys-smtbmc checks: shared by the stream
//! proof (`prove`) and the proof by cases (`prove_cases`). The WebAssembly Yosys sees only its
//! working directory, so everything it reads is copied there first.

use std::path::{Path, PathBuf};

use ptxfma_cosim_engine::Error;

use super::manifest::Resolved;

/// The kit's RTL: the checkout this binary was built from.
const KIT_RTL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rtl");

/// yosys-smtbmc's options for both modes, up to the depth that follows `-t`: boolector, every
/// step's assumptions checked satisfiable first (`--presat`: a case no operands meet is then
/// `PREUNSAT`, never proved), the model unrolled.
pub const SMTBMC_ARGS: [&str; 6] = [
    "-s",
    "boolector",
    "--presat",
    "--unroll",
    "--noprogress",
    "-t",
];

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("{}: {e}", path.display()))
}

/// The NaN rule's defines for the miter.
fn nan_defines(m: &Resolved) -> Vec<String> {
    match m.manifest.contract.nan.as_deref() {
        Some("canonical") => {
            let mut nans = ptxfma_ptx::CanonicalNans::default();
            for (name, v) in &m.canonical_nan {
                let _ = nans.set(name, *v);
            }
            vec![
                "NAN_CANONICAL".into(),
                format!("CANON_F16=16'h{:04x}", nans.f16),
                format!("CANON_BF16=16'h{:04x}", nans.bf16),
            ]
        }
        // ptx and any: any NaN for a NaN (S10 leaves a half NaN's bits open).
        _ => Vec::new(),
    }
}

/// `path` below `root` by its absolute path, so that files keep their relative places; each
/// byte outside `[A-Za-z0-9._+-]` of a name written `%XX`, since Yosys's `read_slang` takes a
/// quoted file name's quotes as part of it (a team's checkout under `My Designs/` is read).
fn mirrored(root: &Path, path: &Path) -> PathBuf {
    let mut out = root.to_path_buf();
    for part in path.strip_prefix("/").unwrap_or(path).iter() {
        let mut name = String::new();
        for b in part.as_encoded_bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'+' | b'-' => {
                    name.push(char::from(*b))
                }
                _ => name.push_str(&format!("%{b:02X}")),
            }
        }
        out.push(name);
    }
    out
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(io(to))?;
    for e in std::fs::read_dir(from).map_err(io(from))? {
        let e = e.map_err(io(from))?;
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()))?;
        } else {
            std::fs::copy(&p, to.join(e.file_name())).map_err(io(&p))?;
        }
    }
    Ok(())
}

/// A word of a Yosys script: quoted where it holds a space or a quote.
fn ys(word: &str) -> String {
    if word
        .chars()
        .any(|c| c.is_whitespace() || c == '"' || c == ';')
    {
        format!("\"{}\"", word.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        word.to_string()
    }
}

/// Both designs copied into a run's directory: the Yosys commands that read each (paths
/// relative to it) and the defines every miter takes.
pub struct Staged {
    pub kit_files: String,
    pub dut_args: String,
    pub top: String,
    pub miter_defines: String,
}

/// Copies both designs into `work`.
pub fn copy_designs(m: &Resolved, dut_edges: u64, work: &Path) -> Result<Staged, Error> {
    let kit = Path::new(KIT_RTL);
    let list = kit.join("files.txt");
    let names = std::fs::read_to_string(&list).map_err(|e| {
        Error::new(format!(
            "dut prove: the kit's RTL list {}: {e} (fma-cosim reads the kit's RTL from the \
             checkout it was built in)",
            list.display()
        ))
    })?;
    let kit_dir = work.join("kit");
    std::fs::create_dir_all(&kit_dir).map_err(io(&kit_dir))?;
    let mut kit_files = Vec::new();
    for n in names.lines().map(str::trim).filter(|n| n.ends_with(".sv")) {
        std::fs::copy(kit.join(n), kit_dir.join(n)).map_err(io(&kit.join(n)))?;
        kit_files.push(format!("kit/{n}"));
    }
    let dut_root = work.join("dut");
    let rel = |p: &Path| -> String { mirrored(Path::new("dut"), p).to_string_lossy().into_owned() };
    let mut dut_args: Vec<String> = Vec::new();
    for d in &m.defines {
        dut_args.push("-D".into());
        dut_args.push(ys(d));
    }
    for i in &m.include_dirs {
        copy_tree(i, &mirrored(&dut_root, i))?;
        dut_args.push("-I".into());
        dut_args.push(ys(&rel(i)));
    }
    for (name, p) in &m.parameters {
        let value = match p {
            ptxfma_cosim_engine::dut::Parameter::Integer(v) => v.to_string(),
            ptxfma_cosim_engine::dut::Parameter::Text(t) => format!("\"{t}\""),
        };
        dut_args.push("-G".into());
        dut_args.push(ys(&format!("{name}={value}")));
    }
    for s in &m.sources {
        let to = mirrored(&dut_root, s);
        std::fs::create_dir_all(to.parent().unwrap_or(&dut_root)).map_err(io(&to))?;
        std::fs::copy(s, &to).map_err(io(s))?;
        dut_args.push(ys(&rel(s)));
    }
    let mut miter_defines = vec![format!("DUT_EDGES={dut_edges}")];
    if let Some(w) = m
        .manifest
        .contract
        .tag_width
        .or(Some(16))
        .filter(|w| *w > 0)
    {
        miter_defines.push(format!("DUT_TAG_W={w}"));
    }
    miter_defines.extend(nan_defines(m));
    Ok(Staged {
        kit_files: kit_files.join(" "),
        dut_args: dut_args.join(" "),
        top: m.manifest.design.top.clone(),
        miter_defines: miter_defines
            .iter()
            .map(|d| format!("-D{d}"))
            .collect::<Vec<_>>()
            .join(" "),
    })
}

/// The Yosys commands that turn the flattened miter into the model yosys-smtbmc checks, as SBY
/// prepares one (async2sync: the resets act at once), written to `out`.
pub fn smt_model(out: &str) -> String {
    format!(
        "hierarchy -smtcheck\nrename -witness\nscc -select\nsimplemap\nselect -clear\n\
         memory_nordff\nasync2sync\nchformal -assume -early\nopt_clean\n\
         formalff -setundef -clk2ff -ff2anyinit -hierarchy\n\
         chformal -live -fair -cover -remove\nopt_clean\ncheck\n\
         setundef -undriven -anyseq\nopt -fast\nrename -witness\nopt_clean\n\
         delete */t:$print\nformalff -assume\ndffunmap\nwrite_smt2 -wires {out}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrored_names_keep_their_places_and_lose_their_spaces() {
        let m = mirrored(Path::new("dut"), Path::new("/home/a b/src/x%y.sv"));
        assert_eq!(m, Path::new("dut/home/a%20b/src/x%25y.sv"));
        // Distinct names stay distinct: `a b` and `a_b` do not meet.
        let n = mirrored(Path::new("dut"), Path::new("/home/a_b/src/x%y.sv"));
        assert_ne!(m, n);
    }
}

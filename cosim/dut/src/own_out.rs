//! An `--out` directory that `dut build` or `dut prove` replaces whole: replaced only when it
//! is empty, or when it is an earlier output of the same command, unchanged. The command's
//! record lists every other file it wrote (its path relative to the directory, and its
//! SHA-256); a directory holding anything else (a file the user put there, a file edited since,
//! a record the command did not write) is refused, naming the first such file, and is left as
//! it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ptxfma_cosim_engine::dut::sha256;
use ptxfma_cosim_engine::Error;

/// Path (relative, `/`-separated) -> SHA-256 of every file of a written output directory but
/// its record: what the record lists under `files`.
pub type Files = BTreeMap<String, String>;

/// Every file under `dir` (directories walked, in name order), relative to it, `/`-separated;
/// a symbolic link or other non-regular entry is listed too, as the command writes none.
fn walk(dir: &Path) -> Result<Vec<(String, PathBuf, bool)>, Error> {
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), dir.to_path_buf())];
    while let Some((rel, d)) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d)
            .map_err(|e| Error::new(format!("{}: {e}", d.display())))?
            .collect::<Result<_, _>>()
            .map_err(|e| Error::new(format!("{}: {e}", d.display())))?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = format!("{rel}{}", e.file_name().to_string_lossy());
            let kind = e
                .file_type()
                .map_err(|err| Error::new(format!("{}: {err}", e.path().display())))?;
            if kind.is_dir() {
                stack.push((format!("{name}/"), e.path()));
            } else {
                found.push((name, e.path(), kind.is_file()));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The [`Files`] of `dir`, all but `record`: what a command lists in its record just before
/// writing it.
pub fn listing(dir: &Path, record: &str) -> Result<Files, Error> {
    let mut files = Files::new();
    for (rel, path, _) in walk(dir)? {
        if rel != record {
            let bytes =
                std::fs::read(&path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
            files.insert(rel, sha256(&bytes));
        }
    }
    Ok(files)
}

/// Refuses an `--out` directory that exists and is neither empty nor an unchanged earlier
/// output of `command`: its record `record` must be one `ours` accepts (it returns the record's
/// file list, `None` for a record that is not the command's), and every other file must be one
/// the list holds, with its digest. The error is one line naming the first offending file.
/// Files under `nested` (a sub-directory's path and `/`), which the caller has checked
/// itself, are passed over.
pub fn refuse_foreign_out(
    out: &Path,
    record: &str,
    command: &str,
    nested: Option<&str>,
    ours: impl Fn(&serde_json::Value) -> Option<Files>,
) -> Result<(), Error> {
    let meta = match std::fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::new(format!("--out {}: {e}", out.display()))),
    };
    if !meta.is_dir() {
        return Err(Error::new(format!(
            "--out {}: exists and is not a directory; give an empty or new directory",
            out.display()
        )));
    }
    let mut found = walk(out)?;
    if let Some(n) = nested {
        found.retain(|f| !f.0.starts_with(n));
    }
    let Some(first) = found.first() else {
        return Ok(());
    };
    let refuse = |file: &str, why: String| {
        Err(Error::new(format!(
            "--out {}: {}: {why}; nothing was replaced: give an empty or new directory, or \
             remove it yourself",
            out.display(),
            out.join(file).display()
        )))
    };
    let listed = std::fs::read(out.join(record))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| ours(&v));
    let Some(listed) = listed else {
        let file: &str = if found.iter().any(|f| f.0 == record) {
            record
        } else {
            &first.0
        };
        return refuse(
            file,
            format!("the directory holds no earlier `{command}` ({record} is not its record)"),
        );
    };
    for (rel, path, regular) in &found {
        if rel == record {
            continue;
        }
        let Some(digest) = listed.get(rel) else {
            return refuse(rel, format!("not written by `{command}`"));
        };
        let same = *regular
            && std::fs::read(path)
                .map(|b| sha256(&b) == *digest)
                .unwrap_or(false);
        if !same {
            return refuse(rel, format!("changed since `{command}` wrote it"));
        }
    }
    Ok(())
}

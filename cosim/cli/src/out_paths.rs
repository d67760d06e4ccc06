//! The output paths a command is given, checked before any long run: writable, not a
//! directory, and no two the same file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ptxfma_cosim_engine::temporary::Temporary;
use ptxfma_cosim_engine::Error;

/// The directories this process created for its outputs ([`check_dir_writable`]), so that a
/// call that fails takes them away again ([`remove_created`]).
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Makes sure a directory exists and can be written, before any long run. The directories it
/// creates are noted, for [`remove_created`].
pub(crate) fn check_dir_writable(dir: &Path, what: &str) -> Result<(), Error> {
    let mut missing = Vec::new();
    let mut d = dir;
    while !d.as_os_str().is_empty() && d.symlink_metadata().is_err() {
        missing.push(d.to_path_buf());
        match d.parent() {
            Some(up) => d = up,
            None => break,
        }
    }
    let made = std::fs::create_dir_all(dir);
    // Noted whether or not the whole path could be made: what was made is taken away.
    let mut created = CREATED.lock().unwrap_or_else(|p| p.into_inner());
    created.extend(missing.into_iter().filter(|m| m.is_dir()));
    drop(created);
    made.map_err(|e| Error::new(format!("{what} {}: {e}", dir.display())))?;
    // A temporary, so that not even a Ctrl-C now leaves it behind.
    let probe = Temporary::beside(&dir.join("fma-cosim-probe"), "tmp");
    probe
        .create()
        .map_err(|e| Error::new(format!("{what} {} is not writable: {e}", dir.display())))?;
    Ok(())
}

/// Removes the directories [`check_dir_writable`] created that are still empty, deepest
/// first: a call that fails leaves nothing behind (a directory holding a file stays).
pub(crate) fn remove_created() {
    let mut created = std::mem::take(&mut *CREATED.lock().unwrap_or_else(|p| p.into_inner()));
    created.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in created {
        let _ = std::fs::remove_dir(d);
    }
}

/// Checks that an output file can be written later, so a long run does not fail at its end.
pub(crate) fn check_out_file(path: &Path, what: &str) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(Error::new(format!(
            "{what} {} is a directory",
            path.display()
        )));
    }
    ptxfma_cosim_engine::temporary::check_replaceable(path)?;
    check_dir_writable(dir, &format!("directory of {what}"))
}

/// Refuses two outputs on one file (`--json X --coverage X`): the one written last would
/// replace the other. `outputs` are the options' names and values. Paths are compared as a
/// rename into place replaces them: the file name in its directory, the directory
/// canonicalised (so `x`, `./x` and `d/../x` are one file, and a link to a directory is that
/// directory).
pub(crate) fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> Result<(), Error> {
    let mut seen: Vec<(PathBuf, &str, &Path)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        let key = output_identity(path);
        if let Some((_, other, first)) = seen.iter().find(|(k, ..)| *k == key) {
            return Err(Error::new(format!(
                "{other} {} and {flag} {} are one file: give each output its own",
                first.display(),
                path.display()
            )));
        }
        seen.push((key, flag, path));
    }
    Ok(())
}

/// Refuses an output on one of the command's input files (`merge a.json --json a.json`): the
/// output, renamed into place, would replace a file of the user's that the call only reads.
/// Compared as [`distinct_outputs`] compares outputs.
pub(crate) fn not_an_input(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[PathBuf],
) -> Result<(), Error> {
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        let key = output_identity(path);
        if let Some(input) = inputs.iter().find(|i| output_identity(i) == key) {
            return Err(Error::new(format!(
                "{flag} {} is the input {}: give the output a file of its own",
                path.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// The file an output path names: its directory canonicalised (the deepest part of it that
/// exists, for a directory the run will create), then its file name.
pub(crate) fn output_identity(path: &Path) -> PathBuf {
    let Some(name) = path.file_name() else {
        return path.to_path_buf();
    };
    let mut dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut missing = Vec::new();
    let mut key = loop {
        if let Ok(c) = dir.canonicalize() {
            break c;
        }
        match (dir.parent(), dir.file_name()) {
            (Some(up), Some(n)) => {
                missing.push(n);
                dir = if up.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    up
                };
            }
            _ => break dir.to_path_buf(),
        }
    };
    key.extend(missing.iter().rev());
    key.push(name);
    key
}

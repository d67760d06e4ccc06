//! Files written under temporary names and renamed into place, so that an interrupted run
//! never leaves a cut output; and the immediate exit of a second Ctrl-C, which removes them.
//!
//! Every temporary is registered here while it exists. [`exit_now`] (the second Ctrl-C) takes
//! the registry's lock, removes every registered file, and exits still holding the lock. A
//! temporary is only created, and only renamed into place, under that lock
//! ([`Temporary::create`], [`Temporary::open_with`], [`create_with`], [`Temporary::persist`],
//! [`finish`]). So whatever the moment of the signal, a file either exists before the exit
//! path takes the lock (and is removed, or is already whole under its final name) or its
//! creation waits for the lock until the process is gone: no thread can create a file after
//! the removal and before the exit. Writing to a file already open needs no lock: after the
//! removal it writes to an unlinked file.
//!
//! A process killed outright (SIGKILL, a lost node) removes nothing. Its temporaries are named
//! `.NAME.WHAT<pid>@<host>` ([`Temporary::beside`]), so the next run that writes to the same
//! directory on the same host removes those whose process is gone ([`sweep`]); the host keeps a
//! run on another machine sharing the directory (a farm's shards) from taking a live run's
//! temporary for a dead one.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::Error;

/// The temporaries that exist, and whether the final outputs are in place ([`finish`]).
struct Registry {
    files: Vec<PathBuf>,
    finished: bool,
    /// Directories [`sweep`] has cleared of dead runs' temporaries.
    swept: Vec<PathBuf>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static R: Mutex<Registry> = Mutex::new(Registry {
        files: Vec::new(),
        finished: false,
        swept: Vec::new(),
    });
    // A panic elsewhere leaves the list as valid as before it.
    R.lock().unwrap_or_else(|p| p.into_inner())
}

/// A temporary file, registered until dropped; dropping it removes the file unless it was
/// renamed into place.
#[derive(Debug)]
pub struct Temporary {
    path: PathBuf,
    persisted: bool,
}

impl Temporary {
    /// Registers `path` as a temporary; nothing is created yet.
    pub fn new(path: PathBuf) -> Temporary {
        registry().files.push(path.clone());
        Temporary {
            path,
            persisted: false,
        }
    }

    /// Registers `.NAME.WHAT<pid>@<host>` beside `dest`, whose file name is `NAME`: hidden, in
    /// the same file system (so renaming it onto `dest` is atomic), and no other process's.
    /// `what` ends in `tmp`, the mark [`sweep`] knows a temporary by. The directory is first
    /// cleared of dead runs' temporaries.
    pub fn beside(dest: &Path, what: &str) -> Temporary {
        let path = beside_name(dest, what);
        sweep(path.parent().unwrap_or(Path::new("")));
        Temporary::new(path)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the file (empty) and opens it for writing.
    pub fn create(&self) -> io::Result<File> {
        self.open_with(|p| File::create(p))
    }

    /// Runs `open`, which creates the file by its name (for code that opens files itself, like
    /// Verilator's tracer), where the immediate exit cannot remove the temporaries meanwhile.
    pub fn open_with<T>(&self, open: impl FnOnce(&Path) -> T) -> T {
        create_with(|| open(&self.path))
    }

    /// Renames the file onto `dest`, whole, unless the immediate exit got there first (then
    /// this never returns). On failure the temporary is removed.
    pub fn persist(mut self, dest: &Path) -> io::Result<()> {
        let r = {
            let _held = registry();
            fs::rename(&self.path, dest)
        };
        self.persisted = r.is_ok();
        r
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        // Removed and unregistered in one step: the exit path sees either both or neither.
        let mut r = registry();
        if !self.persisted {
            let _ = fs::remove_file(&self.path);
        }
        if let Some(i) = r.files.iter().position(|p| p == &self.path) {
            r.files.swap_remove(i);
        }
    }
}

/// This process's temporary `.NAME.WHAT<pid>@<host>` beside `dest` (whose file name is `NAME`),
/// by name only: nothing is registered, swept or created. `what` ends in `tmp`.
pub fn beside_name(dest: &Path, what: &str) -> PathBuf {
    debug_assert!(what.ends_with(MARK), "{what}");
    let mut name = OsString::from(".");
    name.push(dest.file_name().unwrap_or_default());
    name.push(format!(".{what}{}@{}", std::process::id(), host()));
    dest.with_file_name(name)
}

/// How every temporary's `WHAT` ends ([`Temporary::beside`]).
const MARK: &str = "tmp";

/// This host's name as temporaries carry it: the characters a file name keeps as they are.
fn host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let mut buf = [0u8; 256];
        #[cfg(unix)]
        // SAFETY: the buffer is writable for its whole length; the name is cut at its NUL.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        #[cfg(not(unix))]
        let ok = false;
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let name: String = buf[..len]
            .iter()
            .map(|&b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' => b as char,
                _ => '_',
            })
            .collect();
        if ok && !name.is_empty() {
            name
        } else {
            "localhost".into()
        }
    })
}

/// The process id in `name` when it is a temporary of this host
/// (`.NAME.WHAT<pid>@<host>`, `WHAT` ending in [`MARK`]).
fn owner(name: &str) -> Option<u32> {
    let (left, at) = name.strip_prefix('.')?.rsplit_once('@')?;
    if at != host() {
        return None;
    }
    let digits = left.len() - left.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (rest, pid) = left.split_at(left.len() - digits);
    let (file, _what) = rest.strip_suffix(MARK)?.rsplit_once('.')?;
    if file.is_empty() {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` exists (on this host); a process of another user counts.
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    true
}

/// Removes from `dir` the temporaries of this host's processes that are gone (killed before
/// they could remove them), once per directory per process. Only regular files and directories
/// (`dut build`'s work directory) named as [`beside_name`] names them, never a link; anything
/// that cannot be read or removed is left.
pub fn sweep(dir: &Path) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    {
        let mut r = registry();
        if r.swept.contains(&key) {
            return;
        }
        r.swept.push(key);
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(owner) else {
            continue;
        };
        let Ok(kind) = e.file_type() else {
            continue;
        };
        if (kind.is_file() || kind.is_dir()) && !alive(pid) {
            let _ = if kind.is_dir() {
                fs::remove_dir_all(e.path())
            } else {
                fs::remove_file(e.path())
            };
        }
    }
}

/// Runs `create`, which creates temporaries registered elsewhere by their names, where the
/// immediate exit cannot remove the temporaries meanwhile ([`Temporary::open_with`] for a
/// [`Temporary`] at hand).
pub fn create_with<T>(create: impl FnOnce() -> T) -> T {
    let _held = registry();
    create()
}

/// `bytes` written whole to a temporary beside `dest`, to be renamed onto it.
pub fn stage(dest: &Path, bytes: &[u8]) -> Result<(Temporary, PathBuf), Error> {
    let err = |e: io::Error| Error::new(format!("cannot write {}: {e}", dest.display()));
    if dest.file_name().is_none() {
        return Err(Error::new(format!("{}: not a file name", dest.display())));
    }
    check_replaceable(dest)?;
    let t = Temporary::beside(dest, "tmp");
    t.create()
        .and_then(|mut f| f.write_all(bytes))
        .map_err(err)?;
    Ok((t, dest.to_path_buf()))
}

/// An error unless `dest` is absent or a regular file: an output is renamed into place, which
/// would replace a device such as `/dev/null` or a named pipe with a plain file.
pub fn check_replaceable(dest: &Path) -> Result<(), Error> {
    match fs::metadata(dest) {
        Ok(m) if !m.is_file() => Err(Error::new(format!(
            "{}: not a regular file (outputs are written whole and renamed into place)",
            dest.display()
        ))),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `path` through a temporary in the same directory, renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let (t, dest) = stage(path, bytes)?;
    t.persist(&dest)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", dest.display())))
}

/// Renames a run's final outputs (from [`stage`]) into place, all in one step that the
/// immediate exit cannot split, and disarms the immediate exit: from then on the outputs say
/// how the run ended, and a second Ctrl-C lets the process end accordingly instead of exiting
/// as interrupted. If the immediate exit comes first, none is renamed.
pub fn finish(mut outputs: Vec<(Temporary, PathBuf)>) -> Result<(), Error> {
    let mut r = registry();
    for (t, dest) in &mut outputs {
        if let Err(e) = fs::rename(&t.path, &*dest) {
            // The temporaries are removed after the lock is released, when `outputs` drops.
            drop(r);
            return Err(Error::new(format!("cannot write {}: {e}", dest.display())));
        }
        t.persisted = true;
    }
    r.finished = true;
    drop(r);
    Ok(())
}

/// The immediate exit: removes every temporary and exits with `code`, keeping any other thread
/// from creating one meanwhile. Returns (doing nothing) once [`finish`] put the final outputs in
/// place.
pub fn exit_now(code: i32) {
    exit_now_after(code, || {});
}

/// [`exit_now`], running `last` after the temporaries are removed and before the exit (to
/// remove the directories the command made for its outputs, now empty, and say why it ends);
/// `last` runs only when the exit is made.
pub fn exit_now_after(code: i32, last: impl FnOnce()) {
    let r = registry();
    if r.finished {
        return;
    }
    for f in &r.files {
        let _ = fs::remove_file(f);
    }
    last();
    // `r` is never released: every later creation or rename waits for it until the process is
    // gone. And `_exit`, not `exit`: the other threads are still running (Verilated models
    // among them), and `exit` would destroy the C++ runtime's static objects under them.
    // Standard output is line-buffered, so at most a partial line is lost.
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process at once; it touches no state of this one.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_is_known_by_its_name_and_host() {
        let h = host();
        let t = Temporary::beside(Path::new("/nonexistent/out.json"), "tmp");
        let name = t.path().file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(owner(&name), Some(std::process::id()), "{name}");
        assert_eq!(owner(&format!(".w.vcd.rtl.tmp42@{h}")), Some(42));
        assert_eq!(owner(&format!(".fma-cosim-probe.tmp7@{h}")), Some(7));
        for not in [
            format!(".out.json.tmp42@{h}x"),
            format!("out.json.tmp42@{h}"),
            format!(".out.json.tmp@{h}"),
            format!(".tmp42@{h}"),
            format!(".out.json.bak42@{h}"),
            ".out.json.tmp42".to_string(),
        ] {
            assert_eq!(owner(&not), None, "{not}");
        }
    }

    #[test]
    fn this_process_is_alive_and_a_reaped_child_is_not() {
        assert!(alive(std::process::id()));
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        assert!(!alive(pid));
    }
}

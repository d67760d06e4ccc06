//! The tools `dut build` runs (Verilator, the C++ compiler, the linker), each in a process
//! group of its own, and Ctrl-C or SIGTERM: the signal stops every group, no tool starts after
//! it, and the build gives up instead of renaming its directory into place.
//!
//! A tool in the terminal's process group would get Ctrl-C itself and die before this process
//! knew why, so its failure looked like the design's (exit 2, a rename error); a tool signalled
//! alone would leave its own children (`cc1plus`, `verilator_bin`) running. So each tool leads
//! a group, the handler kills the groups it finds registered, and a group is registered in the
//! same step (under one lock) as its tool is started, so none starts unseen. On Linux this
//! process is made the subreaper of its descendants, so that after a group is killed it can
//! reap every member, grandchildren included: none is left running or as a zombie.

use std::io;
#[cfg(unix)]
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use ptxfma_cosim_engine::Error;

/// The groups running, whether a signal came, and whether the build is already in place.
struct State {
    groups: Vec<i32>,
    interrupted: bool,
    committed: bool,
}

fn state() -> MutexGuard<'static, State> {
    static S: Mutex<State> = Mutex::new(State {
        groups: Vec::new(),
        interrupted: false,
        committed: false,
    });
    S.lock().unwrap_or_else(|p| p.into_inner())
}

/// Installs the handler of SIGINT, SIGTERM and SIGHUP (once per process).
pub fn install() -> Result<(), Error> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            #[cfg(target_os = "linux")]
            // SAFETY: prctl with an integer argument changes only this process's attributes.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
            ctrlc::set_handler(|| {
                let mut s = state();
                if s.committed {
                    // The build is in place: it ends as a build that was not interrupted.
                    return;
                }
                s.interrupted = true;
                s.groups.iter().for_each(|&g| kill_group(g));
            })
            .map_err(|e| format!("cannot handle Ctrl-C: {e}"))
        })
        .clone()
        .map_err(Error::new)
}

/// Whether a signal stopped the build.
pub fn interrupted() -> bool {
    state().interrupted
}

/// The error of a step refused or cut short by the signal; the command reports it as the
/// interruption ([`interrupted`]), not by this text.
fn stopped() -> Error {
    Error::new("interrupted")
}

/// Starts `cmd` (already in a process group of its own) and records its group, so that a
/// signal kills it; refused once a signal has come.
fn spawn_in_group(cmd: &mut Command) -> Result<io::Result<std::process::Child>, Error> {
    let mut s = state();
    if s.interrupted {
        return Err(stopped());
    }
    Ok(cmd.spawn().inspect(|c| s.groups.push(c.id() as i32)))
}

/// Runs `cmd` to its end in a process group of its own, its output captured, unless a signal
/// came first or comes meanwhile (then an error, every process of its group killed and reaped).
pub fn output(cmd: &mut Command) -> Result<io::Result<Output>, Error> {
    in_own_group(cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = match spawn_in_group(cmd)? {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    let group = child.id() as i32;
    let out = child.wait_with_output();
    let mut s = state();
    s.groups.retain(|&g| g != group);
    if s.interrupted {
        drop(s);
        reap(group);
        return Err(stopped());
    }
    Ok(out)
}

/// Puts `cmd` in a process group of its own, and has the kernel kill it when this process
/// dies (SIGKILL of fma-cosim, or a crash: no handler runs then), so that no tool is left
/// running on, orphaned. `PR_SET_PDEATHSIG` fires when the *thread* that started the tool ends:
/// each tool is started by a thread that waits for it ([`output`], [`run_logged`]), so that
/// thread outlives it. The signal is not inherited by a tool's own children: see
/// [`output`] for how those are covered.
fn in_own_group(cmd: &mut Command) {
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid is async-signal-safe; it runs here, in the parent.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid, _exit).
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // fma-cosim died before the death signal was set: go now, as it would have.
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
}

/// SIGKILL to every process of `group`.
fn kill_group(group: i32) {
    #[cfg(unix)]
    // SAFETY: signals a process group this process created and has not reaped.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = group;
}

/// Kills what is left of process group `group` (its leader already reaped) and waits for each
/// member: on Linux every one is this process's child by then (the subreaper).
fn reap(group: i32) {
    kill_group(group);
    #[cfg(unix)]
    // SAFETY: waits for members of a group this process created; the status is a local.
    unsafe {
        let mut status = 0;
        loop {
            if libc::waitpid(-group, &mut status, 0) < 0
                && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted
            {
                break;
            }
        }
    }
}

/// Runs `put_in_place` (the rename of the finished build) unless a signal came first; after
/// it a signal no longer stops the build.
pub fn commit<T>(put_in_place: impl FnOnce() -> T) -> Result<T, Error> {
    let mut s = state();
    if s.interrupted {
        return Err(stopped());
    }
    let r = put_in_place();
    s.committed = true;
    Ok(r)
}

/// Runs `cmd` in a process group of its own, its output (stdout and stderr) appended to `log`
/// (created if missing), until it ends or `limit` passes (then its group is killed and reaped,
/// and the answer is `None`); a signal stops it as [`output`] does. `watch` is called about
/// every 50 ms while it runs, and once after, so that the caller can say how far the log has
/// got. `dut prove`'s solver runs are bounded and followed this way.
pub fn run_logged(
    cmd: &mut Command,
    log: &std::path::Path,
    limit: std::time::Duration,
    mut watch: impl FnMut(),
) -> Result<io::Result<Option<std::process::ExitStatus>>, Error> {
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    let err = match file.try_clone() {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    in_own_group(cmd);
    cmd.stdin(Stdio::null()).stdout(file).stderr(err);
    let mut child = match spawn_in_group(cmd)? {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    let group = child.id() as i32;
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Ok(Some(st)),
            Ok(None) if std::time::Instant::now() >= deadline => {
                kill_group(group);
                let _ = child.wait();
                break Ok(None);
            }
            Ok(None) => {
                watch();
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => {
                kill_group(group);
                let _ = child.wait();
                break Err(e);
            }
        }
    };
    let mut s = state();
    s.groups.retain(|&g| g != group);
    let interrupted = s.interrupted;
    drop(s);
    // The leader is reaped; its group's other members (SBY's solvers) go too.
    reap(group);
    watch();
    if interrupted {
        return Err(stopped());
    }
    Ok(status)
}

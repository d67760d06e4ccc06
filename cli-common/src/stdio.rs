//! Standard output and standard error written so that no write crashes a command: `println!`
//! panics when a write fails (a full disk, `> /dev/full`), and a panic is no message.
//!
//! - A failed write is a [`WriteError`], which the command returns like any other error and
//!   reports as its one line (exit 2); [`report`] prints that line on standard error, or on
//!   standard output when standard error cannot take it.
//! - A reader that went away (a closed pipe: `| head -1`) is not an error: Rust ignores
//!   SIGPIPE, so it arrives as EPIPE, and what the command writes after it to that stream is
//!   dropped; the command goes on and ends with the status of what it did.
//! - A stream closed when the process started (`>&-`) is an error to write to. Rust's runtime
//!   opens `/dev/null` in its place before `main`, which would swallow every line silently:
//!   [`note_closed_streams_before_main!`](crate::note_closed_streams_before_main) records which
//!   were closed before that happens.

use std::fmt;
use std::io::{self, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};

/// Standard output or standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

impl Stream {
    fn index(self) -> usize {
        match self {
            Stream::Out => 0,
            Stream::Err => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stream::Out => "standard output",
            Stream::Err => "standard error",
        }
    }

    /// The file descriptor of the stream.
    #[cfg(unix)]
    fn fd(self) -> i32 {
        match self {
            Stream::Out => 1,
            Stream::Err => 2,
        }
    }

    /// Closed when the process started ([`note_closed_at_start`]).
    fn closed(self) -> bool {
        CLOSED[self.index()].load(Ordering::Relaxed)
    }

    /// Its reader went away (EPIPE): later writes are dropped.
    pub fn gone(self) -> bool {
        GONE[self.index()].load(Ordering::Relaxed)
    }
}

static CLOSED: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];
static GONE: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// A write to standard output or standard error that failed.
#[derive(Debug)]
pub struct WriteError {
    pub stream: Stream,
    pub error: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.stream.closed() {
            write!(f, "cannot write to {}: it is closed", self.stream.name())
        } else {
            write!(f, "cannot write to {}: {}", self.stream.name(), self.error)
        }
    }
}

impl std::error::Error for WriteError {}

/// Writes `args` to `stream` and flushes it: `Ok` when written, or dropped because the reader
/// went away; the error otherwise.
pub fn write(stream: Stream, args: fmt::Arguments<'_>) -> Result<(), WriteError> {
    settle(stream, raw_write(stream, args, false))
}

/// [`write`] and a newline.
pub fn write_line(stream: Stream, args: fmt::Arguments<'_>) -> Result<(), WriteError> {
    settle(stream, raw_write(stream, args, true))
}

/// The outcome of a write made by other code (clap's help, a `BufWriter` over [`Writer`]): as
/// [`write`] judges its own.
pub fn settle(stream: Stream, r: io::Result<()>) -> Result<(), WriteError> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            GONE[stream.index()].store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(error) => Err(WriteError { stream, error }),
    }
}

/// Runs `print`, a write to `stream` made by other code (clap's help), and judges it as
/// [`write`] judges its own; nothing runs on a stream closed at start or whose reader went
/// away.
pub fn printed_by(
    stream: Stream,
    print: impl FnOnce() -> io::Result<()>,
) -> Result<(), WriteError> {
    if stream.gone() {
        return Ok(());
    }
    settle(stream, Writer(stream).check_open().and_then(|()| print()))
}

fn raw_write(stream: Stream, args: fmt::Arguments<'_>, newline: bool) -> io::Result<()> {
    if stream.gone() {
        return Ok(());
    }
    let mut w = Writer(stream);
    w.write_fmt(args)?;
    if newline {
        w.write_all(b"\n")?;
    }
    w.flush()
}

/// `stream` as an [`io::Write`] whose errors are the stream's own, and an error for a stream
/// closed at start (which the runtime turned into `/dev/null`). Unbuffered beyond what the
/// standard library's handles buffer: wrap it in a `BufWriter` for many small writes.
pub struct Writer(pub Stream);

impl Writer {
    fn check_open(&self) -> io::Result<()> {
        if self.0.closed() {
            #[cfg(unix)]
            return Err(io::Error::from_raw_os_error(libc::EBADF));
            #[cfg(not(unix))]
            return Err(io::Error::other("closed"));
        }
        Ok(())
    }
}

impl io::Write for Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check_open()?;
        match self.0 {
            Stream::Out => io::stdout().lock().write(buf),
            Stream::Err => io::stderr().lock().write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.check_open()?;
        match self.0 {
            Stream::Out => io::stdout().lock().write_all(buf),
            Stream::Err => io::stderr().lock().write_all(buf),
        }
    }

    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        self.check_open()?;
        match self.0 {
            Stream::Out => io::stdout().lock().write_fmt(args),
            Stream::Err => io::stderr().lock().write_fmt(args),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check_open()?;
        match self.0 {
            Stream::Out => io::stdout().lock().flush(),
            Stream::Err => io::stderr().lock().flush(),
        }
    }
}

/// Flushes standard output (what is left of a line written without its newline).
pub fn flush_out() -> Result<(), WriteError> {
    if Stream::Out.gone() {
        return Ok(());
    }
    settle(Stream::Out, Writer(Stream::Out).flush())
}

/// Prints an error's lines (`error: ` and the rest, as the caller words them) where they can
/// be read: on standard error, else on standard output; on neither when neither takes them,
/// with nothing else to do about it. Standard output is flushed first, so the lines follow
/// what was printed before them.
pub fn report(lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    let _ = Writer(Stream::Out).flush();
    for stream in [Stream::Err, Stream::Out] {
        if stream.gone() || stream.closed() {
            continue;
        }
        let mut w = Writer(stream);
        if w.write_all(text.as_bytes())
            .and_then(|()| w.flush())
            .is_ok()
        {
            return;
        }
    }
}

/// Records which of standard output and standard error are closed; run before `main`, by the
/// static [`note_closed_streams_before_main!`](crate::note_closed_streams_before_main) puts in
/// the program's `.init_array`, before Rust's runtime opens `/dev/null` on them.
pub extern "C" fn note_closed_at_start() {
    #[cfg(unix)]
    for s in [Stream::Out, Stream::Err] {
        // SAFETY: F_GETFD only asks whether the descriptor is open.
        if unsafe { libc::fcntl(s.fd(), libc::F_GETFD) } == -1 {
            CLOSED[s.index()].store(true, Ordering::Relaxed);
        }
    }
}

/// Ignores SIGXFSZ, so that a write past the file size limit (`ulimit -f`) fails with EFBIG
/// and is reported like any other failed write, instead of killing the process without a word
/// (and leaving its temporaries). The programs a command starts inherit it.
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: sets the disposition of a signal no code of the process handles.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Puts [`note_closed_at_start`] in the program's `.init_array` (ELF, Linux), which the C
/// runtime runs before `main`. In the binary's own crate, so the linker cannot drop it.
/// Elsewhere it does nothing: a closed stream then swallows what is written to it, as
/// Rust's runtime makes it `/dev/null`.
#[macro_export]
macro_rules! note_closed_streams_before_main {
    () => {
        #[cfg(target_os = "linux")]
        #[used]
        #[link_section = ".init_array"]
        static NOTE_CLOSED_STREAMS: extern "C" fn() = $crate::stdio::note_closed_at_start;
    };
}

/// `print!` that returns a [`WriteError`] instead of panicking ([`write`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdio::write($crate::stdio::Stream::Out, format_args!($($arg)*))
    };
}

/// `println!` that returns a [`WriteError`] instead of panicking ([`write_line`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::stdio::write($crate::stdio::Stream::Out, format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdio::write_line($crate::stdio::Stream::Out, format_args!($($arg)*))
    };
}

/// `eprintln!` that returns a [`WriteError`] instead of panicking ([`write_line`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stdio::write_line($crate::stdio::Stream::Err, format_args!($($arg)*))
    };
}

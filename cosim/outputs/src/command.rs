//! The commands the co-simulator prints for a person to run (the report's reproduce lines, the
//! HTML page's, `dut build`'s check, the waveform's `gtkwave` line) and writes into the JSON
//! results: built word by word and printed with each word quoted for a POSIX shell, so that a
//! path with a space or a quote in it runs as printed; `fma-cosim` itself named the way the
//! person invoked it, so that the line runs from where they ran it.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A command line as words: a program and its arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellCommand {
    words: Vec<String>,
}

impl ShellCommand {
    /// `program` (a name looked up on PATH, or a path) with no arguments yet.
    pub fn new(program: impl Into<String>) -> ShellCommand {
        ShellCommand {
            words: vec![program.into()],
        }
    }

    /// `fma-cosim`, as this process was invoked.
    pub fn cosim() -> ShellCommand {
        ShellCommand {
            words: vec![invoked().cosim.clone()],
        }
    }

    /// `fma-model eval`: the `fma-model` beside this binary, named as `fma-cosim` was, else
    /// through cargo (from the checkout).
    pub fn model_eval() -> ShellCommand {
        let words = match &invoked().model {
            Some(model) => vec![model.clone(), "eval".into()],
            None => [
                "cargo",
                "run",
                "-q",
                "--release",
                "-p",
                "fma-model",
                "--",
                "eval",
            ]
            .map(String::from)
            .to_vec(),
        };
        ShellCommand { words }
    }

    /// The command with `word` appended.
    pub fn arg(mut self, word: impl Into<String>) -> ShellCommand {
        self.words.push(word.into());
        self
    }

    /// The command with `words` appended.
    pub fn args<I, S>(mut self, words: I) -> ShellCommand
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.words.extend(words.into_iter().map(Into::into));
        self
    }

    /// The command with a path appended, as the person gave it.
    pub fn path(self, path: &Path) -> ShellCommand {
        self.arg(path.to_string_lossy())
    }

    /// The words, unquoted.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// The words joined by spaces, each quoted where a POSIX shell would split or expand it.
impl fmt::Display for ShellCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, w) in self.words.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            f.write_str(&quote(w))?;
        }
        Ok(())
    }
}

/// `word` as one word of a POSIX shell command (quoted only where it must be).
pub fn quote(word: &str) -> Cow<'_, str> {
    // A NUL byte cannot be passed as an argument at all: it is dropped, as the kernel would
    // end the argument there.
    match shlex::try_quote(word) {
        Ok(q) => q,
        Err(_) => Cow::Owned(
            shlex::try_quote(&word.replace('\0', ""))
                .map(Cow::into_owned)
                .unwrap_or_default(),
        ),
    }
}

/// A printed command line with a note after it: a shell comment, so that the whole line still
/// runs as printed.
pub fn with_note(command: impl fmt::Display, note: &str) -> String {
    format!("{command}   # {note}")
}

/// How this process names the two commands.
struct Invoked {
    cosim: String,
    /// `None`: no `fma-model` beside this binary.
    model: Option<String>,
}

/// Worked out once per process from argv[0], the executable, PATH and the current directory.
fn invoked() -> &'static Invoked {
    static INVOKED: OnceLock<Invoked> = OnceLock::new();
    INVOKED.get_or_init(|| {
        let argv0 = std::env::args_os().next();
        let exe = std::env::current_exe().ok();
        let path_var = std::env::var_os("PATH");
        let cwd = std::env::current_dir().ok();
        let given = argv0
            .as_deref()
            .filter(|a| a.as_encoded_bytes().contains(&b'/'))
            .map(Path::new);
        let Some(exe) = exe else {
            return Invoked {
                cosim: given.map_or("fma-cosim".into(), |g| g.to_string_lossy().into_owned()),
                model: None,
            };
        };
        let lookup = |file: &Path, given: Option<PathBuf>| {
            name_as_invoked(file, given.as_deref(), path_var.as_deref(), cwd.as_deref())
        };
        let model = exe
            .canonicalize()
            .unwrap_or_else(|_| exe.clone())
            .with_file_name("fma-model");
        Invoked {
            cosim: lookup(&exe, given.map(Path::to_path_buf)),
            model: model
                .is_file()
                .then(|| lookup(&model, given.map(|g| g.with_file_name("fma-model")))),
        }
    })
}

/// How a person names the program `file` in a command: its bare name when that finds `file` on
/// `path_var` (PATH), else the path they gave (`given`, argv[0]) when it leads to `file`, else
/// `file`'s own path; a path below `cwd` relative to it (`cargo run` passes an absolute one).
pub fn name_as_invoked(
    file: &Path,
    given: Option<&Path>,
    path_var: Option<&OsStr>,
    cwd: Option<&Path>,
) -> String {
    let same = |p: &Path| match (p.canonicalize(), file.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let (Some(name), Some(path_var)) = (file.file_name(), path_var) {
        if on_path(name, path_var).is_some_and(|found| same(&found)) {
            return name.to_string_lossy().into_owned();
        }
    }
    let path = match given {
        Some(g) if same(g) => g.to_path_buf(),
        _ => file.to_path_buf(),
    };
    let shown = match cwd {
        Some(c) if path.is_absolute() => path.strip_prefix(c).unwrap_or(&path),
        _ => &path,
    };
    shown.to_string_lossy().into_owned()
}

/// The first executable file called `name` in the directories of `path_var`, as the shell
/// finds it (an empty entry is the current directory).
fn on_path(name: &OsStr, path_var: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(name)
            } else {
                dir.join(name)
            }
        })
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of its own, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let d =
                std::env::temp_dir().join(format!("ptxfma-command-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            Scratch(d)
        }

        /// An executable file at `rel`.
        fn program(&self, rel: &str) -> PathBuf {
            let p = self.0.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            p
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn each_word_is_quoted_where_the_shell_would_split_or_expand_it() {
        let c = ShellCommand::new("bin dir/fma-cosim")
            .args(["replay", "--dut", "/tmp/dut fault", "--filter", "f32"])
            .arg("it's")
            .arg("")
            .arg("$HOME");
        assert_eq!(
            c.to_string(),
            "'bin dir/fma-cosim' replay --dut '/tmp/dut fault' --filter f32 \"it's\" '' '$HOME'"
        );
        // What a shell makes of the line is the words again.
        assert_eq!(shlex::split(&c.to_string()).unwrap(), c.words());
        assert_eq!(quote("a\0b"), "ab");
        assert_eq!(
            with_note(&c, "the model's result"),
            format!("{c}   # the model's result")
        );
    }

    #[test]
    fn a_program_is_named_by_its_bare_name_only_where_path_finds_that_file() {
        let s = Scratch::new("naming");
        let exe = s.program("build dir/fma-cosim");
        let other = s.program("elsewhere/fma-cosim");
        let bin = exe.parent().unwrap().as_os_str().to_owned();
        let elsewhere = other.parent().unwrap().as_os_str().to_owned();
        // On PATH, by any route: the bare name.
        assert_eq!(
            name_as_invoked(&exe, Some(&exe), Some(&bin), None),
            "fma-cosim"
        );
        // Another fma-cosim first on PATH: the path the person gave, relative below the
        // current directory.
        let given = exe.clone();
        assert_eq!(
            name_as_invoked(&exe, Some(&given), Some(&elsewhere), Some(&s.0)),
            "build dir/fma-cosim"
        );
        assert_eq!(
            name_as_invoked(&exe, Some(&given), None, Some(Path::new("/nowhere"))),
            exe.to_string_lossy()
        );
        // argv[0] that does not lead to the executable (a wrapper's name): its own path.
        assert_eq!(
            name_as_invoked(&exe, Some(&other), None, None),
            exe.to_string_lossy()
        );
    }
}

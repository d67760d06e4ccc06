//! The control word's width as the README, ARCHITECTURE.md, `docs/`, the Python stubs and the C
//! header state it is the model's `CTRL_BITS`. They write it in one of the forms of [`FORMS`]
//! ("the 27-bit control word", `in_ctrl_i[26:0]`, a ports-table row `` `in_ctrl_i` | 27 ``, ...);
//! every such number must give `CTRL_BITS`, and the files of [`REQUIRED`] must state it.

use std::path::{Path, PathBuf};

use ptxfma_model::ctrl::CTRL_BITS;

/// Each way a width is written, lower case: the text just before the number, the text just
/// after it, and what the number adds to give the width (`[26:0]` is 27 bits).
const FORMS: [(&str, &str, u32); 7] = [
    ("", "-bit control word", 0),
    ("in_ctrl_i[", ":0]", 1),
    ("[", ":0] in_ctrl_i", 1),
    ("`in_ctrl_i` | ", " |", 0),
    ("`ctrl_t`, ", " bits", 0),
    ("`ctrl`", "", 0),
    ("#define ptxfma_ctrl_bits ", "", 0),
];

/// Files that must state the width at least once.
const REQUIRED: [&str; 6] = [
    "README.md",
    "ARCHITECTURE.md",
    "docs/dut.md",
    "docs/microarchitecture.md",
    "python/ptxfma.pyi",
    "ffi/include/ptxfma.h",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files read: the required ones and every other page of `docs/` but the dated history of
/// measurements.
fn files() -> Vec<String> {
    let mut v: Vec<String> = REQUIRED.iter().map(|s| s.to_string()).collect();
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = format!("docs/{}", e.unwrap().file_name().to_string_lossy());
        if name.ends_with(".md") && name != "docs/measurements.md" && !v.contains(&name) {
            v.push(name);
        }
    }
    v
}

/// Every width stated in `text` in one of [`FORMS`]: (line number, the width it gives).
fn widths(text: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.to_lowercase();
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
                i += 1;
                continue;
            }
            let end = (i..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            for (before, after, add) in FORMS {
                if line[..i].ends_with(before) && line[end..].starts_with(after) {
                    let value: u32 = line[i..end].parse().unwrap_or(u32::MAX - add);
                    out.push((n + 1, value + add));
                }
            }
            i = end;
        }
    }
    out
}

#[test]
fn the_docs_give_the_control_word_width_as_ctrl_bits() {
    let mut wrong = Vec::new();
    let mut silent = Vec::new();
    for name in files() {
        let text = std::fs::read_to_string(root().join(&name)).unwrap();
        let found = widths(&text);
        if found.is_empty() && REQUIRED.contains(&name.as_str()) {
            silent.push(name.clone());
        }
        for (line, w) in found {
            if w != CTRL_BITS {
                wrong.push(format!("{name}:{line}: {w} bits"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the control word is {CTRL_BITS} bits (ctrl::CTRL_BITS), but {wrong:?}"
    );
    assert!(
        silent.is_empty(),
        "{silent:?} no longer state the control word's width in a form this test reads"
    );
}

/// The forms are read where they stand, and only there.
#[test]
fn each_form_is_read() {
    let text = "the 24-bit control word\n`in_ctrl_i[23:0]`, logic [23:0] in_ctrl_i\n\
                | `in_ctrl_i` | 24 | in |\n## Control word (`ctrl_t`, 24 bits)\n`ctrl`24, `tag`16\n\
                #define PTXFMA_CTRL_BITS 24\n24 bits, a 124-bit control word's [5:0]";
    let found = widths(text);
    assert_eq!(found.len(), FORMS.len() + 1, "{found:?}");
    assert!(
        found[..FORMS.len()].iter().all(|&(_, w)| w == 24),
        "{found:?}"
    );
    assert_eq!(found[FORMS.len()], (7, 124));
}

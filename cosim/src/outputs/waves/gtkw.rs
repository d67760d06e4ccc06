//! A [`View`] as a GTKWave save file (`.gtkw`): `gtkwave file.gtkw` opens the waveform zoomed
//! to the window, the primary marker on the first differing cycle, named marker A on the
//! operation's issue, and the view's signals in order, grouped.
//!
//! The format is GTKWave's own (what its File > Write Save File writes): `[key] value` lines,
//! a `*zoom marker A..Z` line, and the signal list, each run of signals preceded by `@flags`
//! (the hexadecimal trace flags of GTKWave's `analyzer.h`) and groups as `-name` lines
//! between begin and end flags.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::outputs::waves::view::{Format, Row, View};
use crate::temporary::Temporary;

/// GTKWave trace flags (`TR_*` in its `analyzer.h`).
const HEX: u32 = 0x2;
const DEC: u32 = 0x4;
const BIN: u32 = 0x8;
const RJUSTIFY: u32 = 0x20;
const BLANK: u32 = 0x200;
const ASCII: u32 = 0x800;
const COLLAPSED: u32 = 0x1000;
const CLOSED: u32 = 0x40_0000;
const GRP_BEGIN: u32 = 0x80_0000;
const GRP_END: u32 = 0x100_0000;

/// The window size written, and the part of its width the waves get (the signal list takes
/// the rest): the zoom fits the view's span into it.
const WIDTH: u32 = 1600;
const HEIGHT: u32 = 1000;
const SIGNALS_WIDTH: u32 = 620;
const WAVES_WIDTH: f64 = (WIDTH - SIGNALS_WIDTH - 60) as f64;

/// The save file text for `view`, its waveform named by `dump` (absolute, with `save` the save
/// file's own absolute path, so GTKWave finds the waveform even when both are moved together).
pub fn text(view: &View, dump: &Path, save: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "[*] fma-cosim: opens on the first differing cycle");
    let _ = writeln!(s, "[dumpfile] \"{}\"", dump.display());
    let _ = writeln!(s, "[savefile] \"{}\"", save.display());
    let _ = writeln!(s, "[timestart] {}", view.start);
    let _ = writeln!(s, "[size] {WIDTH} {HEIGHT}");
    let _ = writeln!(s, "[pos] -1 -1");
    // GTKWave draws 2^-zoom time units per frame of 200 pixels; the span is widened a little so
    // that it fits whatever the window manager leaves of the width.
    let span = 1.05 * (view.end.saturating_sub(view.start)).max(1) as f64;
    let zoom = (WAVES_WIDTH / (200.0 * span)).log2();
    let mut named = vec![-1i64; 26];
    if let Some(t) = view.issue {
        named[0] = t as i64;
    }
    let named: Vec<String> = named.iter().map(i64::to_string).collect();
    let _ = writeln!(s, "*{zoom:.6} {} {}", view.marker, named.join(" "));
    let _ = writeln!(s, "[sst_expanded] 0");
    let _ = writeln!(s, "[signals_width] {SIGNALS_WIDTH}");
    let mut flags = None;
    rows(&mut s, &view.rows, &mut flags);
    s
}

fn set_flags(s: &mut String, now: &mut Option<u32>, f: u32) {
    if *now != Some(f) {
        let _ = writeln!(s, "@{f:x}");
        *now = Some(f);
    }
}

fn rows(s: &mut String, rows_: &[Row], flags: &mut Option<u32>) {
    for r in rows_ {
        match r {
            Row::Signal {
                name,
                label,
                format,
            } => {
                let f = match format {
                    Format::Bin => BIN,
                    Format::Hex => HEX,
                    Format::Dec => DEC,
                    Format::Ascii => ASCII,
                };
                set_flags(s, flags, f | RJUSTIFY);
                match label {
                    Some(l) => writeln!(s, "+{{{l}}} {name}"),
                    None => writeln!(s, "{name}"),
                }
                .ok();
            }
            Row::Group {
                name,
                closed,
                rows: inner,
            } => {
                let c = if *closed { CLOSED } else { 0 };
                set_flags(s, flags, GRP_BEGIN | BLANK | c);
                let _ = writeln!(s, "-{name}");
                rows(s, inner, flags);
                let c = if *closed { CLOSED | COLLAPSED } else { 0 };
                set_flags(s, flags, GRP_END | BLANK | c);
                let _ = writeln!(s, "-{name}");
            }
        }
    }
}

/// Writes the save file of `view` to `path` (whole or not at all).
pub fn write(view: &View, path: &Path) -> std::io::Result<()> {
    let abs = |p: &Path| -> PathBuf { std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()) };
    let body = text(view, &abs(&view.dump), &abs(path));
    let tmp = Temporary::beside(path, "tmp");
    std::fs::write(tmp.path(), body)?;
    tmp.persist(path)
}

//! A [`View`] as a GTKWave save file (`.gtkw`): `gtkwave file.gtkw` opens the waveform at the
//! view's start, zoomed so that each cycle's box holds its values ([`CYCLE_PX`]) in a window as
//! wide as the view's cycles need, the primary marker on the first differing cycle, named
//! marker A on the operation's issue, and the view's signals in order, grouped.
//!
//! The format is GTKWave's own (what its File > Write Save File writes): `[key] value` lines,
//! a `*zoom marker A..Z` line, and the signal list, each run of signals preceded by `@flags`
//! (the hexadecimal trace flags of GTKWave's `analyzer.h`) and groups as `-name` lines
//! between begin and end flags.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::waves::names::PERIOD;
use crate::waves::view::{Format, Row, View};
use ptxfma_cosim_engine::temporary::Temporary;

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

/// Pixels per cycle: a cycle's box holds 18 characters of GTKWave's wave font (about 6 pixels
/// each), so a 64-bit port in hex and an instruction name such as `fma.rn.ftz.sat.f32` read
/// whole.
pub const CYCLE_PX: u64 = 135;
/// The signal list's width: its longest names and the value at the marker.
const SIGNALS_WIDTH: u64 = 540;
/// What the window takes beside the signal list and the waves (the collapsed tree, the
/// scroll bar, the borders).
const FRAME_WIDTH: u64 = 64;
/// The widest and the height of the window written: a screen of 1920 by 1080 holds it.
const MAX_WIDTH: u64 = 1900;
const HEIGHT: u64 = 1000;

/// GTKWave's zoom for `px` pixels per cycle: it draws 2^-zoom time units per frame of 200
/// pixels (`calczoom` in its `wavewindow.c`).
pub fn zoom(px: u64) -> f64 {
    (px as f64 / (200.0 * PERIOD as f64)).log2()
}

/// The window width that shows `view`'s span at [`CYCLE_PX`] (at most [`MAX_WIDTH`]; then the
/// end of the span is a scroll away).
pub fn width(view: &View) -> u64 {
    let span = view.end.saturating_sub(view.start);
    (SIGNALS_WIDTH + FRAME_WIDTH + (span * CYCLE_PX).div_ceil(PERIOD)).min(MAX_WIDTH)
}

/// The save file text for `view`, its waveform named by `dump` (absolute, with `save` the save
/// file's own absolute path, so GTKWave finds the waveform even when both are moved together).
pub fn text(view: &View, dump: &Path, save: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "[*] fma-cosim: opens on the first differing cycle");
    let _ = writeln!(s, "[dumpfile] \"{}\"", dump.display());
    let _ = writeln!(s, "[savefile] \"{}\"", save.display());
    let _ = writeln!(s, "[timestart] {}", view.start);
    let _ = writeln!(s, "[size] {} {HEIGHT}", width(view));
    let _ = writeln!(s, "[pos] -1 -1");
    let zoom = zoom(CYCLE_PX);
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

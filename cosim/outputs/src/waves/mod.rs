//! The waveform of a divergence: one VCD holding, over a window of cycles,
//! - the whole RTL hierarchy (scope `TOP`), traced by Verilator,
//! - the reference's register banks (scope `model`), written here with the `vcd` crate,
//! - `cosim.mismatch` (high after every edge where the frames differ), `cosim.cycle` (the
//!   stream's cycle number) and the instruction in flight at the inputs and in each stage by
//!   name (`cosim.in_instr`, `cosim.s1_instr`, ...: ASCII text in a bit vector, which GTKWave
//!   shows as text and FST stores like any vector),
//! - at `--compare ports`, the model's result for the tag the design retires, beside it in
//!   time (scope `model_by_tag`, [`by_tag`]), with that operation's issue ports as they were
//!   read in its issue cycle,
//! - and beside it a GTKWave save file that opens on the divergence ([`crate::waves::view`]).
//!
//! Time reads as cycles: the rising edge of stream cycle N is at N ns (the reset before the
//! first replayed cycle lies before it; what would fall before time 0 is folded into time 0).
//! A handshake design may take several design cycles for one stream cycle; time then counts
//! its design cycles, one per ns, and [`Timeline`] says where each stream cycle is.
//!
//! The window is replayed from reset: the pipe holds no state older than `LATENCY` cycles, so
//! any window of at least that many cycles before the divergence reproduces it exactly.
//! Verilator writes its part to a temporary file; the model's part is spliced into it (header
//! scopes before `$enddefinitions`, value changes merged by time) with fresh identifier codes,
//! which gives a single ordinary VCD that GTKWave and Surfer open.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

pub use names::Timeline;
use names::PERIOD;
use ptxfma_cosim_engine::frame::{self};
use ptxfma_cosim_engine::reference::Reference;
use ptxfma_cosim_engine::rtl::Rtl;
use ptxfma_cosim_engine::temporary::Temporary;
use ptxfma_cosim_engine::Error;

pub mod by_tag;
pub mod fst;
pub mod gtkw;
pub mod handshake;
mod model_part;
pub mod names;
mod splice;
pub mod view;

use model_part::model_part;
use splice::{retime, splice};

/// Verilator's trace time units per clock cycle ([`Rtl::time`]; its rising edge is at +5).
const RTL_PERIOD: u64 = 10;

/// What was written.
#[derive(Clone, Debug)]
pub struct Waves {
    pub path: PathBuf,
    /// The GTKWave save file beside it, which opens on the divergence (or, with none, on the
    /// last replayed input).
    pub save: Option<PathBuf>,
    /// Stream cycles whose frames differ in the replay: the marker is high after their edges.
    pub mismatches: Vec<u64>,
    /// Stream cycle of the first replayed input.
    pub first_cycle: u64,
    /// Where each replayed stream cycle is in the waveform.
    pub timeline: Timeline,
    /// It has the `model_by_tag` scope (`--compare ports`).
    pub by_tag: bool,
    /// The design under test, as the lines about the waveform name it
    /// ([`ptxfma_cosim_engine::dut::describe`]); a design without tag ports is told of
    /// without a tag.
    pub design: String,
    pub tagless: bool,
    /// (the run's, the replay's) cycle of the divergence, where the replay retires the
    /// diverging operation in another cycle than the run did.
    pub moved: Option<(u64, u64)>,
}

impl Waves {
    /// The replay's cycle of the run's cycle `c` (the same, but for a moved divergence).
    pub fn replayed(&self, c: u64) -> u64 {
        self.moved.filter(|m| m.0 == c).map_or(c, |m| m.1)
    }

    /// Trace time (ps) after which the replay's results of the run's stream cycle `c` are
    /// read: `c` ns, unless a handshake design took more design cycles than stream cycles.
    pub fn edge_time(&self, c: u64) -> u64 {
        self.timeline.edge(self.replayed(c))
    }
}

/// What a waveform replays: `inputs` (stream cycles `first_cycle..`) on a tracing build of
/// `variant` and on a fresh copy of `golden`.
#[derive(Clone, Copy)]
pub struct WindowSpec<'a> {
    pub variant: &'a str,
    pub golden: &'a dyn Reference,
    pub inputs: &'a [PipeIn],
    pub first_cycle: u64,
    /// `cosim.mismatch` high after the edges of these stream cycles instead of wherever the
    /// frames differ: for `--compare ports`, where the design's frames have no registers and
    /// its results may retire in other cycles than the model's.
    pub marks: Option<&'a [u64]>,
    /// The divergence the save file opens on; `None`: the last replayed input's cycle when
    /// the frames differ there, else the first differing cycle, else (no divergence) the last
    /// replayed input's cycle.
    pub focus: Option<u64>,
    /// The diverging operation's issue cycle, when the caller knows it: at the ports the
    /// frames cannot say (registers: the first differing bank's age gives it).
    pub issue: Option<u64>,
}

/// Replays `inputs` (stream cycles `first_cycle..`) plus `LATENCY` idle cycles from reset on
/// a tracing build of `variant` and on a fresh copy of `golden`, and writes the VCD to `path`
/// (FST when its extension is `.fst`).
pub fn write_window(
    path: &Path,
    variant: &str,
    golden: &dyn Reference,
    inputs: &[PipeIn],
    first_cycle: u64,
) -> Result<Waves, Error> {
    let spec = WindowSpec {
        variant,
        golden,
        inputs,
        first_cycle,
        marks: None,
        focus: None,
        issue: None,
    };
    write(path, &spec)
}

/// Replays the window `spec` plus `LATENCY` idle cycles from reset and writes the VCD to
/// `path` (FST when its extension is `.fst`).
pub fn write(path: &Path, spec: &WindowSpec<'_>) -> Result<Waves, Error> {
    let io = |e: std::io::Error| Error::new(format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| {
            Error::new(format!(
                "cannot create waves directory {}: {e}",
                dir.display()
            ))
        })?;
    }
    // Verilator's part and the merged file are written under temporary names and the result
    // renamed into place, so an interrupted run never leaves an empty or cut waveform.
    let rtl_part = Temporary::beside(path, "rtl.tmp");
    let merged = Temporary::beside(path, "tmp");
    // Fail early, with the real reason, if the destination cannot be written.
    let out = merged.create().map_err(io)?;
    let w = write_parts(path, &rtl_part, out, spec)?;
    merged.persist(path).map_err(io)?;
    Ok(w)
}

/// [`write`] once the temporaries are chosen: Verilator writes `rtl_part`, the merged
/// waveform goes to `out`.
fn write_parts(
    path: &Path,
    rtl_part: &Temporary,
    mut out: fs::File,
    spec: &WindowSpec<'_>,
) -> Result<Waves, Error> {
    let WindowSpec {
        variant,
        golden,
        inputs,
        first_cycle,
        ..
    } = *spec;
    let io = |e: std::io::Error| Error::new(format!("cannot write {}: {e}", path.display()));
    let mut all = inputs.to_vec();
    let end = first_cycle + inputs.len() as u64;
    all.extend((0..LATENCY as u64).map(|k| PipeIn {
        tag: (end + k) as u16,
        ..PipeIn::default()
    }));

    let mut rtl = Rtl::new(variant, true)?;
    rtl_part.open_with(|p| rtl.open_trace(p))?;
    let reset_time = rtl.time();
    // A stream cycle at a time, so that the trace time each one starts at is known: a
    // handshake design is clocked until it has taken the cycle's operation.
    let run = (|| {
        rtl.reset()?;
        let mut starts = Vec::with_capacity(all.len() + 1);
        let mut act = vec![0u32; all.len() * frame::WORDS];
        for (input, f) in all.iter().zip(act.chunks_exact_mut(frame::WORDS)) {
            starts.push(rtl.time());
            rtl.run(std::slice::from_ref(input), f)?;
        }
        starts.push(rtl.time());
        Ok::<_, Error>((starts, act))
    })();
    let closed = rtl.close_trace(path);
    let (starts, act) = run?;
    closed?;
    let t0 = starts[0];

    let mut g = golden.fresh()?;
    g.reset()?;
    let mut exp = vec![0u32; all.len() * frame::WORDS];
    g.run(&all, &mut exp)?;

    let rtl_text = fs::read_to_string(rtl_part.path()).map_err(io)?;
    let read_at = handshake::read_times(&rtl_text, &all, &act, &starts, RTL_PERIOD);
    let retirements = match spec.marks {
        Some(_) => by_tag::retirements(&all, &exp, &act),
        None => Vec::new(),
    };
    // The replay may hand the diverging operation's result over in another cycle than the run
    // did (a handshake design replayed from reset stalls on a pattern of its own): the marker
    // follows the operation.
    let moved = spec.focus.zip(spec.issue).and_then(|(focus, issue)| {
        let k = issue.checked_sub(first_cycle)? as usize;
        let at = retirements
            .iter()
            .position(|r| r.is_some_and(|r| r.issue == Some(k)))?;
        Some((focus, first_cycle + at as u64)).filter(|(from, to)| from != to)
    });
    let moved_marks: Vec<u64>;
    let spec = &match (moved, spec.marks) {
        (Some((from, to)), Some(marks)) => {
            moved_marks = marks
                .iter()
                .map(|&c| if c == from { to } else { c })
                .collect();
            WindowSpec {
                marks: Some(&moved_marks),
                focus: Some(to),
                ..*spec
            }
        }
        _ => *spec,
    };

    let mut mismatches = Vec::new();
    let model = model_part(
        &rtl_text,
        (&exp, &act, &all),
        (spec, &retirements),
        (reset_time, &starts, &read_at),
        &mut mismatches,
    )
    .map_err(io)?;
    // Trace time (Verilator's units) to the waveform's ps, as `retime` moves it.
    let scale = PERIOD / RTL_PERIOD;
    let ps =
        |t: u64| (first_cycle * PERIOD + t * scale).saturating_sub((t0 + RTL_PERIOD / 2) * scale);
    let timeline = Timeline {
        first_cycle,
        edges: starts
            .iter()
            .zip(&read_at)
            .map(|(&s, &r)| (ps(s + RTL_PERIOD / 2), ps(r)))
            .collect(),
    };
    let merged = splice(&rtl_text, &model)
        .and_then(|m| retime(&m, t0 + RTL_PERIOD / 2, first_cycle))
        .map_err(|e| Error::new(format!("{}: {e}", rtl_part.path().display())))?;
    if path.extension().is_some_and(|e| e == "fst") {
        crate::waves::fst::write(&merged, out)?;
    } else {
        out.write_all(merged.as_bytes()).map_err(io)?;
    }
    let mut w = Waves {
        path: path.to_path_buf(),
        save: None,
        mismatches,
        first_cycle,
        timeline,
        by_tag: spec.marks.is_some(),
        design: ptxfma_cosim_engine::dut::describe(spec.variant),
        tagless: ptxfma_cosim_engine::dut::tagless(spec.variant),
        moved,
    };
    // Without a divergence the view opens on the last replayed input.
    let last = (first_cycle + inputs.len() as u64).checked_sub(1);
    let focus = spec
        .focus
        .or(last.filter(|c| w.mismatches.contains(c)))
        .or(w.mismatches.first().copied())
        .or(last);
    if let Some(first) = focus {
        let header = &merged[..merged.find("$enddefinitions").unwrap_or(merged.len())];
        let view = crate::waves::view::choose(&crate::waves::view::Window {
            dump: path,
            signals: &crate::waves::view::signals(header),
            expected: &exp,
            actual: &act,
            inputs: &all,
            first_cycle,
            mismatch: first,
            ports: spec.marks.is_some(),
            issue: spec.issue,
            timeline: &w.timeline,
        });
        let save = path.with_extension("gtkw");
        crate::waves::gtkw::write(&view, &save)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", save.display())))?;
        w.save = Some(save);
    }
    Ok(w)
}
/// Waveform file name for a divergence: `<family>-seed<S>-cycle<C>.vcd` (or `.fst`).
pub fn file_name(family: &str, seed: u64, cycle: u64, fst: bool) -> String {
    format!(
        "{}-seed{seed}-cycle{cycle}.{}",
        family.replace(['.', '/', ','], "_"),
        if fst { "fst" } else { "vcd" }
    )
}

/// The report's waveform lines: the command that opens the waveform on the divergence, the
/// file, and where the divergence is in it.
pub fn print_waves(w: &Result<Waves, Error>, cycle: u64) -> Result<(), Error> {
    match w {
        Ok(w) => {
            let marked = w.mismatches.contains(&w.replayed(cycle));
            let open = crate::command::ShellCommand::new("gtkwave")
                .path(w.save.as_deref().unwrap_or(&w.path));
            let time = if w.timeline.is_linear() {
                "cycle N at N ns"
            } else {
                "a design cycle per ns, the stream's cycle in cosim.cycle"
            };
            let by_tag = match (w.by_tag, w.tagless) {
                (true, false) => {
                    ", the model's result for the tag the design retires under `model_by_tag`"
                }
                (true, true) => {
                    ", the model's result for each result the design retires (in issue order) \
                     under `model_by_tag`"
                }
                _ => "",
            };
            let moved = match w.moved.filter(|m| m.0 == cycle) {
                Some((_, to)) => format!(", which the replay retires in cycle {to}"),
                None => String::new(),
            };
            ptxfma_cli_common::outln!(
                "  waveform    {open}\n              {}: cycles {}..{} plus drain, {time}; model \
                 registers under `model`{by_tag}, {} under `TOP`; cosim.mismatch rises at {} ns \
                 (cycle {cycle}{moved}){}",
                w.path.display(),
                w.first_cycle,
                cycle,
                w.design,
                // A handshake design's result is read in the half cycle before the edge that
                // takes it.
                w.edge_time(cycle) as f64 / PERIOD as f64,
                if marked {
                    ""
                } else {
                    "\n              WARNING: the replayed window does not reproduce the \
                     divergence (state older than the window?)"
                }
            )?;
        }
        Err(e) => ptxfma_cli_common::outln!("  waveform    not written: {e}")?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::splice::in_whole_ns;
    use super::*;

    /// A window from cycle 0: Verilator's reset (times 10..20, first edge at 25) is folded into
    /// time 0 with each signal's last value, cycle N's edge lands at N ns, and a design's own
    /// time unit (`timescale 1ns/1ns) becomes 1ps like the rest.
    #[test]
    fn retime_puts_cycle_n_at_n_ns_and_folds_the_reset() {
        let vcd = "$timescale 1ns $end\n$scope module TOP $end\n$var wire 1 ! clk_i $end\n\
                   $var wire 2 \" v [1:0] $end\n$upscope $end\n$enddefinitions $end\n\
                   #10\n0!\nb00 \"\n#15\n1!\n#20\n0!\nb01 \"\n#25\n1!\n#30\n0!\nb10 \"\n";
        let out = retime(vcd, 25, 0).unwrap();
        assert!(out.starts_with("$timescale 1ps $end\n"), "{out}");
        let body: Vec<&str> = out
            .split("$enddefinitions $end\n")
            .nth(1)
            .unwrap()
            .lines()
            .collect();
        // Folded into 0 ps, cycle 0's edge: each signal once, at its last value (clk high, v
        // 01); the fall half a cycle later.
        assert_eq!(
            body,
            ["#0", "1!", "b01 \"", "#500", "0!", "b10 \"", "#1000"]
        );
        // A window from cycle 7: nothing folds, the edge at 25 is 7 ns; the first values are
        // from the whole ns before them, and the last ones held to the whole ns after them,
        // so that GTKWave's From and To read "5 ns" and "8 ns".
        let out = retime(vcd, 25, 7).unwrap();
        assert!(out.contains("\n#5000\n0!\nb00 \"\n#6000\n1!\n"), "{out}");
        assert!(
            out.ends_with("#7000\n1!\n#7500\n0!\nb10 \"\n#8000\n"),
            "{out}"
        );
        // A whole µs would read "1 us": a ns earlier (or later) instead.
        let out = retime(vcd, 25, 1002).unwrap();
        assert!(out.contains("\n#999000\n0!\n"), "{out}");
        assert_eq!(
            (in_whole_ns(999_500, true), in_whole_ns(1_000_500, false)),
            (1_001_000, 999_000)
        );
        assert!(retime("$enddefinitions $end\n", 25, 0).is_err());
    }
}

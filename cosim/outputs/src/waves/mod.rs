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

use bitvec::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};
use vcd::{IdCode, ReferenceIndex, ScopeType, Value, VarType};

pub use names::Timeline;
use names::{instr_name, stage_ctrl, INSTR_CHARS, INSTR_SIGNALS, PERIOD};
use ptxfma_cosim_engine::frame::{self, Bank, Limbs};
use ptxfma_cosim_engine::golden::Golden;
use ptxfma_cosim_engine::rtl::Rtl;
use ptxfma_cosim_engine::temporary::Temporary;
use ptxfma_cosim_engine::Error;

pub mod by_tag;
pub mod fst;
pub mod gtkw;
pub mod handshake;
pub mod names;
pub mod view;

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
    pub golden: &'a dyn Golden,
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
    golden: &dyn Golden,
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

/// Moves every time so that the rising edge of stream cycle `first_cycle` (at `first_edge` in
/// Verilator's units) is at `first_cycle` ns, in ps; what falls before time 0 (the reset of a
/// window that starts at cycle 0, 1 or 2) is folded into time 0, each signal at its last value.
/// The VCD then says `$timescale 1ps`, whatever unit Verilator wrote.
fn retime(text: &str, first_edge: u64, first_cycle: u64) -> Result<String, String> {
    let at = text
        .find("$enddefinitions")
        .ok_or("the VCD has no $enddefinitions")?;
    // Verilator writes the design's time precision (1ps unless a source says `timescale`);
    // the times are the shim's steps whatever it says, and become ps here.
    let head = &text[..at];
    let ts = head.find("$timescale").ok_or("the VCD has no $timescale")?;
    let ts_end = ts
        + head[ts..]
            .find("$end")
            .ok_or("the VCD's $timescale has no $end")?
        + "$end".len();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    out.push_str(&head[..ts]);
    out.push_str("$timescale 1ps $end");
    out.push_str(&head[ts_end..]);
    let shift = (first_cycle * PERIOD) as i128 - (first_edge * (PERIOD / RTL_PERIOD)) as i128;
    let scale = (PERIOD / RTL_PERIOD) as i128;
    // Changes folded into time 0: the last change of each identifier code, in order of first
    // appearance.
    let mut folded: Vec<&str> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    let mut folding = true;
    let mut seen_time = false;
    let flush = |out: &mut String, folded: &mut Vec<&str>| {
        if !folded.is_empty() {
            out.push_str("#0\n");
            for change in folded.drain(..) {
                out.push_str(change);
                out.push('\n');
            }
        }
    };
    let mut last: Option<i128> = None;
    for line in text[at..].lines() {
        if let Some(t) = line.strip_prefix('#') {
            let t: i128 = t.trim().parse().map_err(|_| format!("bad time `{line}`"))?;
            let t = t * scale + shift;
            seen_time = true;
            if t <= 0 {
                continue;
            }
            if folding {
                folding = false;
                if !folded.is_empty() {
                    last = Some(0);
                }
                flush(&mut out, &mut folded);
            }
            // The first values from the whole ns before them (nothing is earlier).
            let t = if last.is_none() {
                in_whole_ns(t, false)
            } else {
                t
            };
            last = Some(t);
            out.push_str(&format!("#{t}\n"));
            continue;
        }
        if folding && seen_time && !line.is_empty() && !line.starts_with('$') {
            let code = match line.split_once(' ') {
                Some((_, code)) => code,
                None => line.get(1..).unwrap_or(""),
            };
            match slot.get(code) {
                Some(&k) => folded[k] = line,
                None => {
                    slot.insert(code, folded.len());
                    folded.push(line);
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    flush(&mut out, &mut folded);
    // The last values held to a whole ns.
    if let Some(t) = last.filter(|&t| in_whole_ns(t, true) != t) {
        out.push_str(&format!("#{}\n", in_whole_ns(t, true)));
    }
    Ok(out)
}

/// `t` (ps) moved down (or `up`) to a whole ns that is not a whole µs: GTKWave shows a dump's
/// first and last times (its From and To) in the largest unit that divides them, so these two
/// then read in ns alike ("37 ns" to "74 ns", not "37500 ps" to "74 ns" or "1 us" to
/// "1032 ns").
fn in_whole_ns(t: i128, up: bool) -> i128 {
    const NS: i128 = 1000;
    let n = if up {
        (t + NS - 1).div_euclid(NS) * NS
    } else {
        t.div_euclid(NS) * NS
    };
    match (n > 0 && n % (1000 * NS) == 0, up) {
        (true, true) => n + NS,
        (true, false) => n - NS,
        _ => n,
    }
}

/// The model's part: header scopes, and value changes by time.
struct ModelPart {
    header: String,
    changes: BTreeMap<u64, String>,
}

/// `times`: the trace time of the reset, the trace time each replayed stream cycle starts at
/// (one more: where the last one ends), and the time each cycle's result is read at
/// ([`handshake::read_times`]).
fn model_part(
    rtl_text: &str,
    (exp, act, inputs): (&[u32], &[u32], &[PipeIn]),
    (spec, retirements): (&WindowSpec<'_>, &[Option<by_tag::Retired>]),
    (reset_time, starts, read_at): (u64, &[u64], &[u64]),
    mismatches: &mut Vec<u64>,
) -> std::io::Result<ModelPart> {
    let (first_cycle, marks) = (spec.first_cycle, spec.marks);
    let mut next = max_id(rtl_text).map_or(IdCode::FIRST, |m| m.next());
    let mut alloc = || {
        let id = next;
        next = next.next();
        id
    };
    let mut w = vcd::Writer::new(Vec::<u8>::new());

    // Header: model.{s1_q,s2_q,s3_q,out_q}.<fields> (nested scopes for lanes), the model's
    // output ports, and the cosim scope.
    w.scope_def(ScopeType::Module, "model")?;
    let mut ids: Vec<(Bank, Vec<IdCode>)> = Vec::new();
    for bank in Bank::ALL {
        let mut open: Vec<&str> = Vec::new();
        if bank != Bank::Ports {
            w.scope_def(ScopeType::Module, bank.rtl_name())?;
        }
        let mut bank_ids = Vec::new();
        for leaf in bank.leaves() {
            let mut parts: Vec<&str> = leaf.name.split('.').collect();
            let name = parts.pop().unwrap();
            while !parts.starts_with(&open) {
                w.upscope()?;
                open.pop();
            }
            for p in &parts[open.len()..] {
                w.scope_def(ScopeType::Module, p)?;
                open.push(p);
            }
            let id = alloc();
            let idx = (leaf.width() > 1).then(|| ReferenceIndex::Range(leaf.width() as i32 - 1, 0));
            w.var_def(VarType::Wire, leaf.width(), id, name, idx)?;
            bank_ids.push(id);
        }
        for _ in open {
            w.upscope()?;
        }
        if bank != Bank::Ports {
            w.upscope()?;
        }
        ids.push((bank, bank_ids));
    }
    w.upscope()?;
    w.scope_def(ScopeType::Module, "cosim")?;
    let mismatch = alloc();
    w.var_def(VarType::Wire, 1, mismatch, "mismatch", None)?;
    let cycle = alloc();
    w.var_def(
        VarType::Wire,
        64,
        cycle,
        "cycle",
        Some(ReferenceIndex::Range(63, 0)),
    )?;
    let instr_bits = INSTR_CHARS as u32 * 8;
    let mut instr = [IdCode::FIRST; INSTR_SIGNALS.len()];
    for (id, name) in instr.iter_mut().zip(INSTR_SIGNALS) {
        *id = alloc();
        let range = ReferenceIndex::Range(instr_bits as i32 - 1, 0);
        w.var_def(VarType::Wire, instr_bits, *id, name, Some(range))?;
    }
    w.upscope()?;
    // At the ports: the model's result for the tag the design retires.
    let by_tag = match marks {
        Some(_) => Some(ByTag::define(&mut w, &mut alloc)?),
        None => None,
    };
    let header = String::from_utf8(std::mem::take(w.writer())).unwrap();

    // Changes: reset values at the reset time, then each cycle's banks after its edge.
    let mut changes = BTreeMap::new();
    let zero = vec![0u32; frame::WORDS];
    let mut last: Option<&[u32]> = None;
    let emit = |w: &mut vcd::Writer<Vec<u8>>, f: &[u32], last: Option<&[u32]>| {
        for (bank, bank_ids) in &ids {
            for (leaf, &id) in bank.leaves().iter().zip(bank_ids) {
                let v = frame::field(&f[bank.range()], leaf);
                if last.is_some_and(|l| frame::field(&l[bank.range()], leaf) == v) {
                    continue;
                }
                put(w, id, &v, leaf.width())?;
            }
        }
        Ok::<_, std::io::Error>(())
    };
    emit(&mut w, &zero, None)?;
    w.change_scalar(mismatch, false)?;
    w.change_vector(cycle, [Value::X; 64])?;
    for &id in &instr {
        put_text(&mut w, id, "")?;
    }
    if let Some(b) = &by_tag {
        b.unknown(&mut w)?;
    }
    // The names last written, [in, s1, s2, s3, out].
    let mut names: [Option<u32>; INSTR_SIGNALS.len()] = [None; INSTR_SIGNALS.len()];
    changes.insert(
        reset_time,
        String::from_utf8(std::mem::take(w.writer())).unwrap(),
    );
    let text =
        |w: &mut vcd::Writer<Vec<u8>>| String::from_utf8(std::mem::take(w.writer())).unwrap();
    let mut at =
        |t: u64, text: String| changes.entry(t).or_insert_with(String::new).push_str(&text);
    // The times the marker rises at, and the model_by_tag values written at their times.
    let mut marked = BTreeSet::new();
    let mut shown = BTreeMap::new();
    for (i, (e, a)) in exp
        .chunks_exact(frame::WORDS)
        .zip(act.chunks_exact(frame::WORDS))
        .enumerate()
    {
        let c = first_cycle + i as u64;
        // The cycle starts with the clock low; the model's registers change at its last edge.
        let (low, edge) = (starts[i], starts[i + 1] - RTL_PERIOD / 2);
        put(&mut w, cycle, &[c, 0, 0], 64)?;
        let presented = inputs.get(i).filter(|p| p.valid).map(|p| p.ctrl);
        name_change(&mut w, instr[0], &mut names[0], presented)?;
        at(low, text(&mut w));
        emit(&mut w, e, Some(last.unwrap_or(&zero)))?;
        // After the edge: each stage's operation, and the one that moved from s3 to out.
        let retired = last.and_then(|l| stage_ctrl(l, Bank::S3));
        let now = [
            stage_ctrl(e, Bank::S1),
            stage_ctrl(e, Bank::S2),
            stage_ctrl(e, Bank::S3),
            retired.filter(|_| out_valid(e)),
        ];
        for (k, ctrl) in now.into_iter().enumerate() {
            name_change(&mut w, instr[k + 1], &mut names[k + 1], ctrl)?;
        }
        last = Some(e);
        at(edge, text(&mut w));
        let differs = marks.map_or(e != a, |m| m.contains(&c));
        if differs {
            mismatches.push(c);
            marked.insert(read_at[i]);
        }
        if by_tag.is_some() {
            // The design's retirement; at a divergence where nothing retired (an operation
            // past the bound), the operation that did not.
            let focus_op = || {
                let k = spec.issue?.checked_sub(first_cycle)? as usize;
                let tag = inputs.get(k)?.tag;
                (spec.focus == Some(c)).then(|| by_tag::Retired {
                    tag,
                    issue: Some(k),
                    expected: by_tag::model_result(inputs, exp, k),
                })
            };
            if let Some(r) = retirements.get(i).copied().flatten().or_else(focus_op) {
                shown.insert(read_at[i], r);
            }
        }
    }
    // The marker, and the model's result by tag, high for the design cycle they are read in.
    for &t in &marked {
        w.change_scalar(mismatch, true)?;
        at(t, text(&mut w));
        if !marked.contains(&(t + RTL_PERIOD)) {
            w.change_scalar(mismatch, false)?;
            at(t + RTL_PERIOD, text(&mut w));
        }
    }
    if let Some(b) = &by_tag {
        for (&t, r) in &shown {
            b.change(&mut w, Some(*r), inputs, first_cycle)?;
            at(t, text(&mut w));
            if !shown.contains_key(&(t + RTL_PERIOD)) {
                b.change(&mut w, None, inputs, first_cycle)?;
                at(t + RTL_PERIOD, text(&mut w));
            }
        }
    }
    Ok(ModelPart { header, changes })
}

/// The identifier codes of the `model_by_tag` scope.
struct ByTag {
    tag: IdCode,
    valid: IdCode,
    d: IdCode,
    issue: IdCode,
    instr: IdCode,
    /// [`names::BY_TAG_PORTS`]: ctrl, a, b, c.
    ports: [IdCode; 4],
}

/// Widths of [`names::BY_TAG_PORTS`].
const BY_TAG_WIDTHS: [u32; 4] = [ptxfma_model::ctrl::CTRL_BITS, 64, 64, 64];

impl ByTag {
    fn define(
        w: &mut vcd::Writer<Vec<u8>>,
        alloc: &mut impl FnMut() -> IdCode,
    ) -> std::io::Result<ByTag> {
        w.scope_def(ScopeType::Module, names::BY_TAG)?;
        let mut var = |name: &str, width: u32| {
            let id = alloc();
            let range = (width > 1).then(|| ReferenceIndex::Range(width as i32 - 1, 0));
            w.var_def(VarType::Wire, width, id, name, range)
                .map(|()| id)
        };
        let tag = var(names::BY_TAG_TAG, 16)?;
        let valid = var(names::BY_TAG_VALID, 1)?;
        let d = var(names::BY_TAG_D, 64)?;
        let issue = var(names::BY_TAG_ISSUE, 64)?;
        let instr = var(names::BY_TAG_INSTR, INSTR_CHARS as u32 * 8)?;
        let mut ports = [IdCode::FIRST; 4];
        for ((id, name), width) in ports.iter_mut().zip(names::BY_TAG_PORTS).zip(BY_TAG_WIDTHS) {
            *id = var(name, width)?;
        }
        w.upscope()?;
        Ok(ByTag {
            tag,
            valid,
            d,
            issue,
            instr,
            ports,
        })
    }

    /// Nothing retired yet: every value unknown.
    fn unknown(&self, w: &mut vcd::Writer<Vec<u8>>) -> std::io::Result<()> {
        w.change_scalar(self.valid, false)?;
        put_text(w, self.instr, "")?;
        for (id, width) in [(self.tag, 16), (self.d, 64), (self.issue, 64)]
            .into_iter()
            .chain(self.ports.into_iter().zip(BY_TAG_WIDTHS))
        {
            w.change_vector(id, (0..width).map(|_| Value::X))?;
        }
        Ok(())
    }

    /// After a cycle's edge: what the design retired and what the model says of its tag
    /// (`expected_valid` low where it retired nothing; the other values then stay).
    fn change(
        &self,
        w: &mut vcd::Writer<Vec<u8>>,
        shown: Option<by_tag::Retired>,
        inputs: &[PipeIn],
        first_cycle: u64,
    ) -> std::io::Result<()> {
        let valid = shown.is_some_and(|r| r.expected.is_some());
        w.change_scalar(self.valid, valid)?;
        let Some(r) = shown else { return Ok(()) };
        put(w, self.tag, &[r.tag as u64, 0, 0], 16)?;
        let known = |id: IdCode, v: Option<u64>, width: u32, w: &mut vcd::Writer<Vec<u8>>| match v {
            Some(v) => put(w, id, &[v, 0, 0], width),
            None => w.change_vector(id, (0..width).map(|_| Value::X)),
        };
        known(self.d, r.expected, 64, w)?;
        let op = r.issue.and_then(|k| inputs.get(k));
        known(self.issue, r.issue.map(|k| first_cycle + k as u64), 64, w)?;
        put_text(
            w,
            self.instr,
            &op.map(|p| instr_name(p.ctrl)).unwrap_or_default(),
        )?;
        let values = op.map(|p| [p.ctrl as u64, p.a, p.b, p.c]);
        for (k, (&id, width)) in self.ports.iter().zip(BY_TAG_WIDTHS).enumerate() {
            known(id, values.map(|v| v[k]), width, w)?;
        }
        Ok(())
    }
}

/// Whether `out_q` holds a result.
fn out_valid(frame: &[u32]) -> bool {
    let words = &frame[Bank::Out.range()];
    Bank::Out
        .leaves()
        .iter()
        .find(|l| l.name == "valid")
        .is_some_and(|l| frame::field(words, l)[0] & 1 != 0)
}

/// Writes the name of `ctrl` (blank for `None`) to a name signal when it changed.
fn name_change(
    w: &mut vcd::Writer<Vec<u8>>,
    id: IdCode,
    last: &mut Option<u32>,
    ctrl: Option<u32>,
) -> std::io::Result<()> {
    if *last != ctrl {
        *last = ctrl;
        put_text(w, id, &ctrl.map(instr_name).unwrap_or_default())?;
    }
    Ok(())
}

/// `text` as an [`INSTR_CHARS`]-character ASCII vector ([`names::instr_bytes`]).
fn put_text(w: &mut vcd::Writer<Vec<u8>>, id: IdCode, text: &str) -> std::io::Result<()> {
    let bytes = names::instr_bytes(text);
    w.change_vector(
        id,
        bytes.flat_map(|b| (0..8).rev().map(move |k| Value::from((b >> k) & 1 != 0))),
    )
}

fn put(w: &mut vcd::Writer<Vec<u8>>, id: IdCode, v: &Limbs, width: u32) -> std::io::Result<()> {
    if width == 1 {
        return w.change_scalar(id, v[0] & 1 != 0);
    }
    // VCD vectors are written most significant bit first.
    w.change_vector(
        id,
        v.view_bits::<Lsb0>()[..width as usize]
            .iter()
            .rev()
            .map(|b| Value::from(*b)),
    )
}

/// The largest identifier code Verilator used.
fn max_id(text: &str) -> Option<IdCode> {
    text.lines()
        .take_while(|l| !l.contains("$enddefinitions"))
        .filter_map(|l| {
            let mut t = l.split_whitespace();
            (t.next() == Some("$var")).then_some(())?;
            IdCode::from_str(t.nth(2)?).ok()
        })
        .max()
}

/// Inserts the model's scopes before `$enddefinitions` and merges its changes into the
/// time-ordered body (at equal times, after Verilator's).
fn splice(rtl_text: &str, model: &ModelPart) -> Result<String, String> {
    let at = rtl_text
        .find("$enddefinitions")
        .ok_or("Verilator's VCD has no $enddefinitions")?;
    let mut out = String::with_capacity(rtl_text.len() * 2);
    out.push_str(&rtl_text[..at]);
    out.push_str(&model.header);
    let body_at = at
        + rtl_text[at..]
            .find('\n')
            .map_or(rtl_text.len() - at, |n| n + 1);
    out.push_str(&rtl_text[at..body_at]);

    let mut pending = model.changes.iter().peekable();
    let mut cur: Option<u64> = None;
    let mut flush_before = |out: &mut String, limit: Option<u64>, cur: &mut Option<u64>| {
        while let Some((&t, text)) = pending.peek() {
            if limit.is_some_and(|l| t >= l) {
                break;
            }
            if *cur != Some(t) {
                out.push_str(&format!("#{t}\n"));
                *cur = Some(t);
            }
            out.push_str(text);
            pending.next();
        }
    };
    for line in rtl_text[body_at..].lines() {
        if let Some(t) = line.strip_prefix('#') {
            let t: u64 = t.trim().parse().map_err(|_| format!("bad time `{line}`"))?;
            flush_before(&mut out, Some(t), &mut cur);
            cur = Some(t);
        }
        out.push_str(line);
        out.push('\n');
    }
    flush_before(&mut out, None, &mut cur);
    Ok(out)
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
            let by_tag = if w.by_tag {
                ", the model's result for the tag the design retires under `model_by_tag`"
            } else {
                ""
            };
            let moved = match w.moved.filter(|m| m.0 == cycle) {
                Some((_, to)) => format!(", which the replay retires in cycle {to}"),
                None => String::new(),
            };
            ptxfma_cli_common::outln!(
                "  waveform    {open}\n              {}: cycles {}..{} plus drain, {time}; model \
                 registers under `model`{by_tag}, RTL under `TOP`; cosim.mismatch rises at {} ns \
                 (cycle {cycle}{moved}){}",
                w.path.display(),
                w.first_cycle,
                cycle,
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

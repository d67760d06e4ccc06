//! What a waveform viewer shows of a divergence, chosen once here: the window (its last cycles
//! up to a few past the divergence), a marker on the
//! first differing cycle (and one on the diverging operation's issue), and the signals in order:
//! clock, reset, `cosim.mismatch`; the operation's issue ports; the instruction in flight by
//! name at each stage; each differing field as a pair, model above RTL, in a group named after
//! it; then the stage registers on the operation's path. At `--compare ports` (a design of its
//! own latency, no registers to compare) the pairs are by tag instead: the issue ports of the
//! operation the design retires as read in its issue cycle, the design's result above the
//! model's for the same tag (`model_by_tag`), the design's ports, handshake included, then
//! closed: the model by cycle and the design's own top-level signals.
//! [`crate::waves::gtkw`] writes it for GTKWave; another viewer's save file would be
//! a writer of the same [`View`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::machine::pipeline::{lanes, PipeIn};

use super::names::{self, stage_ctrl, Timeline, BY_TAG, INSTR_SIGNALS, PERIOD};
use ptxfma_cosim_engine::frame::{self, Bank};

/// Cycles shown before the first differing one, and after it: with it, nine cycles, each
/// wide enough for its values (the rest of the window is a scroll away).
pub const SHOWN_BEFORE: u64 = 6;
pub const SHOWN_AFTER: u64 = 2;
/// The most cycles shown: the issue of a design's operation is shown with its retirement when
/// both fit in it, else it is a scroll away (named marker A).
pub const SHOWN_MOST: u64 = 12;

/// How a trace's value is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Bin,
    Hex,
    Dec,
    /// Bytes as characters: the instruction name signals.
    Ascii,
}

/// One line of the signal list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    /// A signal by its full name as the viewer lists it (`TOP.ptxfma_top.out_q.d[63:0]`),
    /// shown under `label` when there is one.
    Signal {
        name: String,
        label: Option<String>,
        format: Format,
    },
    Group {
        name: String,
        closed: bool,
        rows: Vec<Row>,
    },
}

/// A viewer's opening state for one waveform.
#[derive(Clone, Debug)]
pub struct View {
    pub dump: PathBuf,
    /// The time span shown (ps).
    pub start: u64,
    pub end: u64,
    /// The first differing cycle's rising edge (ps).
    pub marker: u64,
    /// The diverging operation's issue cycle's rising edge (ps), when known.
    pub issue: Option<u64>,
    pub rows: Vec<Row>,
}

impl View {
    /// Every signal the view names, in order.
    pub fn signal_names(&self) -> Vec<&str> {
        fn walk<'a>(rows: &'a [Row], out: &mut Vec<&'a str>) {
            for r in rows {
                match r {
                    Row::Signal { name, .. } => out.push(name),
                    Row::Group { rows, .. } => walk(rows, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.rows, &mut out);
        out
    }
}

/// What the view is chosen from: the written waveform's signals, the replayed frames and
/// inputs (from `first_cycle`), and the first differing cycle.
pub struct Window<'a> {
    pub dump: &'a Path,
    pub signals: &'a Signals,
    pub expected: &'a [u32],
    pub actual: &'a [u32],
    pub inputs: &'a [PipeIn],
    pub first_cycle: u64,
    pub mismatch: u64,
    /// Compared by the ports alone (`--compare ports`): the design has no stage registers,
    /// and its results retire at its own latency.
    pub ports: bool,
    /// The diverging operation's issue cycle when the caller knows it.
    pub issue: Option<u64>,
    /// Where each stream cycle is in the waveform.
    pub timeline: &'a Timeline,
}

/// The ports of the contract (docs/dut.md), handshake included, in the order shown.
const CONTRACT_PORTS: [&str; 13] = [
    "clk_i",
    "rst_ni",
    "in_valid_i",
    "in_ready_o",
    "in_tag_i",
    "in_ctrl_i",
    "in_a_i",
    "in_b_i",
    "in_c_i",
    "out_valid_o",
    "out_ready_i",
    "out_tag_o",
    "out_d_o",
];

/// A waveform's variables: full dotted name (no range) to the name a viewer lists (with the
/// `[msb:lsb]` of a vector).
pub type Signals = BTreeMap<String, String>;

/// The variables of a VCD header (the text before `$enddefinitions`).
pub fn signals(header: &str) -> Signals {
    let mut out = Signals::new();
    let mut scopes: Vec<&str> = Vec::new();
    let mut toks = header.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            "$scope" => {
                let _kind = toks.next();
                scopes.extend(toks.next());
            }
            "$upscope" => {
                scopes.pop();
            }
            "$var" => {
                let (_kind, _width, _code) = (toks.next(), toks.next(), toks.next());
                let Some(name) = toks.next() else { break };
                let mut range = String::new();
                for rest in toks.by_ref() {
                    if rest == "$end" {
                        break;
                    }
                    range.push_str(rest);
                }
                let full = if scopes.is_empty() {
                    name.to_string()
                } else {
                    format!("{}.{name}", scopes.join("."))
                };
                out.insert(full.clone(), format!("{full}{range}"));
            }
            _ => {}
        }
    }
    out
}

/// The RTL's copy of a model signal `model.<rest>`: the shortest `TOP.…<rest>`.
fn rtl_twin<'a>(signals: &'a Signals, rest: &str) -> Option<&'a String> {
    let suffix = format!(".{rest}");
    signals
        .iter()
        .filter(|(k, _)| k.starts_with("TOP.") && k.ends_with(&suffix))
        .min_by_key(|(k, _)| k.len())
        .map(|(_, v)| v)
}

/// The model's path of a bank leaf below `model`.
fn model_rest(bank: Bank, leaf: &str) -> String {
    match bank {
        Bank::Ports => leaf.to_string(),
        _ => format!("{}.{leaf}", bank.rtl_name()),
    }
}

/// Whether a stage bank's leaf is on the path of an operation of `ctrl` (its lanes, or the
/// vmad side path).
fn on_path(leaf: &str, ctrl: Option<&Ctrl>) -> bool {
    let Some(c) = ctrl else { return true };
    let en = lanes(c);
    match leaf.split('.').next() {
        Some("lane0") => en.lane0,
        Some("lane1") => en.lane1,
        Some("vm") => c.kind == Kind::Vmad,
        _ => true,
    }
}

/// The view of a divergence.
pub fn choose(w: &Window<'_>) -> View {
    let frame_of = |f: &[u32], c: u64| -> Vec<u32> {
        c.checked_sub(w.first_cycle)
            .and_then(|i| f.get(i as usize * frame::WORDS..(i as usize + 1) * frame::WORDS))
            .map_or_else(|| vec![0; frame::WORDS], <[u32]>::to_vec)
    };
    let (e, a) = (
        frame_of(w.expected, w.mismatch),
        frame_of(w.actual, w.mismatch),
    );

    // The diverging operation: in the earliest differing stage bank (its age gives the issue
    // cycle), else the one that reached out_q (from s3 a cycle earlier).
    let banks = frame::differing_banks(&e, &a);
    let stage = banks
        .iter()
        .copied()
        .find(|b| matches!(b, Bank::S1 | Bank::S2 | Bank::S3))
        .or(banks.first().copied())
        .unwrap_or(Bank::Ports);
    let presented = |c: u64| {
        let i = c.checked_sub(w.first_cycle)? as usize;
        w.inputs.get(i).filter(|p| p.valid).map(|p| p.ctrl)
    };
    let (ctrl, issue) = if w.ports || w.issue.is_some() {
        (w.issue.and_then(presented), w.issue)
    } else {
        let ctrl = match stage {
            Bank::S1 | Bank::S2 | Bank::S3 => stage_ctrl(&e, stage),
            _ => w
                .mismatch
                .checked_sub(1)
                .and_then(|c| stage_ctrl(&frame_of(w.expected, c), Bank::S3)),
        };
        (ctrl, w.mismatch.checked_sub(stage.age()))
    };
    let op = ctrl.map(Ctrl::decode);

    let mut rows: Vec<Row> = ["TOP.clk_i", "TOP.rst_ni", "cosim.mismatch"]
        .iter()
        .filter_map(|s| sig(w.signals, s, Format::Bin))
        .collect();
    rows.extend(sig(w.signals, "cosim.cycle", Format::Dec));
    if w.ports {
        rows.extend(ports_rows(w, issue));
    } else {
        rows.extend(register_rows(w, (&e, &a), &banks, issue));
    }

    // The stage registers on the operation's path, closed; the model's tags not for a design
    // without tag ports (ports_rows).
    let tagless = w.ports && !w.signals.contains_key("TOP.in_tag_i");
    for bank in [Bank::S1, Bank::S2, Bank::S3, Bank::Out] {
        let regs: Vec<Row> = bank
            .leaves()
            .iter()
            .filter(|l| on_path(&l.name, op.as_ref()))
            .filter(|l| !(tagless && l.name == "tag"))
            .flat_map(|l| pair(w.signals, &model_rest(bank, &l.name), &l.name))
            .collect();
        let when = issue.map_or(String::new(), |c| {
            format!(" (the operation's in cycle {})", c + bank.age())
        });
        rows.push(Row::Group {
            name: format!("{}{when}", bank.rtl_name()),
            closed: true,
            rows: regs,
        });
    }

    // The replayed window, cut to the cycles before and after the divergence that show its
    // operation's way through the pipe at a size where the names can be read; the issue and
    // the cycle before it too, when it is further back (a design checked by its ports) and the
    // whole fits in SHOWN_MOST cycles.
    let back = match issue.map(|c| w.mismatch.saturating_sub(c) + 1) {
        Some(b) if b + 1 + SHOWN_AFTER <= SHOWN_MOST => b.max(SHOWN_BEFORE),
        _ => SHOWN_BEFORE,
    };
    let first = w.first_cycle.max(w.mismatch.saturating_sub(back));
    // GTKWave honours the start only when the span shown ends within the waveform, whose last
    // change is at the last replayed cycle's edge: a cycle short of it, for the writer's margin.
    // A window cut short at its start shows more after the divergence instead.
    let last = (w.first_cycle + w.inputs.len() as u64).saturating_sub(2);
    let shown = SHOWN_BEFORE + 1 + SHOWN_AFTER;
    let end = last
        .min((w.mismatch + SHOWN_AFTER).max(first + shown - 1))
        .max(first + 1);
    let t = w.timeline;
    View {
        dump: w.dump.to_path_buf(),
        start: t.start(first).saturating_sub(PERIOD / 2),
        end: t.edge(end),
        marker: t.edge(w.mismatch),
        issue: issue.filter(|&c| c != w.mismatch).map(|c| t.start(c)),
        rows,
    }
}

/// A signal of the waveform by its full name, unlabelled.
fn sig(signals: &Signals, full: &str, format: Format) -> Option<Row> {
    signals.get(full).map(|name| Row::Signal {
        name: name.clone(),
        label: None,
        format,
    })
}

/// A signal of the waveform by its full name, shown as `label` (GTKWave shows an alias only
/// after its last dot: no dots).
fn labelled(signals: &Signals, full: &str, label: &str, format: Format) -> Option<Row> {
    signals.get(full).map(|name| Row::Signal {
        name: name.clone(),
        label: Some(label.to_string()),
        format,
    })
}

/// A model field and the RTL's copy of it, labelled by side.
fn pair(signals: &Signals, rest: &str, leaf: &str) -> Vec<Row> {
    let leaf = leaf.replace('.', " ");
    let mut rows: Vec<Row> = labelled(
        signals,
        &format!("model.{rest}"),
        &format!("model {leaf}"),
        Format::Hex,
    )
    .into_iter()
    .collect();
    if let Some(name) = rtl_twin(signals, rest) {
        rows.push(Row::Signal {
            name: name.clone(),
            label: Some(format!("RTL {leaf}")),
            format: Format::Hex,
        });
    }
    rows
}

/// The instruction in flight by name after each of the model's stages.
fn in_flight(w: &Window<'_>) -> Vec<Row> {
    INSTR_SIGNALS[1..]
        .iter()
        .zip(["s1_q", "s2_q", "s3_q", "out_q"])
        .filter_map(|(s, bank)| {
            // At the ports only the model has stages.
            let side = if w.ports { "model " } else { "" };
            labelled(
                w.signals,
                &format!("cosim.{s}"),
                &format!("{side}{bank} holds"),
                Format::Ascii,
            )
        })
        .collect()
}

/// The view of a register divergence after the clock: the issue ports, the instructions in
/// flight, each differing field model above RTL (the output ports where none differs).
fn register_rows(
    w: &Window<'_>,
    (e, a): (&[u32], &[u32]),
    banks: &[Bank],
    issue: Option<u64>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut ports: Vec<Row> = labelled(
        w.signals,
        "cosim.in_instr",
        "instruction at the inputs",
        Format::Ascii,
    )
    .into_iter()
    .collect();
    ports.extend(sig(w.signals, "TOP.in_valid_i", Format::Bin));
    for p in ["in_tag_i", "in_ctrl_i", "in_a_i", "in_b_i", "in_c_i"] {
        ports.extend(sig(w.signals, &format!("TOP.{p}"), Format::Hex));
    }
    rows.push(Row::Group {
        name: match issue {
            Some(c) => format!("issue ports (operation issued in cycle {c})"),
            None => "issue ports".to_string(),
        },
        closed: false,
        rows: ports,
    });
    rows.push(Row::Group {
        name: "in flight".to_string(),
        closed: false,
        rows: in_flight(w),
    });

    // Each differing field, model above RTL; where nothing differs, the output ports.
    let mut diffs: Vec<(Bank, String)> = banks
        .iter()
        .flat_map(|&b| {
            frame::differing_fields(b, e, a)
                .into_iter()
                .map(move |d| (b, d.name))
        })
        .collect();
    if diffs.is_empty() {
        diffs = Bank::Ports
            .leaves()
            .iter()
            .map(|l| (Bank::Ports, l.name.clone()))
            .collect();
    }
    for (bank, leaf) in &diffs {
        let rest = model_rest(*bank, leaf);
        rows.push(Row::Group {
            rows: pair(w.signals, &rest, leaf),
            name: rest,
            closed: false,
        });
    }
    rows
}

/// The view of a ports divergence after the clock. The design retires at its own latency and
/// in its own order, so nothing is paired by cycle: the operation it retires (its issue ports
/// as read in its issue cycle, which the ports at the marker no longer hold), its result above
/// the model's for the same tag, its ports live; then closed, the model by cycle (at the
/// model's latency) and the design's own top-level signals.
fn ports_rows(w: &Window<'_>, issue: Option<u64>) -> Vec<Row> {
    let by = |leaf: &str| format!("{BY_TAG}.{leaf}");
    let s = w.signals;
    // A design without tag ports (`contract.tag_width = 0`) is shown no tag: the co-simulator's
    // own, which `model_by_tag` keeps, is nothing the design ever saw.
    let tagged = s.contains_key("TOP.in_tag_i");
    let mut rows = Vec::new();

    let mut issued: Vec<Row> = Vec::new();
    issued.extend(labelled(
        s,
        &by(names::BY_TAG_INSTR),
        "instruction",
        Format::Ascii,
    ));
    issued.extend(labelled(
        s,
        &by(names::BY_TAG_ISSUE),
        "issue cycle",
        Format::Dec,
    ));
    if tagged {
        issued.extend(labelled(s, &by(names::BY_TAG_TAG), "in_tag_i", Format::Hex));
    }
    for p in names::BY_TAG_PORTS {
        issued.extend(labelled(s, &by(p), p, Format::Hex));
    }
    rows.push(Row::Group {
        name: match issue {
            Some(c) => format!("issued in cycle {c}: ports as read then"),
            None => "retired: its issue ports as read then".to_string(),
        },
        closed: false,
        rows: issued,
    });

    let mut result: Vec<Row> = Vec::new();
    let mut design = |port: &str, format: Format| {
        result.extend(labelled(
            s,
            &format!("TOP.{port}"),
            &format!("design {port}"),
            format,
        ));
    };
    design("out_valid_o", Format::Bin);
    design("out_tag_o", Format::Hex);
    if tagged {
        result.extend(labelled(
            s,
            &by(names::BY_TAG_TAG),
            "model tag",
            Format::Hex,
        ));
    }
    result.extend(labelled(
        s,
        &by(names::BY_TAG_VALID),
        "model expected_valid",
        Format::Bin,
    ));
    result.extend(labelled(s, "TOP.out_d_o", "design out_d_o", Format::Hex));
    result.extend(labelled(
        s,
        &by(names::BY_TAG_D),
        "model expected_d",
        Format::Hex,
    ));
    rows.push(Row::Group {
        name: if tagged {
            "result by tag: design, then model".to_string()
        } else {
            "result in issue order: design, then model".to_string()
        },
        closed: false,
        rows: result,
    });

    let mut ports: Vec<Row> = labelled(
        s,
        "cosim.in_instr",
        "instruction at the inputs",
        Format::Ascii,
    )
    .into_iter()
    .collect();
    let handshake = s.contains_key("TOP.in_ready_o");
    for p in &CONTRACT_PORTS[2..] {
        let one_bit = p.contains("valid") || p.contains("ready");
        ports.extend(sig(
            s,
            &format!("TOP.{p}"),
            if one_bit { Format::Bin } else { Format::Hex },
        ));
    }
    rows.push(Row::Group {
        name: if handshake {
            "design ports (contract, handshake)".to_string()
        } else {
            "design ports (contract)".to_string()
        },
        closed: false,
        rows: ports,
    });

    let mut model = in_flight(w);
    for l in Bank::Ports
        .leaves()
        .iter()
        .filter(|l| tagged || l.name != "out_tag_o")
    {
        model.extend(labelled(
            s,
            &format!("model.{}", l.name),
            &format!("model {}", l.name),
            Format::Hex,
        ));
    }
    rows.push(Row::Group {
        name: format!("model by cycle (latency {})", Bank::Ports.age()),
        closed: true,
        rows: model,
    });

    for (scope, signals) in design_scopes(s) {
        rows.push(Row::Group {
            name: format!("design {scope}: top-level signals"),
            closed: true,
            rows: signals,
        });
    }
    rows
}

/// The design's top modules (the scopes right below `TOP`) with their own signals, the
/// contract's ports left out (they are shown above), each under its own name (the group names
/// the module; a short name leaves the list room for the values).
fn design_scopes(signals: &Signals) -> Vec<(String, Vec<Row>)> {
    let mut out: Vec<(String, Vec<Row>)> = Vec::new();
    for (full, name) in signals {
        let mut parts = full.splitn(3, '.');
        let (Some("TOP"), Some(scope), Some(leaf)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if leaf.contains('.') || CONTRACT_PORTS.contains(&leaf) {
            continue;
        }
        let row = Row::Signal {
            name: name.clone(),
            label: Some(leaf.to_string()),
            format: if name.ends_with(']') && name.len() > full.len() {
                Format::Hex
            } else {
                Format::Bin
            },
        };
        match out.iter_mut().find(|(s, _)| s == scope) {
            Some((_, rows)) => rows.push(row),
            None => out.push((scope.to_string(), vec![row])),
        }
    }
    out
}

//! The model's part of the waveform ([`model_part`]): the reference's register banks (scope
//! `model`), the `cosim` signals (mismatch, cycle, the instruction in each stage by name) and,
//! at `--compare ports`, the model's result by the tag the design retires (`model_by_tag`),
//! written with the `vcd` crate, to be spliced into Verilator's part.

use bitvec::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use ptxfma_model::machine::pipeline::PipeIn;
use vcd::{IdCode, ReferenceIndex, ScopeType, Value, VarType};

use super::names::{instr_name, stage_ctrl, INSTR_CHARS, INSTR_SIGNALS};
use ptxfma_cosim_engine::frame::{self, Bank, Limbs};

/// The model's part: header scopes, and value changes by time.
pub(super) struct ModelPart {
    pub(super) header: String,
    pub(super) changes: BTreeMap<u64, String>,
}

/// `times`: the trace time of the reset, the trace time each replayed stream cycle starts at
/// (one more: where the last one ends), and the time each cycle's result is read at
/// ([`handshake::read_times`]).
pub(super) fn model_part(
    rtl_text: &str,
    (exp, act, inputs): (&[u32], &[u32], &[PipeIn]),
    (spec, retirements): (&super::WindowSpec<'_>, &[Option<super::by_tag::Retired>]),
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
        let (low, edge) = (starts[i], starts[i + 1] - super::RTL_PERIOD / 2);
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
                (spec.focus == Some(c)).then(|| super::by_tag::Retired {
                    tag,
                    issue: Some(k),
                    expected: super::by_tag::model_result(inputs, exp, k),
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
        if !marked.contains(&(t + super::RTL_PERIOD)) {
            w.change_scalar(mismatch, false)?;
            at(t + super::RTL_PERIOD, text(&mut w));
        }
    }
    if let Some(b) = &by_tag {
        for (&t, r) in &shown {
            b.change(&mut w, Some(*r), inputs, first_cycle)?;
            at(t, text(&mut w));
            if !shown.contains_key(&(t + super::RTL_PERIOD)) {
                b.change(&mut w, None, inputs, first_cycle)?;
                at(t + super::RTL_PERIOD, text(&mut w));
            }
        }
    }
    Ok(ModelPart { header, changes })
}

/// The identifier codes of the `model_by_tag` scope.
pub(super) struct ByTag {
    tag: IdCode,
    valid: IdCode,
    d: IdCode,
    issue: IdCode,
    instr: IdCode,
    /// [`super::names::BY_TAG_PORTS`]: ctrl, a, b, c.
    ports: [IdCode; 4],
}

/// Widths of [`super::names::BY_TAG_PORTS`].
pub(super) const BY_TAG_WIDTHS: [u32; 4] = [ptxfma_model::ctrl::CTRL_BITS, 64, 64, 64];

impl ByTag {
    fn define(
        w: &mut vcd::Writer<Vec<u8>>,
        alloc: &mut impl FnMut() -> IdCode,
    ) -> std::io::Result<ByTag> {
        w.scope_def(ScopeType::Module, super::names::BY_TAG)?;
        let mut var = |name: &str, width: u32| {
            let id = alloc();
            let range = (width > 1).then(|| ReferenceIndex::Range(width as i32 - 1, 0));
            w.var_def(VarType::Wire, width, id, name, range)
                .map(|()| id)
        };
        let tag = var(super::names::BY_TAG_TAG, 16)?;
        let valid = var(super::names::BY_TAG_VALID, 1)?;
        let d = var(super::names::BY_TAG_D, 64)?;
        let issue = var(super::names::BY_TAG_ISSUE, 64)?;
        let instr = var(super::names::BY_TAG_INSTR, INSTR_CHARS as u32 * 8)?;
        let mut ports = [IdCode::FIRST; 4];
        for ((id, name), width) in ports
            .iter_mut()
            .zip(super::names::BY_TAG_PORTS)
            .zip(BY_TAG_WIDTHS)
        {
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
        shown: Option<super::by_tag::Retired>,
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
pub(super) fn out_valid(frame: &[u32]) -> bool {
    let words = &frame[Bank::Out.range()];
    Bank::Out
        .leaves()
        .iter()
        .find(|l| l.name == "valid")
        .is_some_and(|l| frame::field(words, l)[0] & 1 != 0)
}

/// Writes the name of `ctrl` (blank for `None`) to a name signal when it changed.
pub(super) fn name_change(
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

/// `text` as an [`INSTR_CHARS`]-character ASCII vector ([`super::names::instr_bytes`]).
pub(super) fn put_text(
    w: &mut vcd::Writer<Vec<u8>>,
    id: IdCode,
    text: &str,
) -> std::io::Result<()> {
    let bytes = super::names::instr_bytes(text);
    w.change_vector(
        id,
        bytes.flat_map(|b| (0..8).rev().map(move |k| Value::from((b >> k) & 1 != 0))),
    )
}

pub(super) fn put(
    w: &mut vcd::Writer<Vec<u8>>,
    id: IdCode,
    v: &Limbs,
    width: u32,
) -> std::io::Result<()> {
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
pub(super) fn max_id(text: &str) -> Option<IdCode> {
    text.lines()
        .take_while(|l| !l.contains("$enddefinitions"))
        .filter_map(|l| {
            let mut t = l.split_whitespace();
            (t.next() == Some("$var")).then_some(())?;
            IdCode::from_str(t.nth(2)?).ok()
        })
        .max()
}

//! Human-readable reports: a divergence, operands decoded by format.

use std::fmt::Write as _;

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Sel};
use ptxfma_model::machine::pipeline::PipeIn;

use crate::command::{with_note, ShellCommand};
use ptxfma_cosim_engine::frame::{self, FieldDiff};
use ptxfma_cosim_engine::lockstep::Divergence;
use ptxfma_cosim_engine::stim::{self, Vector};

/// Fields listed per divergence before "... and N more".
const MAX_FIELDS: usize = 8;

/// Where a divergence came from, for the report and the replay command.
#[derive(Clone, Debug)]
pub struct Origin {
    /// `fma-cosim replay` arguments that regenerate the stream (seed, filter, count), or
    /// `None` when the inputs came from the command line.
    pub stream_args: Option<Vec<String>>,
    /// Family name, or `command line`.
    pub family: String,
    pub seed: Option<u64>,
    /// `--rtl`/`--dut`/`--golden` (and `--backpressure`) arguments when not the defaults.
    pub sides_args: Vec<String>,
    pub rtl: String,
    pub golden: String,
    /// `--window` of the windowed replay line.
    pub window: usize,
    /// `--waves-dir` and `--fst` as the run was given them, so that a replay writes its
    /// waveform beside the run's.
    pub waves_args: Vec<String>,
    /// `fma-cosim` and `fma-model eval` as the person can type them where they ran this.
    pub cosim: ShellCommand,
    pub model: ShellCommand,
}

impl Origin {
    /// The reproduce commands of a divergence of operation `input`, presented in cycle `issue`
    /// and seen in cycle `cycle`, as the report prints them and the JSON holds them: the
    /// operation replayed alone from reset, with the cycles before it, from the command line,
    /// and the model's result.
    pub fn reproduce(&self, input: &PipeIn, issue: u64, cycle: u64) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(args) = &self.stream_args {
            lines.push(
                self.replay(args)
                    .args(["--index".into(), issue.to_string()])
                    .args(self.tail(&[]))
                    .to_string(),
            );
            let window = (self.window as u64).min(cycle);
            if window > 0 {
                let line = self
                    .replay(args)
                    .args(["--index".into(), cycle.to_string()])
                    .args(["--window".into(), window.to_string()])
                    .args(self.tail(&[]));
                lines.push(with_note(line, &before(window)));
            }
        }
        lines.push(self.replay_operation(input, &[]).to_string());
        lines.extend(self.model_line(input));
        lines
    }

    /// `fma-cosim replay` with the stream's arguments.
    pub fn replay(&self, stream_args: &[String]) -> ShellCommand {
        self.cosim
            .clone()
            .arg("replay")
            .args(stream_args.iter().cloned())
    }

    /// `fma-cosim replay` of `input` alone, from the command line, with `extra` arguments.
    pub fn replay_operation(&self, input: &PipeIn, extra: &[String]) -> ShellCommand {
        self.cosim
            .clone()
            .arg("replay")
            .args(["--ctrl".into(), format!("{:#08x}", input.ctrl)])
            .args(["--a".into(), format!("{:#x}", input.a)])
            .args(["--b".into(), format!("{:#x}", input.b)])
            .args(["--c".into(), format!("{:#x}", input.c)])
            .args(self.tail(extra))
    }

    /// What ends every replay line: `extra`, the sides, where the waveform goes.
    pub fn tail(&self, extra: &[String]) -> Vec<String> {
        let mut t = extra.to_vec();
        t.extend(self.sides_args.iter().cloned());
        t.extend(self.waves_args.iter().cloned());
        t
    }

    /// The `fma-model eval` command that gives the model's result of a valid operation.
    pub fn model_line(&self, input: &PipeIn) -> Option<String> {
        if !input.valid {
            return None;
        }
        let ctrl = Ctrl::decode(input.ctrl);
        let v = Vector {
            ctrl,
            a: input.a,
            b: input.b,
            c: input.c,
        };
        // One line per argument, the `.target` line first where the spelling needs one.
        let eval = self
            .model
            .clone()
            .args(stim::target(&ctrl).map(|t| format!(".target {t}")))
            .arg(stim::eval_line(&v));
        Some(with_note(eval, "the model's result"))
    }
}

/// The note of a replay line with `window` cycles before the one replayed.
pub fn before(window: u64) -> String {
    if window == 1 {
        "with the cycle before it".into()
    } else {
        format!("with the {window} cycles before it")
    }
}

/// The report of a `--compare ports` divergence: the operation, the expected and retired
/// results, and the cycles it was issued and retired in; `reproduce` as the caller has them.
pub fn ports_divergence(d: &Divergence, origin: &Origin, reproduce: &[String]) -> String {
    let Divergence::Ports {
        cycle,
        issue,
        input,
        diff: p,
        ..
    } = d
    else {
        return divergence(d, origin, None);
    };
    let cycle = *cycle;
    // A design without tag ports is told of by issue cycle alone (docs/dut.md, "Tag").
    let tagless = ptxfma_cosim_engine::dut::tagless(&origin.rtl);
    let mut s = String::new();
    heading(&mut s, " (ports)", origin);
    let _ = match (tagless, p.fault) {
        (true, ptxfma_cosim_engine::ports::Fault::Unissued) => writeln!(
            s,
            "  what        a result retired with no operation in flight (out_valid_o)"
        ),
        _ => writeln!(
            s,
            "  what        {} ({})",
            p.fault.describe(),
            p.fault.port()
        ),
    };
    match (input, *issue) {
        (Some(inp), Some(issue)) => {
            let ctrl = Ctrl::decode(inp.ctrl);
            let tag = if tagless {
                String::new()
            } else {
                format!("tag {:#06x}, ", inp.tag)
            };
            let _ = writeln!(
                s,
                "  instruction {}   ({tag}ctrl {:#08x})",
                stim::ptx_spelling(&ctrl),
                inp.ctrl
            );
            operand_lines(&mut s, &ctrl, inp);
            let show = |v: Option<u64>| v.map_or("none".to_string(), |v| result(&ctrl, v));
            let _ = writeln!(
                s,
                "  result d    expected {}, retired {}",
                show(p.expected),
                show(p.actual)
            );
            let _ = match p.retired {
                Some(r) => writeln!(
                    s,
                    "  cycles      issued {issue}, retired {r} (latency {}; bound {})",
                    r - issue,
                    p.bound
                ),
                None => writeln!(
                    s,
                    "  cycles      issued {issue}, not retired by cycle {cycle} (bound {})",
                    p.bound
                ),
            };
        }
        _ if tagless => {
            let _ = writeln!(
                s,
                "  result      retired in cycle {} with d = {:#018x}, and no operation was in \
                 flight",
                p.retired.unwrap_or(cycle),
                p.actual.unwrap_or(0)
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "  tag         {:#06x} retired in cycle {cycle} with d = {:#018x}, and no operation \
                 with that tag was in flight",
                p.tag,
                p.actual.unwrap_or(0)
            );
        }
    }
    if !reproduce.is_empty() {
        let _ = writeln!(s, "  reproduce");
        for line in reproduce {
            let _ = writeln!(s, "              {line}");
        }
    }
    s
}

/// The operand lines of a report: a, b and c decoded by the format `ctrl` reads them in.
fn operand_lines(s: &mut String, ctrl: &Ctrl, inp: &PipeIn) {
    for (k, name) in ["a", "b", "c"].iter().enumerate() {
        let raw = [inp.a, inp.b, inp.c][k];
        let _ = writeln!(
            s,
            "  {}     {name} = {}",
            if k == 0 { "operands" } else { "        " },
            operand(ctrl, k, raw)
        );
    }
}

/// The first line of a divergence report: which RTL against which reference, where.
fn heading(s: &mut String, kind: &str, origin: &Origin) {
    let family = if origin.family == "all" || origin.family.contains(',') {
        "families"
    } else {
        "family"
    };
    let seed = origin.seed.map_or(String::new(), |x| format!(", seed {x}"));
    let _ = writeln!(
        s,
        "DIVERGENCE{kind}: {} vs {} in {family} {}{seed}",
        ptxfma_cosim_engine::dut::describe(&origin.rtl),
        origin.golden,
        origin.family
    );
}

/// The full report of a register divergence (a ports divergence gets
/// [`ports_divergence`]'s, without reproduce lines).
pub fn divergence(
    d: &Divergence,
    origin: &Origin,
    alone: Option<&ptxfma_cosim_engine::replay::Alone>,
) -> String {
    let Divergence::Registers {
        cycle,
        issue,
        input,
        bank,
        fields,
        banks,
        ..
    } = d
    else {
        return ports_divergence(d, origin, &[]);
    };
    let (cycle, bank) = (*cycle, *bank);
    let mut s = String::new();
    heading(&mut s, "", origin);
    let _ = writeln!(s, "  cycle       {cycle} (banks after its rising edge)");
    let others: Vec<&str> = banks
        .iter()
        .filter(|&&b| b != bank)
        .map(|b| b.name())
        .collect();
    let _ = writeln!(
        s,
        "  stage       {} ({}){}",
        bank.name(),
        bank.rtl_name(),
        if others.is_empty() {
            String::new()
        } else {
            format!("; also differing this cycle: {}", others.join(", "))
        }
    );
    for (k, f) in fields.iter().take(MAX_FIELDS).enumerate() {
        let label = if k == 0 { "field" } else { "     " };
        let _ = writeln!(s, "  {label}       {}", field_line(f));
    }
    if fields.len() > MAX_FIELDS {
        let _ = writeln!(
            s,
            "              ... and {} more fields",
            fields.len() - MAX_FIELDS
        );
    }
    match (input, *issue) {
        (Some(inp), Some(issue)) => {
            let ctrl = Ctrl::decode(inp.ctrl);
            let what = if inp.valid {
                stim::ptx_spelling(&ctrl)
            } else {
                format!("bubble (valid = 0) carrying {}", stim::ptx_spelling(&ctrl))
            };
            let _ = writeln!(
                s,
                "  instruction {what}   (presented in cycle {issue}, tag {:#06x}, ctrl {:#08x})",
                inp.tag, inp.ctrl
            );
            operand_lines(&mut s, &ctrl, inp);
            if let Some(al) = alone {
                let _ = writeln!(
                    s,
                    "  result d    expected {}, actual {}   (operation replayed alone)",
                    result(&ctrl, al.expected_d),
                    result(&ctrl, al.actual_d)
                );
                match &al.first {
                    Some((c, b, f)) => {
                        let _ = writeln!(
                            s,
                            "              alone it first differs {} cycle(s) after issue in {} field {f}",
                            c,
                            b.name()
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "              alone it does NOT diverge: the neighbouring operations \
                             matter; use the windowed replay below"
                        );
                    }
                }
            }
            let _ = writeln!(s, "  reproduce");
            for line in origin.reproduce(inp, issue, cycle) {
                let _ = writeln!(s, "              {line}");
            }
        }
        _ => {
            let _ = writeln!(
                s,
                "  instruction none: the bank still holds its reset value (all zero) in cycle {cycle}"
            );
        }
    }
    s
}

fn field_line(f: &FieldDiff) -> String {
    format!(
        "{} [{} bit{}]: expected {}, actual {}",
        f.name,
        f.width,
        if f.width == 1 { "" } else { "s" },
        frame::hex(&f.expected, f.width),
        frame::hex(&f.actual, f.width)
    )
}

/// An operand in hex with its value in the format the instruction reads it in.
pub fn operand(c: &Ctrl, which: usize, v: u64) -> String {
    let unused = match which {
        1 if c.b_one && c.kind != Kind::Vmad => Some("unused: b = +1.0"),
        2 if c.c_zero && c.kind != Kind::Vmad => Some("unused: c = signed zero"),
        _ => None,
    };
    let text = stim::operand_text(c, which, v);
    if let Some(u) = unused {
        return format!("{text}  ({u})");
    }
    let value = match c.kind {
        Kind::F64 => f64_text(v),
        Kind::F32x2 => format!(
            "lane0 {}, lane1 {}",
            f32_text(v as u32),
            f32_text((v >> 32) as u32)
        ),
        Kind::F32 if which < 2 && c.ab_fmt == AbFmt::F16 => {
            format!("f16 {}", f32_text(f16_to_f32(v as u16)))
        }
        Kind::F32 if which < 2 && c.ab_fmt == AbFmt::Bf16 => {
            format!("bf16 {}", f32_text((v as u32 & 0xFFFF) << 16))
        }
        Kind::F32 | Kind::Sm1x => f32_text(v as u32),
        Kind::Half | Kind::Half2 => half_text(c, v),
        Kind::Vmad => {
            let (signed, sel) = match which {
                0 => (c.a_signed, c.asel),
                1 => (c.b_signed, c.bsel),
                _ => (true, Sel::W),
            };
            // A whole word, c included, is read as s32 whatever its type (S8).
            let signed = signed || sel == Sel::W;
            let x = ptxfma_model::parts::vmad_select::part_select(v as u32, sel, signed);
            if signed {
                format!("selected {x} (signed)")
            } else {
                format!("selected {x} (unsigned)")
            }
        }
    };
    format!("{text}  ({value})")
}

/// A result `d` in hex with its value.
pub fn result(c: &Ctrl, d: u64) -> String {
    match c.kind {
        Kind::F64 => format!("{d:#018x} ({})", f64_text(d)),
        Kind::F32x2 => format!(
            "{d:#018x} (lane0 {}, lane1 {})",
            f32_text(d as u32),
            f32_text((d >> 32) as u32)
        ),
        Kind::Vmad => {
            if c.signed_final() {
                format!("{d:#010x} ({})", d as u32 as i32)
            } else {
                format!("{d:#010x} ({})", d as u32)
            }
        }
        Kind::Half => format!("{d:#06x} ({})", half_text(c, d)),
        Kind::Half2 => format!("{d:#010x} ({})", half_text(c, d)),
        _ => format!("{d:#010x} ({})", f32_text(d as u32)),
    }
}

/// A half-precision word's value: its format and each lane's (lane 0 in bits 15:0).
fn half_text(c: &Ctrl, v: u64) -> String {
    let f = c.half_fmt();
    let name = if c.ab_fmt == AbFmt::Bf16 {
        "bf16"
    } else {
        "f16"
    };
    let lane = |k: u32| {
        let x = f.to_f64((v >> (16 * k)) & 0xFFFF);
        if x.is_nan() {
            "NaN".to_string()
        } else {
            format!("{x:e}")
        }
    };
    if c.kind == Kind::Half2 {
        format!("{name} lane0 {}, lane1 {}", lane(0), lane(1))
    } else {
        format!("{name} {}", lane(0))
    }
}

fn f32_text(b: u32) -> String {
    let x = f32::from_bits(b);
    if x.is_nan() {
        let q = b & 0x0040_0000 != 0;
        format!(
            "{}NaN payload {:#x}",
            if q { "q" } else { "s" },
            b & 0x003F_FFFF
        )
    } else if x != 0.0 && x.is_subnormal() {
        format!("{x:e} subnormal")
    } else {
        format!("{x:e}")
    }
}

fn f64_text(b: u64) -> String {
    let x = f64::from_bits(b);
    if x.is_nan() {
        let q = b & (1 << 51) != 0;
        format!(
            "{}NaN payload {:#x}",
            if q { "q" } else { "s" },
            b & ((1 << 51) - 1)
        )
    } else if x != 0.0 && x.is_subnormal() {
        format!("{x:e} subnormal")
    } else {
        format!("{x:e}")
    }
}

/// Exact binary16 to binary32 bits (for display only).
fn f16_to_f32(h: u16) -> u32 {
    let s = ((h >> 15) as u32) << 31;
    let e = ((h >> 10) & 0x1F) as u32;
    let m = (h & 0x3FF) as u32;
    match (e, m) {
        (0, 0) => s,
        (0, _) => {
            // Subnormal: normalise.
            let sh = m.leading_zeros() - 21;
            s | ((113 - sh) << 23) | ((m << (sh + 13)) & 0x7F_FFFF)
        }
        (31, _) => s | 0x7F80_0000 | (m << 13),
        _ => s | ((e + 112) << 23) | (m << 13),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::ctrl::Rnd;

    #[test]
    fn f16_conversion_is_exact() {
        // Spot values worked out by hand: 1.0, -2.0, smallest subnormal 2^-24, 65504, inf.
        assert_eq!(f16_to_f32(0x3C00), 0x3F80_0000);
        assert_eq!(f16_to_f32(0xC000), 0xC000_0000);
        assert_eq!(f32::from_bits(f16_to_f32(0x0001)), 2f32.powi(-24));
        assert_eq!(f32::from_bits(f16_to_f32(0x7BFF)), 65504.0);
        assert_eq!(f16_to_f32(0x7C00), 0x7F80_0000);
        // Largest subnormal: 1023 * 2^-24.
        assert_eq!(f32::from_bits(f16_to_f32(0x03FF)), 1023.0 * 2f32.powi(-24));
    }

    #[test]
    fn half_results_read_as_their_lanes() {
        let h2 = Ctrl {
            kind: Kind::Half2,
            ab_fmt: AbFmt::F16,
            ..Ctrl::default()
        };
        // f16 0x4200 = 3.0, 0xbc00 = -1.0; bf16 0x7fff is a NaN.
        assert_eq!(
            result(&h2, 0xBC00_4200),
            "0xbc004200 (f16 lane0 3e0, lane1 -1e0)"
        );
        let bf = Ctrl {
            kind: Kind::Half,
            ab_fmt: AbFmt::Bf16,
            ..Ctrl::default()
        };
        assert_eq!(result(&bf, 0x7FFF), "0x7fff (bf16 NaN)");
        assert_eq!(result(&bf, 0x3F80), "0x3f80 (bf16 1e0)");
    }

    #[test]
    fn operands_are_decoded_by_format() {
        let c = Ctrl::fma(Kind::F32, Rnd::Rn);
        assert_eq!(operand(&c, 0, 0x3F80_0000), "0x3f800000  (1e0)");
        assert!(operand(&c, 0, 0x7FC0_0000).contains("qNaN"));
        let d = Ctrl::fma(Kind::F64, Rnd::Rn);
        assert_eq!(
            operand(&d, 2, 0xC000_0000_0000_0000),
            "0xc000000000000000  (-2e0)"
        );
        let vm = Ctrl {
            kind: Kind::Vmad,
            a_signed: true,
            asel: Sel::B1,
            ..Ctrl::default()
        };
        assert_eq!(
            operand(&vm, 0, 0x0000_FF00),
            "0x0000ff00.b1  (selected -1 (signed))"
        );
        assert_eq!(result(&vm, 0xFFFF_FFFF), "0xffffffff (-1)");
    }
}

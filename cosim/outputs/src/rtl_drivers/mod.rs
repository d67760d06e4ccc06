//! Which RTL module drives a field of a stage register, read from the pipe's own sources (the
//! files of `rtl/files.txt`, embedded by build.rs), so that no second table has to follow the
//! RTL. From the flop (`s1_q <= s1_d`) it follows the next-state assignment in the top
//! (`s1_d.lane0 = en_1.lane0 ? g_s1_lane[0].lane : '0`) to the instance whose output that
//! signal is (`ptxfma_s1_lane u_s1_lane (.lane_o (lane))`) and, for a field inside a struct
//! output, into that module (`lane_o = '{align_sticky: sticky, ...}`, `.sticky_o (sticky)` of
//! `ptxfma_align`). It reads the subset of SystemVerilog the pipe is written in (lowRISC style:
//! one statement per assignment, named generate blocks, named port connections); what it
//! cannot follow it names as the module's own logic.

use std::collections::HashMap;

mod reader;

use reader::*;

/// One instance entered on the way from the top to the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Hierarchical instance path below the top (`g_s1_lane[1].u_s1_lane.u_align`).
    pub instance: String,
    /// Its module (`ptxfma_align`).
    pub module: String,
    /// The output port the value leaves it by (`sticky_o`).
    pub port: String,
}

/// What a field's value comes from inside the innermost module reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inner {
    /// The innermost hop's output port, not followed further.
    Port,
    /// A signal the module computes itself (an `assign` or `always_comb`).
    Logic(String),
    /// One of the module's inputs (in the top: an input port).
    Input(String),
    /// A flop of an earlier stage, carried on unchanged (`s1_q.tag`).
    Register(String),
    /// A constant the module assigns to the field (`1'b0`).
    Constant(String),
}

/// One source of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Driver {
    /// Instances entered, outermost first (none: the top's own logic).
    pub hops: Vec<Hop>,
    pub inner: Inner,
}

impl Driver {
    /// The module the value is computed in (the innermost hop's, or the top's).
    pub fn module(&self) -> &str {
        self.hops.last().map_or(top_name(), |h| h.module.as_str())
    }

    /// One line: the innermost module first, then the modules it sits in.
    pub fn describe(&self) -> String {
        let top = top_name();
        let within = |hops: &[Hop]| -> String {
            hops.iter()
                .rev()
                .map(|h| format!(", in {} (`{}`)", h.module, h.instance))
                .collect()
        };
        match (&self.inner, self.hops.split_last()) {
            (Inner::Port, Some((h, outer))) => format!(
                "{} (`{}`, output `{}`){}",
                h.module,
                h.instance,
                h.port,
                within(outer)
            ),
            (Inner::Port, None) => top.to_string(),
            (inner, _) => {
                let what = match inner {
                    Inner::Logic(s) => format!("its own logic (`{s}`)"),
                    Inner::Input(s) => format!("from its input `{s}`"),
                    Inner::Register(s) => format!("from the register `{s}`"),
                    Inner::Constant(s) => format!("the constant `{s}`"),
                    Inner::Port => unreachable!(),
                };
                match self.hops.last() {
                    Some(h) => format!(
                        "{} (`{}`): {what}{}",
                        h.module,
                        h.instance,
                        within(&self.hops[..self.hops.len() - 1])
                    ),
                    None => format!("{top}: {what}"),
                }
            }
        }
    }
}

/// The module no other module instantiates (`ptxfma_top`).
fn top_name() -> &'static str {
    static TOP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOP.get_or_init(|| Design::parse(&[]).top().to_string())
}

/// The drivers of `field` (a dotted leaf name, `lane1.align_sticky`) of the stage register
/// `flop` (`s1_q`, as [`ptxfma_cosim_engine::frame::Bank::rtl_name`] names it), in the pipe
/// compiled with `defines` (`FAULT_STICKY_RZ`, or `NAME=VALUE`), in source order. Empty when
/// the sources name no such flop.
pub fn drivers(flop: &str, field: &str, defines: &[&str]) -> Vec<Driver> {
    let design = Design::parse(defines);
    let path: Vec<&str> = field.split('.').collect();
    let Some(top) = design.modules.get(design.top()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // The flop's next state: `s1_q <= s1_d` (a flop holding itself, or reset to a constant,
    // drives nothing new).
    for st in &top.stmts {
        let Some(a) = st.assignment("<=") else {
            continue;
        };
        if a.root != flop || !path.starts_with(&a.members) {
            continue;
        }
        let rest = &path[a.members.len()..];
        for r in references(a.rhs) {
            if r.root == flop {
                continue;
            }
            let mut field: Vec<&str> = r.members.iter().map(String::as_str).collect();
            field.extend_from_slice(rest);
            design.local(top, "", &r.root, &field, &[], &mut out, 0, true);
        }
    }
    let mut seen = Vec::new();
    out.retain(|d| {
        let new = !seen.contains(d);
        seen.push(d.clone());
        new
    });
    out
}

/// Depth of instances and local signals followed before giving up (the pipe needs 3).
const MAX_DEPTH: usize = 8;

struct Design {
    modules: HashMap<String, Module>,
    /// Module names in file order.
    order: Vec<String>,
}

impl Design {
    fn parse(defines: &[&str]) -> Design {
        let names: Vec<&str> = defines
            .iter()
            .map(|d| d.split('=').next().unwrap_or(d))
            .collect();
        let mut modules = HashMap::new();
        let mut order = Vec::new();
        for (_, text) in ptxfma_cosim_engine::rtl::variant::PIPE_SOURCES {
            let toks = tokens(&preprocess(text, &names));
            for m in split_modules(&toks) {
                order.push(m.name.clone());
                modules.insert(m.name.clone(), m);
            }
        }
        let mut d = Design { modules, order };
        let known: Vec<String> = d.order.clone();
        for m in d.modules.values_mut() {
            m.find_instances(&known);
        }
        d
    }

    /// The module no other one instantiates (the first such, in file order).
    fn top(&self) -> &str {
        let used: Vec<&str> = self
            .modules
            .values()
            .flat_map(|m| m.instances.iter().map(|i| i.module.as_str()))
            .collect();
        self.order
            .iter()
            .find(|n| !used.contains(&n.as_str()) && !self.modules[*n].instances.is_empty())
            .map_or("", String::as_str)
    }

    /// Follows signal `root` of module `m` (instance path `at`), whose part `field` is wanted:
    /// to the instance output it is connected to, an input, a flop, or (with `follow`) the
    /// assignments that give it its value; without `follow`, a signal the module computes is
    /// named as its own logic.
    #[allow(clippy::too_many_arguments)]
    fn local(
        &self,
        m: &Module,
        at: &str,
        root: &str,
        field: &[&str],
        hops: &[Hop],
        out: &mut Vec<Driver>,
        depth: usize,
        follow: bool,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let driver = |inner| Driver {
            hops: hops.to_vec(),
            inner,
        };
        let text = |root: &str, field: &[&str]| {
            std::iter::once(root)
                .chain(field.iter().copied())
                .collect::<Vec<_>>()
                .join(".")
        };
        if let Some((inst, port)) = m.driving_instance(root, None, self) {
            self.enter(inst, port, &join(at, &inst.name), field, hops, out, depth);
            return;
        }
        if m.inputs.iter().any(|i| i == root) {
            out.push(driver(Inner::Input(text(root, field))));
            return;
        }
        if m.flops.iter().any(|f| f == root) {
            out.push(driver(Inner::Register(text(root, field))));
            return;
        }
        if !follow {
            out.push(driver(Inner::Logic(text(root, field))));
            return;
        }
        // Assignments to it in this module: `root.members = rhs` with members a prefix of
        // `field` (a default of the whole struct, `lane_o = '0`, gives nothing).
        let before = out.len();
        for st in &m.stmts {
            let Some(a) = st.assignment("=") else {
                continue;
            };
            if a.root != root || !field.starts_with(&a.members) {
                continue;
            }
            let mut rest = &field[a.members.len()..];
            let mut rhs = a.rhs;
            if let (Some(first), true) = (rest.first(), is_struct_literal(rhs)) {
                match struct_entry(rhs, first) {
                    Some(e) => {
                        rhs = e;
                        rest = &rest[1..];
                    }
                    None => continue,
                }
            }
            let refs = references(rhs);
            if refs.is_empty() {
                if rest.is_empty() {
                    out.push(driver(Inner::Constant(join_tokens(rhs))));
                }
                continue;
            }
            // Only the top's wires are followed through its own logic: in a part, the part
            // is the answer.
            for r in refs {
                let mut f: Vec<&str> = r.members.iter().map(String::as_str).collect();
                f.extend_from_slice(rest);
                match r.block {
                    Some(i) => self.block(m, at, &r.root, &i, &f, hops, out, depth + 1),
                    None => {
                        let top = hops.is_empty();
                        self.local(m, at, &r.root, &f, hops, out, depth + 1, top)
                    }
                }
            }
        }
        if out.len() == before {
            out.push(driver(Inner::Logic(text(root, field))));
        }
    }

    /// `g_blk[i].signal...` of module `m`: the instance of generate block `g_blk` whose output
    /// is `signal`.
    #[allow(clippy::too_many_arguments)]
    fn block(
        &self,
        m: &Module,
        at: &str,
        block: &str,
        index: &str,
        field: &[&str],
        hops: &[Hop],
        out: &mut Vec<Driver>,
        depth: usize,
    ) {
        let Some((signal, rest)) = field.split_first() else {
            return;
        };
        let here = join(at, &format!("{block}[{index}]"));
        match m.driving_instance(signal, Some(block), self) {
            Some((inst, port)) => {
                self.enter(inst, port, &join(&here, &inst.name), rest, hops, out, depth)
            }
            None => out.push(Driver {
                hops: hops.to_vec(),
                inner: Inner::Logic(format!("{here}.{}", field.join("."))),
            }),
        }
    }

    /// Into instance `inst` by its output `port`, for the part `field` of that output.
    #[allow(clippy::too_many_arguments)]
    fn enter(
        &self,
        inst: &Instance,
        port: &str,
        path: &str,
        field: &[&str],
        hops: &[Hop],
        out: &mut Vec<Driver>,
        depth: usize,
    ) {
        let mut hops = hops.to_vec();
        hops.push(Hop {
            instance: path.to_string(),
            module: inst.module.clone(),
            port: port.to_string(),
        });
        let sub = &self.modules[&inst.module];
        if field.is_empty() || depth >= MAX_DEPTH {
            out.push(Driver {
                hops,
                inner: Inner::Port,
            });
            return;
        }
        let before = out.len();
        self.local(sub, path, port, field, &hops, out, depth + 1, true);
        if out.len() == before {
            out.push(Driver {
                hops,
                inner: Inner::Port,
            });
        }
    }
}

/// Following a value into the instances of a module.
impl Module {
    /// The instance (in `block`, or outside every block) with its output port connected to
    /// `signal` alone.
    fn driving_instance<'a>(
        &'a self,
        signal: &str,
        block: Option<&str>,
        d: &'a Design,
    ) -> Option<(&'a Instance, &'a str)> {
        self.instances
            .iter()
            .filter(|i| i.block.as_deref() == block)
            .find_map(|i| {
                let sub = d.modules.get(&i.module)?;
                i.conns
                    .iter()
                    .find(|(p, e)| e.len() == 1 && e[0] == signal && sub.outputs.contains(p))
                    .map(|(p, _)| (i, p.as_str()))
            })
    }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_cosim_engine::frame::Bank;

    fn modules(ds: &[Driver]) -> Vec<&str> {
        ds.iter().map(Driver::module).collect()
    }

    /// Every field of every stage register has a driver in the pipe's sources: the reading
    /// covers the RTL as written (a restructured top it cannot follow fails here).
    #[test]
    fn every_field_has_a_driver() {
        for bank in [Bank::S1, Bank::S2, Bank::S3, Bank::Out] {
            for leaf in bank.leaves() {
                let ds = drivers(bank.rtl_name(), &leaf.name, &[]);
                assert!(!ds.is_empty(), "{} {}", bank.name(), leaf.name);
            }
        }
    }

    /// Worked out by hand from the sources: the alignment sticky of lane 1 is `ptxfma_align`'s
    /// `sticky_o` in lane 1's `ptxfma_s1_lane`; the planted fault's define adds the top's
    /// constant.
    #[test]
    fn the_alignment_sticky_comes_from_the_aligner() {
        let ds = drivers("s1_q", "lane1.align_sticky", &[]);
        assert_eq!(ds.len(), 1, "{ds:?}");
        let hops: Vec<(&str, &str, &str)> = ds[0]
            .hops
            .iter()
            .map(|h| (h.instance.as_str(), h.module.as_str(), h.port.as_str()))
            .collect();
        assert_eq!(
            hops,
            [
                ("g_s1_lane[1].u_s1_lane", "ptxfma_s1_lane", "lane_o"),
                ("g_s1_lane[1].u_s1_lane.u_align", "ptxfma_align", "sticky_o"),
            ]
        );
        assert_eq!(ds[0].inner, Inner::Port);
        let faulty = drivers("s1_q", "lane1.align_sticky", &["FAULT_STICKY_RZ"]);
        assert_eq!(faulty.len(), 2, "{faulty:?}");
        assert_eq!(faulty[0], ds[0]);
        assert_eq!(faulty[1].hops, []);
        assert_eq!(faulty[1].inner, Inner::Constant("1'b0".into()));
    }

    #[test]
    fn fields_lead_to_their_parts() {
        assert_eq!(
            modules(&drivers("s1_q", "mul_sum", &[])),
            ["ptxfma_csa_tree"]
        );
        assert_eq!(
            modules(&drivers("s1_q", "vm.vm_inv", &[])),
            ["ptxfma_vmad_prepare"]
        );
        assert_eq!(
            modules(&drivers("s2_q", "lane0.mag", &[])),
            ["ptxfma_adder"]
        );
        assert_eq!(
            modules(&drivers("s2_q", "lane0.lza_cnt", &[])),
            ["ptxfma_lza"]
        );
        assert_eq!(
            modules(&drivers("s2_q", "vm_tmp", &[])),
            ["ptxfma_vmad_accumulate"]
        );
        assert_eq!(
            modules(&drivers("s3_q", "lane1.norm", &[])),
            ["ptxfma_normalize"]
        );
        assert_eq!(
            modules(&drivers("s3_q", "vm_res", &[])),
            ["ptxfma_vmad_scale"]
        );
        // The result word: vmad's saturation or either lane's rounder.
        let out = drivers("out_q", "d", &[]);
        let mut d = modules(&out);
        d.sort();
        d.dedup();
        assert_eq!(d, ["ptxfma_round", "ptxfma_vmad_saturate"]);
        // Stage 3's sticky: stage 2's, or the normaliser's.
        let st = drivers("s3_q", "lane0.sticky", &[]);
        assert!(st
            .iter()
            .any(|d| d.inner == Inner::Input("lane_i.sticky".into())));
        assert!(st.iter().any(|d| d.module() == "ptxfma_normalize"));
        // The s2 lane's sign is its own logic.
        let sign = drivers("s2_q", "lane0.sign", &[]);
        assert_eq!(sign[0].inner, Inner::Logic("sign".into()));
        assert_eq!(sign[0].module(), "ptxfma_s2_lane");
    }

    #[test]
    fn bookkeeping_fields_come_from_the_ports_and_earlier_stages() {
        let tag = drivers("s1_q", "tag", &[]);
        assert_eq!(tag[0].inner, Inner::Input("in_tag_i".into()));
        assert_eq!(tag[0].module(), "ptxfma_top");
        let tag2 = drivers("s2_q", "tag", &[]);
        assert_eq!(tag2[0].inner, Inner::Register("s1_q.tag".into()));
        let ctrl = drivers("s1_q", "ctrl", &[]);
        assert_eq!(ctrl[0].inner, Inner::Input("in_ctrl_i".into()));
        assert!(drivers("s9_q", "tag", &[]).is_empty());
    }

    #[test]
    fn descriptions_read_innermost_first() {
        let ds = drivers("s1_q", "lane1.align_sticky", &[]);
        assert_eq!(
            ds[0].describe(),
            "ptxfma_align (`g_s1_lane[1].u_s1_lane.u_align`, output `sticky_o`), in \
             ptxfma_s1_lane (`g_s1_lane[1].u_s1_lane`)"
        );
    }
}

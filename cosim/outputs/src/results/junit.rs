//! The results as JUnit XML, for CI dashboards: a testsuite per family, a testcase per chunk.

use std::path::Path;

use quick_xml::events::{BytesCData, BytesDecl, BytesEnd, BytesStart, Event};

use super::{ChunkRow, RunResult};
use ptxfma_cosim_engine::temporary::write_atomically;
use ptxfma_cosim_engine::Error;

impl RunResult {
    /// JUnit XML: a testsuite per family, a testcase per chunk, a `<failure>` per divergence
    /// listed (the first `max_examples` of each signature) carrying its report; the
    /// `failures` attributes count every divergence.
    pub fn junit(&self) -> String {
        let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
        let attr = |e: &mut BytesStart, k: &str, v: String| e.push_attribute((k, v.as_str()));
        let failures = self.divergence_count();
        let tests = self.chunks.len() + self.problems.len();
        let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        let mut root = BytesStart::new("testsuites");
        attr(&mut root, "name", "fma-cosim".into());
        attr(&mut root, "tests", tests.to_string());
        attr(&mut root, "failures", failures.to_string());
        attr(&mut root, "errors", self.problems.len().to_string());
        attr(&mut root, "time", format!("{:.3}", self.seconds));
        let _ = w.write_event(Event::Start(root));
        if !self.problems.is_empty() {
            let mut suite = BytesStart::new("testsuite");
            attr(&mut suite, "name", "fma-cosim.merge".into());
            attr(&mut suite, "tests", self.problems.len().to_string());
            attr(&mut suite, "failures", "0".into());
            attr(&mut suite, "errors", self.problems.len().to_string());
            let _ = w.write_event(Event::Start(suite));
            for p in &self.problems {
                let mut case = BytesStart::new("testcase");
                attr(&mut case, "classname", "fma-cosim.merge".into());
                attr(&mut case, "name", p.clone());
                let _ = w.write_event(Event::Start(case));
                let mut e = BytesStart::new("error");
                attr(&mut e, "type", "incomplete".into());
                attr(&mut e, "message", p.clone());
                let _ = w.write_event(Event::Empty(e));
                let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
            }
            let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
        }
        for fam in &self.families {
            let f = &fam.family;
            let ops = |c: &ChunkRow| c.by_family.get(f).copied().unwrap_or(0);
            let chunks: Vec<&ChunkRow> = self.chunks.iter().filter(|c| ops(c) > 0).collect();
            let mut suite = BytesStart::new("testsuite");
            attr(&mut suite, "name", format!("fma-cosim.{f}"));
            attr(&mut suite, "tests", chunks.len().to_string());
            attr(&mut suite, "failures", fam.divergences.to_string());
            attr(&mut suite, "errors", "0".into());
            attr(
                &mut suite,
                "skipped",
                chunks.iter().filter(|c| c.interrupted).count().to_string(),
            );
            attr(&mut suite, "time", format!("{:.3}", fam.seconds));
            let _ = w.write_event(Event::Start(suite));
            let mut props = BytesStart::new("properties");
            let _ = w.write_event(Event::Start(props.borrow()));
            for (k, v) in [
                ("seed", self.params.seed.to_string()),
                ("count", self.params.count.to_string()),
                ("rtl", self.params.rtl.clone()),
                ("golden", self.params.golden.clone()),
                ("verilator", self.verilator.clone()),
            ] {
                let mut p = BytesStart::new("property");
                attr(&mut p, "name", k.into());
                attr(&mut p, "value", v);
                let _ = w.write_event(Event::Empty(p));
            }
            props = BytesStart::new("properties");
            let _ = w.write_event(Event::End(props.to_end()));
            for c in chunks {
                let mut case = BytesStart::new("testcase");
                attr(&mut case, "classname", format!("fma-cosim.{f}"));
                attr(
                    &mut case,
                    "name",
                    format!(
                        "chunk {} (--seed {} --filter {} --count {}): {} {f} operations",
                        c.index,
                        c.seed,
                        c.stream,
                        c.ops,
                        ops(c)
                    ),
                );
                let share = ops(c) as f64 / c.vectors.max(1) as f64;
                attr(&mut case, "time", format!("{:.3}", c.seconds * share));
                let _ = w.write_event(Event::Start(case));
                if c.interrupted {
                    let mut sk = BytesStart::new("skipped");
                    attr(
                        &mut sk,
                        "message",
                        "interrupted before the end of the chunk".into(),
                    );
                    let _ = w.write_event(Event::Empty(sk));
                }
                for d in self
                    .divergences
                    .iter()
                    .filter(|d| d.chunk == c.index && &d.family == f)
                {
                    let mut f = BytesStart::new("failure");
                    attr(&mut f, "type", "divergence".into());
                    attr(
                        &mut f,
                        "message",
                        format!("cycle {}: {}", d.cycle, d.signature),
                    );
                    let _ = w.write_event(Event::Start(f));
                    let text = d.report.replace("]]>", "]]]]><![CDATA[>");
                    let _ = w.write_event(Event::CData(BytesCData::new(text)));
                    let _ = w.write_event(Event::End(BytesEnd::new("failure")));
                }
                let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
            }
            let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testsuites")));
        let mut out = String::from_utf8(w.into_inner()).unwrap_or_default();
        out.push('\n');
        out
    }

    pub fn write_junit(&self, path: &Path) -> Result<(), Error> {
        write_atomically(path, self.junit().as_bytes())
    }
}

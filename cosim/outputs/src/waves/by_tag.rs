//! The model's result beside a design's, matched by tag and not by cycle: at `--compare
//! ports` a design retires at its own latency, in any order, so the model's ports in the same
//! cycle hold another operation. For each cycle of a replayed window where the design retires
//! a result, the operation it names (the oldest in flight under its tag, as the checker of
//! [`ptxfma_cosim_engine::ports`] matches it) and the model's result for that operation.
//!
//! Written as the `model_by_tag` scope at the design's retire cycles rather than as the
//! model's ports shifted by a latency: a shift lines up only a design of one fixed latency
//! that retires in order, while a match by tag holds for any latency and order, and for
//! results a handshake design holds back.

use ptxfma_model::machine::pipeline::PipeIn;

use ptxfma_cosim_engine::frame::{self, Bank};
use ptxfma_cosim_engine::ports::Tags;

/// A result the design retired, and what the model says of its tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retired {
    /// The tag it retired under (a narrower tag widened to the stream's 16 bits).
    pub tag: u16,
    /// The window index of the cycle its operation was issued in (none: no operation was in
    /// flight under the tag).
    pub issue: Option<usize>,
    /// The model's result for that operation (none without one, or when the model's retirement
    /// falls outside the window).
    pub expected: Option<u64>,
}

/// The ports words' result: valid, tag and `d` of a frame's port words.
fn result(f: &[u32]) -> Option<(u16, u64)> {
    (f[0] & 1 != 0).then(|| (f[1] as u16, f[2] as u64 | (f[3] as u64) << 32))
}

/// The model's result for the operation issued at window index `k`: its ports a fixed
/// `Bank::Ports.age()` cycles later, when they hold its tag.
pub fn model_result(inputs: &[PipeIn], expected: &[u32], k: usize) -> Option<u64> {
    let at = (k + Bank::Ports.age() as usize) * frame::WORDS;
    let (tag, d) = result(expected.get(at..at + frame::PORT_WORDS)?)?;
    (tag == inputs.get(k)?.tag).then_some(d)
}

/// For each cycle of the window (`inputs`, and the model's and the design's frames, one per
/// cycle), the result the design retired after its edge, if any.
pub fn retirements(inputs: &[PipeIn], expected: &[u32], actual: &[u32]) -> Vec<Option<Retired>> {
    let mut tags = Tags::default();
    inputs
        .iter()
        .zip(actual.chunks_exact(frame::WORDS))
        .enumerate()
        .map(|(i, (input, a))| {
            // In the checker's order: a reset, this cycle's issue, then the retirement.
            if input.reset {
                tags.clear();
            }
            if input.issues() {
                tags.issue(input.tag, i as u64);
            }
            let (tag, _) = result(a)?;
            let issue = tags.retire(tag).map(|k| k as usize);
            Some(Retired {
                tag,
                issue,
                expected: issue.and_then(|k| model_result(inputs, expected, k)),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(tag: u16) -> PipeIn {
        PipeIn {
            valid: true,
            tag,
            ..PipeIn::default()
        }
    }

    /// Frames with only port words: `results[i]` retired after cycle i's edge.
    fn frames(results: &[Option<(u16, u64)>]) -> Vec<u32> {
        results
            .iter()
            .flat_map(|r| {
                let mut f = vec![0u32; frame::WORDS];
                if let Some((tag, d)) = *r {
                    f[..4].copy_from_slice(&[1, tag as u32, d as u32, (d >> 32) as u32]);
                }
                f
            })
            .collect()
    }

    /// Two operations, the model retiring each `age` cycles after its issue; the design
    /// retires them later, in the other order, and then a tag never issued. Each of its
    /// retirements is paired with the model's result for the same tag, not with what the
    /// model shows in that cycle.
    #[test]
    fn a_retirement_is_paired_with_the_models_result_for_its_tag() {
        let age = Bank::Ports.age() as usize;
        let n = age + 8;
        let mut inputs = vec![PipeIn::default(); n];
        inputs[0] = op(0x23);
        inputs[1] = op(0x24);
        let mut model = vec![None; n];
        model[age] = Some((0x23, 0xa));
        model[age + 1] = Some((0x24, 0xb));
        let mut design = vec![None; n];
        design[age + 1] = Some((0x24, 0xbad));
        design[age + 2] = Some((0x23, 0xa));
        design[age + 4] = Some((0x99, 0));
        let r = retirements(&inputs, &frames(&model), &frames(&design));
        assert_eq!(r.len(), n);
        assert_eq!(
            r[age + 1],
            Some(Retired {
                tag: 0x24,
                issue: Some(1),
                expected: Some(0xb)
            })
        );
        assert_eq!(
            r[age + 2],
            Some(Retired {
                tag: 0x23,
                issue: Some(0),
                expected: Some(0xa)
            })
        );
        assert_eq!(
            r[age + 4],
            Some(Retired {
                tag: 0x99,
                issue: None,
                expected: None
            })
        );
        assert_eq!(r.iter().flatten().count(), 3);
    }

    /// A reset throws away what is in flight: a tag retired after it names nothing.
    #[test]
    fn a_reset_forgets_the_tags_in_flight() {
        let mut inputs = vec![PipeIn::default(); 6];
        inputs[0] = op(7);
        inputs[1].reset = true;
        let mut design = vec![None; 6];
        design[4] = Some((7, 1));
        let r = retirements(&inputs, &frames(&[None; 6]), &frames(&design));
        assert_eq!(r[4].map(|x| x.issue), Some(None));
    }
}

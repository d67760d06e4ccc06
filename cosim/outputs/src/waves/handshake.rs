//! When a design's result is on its ports, for the marker and the model's result by tag to
//! line up with it. A design without a handshake shows the result of a stream cycle after the
//! cycle's (only) rising edge. A handshake design hands a result over at a rising edge where
//! `out_valid_o` and `out_ready_i` are both high, and the co-simulator shows the results it
//! took one per stream cycle, in order ([`ptxfma_cosim_engine::dut::handshake`]): the k-th result
//! shown is the k-th taken, and it is on the design's ports in the half cycle before the edge
//! that took it. Those edges are read back from the design's own trace.

use ptxfma_model::machine::pipeline::PipeIn;

use ptxfma_cosim_engine::frame;

/// The trace time (Verilator's units, `period` per design cycle) at which each stream cycle's
/// result can be read on the design's ports. `starts`: when each stream cycle began, and one
/// more (when the last one ended); `vcd`: the design's trace over them.
pub fn read_times(
    vcd: &str,
    inputs: &[PipeIn],
    actual: &[u32],
    starts: &[u64],
    period: u64,
) -> Vec<u64> {
    let after_last_edge: Vec<u64> = starts.windows(2).map(|w| w[1] - period / 2).collect();
    let Some(mut taken) = takes(vcd) else {
        return after_last_edge;
    };
    let mut waiting = std::collections::VecDeque::new();
    let mut out = Vec::with_capacity(after_last_edge.len());
    for (i, (input, a)) in inputs
        .iter()
        .zip(actual.chunks_exact(frame::WORDS))
        .enumerate()
    {
        // A reset throws away what was taken and not yet shown.
        if input.reset {
            waiting.clear();
            taken.retain(|&t| t >= starts[i + 1]);
        }
        while taken.first().is_some_and(|&t| t < starts[i + 1]) {
            waiting.push_back(taken.remove(0));
        }
        let shown = (a[0] & 1 != 0).then(|| waiting.pop_front()).flatten();
        out.push(shown.map_or(after_last_edge[i], |t| t - period / 2));
    }
    out
}

/// The rising edges at which a handshake design handed a result over (`out_valid_o` and
/// `out_ready_i` high just before), in order; `None` for a design without `out_ready_i`.
fn takes(vcd: &str) -> Option<Vec<u64>> {
    let (header, body) = vcd.split_once("$enddefinitions")?;
    // The codes of TOP's own clk_i, out_valid_o and out_ready_i.
    let mut code = [None::<&str>; 3];
    let mut depth = 0;
    let mut in_top = false;
    let mut toks = header.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            "$scope" => {
                depth += 1;
                let name = toks.nth(1);
                if depth == 1 {
                    in_top = name == Some("TOP");
                }
            }
            "$upscope" => depth -= 1,
            "$var" if depth == 1 && in_top => {
                let (c, name) = (toks.nth(2), toks.next());
                let k = ["clk_i", "out_valid_o", "out_ready_i"]
                    .iter()
                    .position(|n| Some(*n) == name);
                if let Some(k) = k {
                    code[k] = c;
                }
            }
            _ => {}
        }
    }
    let [Some(clk), Some(valid), Some(ready)] = code else {
        return None;
    };
    // Values now [clk, valid, ready], and as they were before the current time.
    let mut now = [false; 3];
    let mut before = now;
    let mut out = Vec::new();
    let mut time = 0;
    for line in body.lines().map(str::trim) {
        if let Some(t) = line.strip_prefix('#') {
            before = now;
            time = t.parse().ok()?;
            continue;
        }
        let (Some(v), Some(c)) = (line.get(..1), line.get(1..)) else {
            continue;
        };
        let Some(k) = [clk, valid, ready].iter().position(|x| *x == c) else {
            continue;
        };
        let high = v == "1";
        if k == 0 && high && !before[0] && before[1] && before[2] {
            out.push(time);
        }
        now[k] = high;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "$timescale 1ps $end\n$scope module TOP $end\n\
        $var wire 1 ! clk_i $end\n$var wire 1 \" out_valid_o $end\n\
        $var wire 1 # out_ready_i $end\n$scope module dut $end\n\
        $var wire 1 ! clk_i $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n";

    /// Taken at the edges where valid and ready were high before them: at 15 (both high from
    /// 10) and at 35; not at 25 (ready low before it), nor at 45 (valid rose with the edge).
    #[test]
    fn a_result_is_taken_where_valid_and_ready_were_high_before_the_edge() {
        let body = "#10\n0!\n1\"\n1#\n#15\n1!\n#20\n0!\n0#\n#25\n1!\n1#\n#30\n0!\n#35\n1!\n\
                    0\"\n#40\n0!\n#45\n1!\n1\"\n";
        assert_eq!(takes(&format!("{HEADER}{body}")), Some(vec![15, 35]));
        assert_eq!(
            takes("$scope module TOP $end\n$upscope $end\n$enddefinitions $end\n"),
            None
        );
    }

    /// Results shown one per stream cycle are read at the edges that took them, in order; a
    /// design without a handshake shows them after each cycle's edge.
    #[test]
    fn each_result_shown_is_read_where_it_was_taken() {
        // Stream cycle 0 spans design cycles from 10 to 30, cycle 1 from 30 to 40; two results
        // taken in cycle 0 (edges 15 and 25), shown in cycles 0 and 1.
        let body = "#10\n0!\n1\"\n1#\n#15\n1!\n#20\n0!\n#25\n1!\n#30\n0!\n0\"\n#35\n1!\n";
        let shown = |v: bool| {
            let mut f = vec![0u32; frame::WORDS];
            f[0] = v as u32;
            f
        };
        let actual = [shown(true), shown(true)].concat();
        let inputs = [PipeIn::default(); 2];
        let vcd = format!("{HEADER}{body}");
        assert_eq!(
            read_times(&vcd, &inputs, &actual, &[10, 30, 40], 10),
            [10, 20]
        );
        let plain = vcd.replace("out_ready_i", "other");
        assert_eq!(
            read_times(&plain, &inputs, &actual, &[10, 30, 40], 10),
            [25, 35]
        );
    }
}

//! Every output of a `--dut` run speaks of the team's design, not of the kit (issue 51): `bench`
//! prints the design's build and holds it to none of the kit's targets; a design without tag
//! ports gets no tag in its report, page or save file; `replay --dut` takes its stream's
//! families from the manifest when `--filter` is left out, as docs/dut.md says.

use crate::common;

use common::cosim;
use common::outside::{one_line_error, Outside, FORMS};

#[test]
fn bench_of_a_design_prints_its_build_and_no_kit_target() {
    let d = Outside::new("bench words");
    let m = d.manifest("dut.toml", "", FORMS);
    assert_eq!(d.build(&m, "build").0, 0);
    let (code, out, err) = cosim(&[
        "bench",
        "--dut",
        &d.path("build"),
        "--count",
        "5000",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let build = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("design build: "))
        .unwrap_or_else(|| panic!("no design build line: {out}"));
    assert!(build.contains("top `ptxfma_alt_top`"), "{build}");
    assert!(build.contains(&d.path("build/dut.json")), "{build}");
    assert!(build.contains("libptxfma_dut.so"), "{build}");
    assert!(build.contains("Verilator"), "{build}");
    // Not the kit's build, and none of the kit's targets.
    for kit in [
        "ptxfma_sim_top",
        "ptxfma_top",
        "RTL builds",
        "MET",
        "MISSED",
        "target >=",
    ] {
        assert!(!out.contains(kit), "`{kit}` in:\n{out}");
    }
}

/// The first line of `out` that starts with `prefix` (after indentation), without it.
fn line<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{out}"))
}

#[test]
fn a_design_without_tags_is_told_of_without_a_tag() {
    let d = Outside::new("inorder words");
    let m = d.wrapper_manifest(
        "fault.toml",
        "alt_inorder.sv",
        "defines = [\"FAULT_ALT_STICKY_RP\"]",
        "[contract]\ntag_width = 0\n[forms]\nfamilies = [\"f32\"]\n",
    );
    assert_eq!(d.build(&m, "fault").0, 0);
    let page = d.path("run.html");
    let (code, out, err) = d.check("fault", "1", &["--html", &page]);
    assert_eq!(code, 1, "{out}{err}");
    let report: String = out
        .lines()
        .skip_while(|l| !l.contains("DIVERGENCE (ports)"))
        .take_while(|l| !l.trim_start().starts_with("reproduce"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(line(&out, "instruction ").contains("(ctrl 0x"), "{report}");
    assert!(!report.contains("tag"), "{report}");
    let html = std::fs::read_to_string(&page).unwrap();
    let card = &html[html.find("fma.rp").expect("the divergence on the page")..];
    let card = &card[..card.find("</table>").unwrap()];
    assert!(!card.contains("tag "), "{card}");
    // The save file labels no signal with a tag port the design does not have.
    let open = line(&out, "waveform");
    let save = if let Some(p) = open.strip_prefix("gtkwave ") {
        p.to_string()
    } else {
        let vcd = out
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("waveform"))
            .nth(1)
            .and_then(|l| l.trim().split_once(": "))
            .map(|(p, _)| p.to_string())
            .unwrap_or_else(|| panic!("no waveform in:\n{out}"));
        vcd.replace(".vcd", ".gtkw")
    };
    let text = std::fs::read_to_string(&save).unwrap();
    assert!(
        !text.contains("in_tag_i") && !text.contains("out_tag_o"),
        "{text}"
    );
    assert!(!text.contains("model tag"), "{text}");
    assert!(text.contains("result in issue order"), "{text}");
    // The report's waveform line names the design, and no tag.
    let waveform: String = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("waveform"))
        .take(2)
        .collect();
    assert!(
        waveform.contains("design `alt_inorder` (--dut "),
        "{waveform}"
    );
    assert!(
        !waveform.contains("tag the design") && !waveform.contains("RTL under"),
        "{waveform}"
    );
}

/// `rtl/alt/` without tag ports that retires one result too many: after 40 idle cycles in a row,
/// which only the drain after the stream has, when nothing is in flight.
const EXTRA: &str = "module alt_extra (
  input  logic        clk_i, rst_ni, in_valid_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i, in_b_i, in_c_i,
  output logic        out_valid_o,
  output logic [63:0] out_d_o
);
  logic        v;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] unused_tag;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]  idle_q;
  ptxfma_alt_top u_alt (.clk_i, .rst_ni, .in_valid_i, .in_tag_i(16'd0), .in_ctrl_i, .in_a_i,
                        .in_b_i, .in_c_i, .out_valid_o(v), .out_tag_o(unused_tag), .out_d_o);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)                  idle_q <= '0;
    else if (in_valid_i)          idle_q <= '0;
    else if (idle_q != 6'd63)     idle_q <= idle_q + 6'd1;
  end
  assign out_valid_o = v || idle_q == 6'd40;
endmodule
";

#[test]
fn a_result_with_nothing_in_flight_of_a_design_without_tags_names_out_valid_o() {
    let d = Outside::new("inorder extra");
    std::fs::write(d.0.join("src/alt_extra.sv"), EXTRA).unwrap();
    let m = d.manifest(
        "extra.toml",
        "",
        "[contract]\ntag_width = 0\n[forms]\nfamilies = [\"f32\"]\n",
    );
    let text = std::fs::read_to_string(&m).unwrap().replace(
        "top = \"ptxfma_alt_top\"\nsources = [",
        "top = \"alt_extra\"\nsources = [\"src/alt_extra.sv\", ",
    );
    std::fs::write(&m, text).unwrap();
    let (code, out, err) = d.build(&m, "extra");
    assert_eq!(code, 0, "{out}{err}");
    let json = d.path("run.json");
    let (code, out, err) = cosim(&[
        "run",
        "--progress",
        "off",
        "--dut",
        &d.path("extra"),
        "--count",
        "2000",
        "--jobs",
        "1",
        "--json",
        &json,
        "--waves-dir",
        &d.path("waves"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        line(&out, "what ").contains("a result retired with no operation in flight (out_valid_o)"),
        "{out}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let first = &r["divergences"][0];
    assert_eq!(first["field"], "out_valid_o", "{first}");
    assert!(
        first["signature"]
            .as_str()
            .unwrap()
            .starts_with("ports out_valid_o"),
        "{first}"
    );
    assert_eq!(first["tag"], serde_json::Value::Null, "{first}");
}

#[test]
fn replay_of_a_design_takes_its_families_from_the_manifest() {
    let d = Outside::new("replay default");
    let m = d.manifest("fault.toml", "defines = [\"FAULT_ALT_STICKY_RP\"]", FORMS);
    assert_eq!(d.build(&m, "fault").0, 0);
    let (code, out, err) = d.check("fault", "1", &["--max-divergences", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    // The report's stream replay line, without its --filter: the manifest's f32.
    let replay = out
        .lines()
        .map(str::trim)
        .find(|l| l.contains(" replay ") && l.contains("--seed "))
        .unwrap_or_else(|| panic!("no stream replay line: {out}"));
    let words: Vec<&str> = replay.split_whitespace().collect();
    let arg = |name: &str| {
        let at = words.iter().position(|w| *w == name).unwrap();
        words[at + 1].trim_matches('\'').to_string()
    };
    assert_eq!(arg("--filter"), "f32", "{replay}");
    let dut = d.path("fault");
    let (seed, count, index) = (arg("--seed"), arg("--count"), arg("--index"));
    let waves = d.path("waves");
    let args = [
        "replay",
        "--dut",
        &dut,
        "--seed",
        &seed,
        "--count",
        &count,
        "--index",
        &index,
        "--waves-dir",
        &waves,
    ];
    let (code, again, err) = cosim(&args);
    assert_eq!(code, 1, "{again}{err}");
    assert!(again.contains("wrong result (out_d_o)"), "{again}");
    assert_eq!(
        line(&again, "instruction "),
        line(&out, "instruction "),
        "{again}"
    );
    // The kit's RTL has no manifest: a stream needs its --filter, said in one line.
    let e = one_line_error(cosim(&[
        "replay", "--seed", &seed, "--count", &count, "--index", &index,
    ]));
    assert!(e.contains("--filter"), "{e}");
}

//! Every command on a `--dut` design: `run` compares its ports without being told, the printed
//! `replay` lines reproduce a ports divergence in one step, and `bench` draws only the forms the
//! manifest declares.

use crate::common;

use common::cosim;
use common::outside::{one_line_error, Outside, FORMS};

/// Runs a printed command line through `sh -c`, exactly as printed, in `dir`.
fn run_line(dir: &str, line: &str) -> (i32, String, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The value after `label` on the report line that holds it, e.g. `expected` in
/// `result d    expected 0x55ea0136 (...), retired 0x55ea0135 (...)`.
fn word_after<'a>(report: &'a str, label: &str) -> &'a str {
    let at = report
        .find(label)
        .unwrap_or_else(|| panic!("no {label}: {report}"));
    report[at + label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(',')
}

#[test]
fn a_ports_divergence_of_a_dut_is_replayed_in_one_step() {
    // A space in every path: the design's directory, its builds, the waveforms, the results;
    // every command below is run as printed, from the design's directory.
    let d = Outside::new("replay dir");
    let here = d.path("");
    let fault = d.manifest("fault.toml", "defines = [\"FAULT_ALT_STICKY_RP\"]", FORMS);
    let clean = d.manifest("dut.toml", "", FORMS);
    let (code, built, err) = d.build(&fault, "dut fault");
    assert_eq!(code, 0, "{built}{err}");
    assert_eq!(d.build(&clean, "dut build").0, 0);
    let dut = d.path("dut fault");

    // `dut build`'s check finds the fault.
    let check = built
        .lines()
        .find_map(|l| l.strip_prefix("check it: "))
        .unwrap_or_else(|| panic!("no check line: {built}"));
    assert!(check.contains(&format!("--dut '{dut}'")), "{check}");
    let (code, cout, cerr) = run_line(&here, check);
    assert_eq!(code, 1, "{check}\n{cout}{cerr}");
    assert!(cout.contains("DIVERGENCE (ports)"), "{cout}");

    // No --compare: a design with only result ports is checked by them.
    let run = format!(
        "'{}' run --progress off --dut '{dut}' --count 20000 --jobs 1 --waves-dir 'my waves' \
         --json 'the results.json'",
        env!("CARGO_BIN_EXE_fma-cosim")
    );
    let (code, out, err) = run_line(&here, &run);
    assert_eq!(code, 1, "{out}{err}");
    let expected = word_after(&out, "result d    expected ");
    let retired = word_after(&out, ", retired ");
    assert_ne!(expected, retired);
    let issued = word_after(&out, "cycles      issued ").trim_end_matches(',');
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| l.trim() != "reproduce")
        .skip(1)
        .map(str::trim)
        .take_while(|l| !l.starts_with("waveform"))
        .collect();
    // The JSON's reproduce lines are the printed ones.
    let json: serde_json::Value = common::read_json(&d.0.join("the results.json"));
    assert_eq!(
        json["divergences"][0]["reproduce"],
        serde_json::json!(lines)
    );
    // The operation alone after reset, then with the cycles before it, both `replay`; the
    // chunk run again; the model's result.
    assert_eq!(lines.len(), 4, "{out}");
    for (k, line) in lines[..3].iter().enumerate() {
        assert!(
            line.contains(if k < 2 { " replay " } else { " run " })
                && line.contains("--compare ports")
                && line.contains(&format!("--dut '{dut}'"))
                && line.contains("--waves-dir 'my waves'"),
            "{line}"
        );
        if k < 2 {
            assert!(line.contains(&format!("--index {issued} ")), "{line}");
        }
        let (code, rout, rerr) = run_line(&here, line);
        assert_eq!(code, 1, "{line}\n{rout}{rerr}");
        assert_eq!(
            word_after(&rout, "result d    expected "),
            expected,
            "{rout}"
        );
        assert_eq!(word_after(&rout, ", retired "), retired, "{rout}");
        // The cycles are the stream's, as in the run.
        assert!(
            rout.contains(&format!("issued {issued}, retired ")),
            "{rout}"
        );
        assert!(rout.contains("waveform"), "{rout}");
    }
    let model = std::path::Path::new(env!("CARGO_BIN_EXE_fma-cosim")).with_file_name("fma-model");
    assert!(
        model.is_file(),
        "{} is not built (make test builds it)",
        model.display()
    );
    let (code, model, merr) = run_line(&here, lines[3]);
    assert_eq!((code, model.trim()), (0, expected), "{}\n{merr}", lines[3]);
    // The same replay on the clean build: no divergence, exit 0.
    let clean_line = lines[0].replace("/dut fault'", "/dut build'");
    let (code, rout, rerr) = run_line(&here, &clean_line);
    assert_eq!(code, 0, "{clean_line}\n{rout}{rerr}");
    assert!(rout.starts_with("no divergence"), "{rout}");
    let waves = d.path("my waves");

    // One operation from the command line, by its ports.
    let (code, rout, rerr) = cosim(&[
        "replay",
        "--dut",
        &dut,
        "--ctrl",
        "fma.rp.f32",
        "--a",
        "0x4a1a6515",
        "--b",
        "0x4b420001",
        "--c",
        "0x7fff",
        "--waves-dir",
        &waves,
    ]);
    assert_eq!(code, 1, "{rout}{rerr}");
    assert!(rout.contains("DIVERGENCE (ports)"), "{rout}");
    // --latency-bound belongs to the ports comparison.
    one_line_error(cosim(&[
        "replay",
        "--ctrl",
        "fma.rn.f32",
        "--a",
        "1",
        "--b",
        "1",
        "--c",
        "1",
        "--latency-bound",
        "9",
    ]));
}

#[test]
fn bench_draws_only_the_forms_of_the_manifest() {
    let d = Outside::new("bench");
    // The injected fault is in `.rp`, which this manifest leaves out: a stream that honours
    // the forms never meets it.
    let forms = "[contract]\nlatency_bound = 16\n\n[forms]\nfamilies = [\"f32\"]\n\
                 rounding = [\"rn\", \"rz\", \"rm\"]\nftz = false\n";
    let m = d.manifest("fault.toml", "defines = [\"FAULT_ALT_STICKY_RP\"]", forms);
    assert_eq!(d.build(&m, "fault").0, 0);
    let (code, out, err) = cosim(&[
        "bench",
        "--dut",
        &d.path("fault"),
        "--count",
        "20000",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("diverged"), "{out}");
    assert!(out.contains("design `ptxfma_alt_top`"), "{out}");
    assert!(out.contains("families f32,"), "{out}");
    assert!(out.contains("rounding rn,rz,rm, no .ftz, .sat"), "{out}");
    // A family the design does not implement is refused.
    let line = one_line_error(cosim(&[
        "bench",
        "--dut",
        &d.path("fault"),
        "--filter",
        "f64",
        "--count",
        "100",
    ]));
    assert!(line.contains("implements only f32"), "{line}");
}

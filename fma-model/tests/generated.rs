//! The generated regions of the RTL and DPI packages are what `fma-model gen-rtl-pkg` writes from
//! the model's declarations today: a field, width or code changed in the model and not
//! regenerated fails here, naming the file.

use std::path::Path;

use fma_model::rtl_pkg;

#[test]
fn committed_packages_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stale = Vec::new();
    for (path, name) in rtl_pkg::files(&root) {
        let text = std::fs::read_to_string(&path).unwrap();
        let want = rtl_pkg::splice(name, &text).unwrap();
        if want != text {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from what `{}` writes; run `cargo run --release -p fma-model -- \
         gen-rtl-pkg` and commit the result",
        rtl_pkg::COMMAND
    );
}

/// The generator reaches every register bank and control-word field: each named in the model
/// appears in the package (a region left empty by a broken marker would pass the test above).
#[test]
fn every_register_and_control_field_is_declared() {
    use ptxfma_model::ctrl::CTRL_FIELDS;
    use ptxfma_model::regs::{Out, Reg, S1, S2, S3};
    let pkg = rtl_pkg::regions()
        .into_iter()
        .filter(|r| r.file == "rtl/ptxfma_pkg.sv")
        .map(|r| r.text)
        .collect::<String>();
    for f in CTRL_FIELDS {
        assert!(pkg.contains(&format!(" {};", f.name)), "ctrl_t.{}", f.name);
    }
    for (reg, fields) in [
        ("s1_t", S1::FIELDS),
        ("s2_t", S2::FIELDS),
        ("s3_t", S3::FIELDS),
        ("out_t", Out::FIELDS),
    ] {
        assert!(pkg.contains(&format!("}} {reg};")), "{reg}");
        for (f, _) in fields {
            assert!(pkg.contains(&format!(" {f};")), "{reg}.{f}");
        }
    }
    assert!(pkg.contains("localparam int unsigned AlignW = 164;"));
}

/// A stale region is found: the check compares the text, not just the markers.
#[test]
fn a_hand_edit_inside_a_region_is_caught() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("rtl/ptxfma_pkg.sv")).unwrap();
    let edited = text.replacen("AlignW = 164;", "AlignW = 163;", 1);
    assert_ne!(edited, text);
    assert_eq!(rtl_pkg::splice("rtl/ptxfma_pkg.sv", &edited).unwrap(), text);
    let no_marker = text.replacen("// END GENERATED: registers", "// END: registers", 1);
    assert!(rtl_pkg::splice("rtl/ptxfma_pkg.sv", &no_marker).is_err());
}

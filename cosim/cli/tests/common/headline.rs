//! The coverage headline as a reader takes it apart, and which bins a run of `f32` alone
//! samples, worked out from the bins' names apart from the co-simulator's own rule.

use ptxfma_model::stimulus::Family;

/// The family a bin of the coverage file belongs to for a run of `f32` alone, worked out here
/// from the names (the words by the PTX decoder), apart from the co-simulator's own rule.
pub fn f32_samples(group: &str, bin: &str) -> bool {
    match group {
        "instr.words" => {
            // sm_1x `mad.f32` (no rounding modifier) only decodes for sm_1x.
            let c = ptxfma_ptx::decode(bin, ptxfma_ptx::Target::SM_100)
                .or_else(|_| ptxfma_ptx::decode(bin, ptxfma_ptx::Target::parse("sm_13").unwrap()))
                .unwrap_or_else(|e| panic!("{bin}: {e:?}"));
            Family::of(&c) == Family::F32
        }
        "instr.modes" => bin.starts_with("f32 ."),
        "traffic.families" => bin == "f32 -> f32",
        "lza.position" => bin.starts_with("lane0"),
        _ => group.starts_with("f32."),
    }
}

/// The numbers of a headline `H of R bins the run's families and forms reach hit (P%), N
/// operations; O bins outside them; U bins declared unreachable`: (H, R, P, O, U).
pub fn headline_numbers(text: &str) -> (u64, u64, String, u64, u64) {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("functional coverage: "))
        .unwrap_or_else(|| panic!("no headline in:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |k: usize| {
        words[k]
            .trim_end_matches([',', ';'])
            .parse::<u64>()
            .unwrap()
    };
    let at = |w: &str| words.iter().position(|x| *x == w).unwrap();
    assert_eq!(
        &words[3..10],
        ["bins", "the", "run's", "families", "and", "forms", "reach"],
        "{line}"
    );
    let pct = words[11].trim_matches(['(', ')', ',', '%']).to_string();
    (
        num(0),
        num(2),
        pct,
        num(at("outside") - 2),
        num(at("declared") - 2),
    )
}

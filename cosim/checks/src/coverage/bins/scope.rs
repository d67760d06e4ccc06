//! Which families sample a bin: what makes a run of some families (`--filter`, or a `dut
//! build` design's `forms.families`) count only the bins it can reach. Read from the names the
//! table gives its groups and bins, so a coverage file of another build is judged the same way;
//! a group this build does not name is sampled by every family (never left out).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::reach::word_name;
use ptxfma_model::stimulus::Family;

/// The reason given for a bin that no family of the run samples.
pub const OUTSIDE_FAMILIES: &str =
    "outside the run's families (--filter, or the design's forms.families)";

/// Whether an operation of some family of `run` can hit bin `bin` of group `group`: the groups
/// named `<family>.…` belong to that family; `instr.words` and `instr.modes` bins to the
/// family of their word or mode; `traffic.families` `p -> c` needs both; `lza.position` is
/// sampled on lane 0 by every float family and on lane 1 by the two-lane ones; and
/// `half.modifiers` by both half families.
pub fn sampled_by(group: &str, bin: &str, run: &[Family]) -> bool {
    let has = |f: Family| run.contains(&f);
    match group {
        "instr.words" => word_families().get(bin).is_none_or(|&f| has(f)),
        "instr.modes" => family_named(bin.split(' ').next()).is_none_or(has),
        "traffic.families" => match bin.split_once(" -> ") {
            Some((p, c)) => {
                family_named(Some(p)).is_none_or(has) && family_named(Some(c)).is_none_or(has)
            }
            None => true,
        },
        "lza.position" if bin.starts_with("lane1") => has(Family::F32x2) || has(Family::Half2),
        "lza.position" => run.iter().any(|&f| f != Family::Vmad),
        "half.modifiers" => has(Family::Half) || has(Family::Half2),
        _ => family_named(group.split('.').next()).is_none_or(has),
    }
}

fn family_named(name: Option<&str>) -> Option<Family> {
    name.and_then(Family::parse)
}

/// Every legal float word's `instr.words` name, with its family.
fn word_families() -> &'static HashMap<String, Family> {
    static W: OnceLock<HashMap<String, Family>> = OnceLock::new();
    W.get_or_init(|| {
        Family::ALL
            .iter()
            .flat_map(|&f| f.ctrls().into_iter().map(move |c| (word_name(&c), f)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bin_of_the_table_is_sampled_by_some_family_and_not_by_all_of_them_alone() {
        let m = super::super::model();
        for g in &m.layout.groups {
            for b in &m.layout.bins[g.start..g.start + g.len] {
                assert!(
                    sampled_by(&g.name, &b.name, &Family::ALL),
                    "{}: {} is sampled by no family",
                    g.name,
                    b.name
                );
            }
        }
        // Every group of the table but the one of two families' traffic is read by its name:
        // a single family reaches some bin of each group it owns and none of the others'.
        let f64_only = [Family::F64];
        let owned: Vec<&str> = m
            .layout
            .groups
            .iter()
            .filter(|g| {
                m.layout.bins[g.start..g.start + g.len]
                    .iter()
                    .any(|b| sampled_by(&g.name, &b.name, &f64_only))
            })
            .map(|g| g.name.as_str())
            .collect();
        assert!(owned.contains(&"f64.rounding") && owned.contains(&"instr.words"));
        assert!(!owned
            .iter()
            .any(|g| g.starts_with("f32.") || g.starts_with("vmad.")));
        assert!(!owned.contains(&"half.modifiers") && !owned.contains(&"f32x2.lanes"));
        assert!(sampled_by("instr.words", "fma.rn.f64", &f64_only));
        assert!(!sampled_by("instr.words", "fma.rn.f32", &f64_only));
        assert!(sampled_by("traffic.families", "f64 -> f64", &f64_only));
        assert!(!sampled_by("traffic.families", "f64 -> f32", &f64_only));
        assert!(!sampled_by(
            "lza.position",
            "lane1: leading one at bit 63",
            &f64_only
        ));
    }
}

//! PTX compilation targets (`.target sm_NN`): every "requires sm_NN or higher" rule reads one.

use super::error::{bail, DecodeError};
use std::fmt;

/// The architecture-specific (`a`) or family (`f`) variant of a target. It never changes what
/// this datapath accepts (every rule here is "sm_NN or higher"), but it is kept so that a target
/// prints back the way it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetVariant {
    Plain,
    /// `sm_90a`, `sm_100a`, ...
    Arch,
    /// `sm_100f`, ...
    Family,
}

/// A PTX compilation target (`.target sm_NN`). Ordering by [`Target::sm`] decides every
/// "requires sm_NN or higher" rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    sm: u16,
    variant: TargetVariant,
}

/// The `sm_NN` numbers PTX defines. A number outside the list is almost certainly a typo, and
/// silently treating `sm_14` as "some sm_1x" would hide it.
const KNOWN_SM: &[u16] = &[
    10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89,
    90, 100, 101, 103, 110, 120, 121,
];

impl Default for Target {
    /// The default target, sm_100: the lowest one on which every form here exists.
    fn default() -> Self {
        Target::SM_100
    }
}

impl Target {
    /// `sm_100`, the default target.
    pub const SM_100: Target = Target {
        sm: 100,
        variant: TargetVariant::Plain,
    };

    /// Parses `sm_NN`, `sm_NNa` or `sm_NNf` (lower case, as PTX writes them).
    pub fn parse(s: &str) -> Result<Target, DecodeError> {
        let Some(rest) = s.strip_prefix("sm_") else {
            bail!("unknown target `{s}` (expected sm_NN, e.g. sm_13, sm_90a, sm_100)");
        };
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], TargetVariant::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], TargetVariant::Family),
            _ => (rest, TargetVariant::Plain),
        };
        let numeric = !digits.is_empty()
            && digits.len() <= 3
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        if !numeric {
            bail!("unknown target `{s}` (expected sm_NN, e.g. sm_13, sm_90a, sm_100)");
        }
        let sm: u16 = digits.parse().expect("at most three ASCII digits");
        if !KNOWN_SM.contains(&sm) {
            bail!("unknown target `{s}`: sm_{sm} is not a PTX target");
        }
        match variant {
            TargetVariant::Arch if sm < 90 => {
                bail!("unknown target `{s}`: `a` variants exist only for sm_90 and sm_100+")
            }
            TargetVariant::Family if sm < 100 => {
                bail!("unknown target `{s}`: `f` variants exist only for sm_100+")
            }
            _ => {}
        }
        Ok(Target { sm, variant })
    }

    /// The architecture number: 13 for `sm_13`, 100 for `sm_100a`.
    pub fn sm(&self) -> u32 {
        u32::from(self.sm)
    }

    /// sm_10..sm_13: single precision flushes subnormals and `mad.f32` is the truncating form.
    pub fn is_sm1x(&self) -> bool {
        self.sm < 20
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            TargetVariant::Plain => "",
            TargetVariant::Arch => "a",
            TargetVariant::Family => "f",
        };
        write!(f, "sm_{}{}", self.sm, suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::t;

    // ---- targets ----

    #[test]
    fn targets_parse_and_print() {
        for s in [
            "sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_30", "sm_35", "sm_50",
            "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100",
            "sm_100a", "sm_100f", "sm_101", "sm_103a", "sm_120", "sm_120f", "sm_121a",
        ] {
            assert_eq!(t(s).to_string(), s);
        }
        assert_eq!(t("sm_13").sm(), 13);
        assert_eq!(t("sm_90a").sm(), 90);
        assert!(t("sm_13").is_sm1x());
        assert!(!t("sm_20").is_sm1x());
        assert_eq!(Target::default(), t("sm_100"));
    }

    #[test]
    fn bad_targets_are_rejected() {
        for s in [
            "",
            "sm",
            "sm_",
            "sm_14",
            "sm_013",
            "sm_1000",
            "SM_90",
            "compute_90",
            "sm_80a",
            "sm_90f",
            "sm_90x",
            "sm_a",
            "sm_-1",
            " sm_90",
        ] {
            let e = Target::parse(s).expect_err(s);
            assert!(e.message().contains("unknown target"), "{s}: {e}");
        }
        assert!(Target::parse("sm_80a")
            .unwrap_err()
            .message()
            .contains("sm_90 and sm_100+"));
        assert!(Target::parse("sm_14")
            .unwrap_err()
            .message()
            .contains("not a PTX target"));
    }
}

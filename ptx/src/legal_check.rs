//! `is_legal` (in `ctrl::legal`) restates the decoder's rules as field rules: checked here
//! against the decoder on every control word.

#[cfg(test)]
mod tests {
    use crate::{decode, decode_vmad, Target, VmadSrc};
    use ptxfma_model::ctrl::legal::is_legal;
    use ptxfma_model::ctrl::{Ctrl, Sel, CTRL_BITS};
    use std::collections::HashSet;

    /// Every control word the decoder produces, from every mnemonic its grammar accepts up to
    /// modifier order (which it ignores) and on one target of each rule boundary (sm_10, sm_13,
    /// sm_20, sm_100), plus every half-precision modifier set and every vmad operand decoration.
    fn decoder_image() -> HashSet<u32> {
        let targets = ["sm_10", "sm_13", "sm_20", "sm_100"].map(|t| Target::parse(t).unwrap());
        let mut image = HashSet::new();
        let mut add = |r: Result<Ctrl, _>| {
            if let Ok(c) = r {
                image.insert(c.encode());
            }
        };
        for op in ["fma", "mad", "add", "sub", "mul"] {
            for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
                for ftz in ["", ".ftz"] {
                    for sat in ["", ".sat"] {
                        for ty in [".f32", ".f64", ".f32x2", ".f32.f16", ".f32.bf16"] {
                            for t in targets {
                                add(decode(&format!("{op}{rnd}{ftz}{sat}{ty}"), t));
                            }
                        }
                    }
                }
            }
        }
        for op in ["fma", "mad", "add", "sub", "mul"] {
            for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
                for set in 0..16u32 {
                    let mods: String = [".ftz", ".sat", ".relu", ".oob"]
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| set >> i & 1 == 1)
                        .map(|(_, m)| *m)
                        .collect();
                    for ty in [".f16", ".bf16", ".f16x2", ".bf16x2"] {
                        add(decode(&format!("{op}{rnd}{mods}{ty}"), targets[3]));
                    }
                }
            }
        }
        let sels = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
        let ty = |s: bool| if s { ".s32" } else { ".u32" };
        for bits in 0..8u32 {
            let tys = format!(
                "{}{}{}",
                ty(bits & 1 != 0),
                ty(bits & 2 != 0),
                ty(bits & 4 != 0)
            );
            for po in ["", ".po"] {
                for sat in ["", ".sat"] {
                    for scale in ["", ".shr7", ".shr15"] {
                        let m = format!("vmad{tys}{po}{sat}{scale}");
                        for negs in 0..8u32 {
                            for asel in sels {
                                for bsel in sels {
                                    let src = VmadSrc {
                                        a_neg: negs & 1 != 0,
                                        b_neg: negs & 2 != 0,
                                        c_neg: negs & 4 != 0,
                                        asel,
                                        bsel,
                                    };
                                    add(decode_vmad(&m, targets[3], src));
                                }
                            }
                        }
                    }
                }
            }
        }
        image
    }

    /// `is_legal` restates the decoder's rules as field rules; the two must agree on every one of
    /// the 2^CTRL_BITS control words: legal exactly when some PTX spelling decodes to it.
    #[test]
    fn is_legal_agrees_with_the_decoder_on_every_word() {
        let image = decoder_image();
        for &w in &image {
            assert_eq!(
                Ctrl::decode(w).encode(),
                w,
                "decoder made a non-canonical {w:#08x}"
            );
        }
        for w in 0..(1u32 << CTRL_BITS) {
            let c = Ctrl::decode(w);
            let canonical = c.encode() == w;
            assert_eq!(
                canonical && is_legal(&c),
                image.contains(&w),
                "{w:#08x} {c:?}: is_legal and the decoder disagree"
            );
        }
    }
}

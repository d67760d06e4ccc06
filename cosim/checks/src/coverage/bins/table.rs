//! The table itself: every group and bin in report order, with the reason of each bin no legal
//! operation can reach.

use super::float::float_groups;
use super::reach::*;
use super::*;

pub(super) fn build() -> Model {
    let mut b = Build {
        layout: Layout::default(),
    };
    let mut ix = Ix::default();
    let reach: Vec<Reach> = Family::ALL.iter().map(|&f| Reach::new(f)).collect();

    // ---- instructions ------------------------------------------------------------------
    let forms = ptxfma_cosim_engine::stim::forms();
    let excluded = |c: &Ctrl| {
        forms
            .filter(|f| !f.allows(c))
            .map(|_| NOT_IN_FORMS.to_string())
    };
    let words: Vec<Ctrl> = Family::ALL.iter().flat_map(|f| f.ctrls()).collect();
    let (vmad_words, float_words): (Vec<Ctrl>, Vec<Ctrl>) =
        words.into_iter().partition(|c| c.kind == Kind::Vmad);
    ix.words = b.group(
        "instr.words",
        "Every legal control word of the float families, by its PTX spelling: every legal \
         modifier combination.",
        float_words
            .iter()
            .map(|c| bin(word_name(c), excluded(c)))
            .collect(),
    );
    ix.vm_words = b.group(
        "vmad.words",
        "Every legal vmad control word: types, selectors, negations or .po, .sat, scale.",
        vmad_words
            .iter()
            .map(|c| bin(word_name(c), excluded(c)))
            .collect(),
    );
    assert_eq!(ix.vm_words, ix.words + float_words.len());
    let mut modes = Vec::new();
    for (fi, f) in Family::ALL.iter().enumerate() {
        let r = &reach[fi];
        for rnd in RNDS {
            for ftz in [false, true] {
                for sat in [false, true] {
                    let name = format!(
                        "{} .{}{}{}",
                        f.name(),
                        rnd_name(rnd),
                        if ftz { " .ftz" } else { "" },
                        if sat { " .sat" } else { "" }
                    );
                    let why = r
                        .rnd(rnd)
                        .or_else(|| {
                            r.need(
                                if ftz {
                                    "takes .ftz"
                                } else {
                                    "goes without .ftz"
                                },
                                |c| c.ftz == ftz,
                            )
                        })
                        .or_else(|| {
                            r.need(
                                if sat {
                                    "takes .sat"
                                } else {
                                    "goes without .sat"
                                },
                                |c| c.sat == sat,
                            )
                        })
                        .or_else(|| {
                            r.need("has this combination", |c| {
                                c.rnd == rnd && c.ftz == ftz && c.sat == sat
                            })
                        });
                    modes.push(bin(name, why));
                }
            }
        }
    }
    ix.modes = b.group(
        "instr.modes",
        "Family x rounding mode x .ftz x .sat (vmad has no rounding modifier: it is encoded \
         as .rn).",
        modes,
    );

    // ---- per float family --------------------------------------------------------------
    for f in Family::ALL.into_iter().filter(|&f| f != Family::Vmad) {
        ix.fam[f as usize] = float_groups(&mut b, f, &reach[f as usize]);
    }

    // ---- cross-family datapath, f32x2, sm_1x, mixed ---------------------------------------
    // A leading one at window bit 64 or below needs a word of a wide exponent range
    // (`wide_exponent`): lane 0 of any float family, lane 1 of f32x2 or half2.
    let mut bins = Vec::new();
    for (l, lane) in ["lane0", "lane1"].into_iter().enumerate() {
        let samples =
            |f: Family| f != Family::Vmad && (l == 0 || matches!(f, Family::F32x2 | Family::Half2));
        let wide = Family::ALL
            .iter()
            .zip(&reach)
            .any(|(&f, r)| samples(f) && r.any(wide_exponent));
        for (k, kn) in lzapos::NAMES.iter().enumerate() {
            let low = matches!(
                k,
                lzapos::SLICE0 | lzapos::BIT63 | lzapos::BIT64 | lzapos::CROSS64
            );
            let why = (low && !wide).then(|| {
                format!("no word of the run has an exponent range that gets there (binary16's never does): {NOT_IN_FORMS}")
            });
            bins.push(bin(format!("{lane}: {kn}"), why));
        }
    }
    ix.lza_pos = b.group(
        "lza.position",
        "Where the LZA indicator's leading one falls in each hardware lane's 166-bit window: \
         each of the three 64-bit slices the RTL computes it on, the bits on either side of \
         the slice boundaries, and a one-bit correction that crosses a boundary (lane 1 is \
         used by f32x2 only).",
        bins,
    );

    let lane_pairs = || {
        let mut bins = Vec::new();
        for l0 in 0..lane::N {
            for l1 in 0..lane::N {
                let why = match (l0, l1) {
                    (lane::SUBNORMAL, lane::FLUSHED) | (lane::FLUSHED, lane::SUBNORMAL) => Some(
                        "both lanes share .ftz: one cannot flush while the other keeps a \
                         subnormal"
                            .to_string(),
                    ),
                    _ => None,
                };
                bins.push(bin(
                    format!("lane0 {} x lane1 {}", lane::NAMES[l0], lane::NAMES[l1]),
                    why,
                ));
            }
        }
        bins
    };
    ix.x2_lanes = b.group(
        "f32x2.lanes",
        "The result class of lane 0 crossed with that of lane 1 (the lanes are independent, \
         S5).",
        lane_pairs(),
    );
    ix.h2_lanes = b.group(
        "half2.lanes",
        "The result class of lane 0 crossed with that of lane 1 in f16x2 and bf16x2 (the \
         lanes are independent).",
        lane_pairs(),
    );
    ix.half = b.group(
        "half.modifiers",
        "What the half-precision modifiers did, per lane: .relu (S11) on a negative result, \
         on -0, on a NaN, on a result it keeps; .oob (S12) on the OOB NaN in a, in b, beside \
         another NaN, and the OOB pattern in c, where it is an ordinary NaN; and the binary32 \
         step of fma.{rz,rm,rp}.bf16 (S13) per direction, where it changes the result and \
         where it does not.",
        half_modifier_bins(&reach),
    );

    ix.sm1x = b.group(
        "sm1x.paths",
        "The S7 paths of sm_1x mad.f32: c = +-0 (mul.rn then add.rn), the truncated product \
         against rounding, a product beyond the f32 range brought back by c, a product below \
         it kept.",
        sm1x::NAMES.iter().map(|s| bin(*s, None)).collect(),
    );

    let mut bins = Vec::new();
    for fmt in ["f16", "bf16"] {
        for slot in mixed::SLOTS {
            for cl in mixed::CLASSES {
                bins.push(bin(format!("{fmt} {slot} {cl}"), None));
            }
        }
    }
    ix.mixed = b.group(
        "mixed.inputs",
        "Mixed precision: subnormal, infinite and NaN f16/bf16 inputs per operation and \
         position (converted exactly, never flushed, S6).",
        bins,
    );

    // ---- vmad --------------------------------------------------------------------------
    let mut bins = Vec::new();
    for a_s in [false, true] {
        for b_s in [false, true] {
            for asel in SELS {
                for bsel in SELS {
                    bins.push(bin(
                        format!(
                            "a.{}{} x b.{}{}",
                            ty(a_s),
                            sel_name(asel),
                            ty(b_s),
                            sel_name(bsel)
                        ),
                        None,
                    ));
                }
            }
        }
    }
    ix.vm_types = b.group("vmad.types", "vmad atype x btype x asel x bsel.", bins);
    let mut bins = Vec::new();
    for a_s in [false, true] {
        for b_s in [false, true] {
            for form in VMAD_FORMS {
                bins.push(bin(format!("{} x {}: {form}", ty(a_s), ty(b_s)), None));
            }
        }
    }
    ix.vm_forms = b.group(
        "vmad.forms",
        "vmad source signedness x sign form (plain, negated product, negated c, .po).",
        bins,
    );
    ix.vm_signs = b.group(
        "vmad.values",
        "Signs of the selected values: a and b as extended, c as read (sign-extended, S8).",
        (0..8)
            .map(|m| {
                let s = |bit: usize| if m >> bit & 1 != 0 { "<0" } else { ">=0" };
                bin(format!("a{} b{} c{}", s(0), s(1), s(2)), None)
            })
            .collect(),
    );
    let mut bins = Vec::new();
    for signed in [false, true] {
        for sc in SCALES {
            for sat in [false, true] {
                bins.push(bin(
                    format!(
                        "{} {}{}",
                        if signed { "s32" } else { "u32" },
                        scale_name(sc),
                        if sat { " .sat" } else { "" }
                    ),
                    None,
                ));
            }
        }
    }
    ix.vm_scale_sat = b.group("vmad.scale", "vmad final type x scale x .sat.", bins);
    let mut bins = Vec::new();
    for signed in [false, true] {
        for sc in SCALES {
            for kn in ["clamped high", "clamped low", "in range"] {
                // An unsigned result is scaled with zeros shifted in (S8): never negative.
                let why = (!signed && sc != Scale::None && kn == "clamped low").then(|| {
                    "an unsigned result is scaled from its 64-bit window with zeros shifted \
                     in (S8), so it is never below zero"
                        .to_string()
                });
                bins.push(bin(
                    format!(
                        "{} {} .sat: {kn}",
                        if signed { "s32" } else { "u32" },
                        scale_name(sc)
                    ),
                    why,
                ));
            }
        }
    }
    ix.vm_clamp = b.group(
        "vmad.clamp",
        "vmad .sat actually clamping the 64-bit result high or low, per final type and scale.",
        bins,
    );

    let mut bins: Vec<BinDef> = vmbounds::AROUND_AT
        .iter()
        .map(|&(_, _, name)| bin(name, None))
        .collect();
    for k in 0..vmbounds::N - vmbounds::HIGH_BIT {
        bins.push(bin(
            format!(
                "u32 .sat: bit {} alone of bits 62:32 (clamped high)",
                vmbounds::HIGH_LSB as usize + k
            ),
            None,
        ));
    }
    ix.vm_bounds = b.group(
        "vmad.bounds",
        "vmad .sat: the 64-bit result at, one below and one above each clamp limit, and each \
         bit of the u32 high clamp's test (bits 62:32 not all zero) deciding it alone.",
        bins,
    );

    // ---- traffic -----------------------------------------------------------------------
    let mut bins = Vec::new();
    for p in Family::ALL {
        for c in Family::ALL {
            bins.push(bin(format!("{} -> {}", p.name(), c.name()), None));
        }
    }
    ix.traffic = b.group(
        "traffic.families",
        "Previous family x current family for valid operations in consecutive cycles.",
        bins,
    );

    // ---- float words' table --------------------------------------------------------------
    assert!(b.layout.bins.len() < NO_BIN as usize);
    let mut floats = Vec::new();
    let mut float_tab = vec![u16::MAX; 1 << 15];
    for (wi, c) in float_words.iter().enumerate() {
        let family = Family::of(c);
        let fi = family as usize;
        let word = c.encode();
        let mode = ix.modes
            + fi * 16
            + RNDS.iter().position(|&r| r == c.rnd).unwrap() * 4
            + (c.ftz as usize) * 2
            + c.sat as usize;
        let rf = ptxfma_model::parts::round::result_fmt(c);
        let nl = if matches!(family, Family::F32x2 | Family::Half2) {
            2
        } else {
            1
        };
        let mut info = FloatOp {
            word,
            ctrl: *c,
            family,
            bin_word: (ix.words + wi) as Bin,
            bin_mode: mode as Bin,
            slots: [[NO_BIN; 3]; 2],
            mixed: [NO_BIN; 2],
            p: rf.p as u8,
            emin: rf.emin as i16,
            emax: rf.emax as i16,
            width: rf.width as u8,
            flush: c.flush(),
            rnd: if c.kind == Kind::Sm1x || c.via_f32 {
                Rnd::Rn
            } else {
                c.rnd
            },
            lanes: nl as u8,
        };
        let re = real(c);
        for (lane, slots) in info.slots.iter_mut().enumerate().take(nl) {
            for (pos, slot) in slots.iter_mut().enumerate() {
                if re[pos] {
                    *slot = (ix.fam[fi].operands + slot_of(family, c, lane, pos) * class::N) as Bin;
                }
            }
        }
        if family == Family::Mixed {
            let fmt = (c.ab_fmt == AbFmt::Bf16) as usize;
            let base = |slot: usize| (ix.mixed + (fmt * 4 + slot) * 3) as Bin;
            info.mixed = match (c.b_one, c.neg_c) {
                (true, false) => [base(0), NO_BIN],
                (true, true) => [base(1), NO_BIN],
                _ => [base(2), base(3)],
            };
        }
        assert_eq!(word & 0xFF_F000, 0, "float word {word:#x} uses bits 23:12");
        float_tab[float_key(word)] = floats.len() as u16;
        floats.push(info);
    }
    let m = Model {
        layout: b.layout,
        ix,
        floats,
        float_tab,
    };
    for (i, c) in vmad_words.iter().enumerate() {
        assert_eq!(m.vmad_op(*c).word as usize, m.ix.vm_words + i, "{c:?}");
    }
    m
}

/// `half.modifiers`, each bin reachable by the words of `half` or `half2` that take its
/// modifier (`.relu`, `.oob`, the binary32 step of `fma.{rz,rm,rp}.bf16` in its direction):
/// outside the run where a design's forms leave those words out.
fn half_modifier_bins(reach: &[Reach]) -> Vec<BinDef> {
    let at = |f: Family| &reach[Family::ALL.iter().position(|&x| x == f).unwrap_or(0)];
    let (one, two) = (at(Family::Half), at(Family::Half2));
    let need = |what: &str, p: &dyn Fn(&Ctrl) -> bool| {
        if one.any(p) || two.any(p) {
            None
        } else {
            one.need(what, p)
        }
    };
    let via = |r: Rnd| move |c: &Ctrl| c.via_f32 && c.rnd == r;
    half::NAMES
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let why = match k {
                half::RELU_NEG..=half::RELU_KEEP => need("takes .relu", &|c| c.relu),
                half::OOB_A..=half::OOB_C => need("takes .oob", &|c| c.oob),
                half::VIA_RZ_SAME | half::VIA_RZ_DIFF => {
                    need("rounds .rz through binary32", &via(Rnd::Rz))
                }
                half::VIA_RM_SAME | half::VIA_RM_DIFF | half::VIA_RM_STICKY => {
                    need("rounds .rm through binary32", &via(Rnd::Rm))
                }
                _ => need("rounds .rp through binary32", &via(Rnd::Rp)),
            };
            bin(*name, why)
        })
        .collect()
}

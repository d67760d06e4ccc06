//! The groups of one float family: operand classes, special cases, results, rounding,
//! alignment, cancellation, the LZA and the normaliser.

use super::reach::{bin, geometry, operand_slots, real, slot_of, wide_exponent, Build, Reach};
use super::*;

/// Why the LZA never predicts one zero too many on a reachable sum.
const LZA_OVER: &str = "the indicator's leading one is at the sum's leading digit or one \
    above it, never below (checked on 69 M random adder inputs); the one overshoot is an \
    all-zero indicator (count 165) on a magnitude of exactly 1 at window bit 0, where the \
    addend reaches bit 0 and so lies below 2^53 in the window, cancelling a product that \
    small: a nonzero binary64 product with one subnormal factor is at least 2^55 there, a \
    binary32 product field starts at bit 61, and with two subnormal factors the addend is far \
    above";

/// Why only full-width products give a tie that the sticky bit breaks.
const STICKY_TIE: &str = "the sticky bit comes from an addend wholly below the window (or \
    from a value below the subnormal range, whose round bit is 0), so the round bit must be the \
    product's lowest set bit, p bits below its leading one: the f16/bf16 product, the \
    truncated sm_1x product and a * 1.0 have at most p bits, and mul has no addend";

/// Why a mixed-precision right shift never drops a bit.
const MIXED_RIGHT: &str = "a value below the subnormal range (eref < -183) needs c = 0: a \
    nonzero f32 c is then more than 56 binades above ea + eb and holds the window; the \
    product alone has its lowest bit at window bit 93 (bf16; f16 products never get there), \
    and the right shift is at most 69 bits since ea + eb >= -252";

/// Why only a binary64 product leaves an addend past the window's bottom with an exact sum.
const PAST_EXACT: &str = "past window bit 0 (shift > 111) the addend's top bit is at window bit \
    51 or below, while a binary32, f16 or bf16 product's lowest bit is at window bit 61 or above \
    (93 for the half formats), so its round bit lies above the whole addend and the sum is \
    inexact; add.f64's a * 1.0 is at least the smallest subnormal, and an addend 56 binades \
    below that is zero";

/// Why a half-precision right shift never drops a bit.
const HALF_RIGHT: &str = "a value below the subnormal range needs eref < emin - 57: never \
    for binary16 (ea + eb >= -28, emin -14, and the binary32 step normalises at -126); for \
    bfloat16 it needs c = 0 as in mixed precision (a nonzero c more than 56 binades above the \
    product holds the window), and then the 16-bit product's lowest bit is at window bit 93 or \
    above while the right shift is at most 69 bits (ea + eb >= -252)";

/// Whether a word can reach S4's test decided by the sticky alone: `.rn` and `.rz` never round
/// up on a clear round bit, and only `.ftz` makes tininess show; add/sub's operands are both
/// normal under `.ftz`, so their sum is a multiple of the subnormal quantum and has no bit below
/// the round bit there (mul does reach it: (2^23 + x)(2^24 - 2x) = 2^47 - 2x^2).
fn tiny_sticky(c: &Ctrl) -> bool {
    c.flush() && !c.via_f32 && matches!(c.rnd, Rnd::Rm | Rnd::Rp) && !c.b_one
}

/// Declares the groups of float family `f` (whose legal words `r` holds); their starts.
pub(super) fn float_groups(b: &mut Build, f: Family, r: &Reach) -> FamIx {
    let n = f.name();
    let x2 = matches!(f, Family::F32x2 | Family::Half2);
    // The bins of a half family that only bfloat16's exponent range reaches
    // ([`wide_exponent`]): outside a run whose forms keep binary16 alone.
    let narrow = matches!(f, Family::Half | Family::Half2)
        .then(|| {
            r.need(
                "reads bfloat16 operands (binary16's exponents never get there)",
                wide_exponent,
            )
        })
        .flatten();
    let wide_only = |why: Option<String>| why.or_else(|| narrow.clone());
    let lanes: &[&str] = if x2 { &["lane0 ", "lane1 "] } else { &[""] };

    // Operand classes, of each slot some word of the run reads (a design's forms may leave
    // out a format, bf16, or every word that reads c, mul alone).
    let mut bins = Vec::new();
    for (slot, s) in operand_slots(f).into_iter().enumerate() {
        let why = r.need(&format!("reads a {s} operand"), |c| {
            let re = real(c);
            (0..lanes.len())
                .any(|lane| (0..3).any(|pos| re[pos] && slot_of(f, c, lane, pos) == slot))
        });
        for cl in class::NAMES {
            bins.push(bin(format!("{s} {cl}"), why.clone()));
        }
    }
    let operands = b.group(
        format!("{n}.operands"),
        "Class of every real operand by format: zeros, subnormals, the minimum normal, \
         normals, the maximum finite, infinities, quiet and signalling NaNs.",
        bins,
    );

    // Special cases.
    let b_real = |c: &Ctrl| !c.b_one;
    let c_real = |c: &Ctrl| !c.c_zero;
    let mut bins = vec![
        bin("0 x inf: invalid", r.need("reads b", b_real)),
        bin("inf x 0: invalid", r.need("reads b", b_real)),
        bin(
            "inf x subnormal flushed to 0: invalid",
            r.need("flushes and reads b", |c| c.flush() && !c.b_one),
        ),
        bin("inf - inf: invalid", r.need("reads c", c_real)),
        bin("inf + inf", r.need("reads c", c_real)),
        bin("inf product, finite c", None),
        bin("finite product, inf c", r.need("reads c", c_real)),
    ];
    for mask in 1..8usize {
        let names: Vec<&str> = ["a", "b", "c"]
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 != 0)
            .map(|(_, s)| *s)
            .collect();
        let why = r.need(&format!("reads {}", names.join(" and ")), |c| {
            let re = real(c);
            (0..3).all(|i| mask >> i & 1 == 0 || re[i])
        });
        bins.push(bin(format!("NaN in {}", names.join(", ")), why));
    }
    bins.push(bin(
        "NaN c beside an invalid product (the NaN wins)",
        r.need("reads b and c", |c| !c.b_one && !c.c_zero),
    ));
    for (pos, pn) in ["a", "b", "c"].iter().enumerate() {
        for q in ["signalling (quieted)", "quiet"] {
            bins.push(bin(
                format!("first NaN is {pn}, {q}"),
                r.need(&format!("reads {pn}"), |c| real(c)[pos]),
            ));
        }
    }
    debug_assert_eq!(bins.len(), special::N);
    let special = b.group(
        format!("{n}.special"),
        "The special-case unit's decisions: invalid products and sums, infinities, NaN \
         in each combination of positions (the first NaN in b, c, a order is the f64 \
         result, S2) and whether it was signalling.",
        bins,
    );

    // Results.
    let flush = r.need("flushes (.ftz)", |c| c.flush());
    let noflush = r.need("keeps subnormals (no .ftz)", |c| !c.flush());
    let sat = r.need("takes .sat", |c| c.sat);
    let mut bins = vec![
        bin("special: NaN", None),
        bin("special: inf", None),
        bin("exact zero: +0", None),
        bin("exact zero: -0", None),
        bin(
            "exact zero from cancelling nonzero operands",
            r.need("reads c", c_real),
        ),
        bin("normal", None),
    ];
    for rnd in RNDS {
        for neg in [false, true] {
            let s = if neg { "-" } else { "+" };
            let to = match (rnd, neg) {
                (Rnd::Rn, _) | (Rnd::Rm, true) | (Rnd::Rp, false) => "inf",
                _ => "max finite",
            };
            bins.push(bin(
                format!("overflow .{} {s}: {s}{to}", rnd_name(rnd)),
                r.final_rnd(rnd),
            ));
        }
    }
    bins.push(bin(
        "overflow caused by the rounding carry",
        r.need("rounds up (not only .rz)", |c| c.rnd != Rnd::Rz),
    ));
    bins.push(bin("tiny: subnormal result, exact", noflush.clone()));
    bins.push(bin("tiny: subnormal result, inexact", noflush.clone()));
    bins.push(bin(
        "tiny before rounding, rounds up to the minimum normal",
        noflush.clone(),
    ));
    bins.push(bin("tiny: rounds to zero", noflush.clone()));
    for (pos, s) in ["a", "b", "c"].iter().enumerate() {
        bins.push(bin(
            format!("ftz: subnormal {s} flushed"),
            r.need(&format!("flushes and reads {s}"), |c| {
                c.flush() && real(c)[pos]
            }),
        ));
    }
    bins.push(bin("ftz: subnormal result flushed", flush.clone()));
    bins.push(bin(
        "ftz: tiny before rounding, rounds to the minimum normal at p bits (kept, S4)",
        flush.clone(),
    ));
    bins.push(bin(
        "ftz: rounds up to the minimum normal at the subnormal quantum, not at p bits \
         (flushed, S4)",
        flush.clone(),
    ));
    bins.push(bin("sat: NaN -> +0", sat.clone()));
    bins.push(bin("sat: negative -> +0", sat.clone()));
    bins.push(bin("sat: -0 -> +0", sat.clone()));
    bins.push(bin("sat: >= 1.0 -> 1.0", sat.clone()));
    bins.push(bin("sat: +inf -> 1.0", sat.clone()));
    bins.push(bin("sat: in [+0, 1.0) unchanged", sat.clone()));
    debug_assert_eq!(bins.len(), result::N);
    let result_ = b.group(
        format!("{n}.result"),
        "What the rounder produced: special and zero results, overflow per rounding mode \
         and sign (to inf or held at max finite), tiny results, flushing of inputs and \
         outputs by .ftz, and each .sat clamp.",
        bins,
    );

    // Rounding events per mode.
    let mut bins = Vec::new();
    for rnd in RNDS {
        for (e, en) in round::NAMES.iter().enumerate() {
            let rule = match (rnd, e) {
                (Rnd::Rn, round::BELOW_UP) => {
                    Some("rn rounds up only at or above half".to_string())
                }
                (Rnd::Rn, round::ABOVE_DOWN) => Some("rn always rounds up above half".to_string()),
                (
                    Rnd::Rz,
                    round::BELOW_UP
                    | round::TIE_UP
                    | round::ABOVE_UP
                    | round::CARRY
                    | round::TIE_CARRY
                    | round::SUB_UP,
                ) => Some("rz never rounds up".to_string()),
                _ => None,
            };
            let rule = rule.or_else(|| {
                let short = matches!(f, Family::Mixed | Family::Sm1x | Family::AddSubMul);
                (e == round::STICKY_ABOVE && short).then(|| STICKY_TIE.to_string())
            });
            let why = r.final_rnd(rnd).or(rule);
            let why = if matches!(e, round::STICKY_ABOVE | round::STICKY_INEXACT) {
                wide_only(why)
            } else {
                why
            };
            bins.push(bin(format!(".{}: {en}", rnd_name(rnd)), why));
        }
    }
    let round_ = b.group(
        format!("{n}.rounding"),
        "Rounding mode x where the discarded bits fall (exact, below half, a tie, above \
         half) x the rounding direction taken, round-ups that carry into the exponent, \
         rounding at the subnormal quantum, and decisions that only the sticky bit makes.",
        bins,
    );

    // Alignment.
    let has_f64 = r.any(|c| c.kind == Kind::F64);
    let has_f32 = r.any(|c| c.kind != Kind::F64);
    let mut bins = Vec::new();
    for lane in lanes {
        for (k, kn) in align::NAMES.iter().enumerate() {
            let why = match k {
                align::ABOVE | align::OVERLAP | align::BELOW | align::PARTIAL => {
                    let fits = |f64_: bool| {
                        let (pc, plo) = geometry(f64_);
                        (1..164).any(|sh| align_class(sh, pc, plo) == k)
                    };
                    if (has_f64 && fits(true)) || (has_f32 && fits(false)) {
                        None
                    } else {
                        Some(format!(
                            "window geometry: no shift puts a {}-bit addend there (the \
                             product's field ends 3 bits above the window's bottom)",
                            if has_f64 { 53 } else { 24 }
                        ))
                    }
                }
                align::C_ZERO => None,
                _ => r.need("reads c", c_real),
            };
            let why = match k {
                align::FAR_ABOVE
                | align::BELOW
                | align::PARTIAL
                | align::OUT
                | align::CLAMP
                | align::STICKY => wide_only(why),
                _ => why,
            };
            bins.push(bin(format!("{lane}{kn}"), why));
        }
    }
    let align_ = b.group(
        format!("{n}.alignment"),
        "The addend alignment shifter (d = ec - (ea + eb)): no addend, addend on top of a \
         zero product, far above (held at the top), above / overlapping / below the \
         product, partly or wholly shifted into sticky, the shift clamped.",
        bins,
    );

    // Cancellation.
    let short = match f {
        Family::Mixed => Some(
            "an f16/bf16 product has at most 22 significant bits and c 24, so a nonzero \
             difference is a multiple of 2^-24 of the larger operand: at most p bits cancel",
        ),
        Family::Sm1x => Some(
            "the truncated product and c both have 24 bits (c = 0 does not subtract), so a \
             nonzero difference keeps at least the bit 2^-24 of the larger: at most p bits \
             cancel",
        ),
        Family::AddSubMul => Some(
            "a * 1.0 and c both have p bits (mul has no addend), so a nonzero difference \
             keeps at least the bit 2^-p of the larger: at most p bits cancel",
        ),
        _ => None,
    };
    let mut bins = Vec::new();
    for lane in lanes {
        for (k, kn) in cancel::NAMES.iter().enumerate() {
            let why = if k == cancel::BEYOND_P {
                short.map(str::to_string)
            } else {
                r.need("reads c", c_real)
            };
            bins.push(bin(format!("{lane}{kn}"), why));
        }
    }
    let cancel_ = b.group(
        format!("{n}.cancellation"),
        "Effective addition or subtraction of product and addend (both nonzero), and how \
         many leading bits a subtraction cancels: none, 1, 2..p, beyond p, all (exact \
         zero).",
        bins,
    );

    // LZA accuracy.
    let mut bins = Vec::new();
    for lane in lanes {
        for (k, kn) in lza::NAMES.iter().enumerate() {
            let why = (k == lza::OVER).then(|| LZA_OVER.to_string());
            bins.push(bin(format!("{lane}{kn}"), why));
        }
    }
    let lza_ = b.group(
        format!("{n}.lza"),
        "The leading-zero anticipator's count against the true leading zeros of the sum, \
         per effective operation: exact, or off by one in either direction (corrected by \
         the normaliser).",
        bins,
    );

    // Normaliser.
    let mut bins = Vec::new();
    for lane in lanes {
        for (k, kn) in norm::NAMES.iter().enumerate() {
            let why = match f {
                Family::Mixed => Some(MIXED_RIGHT),
                Family::Half | Family::Half2 => Some(HALF_RIGHT),
                _ => None,
            }
            .filter(|_| k == norm::RIGHT_STICKY)
            .map(str::to_string);
            let why = if k == norm::RIGHT {
                wide_only(why)
            } else {
                why
            };
            bins.push(bin(format!("{lane}{kn}"), why));
        }
    }
    let norm_ = b.group(
        format!("{n}.normalise"),
        "The normalising shift: by the LZA count, capped at the exponent limit (a \
         subnormal result), or a right shift for a value below the subnormal range, with \
         its sticky bits.",
        bins,
    );

    // Boundary values.
    let mut bins = Vec::new();
    for lane in lanes {
        for (k, kn) in bounds::NAMES.iter().enumerate() {
            let why = match k {
                bounds::SAT_BELOW | bounds::SAT_AT | bounds::SAT_ABOVE => sat.clone(),
                bounds::PAST_EXACT if f != Family::F64 => Some(PAST_EXACT.to_string()),
                bounds::D55..=bounds::PAST_EXACT | bounds::ST_TOP => r.need("reads c", c_real),
                bounds::TINY_STICKY => {
                    r.need("flushes, rounds .rm or .rp and reads b", tiny_sticky)
                }
                _ => None,
            };
            let why = match k {
                bounds::D55..=bounds::SH112 | bounds::LIM_ZERO | bounds::LIM_NEG => wide_only(why),
                _ => why,
            };
            bins.push(bin(format!("{lane}{kn}"), why));
        }
    }
    let bounds_ = b.group(
        format!("{n}.bounds"),
        "Values at, one below and one above each limit a comparison of the datapath decides \
         on: the alignment's hold limit (d = 56) and its shift clamp (164), the addend's last \
         bit at the window's bottom (shift 111), the normaliser's exponent limit (LZA count \
         against it, and the limit itself at 0), the bit just below the round bit alone, the \
         top binade against overflow, and .sat's 1.0.",
        bins,
    );

    FamIx {
        operands,
        special,
        result: result_,
        round: round_,
        align: align_,
        cancel: cancel_,
        lza: lza_,
        norm: norm_,
        bounds: bounds_,
    }
}

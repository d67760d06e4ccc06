//! Where each bin lies in its group: the sampler indexes bins as `group start + offset`. Each
//! group's bins are declared once, in report order, and numbered by `bins!` or
//! `named_bins!`; a bin that stands for a run of bins (`NAN[7]`: one per NaN mask) is
//! declared with its length, so no offset is written by hand.

/// Numbers a group's bins in the order given: `NAME` is one bin, `NAME[k]` a run of `k` bins
/// starting at `NAME`; `N` is their count.
macro_rules! bins {
    (@at $at:expr;) => {
        pub const N: usize = $at;
    };
    (@at $at:expr; $(#[$m:meta])* $name:ident [$n:expr] $(, $($rest:tt)*)?) => {
        $(#[$m])*
        pub const $name: usize = $at;
        bins!(@at $at + $n; $($($rest)*)?);
    };
    (@at $at:expr; $(#[$m:meta])* $name:ident $(, $($rest:tt)*)?) => {
        $(#[$m])*
        pub const $name: usize = $at;
        bins!(@at $at + 1; $($($rest)*)?);
    };
    ($($body:tt)*) => {
        bins!(@at 0; $($body)*);
    };
}

/// Numbers and names a group's bins in the order given (`NAME = "text"`): `N` is their count,
/// `NAMES` their texts.
macro_rules! named_bins {
    (@at $at:expr; [$($names:expr),*];) => {
        pub const N: usize = $at;
        pub const NAMES: [&str; N] = [$($names),*];
    };
    (@at $at:expr; [$($names:expr),*]; $(#[$m:meta])* $name:ident = $text:expr $(, $($rest:tt)*)?) => {
        $(#[$m])*
        pub const $name: usize = $at;
        named_bins!(@at $at + 1; [$($names,)* $text]; $($($rest)*)?);
    };
    ($($body:tt)*) => {
        named_bins!(@at 0; []; $($body)*);
    };
}

/// Operand classes, per format (`operands` groups).
pub mod class {
    named_bins! {
        POS_ZERO = "+0",
        NEG_ZERO = "-0",
        POS_SUB = "+subnormal",
        NEG_SUB = "-subnormal",
        POS_MIN = "+min normal",
        NEG_MIN = "-min normal",
        POS_NORMAL = "+normal",
        NEG_NORMAL = "-normal",
        POS_MAX = "+max finite",
        NEG_MAX = "-max finite",
        POS_INF = "+inf",
        NEG_INF = "-inf",
        QNAN = "qNaN",
        SNAN = "sNaN",
    }
}

/// `special` groups: the operand combinations that decide a result without the datapath.
pub mod special {
    bins! {
        ZERO_X_INF,
        INF_X_ZERO,
        INF_X_FLUSHED,
        INF_MINUS_INF,
        INF_PLUS_INF,
        INF_PRODUCT,
        INF_C,
        /// `NAN + mask - 1`, mask bit 0 = a, 1 = b, 2 = c.
        NAN[7],
        NAN_OVER_INVALID,
        /// `FIRST + 2 * position + quiet`: the first NaN in b, c, a order (the f64 result, S2);
        /// position 0 = a, 1 = b, 2 = c.
        FIRST[6],
    }
}

/// `result` groups: what the rounder produced.
pub mod result {
    bins! {
        NAN,
        INF,
        ZERO_POS,
        ZERO_NEG,
        ZERO_CANCEL,
        NORMAL,
        /// `OVERFLOW + 2 * rnd + sign`.
        OVERFLOW[8],
        OVERFLOW_CARRY,
        SUB_EXACT,
        SUB_INEXACT,
        SUB_TO_NORMAL,
        UNDERFLOW_ZERO,
        /// `FTZ_IN + position` (a, b, c).
        FTZ_IN[3],
        FTZ_OUT,
        /// S4: below the minimum normal before rounding, at it after rounding to p bits (kept).
        FTZ_BAND,
        /// S4: rounded up to the minimum normal at the subnormal quantum, below it at p bits with an
        /// unbounded exponent (flushed; IEEE tininess before rounding would keep it).
        FTZ_BAND_FLUSHED,
        SAT_NAN,
        SAT_NEG,
        SAT_NEG_ZERO,
        SAT_ONE,
        SAT_INF,
        SAT_KEEP,
    }
}

/// `rounding` groups: `rnd * N + event`.
pub mod round {
    named_bins! {
        EXACT = "exact",
        BELOW_DOWN = "below half, rounded down",
        BELOW_UP = "below half, rounded up",
        TIE_DOWN = "tie, rounded down",
        TIE_UP = "tie, rounded up",
        ABOVE_DOWN = "above half, rounded down",
        ABOVE_UP = "above half, rounded up",
        CARRY = "rounded up, carry into the exponent",
        TIE_CARRY = "tie rounded up, carry into the exponent",
        SUB_DOWN = "tiny and inexact, rounded down",
        SUB_UP = "tiny and inexact, rounded up",
        STICKY_ABOVE = "above half only by the sticky bit (else a tie)",
        STICKY_INEXACT = "inexact only by the sticky bit (else exact)",
    }
}

/// `alignment` groups (per lane for f32x2).
pub mod align {
    named_bins! {
        C_ZERO = "c zero: no addend (shift 164)",
        P_ZERO = "product zero: addend on top",
        FAR_ABOVE = "addend far above (d > 56): held at the top",
        ABOVE = "addend above the product, disjoint",
        OVERLAP = "addend overlapping the product",
        BELOW = "addend below the product, disjoint, inside the window",
        PARTIAL = "addend partly shifted into sticky",
        OUT = "addend shifted out entirely (shift = 164)",
        CLAMP = "shift clamped (56 - d > 164)",
        STICKY = "alignment sticky set",
    }
}

/// `cancellation` groups (per lane for f32x2).
pub mod cancel {
    named_bins! {
        ADD = "effective addition",
        SUB = "effective subtraction",
        DEPTH0 = "subtraction, no cancellation (depth 0)",
        DEPTH1 = "cancellation depth 1",
        DEPTH_P = "cancellation depth 2..p",
        BEYOND_P = "cancellation beyond p",
        TOTAL = "total cancellation (exact zero)",
    }
}

/// `lza` groups (per lane for f32x2): the prediction against the true leading zeros.
pub mod lza {
    named_bins! {
        /// `EXACT + 2 * effective subtraction`, `SHORT + 2 * effective subtraction`.
        EXACT = "effective addition: exact",
        SHORT = "effective addition: one short, normaliser corrects left",
        EXACT_SUB = "effective subtraction: exact",
        SHORT_SUB = "effective subtraction: one short, normaliser corrects left",
        OVER = "one over: normaliser corrects right",
    }
}

/// `normalise` groups (per lane for f32x2).
pub mod norm {
    named_bins! {
        LZA = "shift by the LZA count",
        LIMIT = "shift capped at the exponent limit",
        LIMIT_SUB = "limit hit: subnormal result",
        RIGHT = "below the subnormal range: right shift",
        RIGHT_STICKY = "right shift: bits into sticky",
    }
}

/// `lza.position`: where the indicator's leading one falls, per hardware lane (`lane * N + x`).
/// `<family>.bounds`, per lane: the values at, one below and one above the limits the
/// datapath's comparisons decide on (alignment hold and clamp, the addend's last bit at the
/// window's bottom, the normaliser's exponent limit, the bit just below the round bit, the top
/// binade, `.sat`'s 1.0), so that a comparison off by one or a slice one bit short is seen.
pub mod bounds {
    named_bins! {
        D55 = "d = 55: one binade below the hold limit (aligned)",
        D56 = "d = 56: at the hold limit (aligned at the top)",
        D57 = "d = 57: one binade past the hold limit (held)",
        SH163 = "56 - d = 163: shift one below the window width",
        SH164 = "56 - d = 164: shift equal to the window width",
        SH165 = "56 - d = 165: shift one past the window width (clamped)",
        SH111 = "shift 111: the addend's last bit at window bit 0 (nothing lost)",
        SH112 = "shift 112: the addend's last bit one below the window",
        PAST_EXACT = "exact result with the addend past the window's bottom (shift > 111)",
        CNT_BELOW = "LZA count one below the exponent limit",
        CNT_AT = "LZA count equal to the exponent limit",
        CNT_ABOVE = "LZA count one above the exponent limit (capped)",
        LIM_ZERO = "exponent limit 0: no shift",
        LIM_NEG = "exponent limit -1: right shift by one",
        ST_TOP = "inexact only by the bit just below the round bit",
        TINY_TIE = "half a p-bit ulp below the minimum normal (S4's test at a tie)",
        TINY_STICKY = ".ftz: one p-bit ulp below the minimum normal plus less than half of it, \
            rounded up by the sticky alone (S4's test: not tiny, kept)",
        EMAX = "rounded into the top binade (e = emax), no overflow",
        EMAX1 = "overflow to exactly e = emax + 1, no rounding carry",
        SAT_BELOW = ".sat: the largest value below 1.0, kept",
        SAT_AT = ".sat: exactly 1.0",
        SAT_ABOVE = ".sat: 1.0 plus one ulp, clamped to 1.0",
    }
}

pub mod lzapos {
    named_bins! {
        SLICE0 = "leading one in slice 0 (bits 63:0)",
        SLICE1 = "leading one in slice 1 (bits 127:64)",
        SLICE2 = "leading one in slice 2 (bits 165:128)",
        BIT63 = "leading one at bit 63",
        BIT64 = "leading one at bit 64",
        BIT127 = "leading one at bit 127",
        BIT128 = "leading one at bit 128",
        NONE = "indicator all zero (count 165)",
        CROSS64 = "one short across the slice boundary: predicted bit 64, leading one at 63",
        CROSS128 = "one short across the slice boundary: predicted bit 128, leading one at 127",
    }
}

/// `f32x2.lanes`: the result class of one lane (a pair's bin is [`lanes_bin`]).
pub mod lane {
    named_bins! {
        ZERO = "zero",
        NORMAL = "normal",
        SUBNORMAL = "subnormal",
        FLUSHED = "flushed",
        OVERFLOW = "overflow",
        INF = "inf",
        NAN = "NaN",
    }
}

/// Bin of `f32x2.lanes` for lane classes `l0`, `l1`.
pub fn lanes_bin(l0: usize, l1: usize) -> usize {
    l0 * lane::N + l1
}

/// `sm1x`: the S7 paths.
pub mod sm1x {
    named_bins! {
        CZERO_POS = "c = +0: mul.rn then add.rn",
        CZERO_NEG = "c = -0: mul.rn then add.rn",
        CZERO_OVF = "c = 0: rounded product overflows to inf",
        CZERO_FLUSH = "c = 0: tiny product flushed",
        CZERO_NEG_TINY = "c = +0, tiny negative product: -0 + +0 = +0",
        TRUNC_EXACT = "c != 0: product fits 24 bits (truncation exact)",
        TRUNC_SAME = "c != 0: truncation equals rn rounding of the product",
        TRUNC_DIFF = "c != 0: truncation differs from rn rounding of the product",
        BIG_BACK = "product >= 2^128 brought back into range by c",
        BIG_OVF = "product >= 2^128, result overflows",
        TINY_PROD = "product < 2^-126 kept (not flushed) beside c != 0",
        ZERO_SUM = "exact zero sum of nonzero operands: +0",
    }
}

/// `mixed.inputs`: `(fmt * 4 + slot) * 3 + class`.
pub mod mixed {
    bins! {
        SUB,
        INF,
        NAN,
    }
    pub const SLOTS: [&str; 4] = ["add a", "sub a", "fma a", "fma b"];
    pub const CLASSES: [&str; 3] = ["subnormal", "inf", "NaN"];
}

/// `vmad.clamp`: `(signed * 3 + scale) * 3 + x`.
pub mod clamp {
    bins! {
        HIGH,
        LOW,
        PASS,
    }
}

/// `half.modifiers`: what `.relu`, `.oob` and the binary32 step did, per lane.
pub mod half {
    named_bins! {
        RELU_NEG = "relu: negative -> +0",
        RELU_NEG_ZERO = "relu: -0 -> +0",
        RELU_NAN = "relu: NaN -> the NaN",
        RELU_KEEP = "relu: +0 or positive kept",
        OOB_A = "oob: a is the OOB NaN -> +0",
        OOB_B = "oob: b is the OOB NaN -> +0",
        OOB_NAN = "oob: OOB NaN beside another NaN operand -> +0",
        OOB_C = "oob: c is the OOB pattern, an ordinary NaN -> NaN",
        VIA_RZ_SAME = "binary32 step .rz: same as rounding once",
        VIA_RZ_DIFF = "binary32 step .rz: differs from rounding once",
        VIA_RM_SAME = "binary32 step .rm: same as rounding once",
        VIA_RM_DIFF = "binary32 step .rm: differs from rounding once",
        VIA_RP_SAME = "binary32 step .rp: same as rounding once",
        VIA_RP_DIFF = "binary32 step .rp: differs from rounding once",
        VIA_RM_STICKY = "binary32 step .rm: its sticky alone (round bit clear) rounds it up, \
            and that decides the result",
        VIA_RP_STICKY = "binary32 step .rp: its sticky alone (round bit clear) rounds it up, \
            and that decides the result",
    }
}

/// `vmad.bounds`: the `.sat` result at, one below and one above each clamp limit, and for the
/// u32 high clamp (any of bits 62:32 set) each of those bits set alone.
pub mod vmbounds {
    bins! {
        AROUND[12],
        HIGH_BIT[31],
    }
    /// The limits the directed stimulus aims at, and their neighbours.
    pub use ptxfma_cosim_engine::directed::vmad::{AROUND_AT, HIGH_LSB};
}

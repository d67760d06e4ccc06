//! The IEEE-style interchange formats the datapath reads (binary16, bfloat16, binary32,
//! binary64): field widths and the field arithmetic that the operand unpackers, the lane
//! engine and the stimulus generator share.

/// An IEEE-style binary format: sign, `exp_bits` of biased exponent, `frac_bits` of fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    pub exp_bits: u32,
    pub frac_bits: u32,
}

pub const F16: Fmt = Fmt {
    exp_bits: 5,
    frac_bits: 10,
};
pub const BF16: Fmt = Fmt {
    exp_bits: 8,
    frac_bits: 7,
};
pub const F32: Fmt = Fmt {
    exp_bits: 8,
    frac_bits: 23,
};
pub const F64: Fmt = Fmt {
    exp_bits: 11,
    frac_bits: 52,
};

impl Fmt {
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.frac_bits
    }
    pub const fn mask(self) -> u64 {
        u64::MAX >> (64 - self.width())
    }
    pub const fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }
    pub const fn exp_max(self) -> u64 {
        (1u64 << self.exp_bits) - 1
    }
    pub const fn bias(self) -> i64 {
        (1i64 << (self.exp_bits - 1)) - 1
    }
    pub const fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }
    /// The quiet bit: the top fraction bit.
    pub const fn quiet_bit(self) -> u64 {
        1u64 << (self.frac_bits - 1)
    }
    pub const fn exp_of(self, bits: u64) -> u64 {
        (bits >> self.frac_bits) & self.exp_max()
    }
    pub const fn assemble(self, sign: bool, exp: u64, frac: u64) -> u64 {
        (sign as u64) << (self.width() - 1)
            | (exp & self.exp_max()) << self.frac_bits
            | (frac & self.frac_mask())
    }

    /// The exact value as an f64: every f16/bf16/f32 number is an f64 number.
    pub fn to_f64(self, bits: u64) -> f64 {
        if self == F64 {
            return f64::from_bits(bits);
        }
        let sign = if bits & self.sign_bit() != 0 {
            -1.0
        } else {
            1.0
        };
        let e = self.exp_of(bits);
        let f = bits & self.frac_mask();
        let p = self.frac_bits as i32;
        let mag = if e == self.exp_max() {
            if f == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if e == 0 {
            f as f64 * 2f64.powi(1 - self.bias() as i32 - p)
        } else {
            (f | 1 << p) as f64 * 2f64.powi(e as i32 - self.bias() as i32 - p)
        };
        sign * mag
    }
}

//! Pipeline registers.
//!
//! Each struct here is one flop bank of the RTL, field for field: the RTL declares the same
//! fields, in the same order, with the same widths, as `packed` structs in `ptxfma_pkg`. A packed
//! struct puts its first field at the most significant end, so [`Reg::pack`] writes fields from
//! the top down. The co-simulator compares the packed images word by word and, on a difference,
//! walks [`Reg::layout`] to name the field.

use crate::ctrl::CTRL_BITS;
use crate::geometry::{
    ADD_W, ALIGN_W, DATA_W, EXP_REG_W, MAG_W, MUL_W, SHIFT_CNT_W, TAG_W, VM_TMP_W,
};
use crate::wide::Wide;

/// The aligned addend ([`ALIGN_W`] bits).
pub type U164 = Wide<{ ALIGN_W as usize }>;
/// The sum magnitude and the normalised significand ([`MAG_W`] bits).
pub type U165 = Wide<{ MAG_W as usize }>;
/// The signed adder ([`ADD_W`] bits).
pub type U166 = Wide<{ ADD_W as usize }>;

/// Writes a packed image into 32-bit words, word 0 holding bits 31:0 (Verilator's `VlWide`
/// order), starting at the top bit and moving down.
pub struct BitWriter<'a> {
    words: &'a mut [u32],
    pos: u32,
}

impl<'a> BitWriter<'a> {
    /// `width` is the total width of the image; writing starts at bit `width - 1`.
    #[inline(always)]
    pub fn new(words: &'a mut [u32], width: u32) -> Self {
        words.iter_mut().for_each(|w| *w = 0);
        BitWriter { words, pos: width }
    }

    /// Puts the low `width` bits of the little-endian limbs `v` below the current position.
    #[inline(always)]
    pub fn put(&mut self, v: &[u64], width: u32) {
        let lsb = self.pos - width;
        let mut done = 0;
        // 64-bit chunks through the word-wise path.
        while done < width {
            let take = (width - done).min(64);
            self.pos = lsb + done + take;
            self.put64(v[(done / 64) as usize], take);
            done += take;
        }
        self.pos = lsb;
    }

    /// Fast path for fields of at most 64 bits: the value, moved to its bit offset, covers at
    /// most three consecutive words, which are ORed in without a per-word loop.
    #[inline(always)]
    pub fn put64(&mut self, v: u64, width: u32) {
        self.pos -= width;
        let at = self.pos;
        let v = if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        };
        let x = (v as u128) << (at % 32);
        let w = (at / 32) as usize;
        self.words[w] |= x as u32;
        if let Some(next) = self.words.get_mut(w + 1) {
            *next |= (x >> 32) as u32;
        }
        if let Some(next) = self.words.get_mut(w + 2) {
            *next |= (x >> 64) as u32;
        }
    }
}

/// Reads a packed image written by [`BitWriter`] (or by the RTL).
pub struct BitReader<'a> {
    words: &'a [u32],
    pos: u32,
}

impl<'a> BitReader<'a> {
    pub fn new(words: &'a [u32], width: u32) -> Self {
        BitReader { words, pos: width }
    }

    /// Takes the next `width` bits (below the current position) as little-endian limbs.
    pub fn take(&mut self, width: u32) -> [u64; 3] {
        self.pos -= width;
        extract(self.words, self.pos, width)
    }
}

/// Bits `lsb + width - 1 .. lsb` of a packed image, as little-endian limbs (width <= 192).
pub fn extract(words: &[u32], lsb: u32, width: u32) -> [u64; 3] {
    let mut out = [0u64; 3];
    let mut done = 0;
    while done < width {
        let at = lsb + done;
        let take = (width - done).min(32 - at % 32);
        let chunk = (words[(at / 32) as usize] >> (at % 32)) as u64 & ((1u64 << take) - 1);
        out[(done / 64) as usize] |= chunk << (done % 64);
        if done % 64 + take > 64 {
            out[(done / 64) as usize + 1] |= chunk >> (64 - done % 64);
        }
        done += take;
    }
    out
}

/// The least significant bit of field `name` in a packed image whose fields are `fields`
/// (a [`Reg::FIELDS`] table, most significant first): what code that writes a packed image
/// without the struct (the lane engine's images) takes its positions from, at compile time.
///
/// # Panics
/// At compile time, where `name` is not a field.
pub const fn field_lsb(fields: &[(&str, u32)], name: &str) -> u32 {
    let mut total = 0;
    let mut i = 0;
    while i < fields.len() {
        total += fields[i].1;
        i += 1;
    }
    let mut above = 0;
    let mut i = 0;
    while i < fields.len() {
        above += fields[i].1;
        if str_eq(fields[i].0, name) {
            return total - above;
        }
        i += 1;
    }
    panic!("no such field")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// One leaf field of a register's packed layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Dotted path, e.g. `lane0.c_aligned`.
    pub name: String,
    pub msb: u32,
    pub lsb: u32,
}

impl Leaf {
    pub fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
}

/// A value that occupies a fixed number of bits in a packed register.
pub trait Field: Sized {
    fn put(&self, w: &mut BitWriter, width: u32);
    fn get(r: &mut BitReader, width: u32) -> Self;
    /// Appends the leaves below `name`; plain values are one leaf, nested registers many.
    fn leaves(name: &str, msb: u32, width: u32, out: &mut Vec<Leaf>) {
        out.push(Leaf {
            name: name.to_string(),
            msb,
            lsb: msb + 1 - width,
        });
    }
}

impl Field for bool {
    #[inline(always)]
    fn put(&self, w: &mut BitWriter, width: u32) {
        w.put64(*self as u64, width)
    }
    fn get(r: &mut BitReader, width: u32) -> Self {
        r.take(width)[0] & 1 != 0
    }
}

macro_rules! int_field {
    ($extend:ident: $($t:ty),*) => {$(
        impl Field for $t {
            #[inline(always)]
    fn put(&self, w: &mut BitWriter, width: u32) {
                w.put64(*self as u64, width)
            }
            fn get(r: &mut BitReader, width: u32) -> Self {
                let v = r.take(width)[0];
                int_field!(@$extend v, width) as $t
            }
        }
    )*};
    // Unsigned fields read back as they were packed; signed ones sign-extend from their width.
    (@zero $v:ident, $width:ident) => { $v };
    (@sign $v:ident, $width:ident) => {{
        let sh = 64 - $width;
        ((($v << sh) as i64) >> sh)
    }};
}
int_field!(zero: u8, u16, u32, u64);
int_field!(sign: i16, i32);

impl Field for u128 {
    #[inline(always)]
    fn put(&self, w: &mut BitWriter, width: u32) {
        w.put(&[*self as u64, (*self >> 64) as u64], width)
    }
    fn get(r: &mut BitReader, width: u32) -> Self {
        let l = r.take(width);
        l[0] as u128 | (l[1] as u128) << 64
    }
}

impl<const B: usize> Field for Wide<B> {
    #[inline(always)]
    fn put(&self, w: &mut BitWriter, width: u32) {
        w.put(self.as_limbs(), width)
    }
    fn get(r: &mut BitReader, width: u32) -> Self {
        Wide::from_limbs(r.take(width))
    }
}

/// A whole register (flop bank) with a fixed packed layout.
pub trait Reg: Sized + Default + Clone {
    /// Total packed width in bits.
    const WIDTH: u32;
    /// (field name, width) in declaration order, most significant first.
    const FIELDS: &'static [(&'static str, u32)];
    /// The struct's name and doc, for the RTL package generator.
    const NAME: &'static str;
    const DOC: &'static str;
    /// Each field's width as written (`ALIGN_W`, `1`, `S1Lane::WIDTH`) and the RTL type given
    /// where the width alone does not say it (`ctrl_t`), for the RTL package generator.
    const RTL_FIELDS: &'static [RtlField];
    fn pack_into(&self, w: &mut BitWriter);
    /// Packs the first `fields` fields (declaration order, from the top) and leaves the bits
    /// of the rest zero.
    fn pack_first_into(&self, w: &mut BitWriter, fields: usize);
    fn unpack_from(r: &mut BitReader) -> Self;

    /// Number of 32-bit words of the packed image.
    fn words() -> usize {
        Self::WIDTH.div_ceil(32) as usize
    }

    /// The packed image, word 0 = bits 31:0.
    #[inline(always)]
    fn pack(&self, words: &mut [u32]) {
        let mut w = BitWriter::new(words, Self::WIDTH);
        self.pack_into(&mut w);
    }

    /// The packed image of a register whose fields from `fields` on are known to be zero (an
    /// idle lane): those are not read, their bits are written zero.
    #[inline(always)]
    fn pack_first(&self, words: &mut [u32], fields: usize) {
        let mut w = BitWriter::new(words, Self::WIDTH);
        self.pack_first_into(&mut w, fields);
    }

    fn unpack(words: &[u32]) -> Self {
        let mut r = BitReader::new(words, Self::WIDTH);
        Self::unpack_from(&mut r)
    }

    /// Every leaf field with its bit range in the packed image.
    fn layout() -> Vec<Leaf> {
        let mut out = Vec::new();
        Self::layout_into("", Self::WIDTH - 1, &mut out);
        out
    }

    fn layout_into(prefix: &str, msb: u32, out: &mut Vec<Leaf>);
}

/// A register field as the RTL package declares it.
#[derive(Clone, Copy, Debug)]
pub struct RtlField {
    pub name: &'static str,
    /// The width expression as written in `reg!`.
    pub width: &'static str,
    /// The RTL type, where given.
    pub rtl_type: Option<&'static str>,
}

/// Declares a register struct, its field table, its packing and its RTL declaration in one
/// place, so they cannot drift apart. A field is `name: type = width` or, where the RTL gives it
/// a type of its own, `name: type = width => rtl_type`.
macro_rules! reg {
    (@rtl) => { None };
    (@rtl $rtl:ident) => { Some(stringify!($rtl)) };
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $( $(#[$fm:meta])* $f:ident : $t:ty = $w:expr $(=> $rtl:ident)? ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name { $( $(#[$fm])* pub $f: $t ),* }

        impl Reg for $name {
            const WIDTH: u32 = 0 $( + $w )*;
            const FIELDS: &'static [(&'static str, u32)] = &[ $( (stringify!($f), $w) ),* ];
            const NAME: &'static str = stringify!($name);
            const DOC: &'static str = concat!($($doc),*);
            const RTL_FIELDS: &'static [RtlField] = &[ $( RtlField {
                name: stringify!($f),
                width: stringify!($w),
                rtl_type: reg!(@rtl $($rtl)?),
            } ),* ];
            #[inline(always)]
            fn pack_into(&self, w: &mut BitWriter) {
                $( Field::put(&self.$f, w, $w); )*
            }
            #[inline(always)]
            fn pack_first_into(&self, w: &mut BitWriter, fields: usize) {
                let mut k = 0;
                $(
                    if k < fields {
                        Field::put(&self.$f, w, $w);
                    }
                    k += 1;
                )*
                let _ = k;
            }
            fn unpack_from(r: &mut BitReader) -> Self {
                $name { $( $f: Field::get(r, $w) ),* }
            }
            fn layout_into(prefix: &str, msb: u32, out: &mut Vec<Leaf>) {
                let mut top = msb;
                $(
                    let name = if prefix.is_empty() {
                        stringify!($f).to_string()
                    } else {
                        format!("{}.{}", prefix, stringify!($f))
                    };
                    <$t as Field>::leaves(&name, top, $w, out);
                    top = top.wrapping_sub($w);
                )*
                let _ = top;
            }
        }

        impl Field for $name {
            #[inline(always)]
            fn put(&self, w: &mut BitWriter, _width: u32) {
                self.pack_into(w)
            }
            fn get(r: &mut BitReader, _width: u32) -> Self {
                Self::unpack_from(r)
            }
            fn leaves(name: &str, msb: u32, _width: u32, out: &mut Vec<Leaf>) {
                Self::layout_into(name, msb, out)
            }
        }
    };
}

reg! {
    /// One float lane after stage 1 (unpack, special cases, exponent compare, alignment).
    pub struct S1Lane {
        /// Sign of the product a*b.
        sign_p: bool = 1,
        /// Sign of the addend after `neg_c` / `c_zero`.
        sign_c: bool = 1,
        /// a or b is zero (after flushing): the alignment was forced to put c on top.
        prod_zero: bool = 1,
        /// c is zero (after flushing).
        c_zero: bool = 1,
        /// Reference exponent: window bit k weighs 2^(eref - 107 + k). 14-bit two's complement.
        eref: i16 = EXP_REG_W => exp14_t,
        /// Addend significand placed in the 164-bit window (bits shifted below 0 are in sticky).
        c_aligned: U164 = ALIGN_W,
        /// OR of the addend bits shifted out below window bit 0.
        align_sticky: bool = 1,
        /// The special-case unit decided the result (NaN or infinity).
        spec_valid: bool = 1,
        /// That result, encoded in the kind's format (binary32 in bits 31:0).
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// vmad side-path after stage 1.
    pub struct S1Vmad {
        /// c after the optional one's complement, sign-extended to 80 bits (S8).
        vm_cext: u128 = VM_TMP_W,
        /// One's complement the product (exactly one of a, b negated).
        vm_inv: bool = 1,
        /// The +1 of `.po` or of a negation.
        vm_lsb: bool = 1,
    }
}

reg! {
    /// Stage-1 register bank (`s1_q`): multiplier carry-save pair, vmad side path, two lanes.
    pub struct S1 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// Carry-save tree output, sum row (106 bits, modulo 2^106).
        mul_sum: u128 = MUL_W,
        /// Carry-save tree output, carry row.
        mul_carry: u128 = MUL_W,
        vm: S1Vmad = S1Vmad::WIDTH,
        lane0: S1Lane = S1Lane::WIDTH,
        lane1: S1Lane = S1Lane::WIDTH,
    }
}

reg! {
    /// One float lane after stage 2 (product CPA, sm_1x truncation, add, LZA).
    pub struct S2Lane {
        /// Sign of the result.
        sign: bool = 1,
        /// The exact result is zero (magnitude and sticky both zero); `sign` is its IEEE sign.
        zero: bool = 1,
        /// Sign a result flushed to zero takes (differs from `sign` only for sm_1x with c = 0).
        flush_sign: bool = 1,
        /// Magnitude of the sum in the window, bits 164:0.
        mag: U165 = MAG_W,
        /// Non-zero bits below window bit 0.
        sticky: bool = 1,
        /// Leading-zero anticipator prediction for `mag` (may be off by one either way).
        lza_cnt: u8 = SHIFT_CNT_W,
        eref: i16 = EXP_REG_W => exp14_t,
        spec_valid: bool = 1,
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// Stage-2 register bank (`s2_q`).
    pub struct S2 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// vmad: tmp = (~)product + cext + lsb, modulo 2^80.
        vm_tmp: u128 = VM_TMP_W,
        lane0: S2Lane = S2Lane::WIDTH,
        lane1: S2Lane = S2Lane::WIDTH,
    }
}

reg! {
    /// One float lane after stage 3 (normalisation).
    pub struct S3Lane {
        sign: bool = 1,
        zero: bool = 1,
        flush_sign: bool = 1,
        /// Normalised significand: bit 164 is the leading one unless the value is subnormal.
        norm: U165 = MAG_W,
        sticky: bool = 1,
        /// Unbiased exponent of bit 164 of `norm`. 14-bit two's complement.
        exp: i16 = EXP_REG_W => exp14_t,
        spec_valid: bool = 1,
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// Stage-3 register bank (`s3_q`).
    pub struct S3 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// vmad: the 64-bit result after scaling.
        vm_res: u64 = DATA_W,
        lane0: S3Lane = S3Lane::WIDTH,
        lane1: S3Lane = S3Lane::WIDTH,
    }
}

reg! {
    /// Output register bank (`out_q`): what retires.
    pub struct Out {
        valid: bool = 1,
        tag: u16 = TAG_W,
        d: u64 = DATA_W,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lsb_agrees_with_the_layout() {
        let mut n = 0;
        for (fields, layout) in [
            (S1::FIELDS, S1::layout()),
            (S2::FIELDS, S2::layout()),
            (S3::FIELDS, S3::layout()),
            (S1Lane::FIELDS, S1Lane::layout()),
            (S2Lane::FIELDS, S2Lane::layout()),
            (S3Lane::FIELDS, S3Lane::layout()),
            (Out::FIELDS, Out::layout()),
        ] {
            for (name, width) in fields {
                // A nested bank's leaves are `name.field`: its lowest leaf is its lsb.
                let lsb = layout
                    .iter()
                    .filter(|l| l.name == *name || l.name.starts_with(&format!("{name}.")))
                    .map(|l| l.lsb)
                    .min()
                    .unwrap();
                assert_eq!(field_lsb(fields, name), lsb, "{name}");
                assert!(*width > 0);
                n += 1;
            }
        }
        assert!(n > 40);
        const MUL_SUM: u32 = field_lsb(S1::FIELDS, "mul_sum");
        assert_eq!(MUL_SUM, 2 * S1Lane::WIDTH + S1Vmad::WIDTH + MUL_W);
    }

    #[test]
    fn widths_match_the_document() {
        // docs/microarchitecture.md quotes these totals; the RTL package must agree.
        assert_eq!(S1Lane::WIDTH, 248);
        assert_eq!(S1::WIDTH, 1 + 16 + 27 + 106 + 106 + 82 + 2 * 248);
        assert_eq!(S2Lane::WIDTH, 256);
        assert_eq!(S3Lane::WIDTH, 248);
        assert_eq!(Out::WIDTH, 81);
    }

    /// The word-wise writer and reader against a bit-at-a-time statement of the layout.
    #[test]
    fn chunked_put_and_extract_match_bitwise() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for _ in 0..2000 {
            x = x
                .rotate_left(23)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(1);
            let v = [x, x.rotate_left(17), x.rotate_left(41)];
            let width = 1 + (x % 192) as u32;
            let total = width + (x >> 40) as u32 % 70;
            let mut words = vec![0u32; total.div_ceil(32) as usize];
            let mut w = BitWriter::new(&mut words, total);
            w.put(&v, width);
            let lsb = total - width;
            for i in 0..total {
                let got = (words[(i / 32) as usize] >> (i % 32)) & 1;
                let want = if i >= lsb {
                    let k = i - lsb;
                    (v[(k / 64) as usize] >> (k % 64)) as u32 & 1
                } else {
                    0
                };
                assert_eq!(got, want, "bit {i} width {width} total {total}");
            }
            let back = extract(&words, lsb, width);
            for k in 0..192 {
                let want = if k < width {
                    (v[(k / 64) as usize] >> (k % 64)) & 1
                } else {
                    0
                };
                assert_eq!((back[(k / 64) as usize] >> (k % 64)) & 1, want);
            }
        }
    }

    #[test]
    fn unsigned_fields_read_back_unextended() {
        let s = S3 {
            ctrl: 1 << 23,
            ..Default::default()
        };
        let mut w = vec![0u32; S3::words()];
        s.pack(&mut w);
        assert_eq!(S3::unpack(&w).ctrl, 1 << 23);
    }

    #[test]
    fn pack_unpack_round_trip_and_layout_is_msb_first() {
        let mut s = S2 {
            valid: true,
            tag: 0xBEEF,
            ctrl: 0xABCDE,
            vm_tmp: (1u128 << 79) | 5,
            ..Default::default()
        };
        s.lane1.eref = -3;
        s.lane1.mag = U165::from(1u8) << 164;
        s.lane0.spec_res = u64::MAX;
        let mut w = vec![0u32; S2::words()];
        s.pack(&mut w);
        assert_eq!(S2::unpack(&w), s);
        let lay = S2::layout();
        assert_eq!(lay[0].name, "valid");
        assert_eq!(lay[0].msb, S2::WIDTH - 1);
        // valid is the top bit of the image.
        let top = S2::WIDTH - 1;
        assert_eq!((w[(top / 32) as usize] >> (top % 32)) & 1, 1);
        let last = lay.last().unwrap();
        assert_eq!(last.name, "lane1.spec_res");
        assert_eq!(last.lsb, 0);
        let eref = lay.iter().find(|l| l.name == "lane1.eref").unwrap();
        let v = extract(&w, eref.lsb, eref.width())[0];
        assert_eq!(v, 0x3FFD);
    }
}

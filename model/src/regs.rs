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
///
/// Every read is inlined: once [`Reg::unpack_from`] is inlined into [`Reg::unpack`], each
/// field's position is a constant and its read folds to the one to three word loads it spans.
pub struct BitReader<'a> {
    words: &'a [u32],
    pos: u32,
}

impl<'a> BitReader<'a> {
    /// `width` is the position just above the first field read (the image's width to read a
    /// whole register; a field's top bit + 1 to start at that field).
    #[inline(always)]
    pub fn new(words: &'a [u32], width: u32) -> Self {
        BitReader { words, pos: width }
    }

    /// Takes the next `width` bits (below the current position) as little-endian limbs.
    #[inline(always)]
    pub fn take(&mut self, width: u32) -> [u64; 3] {
        self.pos -= width;
        extract(self.words, self.pos, width)
    }

    /// [`BitReader::take`] of a field of at most 64 bits, as one value.
    #[inline(always)]
    pub fn take64(&mut self, width: u32) -> u64 {
        self.pos -= width;
        extract64(self.words, self.pos, width)
    }

    /// Passes over the next `width` bits without reading them.
    #[inline(always)]
    pub fn skip(&mut self, width: u32) {
        self.pos -= width;
    }
}

/// Bits `lsb + width - 1 .. lsb` of a packed image, as little-endian limbs (width <= 192),
/// zero above `width`: each limb one [`extract64`].
#[inline(always)]
pub fn extract(words: &[u32], lsb: u32, width: u32) -> [u64; 3] {
    let mut out = [0u64; 3];
    for (k, limb) in out.iter_mut().enumerate() {
        let done = 64 * k as u32;
        if done < width {
            *limb = extract64(words, lsb + done, (width - done).min(64));
        }
    }
    out
}

/// Bits `lsb + width - 1 .. lsb` of a packed image, `1 <= width <= 64`: the (at most three)
/// words the field spans, joined and shifted down. Only the words it spans are read.
#[inline(always)]
pub fn extract64(words: &[u32], lsb: u32, width: u32) -> u64 {
    debug_assert!((1..=64).contains(&width));
    let first = (lsb / 32) as usize;
    let last = ((lsb + width - 1) / 32) as usize;
    let mut x = words[first] as u128;
    if last > first {
        x |= (words[first + 1] as u128) << 32;
    }
    if last > first + 1 {
        x |= (words[first + 2] as u128) << 64;
    }
    let v = (x >> (lsb % 32)) as u64;
    if width == 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

/// Where a top-level field lies in a register's packed image, to read that field alone (the
/// coverage sampler reads only the fields and lanes it samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldAt {
    /// The position just above the field's top bit: where a [`BitReader`] starts for it.
    pub top: u32,
    pub width: u32,
}

impl FieldAt {
    /// Field `name` of `R`, from its [`Reg::FIELDS`]. In a constant (`const { .. }`), a name
    /// that is not a field of `R` fails the build.
    pub const fn of<R: Reg>(name: &str) -> FieldAt {
        let mut top = R::WIDTH;
        let mut i = 0;
        while i < R::FIELDS.len() {
            let (field, width) = R::FIELDS[i];
            if str_eq(field, name) {
                return FieldAt { top, width };
            }
            top -= width;
            i += 1;
        }
        panic!("no such field in the register");
    }

    /// The field in a packed image of its register; with a constant `self`, the reads fold to
    /// the words it spans.
    #[inline(always)]
    pub fn read<T: Field>(self, words: &[u32]) -> T {
        T::get(&mut BitReader::new(words, self.top), self.width)
    }
}

/// String equality in a `const fn`.
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
    #[inline(always)]
    fn get(r: &mut BitReader, width: u32) -> Self {
        r.take64(width) & 1 != 0
    }
}

macro_rules! int_field {
    ($extend:ident: $($t:ty),*) => {$(
        impl Field for $t {
            #[inline(always)]
    fn put(&self, w: &mut BitWriter, width: u32) {
                w.put64(*self as u64, width)
            }
            #[inline(always)]
            fn get(r: &mut BitReader, width: u32) -> Self {
                let v = r.take64(width);
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
    #[inline(always)]
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
    #[inline(always)]
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
    const WORDS: usize = Self::WIDTH.div_ceil(32) as usize;

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

    /// The register from its packed image (`words` at least [`Reg::words`] long).
    fn unpack(words: &[u32]) -> Self {
        // A slice of known length: the field reads need no bounds checks.
        let mut r = BitReader::new(&words[..Self::WORDS], Self::WIDTH);
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
            #[inline(always)]
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
            #[inline(always)]
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

    /// A small deterministic generator for the tests' random images.
    fn next(x: &mut u64) -> u64 {
        *x = x
            .rotate_left(23)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(1);
        *x ^ *x >> 29
    }

    /// Bit `i` of a packed image.
    fn bit(words: &[u32], i: u32) -> u64 {
        ((words[(i / 32) as usize] >> (i % 32)) & 1) as u64
    }

    /// The one-value reader against a bit-at-a-time one, at every offset within three words
    /// and every width, the image cut right after the field's last word (so a read of a word
    /// the field does not span would panic).
    #[test]
    fn extract64_matches_bitwise_and_reads_only_the_words_spanned() {
        let mut x = 7u64;
        for width in 1..=64u32 {
            for lsb in 0..96u32 {
                let words: Vec<u32> = (0..(lsb + width).div_ceil(32))
                    .map(|_| next(&mut x) as u32)
                    .collect();
                let want = (0..width).fold(0u64, |v, k| v | bit(&words, lsb + k) << k);
                assert_eq!(
                    extract64(&words, lsb, width),
                    want,
                    "lsb {lsb} width {width}"
                );
            }
        }
    }

    /// `unpack` then `pack` gives back any image (bits above the width aside), for every bank:
    /// each field is read from the bits it is written to. The image is exactly `words()` long.
    fn round_trips<R: Reg + std::fmt::Debug>() {
        let mut x = R::WIDTH as u64;
        for _ in 0..500 {
            let mut img = random_image::<R>(&mut x);
            if R::WIDTH % 32 != 0 {
                *img.last_mut().unwrap() &= (1 << (R::WIDTH % 32)) - 1;
            }
            let r = R::unpack(&img);
            let mut back = vec![0u32; R::WORDS];
            r.pack(&mut back);
            assert_eq!(back, img, "{} {r:?}", R::NAME);
        }
    }

    #[test]
    fn every_bank_round_trips_random_images() {
        round_trips::<S1Lane>();
        round_trips::<S1Vmad>();
        round_trips::<S1>();
        round_trips::<S2Lane>();
        round_trips::<S2>();
        round_trips::<S3Lane>();
        round_trips::<S3>();
        round_trips::<Out>();
    }

    /// Signed fields read back sign-extended from their width, wide ones with nothing above it
    /// (what a round trip cannot see: `pack` drops those bits).
    #[test]
    fn fields_read_back_extended_as_their_type_says() {
        let mut x = 11u64;
        let lay = S2::layout();
        let leaf = |n: &str| lay.iter().find(|l| l.name == n).unwrap().clone();
        for _ in 0..500 {
            let img = random_image::<S2>(&mut x);
            let s = S2::unpack(&img);
            // A leaf of at most 128 bits, bit by bit.
            let value = |l: &Leaf| {
                (l.lsb..=l.msb).fold(0u128, |v, i| v | (bit(&img, i) as u128) << (i - l.lsb))
            };
            let eref = leaf("lane1.eref");
            let raw = value(&eref) as i64;
            let want = raw - ((raw >> (eref.width() - 1)) << eref.width());
            assert_eq!(s.lane1.eref as i64, want);
            assert_eq!(s.vm_tmp, value(&leaf("vm_tmp")));
            let mag = leaf("lane0.mag");
            let limbs = s.lane0.mag.as_limbs();
            for k in 0..192 {
                let want = if k < mag.width() {
                    bit(&img, mag.lsb + k)
                } else {
                    0
                };
                assert_eq!(
                    (limbs[(k / 64) as usize] >> (k % 64)) & 1,
                    want,
                    "mag bit {k}"
                );
            }
        }
    }

    /// Each top-level field starts where the layout puts it.
    fn fields_lie_where_the_layout_says<R: Reg>() {
        let lay = R::layout();
        for &(name, width) in R::FIELDS {
            let at = FieldAt::of::<R>(name);
            assert_eq!(at.width, width, "{name}");
            let first = lay
                .iter()
                .find(|l| l.name == name || l.name.starts_with(&format!("{name}.")))
                .unwrap();
            assert_eq!(at.top, first.msb + 1, "{name}");
        }
    }

    /// A random packed image of `R`, exactly `words()` long.
    fn random_image<R: Reg>(x: &mut u64) -> Vec<u32> {
        (0..R::WORDS).map(|_| next(x) as u32).collect()
    }

    #[test]
    fn a_field_read_alone_is_the_field_of_the_register() {
        fields_lie_where_the_layout_says::<S1>();
        fields_lie_where_the_layout_says::<S2>();
        fields_lie_where_the_layout_says::<S3>();
        let mut x = 3u64;
        for _ in 0..200 {
            let img = random_image::<S1>(&mut x);
            let (r, at) = (S1::unpack(&img), FieldAt::of::<S1>);
            assert_eq!(at("valid").read::<bool>(&img), r.valid);
            assert_eq!(at("tag").read::<u16>(&img), r.tag);
            assert_eq!(at("ctrl").read::<u32>(&img), r.ctrl);
            assert_eq!(at("mul_sum").read::<u128>(&img), r.mul_sum);
            assert_eq!(at("mul_carry").read::<u128>(&img), r.mul_carry);
            assert_eq!(at("vm").read::<S1Vmad>(&img), r.vm);
            assert_eq!(at("lane0").read::<S1Lane>(&img), r.lane0);
            assert_eq!(at("lane1").read::<S1Lane>(&img), r.lane1);

            let img = random_image::<S2>(&mut x);
            let (r, at) = (S2::unpack(&img), FieldAt::of::<S2>);
            assert_eq!(at("ctrl").read::<u32>(&img), r.ctrl);
            assert_eq!(at("vm_tmp").read::<u128>(&img), r.vm_tmp);
            assert_eq!(at("lane0").read::<S2Lane>(&img), r.lane0);
            assert_eq!(at("lane1").read::<S2Lane>(&img), r.lane1);

            let img = random_image::<S3>(&mut x);
            let (r, at) = (S3::unpack(&img), FieldAt::of::<S3>);
            assert_eq!(at("tag").read::<u16>(&img), r.tag);
            assert_eq!(at("vm_res").read::<u64>(&img), r.vm_res);
            assert_eq!(at("lane0").read::<S3Lane>(&img), r.lane0);
            assert_eq!(at("lane1").read::<S3Lane>(&img), r.lane1);
        }
    }

    #[test]
    fn unsigned_fields_read_back_unextended() {
        let s = S3 {
            ctrl: 1 << 23,
            ..Default::default()
        };
        let mut w = vec![0u32; S3::WORDS];
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
        let mut w = vec![0u32; S2::WORDS];
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

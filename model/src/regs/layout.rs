//! Where each value lies in a packed register: [`Field`] (a value of a fixed width),
//! [`Reg`] (a bank: its fields, widths and RTL declaration), [`Leaf`] and [`FieldAt`] (a field's
//! bit range), and `reg!`, which declares a bank and all of these at once so they cannot drift
//! apart. Apart from the banks themselves, which are only a list of `reg!` declarations.

use super::bits::{BitReader, BitWriter};
use crate::wide::Wide;

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

// `banks` declares the banks with it.
pub(super) use reg;

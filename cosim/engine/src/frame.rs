//! A frame: everything the co-simulator compares in one cycle, as 32-bit words.
//!
//! Layout (the C++ shim writes the RTL's frames in the same order):
//! - words 0..4: the output ports `out_valid_o`, `out_tag_o`, `out_d_o` (low word first);
//! - then the packed images of `s1_q`, `s2_q`, `s3_q`, `out_q`, each `Reg::pack`ed (word 0 =
//!   bits 31:0, Verilator's `VlWide` order).
//!
//! Comparing frames is a word compare; only on a difference are the fields located, by walking
//! `Reg::layout`.

use std::ops::Range;
use std::sync::OnceLock;

use bitvec::prelude::*;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::{lanes, LaneEn, Pipeline};
use ptxfma_model::regs::{Leaf, Out, Reg, S1, S2, S3};

/// Words of the output-port block.
pub const PORT_WORDS: usize = 4;
const S1_AT: usize = PORT_WORDS;
const S2_AT: usize = S1_AT + S1::WORDS;
const S3_AT: usize = S2_AT + S2::WORDS;
const OUT_AT: usize = S3_AT + S3::WORDS;
/// Words per frame.
pub const WORDS: usize = OUT_AT + Out::WORDS;

/// A compared unit of the frame: a register bank, or the output ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bank {
    S1,
    S2,
    S3,
    Out,
    Ports,
}

impl Bank {
    /// Pipeline order: when several banks differ in one cycle, the earliest one is named first
    /// (its operation is the youngest to go wrong). The ports mirror `out_q`, so they come last.
    pub const ALL: [Bank; 5] = [Bank::S1, Bank::S2, Bank::S3, Bank::Out, Bank::Ports];

    /// Short name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Bank::S1 => "s1",
            Bank::S2 => "s2",
            Bank::S3 => "s3",
            Bank::Out => "out",
            Bank::Ports => "ports",
        }
    }

    /// The RTL signal holding this bank.
    pub fn rtl_name(self) -> &'static str {
        match self {
            Bank::S1 => "s1_q",
            Bank::S2 => "s2_q",
            Bank::S3 => "s3_q",
            Bank::Out => "out_q",
            Bank::Ports => "output ports",
        }
    }

    /// Words of this bank within a frame.
    pub fn range(self) -> Range<usize> {
        match self {
            Bank::Ports => 0..PORT_WORDS,
            Bank::S1 => S1_AT..S2_AT,
            Bank::S2 => S2_AT..S3_AT,
            Bank::S3 => S3_AT..OUT_AT,
            Bank::Out => OUT_AT..WORDS,
        }
    }

    /// Cycles between an operation being presented at the inputs and being in this bank
    /// (after the edge of the cycle it was presented in, it is in `s1`).
    pub fn age(self) -> u64 {
        match self {
            Bank::S1 => 0,
            Bank::S2 => 1,
            Bank::S3 => 2,
            Bank::Out | Bank::Ports => 3,
        }
    }

    /// The bank's leaf fields with their bit positions within the bank's words.
    pub fn leaves(self) -> &'static [Leaf] {
        static LEAVES: OnceLock<[Vec<Leaf>; 5]> = OnceLock::new();
        let all = LEAVES.get_or_init(|| {
            let port = |name: &str, lsb: u32, width: u32| Leaf {
                name: name.to_string(),
                msb: lsb + width - 1,
                lsb,
            };
            [
                S1::layout(),
                S2::layout(),
                S3::layout(),
                Out::layout(),
                vec![
                    port("out_valid_o", 0, 1),
                    port("out_tag_o", 32, 16),
                    port("out_d_o", 64, 64),
                ],
            ]
        });
        &all[self as usize]
    }
}

/// A field's value: little-endian 64-bit limbs (fields are at most 192 bits wide).
pub type Limbs = [u64; 3];

/// The bits of `leaf` in a bank's words, least significant first: a bit-level view of the
/// packed image, so a field can be read without knowing how it straddles 32-bit words.
pub fn bits<'a>(words: &'a [u32], leaf: &Leaf) -> &'a BitSlice<u32, Lsb0> {
    &words.view_bits::<Lsb0>()[leaf.lsb as usize..=leaf.msb as usize]
}

/// The value of `leaf` in a bank's words.
pub fn field(words: &[u32], leaf: &Leaf) -> Limbs {
    let mut out = [0u64; 3];
    for (limb, chunk) in out.iter_mut().zip(bits(words, leaf).chunks(64)) {
        *limb = chunk.load_le::<u64>();
    }
    out
}

/// Hex text of a `width`-bit value, all digits shown.
pub fn hex(v: &Limbs, width: u32) -> String {
    let digits = width.div_ceil(4) as usize;
    let mut s = String::with_capacity(digits + 2);
    s.push_str("0x");
    for d in (0..digits).rev() {
        let bit = d * 4;
        let nib = (v[bit / 64] >> (bit % 64)) & 0xF;
        s.push(char::from_digit(nib as u32, 16).unwrap());
    }
    s
}

/// Writes the model's observable state after a tick: the output ports (`out` is what `tick`
/// returned) and the four banks, packed.
pub fn write_model(p: &Pipeline, out: &Out, f: &mut [u32]) {
    write_ports(out, f);
    pack_bank(
        &p.s1,
        lanes(&Ctrl::decode(p.s1.ctrl)),
        &mut f[Bank::S1.range()],
    );
    pack_bank(
        &p.s2,
        lanes(&Ctrl::decode(p.s2.ctrl)),
        &mut f[Bank::S2.range()],
    );
    pack_bank(
        &p.s3,
        lanes(&Ctrl::decode(p.s3.ctrl)),
        &mut f[Bank::S3.range()],
    );
    p.out.pack(&mut f[Bank::Out.range()]);
}

/// The output ports' words of a frame: they show `out_q`.
#[inline(always)]
pub fn write_ports(out: &Out, f: &mut [u32]) {
    f[0] = out.valid as u32;
    f[1] = out.tag as u32;
    f[2] = out.d as u32;
    f[3] = (out.d >> 32) as u32;
}

/// A frame's `out_q` and the output ports that show it.
#[inline]
pub fn write_out(out: &Out, f: &mut [u32]) {
    write_ports(out, f);
    out.pack(&mut f[Bank::Out.range()]);
}

/// A stage bank (`en`: the lanes its control word enables), whose last two fields are its
/// lanes: an idle lane (its kind does not use it) is all zero in the model as in the RTL, so
/// its words are written zero without reading it. Most operations leave lane 1 idle, and vmad
/// both.
#[inline(always)]
pub fn pack_bank<R: Reg>(bank: &R, en: LaneEn, words: &mut [u32]) {
    let n = R::FIELDS.len();
    if en.lane1 {
        bank.pack(words);
    } else if en.lane0 {
        bank.pack_first(words, n - 1);
    } else {
        bank.pack_first(words, n - 2);
    }
}

/// One differing field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    pub name: String,
    pub width: u32,
    pub expected: Limbs,
    pub actual: Limbs,
}

/// The banks that differ between two frames, in pipeline order.
pub fn differing_banks(expected: &[u32], actual: &[u32]) -> Vec<Bank> {
    Bank::ALL
        .into_iter()
        .filter(|b| expected[b.range()] != actual[b.range()])
        .collect()
}

/// The differing fields of one bank, in layout order (most significant first).
pub fn differing_fields(bank: Bank, expected: &[u32], actual: &[u32]) -> Vec<FieldDiff> {
    let (e, a) = (&expected[bank.range()], &actual[bank.range()]);
    bank.leaves()
        .iter()
        .filter_map(|l| {
            let (x, y) = (field(e, l), field(a, l));
            (x != y).then(|| FieldDiff {
                name: l.name.clone(),
                width: l.width(),
                expected: x,
                actual: y,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_model` skips idle lanes; the frame must still be every bank packed whole, which
    /// holds only while the model leaves an idle lane all zero, and the lanes are the last two
    /// fields of each stage bank.
    #[test]
    fn skipping_idle_lanes_writes_the_whole_packed_image() {
        for fields in [S1::FIELDS, S2::FIELDS, S3::FIELDS] {
            let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
            assert_eq!(names[names.len() - 2..], ["lane0", "lane1"]);
        }
        let mut p = Pipeline::new();
        let (mut fast, mut whole) = (vec![0u32; WORDS], vec![0u32; WORDS]);
        let stim = crate::stim::Stimulus::new(7, &crate::stim::Family::ALL);
        let mut idle = [0usize; 2];
        for (i, v) in stim.take(20_000).enumerate() {
            let out = p.tick(&v.input(i as u16));
            write_model(&p, &out, &mut fast);
            whole[..PORT_WORDS].copy_from_slice(&fast[..PORT_WORDS]);
            p.s1.pack(&mut whole[Bank::S1.range()]);
            p.s2.pack(&mut whole[Bank::S2.range()]);
            p.s3.pack(&mut whole[Bank::S3.range()]);
            p.out.pack(&mut whole[Bank::Out.range()]);
            assert_eq!(fast, whole, "cycle {i}");
            let en = lanes(&Ctrl::decode(p.s1.ctrl));
            idle[0] += !en.lane0 as usize;
            idle[1] += !en.lane1 as usize;
        }
        // Both shortcuts were taken.
        assert!(idle[0] > 100 && idle[1] > 1000, "idle lanes {idle:?}");
    }

    #[test]
    fn frame_layout_follows_the_registers() {
        // The words the C++ shim writes per cycle: the port words, then each bank in pipeline
        // order rounded up to whole words, with no gap; widths come from the `reg!` declarations.
        let banks = [
            (Bank::S1, S1::WIDTH),
            (Bank::S2, S2::WIDTH),
            (Bank::S3, S3::WIDTH),
            (Bank::Out, Out::WIDTH),
        ];
        assert_eq!(Bank::Ports.range(), 0..PORT_WORDS);
        let mut at = PORT_WORDS;
        for (bank, width) in banks {
            let range = bank.range();
            assert_eq!(
                range.start,
                at,
                "{} starts after the bank before it",
                bank.name()
            );
            assert_eq!(
                range.len(),
                width.div_ceil(32) as usize,
                "{} words",
                bank.name()
            );
            at = range.end;
        }
        assert_eq!(at, WORDS);
    }

    #[test]
    fn a_difference_is_located_to_its_field() {
        let p = Pipeline::new();
        let out = Out::default();
        let mut e = vec![0u32; WORDS];
        write_model(&p, &out, &mut e);
        let mut a = e.clone();
        // Flip the lowest bit of s2's lane0.eref (14 bits) by finding it in the layout.
        let leaf = Bank::S2
            .leaves()
            .iter()
            .find(|l| l.name == "lane0.eref")
            .unwrap();
        let at = Bank::S2.range().start + (leaf.lsb / 32) as usize;
        a[at] ^= 1 << (leaf.lsb % 32);
        assert_eq!(differing_banks(&e, &a), vec![Bank::S2]);
        let d = differing_fields(Bank::S2, &e, &a);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].name, "lane0.eref");
        assert_eq!(d[0].actual[0], 1);
        assert_eq!(hex(&d[0].actual, 14), "0x0001");
    }

    #[test]
    fn bit_view_agrees_with_the_model_reader() {
        let mut words = vec![0u32; S1::WORDS];
        for (i, w) in words.iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x5A5A_A5A5;
        }
        for leaf in S1::layout() {
            let want = ptxfma_model::regs::extract(&words, leaf.lsb, leaf.width());
            assert_eq!(field(&words, &leaf), want, "{}", leaf.name);
        }
    }

    #[test]
    fn ports_are_named() {
        let e = vec![0u32; WORDS];
        let mut a = e.clone();
        a[3] = 0x8000_0000;
        let d = differing_fields(Bank::Ports, &e, &a);
        assert_eq!(d[0].name, "out_d_o");
        assert_eq!(hex(&d[0].actual, 64), "0x8000000000000000");
    }
}

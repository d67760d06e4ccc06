//! The banks' packed images: the word-wise writer and readers against bit-at-a-time
//! statements of the layout, and every bank written and read back.

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

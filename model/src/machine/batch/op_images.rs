//! The images path: every register bank of a group as its packed image ([`Images`]), the
//! words [`Reg::pack`] writes, built lane-parallel from the stages' vectors. The co-simulator's
//! reference copies these straight into its frames (the scalar banks, `OpBanks`, packed bit by
//! bit cost as much as computing them).
//!
//! Each field, masked to its width, is ORed into the 64-bit image word(s) it overlaps, one
//! vector per image word; the positions are constants from the `reg!` layout
//! ([`FieldAt::of`]), so each field folds to a shift and an OR or two. The lanes a kind leaves
//! idle and the vmad side path are zero in the scalar banks and are left zero here.

use super::banks::{S1x, S2x, S3x};
use super::booth::{pair, pair_narrow, pair_two_lanes};
use super::stages::{stage1, stage2, stage3, stage4};
use super::{F32, F64, HALF, HALF_HI, N};
use crate::ctrl::{AbFmt, Ctrl, CTRL_BITS};
use crate::machine::lanes::Lanes;
use crate::machine::pipe_in::PipeIn;
use crate::regs::{FieldAt, Out, Reg, S1Lane, S2Lane, S3Lane, S1, S2, S3};

/// 64-bit words the images are built in.
const S1_W64: usize = S1::WIDTH.div_ceil(64) as usize;
const S2_W64: usize = S2::WIDTH.div_ceil(64) as usize;
const S3_W64: usize = S3::WIDTH.div_ceil(64) as usize;
const OUT_W64: usize = Out::WIDTH.div_ceil(64) as usize;

/// The control word's defined bits: what a bank's `ctrl` holds of the input's.
const CTRL_MASK: u32 = (1 << CTRL_BITS) - 1;

/// The packed banks of a group of `N` operations, operation by operation, each equal to
/// [`Reg::pack`] of the bank [`OpBanks::of`](crate::machine::pipeline::OpBanks::of) gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Images {
    pub s1: [[u32; S1::WORDS]; N],
    pub s2: [[u32; S2::WORDS]; N],
    pub s3: [[u32; S3::WORDS]; N],
    pub out: [[u32; Out::WORDS]; N],
    /// The result words (`out.d`), for the output ports.
    pub d: [u64; N],
}

impl Default for Images {
    fn default() -> Images {
        Images {
            s1: [[0; S1::WORDS]; N],
            s2: [[0; S2::WORDS]; N],
            s3: [[0; S3::WORDS]; N],
            out: [[0; Out::WORDS]; N],
            d: [0; N],
        }
    }
}

/// A field's place in an image: its lowest bit and its width.
#[derive(Clone, Copy)]
struct At {
    lsb: u32,
    width: u32,
}

/// Field `name` of `R`, whose image starts at bit `base` of the bank's image.
const fn at<R: Reg>(base: u32, name: &str) -> At {
    let f = FieldAt::of::<R>(name);
    At {
        lsb: base + f.top - f.width,
        width: f.width,
    }
}

/// The header every bank starts with.
#[derive(Clone, Copy)]
struct Head {
    valid: At,
    tag: At,
    ctrl: Option<At>,
}

const fn head<R: Reg>(ctrl: bool) -> Head {
    Head {
        valid: at::<R>(0, "valid"),
        tag: at::<R>(0, "tag"),
        ctrl: if ctrl { Some(at::<R>(0, "ctrl")) } else { None },
    }
}

/// Positions of an S1 lane's fields in `S1`'s image.
#[derive(Clone, Copy)]
struct S1LaneAt {
    sign_p: At,
    sign_c: At,
    prod_zero: At,
    c_zero: At,
    eref: At,
    c_aligned: At,
    align_sticky: At,
    spec_valid: At,
    spec_res: At,
}

const fn s1_lane(lane: &str) -> S1LaneAt {
    let b = at::<S1>(0, lane).lsb;
    S1LaneAt {
        sign_p: at::<S1Lane>(b, "sign_p"),
        sign_c: at::<S1Lane>(b, "sign_c"),
        prod_zero: at::<S1Lane>(b, "prod_zero"),
        c_zero: at::<S1Lane>(b, "c_zero"),
        eref: at::<S1Lane>(b, "eref"),
        c_aligned: at::<S1Lane>(b, "c_aligned"),
        align_sticky: at::<S1Lane>(b, "align_sticky"),
        spec_valid: at::<S1Lane>(b, "spec_valid"),
        spec_res: at::<S1Lane>(b, "spec_res"),
    }
}

/// Positions of an S2 lane's fields in `S2`'s image.
#[derive(Clone, Copy)]
struct S2LaneAt {
    sign: At,
    zero: At,
    flush_sign: At,
    mag: At,
    sticky: At,
    lza_cnt: At,
    eref: At,
    spec_valid: At,
    spec_res: At,
}

const fn s2_lane(lane: &str) -> S2LaneAt {
    let b = at::<S2>(0, lane).lsb;
    S2LaneAt {
        sign: at::<S2Lane>(b, "sign"),
        zero: at::<S2Lane>(b, "zero"),
        flush_sign: at::<S2Lane>(b, "flush_sign"),
        mag: at::<S2Lane>(b, "mag"),
        sticky: at::<S2Lane>(b, "sticky"),
        lza_cnt: at::<S2Lane>(b, "lza_cnt"),
        eref: at::<S2Lane>(b, "eref"),
        spec_valid: at::<S2Lane>(b, "spec_valid"),
        spec_res: at::<S2Lane>(b, "spec_res"),
    }
}

/// Positions of an S3 lane's fields in `S3`'s image.
#[derive(Clone, Copy)]
struct S3LaneAt {
    sign: At,
    zero: At,
    flush_sign: At,
    norm: At,
    sticky: At,
    exp: At,
    spec_valid: At,
    spec_res: At,
}

const fn s3_lane(lane: &str) -> S3LaneAt {
    let b = at::<S3>(0, lane).lsb;
    S3LaneAt {
        sign: at::<S3Lane>(b, "sign"),
        zero: at::<S3Lane>(b, "zero"),
        flush_sign: at::<S3Lane>(b, "flush_sign"),
        norm: at::<S3Lane>(b, "norm"),
        sticky: at::<S3Lane>(b, "sticky"),
        exp: at::<S3Lane>(b, "exp"),
        spec_valid: at::<S3Lane>(b, "spec_valid"),
        spec_res: at::<S3Lane>(b, "spec_res"),
    }
}

const S1_HEAD: Head = head::<S1>(true);
const S2_HEAD: Head = head::<S2>(true);
const S3_HEAD: Head = head::<S3>(true);
const OUT_HEAD: Head = head::<Out>(false);
const MUL_SUM: At = at::<S1>(0, "mul_sum");
const MUL_CARRY: At = at::<S1>(0, "mul_carry");
const OUT_D: At = at::<Out>(0, "d");
const S1_LANES: [S1LaneAt; 2] = [s1_lane("lane0"), s1_lane("lane1")];
const S2_LANES: [S2LaneAt; 2] = [s2_lane("lane0"), s2_lane("lane1")];
const S3_LANES: [S3LaneAt; 2] = [s3_lane("lane0"), s3_lane("lane1")];

/// An image being built: vector `j` holds bits `64 j + 63 .. 64 j` of each operation's image.
struct Image<L, const NW: usize>([L; NW]);

impl<L: Lanes, const NW: usize> Image<L, NW> {
    #[inline(always)]
    fn zero() -> Self {
        Image([L::zero(); NW])
    }

    /// A field of at most 64 bits: the low `at.width` bits of each lane (bits above are
    /// dropped, as `Reg::pack` drops them).
    #[inline(always)]
    fn put(&mut self, v: L, at: At) {
        debug_assert!(at.width <= 64);
        let v = if at.width < 64 {
            v.and(L::splat((1 << at.width) - 1))
        } else {
            v
        };
        let (j, s) = ((at.lsb / 64) as usize, at.lsb % 64);
        self.0[j] = self.0[j].or(if s == 0 { v } else { v.shl(s) });
        if s + at.width > 64 {
            self.0[j + 1] = self.0[j + 1].or(v.shr(64 - s));
        }
    }

    /// A one-bit field from a flag (any non-zero word is set: the stages' flags are masks).
    #[inline(always)]
    fn flag(&mut self, v: L, at: At) {
        debug_assert!(at.width == 1);
        self.put(L::splat(1).andn(v.is0()), at);
    }

    /// A field of up to three 64-bit limbs, little-endian.
    #[inline(always)]
    fn wide(&mut self, limbs: &[L], at: At) {
        let mut done = 0;
        for &limb in limbs {
            if done < at.width {
                let width = (at.width - done).min(64);
                self.put(
                    limb,
                    At {
                        lsb: at.lsb + done,
                        width,
                    },
                );
            }
            done += 64;
        }
    }

    /// Valid, tag and (for the stage banks) the control word.
    #[inline(always)]
    fn head(&mut self, h: &Head, [valid, tag, ctrl]: [L; 3]) {
        self.put(valid, h.valid);
        self.put(tag, h.tag);
        if let Some(at) = h.ctrl {
            self.put(ctrl, at);
        }
    }

    /// The images of operations `0..L::LANES` into `rows`, as 32-bit words.
    #[inline(always)]
    fn store<const M: usize>(&self, rows: &mut [[u32; M]]) {
        const { assert!(M.div_ceil(2) == NW) };
        let mut t = [[0u64; N]; NW];
        for (v, t) in self.0.iter().zip(&mut t) {
            v.store(t);
        }
        for (i, row) in rows[..L::LANES].iter_mut().enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = (t[j / 2][i] >> (32 * (j % 2))) as u32;
            }
        }
    }
}

#[inline(always)]
fn put_s1<L: Lanes>(img: &mut Image<L, S1_W64>, p: &S1LaneAt, s: &S1x<L>) {
    img.flag(s.sign_p, p.sign_p);
    img.flag(s.sign_c, p.sign_c);
    img.flag(s.prod_zero, p.prod_zero);
    img.flag(s.c_zero, p.c_zero);
    img.put(s.eref, p.eref);
    img.wide(&s.c_aligned.0, p.c_aligned);
    img.flag(s.align_sticky, p.align_sticky);
    img.flag(s.spec_valid, p.spec_valid);
    img.put(s.spec_res, p.spec_res);
}

#[inline(always)]
fn put_s2<L: Lanes>(img: &mut Image<L, S2_W64>, p: &S2LaneAt, s: &S2x<L>) {
    img.flag(s.sign, p.sign);
    img.flag(s.zero, p.zero);
    img.flag(s.flush_sign, p.flush_sign);
    img.wide(&s.mag.0, p.mag);
    img.flag(s.sticky, p.sticky);
    img.put(s.lza_cnt, p.lza_cnt);
    img.put(s.eref, p.eref);
    img.flag(s.spec_valid, p.spec_valid);
    img.put(s.spec_res, p.spec_res);
}

#[inline(always)]
fn put_s3<L: Lanes>(img: &mut Image<L, S3_W64>, p: &S3LaneAt, s: &S3x<L>) {
    img.flag(s.sign, p.sign);
    img.flag(s.zero, p.zero);
    img.flag(s.flush_sign, p.flush_sign);
    img.wide(&s.norm.0, p.norm);
    img.flag(s.sticky, p.sticky);
    img.put(s.exp, p.exp);
    img.flag(s.spec_valid, p.spec_valid);
    img.put(s.spec_res, p.spec_res);
}

/// Each input's valid, tag and control word (its defined bits), a word per operation.
#[inline(always)]
fn heads(g: &[PipeIn; N]) -> [[u64; N]; 3] {
    [
        g.map(|x| x.valid as u64),
        g.map(|x| x.tag as u64),
        g.map(|x| (x.ctrl & CTRL_MASK) as u64),
    ]
}

/// Every bank image of a group of sixteen inputs of one control word of kind `KIND` (`F32`
/// for f32x2, `HALF` for half2, with `TWO`: both lanes), `W` = `L::LANES` at a time, into
/// `out`. Stage by stage over both lanes, so that one bank's image is live at a time.
#[inline(always)]
pub(super) fn images_body<L: Lanes, const KIND: u8, const TWO: bool, const W: usize>(
    ctrl: &Ctrl,
    g: &[PipeIn; N],
    out: &mut Images,
) {
    const { assert!(N.is_multiple_of(W)) };
    assert_eq!(W, L::LANES);
    let w = PipeIn::words(g);
    let heads = heads(g);
    for k in (0..N).step_by(W) {
        let [a, b, c] = L::load3_of4(&w[PipeIn::WORDS * k..]);
        let h = heads.map(|x| L::load(&x[k..]));

        let mut img1 = Image::<L, S1_W64>::zero();
        img1.head(&S1_HEAD, h);
        let x0 = stage1::<L, KIND>(ctrl, a, b, c);
        put_s1(&mut img1, &S1_LANES[0], &x0);
        let x1 = if TWO && KIND == HALF {
            Some(stage1::<L, HALF_HI>(ctrl, a, b, c))
        } else if TWO {
            // f16/bf16 sources are always bits 15:0 (`unpack::lane_operands`).
            let ab = if ctrl.ab_fmt == AbFmt::Native { 32 } else { 0 };
            Some(stage1::<L, F32>(ctrl, a.shr(ab), b.shr(ab), c.shr(32)))
        } else {
            None
        };
        let p = match &x1 {
            Some(x1) => {
                put_s1(&mut img1, &S1_LANES[1], x1);
                pair_two_lanes([x0.mcand, x1.mcand], [x0.mplier, x1.mplier])
            }
            None if KIND == F64 => pair(x0.mcand, x0.mcand, x0.mplier),
            None => pair_narrow(x0.mcand, x0.mplier),
        };
        img1.wide(&p.sum, MUL_SUM);
        img1.wide(&p.carry, MUL_CARRY);
        img1.store(&mut out.s1[k..]);

        let mut img2 = Image::<L, S2_W64>::zero();
        img2.head(&S2_HEAD, h);
        let y0 = stage2::<L, KIND, true>(ctrl, &x0);
        put_s2(&mut img2, &S2_LANES[0], &y0);
        let y1 = x1.map(|x1| {
            // Lane 1's kind: half2's reads bits 31:16 (`HALF_HI`), f32x2's is binary32.
            let y1 = if KIND == HALF {
                stage2::<L, HALF_HI, true>(ctrl, &x1)
            } else {
                stage2::<L, F32, true>(ctrl, &x1)
            };
            put_s2(&mut img2, &S2_LANES[1], &y1);
            y1
        });
        img2.store(&mut out.s2[k..]);

        let mut img3 = Image::<L, S3_W64>::zero();
        img3.head(&S3_HEAD, h);
        let z0 = stage3::<L, KIND>(ctrl, &y0);
        put_s3(&mut img3, &S3_LANES[0], &z0);
        let z1 = y1.map(|y1| {
            let z1 = if KIND == HALF {
                stage3::<L, HALF_HI>(ctrl, &y1)
            } else {
                stage3::<L, F32>(ctrl, &y1)
            };
            put_s3(&mut img3, &S3_LANES[1], &z1);
            z1
        });
        img3.store(&mut out.s3[k..]);

        let d0 = stage4::<L, KIND>(ctrl, &z0);
        let d = match z1 {
            Some(z1) if KIND == HALF => stage4::<L, HALF_HI>(ctrl, &z1).shl(16).or(d0),
            Some(z1) => stage4::<L, F32>(ctrl, &z1).shl(32).or(d0),
            None => d0,
        };
        let mut img4 = Image::<L, OUT_W64>::zero();
        img4.head(&OUT_HEAD, h);
        img4.put(d, OUT_D);
        img4.store(&mut out.out[k..]);
        d.store(&mut out.d[k..]);
    }
}

//! Fixed-width unsigned integers of 129..=192 bits in three 64-bit limbs, for the adder-side
//! windows (164, 165 and 166 bits).
//!
//! A general big-integer crate spends most of its time on width-generic loops and bounds
//! handling; the datapath needs only a handful of operations on exactly three limbs, written out
//! here straight-line so that they compile to a few instructions each. Bits at and above `B` are
//! always zero (every constructor and every operation that could set them masks them off), so
//! equality, `is_zero` and `leading_zeros` can look at the limbs directly.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// An unsigned integer of `B` bits (129 <= B <= 192), limbs little-endian.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Wide<const B: usize>([u64; 3]);

/// `hi:lo << r`, upper half (a funnel shift; `r < 64`).
#[inline(always)]
fn funnel_l(hi: u64, lo: u64, r: u32) -> u64 {
    ((((hi as u128) << 64) | lo as u128) << r >> 64) as u64
}

/// `hi:lo >> r`, lower half (`r < 64`).
#[inline(always)]
fn funnel_r(hi: u64, lo: u64, r: u32) -> u64 {
    ((((hi as u128) << 64) | lo as u128) >> r) as u64
}

/// Limb `i` of a mask of the low `n` bits, without branches (`n` is a runtime shift amount).
#[inline(always)]
const fn mask_limb(n: usize, i: usize) -> u64 {
    let lo = 64 * i;
    // Bits of this limb below `n`: 0..=64 of them.
    let k = n.saturating_sub(lo);
    let k = if k > 64 { 64 } else { k };
    // (1 << k) - 1 for k in 0..=64, via a shift that cannot overflow.
    ((1u128 << k) - 1) as u64
}

impl<const B: usize> Wide<B> {
    /// Width in bits.
    pub const BITS: usize = B;
    /// Mask of the valid bits of the top limb.
    pub const TOP_MASK: u64 = {
        assert!(B > 128 && B <= 192);
        if B == 192 {
            !0
        } else {
            (1u64 << (B - 128)) - 1
        }
    };
    pub const ZERO: Self = Wide([0; 3]);

    /// Takes little-endian limbs, dropping bits at and above `B`.
    #[inline(always)]
    pub const fn from_limbs(l: [u64; 3]) -> Self {
        Wide([l[0], l[1], l[2] & Self::TOP_MASK])
    }

    #[inline(always)]
    pub const fn as_limbs(&self) -> &[u64; 3] {
        &self.0
    }

    #[inline(always)]
    pub const fn is_zero(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2]) == 0
    }

    /// Bit `i` (`i < B`).
    #[inline(always)]
    pub const fn bit(&self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 != 0
    }

    /// Leading zeros counted within the `B`-bit width (`B` for zero).
    #[inline(always)]
    pub const fn leading_zeros(&self) -> usize {
        // Branch-free: a zero limb counts 64 and lets the next one down add its count.
        let [l0, l1, l2] = self.0;
        let m2 = 0u32.wrapping_sub((l2 == 0) as u32);
        let m1 = 0u32.wrapping_sub((l1 == 0) as u32);
        let lz192 = l2.leading_zeros() + (m2 & (l1.leading_zeros() + (m1 & l0.leading_zeros())));
        lz192 as usize - (192 - B)
    }

    /// The low `n` bits set (`n` saturates at `B`).
    #[inline(always)]
    pub const fn low_mask(n: usize) -> Self {
        Self::from_limbs([mask_limb(n, 0), mask_limb(n, 1), mask_limb(n, 2)])
    }

    /// Sum modulo 2^B.
    #[inline(always)]
    pub const fn wrapping_add(self, o: Self) -> Self {
        let (s0, c0) = self.0[0].overflowing_add(o.0[0]);
        let (s1, c1a) = self.0[1].overflowing_add(o.0[1]);
        let (s1, c1b) = s1.overflowing_add(c0 as u64);
        let s2 = self.0[2]
            .wrapping_add(o.0[2])
            .wrapping_add((c1a | c1b) as u64);
        Self::from_limbs([s0, s1, s2])
    }

    /// The same value in another width of three limbs, dropping bits at and above `C`.
    #[inline(always)]
    pub const fn resize<const C: usize>(self) -> Wide<C> {
        Wide::<C>::from_limbs(self.0)
    }

    /// `a` if `c`, else `b`, as masks rather than a branch.
    #[inline(always)]
    pub const fn select(c: bool, a: Self, b: Self) -> Self {
        let m = 0u64.wrapping_sub(c as u64);
        Wide([
            (a.0[0] & m) | (b.0[0] & !m),
            (a.0[1] & m) | (b.0[1] & !m),
            (a.0[2] & m) | (b.0[2] & !m),
        ])
    }

    /// `self >> n` and whether any set bit was shifted out (`n` may reach or exceed `B`).
    #[inline(always)]
    pub fn shr_sticky(self, n: usize) -> (Self, bool) {
        let lost = self & Self::low_mask(n);
        (self >> n, !lost.is_zero())
    }
}

/// Limb `i` of `x` moved up by `q` limbs (zero below), chosen without branches.
#[inline(always)]
fn limb_up(t: [u64; 3], q: usize, i: usize) -> u64 {
    let pick = |k: usize| if i >= k { t[i - k] } else { 0 };
    let v = if q == 0 { pick(0) } else { pick(1) };
    if q >= 2 {
        pick(2)
    } else {
        v
    }
}

/// Limb `i` of `x` moved down by `q` limbs (zero above), chosen without branches.
#[inline(always)]
fn limb_down(t: [u64; 3], q: usize, i: usize) -> u64 {
    let pick = |k: usize| if i + k < 3 { t[i + k] } else { 0 };
    let v = if q == 0 { pick(0) } else { pick(1) };
    if q >= 2 {
        pick(2)
    } else {
        v
    }
}

/// All ones when `n < B`: a shift by the whole width or more gives zero.
#[inline(always)]
fn in_range(n: usize, b: usize) -> u64 {
    0u64.wrapping_sub((n < b) as u64)
}

impl<const B: usize> Shl<usize> for Wide<B> {
    type Output = Self;
    /// Shifts left, dropping bits at and above `B`; `n >= B` gives zero. Written as a bit shift
    /// and a limb select so that it has no data-dependent branch (shift amounts are random).
    #[inline(always)]
    fn shl(self, n: usize) -> Self {
        let [l0, l1, l2] = self.0;
        let r = (n % 64) as u32;
        let t = [funnel_l(l0, 0, r), funnel_l(l1, l0, r), funnel_l(l2, l1, r)];
        let q = n / 64;
        let m = in_range(n, B);
        Self::from_limbs([
            limb_up(t, q, 0) & m,
            limb_up(t, q, 1) & m,
            limb_up(t, q, 2) & m,
        ])
    }
}

impl<const B: usize> Shr<usize> for Wide<B> {
    type Output = Self;
    /// Shifts right; `n >= B` gives zero. Branch-free like [`Shl`].
    #[inline(always)]
    fn shr(self, n: usize) -> Self {
        let [l0, l1, l2] = self.0;
        let r = (n % 64) as u32;
        let t = [funnel_r(l1, l0, r), funnel_r(l2, l1, r), funnel_r(0, l2, r)];
        let q = n / 64;
        let m = in_range(n, B);
        Wide([
            limb_down(t, q, 0) & m,
            limb_down(t, q, 1) & m,
            limb_down(t, q, 2) & m,
        ])
    }
}

impl<const B: usize> Not for Wide<B> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Self::from_limbs([!self.0[0], !self.0[1], !self.0[2]])
    }
}

macro_rules! bitwise {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<const B: usize> $tr for Wide<B> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Wide([self.0[0] $op o.0[0], self.0[1] $op o.0[1], self.0[2] $op o.0[2]])
            }
        }
    };
}
bitwise!(BitAnd, bitand, &);
bitwise!(BitOr, bitor, |);
bitwise!(BitXor, bitxor, ^);

impl<const B: usize> From<u8> for Wide<B> {
    fn from(v: u8) -> Self {
        Wide([v as u64, 0, 0])
    }
}

impl<const B: usize> From<u64> for Wide<B> {
    fn from(v: u64) -> Self {
        Wide([v, 0, 0])
    }
}

impl<const B: usize> From<u128> for Wide<B> {
    fn from(v: u128) -> Self {
        Wide([v as u64, (v >> 64) as u64, 0])
    }
}

impl<const B: usize> fmt::LowerHex for Wide<B> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if f.alternate() {
            f.write_str("0x")?;
        }
        let [l0, l1, l2] = self.0;
        if l2 != 0 {
            write!(f, "{l2:x}{l1:016x}{l0:016x}")
        } else if l1 != 0 {
            write!(f, "{l1:x}{l0:016x}")
        } else {
            write!(f, "{l0:x}")
        }
    }
}

impl<const B: usize> fmt::Debug for Wide<B> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{self:#x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruint::Uint;

    /// Random values with runs of zeros and ones, so carries and shifts cross limbs.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn limbs(&mut self) -> [u64; 3] {
            let mut l = [self.next(), self.next(), self.next()];
            for x in l.iter_mut() {
                match self.next() % 5 {
                    0 => *x = 0,
                    1 => *x = !0,
                    2 => *x >>= self.next() % 64,
                    _ => {}
                }
            }
            l
        }
    }

    fn check<const B: usize>() {
        type R<const B: usize> = Uint<B, 3>;
        let to_r = |w: Wide<B>| R::<B>::from_limbs(*w.as_limbs());
        let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ B as u64);
        for _ in 0..2000 {
            let (la, lb) = (rng.limbs(), rng.limbs());
            let (a, b) = (Wide::<B>::from_limbs(la), Wide::<B>::from_limbs(lb));
            let (ra, rb) = (to_r(a), to_r(b));
            // The mask agrees with ruint's.
            assert_eq!(Wide::<B>::TOP_MASK, R::<B>::MASK);
            assert_eq!(*a.as_limbs(), *ra.as_limbs());
            assert_eq!(to_r(!a), !ra);
            assert_eq!(to_r(a & b), ra & rb);
            assert_eq!(to_r(a | b), ra | rb);
            assert_eq!(to_r(a ^ b), ra ^ rb);
            assert_eq!(to_r(a.wrapping_add(b)), ra.wrapping_add(rb));
            assert_eq!(a.is_zero(), ra.is_zero());
            assert_eq!(a.leading_zeros(), ra.leading_zeros());
            for i in 0..B {
                assert_eq!(a.bit(i), ra.bit(i));
            }
            for n in 0..=B + 3 {
                assert_eq!(to_r(a << n), ra << n, "{a:#x} << {n}");
                assert_eq!(to_r(a >> n), ra >> n, "{a:#x} >> {n}");
                let (s, st) = a.shr_sticky(n);
                assert_eq!((to_r(s), st), (ra >> n, (ra >> n) << n != ra));
                let m = if n >= B {
                    R::<B>::MAX
                } else {
                    (R::<B>::from(1u8) << n).wrapping_sub(R::<B>::from(1u8))
                };
                assert_eq!(to_r(Wide::<B>::low_mask(n)), m);
            }
            // Resizing keeps the low bits of the value and drops those above the new width.
            let l = *a.as_limbs();
            let r166 = Uint::<166, 3>::from_limbs([l[0], l[1], l[2] & ((1 << 38) - 1)]);
            assert_eq!(*a.resize::<166>().as_limbs(), *r166.as_limbs());
            let r165 = Uint::<165, 3>::from_limbs([l[0], l[1], l[2] & ((1 << 37) - 1)]);
            assert_eq!(*a.resize::<165>().as_limbs(), *r165.as_limbs());
            assert_eq!(format!("{a:x}"), format!("{ra:x}"));
        }
        assert_eq!(Wide::<B>::ZERO.leading_zeros(), B);
        let x = 0x1234_5678_9ABC_DEF0_1122_3344_5566_7788u128;
        assert_eq!(to_r(Wide::<B>::from(x)), R::<B>::from(x));
        assert_eq!(to_r(Wide::<B>::from(7u64)), R::<B>::from(7u64));
        assert_eq!(to_r(Wide::<B>::from(7u8)), R::<B>::from(7u8));
    }

    #[test]
    fn agrees_with_ruint_164() {
        check::<164>();
    }
    #[test]
    fn agrees_with_ruint_165() {
        check::<165>();
    }
    #[test]
    fn agrees_with_ruint_166() {
        check::<166>();
    }
    #[test]
    fn agrees_with_ruint_192() {
        check::<192>();
    }
}

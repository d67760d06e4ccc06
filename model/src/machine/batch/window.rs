//! The lane engine's wide value: a 164- to 166-bit window (the scalar [`Wide`](crate::wide::Wide))
//! as three 64-bit limbs per lane, with the operations the stages apply to it (logic, add,
//! shifts by a constant or per lane with sticky, leading zeros), written branch-free.

use crate::machine::lanes::Lanes;

/// A 3-limb window value per lane (the scalar `Wide`), limbs little-endian.
#[derive(Clone, Copy)]
pub(crate) struct Window<L>(pub [L; 3]);

impl<L: Lanes> Window<L> {
    #[cfg(test)]
    pub(super) fn lane<const B: usize>(&self, i: usize) -> crate::wide::Wide<B> {
        let l = |k: usize| self.0[k].to_vec()[i];
        crate::wide::Wide::from_limbs([l(0), l(1), l(2)])
    }

    /// Drops bits at and above `b`.
    #[inline(always)]
    pub(super) fn trunc(self, b: u32) -> Self {
        let top = crate::wide::Wide::<192>::low_mask(b as usize).as_limbs()[2];
        Window([self.0[0], self.0[1], self.0[2].and(L::splat(top))])
    }

    #[inline(always)]
    pub(super) fn not(self, b: u32) -> Self {
        Window([self.0[0].not(), self.0[1].not(), self.0[2].not()]).trunc(b)
    }

    #[inline(always)]
    pub(super) fn and(self, o: Self) -> Self {
        Window([
            self.0[0].and(o.0[0]),
            self.0[1].and(o.0[1]),
            self.0[2].and(o.0[2]),
        ])
    }

    #[inline(always)]
    pub(super) fn or(self, o: Self) -> Self {
        Window([
            self.0[0].or(o.0[0]),
            self.0[1].or(o.0[1]),
            self.0[2].or(o.0[2]),
        ])
    }

    #[inline(always)]
    pub(super) fn xor(self, o: Self) -> Self {
        Window([
            self.0[0].xor(o.0[0]),
            self.0[1].xor(o.0[1]),
            self.0[2].xor(o.0[2]),
        ])
    }

    #[inline(always)]
    pub(super) fn xor_mask(self, k: L, b: u32) -> Self {
        Window([self.0[0].xor(k), self.0[1].xor(k), self.0[2].xor(k)]).trunc(b)
    }

    #[inline(always)]
    pub(super) fn sel(k: L, a: Self, b: Self) -> Self {
        Window([
            k.sel(a.0[0], b.0[0]),
            k.sel(a.0[1], b.0[1]),
            k.sel(a.0[2], b.0[2]),
        ])
    }

    #[inline(always)]
    pub(super) fn is0(self) -> L {
        self.0[0].or(self.0[1]).or(self.0[2]).is0()
    }

    /// Bit `i` as a mask.
    #[inline(always)]
    pub(super) fn bitm(self, i: u32) -> L {
        self.0[(i / 64) as usize].bitm(i % 64)
    }

    /// Sum modulo 2^b.
    #[inline(always)]
    pub(super) fn add(self, o: Self, b: u32) -> Self {
        let s0 = self.0[0].add(o.0[0]);
        let c0 = s0.ltu(o.0[0]).bit01();
        let t1 = self.0[1].add(o.0[1]);
        let c1a = t1.ltu(o.0[1]);
        let s1 = t1.add(c0);
        let c1b = s1.ltu(t1);
        let s2 = self.0[2].add(o.0[2]).add(c1a.or(c1b).bit01());
        Window([s0, s1, s2]).trunc(b)
    }

    /// Adds a 0/1 value per lane (a carry-in) modulo 2^b: a limb carries out only where it is
    /// all ones and a carry comes in.
    #[inline(always)]
    pub(super) fn add_bit(self, c: L, b: u32) -> Self {
        let [l0, l1, l2] = self.0;
        let ones = L::splat(!0);
        let c1 = l0.cmpeq(ones).and(c);
        let c2 = l1.cmpeq(ones).and(c1);
        Window([l0.add(c), l1.add(c1), l2.add(c2)]).trunc(b)
    }

    /// Left shift by a constant `0 < n < 64`, modulo 2^b.
    #[inline(always)]
    pub(super) fn shl_c(self, n: u32, b: u32) -> Self {
        let [l0, l1, l2] = self.0;
        Window([
            l0.shl(n),
            l1.shl(n).or(l0.shr(64 - n)),
            l2.shl(n).or(l1.shr(64 - n)),
        ])
        .trunc(b)
    }

    /// Right shift by a constant `0 < n < 64`.
    #[inline(always)]
    pub(super) fn shr_c(self, n: u32) -> Self {
        let [l0, l1, l2] = self.0;
        Window([
            l0.shr(n).or(l1.shl(64 - n)),
            l1.shr(n).or(l2.shl(64 - n)),
            l2.shr(n),
        ])
    }

    /// Left shift by a per-lane amount `0 <= n < 2^63`, modulo 2^b (an amount of `b` or more
    /// gives zero).
    #[inline(always)]
    pub(super) fn shl_v(self, n: L, b: u32) -> Self {
        let [l0, l1, l2] = self.0;
        let k = n.and(L::splat(63));
        // `x >> (64 - k)`: a count of 64 gives zero, which is right for k = 0.
        let up = L::splat(64).sub(k);
        let t0 = l0.shlv(k);
        let t1 = l1.shlv(k).or(l0.shrv(up));
        let t2 = l2.shlv(k).or(l1.shrv(up));
        let q = n.shr(6);
        let live = n.lts(L::splat(b as u64));
        let (q0, q1, q2) = (
            q.cmpeq(L::splat(0)),
            q.cmpeq(L::splat(1)),
            q.cmpeq(L::splat(2)),
        );
        Window([
            t0.and(q0).and(live),
            q0.sel(t1, t0.and(q1)).and(live),
            q0.sel(t2, q1.sel(t1, t0.and(q2))).and(live),
        ])
        .trunc(b)
    }

    /// Right shift by a per-lane amount `0 <= n < 2^63` (`b` or more gives zero) and whether a
    /// set bit fell out.
    #[inline(always)]
    pub(super) fn shr_sticky_v(self, n: L, b: u32) -> (Self, L) {
        let [l0, l1, l2] = self.0;
        let k = n.and(L::splat(63));
        let dn = L::splat(64).sub(k);
        let t0 = l0.shrv(k).or(l1.shlv(dn));
        let t1 = l1.shrv(k).or(l2.shlv(dn));
        let t2 = l2.shrv(k);
        let q = n.shr(6);
        let live = n.lts(L::splat(b as u64));
        let (q0, q1, q2) = (
            q.cmpeq(L::splat(0)),
            q.cmpeq(L::splat(1)),
            q.cmpeq(L::splat(2)),
        );
        let out = Window([
            q0.sel(t0, q1.sel(t1, t2.and(q2))).and(live),
            q0.sel(t1, t2.and(q1)).and(live),
            t2.and(q0).and(live),
        ]);
        // The bits below the shift amount, limb by limb: `!0 >> (64 - kk)` keeps kk bits.
        let lost = l0
            .and(low_bits(n, 0))
            .or(l1.and(low_bits(n, 1)))
            .or(l2.and(low_bits(n, 2)));
        (out, lost.is0().not())
    }

    /// Leading zeros within a `b`-bit width (`b` for zero).
    #[inline(always)]
    pub(super) fn leading_zeros(self, b: u32) -> L {
        // One count, of the highest limb that is not zero (limb 0 for zero, which counts 64).
        let [l0, l1, l2] = self.0;
        let (z2, z1) = (l2.is0(), l1.is0());
        let top = z2.sel(z1.sel(l0, l1), l2);
        let skipped = z2.and(L::splat(64)).add(z2.and(z1).and(L::splat(64)));
        top.lzcnt().add(skipped).sub(L::splat(192 - b as u64))
    }
}

/// Limb `j` of a mask of the low `n` bits: `!0 >> (64 - kk)` keeps kk bits (a count of 64
/// gives zero).
#[inline(always)]
fn low_bits<L: Lanes>(n: L, j: u64) -> L {
    let kk = n.sub(L::splat(64 * j)).clamp(0, 64);
    L::splat(!0).shrv(L::splat(64).sub(kk))
}

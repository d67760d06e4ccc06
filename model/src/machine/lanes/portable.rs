//! The portable backend: a plain `[u64; P]` and element-wise operations on it, which the compiler
//! turns into the target's vector instructions where it has them (SSE2 on baseline x86-64,
//! NEON on AArch64: two 64-bit lanes to a register) and into scalar code elsewhere. It runs on
//! every CPU, so the tests always exercise the lane engine.
//!
//! `P` is two, by measurement (baseline x86-64, M ops/s f32 / f64): sixteen lanes per value
//! gave 4.7 / 2.2 (the vectoriser gave up on values that large and moved them through memory),
//! four 8.8 / 4.1, two 14 / 4.9, one 10.5 / 6.8. Even so the scalar stages (16-19 / 11) are
//! faster on such a CPU, which is why `Backend::best` does not pick this backend.

use super::{mask_of, Lanes, N};

/// Lanes per value (see the module doc); `two!` writes the operations out for two.
const P: usize = 2;
const _: () = assert!(N.is_multiple_of(P) && P == 2);

/// `P` lanes in an array.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Portable([u64; P]);

/// Element-wise operations in the form the SLP vectoriser handles: the lanes written out
/// (`two!`), no calls (`array::from_fn` was not always inlined into the large stage functions),
/// no branches (a shift of 64 or more is a masked shift, not an `if`).
macro_rules! lanewise {
    (|$a:ident| $e:expr; $x:expr) => {{
        let x = $x.0;
        Portable(two!(|i| {
            let $a = x[i];
            $e
        }))
    }};
    (|$a:ident, $b:ident| $e:expr; $x:expr, $y:expr) => {{
        let (x, y) = ($x.0, $y.0);
        Portable(two!(|i| {
            let ($a, $b) = (x[i], y[i]);
            $e
        }))
    }};
}

/// `a << n`, zero for `n >= 64` (the vector instructions' rule), without a branch.
#[inline(always)]
fn shl(a: u64, n: u64) -> u64 {
    (a << (n & 63)) & mask_of(n < 64)
}

/// `a >> n`, zero for `n >= 64`.
#[inline(always)]
fn shr(a: u64, n: u64) -> u64 {
    (a >> (n & 63)) & mask_of(n < 64)
}

impl Lanes for Portable {
    const LANES: usize = P;

    #[inline(always)]
    fn splat(x: u64) -> Self {
        Portable([x; P])
    }
    #[inline(always)]
    fn load(a: &[u64]) -> Self {
        Portable(a[..P].try_into().unwrap())
    }
    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        out[..P].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        lanewise!(|a, b| a & b; self, o)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        lanewise!(|a, b| a | b; self, o)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        lanewise!(|a, b| a ^ b; self, o)
    }
    #[inline(always)]
    fn andn(self, o: Self) -> Self {
        lanewise!(|a, b| a & !b; self, o)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        lanewise!(|a, b| a.wrapping_add(b); self, o)
    }
    #[inline(always)]
    fn mul32(self, o: Self) -> Self {
        lanewise!(|a, b| (a & 0xFFFF_FFFF) * (b & 0xFFFF_FFFF); self, o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        lanewise!(|a, b| a.wrapping_sub(b); self, o)
    }
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        lanewise!(|a| shl(a, n as u64); self)
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        lanewise!(|a| shr(a, n as u64); self)
    }
    #[inline(always)]
    fn shlv(self, n: Self) -> Self {
        lanewise!(|a, n| shl(a, n); self, n)
    }
    #[inline(always)]
    fn shrv(self, n: Self) -> Self {
        lanewise!(|a, n| shr(a, n); self, n)
    }
    #[inline(always)]
    fn sel(self, a: Self, b: Self) -> Self {
        let (m, a, b) = (self.0, a.0, b.0);
        Portable(two!(|i| (m[i] & a[i]) | (!m[i] & b[i])))
    }
    #[inline(always)]
    fn is0(self) -> Self {
        lanewise!(|a| mask_of(a == 0); self)
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0[0] | self.0[1] != 0
    }
    #[inline(always)]
    fn cmpeq(self, o: Self) -> Self {
        lanewise!(|a, b| mask_of(a == b); self, o)
    }
    #[inline(always)]
    fn lts(self, o: Self) -> Self {
        lanewise!(|a, b| mask_of((a as i64) < (b as i64)); self, o)
    }
    #[inline(always)]
    fn ltu(self, o: Self) -> Self {
        lanewise!(|a, b| mask_of(a < b); self, o)
    }
    #[inline(always)]
    fn mins(self, o: Self) -> Self {
        lanewise!(|a, b| (a as i64).min(b as i64) as u64; self, o)
    }
    #[inline(always)]
    fn maxs(self, o: Self) -> Self {
        lanewise!(|a, b| (a as i64).max(b as i64) as u64; self, o)
    }
    #[inline(always)]
    fn minu(self, o: Self) -> Self {
        lanewise!(|a, b| a.min(b); self, o)
    }
    #[inline(always)]
    fn lzcnt(self) -> Self {
        lanewise!(|a| a.leading_zeros() as u64; self)
    }
}

/// Every primitive on `x`, `y`, `z` (see `lanes::primitives_of`).
#[cfg(test)]
pub(crate) fn all_primitives(x: [u64; N], y: [u64; N], z: [u64; N]) -> Vec<[u64; N]> {
    super::primitives_of::<Portable>(x, y, z)
}

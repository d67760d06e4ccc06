//! The lane engine's dispatch: the stages instantiated per backend with its target features,
//! one kernel per kind, the [`Engine`] that picks them once per stream, and f32x2 as two
//! binary32 groups.

use super::stages::{stage1, stage2, stage3, stage4};
use super::{F32, F64, N, SM1X};
use crate::machine::ctrl::{AbFmt, Ctrl, Kind};
#[cfg(target_arch = "x86_64")]
use crate::machine::lanes::{avx2::Avx2, avx512::Avx512};
use crate::machine::lanes::{portable::Portable, Backend, Lanes};
#[cfg(test)]
use crate::machine::regs::{S1Lane, S2Lane, S3Lane};

/// Results of sixteen operations of one control word of kind `KIND`, through all four stages,
/// `L::LANES` at a time.
#[inline(always)]
fn results_body<L: Lanes, const KIND: u8>(
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> [u64; N] {
    let mut d = [0; N];
    for k in (0..N).step_by(L::LANES) {
        let s1 = stage1::<L, KIND>(ctrl, L::load(&a[k..]), L::load(&b[k..]), L::load(&c[k..]));
        let s2 = stage2::<L, KIND>(ctrl, &s1);
        let s3 = stage3::<L, KIND>(ctrl, &s2);
        stage4::<L, KIND>(ctrl, &s3).store(&mut d[k..]);
    }
    d
}

/// Every bank of every lane, as the scalar structs: the multiplier pair of S1, S1's lane, S2's
/// lane, S3's lane, and the result.
#[cfg(test)]
type LaneBanks = (u128, u128, S1Lane, S2Lane, S3Lane, u64);

#[cfg(test)]
#[inline(always)]
fn banks_body<L: Lanes, const KIND: u8>(
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Vec<LaneBanks> {
    let mut out = Vec::new();
    for k in (0..N).step_by(L::LANES) {
        let s1 = stage1::<L, KIND>(ctrl, L::load(&a[k..]), L::load(&b[k..]), L::load(&c[k..]));
        let s2 = stage2::<L, KIND>(ctrl, &s1);
        let s3 = stage3::<L, KIND>(ctrl, &s2);
        let d = stage4::<L, KIND>(ctrl, &s3).to_vec();
        out.extend((0..L::LANES).map(|i| {
            let (ms, mc, l1) = s1.lane(i);
            (ms, mc, l1, s2.lane(i), s3.lane(i), d[i])
        }));
    }
    out
}

/// The stages instantiated for one backend: `$results` (and, for the tests, `$banks`), each
/// compiled with the backend's target features (none for the portable one) so that the generic
/// stage code and the backend's primitives inline into one function per kind. The functions
/// for a backend with features are `unsafe`: callers check `Backend::runs_here` first.
macro_rules! instantiate {
    ($L:ty, $results:ident, $banks:ident $(, $features:literal)?) => {
        $(#[target_feature(enable = $features)])?
        #[inline(never)]
        unsafe fn $results<const KIND: u8>(
            ctrl: &Ctrl,
            a: &[u64; N],
            b: &[u64; N],
            c: &[u64; N],
        ) -> [u64; N] {
            results_body::<$L, KIND>(ctrl, a, b, c)
        }

        #[cfg(test)]
        $(#[target_feature(enable = $features)])?
        unsafe fn $banks<const KIND: u8>(
            ctrl: &Ctrl,
            a: &[u64; N],
            b: &[u64; N],
            c: &[u64; N],
        ) -> Vec<LaneBanks> {
            banks_body::<$L, KIND>(ctrl, a, b, c)
        }
    };
}

#[cfg(target_arch = "x86_64")]
instantiate!(
    Avx512,
    results_avx512,
    banks_avx512,
    "avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
);
#[cfg(target_arch = "x86_64")]
instantiate!(
    Avx2,
    results_avx2,
    banks_avx2,
    "avx2,bmi1,bmi2,lzcnt,popcnt"
);
instantiate!(Portable, results_portable, banks_portable);

/// Whether `ctrl`'s kind has a lane-parallel form (every float kind; not vmad).
pub fn supported(ctrl: &Ctrl) -> bool {
    ctrl.kind != Kind::Vmad
}

/// A group's kernel: the four stages of one kind for one backend.
type Kernel = unsafe fn(&Ctrl, &[u64; N], &[u64; N], &[u64; N]) -> [u64; N];

/// The lane engine on one backend, which this CPU was checked to run when the engine was made,
/// so that evaluating a group is one call through a table of kernels, with no checks per group.
#[derive(Clone, Copy)]
pub struct Engine {
    backend: Backend,
    /// The kernels for f32 (mixed precision and f32x2 halves included), f64 and sm_1x.
    kernels: [Kernel; 3],
}

impl Engine {
    /// The engine on `backend`; `None` for `Backend::Scalar`.
    ///
    /// # Panics
    /// If this CPU cannot run `backend`.
    pub fn new(backend: Backend) -> Option<Engine> {
        if !backend.is_lanes() {
            return None;
        }
        assert!(
            backend.runs_here(),
            "this CPU cannot run the {backend} lane backend"
        );
        let kernels: [Kernel; 3] = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => [
                results_avx512::<F32>,
                results_avx512::<F64>,
                results_avx512::<SM1X>,
            ],
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => [
                results_avx2::<F32>,
                results_avx2::<F64>,
                results_avx2::<SM1X>,
            ],
            _ => [
                results_portable::<F32>,
                results_portable::<F64>,
                results_portable::<SM1X>,
            ],
        };
        Some(Engine { backend, kernels })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The result words of sixteen operations of one control word, or `None` where the kind
    /// has no lane-parallel form ([`supported`]).
    #[inline]
    pub fn results(
        &self,
        ctrl: &Ctrl,
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
    ) -> Option<[u64; N]> {
        let k = match ctrl.kind {
            Kind::F32 => 0,
            Kind::F64 => 1,
            Kind::Sm1x => 2,
            Kind::F32x2 => return Some(self.f32x2(ctrl, a, b, c)),
            Kind::Vmad => return None,
        };
        // SAFETY: `new` checked that this CPU runs the backend the kernels are compiled for
        // (the portable one needs nothing).
        Some(unsafe { (self.kernels[k])(ctrl, a, b, c) })
    }

    /// f32x2: two binary32 groups, one per half (`pipeline::stage4` packs lane 1 above lane 0).
    #[inline(never)]
    fn f32x2(&self, ctrl: &Ctrl, a: &[u64; N], b: &[u64; N], c: &[u64; N]) -> [u64; N] {
        let [a0, b0, c0] = f32x2_half(ctrl, 0, a, b, c);
        let [a1, b1, c1] = f32x2_half(ctrl, 1, a, b, c);
        // SAFETY: as in `results`.
        let (lo, hi) = unsafe {
            (
                (self.kernels[0])(ctrl, &a0, &b0, &c0),
                (self.kernels[0])(ctrl, &a1, &b1, &c1),
            )
        };
        std::array::from_fn(|i| hi[i] << 32 | lo[i])
    }
}

/// The inputs of one f32x2 half as a binary32 operation: lane 1 reads the upper words, except
/// that f16/bf16 sources are always bits 15:0 (as `unpack::lane_operands` reads them).
fn f32x2_half(ctrl: &Ctrl, half: u32, a: &[u64; N], b: &[u64; N], c: &[u64; N]) -> [[u64; N]; 3] {
    let ab = if ctrl.ab_fmt == AbFmt::Native {
        32 * half
    } else {
        0
    };
    [
        a.map(|x| x >> ab),
        b.map(|x| x >> ab),
        c.map(|x| x >> (32 * half)),
    ]
}

/// The result words of sixteen operations of one control word through `backend`, or `None`
/// where `backend` is `Scalar` or the kind has no lane-parallel form ([`supported`]). (A stream
/// makes its [`Engine`] once instead.)
///
/// # Panics
/// If this CPU cannot run `backend`.
pub fn results(
    backend: Backend,
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Option<[u64; N]> {
    Engine::new(backend)?.results(ctrl, a, b, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::pipeline::{
        stage1 as s1, stage2 as s2, stage3 as s3, stage4 as s4, PipeIn,
    };
    use crate::stimulus::{operands_for, Family, Rng};

    /// Every bank of every lane of one group of kind `KIND` through `backend`.
    fn banks<const KIND: u8>(
        backend: Backend,
        ctrl: &Ctrl,
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
    ) -> Vec<LaneBanks> {
        assert!(backend.runs_here());
        // SAFETY: as in `group`.
        unsafe {
            match backend {
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => banks_avx512::<KIND>(ctrl, a, b, c),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => banks_avx2::<KIND>(ctrl, a, b, c),
                Backend::Portable => banks_portable::<KIND>(ctrl, a, b, c),
                other => panic!("{other} is no lane backend"),
            }
        }
    }

    /// Every register field of every lane, and the result, equal the scalar stage functions,
    /// for every control word of the float families (f32, f64, mixed, add/sub/mul, f32x2 and
    /// sm_1x) on edge-biased operands, through `backend`.
    fn lanes_equal_the_scalar_stages(backend: Backend) {
        let mut rng = Rng::new(11);
        let mut words = 0;
        let families = [
            Family::F32,
            Family::F64,
            Family::Mixed,
            Family::AddSubMul,
            Family::F32x2,
            Family::Sm1x,
        ];
        for fam in families {
            for ctrl in fam.ctrls() {
                assert!(supported(&ctrl), "{ctrl:?}");
                words += 1;
                for _ in 0..40 {
                    let mut ins = [(0u64, 0u64, 0u64); N];
                    for x in ins.iter_mut() {
                        *x = operands_for(&ctrl, &mut rng);
                    }
                    let v = |k: usize| -> [u64; N] {
                        std::array::from_fn(|i| [ins[i].0, ins[i].1, ins[i].2][k])
                    };
                    let (a, b, c) = (v(0), v(1), v(2));
                    // The lane banks: one group, or one per half for f32x2.
                    let halves: Vec<Vec<LaneBanks>> = match ctrl.kind {
                        Kind::F64 => vec![banks::<F64>(backend, &ctrl, &a, &b, &c)],
                        Kind::Sm1x => vec![banks::<SM1X>(backend, &ctrl, &a, &b, &c)],
                        Kind::F32x2 => (0..2)
                            .map(|h| {
                                let [a, b, c] = f32x2_half(&ctrl, h, &a, &b, &c);
                                banks::<F32>(backend, &ctrl, &a, &b, &c)
                            })
                            .collect(),
                        _ => vec![banks::<F32>(backend, &ctrl, &a, &b, &c)],
                    };
                    let d = results(backend, &ctrl, &a, &b, &c).unwrap();
                    for (i, &(a, b, c)) in ins.iter().enumerate() {
                        let inp = PipeIn {
                            valid: true,
                            tag: 0,
                            ctrl: ctrl.encode(),
                            a,
                            b,
                            c,
                            reset: false,
                        };
                        let what = format!("{backend}: {ctrl:?} a={a:#x} b={b:#x} c={c:#x}");
                        let r1 = s1(&inp);
                        let r2 = s2(&r1);
                        let r3 = s3(&r2);
                        let want_d = s4(&r3).d;
                        assert_eq!(d[i], want_d, "d {what}");
                        let scalar = [
                            (&r1.lane0, &r2.lane0, &r3.lane0),
                            (&r1.lane1, &r2.lane1, &r3.lane1),
                        ];
                        for (h, lanes) in halves.iter().enumerate() {
                            let (ms, mc, l1, l2, l3, dh) = &lanes[i];
                            let (w1, w2, w3) = scalar[h];
                            let what = format!("{what} half {h}");
                            if ctrl.kind == Kind::F32x2 {
                                // The scalar array packs both products (lane 1 at bit 56): each
                                // half's product is its share of the scalar one.
                                let m = (1u128 << 48) - 1;
                                let prod = |s: u128, c: u128| s.wrapping_add(c);
                                let want = (prod(r1.mul_sum, r1.mul_carry) >> (56 * h)) & m;
                                assert_eq!(prod(*ms, *mc) & m, want, "S1 product {what}");
                                assert_eq!(*dh, (want_d >> (32 * h)) & 0xFFFF_FFFF, "d {what}");
                            } else {
                                assert_eq!(
                                    (*ms, *mc),
                                    (r1.mul_sum, r1.mul_carry),
                                    "S1 pair {what}"
                                );
                                assert_eq!(*dh, want_d, "d {what}");
                            }
                            assert_eq!(l1, w1, "S1 {what}");
                            assert_eq!(l2, w2, "S2 {what}");
                            assert_eq!(l3, w3, "S3 {what}");
                        }
                    }
                }
            }
        }
        assert!(words > 100, "only {words} control words");
        // Arbitrary control words (reserved codes, modifiers no instruction combines), as
        // `run` meets them in a stream.
        for _ in 0..300 {
            let ctrl =
                Ctrl::decode(rng.next_u64() as u32 & ((1 << crate::machine::ctrl::CTRL_BITS) - 1));
            if !supported(&ctrl) {
                continue;
            }
            let ins: [(u64, u64, u64); N] = std::array::from_fn(|_| {
                let (a, b, c) = operands_for(&ctrl, &mut rng);
                // f32x2 operands with both halves live; other kinds with upper bits set too.
                (
                    a ^ rng.next_u64() << 32,
                    b ^ rng.next_u64() << 32,
                    c ^ rng.next_u64() << 32,
                )
            });
            let a = ins.map(|x| x.0);
            let b = ins.map(|x| x.1);
            let c = ins.map(|x| x.2);
            let d = results(backend, &ctrl, &a, &b, &c).unwrap();
            for i in 0..N {
                let want = crate::machine::pipeline::eval(&ctrl, a[i], b[i], c[i]);
                assert_eq!(
                    d[i], want,
                    "{backend}: {ctrl:?} a={:#x} b={:#x} c={:#x}",
                    a[i], b[i], c[i]
                );
            }
        }
        let other = Family::Vmad.ctrls()[0];
        let z = [0; N];
        assert_eq!(results(backend, &other, &z, &z, &z), None);
    }

    /// The portable backend, which every CPU runs: so the stage code is checked everywhere.
    #[test]
    fn portable_lanes_equal_the_scalar_stages_field_for_field() {
        lanes_equal_the_scalar_stages(Backend::Portable);
    }

    /// Every other lane backend this CPU runs (AVX-512 and AVX2 where the CPU has them).
    #[test]
    fn native_lanes_equal_the_scalar_stages_field_for_field() {
        let here = Backend::lanes_here();
        println!("lane backends this CPU runs: {here:?}");
        for backend in here.into_iter().filter(|&b| b != Backend::Portable) {
            lanes_equal_the_scalar_stages(backend);
        }
    }

    #[test]
    fn scalar_backend_has_no_results() {
        let ctrl = Family::F32.ctrls()[0];
        let z = [0; N];
        assert_eq!(results(Backend::Scalar, &ctrl, &z, &z, &z), None);
    }
}

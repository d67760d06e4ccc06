//! The lane engine's dispatch: the stages instantiated per backend with its target features,
//! one kernel per kind for the results and one for the bank images (`op_images`), the [`Engine`] that
//! picks them once per stream, and f32x2 as two binary32 groups.

use super::op_images::{images_body, Images};
use super::stages::{stage1, stage2, stage3, stage4};
use super::{F32, F64, HALF, HALF_HI, N, SM1X};
use crate::ctrl::{AbFmt, Ctrl, Kind};
#[cfg(target_arch = "x86_64")]
use crate::machine::lanes::{avx2::Avx2, avx512::Avx512};
use crate::machine::lanes::{portable::Portable, Backend, Lanes};
use crate::machine::pipe_in::PipeIn;
#[cfg(test)]
use crate::regs::{S1Lane, S2Lane, S3Lane};

/// Results of a group of sixteen pipe inputs of one control word of kind `KIND`, through all
/// four stages, `L::LANES` at a time; the operands read as strided words (`PipeIn::words`).
#[inline(always)]
fn group_body<L: Lanes, const KIND: u8>(ctrl: &Ctrl, g: &[PipeIn; N]) -> [u64; N] {
    let w = PipeIn::words(g);
    let mut d = [0; N];
    for k in (0..N).step_by(L::LANES) {
        let [a, b, c] = L::load3_of4(&w[PipeIn::WORDS * k..]);
        four_stages::<L, KIND>(ctrl, a, b, c).store(&mut d[k..]);
    }
    d
}

/// The result words of `L::LANES` operations through the four stages.
#[inline(always)]
fn four_stages<L: Lanes, const KIND: u8>(ctrl: &Ctrl, a: L, b: L, c: L) -> L {
    let s1 = stage1::<L, KIND>(ctrl, a, b, c);
    let s2 = stage2::<L, KIND, false>(ctrl, &s1);
    let s3 = stage3::<L, KIND>(ctrl, &s2);
    stage4::<L, KIND>(ctrl, &s3)
}

/// Every bank of every lane, as the scalar structs: the product (the sum of S1's multiplier
/// pair), S1's lane, S2's lane, S3's lane, and the result.
#[cfg(test)]
type LaneBanks = (u128, S1Lane, S2Lane, S3Lane, u64);

#[cfg(test)]
#[inline(always)]
fn banks_body<L: Lanes, const KIND: u8, const PREDICT: bool>(
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Vec<LaneBanks> {
    let mut out = Vec::new();
    for k in (0..N).step_by(L::LANES) {
        let s1 = stage1::<L, KIND>(ctrl, L::load(&a[k..]), L::load(&b[k..]), L::load(&c[k..]));
        let s2 = stage2::<L, KIND, PREDICT>(ctrl, &s1);
        let s3 = stage3::<L, KIND>(ctrl, &s2);
        let d = stage4::<L, KIND>(ctrl, &s3).to_vec();
        out.extend((0..L::LANES).map(|i| {
            let (prod, l1) = s1.lane(i);
            (prod, l1, s2.lane(i), s3.lane(i), d[i])
        }));
    }
    out
}

/// The stages instantiated for one backend, in a module of their own: `group`, `op_images`
/// (and, for the tests, `banks`), each compiled with the backend's target features (none for
/// the portable one) so that the generic stage code and the backend's primitives inline into
/// one function per kind. A module per backend puts each backend's kernels in a codegen unit
/// of its own, so that LLVM compiles the backends in parallel. The functions for a backend
/// with features are `unsafe`: callers check `Backend::runs_here` first.
macro_rules! instantiate {
    ($module:ident, $L:ty $(, $features:literal)?) => {
        mod $module {
            use super::*;

            $(#[target_feature(enable = $features)])?
            #[inline(never)]
            pub(super) unsafe fn group<const KIND: u8>(ctrl: &Ctrl, g: &[PipeIn; N]) -> [u64; N] {
                group_body::<$L, KIND>(ctrl, g)
            }

            $(#[target_feature(enable = $features)])?
            #[inline(never)]
            pub(super) unsafe fn op_images<const KIND: u8, const TWO: bool>(
                ctrl: &Ctrl,
                g: &[PipeIn; N],
                out: &mut Images,
            ) {
                images_body::<$L, KIND, TWO, { <$L as Lanes>::LANES }>(ctrl, g, out)
            }

            #[cfg(test)]
            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn banks<const KIND: u8, const PREDICT: bool>(
                ctrl: &Ctrl,
                a: &[u64; N],
                b: &[u64; N],
                c: &[u64; N],
            ) -> Vec<LaneBanks> {
                banks_body::<$L, KIND, PREDICT>(ctrl, a, b, c)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
instantiate!(
    avx512,
    Avx512,
    "avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
);
#[cfg(target_arch = "x86_64")]
instantiate!(avx2, Avx2, "avx2,bmi1,bmi2,lzcnt,popcnt");
instantiate!(portable, Portable);

/// Whether `ctrl`'s kind has a lane-parallel form (every float kind; not vmad).
pub fn supported(ctrl: &Ctrl) -> bool {
    ctrl.kind != Kind::Vmad && !ctrl.via_f32
}

/// A group's kernel: the four stages of one kind for one backend, on sixteen pipe inputs.
type Kernel = unsafe fn(&Ctrl, &[PipeIn; N]) -> [u64; N];

/// A group's images kernel: every bank image of sixteen pipe inputs of one kind, for one backend.
type ImagesKernel = unsafe fn(&Ctrl, &[PipeIn; N], &mut Images);

/// The kernels of one backend's module: the results kernels, in the order of
/// [`Engine::results_of`]'s indices (f32, f64, sm_1x, half, half2's lane 1), and the images
/// kernels, in the order of [`images_kernel`]'s indices (f32 with mixed precision, f64, sm_1x,
/// half, f32x2 and half2 with both lanes).
macro_rules! kernels {
    ($backend:ident) => {
        (
            [
                $backend::group::<F32>,
                $backend::group::<F64>,
                $backend::group::<SM1X>,
                $backend::group::<HALF>,
                $backend::group::<HALF_HI>,
            ],
            [
                $backend::op_images::<F32, false>,
                $backend::op_images::<F64, false>,
                $backend::op_images::<SM1X, false>,
                $backend::op_images::<HALF, false>,
                $backend::op_images::<F32, true>,
                $backend::op_images::<HALF, true>,
            ],
        )
    };
}

/// The lane engine on one backend, which this CPU was checked to run when the engine was made,
/// so that evaluating a group is one call through a table of kernels, with no checks per group.
#[derive(Clone, Copy)]
pub struct Engine {
    backend: Backend,
    /// The kernels for f32 (mixed precision and f32x2 halves included), f64, sm_1x, half and
    /// half2's lane 1.
    kernels: [Kernel; 5],
    /// The images kernels (`kernels!`).
    images_kernels: [ImagesKernel; 6],
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
        let (kernels, images_kernels): ([Kernel; 5], [ImagesKernel; 6]) = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => kernels!(avx512),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => kernels!(avx2),
            _ => kernels!(portable),
        };
        Some(Engine {
            backend,
            kernels,
            images_kernels,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The result words of sixteen operations of one control word, or `None` where the kind
    /// has no lane-parallel form ([`supported`]).
    pub fn results(
        &self,
        ctrl: &Ctrl,
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
    ) -> Option<[u64; N]> {
        self.results_of(ctrl, &group(a, b, c))
    }

    /// [`Engine::results`] of a group of pipe inputs (of their operand words): what
    /// `Pipeline::run` calls.
    #[inline]
    pub fn results_of(&self, ctrl: &Ctrl, g: &[PipeIn; N]) -> Option<[u64; N]> {
        let k = match ctrl.kind {
            Kind::F32 => 0,
            Kind::F64 => 1,
            Kind::Sm1x => 2,
            Kind::Half if !ctrl.via_f32 => 3,
            Kind::F32x2 => return Some(self.f32x2(ctrl, g)),
            Kind::Half2 if !ctrl.via_f32 => return Some(self.half2(ctrl, g)),
            Kind::Vmad | Kind::Half | Kind::Half2 => return None,
        };
        // SAFETY: `new` checked that this CPU runs the backend the kernels are compiled for
        // (the portable one needs nothing).
        Some(unsafe { (self.kernels[k])(ctrl, g) })
    }

    /// Every bank of sixteen inputs of one control word as its packed image, each equal word
    /// for word to `Reg::pack` of
    /// [`OpBanks::of`](crate::machine::pipeline::OpBanks::of)'s bank; false (and `out` untouched) where the
    /// word has no lane-parallel form ([`supported`]). The co-simulator's reference copies
    /// these into its per-cycle frames.
    pub fn images_of(&self, ctrl: &Ctrl, g: &[PipeIn; N], out: &mut Images) -> bool {
        let Some(k) = images_kernel(ctrl) else {
            return false;
        };
        // SAFETY: as in `results_of`.
        unsafe { (self.images_kernels[k])(ctrl, g, out) };
        true
    }

    /// f32x2: two binary32 groups, one per half (`pipeline::stage4` packs lane 1 above lane 0).
    #[inline(never)]
    fn f32x2(&self, ctrl: &Ctrl, g: &[PipeIn; N]) -> [u64; N] {
        let (a, b, c) = (g.map(|x| x.a), g.map(|x| x.b), g.map(|x| x.c));
        let [a0, b0, c0] = f32x2_half(ctrl, 0, &a, &b, &c);
        let [a1, b1, c1] = f32x2_half(ctrl, 1, &a, &b, &c);
        // SAFETY: as in `results_of`.
        let (lo, hi) = unsafe {
            (
                (self.kernels[0])(ctrl, &group(&a0, &b0, &c0)),
                (self.kernels[0])(ctrl, &group(&a1, &b1, &c1)),
            )
        };
        std::array::from_fn(|i| hi[i] << 32 | lo[i])
    }

    /// half2: two one-lane half groups on the same inputs, lane 1's kernel reading bits 31:16
    /// (`pipeline::stage4` packs lane 1 above lane 0).
    #[inline(never)]
    fn half2(&self, ctrl: &Ctrl, g: &[PipeIn; N]) -> [u64; N] {
        // SAFETY: as in `results_of`.
        let (lo, hi) = unsafe { ((self.kernels[3])(ctrl, g), (self.kernels[4])(ctrl, g)) };
        std::array::from_fn(|i| hi[i] << 16 | lo[i])
    }
}

/// The index of `ctrl`'s kernel in the images table (`kernels!`), or `None`
/// where the word has no lane-parallel form.
fn images_kernel(ctrl: &Ctrl) -> Option<usize> {
    if !supported(ctrl) {
        return None;
    }
    match ctrl.kind {
        Kind::F32 => Some(0),
        Kind::F64 => Some(1),
        Kind::Sm1x => Some(2),
        Kind::Half => Some(3),
        Kind::F32x2 => Some(4),
        Kind::Half2 => Some(5),
        Kind::Vmad => None,
    }
}

/// Sixteen pipe inputs with the given operands (the lane engine reads nothing else).
fn group(a: &[u64; N], b: &[u64; N], c: &[u64; N]) -> [PipeIn; N] {
    std::array::from_fn(|i| PipeIn {
        a: a[i],
        b: b[i],
        c: c[i],
        ..PipeIn::default()
    })
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
mod images_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tree_tests;

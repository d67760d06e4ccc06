//! Backends of the lane engine (`batch`): the vector primitives its stages are written in, once
//! per instruction set, and the choice of backend at run time.
//!
//! The stage code in `batch` is written once, generic over the [`Lanes`] trait: a value of `N`
//! 64-bit lanes (one operation per lane) with the two dozen operations a bit-level datapath
//! needs (bitwise logic, add/sub, a 32 x 32 -> 64-bit multiply, shifts by a constant and per
//! lane, compares to masks, select, leading-zero count). Each backend implements only these:
//!
//! - [`avx512`]: AVX-512 F/VL/CD/BW/DQ, two 512-bit registers per value (sixteen lanes);
//! - [`avx2`]: AVX2 (with BMI1/2, LZCNT, POPCNT), two 256-bit registers per value (eight
//!   lanes, so a group of sixteen runs the stages twice: two independent chains of steps,
//!   which measured faster than one or four registers per value), the
//!   operations AVX2 lacks on 64-bit lanes (unsigned compares, min/max, arithmetic shifts,
//!   leading zeros) built from the ones it has;
//! - [`portable`]: a plain `[u64; 2]` array and element-wise loops, which the compiler
//!   vectorises for whatever the target offers (baseline SSE2 on x86-64, NEON on AArch64).
//!
//! Because every backend implements the same small contract and nothing else, the stages cannot
//! drift apart between backends: the tests require each backend, field for field, to equal the
//! scalar stages. `batch` instantiates the generic stages once per backend inside a function
//! compiled for that backend's features (`#[target_feature]`), so LLVM inlines the primitives
//! and schedules the whole pipeline for that instruction set.
//!
//! [`Backend`] names the backends (and `Scalar`: no lane engine), says which this CPU runs,
//! and picks one: the fastest this CPU runs ([`Backend::best`]), or the one the `PTXFMA_LANES`
//! environment variable names (`avx512`, `avx2`, `portable` or `scalar`), for benchmarks and
//! tests. An unknown name, or one this CPU cannot run, is an error, never a silent fallback.

use std::fmt;

/// `[e(0), e(1)]`: an expression for each of the two registers (or lanes) of a backend's value,
/// written out rather than looped. A loop in every primitive became thousands of tiny loops in
/// each kernel once the stages were inlined, and LLVM's loop passes over them (rotation, full
/// unrolling) took nine of the model's ten minutes of compile (`docs/measurements.md`). Each
/// backend asserts that its count is two.
macro_rules! two {
    (|$k:ident| $e:expr) => {
        [
            {
                let $k = 0usize;
                $e
            },
            {
                let $k = 1usize;
                $e
            },
        ]
    };
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub(crate) mod portable;

/// Operations in one group of the lane engine: sixteen, whatever the backend, so that
/// `Pipeline::run` groups inputs the same way on every CPU. A backend's value holds `N` lanes
/// or a divisor of it ([`Lanes::LANES`]).
pub const N: usize = 16;

/// All ones for `true`: lane conditions are masks.
pub(crate) const fn mask_of(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
}

/// `N` lanes of 64 bits, one per operation, and the primitive operations the lane engine's
/// stages use. A condition is a mask: all ones in the lanes where it holds, zero elsewhere;
/// operations documented as taking a mask require that form.
///
/// The required methods are the backend's; the provided ones are built from them and are the
/// same for every backend (a backend may override one where its instruction set has a faster
/// form with the same result, as AVX-512 does for the bit test).
///
/// Every method is `#[inline(always)]` in every backend: the primitives only make sense inlined
/// into the stage code, inside a function compiled for the backend's features. A backend's
/// values must only be made where that backend runs (`Backend::runs_here`); the backends are
/// private to the crate for that reason.
pub(crate) trait Lanes: Copy {
    /// Lanes in one value: `N` or a divisor of it (the stages then run `N / LANES` times per
    /// group of `N`, which suits a backend with few registers).
    const LANES: usize;

    fn splat(x: u64) -> Self;
    /// The first `LANES` words of `a`.
    fn load(a: &[u64]) -> Self;
    /// The lanes into the first `LANES` words of `out`.
    fn store(self, out: &mut [u64]);
    /// Words 0, 1 and 2 of the first `LANES` records of four words in `w` (the operands of a
    /// group of pipe inputs, `PipeIn::words`): lane i of the k-th value is `w[4 i + k]`.
    #[inline(always)]
    fn load3_of4(w: &[u64]) -> [Self; 3] {
        let w = &w[..4 * Self::LANES];
        let field = |k: usize| -> [u64; N] {
            std::array::from_fn(|i| if i < Self::LANES { w[4 * i + k] } else { 0 })
        };
        [
            Self::load(&field(0)),
            Self::load(&field(1)),
            Self::load(&field(2)),
        ]
    }

    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// `self & !o`.
    fn andn(self, o: Self) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    /// The full 64-bit product of the low 32 bits of each lane (`vpmuludq`).
    fn mul32(self, o: Self) -> Self;
    /// Left shift by a constant; 64 or more gives zero.
    fn shl(self, n: u32) -> Self;
    /// Logical right shift by a constant; 64 or more gives zero.
    fn shr(self, n: u32) -> Self;
    /// Per-lane left shift; an amount of 64 or more gives zero.
    fn shlv(self, n: Self) -> Self;
    /// Per-lane logical right shift; an amount of 64 or more gives zero.
    fn shrv(self, n: Self) -> Self;
    /// `a` where the mask `self` is set, else `b`.
    fn sel(self, a: Self, b: Self) -> Self;
    /// Mask of the lanes that are zero.
    fn is0(self) -> Self;
    /// Whether any lane is non-zero.
    fn any(self) -> bool;
    fn cmpeq(self, o: Self) -> Self;
    /// Signed less-than.
    fn lts(self, o: Self) -> Self;
    /// Unsigned less-than.
    fn ltu(self, o: Self) -> Self;
    fn mins(self, o: Self) -> Self;
    fn maxs(self, o: Self) -> Self;
    fn minu(self, o: Self) -> Self;
    /// Leading zeros of each lane (64 for zero).
    fn lzcnt(self) -> Self;

    #[inline(always)]
    fn zero() -> Self {
        Self::splat(0)
    }
    /// The lanes as a vector (for the tests and the lane-by-lane views of the banks).
    #[cfg(test)]
    fn to_vec(self) -> Vec<u64> {
        let mut v = vec![0; Self::LANES];
        self.store(&mut v);
        v
    }
    #[inline(always)]
    fn not(self) -> Self {
        self.xor(Self::splat(!0))
    }
    /// Arithmetic right shift by a constant `n < 64`: the logical shift with the sign bit
    /// (now at bit 63 - n) extended by `(x ^ m) - m`.
    #[inline(always)]
    fn sra(self, n: u32) -> Self {
        let m = Self::splat(1 << (63 - n));
        self.shr(n).xor(m).sub(m)
    }
    /// Bit `i` of every lane as a mask.
    #[inline(always)]
    fn bitm(self, i: u32) -> Self {
        let b = Self::splat(1 << i);
        self.and(b).cmpeq(b)
    }
    /// `self ^ b ^ c`, a carry-save adder's sum bit by bit.
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    /// The majority of the three, bit by bit: a carry-save adder's carry before its shift.
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        self.and(b).or(c.and(self.xor(b)))
    }
    /// A mask as 0 or 1.
    #[inline(always)]
    fn bit01(self) -> Self {
        self.shr(63)
    }
    /// Signed clamp.
    #[inline(always)]
    fn clamp(self, lo: i64, hi: i64) -> Self {
        self.maxs(Self::splat(lo as u64))
            .mins(Self::splat(hi as u64))
    }
    /// Sign-extends from bit 15: the value an `i16` register field holds.
    #[inline(always)]
    fn i16(self) -> Self {
        self.shl(48).sra(48)
    }
}

/// A way for `Pipeline::run` to evaluate runs of inputs: one of the lane engine's backends, or
/// none (`Scalar`: every input through the scalar stages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// AVX-512 F, VL, CD, BW and DQ (x86-64).
    Avx512,
    /// AVX2 with BMI1, BMI2, LZCNT and POPCNT (x86-64 from Haswell and Zen 1 on).
    Avx2,
    /// Fixed-size arrays the compiler vectorises: runs on every CPU.
    Portable,
    /// No lane engine: `run` uses the scalar stages for every input.
    Scalar,
}

/// The environment variable that forces a backend.
pub const ENV: &str = "PTXFMA_LANES";

impl Backend {
    /// Every backend, fastest first.
    pub const ALL: [Backend; 4] = [
        Backend::Avx512,
        Backend::Avx2,
        Backend::Portable,
        Backend::Scalar,
    ];

    /// The name `PTXFMA_LANES` takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx512 => "avx512",
            Backend::Avx2 => "avx2",
            Backend::Portable => "portable",
            Backend::Scalar => "scalar",
        }
    }

    /// Whether this is a lane engine (everything but `Scalar`).
    pub fn is_lanes(self) -> bool {
        self != Backend::Scalar
    }

    /// Whether this CPU runs it (checked once per backend).
    pub fn runs_here(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                use std::sync::OnceLock;
                static HAVE: OnceLock<bool> = OnceLock::new();
                *HAVE.get_or_init(|| {
                    is_x86_feature_detected!("avx512f")
                        && is_x86_feature_detected!("avx512vl")
                        && is_x86_feature_detected!("avx512cd")
                        && is_x86_feature_detected!("avx512bw")
                        && is_x86_feature_detected!("avx512dq")
                })
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                use std::sync::OnceLock;
                static HAVE: OnceLock<bool> = OnceLock::new();
                *HAVE.get_or_init(|| {
                    is_x86_feature_detected!("avx2")
                        && is_x86_feature_detected!("bmi1")
                        && is_x86_feature_detected!("bmi2")
                        && is_x86_feature_detected!("lzcnt")
                        && is_x86_feature_detected!("popcnt")
                })
            }
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx512 | Backend::Avx2 => false,
            Backend::Portable | Backend::Scalar => true,
        }
    }

    /// The lane-engine backends this CPU runs, fastest first; `Portable` is always among them.
    /// The tests run every one of these.
    pub fn lanes_here() -> Vec<Backend> {
        Backend::ALL
            .into_iter()
            .filter(|b| b.is_lanes() && b.runs_here())
            .collect()
    }

    /// The backend `run` uses unless `PTXFMA_LANES` says otherwise: the fastest this CPU
    /// runs, by the bench's measurements. That is AVX-512 where the CPU has it, else AVX2; on a
    /// CPU with neither it is `Scalar`, not `Portable`: the portable backend's code measured
    /// 1.3 to 2 times slower than the scalar stages on baseline x86-64 (SSE2 has no per-lane
    /// 64-bit shifts or compares; see `lanes::portable`). It is there to run the lane engine,
    /// and test it, on every CPU (`PTXFMA_LANES=portable`, `Pipeline::run_on`).
    pub fn best() -> Backend {
        let native = [Backend::Avx512, Backend::Avx2];
        native
            .into_iter()
            .find(|b| b.runs_here())
            .unwrap_or(Backend::Scalar)
    }

    /// The backend `PTXFMA_LANES` names, if it is set, else the fastest this CPU runs; an error
    /// (one line) when the variable names no backend or one this CPU cannot run.
    pub fn from_env() -> Result<Backend, String> {
        match std::env::var(ENV) {
            Err(std::env::VarError::NotPresent) => Ok(Backend::best()),
            Err(std::env::VarError::NotUnicode(v)) => {
                Err(format!("{ENV}={v:?} is not one of {}", Backend::names()))
            }
            Ok(v) => {
                let b = v.parse::<Backend>()?;
                if b.runs_here() {
                    Ok(b)
                } else {
                    Err(format!(
                        "{ENV}={v}: this CPU cannot run the {b} backend (it runs {})",
                        Backend::ALL
                            .into_iter()
                            .filter(|b| b.runs_here())
                            .map(Backend::name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        }
    }

    /// The backend `Pipeline::run` uses: [`Backend::from_env`], read once.
    ///
    /// # Panics
    /// With `from_env`'s one-line message when `PTXFMA_LANES` is bad; programs that want to
    /// report it as a usage error call `from_env` first.
    pub fn selected() -> Backend {
        use std::sync::OnceLock;
        static SELECTED: OnceLock<Result<Backend, String>> = OnceLock::new();
        match SELECTED.get_or_init(Backend::from_env) {
            Ok(b) => *b,
            Err(e) => panic!("{e}"),
        }
    }

    fn names() -> String {
        let n: Vec<_> = Backend::ALL.iter().map(|b| b.name()).collect();
        n.join(", ")
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Backend, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("{ENV}={s:?} is not one of {}", Backend::names()))
    }
}

/// Every primitive applied to `x`, `y`, `z` (masks where one is needed), in a fixed order: the
/// tests compare backends on this list. Instantiated per backend by each backend's
/// `all_primitives`, compiled for its features.
#[cfg(test)]
#[inline(always)]
fn primitives_of<L: Lanes>(x: [u64; N], y: [u64; N], z: [u64; N]) -> Vec<[u64; N]> {
    let mut out = Vec::new();
    for k in (0..N).step_by(L::LANES) {
        let (a, b, c) = (L::load(&x[k..]), L::load(&y[k..]), L::load(&z[k..]));
        // `any` of a value whose only non-zero lane is lane j of `x & y`, for each j.
        let any = L::load(&std::array::from_fn::<u64, N, _>(|j| {
            let only = |m: usize| {
                let mut v = [0; N];
                v[m % L::LANES] = x[k + m % L::LANES] & y[k + m % L::LANES];
                L::load(&v).any()
            };
            mask_of(only(j))
        }));
        let all = [
            a.and(b),
            a.or(b),
            a.xor(b),
            a.andn(b),
            a.add(b),
            a.sub(b),
            a.shl(5),
            a.shr(7),
            a.shlv(b),
            a.shrv(b),
            c.bitm(5).sel(a, b),
            a.is0(),
            a.cmpeq(b),
            a.lts(b),
            a.ltu(b),
            a.mins(b),
            a.maxs(b),
            a.minu(b),
            a.lzcnt(),
            a.not(),
            a.sra(9),
            a.bitm(33),
            a.clamp(-3, 90),
            a.i16(),
            any,
            L::zero(),
            a.bit01(),
            L::splat(mask_of(a.and(b).or(c).any())),
            a.mul32(b),
            a.xor3(b, c),
            a.maj(b, c),
        ];
        // The three fields of records of four words, x, y and z with a fourth word between.
        let records: Vec<u64> = (0..N).flat_map(|i| [x[i], y[i], z[i], !x[i]]).collect();
        let fields = L::load3_of4(&records[4 * k..]);
        let all: Vec<L> = all.into_iter().chain(fields).collect();
        out.resize(all.len(), [0; N]);
        for (o, v) in out.iter_mut().zip(all) {
            v.store(&mut o[k..]);
        }
    }
    out
}

#[cfg(test)]
mod tests;

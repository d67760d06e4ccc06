//! Python module `ptxfma`: the ptxfma golden model for Python testbenches (cocotb, pytest,
//! notebooks), built with maturin as one abi3 wheel for CPython >= 3.9.
//!
//! Everything here is argument checking and conversion: decoding is `op::decode` /
//! `op::decode_vmad`, lines are read by `fma-model eval`'s own reader (`cli::eval::read`), a
//! single operation goes through the model's four stage functions, arrays through
//! `Pipeline::run` (the lane engine), and the `Pipeline` class is the model's `Pipeline`. No
//! semantics are re-implemented, so a Python scoreboard agrees bit for bit with `fma-model` and
//! `fma-cosim`.

use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};

use ptxfma_model::ctrl::legal::is_legal;
use ptxfma_model::ctrl::{Ctrl, CTRL_BITS};
use ptxfma_model::machine::pipeline::{self, PipeIn, LATENCY};
use ptxfma_model::regs::{Out, S1Lane, S1Vmad, S2Lane, S3Lane, S1, S2, S3};
use ptxfma_model::wide::Wide;
use ptxfma_ptx::quote::quote_spans;
use ptxfma_ptx::read::read as read_line;
use ptxfma_ptx::{self as op, Target};

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The target argument (`"sm_100"` by default, as `fma-model eval`).
fn parse_target(target: &str) -> PyResult<Target> {
    Target::parse(target.trim()).map_err(|e| value_error(quote_spans(e.message())))
}

// ---------------------------------------------------------------------------------------------
// Decode
// ---------------------------------------------------------------------------------------------

/// Decodes a PTX spelling: a bare mnemonic through `op::decode`; a vmad followed by its three
/// operands (`vmad.s32.s32.s32.shr7 -a.h1, b.b0, c`) through `fma-model eval`'s line reader, with
/// each operand's name replaced by the register value 0 so that only what PTX writes on the
/// operand (negation, selector) is read, by the model's own parser.
fn decode_spelling(ptx: &str, target: Target) -> PyResult<Ctrl> {
    let s = ptx.trim();
    let s = s.strip_suffix(';').unwrap_or(s).trim_end();
    let split = s
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(s.len());
    let (mnemonic, rest) = s.split_at(split);
    let err = |e: op::DecodeError| value_error(quote_spans(e.message()));
    if rest.trim().is_empty() {
        return op::decode(mnemonic, target).map_err(err);
    }
    if mnemonic.split('.').next() != Some("vmad") {
        return Err(value_error(
            "operands are only read for vmad (negations, selectors); give the mnemonic alone, \
             or use eval_line for a line with operand values",
        ));
    }
    let mut ops = Vec::new();
    for piece in rest.split(',') {
        for tok in piece.split_whitespace() {
            let (neg, body) = match tok.strip_prefix('-') {
                Some(b) => ("-", b),
                None => ("", tok),
            };
            let (name, sel) = body.split_once('.').unwrap_or((body, ""));
            if name.is_empty() {
                return Err(value_error(quote_spans(&format!(
                    "operand `{tok}` has no name"
                ))));
            }
            let sel = if sel.is_empty() {
                String::new()
            } else {
                format!(".{sel}")
            };
            ops.push(format!("{neg}0x0{sel}"));
        }
    }
    // A stray comma becomes an empty operand, which the reader rejects with its own message.
    let line = format!("{mnemonic} {}", ops.join(", "));
    op::parse_line(&line, target).map(|i| i.ctrl).map_err(err)
}

/// The control word (the RTL's `in_ctrl_i`, `CTRL_BITS` bits) of a PTX spelling for `target`.
///
/// `ptx` is the mnemonic, e.g. ``"fma.rn.ftz.f32"``, ``"mad.f32"`` (sm_1x), ``"add.rz.f32.bf16"``;
/// a vmad may carry its operands to give their negations and selectors:
/// ``"vmad.s32.u32.s32.sat.shr15 -a.h1, b.b0, c"``. `target` is ``"sm_NN"``, ``"sm_NNa"`` or
/// ``"sm_NNf"``. Raises ``ValueError`` with the decoder's reason for a bad spelling or target.
#[pyfunction]
#[pyo3(signature = (ptx, target = "sm_100"))]
fn decode(ptx: &str, target: &str) -> PyResult<u32> {
    Ok(decode_spelling(ptx, parse_target(target)?)?.encode())
}

/// A control word given as an int: `CTRL_BITS` bits, and one a PTX instruction decodes to. Any
/// pattern has a meaning on the pipe's ports, but evaluating a word the decoder never produces
/// is almost surely a testbench bug, so `eval` refuses it (`Pipeline.tick` takes it).
fn legal_ctrl(word: u64) -> Result<Ctrl, String> {
    if word >> CTRL_BITS != 0 {
        return Err(format!(
            "control word {word:#x} has bits above bit {}",
            CTRL_BITS - 1
        ));
    }
    let ctrl = Ctrl::decode(word as u32);
    if ctrl.encode() as u64 != word || !is_legal(&ctrl) {
        return Err(format!(
            "control word {word:#08x} is not one that a PTX instruction decodes to"
        ));
    }
    Ok(ctrl)
}

/// The `ptx_or_ctrl` argument: a PTX spelling (decoded for `target`) or a control word.
fn op_arg(op: &Bound<'_, PyAny>, target: &str) -> PyResult<Ctrl> {
    if let Ok(s) = op.cast::<PyString>() {
        return decode_spelling(&s.to_cow()?, parse_target(target)?);
    }
    if op.is_instance_of::<PyInt>() {
        let word: u64 = op
            .extract()
            .map_err(|_| value_error("a control word is a non-negative int of CTRL_BITS bits"))?;
        return legal_ctrl(word).map_err(value_error);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "expected a PTX spelling (str) or a control word (int)",
    ))
}

// ---------------------------------------------------------------------------------------------
// Evaluate
// ---------------------------------------------------------------------------------------------

/// One operation through the model's four pure stage functions: `pipeline::eval` without
/// building and draining a whole pipeline around it (several times cheaper per call).
fn eval_one(ctrl: u32, a: u64, b: u64, c: u64) -> u64 {
    let inp = PipeIn {
        valid: true,
        ctrl,
        a,
        b,
        c,
        ..PipeIn::default()
    };
    let s1 = pipeline::stage1(&inp);
    let s2 = pipeline::stage2(&s1);
    let s3 = pipeline::stage3(&s2);
    pipeline::stage4(&s3).d
}

/// The result word `d` (the RTL's `out_d_o`) of one operation.
///
/// `ptx_or_ctrl` is a PTX spelling (see `decode`) or a control word from `decode`; `a`, `b`, `c`
/// are the 64-bit operand words as on `in_a_i`..`in_c_i` (f32 in bits 31:0, f16/bf16 in 15:0,
/// f32x2 lane 0 in 31:0). add/sub ignore `b` and mul ignores `c`, as on the ports. 32-bit results
/// are in bits 31:0. Raises ``ValueError`` for a bad spelling, target or control word.
#[pyfunction]
#[pyo3(signature = (ptx_or_ctrl, a, b, c, target = "sm_100"))]
fn eval(ptx_or_ctrl: &Bound<'_, PyAny>, a: u64, b: u64, c: u64, target: &str) -> PyResult<u64> {
    let ctrl = op_arg(ptx_or_ctrl, target)?;
    Ok(eval_one(ctrl.encode(), a, b, c))
}

/// Evaluates one `fma-model eval` line, read exactly as the command reads it, e.g.
/// ``"fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000"`` or
/// ``"vmad.s32.s32.s32.shr7 -0x5.h1 0x7.b0 0x3"``, and returns the number the command prints.
///
/// Raises ``ValueError`` with the command's reason for a bad line, and for a line that
/// evaluates nothing (blank, ``//`` comment, ``.target``): one call sees one line, so pass the
/// target instead of a ``.target`` line.
#[pyfunction]
#[pyo3(signature = (line, target = "sm_100"))]
fn eval_line(line: &str, target: &str) -> PyResult<u64> {
    let mut t = parse_target(target)?;
    match read_line(line, &mut t) {
        Ok(Some(i)) => Ok(eval_one(i.ctrl.encode(), i.a, i.b, i.c)),
        Ok(None) => Err(value_error(
            "the line evaluates nothing (blank, comment or .target); pass the target argument",
        )),
        Err(reason) => Err(value_error(reason)),
    }
}

/// Inputs per `Pipeline::run` call when the bench times `run` itself, as
/// `pipeline::eval_batch` does.
const BLOCK: usize = 4096;

/// A 1-D numpy array as a slice: contiguous arrays are borrowed, others copied.
fn to_vec_or_slice<'a>(x: &'a PyReadonlyArray1<'_, u64>) -> std::borrow::Cow<'a, [u64]> {
    match x.as_slice() {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(x.as_array().to_vec()),
    }
}

/// `eval` over numpy ``uint64`` arrays of equal length, on the model's lane engine
/// (`Pipeline::run`; no Python work per operation, the GIL released): returns a new ``uint64``
/// array `d`.
///
/// `ptx_or_ctrl` is one spelling or control word for every element, or a numpy ``uint32`` or
/// ``uint64`` array of control words, one per element. Every control word is checked first;
/// a bad one raises ``ValueError`` naming its index and nothing is evaluated.
#[pyfunction]
#[pyo3(signature = (ptx_or_ctrl, a, b, c, target = "sm_100"))]
fn eval_array<'py>(
    py: Python<'py>,
    ptx_or_ctrl: &Bound<'py, PyAny>,
    a: PyReadonlyArray1<'py, u64>,
    b: PyReadonlyArray1<'py, u64>,
    c: PyReadonlyArray1<'py, u64>,
    target: &str,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let n = a.len();
    if b.len() != n || c.len() != n {
        return Err(value_error(format!(
            "a, b and c must have the same length (found {n}, {}, {})",
            b.len(),
            c.len()
        )));
    }
    let (a, b, c) = (
        to_vec_or_slice(&a),
        to_vec_or_slice(&b),
        to_vec_or_slice(&c),
    );
    let words: Option<Vec<u32>> = if let Ok(arr) = ptx_or_ctrl.extract::<PyReadonlyArray1<u64>>() {
        Some(check_words(arr.as_array().iter().copied(), n)?)
    } else if let Ok(arr) = ptx_or_ctrl.extract::<PyReadonlyArray1<u32>>() {
        Some(check_words(arr.as_array().iter().map(|&w| w as u64), n)?)
    } else {
        None
    };
    let mut d = vec![0u64; n];
    match words {
        Some(w) => py.detach(|| pipeline::eval_batch(|i| w[i], &a, &b, &c, &mut d)),
        None => {
            let word = op_arg(ptx_or_ctrl, target)?.encode();
            py.detach(|| pipeline::eval_batch(|_| word, &a, &b, &c, &mut d));
        }
    }
    Ok(PyArray1::from_vec(py, d))
}

/// Checks an array of control words (`legal_ctrl`; consecutive equal words once, since streams
/// come in runs) and returns them as `u32`.
fn check_words(words: impl ExactSizeIterator<Item = u64>, n: usize) -> PyResult<Vec<u32>> {
    if words.len() != n {
        return Err(value_error(format!(
            "the control word array has {} elements, the operands {n}",
            words.len()
        )));
    }
    let mut out = Vec::with_capacity(n);
    let mut last = None;
    for (i, w) in words.enumerate() {
        if last != Some(w) {
            legal_ctrl(w)
                .map_err(|e| value_error(format!("control word array, element {i}: {e}")))?;
            last = Some(w);
        }
        out.push(w as u32);
    }
    Ok(out)
}

/// Benchmark helper for `make bench`: operations per second of the model's own `Pipeline::run`
/// over these operations (a ``uint64`` array of control words and the operand arrays), timed in
/// Rust on inputs built beforehand, best of `repeats`. It is the baseline that `eval_array` is
/// measured against in the same process, so the ratio shows what the Python boundary costs.
#[pyfunction]
#[pyo3(signature = (ctrl, a, b, c, repeats = 5))]
fn _model_run_rate(
    py: Python<'_>,
    ctrl: PyReadonlyArray1<'_, u64>,
    a: PyReadonlyArray1<'_, u64>,
    b: PyReadonlyArray1<'_, u64>,
    c: PyReadonlyArray1<'_, u64>,
    repeats: usize,
) -> PyResult<f64> {
    let n = a.len();
    if ctrl.len() != n || b.len() != n || c.len() != n {
        return Err(value_error("ctrl, a, b and c must have the same length"));
    }
    let w = check_words(ctrl.as_array().iter().copied(), n)?;
    let (a, b, c) = (a.as_array(), b.as_array(), c.as_array());
    let inputs: Vec<PipeIn> = (0..n)
        .map(|i| PipeIn {
            valid: true,
            ctrl: w[i],
            a: a[i],
            b: b[i],
            c: c[i],
            ..PipeIn::default()
        })
        .collect();
    Ok(py.detach(|| {
        let mut outs = vec![Out::default(); BLOCK];
        let mut best = f64::MAX;
        for _ in 0..repeats.max(1) {
            let t = std::time::Instant::now();
            let mut p = pipeline::Pipeline::new();
            for chunk in inputs.chunks(BLOCK) {
                p.run(chunk, &mut outs[..chunk.len()]);
                std::hint::black_box(&outs);
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        n as f64 / best
    }))
}

// ---------------------------------------------------------------------------------------------
// Pipeline
// ---------------------------------------------------------------------------------------------

/// A register field as a Python value: 1-bit flags as `bool`, everything else as `int`
/// (signed fields signed, wide fields as one big int).
trait ToPy {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
}

macro_rules! to_py_scalar {
    ($($t:ty),*) => {$(
        impl ToPy for $t {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(self.into_pyobject(py)?.to_owned().into_any())
            }
        }
    )*};
}
to_py_scalar!(bool, u8, u16, u32, u64, i16, u128);

impl<const B: usize> ToPy for Wide<B> {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Limbs little-endian: fold from the top through Python ints.
        let mut v = 0u64.into_pyobject(py)?.into_any();
        for &limb in self.as_limbs().iter().rev() {
            v = v.lshift(64)?.bitor(limb)?;
        }
        Ok(v)
    }
}

/// A register bank as a dict of its fields, names and order as in `regs.rs` (the RTL's packed
/// structs, `docs/microarchitecture.md`); nested banks (`lane0`, `vm`) as nested dicts. The
/// struct is destructured with every field named, so a field added to the model and not here
/// fails to compile.
macro_rules! reg_dict {
    ($py:expr, $val:expr, $T:ident { $($f:ident),* $(,)? }) => {{
        let $T { $($f),* } = $val;
        let d = PyDict::new($py);
        $( d.set_item(stringify!($f), $f.to_py($py)?)?; )*
        d.into_any()
    }};
}

macro_rules! impl_reg_to_py {
    ($($T:ident { $($f:ident),* $(,)? })*) => {$(
        impl ToPy for $T {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(reg_dict!(py, self, $T { $($f),* }))
            }
        }
    )*};
}

impl_reg_to_py! {
    S1Lane { sign_p, sign_c, prod_zero, c_zero, eref, c_aligned, align_sticky, spec_valid, spec_res }
    S1Vmad { vm_cext, vm_inv, vm_lsb }
    S1 { valid, tag, ctrl, mul_sum, mul_carry, vm, lane0, lane1 }
    S2Lane { sign, zero, flush_sign, mag, sticky, lza_cnt, eref, spec_valid, spec_res }
    S2 { valid, tag, ctrl, vm_tmp, lane0, lane1 }
    S3Lane { sign, zero, flush_sign, norm, sticky, exp, spec_valid, spec_res }
    S3 { valid, tag, ctrl, vm_res, lane0, lane1 }
    Out { valid, tag, d }
}

/// The cycle-level model of `ptxfma_top`: four register banks (`s1`, `s2`, `s3`, `out`, the
/// RTL's `s1_q`..`out_q`), loaded on every `tick`. An operation presented in one `tick` retires
/// `LATENCY` - 1 ticks later, i.e. it is in the `out` returned by the `LATENCY`-th `tick` counting
/// its own, with its tag.
#[pyclass(module = "ptxfma")]
struct Pipeline {
    inner: pipeline::Pipeline,
}

#[pymethods]
impl Pipeline {
    #[new]
    fn new() -> Self {
        Pipeline {
            inner: pipeline::Pipeline::new(),
        }
    }

    /// One rising clock edge with these input ports (`in_valid_i`, `in_tag_i`, `in_ctrl_i`,
    /// `in_a_i`..`in_c_i`; `reset` holds `rst_ni` low through the edge, clearing every bank).
    /// `ctrl` is any word of `CTRL_BITS` bits, as on the port, or a PTX spelling (decoded for sm_100). Returns
    /// the output ports after the edge, ``(out_valid_o, out_tag_o, out_d_o)``.
    #[pyo3(signature = (valid, tag, ctrl, a, b, c, reset = false))]
    #[allow(clippy::too_many_arguments)]
    fn tick(
        &mut self,
        valid: bool,
        tag: u16,
        ctrl: &Bound<'_, PyAny>,
        a: u64,
        b: u64,
        c: u64,
        reset: bool,
    ) -> PyResult<(bool, u16, u64)> {
        let ctrl = if let Ok(s) = ctrl.cast::<PyString>() {
            decode_spelling(&s.to_cow()?, Target::default())?.encode()
        } else {
            let w: u64 = ctrl
                .extract()
                .map_err(|_| value_error("ctrl is an int of CTRL_BITS bits or a PTX spelling"))?;
            if w >> CTRL_BITS != 0 {
                return Err(value_error(format!(
                    "ctrl {w:#x} has bits above bit {}",
                    CTRL_BITS - 1
                )));
            }
            w as u32
        };
        let out = self.inner.tick(&PipeIn {
            valid,
            tag,
            ctrl,
            a,
            b,
            c,
            reset,
        });
        Ok((out.valid, out.tag, out.d))
    }

    /// Clears every bank, as the RTL's reset.
    fn reset(&mut self) {
        self.inner.reset();
    }

    /// The stage-1 bank `s1_q` as a dict of its fields.
    #[getter]
    fn s1<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.s1.to_py(py)
    }

    /// The stage-2 bank `s2_q` as a dict of its fields.
    #[getter]
    fn s2<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.s2.to_py(py)
    }

    /// The stage-3 bank `s3_q` as a dict of its fields.
    #[getter]
    fn s3<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.s3.to_py(py)
    }

    /// The output bank `out_q` as a dict: `valid`, `tag`, `d`.
    #[getter]
    fn out<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.out.to_py(py)
    }
}

/// The ptxfma golden model (PTX fma/mad/vmad) for Python testbenches: `decode`, `eval`,
/// `eval_line`, `eval_array` and the cycle-level `Pipeline`, bit-exact with `fma-model` and the
/// RTL.
#[pymodule]
#[pyo3(name = "ptxfma")]
fn ptxfma(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(eval, m)?)?;
    m.add_function(wrap_pyfunction!(eval_line, m)?)?;
    m.add_function(wrap_pyfunction!(eval_array, m)?)?;
    m.add_function(wrap_pyfunction!(_model_run_rate, m)?)?;
    m.add_class::<Pipeline>()?;
    m.add("LATENCY", LATENCY)?;
    m.add("CTRL_BITS", CTRL_BITS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

"""Type stubs of `ptxfma`, the ptxfma golden model (PTX fma/mad/vmad) for Python testbenches."""

from typing import Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str
#: Cycles from an operation's input to its result on the output ports.
LATENCY: int
#: Width of the control word (`in_ctrl_i`) in bits.
CTRL_BITS: int

def decode(ptx: str, target: str = "sm_100") -> int:
    """The 27-bit control word of a PTX spelling, e.g. ``decode("fma.rn.ftz.f32")`` or
    ``decode("vmad.s32.s32.s32.shr7 -a.h1, b.b0, c")``. Raises ``ValueError`` with the
    decoder's reason for a bad spelling or target."""

def eval(ptx_or_ctrl: Union[str, int], a: int, b: int, c: int, target: str = "sm_100") -> int:
    """The result word ``d`` of one operation (operands and result as the RTL's 64-bit ports).
    Raises ``ValueError`` for a bad spelling, target or control word."""

def eval_line(line: str, target: str = "sm_100") -> int:
    """Evaluates one ``fma-model eval`` line, e.g. ``"fma.rn.f32 0x3f800000 0x40000000 0x0"``.
    Raises ``ValueError`` for a bad line or one that evaluates nothing."""

def eval_array(
    ptx_or_ctrl: Union[str, int, npt.NDArray[np.uint32], npt.NDArray[np.uint64]],
    a: npt.NDArray[np.uint64],
    b: npt.NDArray[np.uint64],
    c: npt.NDArray[np.uint64],
    target: str = "sm_100",
) -> npt.NDArray[np.uint64]:
    """``eval`` over 1-D ``uint64`` arrays of equal length on the model's lane engine; one
    control word for all, or an array of them."""

class S1Lane(TypedDict):
    sign_p: bool
    sign_c: bool
    prod_zero: bool
    c_zero: bool
    eref: int
    c_aligned: int
    align_sticky: bool
    spec_valid: bool
    spec_res: int

class S1Vmad(TypedDict):
    vm_cext: int
    vm_inv: bool
    vm_lsb: bool

class S1(TypedDict):
    """``s1_q``: the carry-save product, the vmad side path, two float lanes."""
    valid: bool
    tag: int
    ctrl: int
    mul_sum: int
    mul_carry: int
    vm: S1Vmad
    lane0: S1Lane
    lane1: S1Lane

class S2Lane(TypedDict):
    sign: bool
    zero: bool
    flush_sign: bool
    mag: int
    sticky: bool
    lza_cnt: int
    eref: int
    spec_valid: bool
    spec_res: int

class S2(TypedDict):
    """``s2_q``: the sum magnitude and LZA count per lane; the vmad accumulator."""
    valid: bool
    tag: int
    ctrl: int
    vm_tmp: int
    lane0: S2Lane
    lane1: S2Lane

class S3Lane(TypedDict):
    sign: bool
    zero: bool
    flush_sign: bool
    norm: int
    sticky: bool
    exp: int
    spec_valid: bool
    spec_res: int

class S3(TypedDict):
    """``s3_q``: the normalised significand per lane; the scaled vmad result."""
    valid: bool
    tag: int
    ctrl: int
    vm_res: int
    lane0: S3Lane
    lane1: S3Lane

class Out(TypedDict):
    """``out_q``: what retires."""
    valid: bool
    tag: int
    d: int

class Pipeline:
    """The cycle-level model of ``ptxfma_top``: an operation presented in one ``tick`` retires
    in the output of the tick ``LATENCY - 1`` later, with its tag."""

    def __init__(self) -> None: ...
    def tick(
        self,
        valid: bool,
        tag: int,
        ctrl: Union[int, str],
        a: int,
        b: int,
        c: int,
        reset: bool = False,
    ) -> Tuple[bool, int, int]:
        """One rising edge; returns ``(out_valid_o, out_tag_o, out_d_o)`` after it."""
    def reset(self) -> None:
        """Clears every bank, as the RTL's reset."""
    @property
    def s1(self) -> S1: ...
    @property
    def s2(self) -> S2: ...
    @property
    def s3(self) -> S3: ...
    @property
    def out(self) -> Out: ...

def _model_run_rate(
    ctrl: npt.NDArray[np.uint64],
    a: npt.NDArray[np.uint64],
    b: npt.NDArray[np.uint64],
    c: npt.NDArray[np.uint64],
    repeats: int = 5,
) -> float:
    """Benchmark helper: operations per second of the model's own ``Pipeline::run`` over these
    operations, in Rust, best of ``repeats`` (the baseline of ``make bench``)."""

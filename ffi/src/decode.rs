//! `ptxfma_decode`: a PTX spelling, with a vmad's operand decorations, to the control word.

use std::ffi::c_char;

use ptxfma_model::ctrl::Ctrl;
use ptxfma_ptx::print::sel_suffix;
use ptxfma_ptx::quote::quote_spans;
use ptxfma_ptx::{self as op, Target, VmadSrc};

use crate::args::{out_ptr, text};
use crate::status::{fail, guard, Fail, Res};
use crate::PtxfmaStatus;

/// Decodes a PTX spelling for `target` (`"sm_20"`, `"sm_13"`, `"sm_100a"`, ...; null or "" is
/// sm_100) to the control word (PTXFMA_CTRL_BITS bits) of the RTL's `in_ctrl_i`.
///
/// The spelling is the mnemonic, e.g. `"fma.rn.ftz.f32"`, `"mad.f32"` (sm_1x), `"add.rz.f32.bf16"`;
/// a `vmad` may be followed by its three operands, which carry what PTX writes on them, the
/// negations and the byte/half selectors: `"vmad.s32.u32.s32.sat.shr15 -a.h1, b.b0, c"` (operand
/// names are free; without operands, no negation and no selector). On a bad spelling or target
/// the result is an error (`PTXFMA_STATUS_DECODE`, `PTXFMA_STATUS_BAD_TARGET`) with the decoder's
/// reason in `ptxfma_last_error`.
///
/// # Safety
/// `spelling` and `target` are null or NUL-terminated strings; `ctrl` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxfma_decode(
    spelling: *const c_char,
    target: *const c_char,
    ctrl: *mut u32,
) -> i32 {
    guard("ptxfma_decode", || {
        let s = text(spelling, "spelling")?;
        let t = crate::args::target(target)?;
        let out = out_ptr(ctrl, "ctrl")?;
        *out = decode_spelling(s, t)?.encode();
        Ok(PtxfmaStatus::Ok)
    })
}

/// The decoder behind [`ptxfma_decode`]: `op::decode` for a bare mnemonic, `op::decode_vmad`
/// with the operands' decorations for a vmad written with operands.
fn decode_spelling(s: &str, target: Target) -> Res<Ctrl> {
    let decode_err = |e: op::DecodeError| Fail(PtxfmaStatus::Decode, quote_spans(e.message()));
    let s = s.trim();
    let s = s.strip_suffix(';').unwrap_or(s).trim_end();
    let split = s
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(s.len());
    let (mnemonic, rest) = s.split_at(split);
    let ops: Vec<&str> = rest.split(',').flat_map(str::split_whitespace).collect();
    if ops.is_empty() {
        return op::decode(mnemonic, target).map_err(decode_err);
    }
    if mnemonic.split('.').next() != Some("vmad") {
        return fail(
            PtxfmaStatus::Decode,
            "operands are only read for vmad (negations, selectors); give the mnemonic alone",
        );
    }
    if ops.len() != 3 {
        return fail(
            PtxfmaStatus::Decode,
            format!("vmad takes 3 operands (a, b, c), found {}", ops.len()),
        );
    }
    let mut src = VmadSrc::default();
    let mut negs = [false; 3];
    let mut sels = [ptxfma_model::ctrl::Sel::W; 3];
    for (i, tok) in ops.iter().enumerate() {
        let (neg, body) = match tok.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, *tok),
        };
        let (name, sel) = match body.split_once('.') {
            Some((n, s)) => (n, Some(s)),
            None => (body, None),
        };
        if name.is_empty() {
            return fail(
                PtxfmaStatus::Decode,
                quote_spans(&format!("operand `{tok}` has no name")),
            );
        }
        negs[i] = neg;
        if let Some(sel) = sel {
            let found = SELS.iter().copied().find(|&x| sel_suffix(x)[1..] == *sel);
            match found {
                Some(x) if i < 2 => sels[i] = x,
                Some(_) => {
                    return fail(
                        PtxfmaStatus::Decode,
                        quote_spans(&format!("operand c `{tok}`: c takes no selector")),
                    )
                }
                None => {
                    return fail(
                        PtxfmaStatus::Decode,
                        quote_spans(&format!(
                            "operand `{tok}`: unknown selector `.{sel}` \
                             (expected .b0, .b1, .b2, .b3, .h0 or .h1)"
                        )),
                    )
                }
            }
        }
    }
    (src.a_neg, src.b_neg, src.c_neg) = (negs[0], negs[1], negs[2]);
    (src.asel, src.bsel) = (sels[0], sels[1]);
    op::decode_vmad(mnemonic, target, src).map_err(decode_err)
}

/// The selectors an operand may carry, named through the model's own `sel_suffix`.
const SELS: [ptxfma_model::ctrl::Sel; 6] = {
    use ptxfma_model::ctrl::Sel::*;
    [B0, B1, B2, B3, H0, H1]
};

//! The C ABI against the model it wraps, and its error contract: every entry point called the
//! way a C host would call it, through the `extern "C"` functions.

use ptxfma::*;
use ptxfma_model::machine::pipeline;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use ptxfma_model::regs::{Reg, S1};
use ptxfma_model::stimulus::{FamilyFilter, Stimulus};
use ptxfma_ptx::{decode, parse_line, Target};
use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_error() -> String {
    // SAFETY: the library returns a valid NUL-terminated string.
    unsafe { CStr::from_ptr(ptxfma_last_error()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn dec(spelling: &str, target: &str) -> Result<u32, (i32, String)> {
    let mut w = 0xdead_beef;
    // SAFETY: valid strings and out-pointer.
    let st = unsafe { ptxfma_decode(c(spelling).as_ptr(), c(target).as_ptr(), &mut w) };
    if st == 0 {
        Ok(w)
    } else {
        assert_eq!(w, 0xdead_beef, "out-parameter written on error");
        Err((st, last_error()))
    }
}

#[test]
fn decode_matches_the_model_decoder() {
    for (m, t) in [
        ("fma.rn.ftz.f32", "sm_20"),
        ("fma.rz.sat.f32", "sm_100"),
        ("fma.rm.f64", "sm_13"),
        ("mad.f32", "sm_13"),
        ("fma.rn.f32x2", "sm_100"),
        ("add.rz.f32.bf16", "sm_100"),
        ("mul.rp.f64", "sm_20"),
        ("vmad.s32.u32.s32.sat.shr15", "sm_20"),
    ] {
        let want = decode(m, Target::parse(t).unwrap()).unwrap().encode();
        assert_eq!(dec(m, t), Ok(want), "{m} on {t}");
    }
    // The default target is sm_100, as in `fma-model eval`.
    let mut w = 0;
    // SAFETY: valid string and out-pointer; null target.
    assert_eq!(
        unsafe { ptxfma_decode(c("fma.rn.f32x2").as_ptr(), null(), &mut w) },
        0
    );
}

#[test]
fn vmad_operand_decorations_reach_the_control_word() {
    // The same decorations through the `eval` line parser give the expected word.
    let line = parse_line(
        "vmad.s32.u32.s32.sat.shr15 -0x0.h1, 0x0.b2, 0x0",
        Target::parse("sm_20").unwrap(),
    )
    .unwrap();
    let w = dec("vmad.s32.u32.s32.sat.shr15 -a.h1, b.b2, c", "sm_20").unwrap();
    assert_eq!(w, line.ctrl.encode());
    assert_ne!(w, dec("vmad.s32.u32.s32.sat.shr15", "sm_20").unwrap());
    let (st, msg) = dec("vmad.u32.u32.u32 a.b4, b, c", "sm_20").unwrap_err();
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(msg.contains("unknown selector"), "{msg}");
    let (_, msg) = dec("vmad.u32.u32.u32 a, b, c.h0", "sm_20").unwrap_err();
    assert!(msg.contains("c takes no selector"), "{msg}");
    let (_, msg) = dec("vmad.u32.u32.u32 a, b", "sm_20").unwrap_err();
    assert!(msg.contains("3 operands"), "{msg}");
    let (_, msg) = dec("fma.rn.f32 a, b, c", "sm_20").unwrap_err();
    assert!(msg.contains("only read for vmad"), "{msg}");
}

#[test]
fn bad_spellings_and_targets_are_errors_with_messages() {
    let (st, msg) = dec("fma.rx.f32", "sm_20").unwrap_err();
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(msg.contains("unknown modifier"), "{msg}");
    let (st, msg) = dec("fma.rn.f32x2", "sm_20").unwrap_err();
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(msg.contains("sm_100"), "{msg}");
    // What ptxas refuses: legacy mad.f64 after sm_1x, add.f32x2 before sm_100, .sat on f32x2.
    for (m, t, why) in [
        ("mad.f64", "sm_90", "legacy mad.f64 is sm_1x only"),
        ("add.rn.f32x2", "sm_90", "sm_100"),
        ("mul.rz.sat.f32x2", "sm_100", "`.sat` is not allowed"),
    ] {
        let (st, msg) = dec(m, t).unwrap_err();
        assert_eq!(st, PtxfmaStatus::Decode as i32, "{m}");
        assert!(msg.contains(why), "{m}: {msg}");
    }
    // What it takes: either vmad dtype, and .po with -a, -b, each the word it computes (S8).
    assert_eq!(
        dec("vmad.u32.s32.u32.sat", "sm_90"),
        dec("vmad.s32.s32.u32.sat", "sm_90")
    );
    assert_eq!(
        dec("vmad.u32.u32.u32.po -a, -b, c", "sm_90"),
        dec("vmad.u32.u32.u32.po", "sm_90")
    );
    let (st, msg) = dec("fma.rn.f32", "sm_14").unwrap_err();
    assert_eq!(st, PtxfmaStatus::BadTarget as i32);
    assert!(msg.contains("sm_14"), "{msg}");
    let bad = [0x66u8, 0xff, 0];
    let mut w = 0;
    // SAFETY: NUL-terminated bytes (not UTF-8).
    let st = unsafe { ptxfma_decode(bad.as_ptr().cast(), null(), &mut w) };
    assert_eq!(st, PtxfmaStatus::BadString as i32);
}

#[test]
fn null_pointers_are_errors_not_crashes() {
    let s = c("fma.rn.f32");
    // SAFETY: nulls are what is tested; everything else is valid.
    unsafe {
        assert_eq!(
            ptxfma_decode(null(), null(), &mut 0),
            PtxfmaStatus::Null as i32
        );
        assert!(last_error().contains("spelling is a null pointer"));
        assert_eq!(
            ptxfma_decode(s.as_ptr(), null(), null_mut()),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(
            ptxfma_eval(0, 0, 0, 0, null_mut()),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(
            ptxfma_eval_line(null(), null(), &mut 0),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(
            ptxfma_eval_batch(null(), null(), null(), null(), null_mut(), 1),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(
            ptxfma_eval_batch(null(), null(), null(), null(), null_mut(), 0),
            0
        );
        assert_eq!(ptxfma_stage_width(0, null_mut()), PtxfmaStatus::Null as i32);
        let h = ptxfma_pipe_new();
        assert_eq!(
            ptxfma_pipe_stage(h, 0, null_mut(), 99),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(
            ptxfma_pipe_stage_word(h, 0, 0, null_mut()),
            PtxfmaStatus::Null as i32
        );
        assert_eq!(ptxfma_pipe_out(h, null_mut(), null_mut(), null_mut()), 0);
        assert_eq!(ptxfma_pipe_free(h), 0);
    }
}

#[test]
fn bad_control_words_are_refused_by_eval_and_batch() {
    let mut d = 7;
    // SAFETY: valid out-pointers.
    unsafe {
        assert_eq!(
            ptxfma_eval(1 << 27, 0, 0, 0, &mut d),
            PtxfmaStatus::BadCtrl as i32
        );
        assert!(
            last_error().contains("bits above bit 26"),
            "{}",
            last_error()
        );
        // Kind 5 is reserved: the RTL reads it as f32, but no instruction decodes to it.
        assert_eq!(
            ptxfma_eval(5, 0, 0, 0, &mut d),
            PtxfmaStatus::BadCtrl as i32
        );
        assert_eq!(d, 7);
        let ctrl = [0u32, 0, 5];
        let v = [0u64; 3];
        let mut out = [9u64; 3];
        let st = ptxfma_eval_batch(
            ctrl.as_ptr(),
            v.as_ptr(),
            v.as_ptr(),
            v.as_ptr(),
            out.as_mut_ptr(),
            3,
        );
        assert_eq!(st, PtxfmaStatus::BadCtrl as i32);
        assert!(last_error().contains("element 2"), "{}", last_error());
        assert_eq!(out, [9; 3], "nothing written on a bad word");
    }
}

/// The seeded mix of every family: single evaluation, batch and `pipeline::eval` agree.
#[test]
fn eval_and_batch_equal_the_model_on_every_family() {
    let vs: Vec<_> = Stimulus::new(5, FamilyFilter::all()).take(20_000).collect();
    let ctrl: Vec<u32> = vs.iter().map(|v| v.ctrl.encode()).collect();
    let a: Vec<u64> = vs.iter().map(|v| v.a).collect();
    let b: Vec<u64> = vs.iter().map(|v| v.b).collect();
    let cc: Vec<u64> = vs.iter().map(|v| v.c).collect();
    let mut d = vec![0u64; vs.len()];
    // SAFETY: arrays of vs.len() elements.
    let st = unsafe {
        ptxfma_eval_batch(
            ctrl.as_ptr(),
            a.as_ptr(),
            b.as_ptr(),
            cc.as_ptr(),
            d.as_mut_ptr(),
            vs.len(),
        )
    };
    assert_eq!(st, 0);
    for (i, v) in vs.iter().enumerate() {
        let want = pipeline::eval(&v.ctrl, v.a, v.b, v.c);
        let mut one = 0;
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { ptxfma_eval(ctrl[i], v.a, v.b, v.c, &mut one) }, 0);
        assert_eq!(one, want, "eval, vector {i}: {v:?}");
        assert_eq!(d[i], want, "batch, vector {i}: {v:?}");
    }
    // Blocks of one control word go to the lane engine directly: check them for the words of
    // the first vectors, which cover every family (with 5000 operations, one full block and a
    // part block with a tail of fewer than sixteen).
    let mut families = std::collections::HashSet::new();
    for v in &vs[..64] {
        families.insert(ptxfma_model::stimulus::Family::of(&v.ctrl));
        let w = v.ctrl.encode();
        let same = vec![w; 5000];
        // SAFETY: arrays of at least 5000 elements.
        let st = unsafe {
            ptxfma_eval_batch(
                same.as_ptr(),
                a.as_ptr(),
                b.as_ptr(),
                cc.as_ptr(),
                d.as_mut_ptr(),
                5000,
            )
        };
        assert_eq!(st, 0);
        for i in 0..5000 {
            assert_eq!(
                d[i],
                pipeline::eval(&v.ctrl, a[i], b[i], cc[i]),
                "{:?}, {i}",
                v.ctrl
            );
        }
    }
    assert_eq!(
        families.len(),
        ptxfma_model::stimulus::Family::ALL.len(),
        "{families:?}"
    );
}

fn line(l: &str, target: Option<&str>) -> (i32, u64) {
    let mut d = 0xfeed;
    let t = target.map(c);
    // SAFETY: valid strings and out-pointer.
    let st = unsafe {
        ptxfma_eval_line(
            c(l).as_ptr(),
            t.as_ref().map_or(null(), |t| t.as_ptr()),
            &mut d,
        )
    };
    (st, d)
}

#[test]
fn eval_line_reads_lines_as_the_command_does() {
    assert_eq!(
        line("fma.rn.f32 0x3f800000 0x40000000 0x3f800000", None),
        (0, 0x4040_0000)
    );
    assert_eq!(
        line(
            "mad.f32 0x3f800000 0x40000000 0x3f800000 // sm_1x",
            Some("sm_13")
        ),
        (0, 0x4040_0000)
    );
    let (st, _) = line("vmad.s32.s32.s32.shr7 -0x5.h1 0x7.b0 0x3;", Some("sm_20"));
    assert_eq!(st, 0);
    assert_eq!(line("  // comment", None), (1, 0xfeed));
    assert_eq!(line(".target sm_13", None), (1, 0xfeed));
    let (st, _) = line("mad.f32 0x0 0x0 0x0", None);
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(
        last_error().contains("requires a rounding modifier"),
        "{}",
        last_error()
    );
    let (st, _) = line("fma.rn.f32 0x1 0x2", None);
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(last_error().contains("expected 3 operands, found 2"));
}

#[test]
fn eval_lines_carries_the_target_and_reports_bad_lines() {
    let text = c("fma.rn.f32 0x3f800000 0x40000000 0x3f800000\n\
                  .target sm_13\n\
                  // comment\n\
                  mad.f32 0x3f800000 0x40000000 0x3f800000\n\
                  mad.f32 0x1 0x2\n\
                  fma.rn.f64 0x3ff0000000000000 0x3ff0000000000000 0x0\n");
    let mut d = [0u64; 8];
    let mut s = [0i32; 8];
    let mut n = 0usize;
    // SAFETY: buffers of 8 elements.
    let st = unsafe {
        ptxfma_eval_lines(
            text.as_ptr(),
            null(),
            d.as_mut_ptr(),
            s.as_mut_ptr(),
            8,
            &mut n,
        )
    };
    assert_eq!(st, PtxfmaStatus::Decode as i32);
    assert!(
        last_error().contains("5: expected 3 operands"),
        "{}",
        last_error()
    );
    assert_eq!(n, 4);
    assert_eq!(
        &d[..4],
        &[0x4040_0000, 0x4040_0000, 0, 0x3ff0_0000_0000_0000]
    );
    assert_eq!(&s[..4], &[0, 0, PtxfmaStatus::Decode as i32, 0]);
    // Too small a buffer: the count needed, and nothing written.
    let mut d2 = [0u64; 2];
    let mut s2 = [0i32; 2];
    // SAFETY: buffers of 2 elements.
    let st = unsafe {
        ptxfma_eval_lines(
            text.as_ptr(),
            null(),
            d2.as_mut_ptr(),
            s2.as_mut_ptr(),
            2,
            &mut n,
        )
    };
    assert_eq!((st, n, d2), (PtxfmaStatus::BadArg as i32, 4, [0, 0]));
}

/// A pipeline instance ticked through the ABI follows `Pipeline::tick` port for port and
/// register for register, on a mixed stream with bubbles.
#[test]
fn pipe_instance_is_the_model_pipeline() {
    let h = ptxfma_pipe_new();
    assert!(!h.is_null());
    let mut model = Pipeline::new();
    let mut bits = 0;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { ptxfma_stage_width(0, &mut bits) }, 0);
    assert_eq!(bits, S1::WIDTH);
    for (t, v) in Stimulus::new(9, FamilyFilter::all()).take(3000).enumerate() {
        let inp = PipeIn {
            valid: t % 7 != 3,
            tag: t as u16,
            ctrl: v.ctrl.encode(),
            a: v.a,
            b: v.b,
            c: v.c,
            reset: false,
        };
        let want = model.tick(&inp);
        let st = ptxfma_pipe_tick(
            h,
            inp.valid as u32,
            t as u32 & 0xffff,
            inp.ctrl,
            v.a,
            v.b,
            v.c,
        );
        assert_eq!(st, 0);
        let (mut valid, mut tag, mut d) = (0, 0, 0);
        // SAFETY: valid out-pointers.
        assert_eq!(
            unsafe { ptxfma_pipe_out(h, &mut valid, &mut tag, &mut d) },
            0
        );
        assert_eq!(
            (valid != 0, tag as u16, d),
            (want.valid, want.tag, want.d),
            "cycle {t}"
        );
        if t % 97 == 0 {
            let mut img = vec![0u32; S1::WORDS];
            let mut want_img = vec![0u32; S1::WORDS];
            model.s1.pack(&mut want_img);
            // SAFETY: a buffer of the right size.
            assert_eq!(
                unsafe { ptxfma_pipe_stage(h, 0, img.as_mut_ptr(), img.len()) },
                0
            );
            assert_eq!(img, want_img, "s1 image, cycle {t}");
            let mut w = 0;
            // SAFETY: valid out-pointer.
            assert_eq!(unsafe { ptxfma_pipe_stage_word(h, 0, 1, &mut w) }, 0);
            assert_eq!(w, want_img[1]);
        }
    }
    assert_eq!(ptxfma_pipe_reset(h), 0);
    let mut d = 1;
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { ptxfma_pipe_out(h, null_mut(), null_mut(), &mut d) },
        0
    );
    assert_eq!(d, 0, "reset clears out_q");
    assert_eq!(ptxfma_pipe_free(h), 0);
}

#[test]
fn bad_handles_and_arguments_are_errors() {
    let h = ptxfma_pipe_new();
    assert_eq!(
        ptxfma_pipe_tick(h, 2, 0, 0, 0, 0, 0),
        PtxfmaStatus::BadArg as i32
    );
    assert_eq!(
        ptxfma_pipe_tick(h, 1, 0x1_0000, 0, 0, 0, 0),
        PtxfmaStatus::BadArg as i32
    );
    assert_eq!(
        ptxfma_pipe_tick(h, 1, 0, 1 << 27, 0, 0, 0),
        PtxfmaStatus::BadCtrl as i32
    );
    // A reserved code is a legal port value: the RTL reads it as documented.
    assert_eq!(ptxfma_pipe_tick(h, 1, 0, 7, 0, 0, 0), 0);
    let mut w = 0;
    // SAFETY: valid out-pointer.
    unsafe {
        assert_eq!(
            ptxfma_pipe_stage_word(h, 4, 0, &mut w),
            PtxfmaStatus::BadArg as i32
        );
        assert_eq!(
            ptxfma_pipe_stage_word(h, 3, 99, &mut w),
            PtxfmaStatus::BadArg as i32
        );
        let mut small = [0u32; 2];
        assert_eq!(
            ptxfma_pipe_stage(h, 0, small.as_mut_ptr(), 2),
            PtxfmaStatus::BadArg as i32
        );
    }
    assert_eq!(ptxfma_pipe_free(h), 0);
    // Freed, null and forged handles.
    for bad in [h, null_mut(), 0x1234 as *mut PtxfmaPipe] {
        assert_eq!(
            ptxfma_pipe_tick(bad, 0, 0, 0, 0, 0, 0),
            PtxfmaStatus::BadHandle as i32
        );
        assert_eq!(ptxfma_pipe_reset(bad), PtxfmaStatus::BadHandle as i32);
        assert_eq!(ptxfma_pipe_free(bad), PtxfmaStatus::BadHandle as i32);
        assert!(last_error().contains("not a live pipeline handle"));
    }
}

/// Handles on different threads are independent, and errors are per thread.
#[test]
fn handles_and_errors_are_per_thread() {
    let threads: Vec<_> = (0..4u64)
        .map(|k| {
            std::thread::spawn(move || {
                let h = ptxfma_pipe_new();
                let mut model = Pipeline::new();
                for v in Stimulus::new(100 + k, FamilyFilter::all()).take(2000) {
                    let want = model.tick(&v.input(0));
                    assert_eq!(ptxfma_pipe_tick(h, 1, 0, v.ctrl.encode(), v.a, v.b, v.c), 0);
                    let mut d = 0;
                    // SAFETY: valid out-pointer.
                    unsafe { ptxfma_pipe_out(h, null_mut(), null_mut(), &mut d) };
                    assert_eq!(d, want.d);
                }
                // This thread's error, not another's.
                let msg = format!("sm_{}9", k + 1);
                assert!(dec("fma.rn.f32", &msg).is_err());
                assert!(last_error().contains(&msg), "{}", last_error());
                assert_eq!(ptxfma_pipe_free(h), 0);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

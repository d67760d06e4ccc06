//! A design built by `fma-cosim dut build`, loaded at run time (`run --dut DIR`): its record
//! (`dut.json`) and its library, whose C ABI is `cosim/engine/csrc/dut.cpp`.

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::rtl::variant::VariantMeta;
use crate::Error;

use super::{Record, ABI, RECORD};

type NewFn = unsafe extern "C" fn(i32, i32, *mut c_char, usize) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type WordsFn = unsafe extern "C" fn(*const c_void) -> usize;
type TimeFn = unsafe extern "C" fn(*const c_void) -> u64;
type ResetFn = unsafe extern "C" fn(*mut c_void, *mut c_char, usize) -> i32;
type BatchFn =
    unsafe extern "C" fn(*mut c_void, *const u64, usize, *mut u32, *mut c_char, usize) -> i32;
type SpinFn = unsafe extern "C" fn(*mut c_void, *const u64, usize, u64, *mut c_char, usize) -> i32;
type OpenFn = unsafe extern "C" fn(*mut c_void, *const c_char, *mut c_char, usize) -> i32;
type CloseFn = unsafe extern "C" fn(*mut c_void, *mut c_char, usize) -> i32;
type StepFn = unsafe extern "C" fn(*mut c_void, *const u64, *mut u32, *mut c_char, usize) -> i32;

/// Why `bytes` is not a whole 64-bit little-endian ELF shared library, if it is not: its
/// header, its program headers and what each loaded segment maps from the file, and its
/// section headers, each within the file.
pub fn elf_problem(bytes: &[u8]) -> Option<String> {
    let len = bytes.len() as u64;
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64)
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64)
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" || bytes[4] != 2 || bytes[5] != 1 {
        return Some(format!(
            "it is not a 64-bit little-endian ELF file ({len} bytes)"
        ));
    }
    let (phoff, shoff) = (u64_at(0x20)?, u64_at(0x28)?);
    let (phentsize, phnum) = (u16_at(0x36)?, u16_at(0x38)?);
    let (shentsize, shnum) = (u16_at(0x3a)?, u16_at(0x3c)?);
    let within = |off: u64, size: u64| off.checked_add(size).is_some_and(|end| end <= len);
    if !within(phoff, phentsize * phnum) {
        return Some(format!("its program headers end past its {len} bytes"));
    }
    for i in 0..phnum {
        let h = (phoff + i * phentsize) as usize;
        // PT_LOAD: the bytes of the file mapped into memory.
        if u32_at(h)? == 1 && !within(u64_at(h + 8)?, u64_at(h + 32)?) {
            return Some(format!(
                "segment {i} maps bytes past its {len} bytes (the file is cut short)"
            ));
        }
    }
    if !within(shoff, shentsize * shnum) {
        return Some(format!(
            "its section headers end past its {len} bytes (the file is cut short)"
        ));
    }
    None
}

/// A loaded library with its entry points, and what the run needs to know of it.
pub struct Loaded {
    /// Kept loaded for the life of the process (the entry points below point into it).
    _lib: libloading::Library,
    new: NewFn,
    free: FreeFn,
    words: WordsFn,
    time: TimeFn,
    reset: ResetFn,
    batch: BatchFn,
    spin: SpinFn,
    open: OpenFn,
    close: CloseFn,
    step: StepFn,
    pub record: Record,
    pub meta: VariantMeta,
}

/// The variant name a loaded design goes by: `dut:` and its directory.
pub fn variant_name(dir: &Path) -> String {
    format!("dut:{}", dir.display())
}

/// The design in `dir`, loaded once per process and kept: a one-line error for a directory
/// without a build, a library of another ABI or another `fma-cosim`, a source or manifest
/// edited since the build, or ports that do not match the contract.
pub fn open(dir: &Path) -> Result<&'static Loaded, Error> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static Loaded>>> = OnceLock::new();
    let key = dir
        .canonicalize()
        .map_err(|e| Error::new(format!("--dut {}: {e}", dir.display())))?;
    let mut map = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(l) = map.get(&key) {
        return Ok(l);
    }
    let l: &'static Loaded = Box::leak(Box::new(load(&key)?));
    map.insert(key, l);
    Ok(l)
}

fn load(dir: &Path) -> Result<Loaded, Error> {
    let at = |m: String| Error::new(format!("--dut {}: {m}", dir.display()));
    let rec_path = dir.join(RECORD);
    let text = std::fs::read_to_string(&rec_path).map_err(|e| {
        at(format!(
            "{RECORD}: {e} (build the design with `fma-cosim dut build`)"
        ))
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| at(format!("{RECORD}: {e}")))?;
    // Who built it first: a record of another version may have other fields.
    let want = super::build_id();
    let (abi, by) = (value["abi"].as_u64(), value["built_by"].as_str());
    if abi != Some(ABI as u64) || by != Some(want.as_str()) {
        return Err(at(format!(
            "built by {} (ABI {}), this is {want} (ABI {ABI}): rebuild it with `fma-cosim dut \
             build`",
            by.unwrap_or("an unknown tool"),
            abi.map_or("?".into(), |a| a.to_string())
        )));
    }
    let record: Record = serde_json::from_value(value).map_err(|e| at(format!("{RECORD}: {e}")))?;
    record.check().map_err(|m| at(format!("{RECORD}: {m}")))?;
    record.check_inputs(dir).map_err(at)?;
    let lib_path = dir.join(&record.library);
    // A library that is not the one the record describes (truncated, replaced, rebuilt by
    // hand) is refused before it is mapped: mapping a truncated one faults on first use.
    let bytes = std::fs::read(&lib_path).map_err(|e| at(format!("{}: {e}", lib_path.display())))?;
    if super::sha256(&bytes) != record.sha256.library {
        return Err(at(format!(
            "{} is not the library {RECORD} describes (its SHA-256 differs): rebuild it with \
             `fma-cosim dut build`",
            record.library
        )));
    }
    // A library whose digest was recorded again after it was cut short would still fault
    // when mapped: what it says of its own extent must lie within it.
    if let Some(why) = elf_problem(&bytes) {
        return Err(at(format!(
            "{} cannot be loaded whole: {why}: rebuild it with `fma-cosim dut build`",
            record.library
        )));
    }
    drop(bytes);
    // SAFETY: the library was built by `dut build` from cosim/engine/csrc/dut.cpp; its constructors
    // are the Verilator runtime's and the models' static initialisers.
    let lib = unsafe { libloading::Library::new(&lib_path) }
        .map_err(|e| at(format!("{}: {e}", lib_path.display())))?;
    // SAFETY (each symbol): the types are those dut.cpp declares; the ABI and build identity
    // checked below guard against a library from another version of that file.
    unsafe {
        let abi: libloading::Symbol<unsafe extern "C" fn() -> u32> =
            lib.get(b"ptxfma_dut_abi").map_err(|e| at(e.to_string()))?;
        let build: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> = lib
            .get(b"ptxfma_dut_build")
            .map_err(|e| at(e.to_string()))?;
        let lib_build = CStr::from_ptr(build()).to_string_lossy().into_owned();
        if abi() != ABI || lib_build != want {
            return Err(at(format!(
                "its library was built by {lib_build} (ABI {}), this is {want} (ABI {ABI}): \
                 rebuild it with `fma-cosim dut build`",
                abi()
            )));
        }
        macro_rules! sym {
            ($name:literal) => {
                *lib.get($name).map_err(|e| at(e.to_string()))?
            };
        }
        let meta = VariantMeta {
            name: Box::leak(variant_name(dir).into_boxed_str()),
            defines: Box::leak(
                record
                    .defines
                    .iter()
                    .map(|d| &*Box::leak(d.clone().into_boxed_str()))
                    .collect::<Vec<&'static str>>()
                    .into_boxed_slice(),
            ),
            flags: &[],
            ports: Box::leak(
                record
                    .ports
                    .iter()
                    .map(|(p, w)| (&*Box::leak(p.clone().into_boxed_str()), *w))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
            registers: false,
        };
        Ok(Loaded {
            new: sym!(b"ptxfma_dut_new"),
            free: sym!(b"ptxfma_dut_free"),
            words: sym!(b"ptxfma_dut_frame_words"),
            time: sym!(b"ptxfma_dut_time"),
            reset: sym!(b"ptxfma_dut_reset"),
            batch: sym!(b"ptxfma_dut_run_batch"),
            spin: sym!(b"ptxfma_dut_spin"),
            open: sym!(b"ptxfma_dut_open_trace"),
            close: sym!(b"ptxfma_dut_close_trace"),
            step: sym!(b"ptxfma_dut_step"),
            _lib: lib,
            record,
            meta,
        })
    }
}

/// One instance of a loaded design: its own Verilated model and context.
pub struct Instance {
    lib: &'static Loaded,
    handle: *mut c_void,
}

// SAFETY: an instance owns its model and VerilatedContext; the shim makes that context the
// calling thread's current one on every call (sim_core.h), and an instance is never shared
// between threads, so it may move to another one.
unsafe impl Send for Instance {}

const ERR_LEN: usize = 512;

/// Runs `f` with an error buffer; a nonzero status becomes the shim's message.
fn call(f: impl FnOnce(*mut c_char, usize) -> i32) -> Result<(), Error> {
    let mut err = vec![0 as c_char; ERR_LEN];
    if f(err.as_mut_ptr(), ERR_LEN) == 0 {
        return Ok(());
    }
    // SAFETY: the shim NUL-terminates what it writes within ERR_LEN.
    let msg = unsafe { CStr::from_ptr(err.as_ptr()) }.to_string_lossy();
    Err(Error::new(format!("RTL: {msg}")))
}

impl Instance {
    pub fn new(lib: &'static Loaded, trace: bool, rand_seed: i32) -> Result<Instance, Error> {
        if trace && !lib.record.traced {
            return Err(Error::new(format!(
                "{} was built with `dut build --no-trace`, which leaves out the traced model: \
                 rebuild it without --no-trace for a waveform",
                lib.meta.name.trim_start_matches("dut:")
            )));
        }
        let mut handle = std::ptr::null_mut();
        // SAFETY: `new` is dut.cpp's ptxfma_dut_new; it returns null and fills the buffer on
        // error.
        call(|e, n| {
            handle = unsafe { (lib.new)(trace as i32, rand_seed, e, n) };
            if handle.is_null() {
                -1
            } else {
                0
            }
        })?;
        Ok(Instance { lib, handle })
    }

    pub fn frame_words(&self) -> usize {
        // SAFETY: a live handle of this library.
        unsafe { (self.lib.words)(self.handle) }
    }

    pub fn time(&self) -> u64 {
        // SAFETY: a live handle of this library.
        unsafe { (self.lib.time)(self.handle) }
    }

    pub fn reset(&mut self) -> Result<(), Error> {
        // SAFETY: a live handle; the buffer is ERR_LEN long.
        call(|e, n| unsafe { (self.lib.reset)(self.handle, e, n) })
    }

    /// One cycle per 4 input words; `frames` holds a frame per cycle (sizes checked by the
    /// caller, `Rtl::run_encoded`).
    pub fn run_batch(&mut self, inputs: &[u64], frames: &mut [u32]) -> Result<(), Error> {
        assert_eq!(frames.len(), inputs.len() / 4 * self.frame_words());
        // SAFETY: the slices hold inputs.len() / 4 cycles of input and of frames.
        call(|e, n| unsafe {
            (self.lib.batch)(
                self.handle,
                inputs.as_ptr(),
                inputs.len() / 4,
                frames.as_mut_ptr(),
                e,
                n,
            )
        })
    }

    pub fn spin(&mut self, inputs: &[u64], cycles: u64) -> Result<(), Error> {
        // SAFETY: inputs holds inputs.len() / 4 >= 1 cycles (checked by Rtl::spin).
        call(|e, n| unsafe {
            (self.lib.spin)(self.handle, inputs.as_ptr(), inputs.len() / 4, cycles, e, n)
        })
    }

    pub fn open_trace(&mut self, path: &str) -> Result<(), Error> {
        let p = CString::new(path).map_err(|_| Error::new("trace path holds a NUL byte"))?;
        // SAFETY: a live handle and a NUL-terminated path.
        call(|e, n| unsafe { (self.lib.open)(self.handle, p.as_ptr(), e, n) })
    }

    /// One cycle of a handshake design: `input` (out_ready_i in bit 2 of word 0) in; what the
    /// design shows before the rising edge out: in_ready_o, out_valid_o, out_tag_o, out_d_o
    /// (low, high).
    pub fn step(&mut self, input: &[u64; 4]) -> Result<[u32; 5], Error> {
        let mut out = [0u32; 5];
        // SAFETY: a live handle; 4 input and 5 output words.
        call(|e, n| unsafe {
            (self.lib.step)(self.handle, input.as_ptr(), out.as_mut_ptr(), e, n)
        })?;
        Ok(out)
    }

    pub fn close_trace(&mut self) -> Result<(), Error> {
        // SAFETY: a live handle.
        call(|e, n| unsafe { (self.lib.close)(self.handle, e, n) })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the handle came from this library's `new` and is freed once.
        unsafe { (self.lib.free)(self.handle) }
    }
}

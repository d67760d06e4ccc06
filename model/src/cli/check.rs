//! `fma-model check` (in progress).
pub fn main(_args: &[String]) -> u8 {
    eprintln!("error: check not built yet");
    1
}

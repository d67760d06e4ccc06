//! `fma-model eval` (in progress).
pub fn main(_args: &[String]) -> u8 {
    eprintln!("error: eval not built yet");
    1
}

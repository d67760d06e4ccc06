use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::{PipeIn, Pipeline};
use std::time::Instant;
fn main() {
    let only = std::env::var("KIND").ok();
    for kind in [Kind::F32, Kind::F64, Kind::F32x2, Kind::Vmad] {
        if only.as_deref().is_some_and(|k| k != format!("{kind:?}")) { continue; }
        let ctrl = Ctrl::fma(kind, Rnd::Rn).encode();
        let mut p = Pipeline::new();
        let mut x = 0x1234_5678_9abc_def1u64;
        let n: u64 = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..n {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            let a = if kind == Kind::F64 { x } else { x & 0xBFFF_FFFF_3FFF_FFFF };
            let o = p.tick(&PipeIn { valid: true, tag: i as u16, ctrl, a, b: x.rotate_left(17) & 0xBFFF_FFFF_3FFF_FFFF, c: x.rotate_left(31) });
            acc ^= o.d;
        }
        let dt = t.elapsed().as_secs_f64();
        println!("{kind:?}: {:.2} M ops/s ({acc:x})", n as f64 / dt / 1e6);
    }
}

//! The RTL against the golden model on every family. `make test` also runs a 100,000-operation
//! `fma-cosim run`.

use ptxfma_cosim_engine::lockstep::{self, Config, Stream};
use ptxfma_cosim_engine::reference::ModelReference;
use ptxfma_cosim_engine::rtl::Rtl;
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stream::Families;

#[test]
fn clean_rtl_matches_the_model_on_every_family() {
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = ModelReference::new();
    for fam in Family::ALL {
        let out = lockstep::run(
            &mut rtl,
            &mut g,
            Stream::new(21, &Families::one(fam), 5000),
            &Config::default(),
        )
        .unwrap();
        assert!(
            out.divergences.is_empty(),
            "{}: first divergence {:?}",
            fam.name(),
            out.divergences.first()
        );
        assert_eq!(out.vectors, 5000);
    }
}

#[test]
fn clean_rtl_matches_the_model_on_interleaved_families() {
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = ModelReference::new();
    let out = lockstep::run(
        &mut rtl,
        &mut g,
        Stream::new(22, &Families::all(), 30_000),
        &Config::default(),
    )
    .unwrap();
    assert!(out.divergences.is_empty(), "{:?}", out.divergences.first());
    assert_eq!(out.vectors, 30_000);
    assert_eq!(out.by_family.iter().sum::<u64>(), 30_000);
    assert!(
        out.by_family.iter().all(|&n| n > 2_500),
        "{:?}",
        out.by_family
    );
}

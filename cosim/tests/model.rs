//! The RTL against the golden model on every family. `make test` also runs a 100,000-operation
//! `fma-cosim run`.

use ptxfma_cosim::golden::ModelGolden;
use ptxfma_cosim::lockstep::{self, Config, Stream};
use ptxfma_cosim::rtl::Rtl;
use ptxfma_cosim::stim::Family;

#[test]
fn clean_rtl_matches_the_model_on_every_family() {
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = ModelGolden::new();
    for fam in Family::ALL {
        let out = lockstep::run(
            &mut rtl,
            &mut g,
            Stream::new(21, fam, 5000),
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

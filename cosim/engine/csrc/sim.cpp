// Thin C++ shim between the Verilated ptxfma RTL built into fma-cosim and Rust (cxx). The
// stepping itself is sim_core.h's, shared with the loadable designs of `fma-cosim dut build`.
#include "ptxfma-cosim-engine/csrc/sim.h"

#include <string>
#include <vector>

#include "ptxfma-cosim-engine/csrc/sim_core.h"
#include "ptxfma_variants.h"

namespace ptxfma {
namespace {

template <class M, bool Traced, bool Regs = true>
class SimOf final : public Sim {
 public:
  SimOf(int rand_seed, const std::vector<std::string>& plusargs) : core_(rand_seed, plusargs) {}

  size_t frame_words() const override { return core_.frame_words(); }
  uint64_t time() const override { return core_.time(); }
  void reset() override { core_.reset(); }

  void run_batch(rust::Slice<const uint64_t> inputs, rust::Slice<uint32_t> frames) override {
    // Sizes are checked by the Rust caller (Rtl::run_encoded).
    core_.run_batch(inputs.data(), inputs.size() / 4, frames.data());
  }

  void spin(rust::Slice<const uint64_t> inputs, uint64_t cycles) override {
    // Sizes are checked by the Rust caller (Rtl::spin).
    core_.spin(inputs.data(), inputs.size() / 4, cycles);
  }

  void open_trace(rust::Str path) override { core_.open_trace(std::string(path)); }
  void close_trace() override { core_.close_trace(); }
  void write_coverage(rust::Str path) override { core_.write_coverage(std::string(path)); }

 private:
  Core<M, Traced, Regs> core_;
};

// The simulator of one variant: its traced model or its fast one.
template <class Fast, class Traced, bool Regs>
std::unique_ptr<Sim> make_sim(bool trace, int32_t rand_seed,
                              const std::vector<std::string>& plusargs) {
  if (trace) return std::unique_ptr<Sim>(new SimOf<Traced, true, Regs>(rand_seed, plusargs));
  return std::unique_ptr<Sim>(new SimOf<Fast, false, Regs>(rand_seed, plusargs));
}

}  // namespace

std::unique_ptr<Sim> new_sim(rust::Str variant, bool trace, int32_t rand_seed,
                             rust::Slice<const rust::String> plusargs) {
  const std::vector<std::string> args(plusargs.begin(), plusargs.end());
#define PTXFMA_NEW(NAME, FAST, TRACED, REGS) \
  if (variant == rust::Str(NAME)) return make_sim<FAST, TRACED, REGS>(trace, rand_seed, args);
  PTXFMA_FOR_EACH_VARIANT(PTXFMA_NEW)
#undef PTXFMA_NEW
  throw std::invalid_argument("no RTL variant named " + std::string(variant));
}

}  // namespace ptxfma

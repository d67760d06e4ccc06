// Thin C++ shim between the Verilated ptxfma RTL and Rust (see cosim/engine/src/rtl/mod.rs for the
// contract). Only what Verilator or cxx requires lives here; all checking is done in Rust.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "rust/cxx.h"

namespace ptxfma {

// One Verilated model with its own VerilatedContext. Implemented per RTL variant and build
// (fast or traced) by a template in sim.cpp; cxx sees only this interface.
class Sim {
 public:
  virtual ~Sim() = default;
  // Words written per cycle by run_batch.
  virtual size_t frame_words() const = 0;
  // Trace time of the next half cycle; time advances by 5 per half cycle (one dump each), so a
  // cycle started at time t has its clock low at t and its rising edge at t + 5.
  virtual uint64_t time() const = 0;
  // Asserts rst_ni for one cycle: every flop clears. The clock is held low (traced build) or
  // high (fast build, which samples its inputs on the falling edge).
  virtual void reset() = 0;
  // Runs one clock cycle per 4 input words and writes one frame per cycle.
  virtual void run_batch(rust::Slice<const uint64_t> inputs, rust::Slice<uint32_t> frames) = 0;
  // Runs `cycles` cycles cycling through the inputs and reads nothing back.
  virtual void spin(rust::Slice<const uint64_t> inputs, uint64_t cycles) = 0;
  virtual void open_trace(rust::Str path) = 0;
  virtual void close_trace() = 0;
  // Writes this model's coverage counts (VerilatedContext::coveragep()) to a .dat file.
  virtual void write_coverage(rust::Str path) = 0;
};

// The traced build of `variant` if `trace`, else its fast build. rand_seed != 0: initial
// values drawn with that seed (+verilator+rand+reset+2), for --x-initial unique models.
// plusargs: the model's command line for $value$plusargs (rtl::set_plusargs).
std::unique_ptr<Sim> new_sim(rust::Str variant, bool trace, int32_t rand_seed,
                             rust::Slice<const rust::String> plusargs);

}  // namespace ptxfma

// The C ABI of a design built by `fma-cosim dut build` into a loadable library
// (cosim/engine/src/dut/load.rs is the other side). The stepping is sim_core.h's, the same as for the
// RTL built into fma-cosim; what is here exists because a shared library needs a C ABI: a
// handle, error strings instead of exceptions, and an ABI and build identity to check.
//
// ptxfma_dut_models.h, written by `dut build`, includes the two models' headers and defines
// PTXFMA_DUT_FAST and PTXFMA_DUT_TRACED (their classes), PTXFMA_DUT_ABI, PTXFMA_DUT_BUILD,
// PTXFMA_DUT_HANDSHAKE (the design has in_ready_o and out_ready_i) and PTXFMA_DUT_TAGGED (it has
// in_tag_i and out_tag_o; contract.tag_width = 0 has neither).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "ptxfma_dut_models.h"
#include "sim_core.h"

#define PTXFMA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// A model without tag ports: sim_core.h drives in_tag_i and reads out_tag_o, so it is given two
// plain members of those names, outside the design. The tag goes nowhere and every result comes
// back with tag 0, which the Rust side reads as the oldest operation in flight (tags.rs).
template <class M>
struct Untagged final : M {
  using M::M;
  uint16_t in_tag_i = 0;
  uint16_t out_tag_o = 0;
};

#if PTXFMA_DUT_TAGGED
template <class M>
using Model = M;
#else
template <class M>
using Model = Untagged<M>;
#endif

class Dut {
 public:
  virtual ~Dut() = default;
  virtual std::size_t frame_words() const = 0;
  virtual uint64_t time() const = 0;
  virtual void reset() = 0;
  virtual void run_batch(const uint64_t* in, std::size_t n, uint32_t* frames) = 0;
  virtual void spin(const uint64_t* in, std::size_t n, uint64_t cycles) = 0;
  virtual void open_trace(const std::string& path) = 0;
  virtual void close_trace() = 0;
  virtual void step(const uint64_t* in, uint32_t* out) = 0;
};

template <class M, bool Traced>
class DutOf final : public Dut {
 public:
  explicit DutOf(int rand_seed) : core_(rand_seed) {}
  std::size_t frame_words() const override { return core_.frame_words(); }
  uint64_t time() const override { return core_.time(); }
  void reset() override { core_.reset(); }
  void run_batch(const uint64_t* in, std::size_t n, uint32_t* frames) override {
    core_.run_batch(in, n, frames);
  }
  void spin(const uint64_t* in, std::size_t n, uint64_t cycles) override {
    core_.spin(in, n, cycles);
  }
  void open_trace(const std::string& path) override { core_.open_trace(path); }
  void close_trace() override { core_.close_trace(); }
  void step(const uint64_t* in, uint32_t* out) override { core_.step(in, out); }

 private:
  ptxfma::Core<Model<M>, Traced, false, PTXFMA_DUT_HANDSHAKE> core_;
};

// Copies what() into err (NUL-terminated, truncated to len) and returns -1.
int fail(const std::exception& e, char* err, std::size_t len) {
  if (len > 0) {
    std::strncpy(err, e.what(), len - 1);
    err[len - 1] = '\0';
  }
  return -1;
}

template <class F>
int guarded(char* err, std::size_t len, F f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    return fail(e, err, len);
  }
}

}  // namespace

PTXFMA_EXPORT uint32_t ptxfma_dut_abi() { return PTXFMA_DUT_ABI; }

PTXFMA_EXPORT const char* ptxfma_dut_build() { return PTXFMA_DUT_BUILD; }

PTXFMA_EXPORT void* ptxfma_dut_new(int32_t trace, int32_t rand_seed, char* err,
                                   std::size_t len) {
  Dut* d = nullptr;
  guarded(err, len, [&] {
    if (trace)
      d = new DutOf<PTXFMA_DUT_TRACED, true>(rand_seed);
    else
      d = new DutOf<PTXFMA_DUT_FAST, false>(rand_seed);
  });
  return d;
}

PTXFMA_EXPORT void ptxfma_dut_free(void* h) { delete static_cast<Dut*>(h); }

PTXFMA_EXPORT std::size_t ptxfma_dut_frame_words(const void* h) {
  return static_cast<const Dut*>(h)->frame_words();
}

PTXFMA_EXPORT uint64_t ptxfma_dut_time(const void* h) {
  return static_cast<const Dut*>(h)->time();
}

PTXFMA_EXPORT int32_t ptxfma_dut_reset(void* h, char* err, std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->reset(); });
}

// `cycles` cycles of 4 input words each; frames holds cycles x frame_words words.
PTXFMA_EXPORT int32_t ptxfma_dut_run_batch(void* h, const uint64_t* in, std::size_t cycles,
                                           uint32_t* frames, char* err, std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->run_batch(in, cycles, frames); });
}

// `cycles` cycles through the n inputs of 4 words each.
PTXFMA_EXPORT int32_t ptxfma_dut_spin(void* h, const uint64_t* in, std::size_t n,
                                      uint64_t cycles, char* err, std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->spin(in, n, cycles); });
}

PTXFMA_EXPORT int32_t ptxfma_dut_open_trace(void* h, const char* path, char* err,
                                            std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->open_trace(path); });
}

PTXFMA_EXPORT int32_t ptxfma_dut_close_trace(void* h, char* err, std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->close_trace(); });
}

// One cycle of a handshake design (sim_core.h's Core::step): 4 input words in, 5 words out.
PTXFMA_EXPORT int32_t ptxfma_dut_step(void* h, const uint64_t* in, uint32_t* out, char* err,
                                      std::size_t len) {
  return guarded(err, len, [&] { static_cast<Dut*>(h)->step(in, out); });
}

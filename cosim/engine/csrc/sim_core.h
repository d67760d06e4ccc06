// Stepping one Verilated model: the part of the shim shared by the RTL built into fma-cosim
// (sim.cpp, through cxx) and a design built by `fma-cosim dut build` (dut.cpp, through a C
// ABI). Plain pointers and sizes only; the callers check sizes. The frame and input layouts are
// documented in cosim/engine/src/rtl/mod.rs.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "verilated.h"
#include "verilated_vcd_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

namespace ptxfma {

// Appends a port's value to a frame: 32-bit words, least significant first.
inline void put(uint32_t*& p, uint64_t v, int words) {
  p[0] = static_cast<uint32_t>(v);
  if (words == 2) p[1] = static_cast<uint32_t>(v >> 32);
  p += words;
}
template <std::size_t N>
inline void put(uint32_t*& p, const VlWide<N>& v) {
  std::memcpy(p, v.data(), N * sizeof(uint32_t));
  p += N;
}

template <std::size_t N>
constexpr std::size_t words_of(const VlWide<N>&) { return N; }

// Verilator's trace file, except that a failed write (a full disk, `ulimit -f`) is remembered
// and the rest of the trace dropped: Verilator 5.006's tracer raises its fatal error on a failed
// write while holding the lock its flush takes, and hangs. close_trace() reports the error.
class TraceFile final : public VerilatedVcdFile {
 public:
  ssize_t write(const char* bufp, ssize_t len) override {
    if (error_ != 0) return len;
    const ssize_t got = VerilatedVcdFile::write(bufp, len);
    if (got < 0 && errno != EAGAIN && errno != EINTR) {
      error_ = errno;
      return len;
    }
    return got;
  }
  int error() const { return error_; }

 private:
  int error_ = 0;
};

// M is a fast build (top ptxfma_sim_top, rtl/sim/) or a traced one (top ptxfma_top); both
// have ptxfma_top's ports. Without Regs, M has only the result ports (a design such as
// rtl/alt/, checked with --compare ports) and a frame is the 4 port words.
//
// With Handshake, M also has in_ready_o and out_ready_i, and step() runs it one cycle at a time.
template <class M, bool Traced, bool Regs, bool Handshake = false>
class Core {
 public:
  // plusargs: what the RTL's $value$plusargs sees (`fma-cosim --plusarg`), for this model alone.
  explicit Core(int rand_seed, const std::vector<std::string>& plusargs = {})
      : ctx_(new VerilatedContext) {
    // An RTL $fatal/$stop must come back to Rust as an error, not abort the process.
    ctx_->fatalOnError(false);
    // +verilator+rand+reset+2 +verilator+seed+N: must be set before the model is constructed,
    // which draws the initial values of a model Verilated with --x-initial unique.
    if (rand_seed != 0) {
      ctx_->randReset(2);
      ctx_->randSeed(rand_seed);
    }
    // Read by the initial blocks, which run at the first eval, within reset() below. Set even
    // when empty: Verilator aborts a $value$plusargs of a model with no command line.
    std::vector<const char*> argv{"fma-cosim"};
    for (const std::string& a : plusargs) argv.push_back(a.c_str());
    ctx_->commandArgs(static_cast<int>(argv.size()), argv.data());
    // Tracing must be enabled before the model is constructed.
    ctx_->traceEverOn(Traced);
    Verilated::threadContextp(ctx_.get());
    model_.reset(new M(ctx_.get(), "TOP"));
    reset();
  }

  ~Core() {
    drop_trace();
    Verilated::threadContextp(ctx_.get());
    model_->final();
  }

  std::size_t frame_words() const {
    const M& m = *model_;
    if constexpr (Regs)
      return 4 + words_of(m.s1_o) + words_of(m.s2_o) + words_of(m.s3_o) + words_of(m.out_o);
    return 4;
  }

  uint64_t time() const { return time_; }

  void reset() {
    Verilated::threadContextp(ctx_.get());
    M& m = *model_;
    // ptxfma_sim_top samples its inputs on the falling edge, so the fast build releases reset
    // with the clock high: the first cycle's falling edge then samples its inputs. The traced
    // build keeps the clock low, as its waveform always showed, and so does a ports-only design
    // (no wrapper).
    m.clk_i = !Traced && Regs;
    m.in_valid_i = 0;
    m.rst_ni = 0;
    half_cycle();
    m.rst_ni = 1;
    half_cycle();
  }

  // One cycle per 4 input words, one frame per cycle.
  void run_batch(const uint64_t* in, std::size_t n, uint32_t* p) {
    Verilated::threadContextp(ctx_.get());
    M& m = *model_;
    for (std::size_t i = 0; i < n; ++i, in += 4) {
      cycle(in);
      put(p, m.out_valid_o, 1);
      put(p, m.out_tag_o, 1);
      put(p, m.out_d_o, 2);
      if constexpr (Regs) {
        put(p, m.s1_o);
        put(p, m.s2_o);
        put(p, m.s3_o);
        put(p, m.out_o);
      }
    }
  }

  // One cycle of a handshake design: the 4 input words, out_ready_i from bit 2 of word 0; out
  // gets what the design shows before the rising edge, when the transfers happen: in_ready_o,
  // out_valid_o, out_tag_o, out_d_o (low, high).
  void step([[maybe_unused]] const uint64_t* in, [[maybe_unused]] uint32_t* out) {
    if constexpr (Handshake) {
      Verilated::threadContextp(ctx_.get());
      M& m = *model_;
      drive(in);
      m.out_ready_i = (in[0] >> 2) & 1;
      m.clk_i = 0;
      half_cycle();
      out[0] = m.in_ready_o;
      out[1] = m.out_valid_o;
      out[2] = m.out_tag_o;
      out[3] = static_cast<uint32_t>(m.out_d_o);
      out[4] = static_cast<uint32_t>(m.out_d_o >> 32);
      m.clk_i = 1;
      half_cycle();
      ++cycles_;
    } else {
      throw std::logic_error("step: not a handshake design");
    }
  }

  // `cycles` cycles through the n inputs, reading nothing back.
  void spin(const uint64_t* in, std::size_t n, uint64_t cycles) {
    Verilated::threadContextp(ctx_.get());
    for (uint64_t i = 0; i < cycles; ++i) cycle(in + 4 * (i % n));
  }

  void open_trace(const std::string& path) {
    // Only called on traced builds (checked by the Rust caller); a fast build has no trace().
    if constexpr (Traced) {
      close_trace();
      Verilated::threadContextp(ctx_.get());
      file_.reset(new TraceFile);
      vcd_.reset(new VerilatedVcdC(file_.get()));
      model_->trace(vcd_.get(), 99);  // trace() must precede open()
      vcd_->open(path.c_str());
      if (!vcd_->isOpen()) {
        drop_trace();
        throw std::runtime_error("cannot open " + path);
      }
    }
  }

  // Closes the trace; throws the OS's message if a write failed (the file is then incomplete).
  void close_trace() {
    const int error = drop_trace();
    if (error != 0) throw std::runtime_error(std::strerror(error));
  }

  void write_coverage([[maybe_unused]] const std::string& path) {
#if VM_COVERAGE
    ctx_->coveragep()->write(path.c_str());
#else
    throw std::logic_error("this binary has no RTL coverage build");
#endif
  }

 private:
  // Closes the trace, if open, and returns the error of its first failed write (0: none).
  int drop_trace() noexcept {
    if (vcd_) vcd_->close();
    vcd_.reset();  // before file_, which it writes through
    const int error = file_ ? file_->error() : 0;
    file_.reset();
    return error;
  }

  // One clock cycle: drive the inputs and reset with the clock low (the fast build samples
  // them on this falling edge), then the rising edge; one trace dump after each.
  void drive(const uint64_t* in) {
    M& m = *model_;
    m.rst_ni = !(in[0] & 2);
    m.in_valid_i = in[0] & 1;
    m.in_tag_i = static_cast<uint16_t>(in[0] >> 16);
    m.in_ctrl_i = static_cast<uint32_t>(in[0] >> 32);  // masked to CtrlW bits by rtl.rs
    m.in_a_i = in[1];
    m.in_b_i = in[2];
    m.in_c_i = in[3];
  }

  void cycle(const uint64_t* in) {
    M& m = *model_;
    drive(in);
    if constexpr (Handshake) m.out_ready_i = (in[0] >> 2) & 1;
    m.clk_i = 0;
    half_cycle();
    m.clk_i = 1;
    half_cycle();
    ++cycles_;
  }

  void half_cycle() {
    if (ctx_->gotFinish())
      throw std::runtime_error("the RTL already stopped ($finish, $stop or $fatal)");
    model_->eval();
    if (vcd_) vcd_->dump(time_);
    time_ += 5;
    if (ctx_->gotFinish())
      throw std::runtime_error("the RTL stopped ($finish, $stop or $fatal) in cycle " +
                               std::to_string(cycles_));
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<M> model_;
  std::unique_ptr<TraceFile> file_;  // declared before vcd_, which writes through it
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint64_t time_ = 0;
  uint64_t cycles_ = 0;
};

}  // namespace ptxfma

// ptxfma-silicon: runs the vectors of a vector file on this GPU, one kernel per instruction
// form, and writes the results for `fma-model silicon compare`.
//
//   ptxfma-silicon VECTORS RESULTS [key=value ...]
//
// The forms and their inline PTX come from forms.inc, written by `fma-model silicon forms`;
// the file layouts are in README.md. Operands travel as raw 64-bit words and are moved into
// registers bit for bit (no conversion touches a NaN payload). A form this GPU's architecture
// lacks is compiled to an empty kernel and its block is marked unsupported, never launched.
// Extra key=value arguments (driver version, nvcc release) are added to the GPU description.
// Exit status: 0 done, 2 bad usage, a bad file or a CUDA error (one line on stderr).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <unistd.h>

typedef unsigned long long u64;

struct Ops {
  const u64 *a, *b, *c;
  u64 *d;
  unsigned n;
};

// Forms of sm_100 and later (f32x2, mixed precision) assemble only for such a GPU.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000
#define PTXFMA_SM100(...)
#else
#define PTXFMA_SM100(...) __VA_ARGS__
#endif

// Half-precision forms need sm_53, and sm_80 (.relu, bfloat16 fma) or sm_90 (.oob, bfloat16
// add/sub/mul): PTXFMA_SM_<lowest sm>(...) keeps its argument only where the GPU has them.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define PTXFMA_SM_80(...)
#else
#define PTXFMA_SM_80(...) __VA_ARGS__
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PTXFMA_SM_90(...)
#else
#define PTXFMA_SM_90(...) __VA_ARGS__
#endif
#define PTXFMA_SM_53(...) __VA_ARGS__
#define PTXFMA_SM_100 PTXFMA_SM100

#define PTXFMA_LANE                                      \
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x; \
  if (i >= o.n) return;
#define PTXFMA_F32(x) __uint_as_float((unsigned)(x))
#define PTXFMA_F64(x) __longlong_as_double((long long)(x))

#define PTXFMA_FORM_F32(ID, SM, ASM)                                                 \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE float r;                                                             \
    asm(ASM : "=f"(r) : "f"(PTXFMA_F32(o.a[i])), "f"(PTXFMA_F32(o.b[i])),            \
        "f"(PTXFMA_F32(o.c[i])));                                                    \
    o.d[i] = __float_as_uint(r);                                                     \
  }
#define PTXFMA_FORM_F64(ID, SM, ASM)                                                 \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE double r;                                                            \
    asm(ASM : "=d"(r) : "d"(PTXFMA_F64(o.a[i])), "d"(PTXFMA_F64(o.b[i])),            \
        "d"(PTXFMA_F64(o.c[i])));                                                    \
    o.d[i] = (u64)__double_as_longlong(r);                                           \
  }
#define PTXFMA_FORM_MIXED(ID, SM, ASM)                                               \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE float r = 0;                                                         \
    PTXFMA_SM100(asm(ASM : "=f"(r) : "h"((unsigned short)o.a[i]),                    \
                     "h"((unsigned short)o.b[i]), "f"(PTXFMA_F32(o.c[i]))));         \
    o.d[i] = __float_as_uint(r);                                                     \
  }
#define PTXFMA_FORM_F32X2(ID, SM, ASM)                                               \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE u64 r = 0;                                                           \
    PTXFMA_SM100(asm(ASM : "=l"(r) : "l"(o.a[i]), "l"(o.b[i]), "l"(o.c[i])));        \
    o.d[i] = r;                                                                      \
  }
#define PTXFMA_FORM_VMAD(ID, SM, ASM)                                                \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE unsigned r;                                                          \
    asm(ASM : "=r"(r) : "r"((unsigned)o.a[i]), "r"((unsigned)o.b[i]),                \
        "r"((unsigned)o.c[i]));                                                      \
    o.d[i] = r;                                                                      \
  }
#define PTXFMA_FORM_HALF(ID, SM, ASM)                                                \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE unsigned short r = 0;                                                \
    PTXFMA_SM_##SM(asm(ASM : "=h"(r) : "h"((unsigned short)o.a[i]),                 \
                       "h"((unsigned short)o.b[i]), "h"((unsigned short)o.c[i])));   \
    o.d[i] = r;                                                                      \
  }
#define PTXFMA_FORM_HALF2(ID, SM, ASM)                                               \
  __global__ void form_##ID(Ops o) {                                                 \
    PTXFMA_LANE unsigned r = 0;                                                      \
    PTXFMA_SM_##SM(asm(ASM : "=r"(r) : "r"((unsigned)o.a[i]), "r"((unsigned)o.b[i]), \
                       "r"((unsigned)o.c[i])));                                      \
    o.d[i] = r;                                                                      \
  }
#include "forms.inc"
#undef PTXFMA_FORM_F32
#undef PTXFMA_FORM_F64
#undef PTXFMA_FORM_MIXED
#undef PTXFMA_FORM_F32X2
#undef PTXFMA_FORM_VMAD
#undef PTXFMA_FORM_HALF
#undef PTXFMA_FORM_HALF2

struct Form {
  void (*kernel)(Ops);
  int min_sm;
};

#define PTXFMA_FORM_F32(ID, SM, ASM) {form_##ID, SM},
#define PTXFMA_FORM_F64 PTXFMA_FORM_F32
#define PTXFMA_FORM_MIXED PTXFMA_FORM_F32
#define PTXFMA_FORM_F32X2 PTXFMA_FORM_F32
#define PTXFMA_FORM_VMAD PTXFMA_FORM_F32
#define PTXFMA_FORM_HALF PTXFMA_FORM_F32
#define PTXFMA_FORM_HALF2 PTXFMA_FORM_F32
static const Form kForms[] = {
#include "forms.inc"
};
static_assert(sizeof(kForms) / sizeof(kForms[0]) == PTXFMA_FORM_COUNT, "forms.inc");

static const char *g_tmp = nullptr;  // the result file while it is written

[[noreturn]] static void fail(const std::string &msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  if (g_tmp) std::remove(g_tmp);
  std::exit(2);
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

static void read_exact(FILE *f, void *p, size_t n, const char *path) {
  if (n && std::fread(p, 1, n, f) != n) fail(std::string(path) + ": cut short");
}

template <typename T>
static T read_le(FILE *f, const char *path) {
  T x;  // the file is little-endian, as is every machine CUDA runs on
  read_exact(f, &x, sizeof x, path);
  return x;
}

static void write_all(FILE *f, const void *p, size_t n) {
  if (n && std::fwrite(p, 1, n, f) != n) fail(std::string(g_tmp) + ": write failed");
}

int main(int argc, char **argv) {
  if (argc < 3) fail("usage: ptxfma-silicon VECTORS RESULTS [key=value ...]");
  const char *vpath = argv[1];
  FILE *in = std::fopen(vpath, "rb");
  if (!in) fail(std::string(vpath) + ": cannot open");
  // The file's size bounds every block, so a corrupt count is an error, not a huge allocation.
  if (fseeko(in, 0, SEEK_END) != 0) fail(std::string(vpath) + ": cannot seek");
  const unsigned long long size = (unsigned long long)ftello(in);
  std::rewind(in);
  char magic[8];
  read_exact(in, magic, 8, vpath);
  if (std::memcmp(magic, "PTXFMAV1", 8) != 0) fail(std::string(vpath) + ": not a vector file");
  const u64 fingerprint = read_le<u64>(in, vpath);
  read_le<u64>(in, vpath);  // seed
  const uint32_t blocks = read_le<uint32_t>(in, vpath);
  if (fingerprint != PTXFMA_FORMS_FINGERPRINT)
    fail(std::string(vpath) + ": made with another table of forms than this program's forms.inc");

  int dev = 0;
  check(cudaGetDevice(&dev), "no CUDA device");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  const int sm = prop.major * 10 + prop.minor;
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  char line[512];
  std::snprintf(line, sizeof line,
                "gpu=%s\ncompute_capability=%d.%d\ndriver_cuda=%d.%d\nruntime=%d.%d\n"
                "built_for=sm_%d\n",
                prop.name, prop.major, prop.minor, driver / 1000, driver % 1000 / 10,
                runtime / 1000, runtime % 1000 / 10, PTXFMA_BUILT_FOR);
  std::string info = line;
  for (int k = 3; k < argc; ++k) {
    if (!std::strchr(argv[k], '=')) fail(std::string("not key=value: ") + argv[k]);
    info += argv[k];
    info += '\n';
  }
  if (PTXFMA_BUILT_FOR > sm)
    fail("built for sm_" + std::to_string(PTXFMA_BUILT_FOR) + ", but this GPU is sm_" +
         std::to_string(sm));

  const std::string rpath = argv[2];
  const std::string tmp = rpath + ".tmp" + std::to_string(getpid());
  g_tmp = tmp.c_str();
  FILE *out = std::fopen(g_tmp, "wb");
  if (!out) fail(tmp + ": cannot create");
  write_all(out, "PTXFMAR1", 8);
  write_all(out, &fingerprint, 8);
  const uint32_t info_len = (uint32_t)info.size();
  write_all(out, &info_len, 4);
  write_all(out, info.data(), info.size());
  write_all(out, &blocks, 4);

  std::vector<u64> host;
  u64 *dev_buf = nullptr;
  size_t capacity = 0;
  unsigned long long vectors = 0, ran = 0, skipped = 0;
  for (uint32_t k = 0; k < blocks; ++k) {
    const uint32_t form = read_le<uint32_t>(in, vpath);
    const uint32_t n = read_le<uint32_t>(in, vpath);
    if (form >= PTXFMA_FORM_COUNT)
      fail(std::string(vpath) + ": unknown form " + std::to_string(form));
    if ((unsigned long long)n * 4 * sizeof(u64) > size - (unsigned long long)ftello(in))
      fail(std::string(vpath) + ": cut short");
    host.resize((size_t)n * 4);
    read_exact(in, host.data(), (size_t)n * 4 * sizeof(u64), vpath);  // a, b, c, model's d
    const uint32_t runs = kForms[form].min_sm <= sm ? 1 : 0;
    const uint32_t head[4] = {form, n, runs ? 0u : 1u, 0};
    write_all(out, head, sizeof head);
    if (!runs) {
      ++skipped;
      continue;
    }
    if (n > capacity) {
      if (dev_buf) check(cudaFree(dev_buf), "cudaFree");
      check(cudaMalloc(&dev_buf, (size_t)n * 4 * sizeof(u64)), "cudaMalloc");
      capacity = n;
    }
    check(cudaMemcpy(dev_buf, host.data(), (size_t)n * 3 * sizeof(u64), cudaMemcpyHostToDevice),
          "cudaMemcpy to the GPU");
    Ops o = {dev_buf, dev_buf + n, dev_buf + 2 * (size_t)n, dev_buf + 3 * (size_t)n, n};
    if (n) {
      kForms[form].kernel<<<(n + 255) / 256, 256>>>(o);
      check(cudaGetLastError(), "kernel launch");
      check(cudaMemcpy(host.data(), o.d, (size_t)n * sizeof(u64), cudaMemcpyDeviceToHost),
            "cudaMemcpy from the GPU");
    }
    write_all(out, host.data(), (size_t)n * sizeof(u64));
    vectors += n;
    ++ran;
  }
  char extra;
  if (std::fread(&extra, 1, 1, in) != 0) fail(std::string(vpath) + ": bytes after the last block");
  std::fclose(in);
  if (std::fclose(out) != 0) fail(tmp + ": write failed");
  if (std::rename(g_tmp, rpath.c_str()) != 0) fail(rpath + ": cannot rename into place");
  g_tmp = nullptr;
  std::printf("%s: %llu vectors in %llu forms on %s (sm_%d); %llu forms not on this GPU\n",
              rpath.c_str(), vectors, ran, prop.name, sm, skipped);
  return 0;
}

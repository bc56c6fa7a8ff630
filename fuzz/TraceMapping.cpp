//===- TraceMapping.cpp - fuzz the trace mapping and fleet YAML readers ---===//
//
// Part of atrex. The input is read as a mapping file (docs/trace.md: rules,
// dims patterns, derivations, phases) and as a fleet file. A mapping that
// loads is applied to every kernel of a small built-in trace, which runs its
// globs, dims patterns and derivations, its composite sequences (recognize)
// and, for kernels it leaves unmapped, explain's near misses and candidates.
//
//===----------------------------------------------------------------------===//

#include "atrex/Trace/Kineto.h"
#include "atrex/Trace/Mapping.h"
#include "atrex/Trace/Weights.h"
#include "llvm/Support/Error.h"

#include <cstdint>

using namespace atrex::trace;

static const char TraceText[] = R"({"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "decode", "pid": 100, "tid": 1, "ts": 1, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 10, "dur": 10,
 "args": {"External id": 1, "Input Dims": [[4, 4096], [4096, 4096]],
          "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 15, "dur": 2,
 "args": {"External id": 1, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "nvjet_tst_64x8_64x16", "pid": 0, "tid": 7, "ts": 200, "dur": 40,
 "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::_scaled_dot_product_flash_attention", "pid": 100, "tid": 1, "ts": 30, "dur": 10,
 "args": {"External id": 2, "Input Dims": [[1, 32, 7, 128], [1, 8, 7, 128], [1, 8, 7, 128], [], []],
          "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", ""]}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 35, "dur": 2,
 "args": {"External id": 2, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 300, "dur": 50,
 "args": {"device": 0, "stream": 7, "correlation": 2, "External id": 2}},
{"ph": "X", "cat": "kernel", "name": "rms_norm_kernel", "pid": 0, "tid": 7, "ts": 400, "dur": 5,
 "args": {"device": 0, "stream": 7, "correlation": 3}},
{"ph": "X", "cat": "cpu_op", "name": "aten::pow", "pid": 100, "tid": 1, "ts": 50, "dur": 4,
 "args": {"Input Dims": [[1, 4, 64], []], "Input type": ["float", "Scalar"]}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 51, "dur": 1,
 "args": {"correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "pow_kernel", "pid": 0, "tid": 7, "ts": 500, "dur": 5,
 "args": {"device": 0, "stream": 7, "correlation": 4}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mean", "pid": 100, "tid": 1, "ts": 60, "dur": 4,
 "args": {"Input Dims": [[1, 4, 64], [], [], []], "Input type": ["float", "ScalarList", "Scalar", ""]}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 61, "dur": 1,
 "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "mean_kernel", "pid": 0, "tid": 7, "ts": 510, "dur": 5,
 "args": {"device": 0, "stream": 7, "correlation": 5}}
]})";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::unique_ptr<Trace> T = [] {
    auto R = Trace::loadFromBuffer("builtin.json", TraceText);
    if (!R)
      __builtin_trap();
    return std::move(*R);
  }();
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);

  auto M = Mapping::parse("fuzz-map.yaml", Text);
  if (M) {
    Composites C = M->recognize(*T);
    T->forEachKernel([&](const KernelView &K) {
      Match Mt = M->match(K, *T, &C);
      (void)phaseName(Mt.P);
      if (!Mt.Rule) {
        (void)M->nearMisses(K, *T);
        (void)M->candidates(K);
      }
    });
  } else {
    llvm::consumeError(M.takeError());
  }

  auto F = Fleet::parse("fuzz-fleet.yaml", Text);
  if (F) {
    for (llvm::StringRef P : {"traces/chat-1.json", "batch.json", ""}) {
      auto App = F->appFor(P);
      if (!App)
        llvm::consumeError(App.takeError());
    }
  } else {
    llvm::consumeError(F.takeError());
  }
  return 0;
}

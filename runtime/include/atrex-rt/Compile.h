//===- Compile.h - Build a submission into a shared library -----*- C++ -*-===//
#ifndef ATREX_RT_COMPILE_H
#define ATREX_RT_COMPILE_H

#include "atrex-rt/Json.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Plan.h"

#include <string>
#include <vector>

namespace atrex::rt {

inline constexpr const char *kEntrySymbol = "atrex_entry_v1";

struct Cubin {
  std::string file;
  uint64_t hash = 0; // FNV-1a 64 of the file's bytes
  size_t size = 0;
};

struct CompileResult {
  bool ok = false;
  bool cached = false;
  bool internalError = false; // the gate's tools failed, not the submission
  std::string reason;
  std::string key; // content hash: source + binding + command
  std::string dir; // cache entry
  std::string soPath;
  std::string command; // the nvcc command line
  std::vector<Cubin> cubins;
  double seconds = 0;
  std::string logTail;

  Json toJson() const;
};

// The C++ translation unit that includes the submission and exports
// `extern "C" int atrex_entry_v1(void *const *args, char *err, size_t errLen)`,
// which casts args[i] to the i-th parameter type of the card's signature.
std::string generateBinding(const OpSpec &spec,
                            const std::string &submissionPath);

// The nvcc command (without the output and input paths' directory prefix). For
// `lang: "hip"` pass the patched HIP include directory (resolveHipInclude): the
// command then adds `-x cu -D__HIP_PLATFORM_NVIDIA__ -isystem <hipInclude>`.
std::vector<std::string> nvccCommand(const Submission &sub,
                                     const PlanSettings &settings,
                                     const std::string &bindingPath,
                                     const std::string &soPath,
                                     const std::string &hipInclude = "");

// The directory that holds the hip/ headers for HIP submissions (HIP's
// NVIDIA-platform headers, patched for CUDA 13 by
// runtime/hip/patch-hip-nvidia.sh): the plan setting `hip_include`, else the
// environment variable ATREX_HIP_INCLUDE, else the copy the runtime build
// patched (when CMake found HIP's headers). Returns "" and sets `error` (naming
// what is missing) when there is none or it lacks hip/hip_runtime.h or the
// NVIDIA headers.
std::string resolveHipInclude(const PlanSettings &settings, std::string &error);

// The CUDA tools the gate runs: the toolkit's, unless the environment names
// another (ATREX_NVCC: tests; ATREX_CUOBJDUMP: a CUDA install without one,
// tests; ATREX_COMPUTE_SANITIZER: settings.memcheck).
std::string nvccPath();
std::string cuobjdumpPath();
std::string computeSanitizerPath();

// The compile cache key: source, binding, command, torch and CUDA versions and,
// for HIP, the content of the HIP include tree.
std::string compileCacheKey(const Submission &sub, const OpSpec &spec,
                            const PlanSettings &settings,
                            const std::string &source,
                            const std::string &hipInclude);

// The cubins embedded in a library (`cuobjdump -xelf all` into `dir`), each
// with its FNV-1a 64; sets `error` when cuobjdump fails.
std::vector<Cubin> extractCubins(const std::string &so, const std::string &dir,
                                 std::string &error);

// Compiles (or reuses from `cacheDir`) the submission; extracts its cubins
// with `cuobjdump -xelf all` and hashes them. A Python submission is only
// copied into the cache (`soPath` is the copy the worker imports): what it
// compiles (load_inline, Triton) is built and attributed in the worker.
CompileResult compileSubmission(const Submission &sub, const OpSpec &spec,
                                const PlanSettings &settings,
                                const std::string &cacheDir);

} // namespace atrex::rt

#endif // ATREX_RT_COMPILE_H

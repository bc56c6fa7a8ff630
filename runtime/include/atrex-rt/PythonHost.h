//===- PythonHost.h - The worker's C interface to a Python host -*- C++ -*-===//
//
// Python submissions (plan `lang: "python"`, docs/gate.md "Python
// submissions") run in a Python process: runtime/python/atrex_gate_worker.py
// loads libatrex-gate-worker-py.so (the worker, built from the same source as
// atrex-gate-worker) first, then torch, and hands the worker the callbacks
// below (ctypes). The worker does everything it does for C++ submissions
// (inputs, poisoning, references, comparison, timing, attribution, integrity
// checks); the host only imports the submission, converts the arguments of
// each call and calls the submission's function in the plan's format.
//
// This header is the one definition of the interface; atrex_gate_worker.py
// mirrors it with ctypes (kAbi there must equal ATREX_PY_HOST_ABI).
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_PYTHONHOST_H
#define ATREX_RT_PYTHONHOST_H

#include <cstddef>
#include <cstdint>

extern "C" {

#define ATREX_PY_HOST_ABI 1

/// The kind of each argument of a call, in the operator's signature order.
enum AtrexPyArgKind : int32_t {
  ATREX_PY_TENSOR = 0, // an input tensor
  ATREX_PY_OUT = 1,    // an output the caller allocated (destination passing)
  ATREX_PY_INOUT = 2,  // an in/out tensor (overwritten in place)
  ATREX_PY_DOUBLE = 3,
  ATREX_PY_INT = 4,
  ATREX_PY_BOOL = 5,
};

struct AtrexPyHost {
  int32_t abi; // ATREX_PY_HOST_ABI
  /// 1: the format returns its outputs (kernelbench, gpumode): the worker
  /// passes no ATREX_PY_OUT tensors and takes the outputs from `rets`; 0: the
  /// function writes the outputs it is given (entry).
  int32_t returnsOutputs;
  /// Imports the submission (its load_inline builds run here). 0, or non-zero
  /// with a message in `err`.
  int (*load)(char *err, size_t errSize);
  /// One call of the submission. For tensor arguments `dl[i]` is a new
  /// DLManagedTensor* that the host takes over, or NULL when the tensor
  /// `keys[i]` was handed over before (the host keeps it until forget()).
  /// Scalars are in `reals[i]` (double) or `ints[i]` (int, bool). With
  /// returnsOutputs, the host sets `rets[j]` for each output and in/out
  /// argument in signature order to a DLManagedTensor* the worker takes over
  /// (NULL for an in/out tensor updated in place). 0, or non-zero with the
  /// submission's exception in `err`.
  int (*call)(int32_t n, const int32_t *kinds, void *const *dl,
              const uint64_t *keys, const double *reals, const int64_t *ints,
              void **rets, int32_t nrets, char *err, size_t errSize);
  /// Drops every tensor the host keeps.
  void (*forget)(void);
  /// A JSON object for the report's "python" record (import and compile
  /// times, the Triton kernels compiled and whether each is own); the string
  /// stays valid until the next callback.
  const char *(*describe)(void);
};

/// Runs the worker (argv as atrex-gate-worker's) with a Python host. Does not
/// return when the job ran (the worker ends the process).
int atrex_worker_python_main(int argc, char **argv, const AtrexPyHost *host);
/// Registers a module image the submission's own source produced (a cubin
/// Triton compiled from its @triton.jit functions) before it is loaded;
/// `hash` receives its FNV-1a 64. 0 on success.
int atrex_worker_own_image(const void *data, size_t size, uint64_t *hash);
/// Registers every cubin embedded in a library the submission built from its
/// own source (torch.utils.cpp_extension.load_inline / load). 0, or non-zero
/// with a message in `err`.
int atrex_worker_own_library(const char *path, char *err, size_t errSize);
}

#endif // ATREX_RT_PYTHONHOST_H

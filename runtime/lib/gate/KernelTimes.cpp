//===- KernelTimes.cpp - Per-kernel GPU durations through CUPTI -----------===//
//
// The only translation unit that includes CUPTI's headers (Attribution.cpp
// holds the Compute Sanitizer's; the two never run in the same process).
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/KernelTimes.h"

#include "atrex-rt/Config.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

#if ATREX_HAVE_CUPTI
#include <cuda_runtime.h>
#include <cupti_activity.h>
#endif

namespace atrex::rt::ktimes {

#if ATREX_HAVE_CUPTI
namespace {
using RegisterFn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
using KindFn = CUptiResult (*)(CUpti_ActivityKind);
using FlushFn = CUptiResult (*)(uint32_t);
using NextFn = CUptiResult (*)(uint8_t *, size_t, CUpti_Activity **);
using DroppedFn = CUptiResult (*)(CUcontext, uint32_t, size_t *);
using ResultStringFn = CUptiResult (*)(CUptiResult, const char **);

struct Api {
  RegisterFn registerCallbacks = nullptr;
  KindFn enable = nullptr, disable = nullptr;
  FlushFn flushAll = nullptr;
  NextFn next = nullptr;
  DroppedFn dropped = nullptr;
  ResultStringFn resultString = nullptr;
} api;

std::mutex mu;
std::map<std::string, KernelTime> sums;
size_t droppedRecords = 0;
constexpr size_t kBufferBytes = 8u << 20;

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t,
                              size_t validSize) {
  std::lock_guard<std::mutex> lock(mu);
  CUpti_Activity *rec = nullptr;
  while (api.next(buffer, validSize, &rec) == CUPTI_SUCCESS) {
    if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    // start, end and name keep their offsets across the record's versions
    // (new fields are appended), so the loaded CUPTI may be newer than the headers.
    auto *k = reinterpret_cast<CUpti_ActivityKernel10 *>(rec);
    std::string name = k->name ? k->name : "<unnamed>";
    KernelTime &t = sums[name];
    t.name = name;
    t.launches += 1;
    if (k->end > k->start)
      t.totalUs += static_cast<double>(k->end - k->start) * 1e-3;
  }
  size_t d = 0;
  if (api.dropped && api.dropped(ctx, streamId, &d) == CUPTI_SUCCESS)
    droppedRecords += d;
  std::free(buffer);
}

std::string describe(const char *what, CUptiResult r) {
  const char *s = nullptr;
  if (api.resultString)
    api.resultString(r, &s);
  return std::string(what) + " failed: " + (s ? s : std::to_string(static_cast<int>(r)));
}
} // namespace

bool start(const std::string &libraryPath, std::string &error) {
  // Without a working driver, libcupti 13.0's cuptiActivityRegisterCallbacks
  // recursed until the stack overflowed (seen on the CPU-only build machine:
  // cudaErrorInsufficientDriver); ask the driver first.
  int devices = 0;
  if (cudaError_t r = cudaGetDeviceCount(&devices); r != cudaSuccess || devices == 0) {
    error = std::string("no usable CUDA device (") + cudaGetErrorName(r) + "): CUPTI not started";
    return false;
  }
  std::string path = libraryPath;
  if (const char *env = std::getenv("ATREX_CUPTI_LIBRARY"); env && *env)
    path = env;
  if (path.empty()) {
    error = "no CUPTI library known (ATREX_CUPTI_LIBRARY)";
    return false;
  }
  // libtorch_cpu needs libcupti.so.13 (kineto), so the worker usually has a
  // CUPTI loaded already (the torch wheel's): use that one; a second copy of
  // CUPTI in one process would compete for the driver's callbacks.
  void *lib = nullptr;
  for (const char *soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
    if ((lib = dlopen(soname, RTLD_NOW | RTLD_NOLOAD)))
      break;
  if (!lib && !(lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))) {
    error = std::string("cannot load CUPTI: ") + dlerror();
    return false;
  }
  api.registerCallbacks = reinterpret_cast<RegisterFn>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
  api.enable = reinterpret_cast<KindFn>(dlsym(lib, "cuptiActivityEnable"));
  api.disable = reinterpret_cast<KindFn>(dlsym(lib, "cuptiActivityDisable"));
  api.flushAll = reinterpret_cast<FlushFn>(dlsym(lib, "cuptiActivityFlushAll"));
  api.next = reinterpret_cast<NextFn>(dlsym(lib, "cuptiActivityGetNextRecord"));
  api.dropped = reinterpret_cast<DroppedFn>(dlsym(lib, "cuptiActivityGetNumDroppedRecords"));
  api.resultString = reinterpret_cast<ResultStringFn>(dlsym(lib, "cuptiGetResultString"));
  if (!api.registerCallbacks || !api.enable || !api.disable || !api.flushAll || !api.next) {
    error = path + " lacks the CUPTI activity API";
    return false;
  }
  if (CUptiResult r = api.registerCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityRegisterCallbacks", r);
    return false;
  }
  return true;
}

bool resume(std::string &error) {
  if (CUptiResult r = api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    return false;
  }
  return true;
}

bool pause(std::string &error) {
  if (CUptiResult r = api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityDisable(CONCURRENT_KERNEL)", r);
    return false;
  }
  return true;
}

bool collect(std::vector<KernelTime> &out, std::string &error) {
  if (CUptiResult r = api.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityFlushAll", r);
    return false;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (droppedRecords) {
    error = "CUPTI dropped " + std::to_string(droppedRecords) + " kernel records";
    return false;
  }
  out.clear();
  for (const auto &kv : sums)
    out.push_back(kv.second);
  std::sort(out.begin(), out.end(),
            [](const KernelTime &a, const KernelTime &b) { return a.totalUs > b.totalUs; });
  return true;
}
#else
bool start(const std::string &, std::string &error) {
  error = "built without CUPTI (cupti_activity.h): no kernel durations";
  return false;
}
bool resume(std::string &error) {
  error = "built without CUPTI";
  return false;
}
bool pause(std::string &error) {
  error = "built without CUPTI";
  return false;
}
bool collect(std::vector<KernelTime> &, std::string &error) {
  error = "built without CUPTI";
  return false;
}
#endif

} // namespace atrex::rt::ktimes

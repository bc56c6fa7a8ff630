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
#include <set>

#if ATREX_HAVE_CUPTI
#include <cuda_runtime.h>
#include <cupti_activity.h>
#endif

namespace atrex::rt::ktimes {

#if ATREX_HAVE_CUPTI
namespace {
using RegisterFn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc,
                                   CUpti_BuffersCallbackCompleteFunc);
using KindFn = CUptiResult (*)(CUpti_ActivityKind);
using FlushFn = CUptiResult (*)(uint32_t);
using NextFn = CUptiResult (*)(uint8_t *, size_t, CUpti_Activity **);
using DroppedFn = CUptiResult (*)(CUcontext, uint32_t, size_t *);
using ResultStringFn = CUptiResult (*)(CUptiResult, const char **);
using TimestampFn = CUptiResult (*)(uint64_t *);

struct Api {
  RegisterFn registerCallbacks = nullptr;
  KindFn enable = nullptr, disable = nullptr;
  FlushFn flushAll = nullptr;
  NextFn next = nullptr;
  DroppedFn dropped = nullptr;
  ResultStringFn resultString = nullptr;
  TimestampFn timestamp = nullptr;
} api;

std::mutex mu;
std::vector<Activity> recorded;
size_t droppedRecords = 0;
constexpr size_t kBufferBytes = 8u << 20;

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size,
                              size_t *maxNumRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t *buffer,
                              size_t, size_t validSize) {
  std::lock_guard<std::mutex> lock(mu);
  CUpti_Activity *rec = nullptr;
  while (api.next(buffer, validSize, &rec) == CUPTI_SUCCESS) {
    // start, end, name, correlation and stream ids keep their offsets across
    // the records' versions (new fields are appended), so the loaded CUPTI may
    // be newer than the headers.
    Activity a;
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      auto *k = reinterpret_cast<CUpti_ActivityKernel10 *>(rec);
      a.kind = Activity::Kind::Kernel;
      a.name = k->name ? k->name : "<unnamed>";
      a.start = k->start;
      a.end = k->end;
      a.correlationId = k->correlationId;
      a.streamId = k->streamId;
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto *m = reinterpret_cast<CUpti_ActivityMemcpy6 *>(rec);
      a.kind = Activity::Kind::Memcpy;
      a.name = "memcpy";
      a.start = m->start;
      a.end = m->end;
      a.correlationId = m->correlationId;
      a.streamId = m->streamId;
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      auto *m = reinterpret_cast<CUpti_ActivityMemset4 *>(rec);
      a.kind = Activity::Kind::Memset;
      a.name = "memset";
      a.start = m->start;
      a.end = m->end;
      a.correlationId = m->correlationId;
      a.streamId = m->streamId;
    } else {
      continue;
    }
    recorded.push_back(std::move(a));
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
  return std::string(what) +
         " failed: " + (s ? s : std::to_string(static_cast<int>(r)));
}

bool started = false;
} // namespace

bool start(const std::string &libraryPath, std::string &error) {
  if (started)
    return true;
  // Without a working driver, libcupti 13.0's cuptiActivityRegisterCallbacks
  // recursed until the stack overflowed (seen on the CPU-only build machine:
  // cudaErrorInsufficientDriver); ask the driver first.
  int devices = 0;
  if (cudaError_t r = cudaGetDeviceCount(&devices);
      r != cudaSuccess || devices == 0) {
    error = std::string("no usable CUDA device (") + cudaGetErrorName(r) +
            "): CUPTI not started";
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
  api.registerCallbacks = reinterpret_cast<RegisterFn>(
      dlsym(lib, "cuptiActivityRegisterCallbacks"));
  api.enable = reinterpret_cast<KindFn>(dlsym(lib, "cuptiActivityEnable"));
  api.disable = reinterpret_cast<KindFn>(dlsym(lib, "cuptiActivityDisable"));
  api.flushAll = reinterpret_cast<FlushFn>(dlsym(lib, "cuptiActivityFlushAll"));
  api.next = reinterpret_cast<NextFn>(dlsym(lib, "cuptiActivityGetNextRecord"));
  api.dropped = reinterpret_cast<DroppedFn>(
      dlsym(lib, "cuptiActivityGetNumDroppedRecords"));
  api.resultString =
      reinterpret_cast<ResultStringFn>(dlsym(lib, "cuptiGetResultString"));
  api.timestamp =
      reinterpret_cast<TimestampFn>(dlsym(lib, "cuptiGetTimestamp"));
  if (!api.registerCallbacks || !api.enable || !api.disable || !api.flushAll ||
      !api.next || !api.timestamp) {
    error = path + " lacks the CUPTI activity API";
    return false;
  }
  if (CUptiResult r = api.registerCallbacks(bufferRequested, bufferCompleted);
      r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityRegisterCallbacks", r);
    return false;
  }
  started = true;
  return true;
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};
static const char *kindName(CUpti_ActivityKind k) {
  switch (k) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return "CONCURRENT_KERNEL";
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return "MEMCPY";
  default:
    return "MEMSET";
  }
}

bool resume(std::string &error) {
  for (CUpti_ActivityKind k : kKinds)
    if (CUptiResult r = api.enable(k); r != CUPTI_SUCCESS) {
      error = describe(
          (std::string("cuptiActivityEnable(") + kindName(k) + ")").c_str(), r);
      return false;
    }
  return true;
}

bool pause(std::string &error) {
  for (CUpti_ActivityKind k : kKinds)
    if (CUptiResult r = api.disable(k); r != CUPTI_SUCCESS) {
      error = describe(
          (std::string("cuptiActivityDisable(") + kindName(k) + ")").c_str(),
          r);
      return false;
    }
  return true;
}

uint64_t timestamp() {
  uint64_t t = 0;
  if (api.timestamp)
    api.timestamp(&t);
  return t;
}

bool takeActivities(std::vector<Activity> &out, std::string &error) {
  if (CUptiResult r = api.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      r != CUPTI_SUCCESS) {
    error = describe("cuptiActivityFlushAll", r);
    return false;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (droppedRecords) {
    error =
        "CUPTI dropped " + std::to_string(droppedRecords) + " activity records";
    return false;
  }
  out = std::move(recorded);
  recorded.clear();
  return true;
}
#else
bool start(const std::string &, std::string &error) {
  error = "built without CUPTI (cupti_activity.h): no device activities";
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
uint64_t timestamp() { return 0; }
bool takeActivities(std::vector<Activity> &, std::string &error) {
  error = "built without CUPTI";
  return false;
}
#endif

} // namespace atrex::rt::ktimes

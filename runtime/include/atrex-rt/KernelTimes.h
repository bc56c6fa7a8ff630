//===- KernelTimes.h - Per-kernel GPU durations through CUPTI -----*- C++ -*-===//
//
// The GPU time of each kernel, by kernel (mangled) name, from CUPTI's activity
// API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL). Used only in the clean timing
// run (no Compute Sanitizer subscription: the two cannot share a process) of a
// unit whose attributed run launched own and foreign kernels, to measure the
// own-time share (docs/gate.md, "Own-time share"). libcupti is dlopen'ed.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_KERNELTIMES_H
#define ATREX_RT_KERNELTIMES_H

#include <cstdint>
#include <string>
#include <vector>

namespace atrex::rt::ktimes {

struct KernelTime {
  std::string name;
  int64_t launches = 0;
  double totalUs = 0;
};

/// Loads CUPTI and registers the activity buffers; records nothing until
/// resume(). False with `error` set when CUPTI is missing or refuses.
bool start(const std::string &libraryPath, std::string &error);
/// Records kernels launched from now on (call with the device idle).
bool resume(std::string &error);
/// Stops recording (call after a device synchronisation).
bool pause(std::string &error);
/// Flushes CUPTI's buffers and returns the per-name sums, sorted by time
/// (largest first). False with `error` set when records were dropped.
bool collect(std::vector<KernelTime> &out, std::string &error);

} // namespace atrex::rt::ktimes

#endif // ATREX_RT_KERNELTIMES_H

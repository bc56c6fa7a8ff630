//===- KernelTimes.h - Per-kernel GPU durations through CUPTI -----*- C++
//-*-===//
//
// Device activities (kernels, copies, sets on every stream) from CUPTI's
// activity API, in the clean timing run only (no Compute Sanitizer
// subscription: the two cannot share a process): the device-wide span of each
// timed call, whatever streams the submission used (docs/gate.md,
// "Performance"), and the GPU time of each kernel by (mangled) name for the
// own-time share of units with own and foreign kernels ("Own-time share").
// libcupti is dlopen'ed.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_KERNELTIMES_H
#define ATREX_RT_KERNELTIMES_H

#include "atrex-rt/Measurement.h"

#include <cstdint>
#include <string>
#include <vector>

namespace atrex::rt::ktimes {

/// Loads CUPTI and registers the activity buffers; records nothing until
/// resume(). False with `error` set when CUPTI is missing or refuses.
bool start(const std::string &libraryPath, std::string &error);
/// Records kernels, copies and sets launched from now on, on every stream
/// (call with the device idle).
bool resume(std::string &error);
/// Stops recording (call after a device synchronisation).
bool pause(std::string &error);
/// CUPTI's current timestamp (ns), the time base of Activity::start/end.
uint64_t timestamp();
/// Flushes CUPTI's buffers and moves out every activity recorded since the
/// last call. False with `error` set when records were dropped.
bool takeActivities(std::vector<Activity> &out, std::string &error);
} // namespace atrex::rt::ktimes

#endif // ATREX_RT_KERNELTIMES_H

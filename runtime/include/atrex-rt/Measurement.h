//===- Measurement.h - Timed samples of a submission's calls -----*- C++
//-*-===//
//
// The worker's cold measurement (in the style of nvbench's): one sample per
// timed call, each taken after an L2 flush and a device synchronisation,
// until the median's confidence interval is narrow enough or a limit is hit.
// A sample is the longest of what the gate's events saw (the caller's stream
// and every other stream the call was seen to launch on) and, where CUPTI
// runs (the clean timing run), the device-wide span of every activity the
// call started on any stream, so work the submission hides on streams of its
// own, destroyed or not, is counted. Torch- and CUDA-free, so it is tested
// on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_MEASUREMENT_H
#define ATREX_RT_MEASUREMENT_H

#include "atrex-rt/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace atrex::rt {

/// One device activity recorded by CUPTI: a kernel, a copy or a set, on any
/// stream. Timestamps in nanoseconds of CUPTI's time base.
struct Activity {
  enum class Kind { Kernel, Memcpy, Memset };
  Kind kind = Kind::Kernel;
  std::string name; // kernel (mangled) name; "memcpy"/"memset" otherwise
  uint64_t start = 0, end = 0;
  uint32_t correlationId = 0;
  uint32_t streamId = 0;
};

struct KernelTime {
  std::string name;
  int64_t launches = 0;
  double totalUs = 0;
};

/// Per-name sums of the kernels among `acts`, sorted by time (largest first).
std::vector<KernelTime> sumKernels(const std::vector<Activity> &acts);

/// The device-wide span of one timed call: first start to last end of the
/// activities that started inside [windowStart, windowEnd], without the
/// gate's own gap-sleep kernel (the activity of lowest correlation id, when
/// its name is `gateSleepName`).
struct Span {
  double us = 0; // 0 when no activity
  int64_t activities = 0;
  int64_t streams = 0;              // distinct streams among them
  std::vector<std::string> kernels; // kernel names, in launch order
};
Span spanOf(const std::vector<Activity> &acts, uint64_t windowStart,
            uint64_t windowEnd, const std::string &gateSleepName);

/// Linear-interpolated percentile (p in [0, 1]) of a non-empty sample.
double percentile(std::vector<double> v, double p);
/// Relative half-width of a ~95% confidence interval of the median (order
/// statistics); infinity below 5 samples.
double medianRelErr(std::vector<double> v);

/// "+name x2, -other x1": how the multiset `now` differs from `first`; ""
/// when equal.
std::string kernelSetDiff(std::vector<std::string> first,
                          std::vector<std::string> now);

/// One timed call.
struct Sample {
  double eventUs = 0; // start event to the latest end event the gate recorded
  double mainUs = 0;  // start event to the end event on the caller's stream
  double wallUs = 0;  // host time around the whole sample
  double spanUs = -1; // device-wide span (CUPTI); < 0: not measured
  bool sideStreams = false;  // the call was seen launching on another stream
  bool kernelsKnown = false; // `kernels` holds what the call launched
  std::vector<std::string>
      kernels; // kernel names the call launched (any order)

  /// The sample's time: the longest of what was measured.
  double us() const { return spanUs > eventUs ? spanUs : eventUs; }
};

class Measurement {
public:
  Measurement(int minReps, int maxReps, double targetRelErr, double maxSeconds)
      : minReps(minReps), maxReps(maxReps), targetRelErr(targetRelErr),
        maxSeconds(maxSeconds) {}

  void add(Sample s);
  /// True once min_reps samples are in and the median is within the target
  /// (or max_timed_s has passed), or max_reps samples are in.
  bool done(double elapsedSeconds) const;
  size_t size() const { return times.size(); }
  double median() const { return percentile(times, 0.5); }

  /// median_us, p10_us, p90_us, min_us, median_rel_err, reps,
  /// main_stream_median_us, wall_median_us, side_stream_reps,
  /// device_wide_reps (samples with a CUPTI span), span_longer_reps (samples
  /// whose span exceeded what the events saw), and kernel_set: {checked_reps,
  /// changed_reps, first_change?} (the set of kernels of every timed call
  /// compared with the first one's).
  void writeTo(Json &perf) const;

private:
  int minReps, maxReps;
  double targetRelErr, maxSeconds;
  std::vector<double> times, mainTimes, wallTimes;
  int64_t sideStreamReps = 0, deviceWideReps = 0, spanLongerReps = 0;
  bool haveFirstSet = false;
  std::vector<std::string> firstSet;
  int64_t checkedReps = 0, changedReps = 0;
  std::string firstChange;
};

} // namespace atrex::rt

#endif // ATREX_RT_MEASUREMENT_H

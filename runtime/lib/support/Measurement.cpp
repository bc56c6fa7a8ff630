//===- Measurement.cpp - Timed samples of a submission's calls ------------===//
#include "atrex-rt/Measurement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace atrex::rt {

std::vector<KernelTime> sumKernels(const std::vector<Activity> &acts) {
  std::map<std::string, KernelTime> sums;
  for (const Activity &a : acts) {
    if (a.kind != Activity::Kind::Kernel)
      continue;
    KernelTime &t = sums[a.name];
    t.name = a.name;
    t.launches += 1;
    if (a.end > a.start)
      t.totalUs += static_cast<double>(a.end - a.start) * 1e-3;
  }
  std::vector<KernelTime> out;
  for (auto &kv : sums)
    out.push_back(std::move(kv.second));
  std::sort(out.begin(), out.end(),
            [](const KernelTime &a, const KernelTime &b) {
              return a.totalUs > b.totalUs;
            });
  return out;
}

Span spanOf(const std::vector<Activity> &acts, uint64_t windowStart,
            uint64_t windowEnd, const std::string &gateSleepName) {
  std::vector<const Activity *> in;
  for (const Activity &a : acts)
    if (a.start >= windowStart && a.start <= windowEnd)
      in.push_back(&a);
  std::sort(in.begin(), in.end(), [](const Activity *a, const Activity *b) {
    return a->correlationId < b->correlationId;
  });
  // The gate launches its gap sleep just before the call: the lowest id.
  if (!in.empty() && !gateSleepName.empty() &&
      in.front()->kind == Activity::Kind::Kernel &&
      in.front()->name == gateSleepName)
    in.erase(in.begin());
  Span s;
  if (in.empty())
    return s;
  uint64_t first = UINT64_MAX, last = 0;
  std::set<uint32_t> streams;
  for (const Activity *a : in) {
    first = std::min(first, a->start);
    last = std::max(last, a->end);
    streams.insert(a->streamId);
    if (a->kind == Activity::Kind::Kernel)
      s.kernels.push_back(a->name);
  }
  s.us = last > first ? static_cast<double>(last - first) * 1e-3 : 0;
  s.activities = static_cast<int64_t>(in.size());
  s.streams = static_cast<int64_t>(streams.size());
  return s;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  double idx = p * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(idx)),
         hi = static_cast<size_t>(std::ceil(idx));
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

double medianRelErr(std::vector<double> v) {
  size_t n = v.size();
  if (n < 5)
    return INFINITY;
  std::sort(v.begin(), v.end());
  double half = 0.98 * std::sqrt(static_cast<double>(n));
  size_t lo = static_cast<size_t>(std::max(0.0, std::floor(n / 2.0 - half)));
  size_t hi = static_cast<size_t>(std::min(n - 1.0, std::ceil(n / 2.0 + half)));
  double med = percentile(v, 0.5);
  return med > 0 ? (v[hi] - v[lo]) / 2 / med : INFINITY;
}

std::string kernelSetDiff(std::vector<std::string> first,
                          std::vector<std::string> now) {
  std::map<std::string, int64_t> count;
  for (const std::string &k : first)
    --count[k];
  for (const std::string &k : now)
    ++count[k];
  std::string plus, minus;
  for (const auto &[name, c] : count) {
    if (c == 0)
      continue;
    std::string &to = c > 0 ? plus : minus;
    to += (to.empty() ? "" : ", ") + std::string(c > 0 ? "+" : "-") + name +
          " x" + std::to_string(c > 0 ? c : -c);
  }
  if (plus.empty())
    return minus;
  return minus.empty() ? plus : plus + ", " + minus;
}

void Measurement::add(Sample s) {
  double us = s.us();
  times.push_back(us);
  mainTimes.push_back(s.mainUs);
  wallTimes.push_back(s.wallUs);
  if (s.sideStreams)
    ++sideStreamReps;
  if (s.spanUs >= 0) {
    ++deviceWideReps;
    if (s.spanUs > s.eventUs)
      ++spanLongerReps;
  }
  if (!s.kernelsKnown)
    return;
  ++checkedReps;
  if (!haveFirstSet) {
    firstSet = std::move(s.kernels);
    haveFirstSet = true;
    return;
  }
  std::string diff = kernelSetDiff(firstSet, s.kernels);
  if (diff.empty())
    return;
  ++changedReps;
  if (firstChange.empty())
    firstChange = "timed call " + std::to_string(times.size() - 1) +
                  " against the first: " + diff.substr(0, 600);
}

bool Measurement::done(double elapsedSeconds) const {
  int n = static_cast<int>(times.size());
  if (n >= maxReps)
    return true;
  return n >= minReps &&
         (medianRelErr(times) <= targetRelErr || elapsedSeconds > maxSeconds);
}

void Measurement::writeTo(Json &perf) const {
  perf.set("reps", static_cast<int64_t>(times.size()));
  if (times.empty())
    return;
  perf.set("median_us", percentile(times, 0.5));
  perf.set("p10_us", percentile(times, 0.1));
  perf.set("p90_us", percentile(times, 0.9));
  perf.set("min_us", *std::min_element(times.begin(), times.end()));
  perf.set("median_rel_err", medianRelErr(times));
  perf.set("main_stream_median_us", percentile(mainTimes, 0.5));
  perf.set("wall_median_us", percentile(wallTimes, 0.5));
  perf.set("side_stream_reps", sideStreamReps);
  perf.set("device_wide_reps", deviceWideReps);
  perf.set("span_longer_reps", spanLongerReps);
  Json ks = Json::object();
  ks.set("checked_reps", checkedReps);
  ks.set("changed_reps", changedReps);
  if (!firstChange.empty())
    ks.set("first_change", firstChange);
  perf.set("kernel_set", ks);
}

} // namespace atrex::rt

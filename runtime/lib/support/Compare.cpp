//===- Compare.cpp - Output comparison with per-dtype tolerances ----------===//
#include "atrex-rt/Compare.h"

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace atrex::rt {

Json Tolerance::toJson() const {
  Json j = Json::object();
  if (exact) {
    j.set("exact", true);
    return j;
  }
  j.set("atol", atol);
  j.set("rtol", rtol);
  j.set("atol_rms", atolRms);
  j.set("max_rel_norm", std::isfinite(maxRelNorm) ? Json(maxRelNorm) : Json());
  if (maxMismatchFrac > 0)
    j.set("max_mismatch_frac", maxMismatchFrac);
  return j;
}

Tolerance Tolerance::fromJson(const Json &j) {
  Tolerance t;
  t.exact = j.getBool("exact", false);
  t.atol = j.getDouble("atol", 0);
  t.rtol = j.getDouble("rtol", 0);
  t.atolRms = j.getDouble("atol_rms", 0);
  t.maxRelNorm =
      j.getDouble("max_rel_norm", std::numeric_limits<double>::infinity());
  t.maxMismatchFrac = j.getDouble("max_mismatch_frac", 0);
  return t;
}

Json CompareResult::toJson() const {
  Json j = Json::object();
  j.set("ok", ok);
  if (!ok)
    j.set("reason", reason);
  j.set("elements", numElements);
  j.set("mismatches", numMismatches);
  j.set("non_finite", numNonFinite);
  j.set("max_abs_err", maxAbsErr);
  j.set("rel_norm", relNorm);
  j.set("ref_rms", refRms);
  if (firstBad >= 0) {
    j.set("first_bad_index", firstBad);
    j.set("first_bad_out", firstBadOut);
    j.set("first_bad_ref", firstBadRef);
  }
  return j;
}

static std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

CompareResult compareValues(const double *out, const double *ref, size_t n,
                            const Tolerance &tol) {
  CompareResult r;
  r.numElements = static_cast<int64_t>(n);
  double refSq = 0;
  size_t finiteRef = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(ref[i])) {
      refSq += ref[i] * ref[i];
      ++finiteRef;
    }
  r.refRms = finiteRef ? std::sqrt(refSq / static_cast<double>(finiteRef)) : 0;
  double bias = tol.atol + tol.atolRms * r.refRms;
  double errSq = 0;
  auto noteBad = [&](size_t i) {
    if (r.firstBad < 0) {
      r.firstBad = static_cast<int64_t>(i);
      r.firstBadOut = out[i];
      r.firstBadRef = ref[i];
    }
  };
  for (size_t i = 0; i < n; ++i) {
    double o = out[i], e = ref[i];
    if (!std::isfinite(e)) {
      // Non-finite reference: the candidate must produce the same special
      // value.
      bool same = (std::isnan(e) && std::isnan(o)) || (o == e);
      if (!same) {
        ++r.numMismatches;
        noteBad(i);
      }
      continue;
    }
    if (!std::isfinite(o)) {
      ++r.numNonFinite;
      noteBad(i);
      continue;
    }
    double d = std::fabs(o - e);
    r.maxAbsErr = std::max(r.maxAbsErr, d);
    errSq += d * d;
    bool pass = tol.exact ? (o == e) : (d <= bias + tol.rtol * std::fabs(e));
    if (!pass) {
      ++r.numMismatches;
      noteBad(i);
    }
  }
  finishCompare(r, tol, errSq, refSq);
  return r;
}

void finishCompare(CompareResult &r, const Tolerance &tol, double errSq,
                   double refSq) {
  int64_t n = r.numElements;
  r.relNorm = refSq > 0 ? std::sqrt(errSq / refSq) : (errSq > 0 ? INFINITY : 0);
  if (r.numNonFinite) {
    r.ok = false;
    r.reason = std::to_string(r.numNonFinite) + " of " + std::to_string(n) +
               " elements are NaN/Inf (or never written) where the reference "
               "is finite; first at "
               "index " +
               std::to_string(r.firstBad);
  } else if (r.numMismatches &&
             static_cast<double>(r.numMismatches) >
                 tol.maxMismatchFrac * static_cast<double>(n)) {
    r.ok = false;
    r.reason = std::to_string(r.numMismatches) + " of " + std::to_string(n) +
               " elements outside tolerance; first at index " +
               std::to_string(r.firstBad) + ": got " + fmt(r.firstBadOut) +
               ", expected " + fmt(r.firstBadRef);
  } else if (!tol.exact && r.relNorm > tol.maxRelNorm) {
    r.ok = false;
    r.reason = "relative norm ||out-ref||/||ref|| = " + fmt(r.relNorm) +
               " exceeds " + fmt(tol.maxRelNorm);
  }
}

bool zerosWouldPass(const double *ref, size_t n, const Tolerance &tol) {
  std::vector<double> zeros(n, 0.0);
  return compareValues(zeros.data(), ref, n, tol).ok;
}

bool constantWouldPass(const double *ref, size_t n, const Tolerance &tol,
                       double *constant) {
  if (n == 0)
    return true;
  double sum = 0;
  for (size_t i = 0; i < n; ++i)
    sum += ref[i];
  std::vector<double> sorted(ref, ref + n);
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  std::vector<double> c(n);
  // The mean and the median of a single element are the element itself: a
  // one-element output (a count, a total) is judged by the zero constant only.
  std::vector<double> candidates = {0.0};
  if (n > 1) {
    candidates.push_back(sum / static_cast<double>(n));
    candidates.push_back(sorted[n / 2]);
  }
  for (double v : candidates) {
    if (!std::isfinite(v))
      continue;
    std::fill(c.begin(), c.end(), v);
    if (compareValues(c.data(), ref, n, tol).ok) {
      if (constant)
        *constant = v;
      return true;
    }
  }
  return false;
}

uint64_t fnv1a64(const void *data, size_t size, uint64_t seed) {
  const auto *p = static_cast<const uint8_t *>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hashHex(uint64_t h) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx",
                static_cast<unsigned long long>(h));
  return buf;
}

} // namespace atrex::rt

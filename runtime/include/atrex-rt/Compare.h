//===- Compare.h - Output comparison with per-dtype tolerances --*- C++ -*-===//
#ifndef ATREX_RT_COMPARE_H
#define ATREX_RT_COMPARE_H

#include "atrex-rt/Json.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace atrex::rt {

// An element passes when |out - ref| <= atol + atolRms * rms(ref) + rtol *
// |ref|. The whole tensor passes when every element passes, no element is
// NaN/Inf where the reference is finite, and ||out - ref||_2 / ||ref||_2 <=
// maxRelNorm. `exact` demands bitwise-equal values (integer outputs such as
// expert ids).
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double atolRms = 0;
  double maxRelNorm = std::numeric_limits<double>::infinity();
  // Share of the elements that may exceed the elementwise bound (never for
  // non-finite values; the norm bound still holds). 0 for all but operators
  // whose outputs pass through an fp8 re-quantisation or bf16 rounding of an
  // intermediate, where single elements flip by a rounding step.
  double maxMismatchFrac = 0;
  bool exact = false;

  Json toJson() const;
  static Tolerance fromJson(const Json &j);
};

struct CompareResult {
  bool ok = true;
  std::string reason; // empty when ok
  int64_t numElements = 0;
  int64_t numMismatches = 0; // elements outside the elementwise bound
  int64_t numNonFinite = 0;  // NaN/Inf where the reference is finite
  int64_t firstBad = -1;     // flat index of the first failing element
  double firstBadOut = 0, firstBadRef = 0;
  double maxAbsErr = 0;
  double relNorm = 0; // ||out-ref|| / ||ref|| (0 when both are 0)
  double refRms = 0;

  Json toJson() const;
};

CompareResult compareValues(const double *out, const double *ref, size_t n,
                            const Tolerance &tol);
/// The verdict and reason of a comparison from its counts (numElements,
/// numMismatches, numNonFinite, firstBad*) and the two squared norms; shared by
/// compareValues and the device-side compareTensors (atrex-rt/Ops.h).
void finishCompare(CompareResult &r, const Tolerance &tol, double errSq,
                   double refSq);
inline CompareResult compareValues(const std::vector<double> &out,
                                   const std::vector<double> &ref,
                                   const Tolerance &tol) {
  if (out.size() != ref.size()) {
    CompareResult r;
    r.ok = false;
    r.reason = "element count differs: " + std::to_string(out.size()) +
               " vs reference " + std::to_string(ref.size());
    return r;
  }
  return compareValues(out.data(), ref.data(), out.size(), tol);
}

// True when an all-zero output would pass against `ref`: such a problem
// instance cannot tell a correct kernel from one that writes nothing.
bool zerosWouldPass(const double *ref, size_t n, const Tolerance &tol);

// True when some constant output would pass against `ref`: tries 0, the mean
// (the constant of least L2 error, hence of least relative norm) and the
// median (least L1 error); for a one-element `ref` only 0 (its mean and median
// are the reference itself). `constant` receives the one that passed.
bool constantWouldPass(const double *ref, size_t n, const Tolerance &tol,
                       double *constant = nullptr);

// FNV-1a, 64 bit (the hash that identifies device images).
uint64_t fnv1a64(const void *data, size_t size,
                 uint64_t seed = 0xcbf29ce484222325ULL);
std::string hashHex(uint64_t h);

} // namespace atrex::rt

#endif // ATREX_RT_COMPARE_H

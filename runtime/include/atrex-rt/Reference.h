//===- Reference.h - Torch-free entry points into the references -*- C++
//-*-===//
//
// Lets tools build tensor directories without including libtorch headers
// (defined in lib/ops/Ops.cpp, which links libtorch).
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_REFERENCE_H
#define ATREX_RT_REFERENCE_H

#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/TensorDir.h"

#include <string>

namespace atrex::rt {

// `device` is "cpu", "cuda" or "cuda:N". Throws std::runtime_error on bad
// shapes or devices, and when the instance is invalid because an all-zero
// output would pass the tolerance of some output.
TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape,
                           uint64_t seed, const std::string &device);

// Suite validity of one problem instance: {"ok", "reasons": [...],
// "outputs": {name: {"constant_passes", "constant"?}}, "inputs": {name:
// {"finite", "constant"}}}. Invalid when an input of floating type has a
// non-finite value or is constant (more than one element), or when a constant
// output (0, mean or median of the reference) passes an output's tolerance.
// Throws std::runtime_error on bad shapes or devices.
Json validateProblem(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                     const std::string &device);

} // namespace atrex::rt

#endif // ATREX_RT_REFERENCE_H

//===- Ops.h - libtorch references and input generators ---------*- C++ -*-===//
//
// The libtorch half of the operator library (see OpSpecs.h for signatures).
// One place for the references that atrex-gate, atrex-ref and the MLIR
// executable-semantics tests use; each operator's generator, reference and
// tolerances are registered in runtime/lib/ops/<op>.cpp. Works on CPU and
// CUDA tensors.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_OPS_H
#define ATREX_RT_OPS_H

#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/TensorDir.h"

#include <ATen/ATen.h>

#include <map>
#include <string>

namespace atrex::rt {

using TensorMap = std::map<std::string, at::Tensor>;

// Every entry argument except OutTensor ones: tensors, and scalar arguments as
// 0-d tensors (f64 / i64 / bool). Deterministic for (op, shape, seed, device
// type): drawn with a generator of the target device seeded with `seed`.
// Values include the edges of each operator's domain (rows scaled by factors
// from 2^-4 to 2^4, large-magnitude router logits), so that a precision
// downgrade fails the tolerance.
TensorMap generateInputs(const OpSpec &spec, const ShapeMap &shape,
                         uint64_t seed, const at::Device &device);

// Reference outputs, keyed by tensor-directory output name
// (OpSpec::outputName), computed from `inputs` (which are not modified), in
// fp32 on the inputs' device.
TensorMap computeReference(const OpSpec &spec, const ShapeMap &shape,
                           const TensorMap &inputs);

// The operators with a registered implementation (runtime/lib/ops/<op>.cpp:
// generator, reference, tolerances), sorted by name. Tests iterate it; it
// equals the names of allOpSpecs() (OpsTest checks).
std::vector<std::string> registeredOperators();

// Allocates (uninitialized) the tensor of an OutTensor argument.
at::Tensor allocateOutput(const ArgSpec &arg, const ShapeMap &shape,
                          const at::Device &device);

at::ScalarType toScalarType(DType dtype);
DType fromScalarType(at::ScalarType st);
RawTensor toRawTensor(const std::string &name, const std::string &role,
                      const at::Tensor &t);
at::Tensor fromRawTensor(const RawTensor &raw);
// All elements as doubles on the host (for compareValues).
std::vector<double> tensorToDoubles(const at::Tensor &t);
/// compareValues on the tensors' device (in float64, `chunk` elements at a
/// time): the same result, without copying both tensors to the host; the gate
/// checks outputs of hundreds of millions of elements this way.
CompareResult compareTensors(const at::Tensor &out, const at::Tensor &ref,
                             const Tolerance &tol,
                             int64_t chunk = int64_t(1) << 26);

// Builds the tensor directory of (inputs, reference outputs) for one problem.
TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape,
                           uint64_t seed, const at::Device &device);

} // namespace atrex::rt

#endif // ATREX_RT_OPS_H

//===- OpSpecs.h - Operator entry signatures, shapes, tolerances -*- C++
//-*-===//
//
// The torch-free half of the operator library: for each operator, its shape
// keys, the entry point signature that submissions implement (vLLM-style
// destination passing: outputs are preallocated by the caller and passed
// first; in-place operators mutate their in/out tensors), the dtype and shape
// of every argument. All of it is generated from the operator's MLIR
// definition (suites/atrex-serve/ops/<op>.mlir, `atrex.entry`) by
// atrex-optable into lib/support/OpTable.inc. The tolerance of each output is
// registered with the operator's generator and reference in
// lib/ops/<op>.cpp (libtorch); binaries without lib/ops have no tolerances
// (ArgSpec::hasTolerance is false) and cannot compare outputs.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_OPSPECS_H
#define ATREX_RT_OPSPECS_H

#include "atrex-rt/Compare.h"
#include "atrex-rt/TensorDir.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace atrex::rt {

using ShapeMap = std::map<std::string, int64_t>;

enum class ArgKind {
  Tensor,      // read-only input tensor
  OutTensor,   // output tensor allocated by the caller, written by the entry
  InOutTensor, // input tensor that the entry overwrites in place
  Double,      // C++ double
  Int,         // C++ int64_t
  Bool,        // C++ bool
};

struct ArgSpec {
  std::string name;
  ArgKind kind;
  // Element type and shape of tensors (for OutTensor: what the caller
  // allocates; for the others: what the generator produces).
  DType dtype = DType::F32;
  std::function<std::vector<int64_t>(const ShapeMap &)> shape;
  Tolerance tol; // OutTensor / InOutTensor only
  // Whether `tol` was registered (lib/ops/<op>.cpp is linked in).
  bool hasTolerance = false;
};

struct OpSpec {
  std::string name;
  std::string summary;
  std::vector<std::string> shapeKeys;
  std::string keyDoc;    // meaning of each key
  ShapeMap exampleShape; // a small valid shape (used by tests and --list)
  std::vector<ArgSpec> args;
  // Extra constraints; returns an empty string when the shape is valid.
  std::function<std::string(const ShapeMap &)> check;
  // Keys that may be 0 (flags); all others must be positive.
  std::vector<std::string> nonNegativeKeys = {};

  // The C++ prototype submissions define, e.g.
  //   void rms_norm(torch::Tensor& out, const torch::Tensor& x, ...)
  std::string signature() const;
  const ArgSpec *findArg(const std::string &name) const;
  // Name of the tensor-directory output for an OutTensor/InOutTensor argument
  // ("<arg>" for OutTensor, "<arg>_out" for InOutTensor).
  static std::string outputName(const ArgSpec &arg);
};

// Every operator of the generated table, sorted by name, with the
// tolerances registered so far attached (built on the first call; throws
// std::logic_error when a registration does not match the table).
const std::vector<OpSpec> &allOpSpecs();
// Returns nullptr for an unknown name.
const OpSpec *findOpSpec(const std::string &name);
std::string knownOpNames();

// Registers the tolerances of operator `op`'s outputs, keyed by their
// tensor-directory names (OpSpec::outputName). Called before main by each
// operator's implementation file (lib/ops/OpImpl.h, ATREX_REGISTER_OP);
// aborts when called after allOpSpecs() was built.
void registerOpTolerances(const std::string &op,
                          const std::map<std::string, Tolerance> &tolerances);

// Parses "K=V,K=V" against the spec. Throws std::runtime_error on unknown or
// missing keys, non-integers and violated constraints, naming the operator.
ShapeMap parseShape(const OpSpec &spec, const std::string &text);
ShapeMap shapeFromJson(const OpSpec &spec, const Json &j);
Json shapeToJson(const ShapeMap &shape);
std::string shapeMapToString(const ShapeMap &shape);
// Validates a complete shape map (throws like parseShape).
void validateShape(const OpSpec &spec, const ShapeMap &shape);

// Checks a candidate tensor directory against a reference one with the
// operator's tolerances: every output of `ref` must be in `candidate` with the
// same dtype and shape. Returns {"ok": bool, "outputs": {name: CompareResult}}
// plus "error" for structural problems.
Json checkTensorDirs(const OpSpec &spec, const TensorDir &ref,
                     const TensorDir &candidate);

} // namespace atrex::rt

#endif // ATREX_RT_OPSPECS_H

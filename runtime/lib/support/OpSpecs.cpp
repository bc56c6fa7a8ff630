//===- OpSpecs.cpp - Operator entry signatures, shapes, tolerances --------===//
//
// The table itself is generated from the MLIR definitions (OpTable.inc); the
// tolerances come from the operators' implementation files (lib/ops).
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/OpSpecs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace atrex::rt {

namespace {
using Dims = std::vector<int64_t>;

// generatedOpSpecs(): the entry points of the operator definitions.
#include "OpTable.inc"

struct ToleranceRegistry {
  std::map<std::string, std::map<std::string, Tolerance>> byOp;
  bool sealed = false; // allOpSpecs() was built
};
ToleranceRegistry &toleranceRegistry() {
  static ToleranceRegistry r;
  return r;
}

std::vector<OpSpec> buildSpecs() {
  std::vector<OpSpec> specs = generatedOpSpecs();
  ToleranceRegistry &reg = toleranceRegistry();
  reg.sealed = true;
  for (const auto &[op, tols] : reg.byOp) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const OpSpec &s) { return s.name == op; });
    if (spec == specs.end())
      throw std::logic_error("tolerances registered for operator '" + op +
                             "', which the generated operator table "
                             "(lib/support/OpTable.inc) lacks");
    size_t outputs = 0;
    for (ArgSpec &arg : spec->args) {
      if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
        continue;
      ++outputs;
      auto it = tols.find(OpSpec::outputName(arg));
      if (it == tols.end())
        throw std::logic_error("operator '" + op +
                               "' registers no tolerance for output '" +
                               OpSpec::outputName(arg) + "'");
      arg.tol = it->second;
      arg.hasTolerance = true;
    }
    if (tols.size() != outputs)
      throw std::logic_error(
          "operator '" + op +
          "' registers tolerances for outputs it does not have");
  }
  return specs;
}
} // namespace

void registerOpTolerances(const std::string &op,
                          const std::map<std::string, Tolerance> &tolerances) {
  ToleranceRegistry &reg = toleranceRegistry();
  if (reg.sealed) {
    std::fprintf(stderr,
                 "atrex-rt: tolerances of '%s' registered after the operator "
                 "table was built\n",
                 op.c_str());
    std::abort();
  }
  reg.byOp[op] = tolerances;
}

const std::vector<OpSpec> &allOpSpecs() {
  static const std::vector<OpSpec> specs = buildSpecs();
  return specs;
}

const OpSpec *findOpSpec(const std::string &name) {
  for (const auto &s : allOpSpecs())
    if (s.name == name)
      return &s;
  return nullptr;
}

std::string knownOpNames() {
  std::string s;
  for (const auto &spec : allOpSpecs())
    s += (s.empty() ? "" : ", ") + spec.name;
  return s;
}

const ArgSpec *OpSpec::findArg(const std::string &n) const {
  for (const auto &a : args)
    if (a.name == n)
      return &a;
  return nullptr;
}

std::string OpSpec::outputName(const ArgSpec &arg) {
  return arg.kind == ArgKind::InOutTensor ? arg.name + "_out" : arg.name;
}

std::string OpSpec::signature() const {
  std::ostringstream os;
  os << "void " << name << "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i)
      os << ", ";
    switch (args[i].kind) {
    case ArgKind::Tensor:
      os << "const torch::Tensor& ";
      break;
    case ArgKind::OutTensor:
    case ArgKind::InOutTensor:
      os << "torch::Tensor& ";
      break;
    case ArgKind::Double:
      os << "double ";
      break;
    case ArgKind::Int:
      os << "int64_t ";
      break;
    case ArgKind::Bool:
      os << "bool ";
      break;
    }
    os << args[i].name;
  }
  os << ")";
  return os.str();
}

void validateShape(const OpSpec &spec, const ShapeMap &shape) {
  for (const auto &key : spec.shapeKeys) {
    auto it = shape.find(key);
    if (it == shape.end()) {
      std::string keys;
      for (const auto &k2 : spec.shapeKeys)
        keys += (keys.empty() ? "" : ",") + k2;
      throw std::runtime_error("operator '" + spec.name + "': shape key '" +
                               key + "' missing (keys: " + keys + "; " +
                               spec.keyDoc + ")");
    }
    bool zeroOk =
        std::find(spec.nonNegativeKeys.begin(), spec.nonNegativeKeys.end(),
                  key) != spec.nonNegativeKeys.end();
    if (it->second < 0 || (it->second == 0 && !zeroOk))
      throw std::runtime_error("operator '" + spec.name + "': shape key '" +
                               key + "' must be positive, got " +
                               std::to_string(it->second));
  }
  for (const auto &kv : shape)
    if (std::find(spec.shapeKeys.begin(), spec.shapeKeys.end(), kv.first) ==
        spec.shapeKeys.end())
      throw std::runtime_error("operator '" + spec.name +
                               "': unknown shape key '" + kv.first + "' (" +
                               spec.keyDoc + ")");
  if (spec.check) {
    std::string err = spec.check(shape);
    if (!err.empty())
      throw std::runtime_error("operator '" + spec.name + "', shape " +
                               shapeMapToString(shape) + ": " + err);
  }
}

ShapeMap parseShape(const OpSpec &spec, const std::string &text) {
  ShapeMap shape;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty())
      continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::runtime_error("operator '" + spec.name + "': shape item '" +
                               item + "' is not KEY=VALUE");
    std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(val, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != val.size())
      throw std::runtime_error("operator '" + spec.name + "': shape value '" +
                               val + "' of key '" + key +
                               "' is not an integer");
    if (shape.count(key))
      throw std::runtime_error("operator '" + spec.name + "': shape key '" +
                               key + "' given twice");
    shape[key] = v;
  }
  validateShape(spec, shape);
  return shape;
}

ShapeMap shapeFromJson(const OpSpec &spec, const Json &j) {
  if (!j.isObject())
    throw std::runtime_error("operator '" + spec.name +
                             "': shape must be an object of integers");
  ShapeMap shape;
  for (const auto &kv : j.asObject()) {
    try {
      shape[kv.first] = kv.second.asInt();
    } catch (const JsonError &e) {
      throw std::runtime_error("operator '" + spec.name + "': shape key '" +
                               kv.first + "': " + e.what());
    }
  }
  validateShape(spec, shape);
  return shape;
}

Json shapeToJson(const ShapeMap &shape) {
  Json j = Json::object();
  for (const auto &kv : shape)
    j.set(kv.first, kv.second);
  return j;
}

std::string shapeMapToString(const ShapeMap &shape) {
  std::string s;
  for (const auto &kv : shape)
    s += (s.empty() ? "" : ",") + kv.first + "=" + std::to_string(kv.second);
  return s;
}

} // namespace atrex::rt

//===- Ops.cpp - libtorch references and input generators -----------------===//
//
// The operator-independent half: dispatch to the generator and reference each
// operator registers in runtime/lib/ops/<operator>.cpp (OpImpl.h), the checks
// of their results against the spec, tensor conversions and comparisons.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace atrex::rt {

using namespace ops;

at::ScalarType toScalarType(DType d) {
  switch (d) {
  case DType::F64:
    return at::kDouble;
  case DType::F32:
    return at::kFloat;
  case DType::F16:
    return at::kHalf;
  case DType::BF16:
    return at::kBFloat16;
  case DType::F8E4M3:
    return at::kFloat8_e4m3fn;
  case DType::F8E5M2:
    return at::kFloat8_e5m2;
  case DType::I64:
    return at::kLong;
  case DType::I32:
    return at::kInt;
  case DType::I16:
    return at::kShort;
  case DType::I8:
    return at::kChar;
  case DType::U8:
    return at::kByte;
  case DType::Bool:
    return at::kBool;
  }
  throw std::logic_error("unknown dtype");
}

DType fromScalarType(at::ScalarType st) {
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16,
                  DType::F8E4M3, DType::F8E5M2, DType::I64, DType::I32,
                  DType::I16, DType::I8, DType::U8, DType::Bool})
    if (toScalarType(d) == st)
      return d;
  throw std::runtime_error(std::string("tensor dtype ") + c10::toString(st) +
                           " has no tensor-directory name");
}

RawTensor toRawTensor(const std::string &name, const std::string &role,
                      const at::Tensor &t) {
  RawTensor r;
  r.name = name;
  r.role = role;
  r.dtype = fromScalarType(t.scalar_type());
  r.shape = t.sizes().vec();
  at::Tensor c = t.contiguous().cpu();
  r.data.resize(r.byteSize());
  if (!r.data.empty())
    std::memcpy(r.data.data(), c.data_ptr(), r.data.size());
  return r;
}

at::Tensor fromRawTensor(const RawTensor &raw) {
  at::Tensor t =
      at::empty(raw.shape, at::TensorOptions().dtype(toScalarType(raw.dtype)));
  if (!raw.data.empty())
    std::memcpy(t.data_ptr(), raw.data.data(), raw.data.size());
  return t;
}

std::vector<double> tensorToDoubles(const at::Tensor &t) {
  at::Tensor c = t.to(at::kDouble).contiguous().cpu();
  const double *p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

CompareResult compareTensors(const at::Tensor &outT, const at::Tensor &refT,
                             const Tolerance &tol, int64_t chunk) {
  CompareResult r;
  if (outT.numel() != refT.numel()) {
    r.ok = false;
    r.reason = "element count differs: " + std::to_string(outT.numel()) +
               " vs reference " + std::to_string(refT.numel());
    return r;
  }
  at::Tensor out = outT.reshape({-1}),
             ref = refT.reshape({-1}).to(out.device());
  int64_t n = out.numel();
  r.numElements = n;
  chunk = std::max<int64_t>(chunk, 1);
  // Pass 1: the reference's rms over its finite elements.
  double refSq = 0;
  int64_t finiteRef = 0;
  for (int64_t lo = 0; lo < n; lo += chunk) {
    at::Tensor e = ref.slice(0, lo, std::min(n, lo + chunk)).to(at::kDouble);
    at::Tensor fin = at::isfinite(e);
    refSq += at::where(fin, e * e, at::zeros_like(e)).sum().item<double>();
    finiteRef += fin.sum().item<int64_t>();
  }
  r.refRms = finiteRef ? std::sqrt(refSq / static_cast<double>(finiteRef)) : 0;
  double bias = tol.atol + tol.atolRms * r.refRms;
  // Pass 2: the elementwise bound, as compareValues.
  double errSq = 0;
  for (int64_t lo = 0; lo < n; lo += chunk) {
    int64_t hi = std::min(n, lo + chunk);
    at::Tensor o = out.slice(0, lo, hi).to(at::kDouble),
               e = ref.slice(0, lo, hi).to(at::kDouble);
    at::Tensor finE = at::isfinite(e), finO = at::isfinite(o);
    at::Tensor special = at::logical_and(
        at::logical_not(finE),
        at::logical_not(at::logical_or(
            at::logical_and(at::isnan(e), at::isnan(o)), at::eq(o, e))));
    at::Tensor nonFinite = at::logical_and(finE, at::logical_not(finO));
    at::Tensor both = at::logical_and(finE, finO);
    at::Tensor d = at::where(both, at::abs(o - e), at::zeros_like(e));
    at::Tensor pass =
        tol.exact ? at::eq(o, e) : at::le(d, bias + tol.rtol * at::abs(e));
    at::Tensor mismatch = at::logical_and(both, at::logical_not(pass));
    at::Tensor bad =
        at::logical_or(at::logical_or(special, nonFinite), mismatch);
    r.maxAbsErr = std::max(r.maxAbsErr, d.max().item<double>());
    errSq += (d * d).sum().item<double>();
    r.numMismatches +=
        special.sum().item<int64_t>() + mismatch.sum().item<int64_t>();
    r.numNonFinite += nonFinite.sum().item<int64_t>();
    if (r.firstBad < 0 && bad.any().item<bool>()) {
      int64_t i = bad.to(at::kByte).argmax().item<int64_t>();
      r.firstBad = lo + i;
      r.firstBadOut = o[i].item<double>();
      r.firstBadRef = e[i].item<double>();
    }
  }
  finishCompare(r, tol, errSq, refSq);
  return r;
}

at::Tensor allocateOutput(const ArgSpec &arg, const ShapeMap &shape,
                          const at::Device &device) {
  return at::empty(
      arg.shape(shape),
      at::TensorOptions().dtype(toScalarType(arg.dtype)).device(device));
}

TensorMap generateInputs(const OpSpec &spec, const ShapeMap &shape,
                         uint64_t seed, const at::Device &device) {
  validateShape(spec, shape);
  const std::string &op = spec.name;
  const OpImpl *impl = findOpImpl(op);
  if (!impl)
    throw std::runtime_error("no input generator for operator '" + op + "'");
  Gen g(seed, device);
  TensorMap m = impl->generate(g, spec, shape);

  // Scalars live on the CPU; tensors on `device`. Check against the spec.
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor)
      continue;
    auto it = m.find(arg.name);
    if (it == m.end())
      throw std::logic_error(op + ": generator did not produce '" + arg.name +
                             "'");
    at::Tensor &t = it->second;
    if (arg.kind == ArgKind::Double || arg.kind == ArgKind::Int ||
        arg.kind == ArgKind::Bool) {
      t = t.cpu();
      continue;
    }
    t = t.to(device);
    if (t.scalar_type() != toScalarType(arg.dtype) ||
        t.sizes().vec() != arg.shape(shape))
      throw std::logic_error(op + ": generated '" + arg.name + "' has dtype " +
                             c10::toString(t.scalar_type()) + " shape " +
                             shapeToString(t.sizes().vec()) + ", spec says " +
                             dtypeName(arg.dtype) + " " +
                             shapeToString(arg.shape(shape)));
  }
  return m;
}

TensorMap computeReference(const OpSpec &spec, const ShapeMap &shape,
                           const TensorMap &in) {
  const OpImpl *impl = findOpImpl(spec.name);
  if (!impl)
    throw std::runtime_error("no reference for operator '" + spec.name + "'");
  TensorMap out = impl->reference(spec, shape, in);
  for (const ArgSpec &arg : spec.args)
    if ((arg.kind == ArgKind::OutTensor || arg.kind == ArgKind::InOutTensor) &&
        !out.count(OpSpec::outputName(arg)))
      throw std::logic_error(spec.name + ": reference did not produce '" +
                             OpSpec::outputName(arg) + "'");
  return out;
}

TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape,
                           uint64_t seed, const at::Device &device) {
  TensorMap in = generateInputs(spec, shape, seed, device);
  TensorMap ref = computeReference(spec, shape, in);
  TensorDir td;
  td.op = spec.name;
  td.shape = shapeToJson(shape);
  td.seed = static_cast<int64_t>(seed);
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor)
      continue;
    td.tensors.push_back(toRawTensor(arg.name, "input", in.at(arg.name)));
  }
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    std::string name = OpSpec::outputName(arg);
    RawTensor r = toRawTensor(name, "output", ref.at(name));
    if (r.dtype != arg.dtype || r.shape != arg.shape(shape))
      throw std::logic_error(spec.name + ": reference output '" + name +
                             "' does not match its spec");
    if (arg.kind == ArgKind::InOutTensor)
      r.alias = arg.name;
    td.tensors.push_back(std::move(r));
  }
  return td;
}

} // namespace atrex::rt

#include "atrex-rt/Reference.h"

namespace atrex::rt {
TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape,
                           uint64_t seed, const std::string &device) {
  at::Device dev(device);
  if (dev.is_cuda() && !at::hasCUDA())
    throw std::runtime_error("device '" + device +
                             "' requested, but no CUDA device is available");
  TensorDir td = makeReferenceDir(spec, shape, seed, dev);
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    const RawTensor *r = td.find(OpSpec::outputName(arg));
    std::vector<double> ref = r->toDoubles();
    double c = 0;
    if (constantWouldPass(ref.data(), ref.size(), arg.tol, &c))
      throw std::runtime_error(
          "operator '" + spec.name + "', shape " + shapeMapToString(shape) +
          ", seed " + std::to_string(seed) +
          ": invalid problem instance: a "
          "constant '" +
          r->name + "' (every element " + std::to_string(c) +
          ") would pass its tolerance");
  }
  return td;
}

Json validateProblem(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                     const std::string &device) {
  at::Device dev(device);
  if (dev.is_cuda() && !at::hasCUDA())
    throw std::runtime_error("device '" + device +
                             "' requested, but no CUDA device is available");
  validateShape(spec, shape);
  TensorMap in = generateInputs(spec, shape, seed, dev);
  TensorMap ref = computeReference(spec, shape, in);
  Json reasons = Json::array(), inputs = Json::object(),
       outputs = Json::object();
  bool ok = true;
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor || !in.count(arg.name))
      continue;
    const at::Tensor &t = in.at(arg.name);
    if (!t.is_floating_point() || t.numel() == 0)
      continue;
    at::Tensor f = t.to(at::kFloat);
    const OpImpl *impl = findOpImpl(spec.name);
    bool infOk = impl && impl->infiniteInputs.count(arg.name);
    bool finite = infOk ? !at::isnan(f).any().item<bool>()
                        : at::isfinite(f).all().item<bool>();
    bool constant = t.numel() > 1 && (f.max() == f.min()).item<bool>();
    Json ij = Json::object();
    ij.set("finite", finite);
    ij.set("constant", constant);
    inputs.set(arg.name, ij);
    if (!finite)
      reasons.push("input '" + arg.name + "' has " +
                   (infOk ? "NaN values" : "non-finite values"));
    if (constant)
      reasons.push("input '" + arg.name + "' is constant");
    ok = ok && finite && !constant;
  }
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    std::string name = OpSpec::outputName(arg);
    std::vector<double> r = tensorToDoubles(ref.at(name));
    double c = 0;
    bool passes = constantWouldPass(r.data(), r.size(), arg.tol, &c);
    Json oj = Json::object();
    oj.set("constant_passes", passes);
    if (passes) {
      oj.set("constant", c);
      reasons.push("a constant '" + name + "' (every element " +
                   std::to_string(c) + ") passes its tolerance");
      ok = false;
    }
    outputs.set(name, oj);
  }
  Json j = Json::object();
  j.set("ok", ok);
  j.set("reasons", reasons);
  j.set("inputs", inputs);
  j.set("outputs", outputs);
  return j;
}
} // namespace atrex::rt

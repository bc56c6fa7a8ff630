//===- Check.cpp - Compare tensor directories with operator tolerances ----===//
#include "atrex-rt/OpSpecs.h"

namespace atrex::rt {

Json checkTensorDirs(const OpSpec &spec, const TensorDir &ref,
                     const TensorDir &cand) {
  Json report = Json::object();
  report.set("operator", spec.name);
  Json outputs = Json::object();
  bool ok = true;
  std::string firstError;
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    std::string name = OpSpec::outputName(arg);
    const RawTensor *r = ref.find(name);
    Json entry = Json::object();
    auto fail = [&](const std::string &msg) {
      entry.set("ok", false);
      entry.set("reason", msg);
      ok = false;
      if (firstError.empty())
        firstError = name + ": " + msg;
    };
    if (!r) {
      fail("reference directory has no output '" + name + "'");
    } else if (r->dtype != arg.dtype) {
      fail(std::string("reference dtype ") + dtypeName(r->dtype) +
           " differs from the operator's " + dtypeName(arg.dtype));
    } else if (!arg.hasTolerance) {
      fail("operator '" + spec.name + "' has no registered tolerance for '" +
           name +
           "' (this program does not link the operator implementations, "
           "lib/ops)");
    } else if (const RawTensor *c = cand.find(name); !c) {
      fail("candidate directory has no tensor '" + name + "'");
    } else if (c->dtype != r->dtype) {
      fail(std::string("dtype ") + dtypeName(c->dtype) +
           " differs from reference " + dtypeName(r->dtype));
    } else if (c->shape != r->shape) {
      fail("shape " + shapeToString(c->shape) + " differs from reference " +
           shapeToString(r->shape));
    } else {
      CompareResult cr = compareValues(c->toDoubles(), r->toDoubles(), arg.tol);
      entry = cr.toJson();
      entry.set("tolerance", arg.tol.toJson());
      if (!cr.ok) {
        ok = false;
        if (firstError.empty())
          firstError = name + ": " + cr.reason;
      }
    }
    outputs.set(name, entry);
  }
  report.set("ok", ok);
  if (!ok)
    report.set("error", firstError);
  report.set("outputs", outputs);
  return report;
}

} // namespace atrex::rt

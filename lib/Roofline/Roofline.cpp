//===- Roofline.cpp - hardware table and roofline times -------------------===//
//
// Part of atrex. See docs/roofline.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Roofline/Roofline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace atrex {

static llvm::Expected<Ceilings> parseCeilings(const llvm::json::Object &obj,
                                              llvm::StringRef where) {
  Ceilings c;
  auto bw = obj.getNumber("hbm_tbps");
  if (!bw || *bw <= 0)
    return llvm::createStringError(where +
                                   ": missing or non-positive hbm_tbps");
  c.bandwidth = *bw * 1e12;
  const llvm::json::Object *peaks = obj.getObject("peak_tflops");
  if (!peaks)
    return llvm::createStringError(where + ": missing peak_tflops");
  for (const auto &engine : *peaks) {
    const llvm::json::Object *dtypes = engine.second.getAsObject();
    if (!dtypes)
      return llvm::createStringError(where + ": peak_tflops." +
                                     engine.first.str() + " must be an object");
    for (const auto &dtype : *dtypes) {
      if (dtype.second.kind() == llvm::json::Value::Null)
        continue;
      auto value = dtype.second.getAsNumber();
      if (!value || *value <= 0)
        return llvm::createStringError(
            where + ": peak_tflops." + engine.first.str() + "." +
            dtype.first.str() + " must be a positive number or null");
      c.peaks[engine.first.str()][dtype.first.str()] = *value * 1e12;
    }
  }
  if (const llvm::json::Value *f = obj.get("floor_us")) {
    auto floorUs = f->getAsNumber();
    if (!floorUs || *floorUs < 0)
      return llvm::createStringError(
          where + ": floor_us must be a non-negative number");
    c.floorSeconds = *floorUs * 1e-6;
  }
  if (auto source = obj.getString("source"))
    c.source = source->str();
  return c;
}

llvm::Expected<std::vector<GpuSpec>> loadHardwareTable(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read hardware table '" + path +
                                   "': " + buffer.getError().message());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError(
        "hardware table '" + path +
        "' is not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *gpus = root ? root->getArray("gpus") : nullptr;
  if (!gpus)
    return llvm::createStringError("hardware table '" + path +
                                   "' has no \"gpus\" array");
  std::vector<GpuSpec> specs;
  for (const llvm::json::Value &entry : *gpus) {
    const llvm::json::Object *gpu = entry.getAsObject();
    auto name = gpu ? gpu->getString("name") : std::nullopt;
    if (!name)
      return llvm::createStringError("hardware table '" + path +
                                     "': every GPU needs a \"name\"");
    GpuSpec spec;
    spec.name = name->str();
    spec.fullName = gpu->getString("full_name").value_or(*name).str();
    const llvm::json::Object *datasheet = gpu->getObject("datasheet");
    if (!datasheet)
      return llvm::createStringError("hardware table: GPU '" + spec.name +
                                     "' has no datasheet ceilings");
    auto ds = parseCeilings(*datasheet, "GPU '" + spec.name + "' datasheet");
    if (!ds)
      return ds.takeError();
    spec.datasheet = std::move(*ds);
    spec.datasheet.source = "datasheet";
    if (const llvm::json::Object *measured = gpu->getObject("measured")) {
      auto m = parseCeilings(*measured, "GPU '" + spec.name + "' measured");
      if (!m)
        return m.takeError();
      // Peaks that were not measured are the datasheet's.
      for (const auto &engine : spec.datasheet.peaks)
        for (const auto &dtype : engine.second)
          m->peaks[engine.first].try_emplace(dtype.first, dtype.second);
      m->source = "measured";
      spec.measured = std::move(*m);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::string tableDtype(llvm::StringRef dtype) {
  if (dtype == "f8e4m3" || dtype == "f8e5m2")
    return "fp8";
  if (dtype == "f16")
    return "fp16";
  if (dtype == "f32")
    return "fp32";
  if (dtype == "f64")
    return "fp64";
  if (dtype == "i8")
    return "int8";
  return dtype.str();
}

llvm::Expected<RooflineTime> rooflineTime(const SemanticWork &work,
                                          const Ceilings &ceilings,
                                          llvm::StringRef gpu) {
  RooflineTime time;
  auto peakOf = [&](const std::string &engine,
                    const std::string &dtype) -> std::optional<double> {
    auto e = ceilings.peaks.find(engine);
    if (e == ceilings.peaks.end())
      return std::nullopt;
    auto d = e->second.find(dtype);
    if (d == e->second.end())
      return std::nullopt;
    return d->second;
  };
  // Engines (matrix, vector) run concurrently: the compute time is the
  // slowest engine's, each engine's time the sum over its dtypes.
  for (const auto &engine : work.flops) {
    double engineSeconds = 0;
    for (const auto &entry : engine.second) {
      if (entry.second == 0)
        continue;
      std::string dtype = tableDtype(entry.first);
      std::optional<double> peak = peakOf(engine.first, dtype);
      if (!peak && engine.first == "matrix")
        peak = peakOf("vector", dtype);
      if (!peak && engine.first == "vector")
        peak = peakOf("vector", "fp32");
      if (!peak)
        return llvm::createStringError(
            "GPU '" + gpu + "' has no " + ceilings.source + " peak for " +
            engine.first + " " + dtype + " (operator '" + work.operatorName +
            "')");
      engineSeconds += static_cast<double>(entry.second) / *peak;
    }
    time.computeSeconds = std::max(time.computeSeconds, engineSeconds);
  }
  time.memorySeconds =
      static_cast<double>(work.totalBytes()) / ceilings.bandwidth;
  time.floorSeconds = ceilings.floorSeconds;
  return time;
}

llvm::Expected<ProblemRoofline> computeRoofline(const SemanticWork &Work,
                                                const GpuSpec &Gpu) {
  ProblemRoofline R;
  R.Gpu = Gpu.name;
  R.FlopsTotal = Work.totalFlops();
  R.Bytes = Work.totalBytes();
  auto DS = rooflineTime(Work, Gpu.datasheet, Gpu.name);
  if (!DS)
    return DS.takeError();
  R.Datasheet = *DS;
  if (Gpu.measured) {
    auto M = rooflineTime(Work, *Gpu.measured, Gpu.name);
    if (!M)
      return M.takeError();
    R.Measured = *M;
  }
  return R;
}

llvm::json::Object toJSON(const ProblemRoofline &R) {
  const RooflineTime &P = R.primary();
  return llvm::json::Object{
      {"t_roofline_s", P.seconds()},
      {"t_roofline_nofloor_s", P.noFloorSeconds()},
      {"t_latency_floor_s", P.floorSeconds},
      {"floor_bound", P.floorBound()},
      {"t_roofline_datasheet_s", R.Datasheet.seconds()},
      {"t_roofline_measured_s", R.Measured
                                    ? llvm::json::Value(R.Measured->seconds())
                                    : llvm::json::Value(nullptr)},
      {"ceiling", R.ceiling()},
      {"regime", P.memoryBound() ? "memory" : "compute"},
      {"regime_datasheet", R.Datasheet.memoryBound() ? "memory" : "compute"},
      {"intensity", R.intensity()},
      {"flops_total", static_cast<int64_t>(R.FlopsTotal)},
      {"bytes", static_cast<int64_t>(R.Bytes)},
      {"t_compute_s", P.computeSeconds},
      {"t_memory_s", P.memorySeconds}};
}

} // namespace atrex

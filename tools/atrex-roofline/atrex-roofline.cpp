//===- atrex-roofline.cpp - semantic rooflines per problem and GPU --------===//
//
// For each problem (operator + shape + facts) and each GPU of the hardware
// table: FLOPs per engine and dtype, compulsory bytes, arithmetic intensity,
// regime and T_roofline under the datasheet and measured ceilings.
//
//   atrex-roofline [--ops DIR] [--op NAME [--shape K=V,... [--facts F]]]
//                  [--hw hw/gpus.json] [--gpu NAME|all] [--format text|json]
//
// Without --shape, the problems are the `atrex.examples` of each definition.
// See docs/roofline.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/SemanticWork.h"
#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Roofline/Roofline.h"
#include "atrex/Support/DataPath.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory ToolCat("atrex-roofline options");
static cl::opt<std::string>
    opsDir(cl::cat(ToolCat), "ops",
           cl::desc("Folder of operator definitions (*.mlir)"),
           cl::init("suites/atrex-serve/ops"));
static cl::opt<std::string> opName(cl::cat(ToolCat), "op",
                                   cl::desc("Only this operator"));
static cl::opt<std::string>
    shapeOpt(cl::cat(ToolCat), "shape",
             cl::desc("One problem of --op: K=V,... instead of the "
                      "operator's atrex.examples"));
static cl::opt<std::string>
    factsOpt(cl::cat(ToolCat), "facts",
             cl::desc("Facts of the --shape problem: a JSON file or a "
                      "tensor directory of its concrete inputs"));
static cl::opt<std::string>
    dtypesOpt(cl::cat(ToolCat), "dtypes",
              cl::desc("Dtype parameters of the --shape problem, "
                       "e.g. act=f16"));
static cl::opt<std::string> hwPath(cl::cat(ToolCat), "hw",
                                   cl::desc("Hardware table"),
                                   cl::init("hw/gpus.json"));
static cl::opt<std::string> gpuOpt(cl::cat(ToolCat), "gpu",
                                   cl::desc("GPU name or 'all'"),
                                   cl::init("all"));
static cl::opt<std::string> formatOpt(cl::cat(ToolCat), "format",
                                      cl::desc("text or json"),
                                      cl::init("text"));

namespace {
struct Problem {
  std::string name;
  std::string phase;
  llvm::StringMap<int64_t> dims;
  llvm::StringMap<std::string> dtypes;
  std::string factsJSON = "{}";
  /// A facts file or tensor directory (--facts) instead of factsJSON.
  std::string factsPath;
};

struct Row {
  std::string gpu;
  std::string problem;
  std::string phase;
  atrex::SemanticWork work;
  atrex::ProblemRoofline roofline;
};

llvm::json::Value attrToJSON(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getInt();
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.str();
  if (isa<UnitAttr>(attr))
    return true;
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute element : a)
      array.push_back(attrToJSON(element));
    return array;
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : d)
      object[entry.getName().str()] = attrToJSON(entry.getValue());
    return object;
  }
  return nullptr;
}

llvm::Expected<std::vector<Problem>> problemsOf(func::FuncOp func) {
  std::vector<Problem> problems;
  if (!shapeOpt.empty()) {
    Problem p;
    p.name = "custom";
    llvm::SmallVector<std::string> bindings;
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(shapeOpt).split(parts, ',', -1, false);
    for (llvm::StringRef part : parts)
      bindings.push_back(part.str());
    auto dims = atrex::parseDimBindings(bindings);
    if (!dims)
      return dims.takeError();
    p.dims = std::move(*dims);
    p.factsPath = factsOpt;
    llvm::SmallVector<std::string> dtypeBindings;
    llvm::SmallVector<llvm::StringRef> dtypeParts;
    llvm::StringRef(dtypesOpt).split(dtypeParts, ',', -1, false);
    for (llvm::StringRef part : dtypeParts)
      dtypeBindings.push_back(part.str());
    auto dtypes = atrex::parseDtypeBindings(dtypeBindings);
    if (!dtypes)
      return dtypes.takeError();
    p.dtypes = std::move(*dtypes);
    problems.push_back(std::move(p));
    return problems;
  }
  auto examples = func->getAttrOfType<ArrayAttr>("atrex.examples");
  if (!examples)
    return llvm::createStringError("operator '" + func.getSymName() +
                                   "' has no atrex.examples; give --op and "
                                   "--shape");
  for (Attribute attr : examples) {
    auto example = dyn_cast<DictionaryAttr>(attr);
    auto shape = example ? example.getAs<DictionaryAttr>("shape") : nullptr;
    if (!shape)
      return llvm::createStringError("operator '" + func.getSymName() +
                                     "': each atrex.examples entry needs a "
                                     "'shape' dictionary");
    Problem p;
    if (auto name = example.getAs<StringAttr>("name"))
      p.name = name.str();
    if (auto phase = example.getAs<StringAttr>("phase"))
      p.phase = phase.str();
    for (NamedAttribute dim : shape) {
      auto value = dyn_cast<IntegerAttr>(dim.getValue());
      if (!value)
        return llvm::createStringError("operator '" + func.getSymName() +
                                       "': shape entries must be integers");
      p.dims[dim.getName()] = value.getInt();
    }
    if (auto dtypes = example.getAs<DictionaryAttr>("dtypes"))
      for (NamedAttribute dtype : dtypes)
        if (auto name = dyn_cast<StringAttr>(dtype.getValue()))
          p.dtypes[dtype.getName()] = name.str();
    if (auto facts = example.get("facts")) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << attrToJSON(facts);
      p.factsJSON = text;
    }
    problems.push_back(std::move(p));
  }
  return problems;
}

std::string flopString(const std::map<std::string, uint64_t> &flops) {
  std::string text;
  for (const auto &entry : flops)
    text += (text.empty() ? "" : " ") + entry.first + ":" +
            llvm::formatv("{0:e2}", static_cast<double>(entry.second)).str();
  return text.empty() ? "-" : text;
}

/// One row: the semantic work's shape, FLOPs and special functions (the
/// passes' JSON form), its read/written bytes, and the roofline's fields as
/// the library writes them for the sealed bundle (one definition of each key).
llvm::json::Value rowToJSON(const Row &row) {
  llvm::json::Value work = atrex::toJSON(row.work);
  llvm::json::Object &w = *work.getAsObject();
  llvm::json::Object out{
      {"operator", row.work.operatorName},
      {"problem", row.problem},
      {"phase", row.phase},
      {"gpu", row.gpu},
      {"bytes_read", static_cast<int64_t>(row.work.bytesRead)},
      {"bytes_written", static_cast<int64_t>(row.work.bytesWritten)}};
  for (const char *key : {"shape", "flops", "special"})
    out[key] = std::move(*w.get(key));
  for (auto &field : atrex::toJSON(row.roofline))
    out[field.first] = std::move(field.second);
  return out;
}

void printText(llvm::raw_ostream &os, const std::vector<atrex::GpuSpec> &gpus,
               const std::vector<Row> &rows) {
  for (const atrex::GpuSpec &gpu : gpus) {
    os << "GPU " << gpu.name << " (" << gpu.fullName << "): datasheet "
       << llvm::format("%.2f", gpu.datasheet.bandwidth / 1e12) << " TB/s";
    if (gpu.measured)
      os << ", measured "
         << llvm::format("%.2f", gpu.measured->bandwidth / 1e12) << " TB/s";
    else
      os << ", no measured profile (T_measured = -)";
    os << "\n";
    os << llvm::format("%-26s %-14s %-28s %-12s %-10s %-10s %-8s %-8s "
                       "%11s %11s\n",
                       "operator", "problem", "matrix FLOP", "vector FLOP",
                       "special", "bytes", "FLOP/B", "regime", "T_ds [us]",
                       "T_meas [us]");
    for (const Row &row : rows) {
      if (row.gpu != gpu.name)
        continue;
      auto engine = [&](const char *name) {
        auto it = row.work.flops.find(name);
        return it == row.work.flops.end() ? std::string("-")
                                          : flopString(it->second);
      };
      uint64_t special = 0;
      for (const auto &fn : row.work.special)
        special += fn.second;
      double bytes = static_cast<double>(row.work.totalBytes());
      const atrex::RooflineTime &primary = row.roofline.primary();
      std::string measured =
          row.roofline.Measured
              ? llvm::formatv("{0:f3}", row.roofline.Measured->seconds() * 1e6)
                    .str()
              : "-";
      os << llvm::format(
          "%-26s %-14s %-28s %-12s %-10s %-10s %-8s %-8s %11s %11s\n",
          row.work.operatorName.c_str(), row.problem.c_str(),
          engine("matrix").c_str(), engine("vector").c_str(),
          llvm::formatv("{0:e2}", static_cast<double>(special)).str().c_str(),
          llvm::formatv("{0:e2}", bytes).str().c_str(),
          llvm::formatv("{0:f2}", row.roofline.intensity()).str().c_str(),
          primary.memoryBound() ? "memory" : "compute",
          llvm::formatv("{0:f3}", row.roofline.Datasheet.seconds() * 1e6)
              .str()
              .c_str(),
          measured.c_str());
    }
    os << "\n";
  }
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex roofline: semantic work and roofline "
                              "times per problem and GPU\n");
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "atrex-roofline: error: " << message << "\n";
    return 1;
  };
  if (formatOpt != "text" && formatOpt != "json")
    return fail("--format must be text or json");
  if (!shapeOpt.empty() && opName.empty())
    return fail("--shape needs --op");
  if (!dtypesOpt.empty() && shapeOpt.empty())
    return fail("--dtypes needs --shape");
  if (!factsOpt.empty() && shapeOpt.empty())
    return fail("--facts needs --shape (examples carry their own facts)");

  const std::string hwFile = atrex::dataPath(hwPath, ATREX_SOURCE_DIR, argv[0]);
  const std::string opsFolder =
      atrex::dataPath(opsDir, ATREX_SOURCE_DIR, argv[0]);
  auto table = atrex::loadHardwareTable(hwFile);
  if (!table)
    return fail(llvm::toString(table.takeError()));
  std::vector<atrex::GpuSpec> gpus;
  for (atrex::GpuSpec &gpu : *table)
    if (gpuOpt == "all" || gpu.name == gpuOpt)
      gpus.push_back(gpu);
  if (gpus.empty()) {
    std::string known;
    for (const atrex::GpuSpec &gpu : *table)
      known += (known.empty() ? "" : ", ") + gpu.name;
    return fail("no GPU '" + gpuOpt + "' in " + hwFile + " (known: " + known +
                ")");
  }

  auto library = atrex::OperatorLibrary::load(opsFolder);
  if (!library)
    return fail(llvm::toString(library.takeError()));

  std::vector<Row> rows;
  bool foundOp = false;
  for (const std::string &name : (*library)->operators()) {
    if (!opName.empty() && name != opName)
      continue;
    foundOp = true;
    auto problems = problemsOf((*library)->definition(name));
    if (!problems)
      return fail(llvm::toString(problems.takeError()));
    for (const Problem &problem : *problems) {
      auto facts = problem.factsPath.empty()
                       ? atrex::Facts::fromJSON(problem.factsJSON)
                       : atrex::Facts::fromFile(problem.factsPath);
      if (!facts)
        return fail(llvm::toString(facts.takeError()));
      auto work = (*library)->count(name, problem.dims, *facts, problem.dtypes);
      if (!work)
        return fail(llvm::toString(work.takeError()));
      for (const atrex::GpuSpec &gpu : gpus) {
        auto roofline = atrex::computeRoofline(*work, gpu);
        if (!roofline)
          return fail(llvm::toString(roofline.takeError()));
        Row row;
        row.gpu = gpu.name;
        row.problem = problem.name;
        row.phase = problem.phase;
        row.work = *work;
        row.roofline = *roofline;
        rows.push_back(std::move(row));
      }
    }
  }
  if (!foundOp)
    return fail(opName.empty()
                    ? "no operator definitions in '" + opsFolder + "'"
                    : "no operator '" + opName + "' in '" + opsFolder + "'");

  if (formatOpt == "json") {
    llvm::json::Array array;
    for (const Row &row : rows)
      array.push_back(rowToJSON(row));
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(array)))
                 << "\n";
    return 0;
  }
  printText(llvm::outs(), gpus, rows);
  return 0;
}

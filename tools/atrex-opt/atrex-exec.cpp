//===- atrex-exec.cpp - run operator definitions on the CPU ---------------===//
//
// Executable semantics: binds an operator definition to the shape of a tensor
// directory (docs/formats/tensor-dir.md) holding its inputs, lowers it with
// upstream MLIR passes to LLVM, runs it with the ExecutionEngine and writes
// its outputs as a tensor directory, so that `atrex-ref --check` can compare
// them with the libtorch reference.
//
//   atrex-exec DEF.mlir --in REFDIR --out OUTDIR [--print-ir]
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/SemanticWork.h"

#include "atrex/Passes/AtrexDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> defPath(cl::Positional, cl::Required,
                                    cl::desc("<operator definition .mlir>"));
static cl::opt<std::string> inDir("in", cl::Required,
                                  cl::desc("Tensor directory with the inputs"));
static cl::opt<std::string> outDir("out", cl::Required,
                                   cl::desc("Tensor directory to write"));
static cl::opt<bool> printIR("print-ir",
                             cl::desc("Print the instantiated definition"));

#ifndef ATREX_MLIR_LIB_DIR
#define ATREX_MLIR_LIB_DIR "/usr/lib/llvm-22/lib"
#endif

namespace {
constexpr llvm::StringLiteral kTool = "atrex-exec: ";

struct DirTensor {
  std::string name, role, dtype, file;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

struct TensorDir {
  std::string op;
  llvm::json::Object shape;
  std::optional<int64_t> seed;
  std::vector<DirTensor> tensors;
  const DirTensor *find(llvm::StringRef name, llvm::StringRef role) const {
    for (const DirTensor &t : tensors)
      if (t.name == name && t.role == role)
        return &t;
    return nullptr;
  }
};

std::optional<size_t> dtypeBytes(llvm::StringRef dtype) {
  return llvm::StringSwitch<std::optional<size_t>>(dtype)
      .Cases({"f64", "i64"}, 8)
      .Cases({"f32", "i32"}, 4)
      .Cases({"f16", "bf16", "i16"}, 2)
      .Cases({"f8e4m3", "f8e5m2", "i8", "u8", "bool"}, 1)
      .Default(std::nullopt);
}

int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

llvm::Expected<TensorDir> readTensorDir(llvm::StringRef dir) {
  llvm::Expected<llvm::json::Value> json = atrex::readTensorDirIndex(dir);
  if (!json)
    return json.takeError();
  llvm::SmallString<256> index(dir); // for messages
  llvm::sys::path::append(index, "tensors.json");
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *tensors = root->getArray("tensors");
  TensorDir result;
  result.op = root->getString("operator").value_or("").str();
  if (const llvm::json::Object *shape = root->getObject("shape"))
    result.shape = *shape;
  result.seed = root->getInteger("seed");
  for (const llvm::json::Value &value : *tensors) {
    const llvm::json::Object *t = value.getAsObject();
    DirTensor tensor;
    auto name = t ? t->getString("name") : std::nullopt;
    auto role = t ? t->getString("role") : std::nullopt;
    auto dtype = t ? t->getString("dtype") : std::nullopt;
    auto file = t ? t->getString("file") : std::nullopt;
    const llvm::json::Array *shape = t ? t->getArray("shape") : nullptr;
    if (!name || !role || !dtype || !file || !shape)
      return llvm::createStringError(
          "'" + index +
          "': every tensor needs name, role, dtype, shape and file");
    tensor.name = name->str();
    tensor.role = role->str();
    tensor.dtype = dtype->str();
    tensor.file = file->str();
    for (const llvm::json::Value &dim : *shape) {
      auto size = dim.getAsInteger();
      if (!size || *size < 0)
        return llvm::createStringError("'" + index + "': tensor '" +
                                       tensor.name + "' has a bad shape");
      tensor.shape.push_back(*size);
    }
    auto width = dtypeBytes(tensor.dtype);
    if (!width)
      return llvm::createStringError("'" + index + "': tensor '" + tensor.name +
                                     "' has unknown dtype '" + tensor.dtype +
                                     "'");
    if (tensor.role == "input") {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, tensor.file);
      auto data = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
      if (!data)
        return llvm::createStringError("cannot read '" + path +
                                       "': " + data.getError().message());
      size_t expected = numElements(tensor.shape) * *width;
      if ((*data)->getBufferSize() != expected)
        return llvm::createStringError(
            "'" + path + "' holds " + llvm::Twine((*data)->getBufferSize()) +
            " bytes, expected " + llvm::Twine(expected));
      tensor.data.assign((*data)->getBufferStart(), (*data)->getBufferEnd());
    }
    result.tensors.push_back(std::move(tensor));
  }
  return result;
}

/// Reads a scalar tensor as a double.
double scalarAsDouble(const DirTensor &t) {
  const char *p = t.data.data();
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  llvm::StringRef d = t.dtype;
  if (d == "f64")
    return load(double());
  if (d == "f32")
    return load(float());
  if (d == "i64")
    return load(int64_t());
  if (d == "i32")
    return load(int32_t());
  if (d == "i16")
    return load(int16_t());
  if (d == "i8")
    return load(int8_t());
  return load(uint8_t()); // u8, bool
}

bool isBareSymbol(llvm::StringRef expr) {
  if (expr.empty() || !(llvm::isAlpha(expr[0]) || expr[0] == '_'))
    return false;
  return llvm::all_of(expr,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

struct Port {
  std::string name;
  SmallVector<std::string> dims;
  bool isResult;
};

SmallVector<Port> portsOf(func::FuncOp func) {
  SmallVector<Port> ports;
  auto add = [&](StringAttr name, ArrayAttr dims, bool isResult) {
    Port port;
    port.name = name ? name.str() : "";
    port.isResult = isResult;
    if (dims)
      for (Attribute dim : dims) {
        if (auto s = dyn_cast<StringAttr>(dim))
          port.dims.push_back(s.str());
        else if (auto i = dyn_cast<IntegerAttr>(dim))
          port.dims.push_back(std::to_string(i.getInt()));
      }
    ports.push_back(std::move(port));
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    add(func.getArgAttrOfType<StringAttr>(i, "atrex.name"),
        func.getArgAttrOfType<ArrayAttr>(i, "atrex.dims"), false);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    add(func.getResultAttrOfType<StringAttr>(i, "atrex.name"),
        func.getResultAttrOfType<ArrayAttr>(i, "atrex.dims"), true);
  return ports;
}

/// Binds the operator's symbols from the directory's shape, then from the
/// shapes of its tensors.
llvm::Expected<llvm::StringMap<int64_t>> bindDims(func::FuncOp func,
                                                  const TensorDir &dir) {
  llvm::StringSet<> symbols;
  SmallVector<Port> ports = portsOf(func);
  for (const Port &port : ports)
    for (const std::string &expr : port.dims) {
      SmallVector<std::string> names;
      if (auto err = atrex::collectDimSymbols(expr, names))
        return std::move(err);
      for (const std::string &n : names)
        symbols.insert(n);
    }
  func.walk([&](arith::ConstantOp cst) {
    if (auto s = cst->getAttrOfType<StringAttr>("atrex.symbol"))
      symbols.insert(s.getValue());
  });
  llvm::StringMap<int64_t> dims;
  for (const auto &entry : dir.shape)
    if (symbols.contains(entry.first.str()))
      if (auto value = entry.second.getAsInteger())
        dims[entry.first.str()] = *value;
  for (const Port &port : ports) {
    const DirTensor *t =
        dir.find(port.name, port.isResult ? "output" : "input");
    if (!t || t->shape.size() != port.dims.size())
      continue;
    for (auto [expr, size] : llvm::zip(port.dims, t->shape))
      if (isBareSymbol(expr) && !dims.count(expr))
        dims[expr] = size;
  }
  return dims;
}

/// Inputs of the directory that are not arguments must be fixed inputs of
/// the definition with the value it assumes.
llvm::Error checkFixedInputs(func::FuncOp func, const TensorDir &dir,
                             const llvm::StringMap<int64_t> &dims) {
  llvm::StringSet<> args;
  for (const Port &port : portsOf(func))
    if (!port.isResult)
      args.insert(port.name);
  auto fixed = func->getAttrOfType<DictionaryAttr>("atrex.fixed_inputs");
  for (const DirTensor &t : dir.tensors) {
    if (t.role != "input" || args.contains(t.name))
      continue;
    Attribute expected = fixed ? fixed.get(t.name) : Attribute();
    if (!expected)
      return llvm::createStringError("input '" + t.name +
                                     "' of the tensor directory is neither an "
                                     "argument nor a fixed input of '" +
                                     func.getSymName() + "'");
    if (!t.shape.empty())
      return llvm::createStringError("fixed input '" + t.name +
                                     "' must be a scalar");
    double actual = scalarAsDouble(t);
    std::optional<int64_t> want;
    if (auto i = dyn_cast<IntegerAttr>(expected)) {
      want = i.getInt();
    } else if (auto s = dyn_cast<StringAttr>(expected)) {
      if (s.getValue() == "*")
        continue;
      auto value = atrex::evaluateDimExpr(s.getValue(), dims);
      if (!value)
        return value.takeError();
      want = *value;
    }
    if (!want || actual != static_cast<double>(*want))
      return llvm::createStringError(
          "fixed input '" + t.name + "' is " +
          (actual == static_cast<double>(static_cast<int64_t>(actual))
               ? std::to_string(static_cast<int64_t>(actual))
               : llvm::formatv("{0:g}", actual).str()) +
          " but the definition of '" + func.getSymName() + "' assumes " +
          (want ? llvm::Twine(*want).str() : std::string("another value")));
  }
  return llvm::Error::success();
}

/// Storage for one argument: a memref descriptor or a scalar.
struct ArgStorage {
  std::vector<char> data;          // tensor elements or scalar value
  std::vector<int64_t> descriptor; // memref descriptor
  void *pointer = nullptr;         // what the packed argument points to
};

llvm::Error storeScalar(Type type, const DirTensor &t, ArgStorage &arg) {
  double value = scalarAsDouble(t);
  auto store = [&](auto v) {
    arg.data.resize(sizeof(v));
    std::memcpy(arg.data.data(), &v, sizeof(v));
  };
  if (type.isF32())
    store(static_cast<float>(value));
  else if (type.isF64())
    store(value);
  else if (type.isInteger(64) || type.isIndex())
    store(static_cast<int64_t>(value));
  else if (type.isInteger(32))
    store(static_cast<int32_t>(value));
  else if (type.isInteger(1) || type.isInteger(8))
    store(static_cast<int8_t>(value));
  else
    return llvm::createStringError("unsupported scalar argument type for '" +
                                   t.name + "'");
  return llvm::Error::success();
}

void makeDescriptor(ArgStorage &arg, llvm::ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  arg.descriptor.assign(3 + 2 * rank, 0);
  auto *base = reinterpret_cast<void **>(arg.descriptor.data());
  base[0] = arg.data.data();
  base[1] = arg.data.data();
  arg.descriptor[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    arg.descriptor[3 + i] = shape[i];
    arg.descriptor[3 + rank + i] = stride;
    stride *= shape[i];
  }
}

struct OutputInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
};

llvm::Error writeOutputs(llvm::ArrayRef<OutputInfo> outputs,
                         const TensorDir &in,
                         const llvm::StringMap<int64_t> &dims,
                         llvm::ArrayRef<ArgStorage> results) {
  if (auto ec = llvm::sys::fs::create_directories(outDir))
    return llvm::createStringError("cannot create '" + outDir +
                                   "': " + ec.message());
  llvm::json::Array tensors;
  for (auto [i, output] : llvm::enumerate(outputs)) {
    std::string file = output.name + ".bin";
    llvm::SmallString<256> path(outDir.getValue());
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + path +
                                     "': " + ec.message());
    os.write(results[i].data.data(), results[i].data.size());
    llvm::json::Array shape;
    for (int64_t d : output.shape)
      shape.push_back(d);
    tensors.push_back(llvm::json::Object{{"name", output.name},
                                         {"role", "output"},
                                         {"dtype", output.dtype},
                                         {"shape", std::move(shape)},
                                         {"file", file}});
  }
  llvm::json::Object shape;
  for (const auto &d : dims)
    shape[d.getKey()] = d.getValue();
  llvm::json::Object root{{"operator", in.op},
                          {"shape", std::move(shape)},
                          {"tensors", std::move(tensors)}};
  if (in.seed)
    root["seed"] = *in.seed;
  llvm::SmallString<256> index(outDir.getValue());
  llvm::sys::path::append(index, "tensors.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(index, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + index +
                                   "': " + ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return llvm::Error::success();
}

int run(MLIRContext &context) {
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << kTool << "error: " << message << "\n";
    return 1;
  };
  auto dir = readTensorDir(inDir);
  if (!dir)
    return fail(llvm::toString(dir.takeError()));

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(defPath, sourceMgr, &context);
  if (!module)
    return fail("cannot parse '" + defPath + "'");
  func::FuncOp func;
  for (auto f : module->getOps<func::FuncOp>())
    if (f->hasAttr("atrex.operator"))
      func = f;
  if (!func)
    return fail("'" + defPath + "' defines no operator");
  auto opName = func->getAttrOfType<StringAttr>("atrex.operator").getValue();
  if (!dir->op.empty() && dir->op != opName)
    return fail("the tensor directory holds operator '" + dir->op +
                "' but the definition is '" + opName + "'");

  auto dims = bindDims(func, *dir);
  if (!dims)
    return fail(llvm::toString(dims.takeError()));
  // Dtype parameters take the dtype of the first input of the default type.
  llvm::StringMap<std::string> dtypes;
  if (auto params = func->getAttrOfType<DictionaryAttr>("atrex.dtype_params"))
    for (NamedAttribute param : params) {
      Type dflt = cast<TypeAttr>(param.getValue()).getValue();
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
        auto argName = func.getArgAttrOfType<StringAttr>(i, "atrex.name");
        const DirTensor *t =
            argName ? dir->find(argName.getValue(), "input") : nullptr;
        if (type && t && type.getElementType() == dflt) {
          dtypes[param.getName()] = t->dtype;
          break;
        }
      }
    }
  if (auto err = atrex::instantiateShape(func, *dims, dtypes)) {
    atrex::emitErrorAsDiagnostic(std::move(err), func.getLoc());
    return 1;
  }
  if (auto err = checkFixedInputs(func, *dir, *dims))
    return fail(llvm::toString(std::move(err)));
  if (printIR)
    module->print(llvm::outs());

  // Arguments in signature order, then the results as out-parameters.
  std::vector<ArgStorage> inputs(func.getNumArguments());
  std::vector<ArgStorage> results(func.getNumResults());
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "atrex.name");
    const DirTensor *t = name ? dir->find(name.getValue(), "input") : nullptr;
    if (!t)
      return fail("the tensor directory has no input '" +
                  (name ? name.str() : std::to_string(i)) + "'");
    Type type = func.getArgument(i).getType();
    if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
      std::string dtype = atrex::dtypeName(tensorType.getElementType());
      if (dtype != t->dtype || !llvm::equal(tensorType.getShape(), t->shape))
        return fail("input '" + t->name + "' is " + t->dtype + " of shape [" +
                    llvm::join(llvm::map_range(
                                   t->shape,
                                   [](int64_t d) { return std::to_string(d); }),
                               ", ") +
                    "] but the instantiated definition wants " + dtype);
      inputs[i].data = t->data;
      makeDescriptor(inputs[i], tensorType.getShape());
      inputs[i].pointer = inputs[i].descriptor.data();
    } else {
      if (!t->shape.empty())
        return fail("input '" + t->name + "' must be a scalar");
      if (auto err = storeScalar(type, *t, inputs[i]))
        return fail(llvm::toString(std::move(err)));
      inputs[i].pointer = nullptr; // the value itself is passed
    }
  }
  std::vector<OutputInfo> outputs;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getResultTypes()[i]);
    auto resultName = func.getResultAttrOfType<StringAttr>(i, "atrex.name");
    if (!type || !resultName)
      return fail("result #" + llvm::Twine(i) +
                  " must be a named tensor (atrex.name)");
    outputs.push_back(
        {resultName.str(), atrex::dtypeName(type.getElementType()),
         std::vector<int64_t>(type.getShape().begin(), type.getShape().end())});
    size_t width = *dtypeBytes(atrex::dtypeName(type.getElementType()));
    results[i].data.assign(type.getNumElements() * width, 0);
    makeDescriptor(results[i], type.getShape());
    results[i].pointer = results[i].descriptor.data();
  }

  // Lower with upstream passes only.
  std::string name = func.getSymName().str();
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));
  PassManager pm(&context);
  const char *pipeline =
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{modify-public-functions},"
      "func.func(convert-linalg-to-loops),"
      "convert-arith-to-apfloat,expand-strided-metadata,lower-affine,"
      "convert-scf-to-cf,convert-math-to-llvm,finalize-memref-to-llvm,"
      "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,"
      "convert-cf-to-llvm,reconcile-unrealized-casts";
  if (failed(parsePassPipeline(pipeline, pm)))
    return fail("cannot build the lowering pipeline");
  if (failed(pm.run(*module)))
    return fail("lowering '" + name + "' to LLVM failed");

  ExecutionEngineOptions options;
  std::string libDir = ATREX_MLIR_LIB_DIR;
  SmallVector<llvm::StringRef> libs;
  std::string runner = libDir + "/libmlir_c_runner_utils.so";
  std::string apfloat = libDir + "/libmlir_apfloat_wrappers.so";
  libs.push_back(runner);
  libs.push_back(apfloat);
  options.sharedLibPaths = libs;
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(2, 0, nullptr);
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return fail("cannot JIT '" + name +
                "': " + llvm::toString(engine.takeError()));

  SmallVector<void *> packed;
  for (ArgStorage &arg : inputs)
    packed.push_back(arg.pointer ? static_cast<void *>(&arg.pointer)
                                 : static_cast<void *>(arg.data.data()));
  for (ArgStorage &arg : results)
    packed.push_back(&arg.pointer);
  if (auto err = (*engine)->invokePacked("_mlir_ciface_" + name, packed))
    return fail("running '" + name +
                "' failed: " + llvm::toString(std::move(err)));

  // Out-parameters were filled through the descriptors' pointers.
  if (auto err = writeOutputs(outputs, *dir, *dims, results))
    return fail(llvm::toString(std::move(err)));
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex-exec: executable semantics of an "
                              "operator definition on the CPU\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  atrex::registerAtrexDialect(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  return run(context);
}

//===- AtrexDialect.cpp - verification of the atrex annotations -----------===//
//
// Every `atrex.*` attribute is checked for its form where it is attached:
// on the operator function, its arguments and results, and on ops of its
// body. Whether an annotation is *present* where a pass needs it stays the
// pass's diagnostic (it knows why it needs it); malformed ones are caught here,
// when the definition is parsed. Diagnostics start with "atrex-verify: ".
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/AtrexDialect.h"

#include "atrex/Passes/OperatorEntry.h"
#include "atrex/Passes/SemanticWork.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "atrex/Passes/AtrexDialect.cpp.inc"

using namespace mlir;

namespace atrex {

void AtrexDialect::initialize() {}

namespace {

constexpr llvm::StringLiteral kPrefix = "atrex-verify: ";

InFlightDiagnostic error(Operation *op, StringRef attr) {
  InFlightDiagnostic diag = op->emitError();
  diag << kPrefix << "'" << attr << "' ";
  return diag;
}

bool isIdentifier(StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The `atrex.name`s of `func`'s arguments.
llvm::StringSet<> argumentNames(FunctionOpInterface func) {
  llvm::StringSet<> names;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto name = func.getArgAttrOfType<StringAttr>(i, "atrex.name"))
      names.insert(name.getValue());
  return names;
}

/// Checks that `dict` has all `required` keys and otherwise only `optional`
/// ones, each a string naming an argument of `func` when listed in `argKeys`,
/// an integer when in `intKeys`.
LogicalResult checkDict(Operation *op, StringRef attrName, DictionaryAttr dict,
                        ArrayRef<StringRef> required,
                        ArrayRef<StringRef> argKeys,
                        ArrayRef<StringRef> intKeys, FunctionOpInterface func,
                        ArrayRef<StringRef> optional = {}) {
  SmallVector<StringRef> allowed(required);
  allowed.append(optional.begin(), optional.end());
  for (NamedAttribute entry : dict) {
    StringRef key = entry.getName().getValue();
    if (!llvm::is_contained(allowed, key))
      return error(op, attrName)
             << "has an unknown key '" << key << "' (expected "
             << llvm::join(allowed, ", ") << ")";
  }
  for (StringRef key : allowed) {
    Attribute value = dict.get(key);
    if (!value) {
      if (llvm::is_contained(optional, key))
        continue;
      return error(op, attrName) << "needs '" << key << "'";
    }
    if (llvm::is_contained(intKeys, key)) {
      auto i = dyn_cast<IntegerAttr>(value);
      if (!i || i.getInt() < 0)
        return error(op, attrName)
               << "'" << key << "' must be a non-negative integer";
      continue;
    }
    auto s = dyn_cast<StringAttr>(value);
    if (!s)
      return error(op, attrName) << "'" << key << "' must be a string";
    if (llvm::is_contained(argKeys, key) && func &&
        !argumentNames(func).contains(s.getValue()))
      return error(op, attrName)
             << "'" << key << "' names '" << s.getValue()
             << "', which is no argument of '" << func.getName() << "'";
  }
  return success();
}

LogicalResult checkIntegerDict(Operation *op, StringRef attrName,
                               Attribute value) {
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict)
    return error(op, attrName) << "must be a dictionary of integers";
  for (NamedAttribute entry : dict)
    if (!isa<IntegerAttr>(entry.getValue()))
      return error(op, attrName) << "must be a dictionary of integers ('"
                                 << entry.getName().getValue() << "' is not)";
  return success();
}

/// A loop index of `atrex.ragged` / `atrex.causal_varlen` must name a loop.
LogicalResult checkLoops(Operation *op, StringRef attrName, DictionaryAttr dict,
                         ArrayRef<StringRef> loopKeys) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return error(op, attrName) << "must be on a linalg structured op";
  for (StringRef key : loopKeys) {
    int64_t loop = cast<IntegerAttr>(dict.get(key)).getInt();
    if (loop >= static_cast<int64_t>(linalgOp.getNumLoops()))
      return error(op, attrName)
             << "'" << key << "' = " << loop << " names no loop (the op has "
             << linalgOp.getNumLoops() << ")";
  }
  return success();
}

LogicalResult verifyExamples(Operation *op, StringRef attrName,
                             Attribute value) {
  auto examples = dyn_cast<ArrayAttr>(value);
  if (!examples)
    return error(op, attrName)
           << "must be an array of {name, phase, shape[, facts, dtypes]}";
  for (Attribute a : examples) {
    auto example = dyn_cast<DictionaryAttr>(a);
    if (!example)
      return error(op, attrName) << "entries must be dictionaries";
    for (NamedAttribute entry : example) {
      StringRef key = entry.getName().getValue();
      if (key == "name" || key == "phase") {
        if (!isa<StringAttr>(entry.getValue()))
          return error(op, attrName) << "'" << key << "' must be a string";
      } else if (key == "shape") {
        if (failed(
                checkIntegerDict(op, "atrex.examples shape", entry.getValue())))
          return failure();
      } else if (key == "facts" || key == "dtypes") {
        if (!isa<DictionaryAttr>(entry.getValue()))
          return error(op, attrName) << "'" << key << "' must be a dictionary";
      } else {
        return error(op, attrName)
               << "entry has an unknown key '" << key
               << "' (expected name, phase, shape, facts, dtypes)";
      }
    }
    if (!example.get("shape"))
      return error(op, attrName) << "entry needs a 'shape'";
  }
  return success();
}

/// `atrex.name`, `atrex.dims` and `atrex.access` of an argument or result.
LogicalResult verifyPortAttribute(Operation *op, unsigned index, bool isResult,
                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  Type type;
  if (func)
    type = isResult ? func.getResultTypes()[index]
                    : func.getArgumentTypes()[index];
  if (name == "atrex.name") {
    auto s = dyn_cast<StringAttr>(attr.getValue());
    if (!s || !isIdentifier(s.getValue()))
      return error(op, name)
             << "must be a string naming the "
             << (isResult ? "result" : "argument") << " (letters, digits, '_')";
    return success();
  }
  if (name == "atrex.dims") {
    auto dims = dyn_cast<ArrayAttr>(attr.getValue());
    if (!dims)
      return error(op, name)
             << "must be an array of dimension expressions and integers";
    if (auto ranked = dyn_cast_or_null<RankedTensorType>(type);
        ranked && static_cast<int64_t>(dims.size()) != ranked.getRank())
      return error(op, name)
             << "has " << dims.size() << " entries for a tensor of rank "
             << ranked.getRank();
    // (After bufferization and lowering the types are memrefs or pointers;
    // the entries were checked against the tensor type.)
    for (Attribute d : dims) {
      if (auto i = dyn_cast<IntegerAttr>(d)) {
        if (i.getInt() < 0)
          return error(op, name) << "entry " << i.getInt() << " is negative";
        continue;
      }
      auto s = dyn_cast<StringAttr>(d);
      if (!s)
        return error(op, name) << "entries must be strings or integers";
      llvm::SmallVector<std::string> symbols;
      if (llvm::Error err = collectDimSymbols(s.getValue(), symbols))
        return error(op, name) << llvm::toString(std::move(err));
    }
    return success();
  }
  if (name == "atrex.access") {
    const std::string kinds =
        std::string("\"") + access::kRows + "\", \"" + access::kPaged +
        "\", \"" + access::kSlots + "\", \"" + access::kGroups + "\", \"" +
        access::kCarried + "\" or \"" + access::kColumns + "\"";
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    auto kind = dict ? dict.getAs<StringAttr>("kind") : nullptr;
    if (!kind)
      return error(op, name)
             << "must be a dictionary with a 'kind' (" << kinds << ")";
    if (auto ranked = dyn_cast_or_null<RankedTensorType>(type);
        ranked && ranked.getRank() < 2)
      return error(op, name) << "needs a tensor of rank >= 2";
    if (isa_and_nonnull<IntegerType, FloatType, IndexType>(type))
      return error(op, name) << "needs a tensor of rank >= 2";
    if (kind.getValue() == access::kRows || kind.getValue() == access::kSlots)
      return checkDict(op, name, dict, {"kind", "index"}, {"index"}, {}, func);
    if (kind.getValue() == access::kPaged)
      return checkDict(op, name, dict, {"kind", "table", "lengths"},
                       {"table", "lengths"}, {}, func);
    if (kind.getValue() == access::kGroups)
      return checkDict(op, name, dict, {"kind", "ends"}, {"ends", "rows"}, {},
                       func, {"rows"});
    if (kind.getValue() == access::kCarried)
      return checkDict(op, name, dict, {"kind"}, {}, {}, func);
    if (kind.getValue() == access::kColumns) {
      // `count` is a dimension expression; its value (positive, within the
      // last dimension) is the pass's to check once the shape is bound.
      if (failed(checkDict(op, name, dict, {"kind", "count"}, {}, {}, func)))
        return failure();
      llvm::SmallVector<std::string> symbols;
      if (llvm::Error err = collectDimSymbols(
              dict.getAs<StringAttr>("count").getValue(), symbols))
        return error(op, name) << "'count': " << llvm::toString(std::move(err));
      return success();
    }
    return error(op, name) << "has an unknown kind '" << kind.getValue()
                           << "' (expected " << kinds << ")";
  }
  return error(op, name) << "is not an annotation of "
                         << (isResult ? "results" : "arguments")
                         << " (expected atrex.name, atrex.dims, atrex.access)";
}

} // namespace

LogicalResult AtrexDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  // Definitions are func.func; lowering keeps the annotations on the
  // function it becomes (llvm.func in atrex-exec).
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto enclosing = op->getParentOfType<FunctionOpInterface>();

  // Annotations of the operator function.
  if (name == "atrex.operator" || name == "atrex.entry" ||
      name == "atrex.dtype_params" || name == "atrex.examples" ||
      name == "atrex.fixed_inputs" || name == "atrex.shape" ||
      name == "atrex.dtypes" || name == "atrex.work") {
    if (!function)
      return error(op, name)
             << "must be on a func.func (an operator definition)";
    if (name == "atrex.operator") {
      auto s = dyn_cast<StringAttr>(value);
      if (!s || !isIdentifier(s.getValue()))
        return error(op, name) << "must be a string naming the operator";
      return success();
    }
    if (name == "atrex.entry") {
      if (!isa<DictionaryAttr>(value))
        return error(op, name)
               << "must be a dictionary (docs/semantic-work.md, Entry points)";
      // The entry is checked against the definition's tensor signature, not
      // against what bufferization and lowering make of it.
      auto func = dyn_cast<func::FuncOp>(op);
      auto isTensorOrScalar = [](Type t) {
        return isa<RankedTensorType, IntegerType, FloatType, IndexType>(t);
      };
      if (!func || !llvm::all_of(func.getArgumentTypes(), isTensorOrScalar) ||
          !llvm::all_of(func.getResultTypes(), isTensorOrScalar))
        return success();
      if (auto entry = readOperatorEntry(func); !entry)
        return error(op, name) << llvm::toString(entry.takeError());
      return success();
    }
    if (name == "atrex.dtype_params") {
      auto dict = dyn_cast<DictionaryAttr>(value);
      if (!dict || !llvm::all_of(dict, [](NamedAttribute e) {
            return isa<TypeAttr>(e.getValue());
          }))
        return error(op, name)
               << "must map parameter names to their default element types";
      return success();
    }
    if (name == "atrex.examples")
      return verifyExamples(op, name, value);
    if (name == "atrex.fixed_inputs") {
      auto dict = dyn_cast<DictionaryAttr>(value);
      if (!dict || !llvm::all_of(dict, [](NamedAttribute e) {
            return isa<IntegerAttr, StringAttr>(e.getValue());
          }))
        return error(op, name)
               << "must map input names to integers or dimension expressions";
      return success();
    }
    if (name == "atrex.shape")
      return checkIntegerDict(op, name, value);
    if (!isa<DictionaryAttr>(value))
      return error(op, name) << "must be a dictionary";
    return success();
  }

  // Annotations of ops in the body.
  if (name == "atrex.engine") {
    auto s = dyn_cast<StringAttr>(value);
    if (!s || (s.getValue() != "matrix" && s.getValue() != "vector"))
      return error(op, name) << "must be \"matrix\" or \"vector\"";
    if (!isa<linalg::LinalgOp>(op))
      return error(op, name) << "must be on a linalg structured op";
    return success();
  }
  if (name == "atrex.ragged" || name == "atrex.causal_varlen") {
    auto dict = dyn_cast<DictionaryAttr>(value);
    if (!dict)
      return error(op, name) << "must be a dictionary";
    bool ragged = name == "atrex.ragged";
    SmallVector<StringRef> keys =
        ragged ? SmallVector<StringRef>{"loop", "by", "lengths"}
               : SmallVector<StringRef>{"q", "k", "cu_seqlens"};
    SmallVector<StringRef> loops = ragged ? SmallVector<StringRef>{"loop", "by"}
                                          : SmallVector<StringRef>{"q", "k"};
    StringRef argKey = ragged ? "lengths" : "cu_seqlens";
    if (failed(checkDict(op, name, dict, keys, {argKey}, loops, enclosing)))
      return failure();
    return checkLoops(op, name, dict, loops);
  }
  if (name == "atrex.symbol") {
    auto s = dyn_cast<StringAttr>(value);
    if (!s || !isIdentifier(s.getValue()))
      return error(op, name) << "must be a string naming a shape parameter";
    if (op->getNumResults() != 1 || !op->getResult(0).getType().isIntOrIndex())
      return error(op, name)
             << "must be on an op with one integer or index result";
    return success();
  }
  if (name == "atrex.verdict") {
    if (!isa<StringAttr>(value))
      return error(op, name) << "must be a string";
    return success();
  }
  if (name == "atrex.name" || name == "atrex.dims" || name == "atrex.access")
    return error(op, name) << "belongs on function arguments and results";
  return op->emitError()
         << kPrefix << "unknown annotation '" << name
         << "' (docs/semantic-work.md lists the atrex annotations)";
}

LogicalResult AtrexDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  (void)regionIndex;
  return verifyPortAttribute(op, argIndex, /*isResult=*/false, attr);
}

LogicalResult AtrexDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  (void)regionIndex;
  return verifyPortAttribute(op, resultIndex, /*isResult=*/true, attr);
}

namespace {
struct LoadWithFunc : DialectExtension<LoadWithFunc, func::FuncDialect> {
  void apply(MLIRContext *context, func::FuncDialect *) const override {
    context->getOrLoadDialect<AtrexDialect>();
  }
};
} // namespace

void registerAtrexDialect(DialectRegistry &registry) {
  registry.insert<AtrexDialect>();
  registry.addExtensions<LoadWithFunc>();
}

} // namespace atrex

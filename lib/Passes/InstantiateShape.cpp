//===- InstantiateShape.cpp - bind symbolic dimensions --------------------===//
//
// Binds the symbolic dimensions named by `atrex.dims` to a concrete problem
// and propagates the static shapes through the body with upstream
// canonicalization patterns.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/Passes.h"
#include "atrex/Passes/SemanticWork.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

namespace atrex {
#define GEN_PASS_DEF_ATREXINSTANTIATESHAPE
#include "atrex/Passes/Passes.h.inc"
} // namespace atrex

using namespace mlir;

namespace atrex {

namespace {
constexpr llvm::StringLiteral kPass = "atrex-instantiate-shape: ";

/// The name of argument `index` (its `atrex.name`, else "#index").
std::string argumentName(func::FuncOp func, unsigned index, bool isResult) {
  auto name = isResult
                  ? func.getResultAttrOfType<StringAttr>(index, "atrex.name")
                  : func.getArgAttrOfType<StringAttr>(index, "atrex.name");
  if (name)
    return name.str();
  return (isResult ? "result #" : "argument #") + std::to_string(index);
}

/// Dimension entries of one argument or result as expressions.
llvm::Expected<SmallVector<std::string>> dimExprs(func::FuncOp func,
                                                  unsigned index, bool isResult,
                                                  RankedTensorType type) {
  ArrayAttr dims =
      isResult ? func.getResultAttrOfType<ArrayAttr>(index, "atrex.dims")
               : func.getArgAttrOfType<ArrayAttr>(index, "atrex.dims");
  std::string what = (isResult ? "result '" : "argument '") +
                     argumentName(func, index, isResult) + "'";
  if (!dims)
    return makeLocatedError(func.getLoc(), kPass + what +
                                               " has no atrex.dims naming its "
                                               "dimensions");
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return makeLocatedError(func.getLoc(), kPass + what + " has " +
                                               llvm::Twine(dims.size()) +
                                               " atrex.dims entries for rank " +
                                               llvm::Twine(type.getRank()));
  SmallVector<std::string> exprs;
  for (Attribute dim : dims) {
    if (auto str = dyn_cast<StringAttr>(dim))
      exprs.push_back(str.str());
    else if (auto integer = dyn_cast<IntegerAttr>(dim))
      exprs.push_back(std::to_string(integer.getInt()));
    else
      return makeLocatedError(func.getLoc(),
                              kPass + what +
                                  ": atrex.dims entries must be strings or "
                                  "integers");
  }
  return exprs;
}

/// Computes the static type of an argument or result.
llvm::Expected<RankedTensorType>
staticType(func::FuncOp func, unsigned index, bool isResult,
           RankedTensorType type, const llvm::StringMap<int64_t> &dims) {
  auto exprs = dimExprs(func, index, isResult, type);
  if (!exprs)
    return exprs.takeError();
  SmallVector<int64_t> shape;
  for (auto [i, expr] : llvm::enumerate(*exprs)) {
    auto value = evaluateDimExpr(expr, dims);
    if (!value)
      return makeLocatedError(func.getLoc(),
                              kPass + llvm::toString(value.takeError()) +
                                  " (dimension " + llvm::Twine(i) + " of '" +
                                  argumentName(func, index, isResult) + "')");
    if (*value < 0)
      return makeLocatedError(func.getLoc(), kPass + "dimension '" + expr +
                                                 "' evaluates to " +
                                                 llvm::Twine(*value));
    if (!type.isDynamicDim(i) && type.getDimSize(i) != *value)
      return makeLocatedError(
          func.getLoc(), kPass + "dimension '" + expr + "' of '" +
                             argumentName(func, index, isResult) +
                             "' is fixed to " +
                             llvm::Twine(type.getDimSize(i)) +
                             " but the binding gives " + llvm::Twine(*value));
    shape.push_back(*value);
  }
  return RankedTensorType::get(shape, type.getElementType());
}
} // namespace

llvm::Expected<llvm::StringMap<std::string>>
parseDtypeBindings(llvm::ArrayRef<std::string> bindings) {
  llvm::StringMap<std::string> dtypes;
  for (llvm::StringRef binding : bindings) {
    auto [name, value] = binding.split('=');
    name = name.trim();
    value = value.trim();
    if (name.empty() || value.empty())
      return llvm::createStringError("invalid dtype binding '" + binding +
                                     "': expected NAME=DTYPE");
    if (!dtypes.try_emplace(name, value.str()).second)
      return llvm::createStringError("dtype parameter '" + name +
                                     "' is bound twice");
  }
  return dtypes;
}

namespace {
std::optional<Type> parseDtype(MLIRContext *ctx, llvm::StringRef name) {
  Builder b(ctx);
  if (name == "bf16")
    return b.getBF16Type();
  if (name == "f16")
    return b.getF16Type();
  if (name == "f32")
    return b.getF32Type();
  if (name == "f64")
    return b.getF64Type();
  if (name == "f8e4m3")
    return Type(Float8E4M3FNType::get(ctx));
  if (name == "f8e5m2")
    return Type(Float8E5M2Type::get(ctx));
  return std::nullopt;
}

/// Replaces each bound dtype parameter's default type in `func`.
llvm::Error bindDtypes(func::FuncOp func,
                       const llvm::StringMap<std::string> &dtypes) {
  MLIRContext *ctx = func.getContext();
  auto params = func->getAttrOfType<DictionaryAttr>("atrex.dtype_params");
  SmallVector<NamedAttribute> bound;
  llvm::SmallDenseMap<Type, Type> replace;
  for (const auto &binding : dtypes) {
    auto param = params ? params.getAs<TypeAttr>(binding.getKey()) : nullptr;
    if (!param)
      return makeLocatedError(func.getLoc(), kPass + "'" + func.getSymName() +
                                                 "' has no dtype parameter '" +
                                                 binding.getKey() + "'");
    auto type = parseDtype(ctx, binding.getValue());
    if (!type)
      return makeLocatedError(func.getLoc(),
                              kPass + "unknown dtype '" + binding.getValue() +
                                  "' for parameter '" + binding.getKey() + "'");
    if (param.getValue() != *type)
      replace[param.getValue()] = *type;
  }
  if (params)
    for (NamedAttribute param : params) {
      auto it = dtypes.find(param.getName().getValue());
      Type type = it == dtypes.end()
                      ? cast<TypeAttr>(param.getValue()).getValue()
                      : *parseDtype(ctx, it->getValue());
      bound.push_back(NamedAttribute(param.getName(), TypeAttr::get(type)));
    }
  if (!replace.empty()) {
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](Type type) -> std::optional<Type> {
      auto it = replace.find(type);
      if (it == replace.end())
        return std::nullopt;
      return it->second;
    });
    replacer.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    // Conversions between a parameter and the type it was bound to vanish.
    SmallVector<Operation *> identities;
    func.walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          op->getOperand(0).getType() == op->getResult(0).getType())
        identities.push_back(op);
    });
    for (Operation *op : identities) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    }
    if (failed(verify(func)))
      return makeLocatedError(
          func.getLoc(), kPass + "binding the dtypes of '" + func.getSymName() +
                             "' gives invalid IR (see the notes above)");
  }
  if (!bound.empty())
    func->setAttr("atrex.dtypes", DictionaryAttr::get(ctx, bound));
  return llvm::Error::success();
}
} // namespace

llvm::Error instantiateShape(func::FuncOp func,
                             const llvm::StringMap<int64_t> &dims,
                             const llvm::StringMap<std::string> &dtypes) {
  if (auto err = bindDtypes(func, dtypes))
    return err;
  MLIRContext *ctx = func.getContext();
  FunctionType fnType = func.getFunctionType();

  // Every symbol the signature uses must be bound, and every binding used.
  llvm::StringSet<> used;
  auto collect = [&](unsigned index, bool isResult, Type type) -> llvm::Error {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType)
      return llvm::Error::success();
    auto exprs = dimExprs(func, index, isResult, tensorType);
    if (!exprs)
      return exprs.takeError();
    for (const std::string &expr : *exprs) {
      SmallVector<std::string> symbols;
      if (auto err = collectDimSymbols(expr, symbols))
        return makeLocatedError(func.getLoc(),
                                kPass + llvm::toString(std::move(err)));
      for (const std::string &symbol : symbols)
        used.insert(symbol);
    }
    return llvm::Error::success();
  };
  for (auto [i, type] : llvm::enumerate(fnType.getInputs()))
    if (auto err = collect(i, false, type))
      return err;
  for (auto [i, type] : llvm::enumerate(fnType.getResults()))
    if (auto err = collect(i, true, type))
      return err;
  // Symbol constants: `arith.constant {atrex.symbol = "K"} -1 : index` gives
  // the body the value of a symbol that only results carry.
  SmallVector<arith::ConstantOp> symbolConstants;
  llvm::Error symbolError = llvm::Error::success();
  func.walk([&](arith::ConstantOp cst) {
    auto symbol = cst->getAttrOfType<StringAttr>("atrex.symbol");
    if (!symbol)
      return;
    if (!cst.getType().isIndex()) {
      if (!symbolError)
        symbolError = makeLocatedError(
            cst.getLoc(), kPass + "atrex.symbol constants must be of type "
                                  "index");
      return;
    }
    used.insert(symbol.getValue());
    symbolConstants.push_back(cst);
  });
  if (symbolError)
    return symbolError;
  SmallVector<std::string> symbolList;
  for (const auto &entry : used)
    symbolList.push_back(entry.getKey().str());
  llvm::sort(symbolList);
  std::string known = llvm::join(symbolList, ", ");
  for (const std::string &symbol : symbolList)
    if (!dims.count(symbol))
      return makeLocatedError(func.getLoc(), kPass + "dimension '" + symbol +
                                                 "' of '" + func.getSymName() +
                                                 "' is not bound (pass "
                                                 "dims=" +
                                                 symbol +
                                                 "=<value>; the operator's "
                                                 "dimensions are " +
                                                 known + ")");
  for (const auto &binding : dims)
    if (!used.contains(binding.getKey()))
      return makeLocatedError(func.getLoc(),
                              kPass + "'" + func.getSymName() +
                                  "' has no dimension '" + binding.getKey() +
                                  "' (its dimensions are " + known + ")");

  SmallVector<Type> inputs, results;
  for (auto [i, type] : llvm::enumerate(fnType.getInputs())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType) {
      inputs.push_back(type);
      continue;
    }
    auto newType = staticType(func, i, false, tensorType, dims);
    if (!newType)
      return newType.takeError();
    inputs.push_back(*newType);
  }
  for (auto [i, type] : llvm::enumerate(fnType.getResults())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType) {
      results.push_back(type);
      continue;
    }
    auto newType = staticType(func, i, true, tensorType, dims);
    if (!newType)
      return newType.takeError();
    results.push_back(*newType);
  }

  if (func.isExternal())
    return makeLocatedError(func.getLoc(),
                            kPass + "'" + func.getSymName() + "' has no body");

  // Retype the entry block arguments, casting back to the old (dynamic) types
  // for the body, and cast returned values to the new static result types.
  Block &entry = func.getBody().front();
  OpBuilder builder(ctx);
  builder.setInsertionPointToStart(&entry);
  for (auto [arg, newType] : llvm::zip(entry.getArguments(), inputs)) {
    Type oldType = arg.getType();
    if (oldType == newType)
      continue;
    arg.setType(newType);
    auto cast = tensor::CastOp::create(builder, arg.getLoc(), oldType, arg);
    arg.replaceAllUsesExcept(cast.getResult(), cast);
  }
  func.walk([&](func::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    for (auto [operand, newType] : llvm::zip(ret->getOpOperands(), results)) {
      if (operand.get().getType() == newType)
        continue;
      operand.set(tensor::CastOp::create(builder, ret.getLoc(), newType,
                                         operand.get()));
    }
  });
  func.setFunctionType(FunctionType::get(ctx, inputs, results));

  for (arith::ConstantOp cst : symbolConstants) {
    int64_t value =
        dims.lookup(cst->getAttrOfType<StringAttr>("atrex.symbol").getValue());
    cst.setValueAttr(builder.getIndexAttr(value));
  }

  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  if (failed(applyPatternsGreedily(func.getOperation(), std::move(patterns))))
    return makeLocatedError(func.getLoc(),
                            kPass + "shape propagation did not converge in '" +
                                func.getSymName() + "'");

  // Every tensor must now be static.
  Operation *dynamicOp = nullptr;
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(type);
          shaped && !shaped.hasStaticShape()) {
        dynamicOp = op;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (dynamicOp)
    return makeLocatedError(dynamicOp->getLoc(),
                            kPass +
                                "could not infer a static shape for the "
                                "result of '" +
                                dynamicOp->getName().getStringRef() + "'");

  SmallVector<NamedAttribute> shapeAttrs;
  for (const std::string &symbol : symbolList)
    shapeAttrs.push_back(builder.getNamedAttr(
        symbol, builder.getI64IntegerAttr(dims.lookup(symbol))));
  func->setAttr("atrex.shape", builder.getDictionaryAttr(shapeAttrs));
  return llvm::Error::success();
}

namespace {
struct InstantiateShapePass
    : public impl::AtrexInstantiateShapeBase<InstantiateShapePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto dimsOr = parseDimBindings(dims);
    if (!dimsOr) {
      module.emitError() << kPass << llvm::toString(dimsOr.takeError());
      return signalPassFailure();
    }
    auto dtypesOr = parseDtypeBindings(dtypes);
    if (!dtypesOr) {
      module.emitError() << kPass << llvm::toString(dtypesOr.takeError());
      return signalPassFailure();
    }
    bool found = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr("atrex.operator"))
        continue;
      if (!function.empty() && func.getSymName() != function)
        continue;
      found = true;
      if (auto err = instantiateShape(func, *dimsOr, *dtypesOr)) {
        emitErrorAsDiagnostic(std::move(err), func.getLoc());
        return signalPassFailure();
      }
    }
    if (!found) {
      module.emitError() << kPass << "no operator function"
                         << (function.empty() ? std::string()
                                              : " named '" + function + "'")
                         << " (a func.func with an atrex.operator attribute)";
      return signalPassFailure();
    }
  }
};
} // namespace

} // namespace atrex

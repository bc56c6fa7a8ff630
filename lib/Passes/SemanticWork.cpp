//===- SemanticWork.cpp - count semantic FLOPs and compulsory bytes -------===//
//
// Counting rules (docs/semantic-work.md):
//  - A linalg op counts its body once per iteration of its (static) iteration
//    domain. `atrex.ragged` and `atrex.causal_varlen` restrict the domain to
//    the iterations the concrete facts make valid.
//  - Named contractions (linalg.matmul, ...) and generics marked
//    `atrex.engine = "matrix"` whose body accumulates a product count 2 FLOPs
//    per iteration on the matrix engine, at the dtype of the multiplied
//    operands before extension.
//  - Every other floating-point arithmetic op counts 1 vector FLOP (math.fma
//    2) at its result dtype; math special functions are counted by name.
//  - Comparisons, selects, conversions, integer/index arithmetic, tensor
//    data movement and linalg.index/yield count nothing.
//  - Bytes: every argument read once, every result written once, at its
//    element width; `atrex.access` restricts paged, row-gathered or grouped
//    arguments to the pages, rows or non-empty groups the facts reference,
//    and an argument or result updated in place on a column range to the
//    first `count` columns of its rows.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/SemanticWork.h"
#include "atrex/Passes/Passes.h"
#include "atrex/Support/JSONFile.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace atrex {
#define GEN_PASS_DEF_ATREXSEMANTICWORK
#include "atrex/Passes/Passes.h.inc"
} // namespace atrex

using namespace mlir;

namespace atrex {

uint64_t SemanticWork::totalFlops() const {
  uint64_t total = 0;
  for (const auto &engine : flops)
    for (const auto &dtype : engine.second)
      total += dtype.second;
  return total;
}

namespace {
constexpr llvm::StringLiteral kPass = "atrex-semantic-work: ";

/// Floating-point arithmetic ops and their FLOPs.
std::optional<unsigned> vectorFlops(Operation *op) {
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, arith::NegFOp, math::AbsFOp>(op))
    return 1;
  if (isa<math::FmaOp>(op))
    return 2;
  return std::nullopt;
}

/// Ops that move, convert, compare or index and count no FLOPs.
bool isFree(Operation *op) {
  if (isa<arith::ConstantOp, arith::CmpFOp, arith::CmpIOp, arith::SelectOp,
          arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
          arith::FPToSIOp, arith::FPToUIOp, arith::BitcastOp,
          arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp, arith::AddIOp, arith::SubIOp,
          arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
          arith::RemUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
          arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp,
          arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::ShLIOp,
          arith::ShRUIOp, arith::ShRSIOp>(op))
    return true;
  if (isa<linalg::IndexOp, linalg::YieldOp, func::ReturnOp, scf::YieldOp>(op))
    return true;
  if (isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
          tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp,
          tensor::DimOp, tensor::ExtractOp, tensor::InsertOp,
          tensor::FromElementsOp, tensor::ConcatOp, tensor::BitcastOp>(op))
    return true;
  return false;
}

/// Math-dialect functions of floating-point values (exp, rsqrt, tanh, ...).
bool isSpecial(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             math::MathDialect::getDialectNamespace() &&
         !vectorFlops(op) && op->getNumResults() == 1 &&
         isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
}

/// Strips extf/truncf conversions.
Value stripConversions(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Describes the multiply-accumulate of a contraction body.
struct MacMatch {
  Operation *mul = nullptr;
  Operation *add = nullptr;
  std::string dtype;
};

/// Matches a body yielding `acc + a * b` (modulo conversions) for its first
/// output, with `a` and `b` distinct values.
std::optional<MacMatch> matchMac(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Value acc = op.getRegionOutputArgs().front();
  Value yielded = stripConversions(yield.getOperand(0));
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value lhs = stripConversions(add.getLhs());
  Value rhs = stripConversions(add.getRhs());
  Value product;
  if (lhs == acc)
    product = rhs;
  else if (rhs == acc)
    product = lhs;
  else
    return std::nullopt;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  Value a = stripConversions(mul.getLhs());
  Value b = stripConversions(mul.getRhs());
  if (a == b)
    return std::nullopt;
  std::string ta = dtypeName(a.getType()), tb = dtypeName(b.getType());
  MacMatch match;
  match.mul = mul;
  match.add = add;
  match.dtype = ta == tb ? ta : (ta < tb ? ta + "*" + tb : tb + "*" + ta);
  return match;
}

class Counter {
public:
  Counter(func::FuncOp func, const Facts &facts, SemanticWork &work)
      : func(func), facts(facts), work(work) {}

  llvm::Error countBlock(Block &block, uint64_t multiplier) {
    for (Operation &op : block) {
      if (auto err = countOp(&op, multiplier))
        return err;
    }
    return llvm::Error::success();
  }

  /// The fact for the function argument named `name`.
  llvm::Expected<Fact> factFor(llvm::StringRef name, Location loc) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      auto argName = func.getArgAttrOfType<StringAttr>(i, "atrex.name");
      if (!argName || argName.getValue() != name)
        continue;
      SmallVector<int64_t> shape;
      if (auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType()))
        shape.assign(type.getShape().begin(), type.getShape().end());
      auto fact = facts.get(name, shape);
      if (!fact)
        return makeLocatedError(
            loc,
            kPass + "operator '" + work.operatorName +
                "' is data-dependent: " + llvm::toString(fact.takeError()) +
                " (give the concrete values of argument '" + name +
                "' with facts=<file.json>)");
      return fact;
    }
    return makeLocatedError(loc, kPass + "annotation refers to '" + name +
                                     "', which is not an argument of '" +
                                     func.getSymName() + "'");
  }

private:
  llvm::Error countOp(Operation *op, uint64_t multiplier) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return countLinalg(linalgOp, multiplier);
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      auto tripCount = forOp.getStaticTripCount();
      if (!tripCount)
        return makeLocatedError(op->getLoc(),
                                kPass + "scf.for without a static trip count");
      return countBlock(*forOp.getBody(),
                        multiplier * tripCount->getZExtValue());
    }
    if (isFree(op))
      return llvm::Error::success();
    if (auto flops = vectorFlops(op)) {
      work.flops["vector"][dtypeName(op->getResult(0).getType())] +=
          *flops * multiplier;
      return llvm::Error::success();
    }
    if (isSpecial(op)) {
      work.special[op->getName().stripDialect().str()] += multiplier;
      return llvm::Error::success();
    }
    return makeLocatedError(op->getLoc(),
                            kPass + "unsupported operation '" +
                                op->getName().getStringRef() +
                                "': the pass counts linalg structured ops, "
                                "tensor ops, scf.for and scalar arith/math");
  }

  llvm::Expected<uint64_t> iterations(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    uint64_t total = 1;
    for (int64_t range : ranges) {
      if (ShapedType::isDynamic(range))
        return makeLocatedError(op.getLoc(),
                                kPass + "'" + op->getName().getStringRef() +
                                    "' has a dynamic iteration domain; bind "
                                    "the shape first (--atrex-instantiate-"
                                    "shape)");
      total *= range;
    }
    auto loopAttr = [&](DictionaryAttr dict, StringRef key,
                        const char *what) -> llvm::Expected<int64_t> {
      auto attr = dict.getAs<IntegerAttr>(key);
      if (!attr || attr.getInt() < 0 ||
          attr.getInt() >= static_cast<int64_t>(ranges.size()))
        return makeLocatedError(op.getLoc(), kPass + what +
                                                 " needs an integer '" + key +
                                                 "' naming a loop");
      return attr.getInt();
    };
    auto factName = [&](DictionaryAttr dict, StringRef key,
                        const char *what) -> llvm::Expected<std::string> {
      auto attr = dict.getAs<StringAttr>(key);
      if (!attr)
        return makeLocatedError(op.getLoc(), kPass + what +
                                                 " needs a string '" + key +
                                                 "' naming an argument");
      return attr.str();
    };

    // Ragged loop: iteration `loop` is valid while below lengths[by].
    if (auto ragged = op->getAttrOfType<DictionaryAttr>("atrex.ragged")) {
      auto loop = loopAttr(ragged, "loop", "atrex.ragged");
      if (!loop)
        return loop.takeError();
      auto by = loopAttr(ragged, "by", "atrex.ragged");
      if (!by)
        return by.takeError();
      auto name = factName(ragged, "lengths", "atrex.ragged");
      if (!name)
        return name.takeError();
      auto fact = factFor(*name, op.getLoc());
      if (!fact)
        return fact.takeError();
      int64_t extent = ranges[*loop], byExtent = ranges[*by];
      if (static_cast<int64_t>(fact->values.size()) != byExtent)
        return makeLocatedError(
            op.getLoc(), kPass + "fact '" + *name + "' has " +
                             llvm::Twine(fact->values.size()) +
                             " lengths for a loop of " + llvm::Twine(byExtent));
      uint64_t valid = 0;
      for (int64_t length : fact->values) {
        if (length < 0 || length > extent)
          return makeLocatedError(op.getLoc(),
                                  kPass + "fact '" + *name + "' holds " +
                                      llvm::Twine(length) + ", outside [0, " +
                                      llvm::Twine(extent) + "]");
        valid += length;
      }
      uint64_t rest = (extent == 0 || byExtent == 0)
                          ? 0
                          : total / (static_cast<uint64_t>(extent) * byExtent);
      total = rest * valid;
    }

    // Causal attention over variable-length packed sequences: pair (q, k)
    // is valid when both lie in the same sequence and k <= q (no cached
    // prefix, so bottom-right and top-left alignment coincide).
    if (auto causal =
            op->getAttrOfType<DictionaryAttr>("atrex.causal_varlen")) {
      auto q = loopAttr(causal, "q", "atrex.causal_varlen");
      if (!q)
        return q.takeError();
      auto k = loopAttr(causal, "k", "atrex.causal_varlen");
      if (!k)
        return k.takeError();
      auto name = factName(causal, "cu_seqlens", "atrex.causal_varlen");
      if (!name)
        return name.takeError();
      auto fact = factFor(*name, op.getLoc());
      if (!fact)
        return fact.takeError();
      int64_t qExtent = ranges[*q], kExtent = ranges[*k];
      const std::vector<int64_t> &cu = fact->values;
      if (cu.empty() || cu.front() != 0 || cu.back() != qExtent ||
          qExtent != kExtent)
        return makeLocatedError(op.getLoc(),
                                kPass + "fact '" + *name +
                                    "' must start at 0 and end at the token "
                                    "count " +
                                    llvm::Twine(qExtent));
      uint64_t pairs = 0;
      for (size_t i = 1; i < cu.size(); ++i) {
        int64_t length = cu[i] - cu[i - 1];
        if (length < 0)
          return makeLocatedError(op.getLoc(), kPass + "fact '" + *name +
                                                   "' is not non-decreasing");
        pairs += static_cast<uint64_t>(length) * (length + 1) / 2;
      }
      uint64_t rest =
          qExtent == 0 ? 0 : total / (static_cast<uint64_t>(qExtent) * kExtent);
      total = rest * pairs;
    }
    return total;
  }

  llvm::Error countLinalg(linalg::LinalgOp op, uint64_t multiplier) {
    auto iters = iterations(op);
    if (!iters)
      return iters.takeError();
    uint64_t count = *iters * multiplier;

    std::optional<MacMatch> mac;
    auto engine = op->getAttrOfType<StringAttr>("atrex.engine");
    bool namedContraction =
        !isa<linalg::GenericOp>(op) && linalg::isaContractionOpInterface(op);
    if ((engine && engine.getValue() == "matrix") ||
        (!engine && namedContraction)) {
      mac = matchMac(op);
      if (!mac)
        return makeLocatedError(op.getLoc(),
                                kPass + "op marked for the matrix engine does "
                                        "not accumulate a product of two "
                                        "values (acc + a * b)");
      work.flops["matrix"][mac->dtype] += 2 * count;
    } else if (engine && engine.getValue() != "vector") {
      return makeLocatedError(op.getLoc(),
                              kPass + "atrex.engine must be \"matrix\" or "
                                      "\"vector\"");
    }

    for (Operation &bodyOp : *op.getBlock()) {
      if (mac && (&bodyOp == mac->mul || &bodyOp == mac->add))
        continue;
      if (isFree(&bodyOp))
        continue;
      if (auto flops = vectorFlops(&bodyOp)) {
        work.flops["vector"][dtypeName(bodyOp.getResult(0).getType())] +=
            *flops * count;
        continue;
      }
      if (isSpecial(&bodyOp)) {
        work.special[bodyOp.getName().stripDialect().str()] += count;
        continue;
      }
      return makeLocatedError(
          bodyOp.getLoc(),
          kPass + "unsupported operation '" + bodyOp.getName().getStringRef() +
              "' in the body of '" + op->getName().getStringRef() + "'");
    }
    return llvm::Error::success();
  }

  func::FuncOp func;
  const Facts &facts;
  SemanticWork &work;
};

uint64_t elementBytes(Type type) {
  unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

llvm::Expected<ArgumentBytes> argumentBytes(func::FuncOp func, unsigned index,
                                            bool isResult, Counter &counter) {
  Type type = isResult ? func.getResultTypes()[index]
                       : func.getArgument(index).getType();
  ArgumentBytes arg;
  auto name = isResult
                  ? func.getResultAttrOfType<StringAttr>(index, "atrex.name")
                  : func.getArgAttrOfType<StringAttr>(index, "atrex.name");
  arg.name = name ? name.str()
                  : (isResult ? "result#" : "arg#") + std::to_string(index);
  arg.role = isResult ? "output" : "input";
  Type elementType = type;
  uint64_t elements = 1;
  SmallVector<int64_t> shape;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return makeLocatedError(func.getLoc(),
                              kPass + "'" + arg.name +
                                  "' has a dynamic shape; bind the shape "
                                  "first (--atrex-instantiate-shape)");
    elementType = shaped.getElementType();
    elements = shaped.getNumElements();
    shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  } else if (!type.isIntOrIndexOrFloat()) {
    return makeLocatedError(func.getLoc(), kPass + "argument '" + arg.name +
                                               "' has an unsupported type");
  }
  arg.dtype = dtypeName(elementType);
  uint64_t width = elementBytes(elementType);
  arg.bytes = elements * width;

  DictionaryAttr accessAttr =
      isResult ? func.getResultAttrOfType<DictionaryAttr>(index, "atrex.access")
               : func.getArgAttrOfType<DictionaryAttr>(index, "atrex.access");
  if (!accessAttr)
    return arg;
  auto kind = accessAttr.getAs<StringAttr>("kind");
  if (!kind || shape.size() < 2)
    return makeLocatedError(func.getLoc(),
                            kPass + "atrex.access of '" + arg.name +
                                "' needs a 'kind' and a tensor of rank >= 2");
  if (kind.getValue() == access::kCarried) {
    arg.access = kind.str();
    arg.bytes = 0;
    return arg;
  }
  if (kind.getValue() == access::kColumns) {
    // The first `count` columns of the last dimension, in every row; `count`
    // is evaluated with the symbols the instantiation bound (atrex.shape).
    auto count = accessAttr.getAs<StringAttr>("count");
    if (!count)
      return makeLocatedError(func.getLoc(), kPass + "atrex.access '" +
                                                 kind.getValue() + "' of '" +
                                                 arg.name + "' needs 'count'");
    llvm::StringMap<int64_t> dims;
    if (auto bound = func->getAttrOfType<DictionaryAttr>("atrex.shape"))
      for (NamedAttribute entry : bound)
        if (auto value = dyn_cast<IntegerAttr>(entry.getValue()))
          dims[entry.getName().getValue()] = value.getInt();
    auto columns = evaluateDimExpr(count.getValue(), dims);
    if (!columns)
      return makeLocatedError(func.getLoc(),
                              kPass + llvm::toString(columns.takeError()) +
                                  " (count of atrex.access '" +
                                  kind.getValue() + "' of '" + arg.name + "')");
    int64_t lastDim = shape.back();
    if (*columns <= 0 || *columns > lastDim)
      return makeLocatedError(
          func.getLoc(), kPass + "atrex.access '" + kind.getValue() + "' of '" +
                             arg.name + "': count '" + count.getValue() +
                             "' is " + llvm::Twine(*columns) +
                             ", outside [1, " + llvm::Twine(lastDim) +
                             "] (the last dimension of '" + arg.name + "')");
    uint64_t rowCount = 1;
    for (int64_t size : ArrayRef<int64_t>(shape).drop_back())
      rowCount *= size;
    arg.access = kind.str();
    arg.bytes = rowCount * static_cast<uint64_t>(*columns) * width;
    return arg;
  }
  // The referenced units are rows of dimension 0 (groups for `groups`), or
  // for `slots` the slots of dimensions 0 and 1 taken as one axis
  // (page * BS + offset).
  bool slotUnits = kind.getValue() == access::kSlots;
  int64_t units = slotUnits ? shape[0] * shape[1] : shape[0];
  const char *unit = slotUnits ? "slot" : "row";
  uint64_t rowBytes = units ? arg.bytes / units : 0;
  std::set<int64_t> rows;
  auto checkRow = [&](int64_t row) -> llvm::Error {
    if (row < 0 || row >= units)
      return makeLocatedError(func.getLoc(),
                              kPass + "facts reference " + unit + " " +
                                  llvm::Twine(row) + " of '" + arg.name +
                                  "', outside [0, " + llvm::Twine(units) + ")");
    rows.insert(row);
    return llvm::Error::success();
  };
  if (kind.getValue() == access::kRows || slotUnits) {
    // Indexed by the values of another argument; a negative slot (a padding
    // token of a KV-cache write) touches nothing.
    auto indexName = accessAttr.getAs<StringAttr>("index");
    if (!indexName)
      return makeLocatedError(func.getLoc(), kPass + "atrex.access '" +
                                                 kind.getValue() + "' of '" +
                                                 arg.name + "' needs 'index'");
    auto fact = counter.factFor(indexName.getValue(), func.getLoc());
    if (!fact)
      return fact.takeError();
    for (int64_t row : fact->values)
      if (!(slotUnits && row < 0))
        if (auto err = checkRow(row))
          return err;
  } else if (kind.getValue() == access::kPaged) {
    // Dimension 0 counts pages, dimension 1 the tokens of a page; sequence b
    // references the first ceil(lengths[b] / page) entries of table row b.
    auto tableName = accessAttr.getAs<StringAttr>("table");
    auto lengthsName = accessAttr.getAs<StringAttr>("lengths");
    if (!tableName || !lengthsName)
      return makeLocatedError(func.getLoc(),
                              kPass + "atrex.access 'paged' of '" + arg.name +
                                  "' needs 'table' and 'lengths'");
    auto table = counter.factFor(tableName.getValue(), func.getLoc());
    if (!table)
      return table.takeError();
    auto lengths = counter.factFor(lengthsName.getValue(), func.getLoc());
    if (!lengths)
      return lengths.takeError();
    if (table->shape.size() != 2 ||
        table->shape[0] != static_cast<int64_t>(lengths->values.size()))
      return makeLocatedError(func.getLoc(),
                              kPass + "block table and lengths of '" +
                                  arg.name + "' disagree on the batch size");
    int64_t pageTokens = shape[1], width = table->shape[1];
    for (size_t b = 0; b < lengths->values.size(); ++b) {
      int64_t length = lengths->values[b];
      int64_t pages = pageTokens ? (length + pageTokens - 1) / pageTokens : 0;
      if (length < 0 || pages > width)
        return makeLocatedError(
            func.getLoc(),
            kPass + "context length " + llvm::Twine(length) + " of sequence " +
                llvm::Twine(b) + " needs " + llvm::Twine(pages) +
                " pages but the block table has " + llvm::Twine(width));
      for (int64_t p = 0; p < pages; ++p)
        if (auto err = checkRow(table->values[b * width + p]))
          return err;
    }
  } else if (kind.getValue() == access::kGroups) {
    // Dimension 0 is the group axis; group e owns rows [ends[e-1], ends[e])
    // (ends[-1] = 0) and is read when it owns at least one row.
    auto endsName = accessAttr.getAs<StringAttr>("ends");
    if (!endsName)
      return makeLocatedError(func.getLoc(), kPass +
                                                 "atrex.access 'groups' of '" +
                                                 arg.name + "' needs 'ends'");
    auto ends = counter.factFor(endsName.getValue(), func.getLoc());
    if (!ends)
      return ends.takeError();
    auto factError = [&](const llvm::Twine &what) {
      return makeLocatedError(
          func.getLoc(), kPass + "fact '" + endsName.getValue() + "' " + what);
    };
    if (static_cast<int64_t>(ends->values.size()) != units)
      return factError("has " + llvm::Twine(ends->values.size()) +
                       " group ends for the " + llvm::Twine(units) +
                       " groups of '" + arg.name + "' (its dimension 0)");
    int64_t previous = 0;
    for (int64_t e = 0; e < units; ++e) {
      int64_t end = ends->values[e];
      if (end < 0)
        return factError("holds " + llvm::Twine(end) + " at group " +
                         llvm::Twine(e) + ": group ends must be non-negative");
      if (end < previous)
        return factError("decreases at group " + llvm::Twine(e) + " (" +
                         llvm::Twine(previous) + " to " + llvm::Twine(end) +
                         "): group ends must be non-decreasing");
      if (end > previous)
        if (auto err = checkRow(e))
          return err;
      previous = end;
    }
    // With `rows`, every row of that argument's dimension 0 is in a group.
    if (auto rowsName = accessAttr.getAs<StringAttr>("rows")) {
      std::optional<int64_t> rowCount;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        auto name = func.getArgAttrOfType<StringAttr>(i, "atrex.name");
        auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
        if (name && name.getValue() == rowsName.getValue() && type &&
            type.getRank() >= 1 && !type.isDynamicDim(0))
          rowCount = type.getDimSize(0);
      }
      if (!rowCount)
        return makeLocatedError(
            func.getLoc(), kPass + "atrex.access 'groups' of '" + arg.name +
                               "': 'rows' names '" + rowsName.getValue() +
                               "', which is no tensor argument of static "
                               "dimension 0");
      if (previous != *rowCount)
        return factError("ends at " + llvm::Twine(previous) + " but '" +
                         rowsName.getValue() + "' has " +
                         llvm::Twine(*rowCount) +
                         " rows: the last group end must equal the row "
                         "count");
    }
  } else {
    return makeLocatedError(func.getLoc(), kPass +
                                               "unknown atrex.access kind '" +
                                               kind.getValue() + "'");
  }
  arg.access = kind.str();
  arg.bytes = rows.size() * rowBytes;
  return arg;
}
} // namespace

llvm::Expected<SemanticWork> countSemanticWork(func::FuncOp func,
                                               const Facts &facts) {
  SemanticWork work;
  auto op = func->getAttrOfType<StringAttr>("atrex.operator");
  work.operatorName = op ? op.str() : func.getSymName().str();
  if (auto shape = func->getAttrOfType<DictionaryAttr>("atrex.shape"))
    for (NamedAttribute entry : shape)
      if (auto value = dyn_cast<IntegerAttr>(entry.getValue()))
        work.shape[entry.getName().str()] = value.getInt();
  if (func.isExternal())
    return makeLocatedError(func.getLoc(),
                            kPass + "'" + func.getSymName() + "' has no body");
  Counter counter(func, facts, work);
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto arg = argumentBytes(func, i, false, counter);
    if (!arg)
      return arg.takeError();
    work.bytesRead += arg->bytes;
    work.arguments.push_back(*arg);
  }
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    auto arg = argumentBytes(func, i, true, counter);
    if (!arg)
      return arg.takeError();
    work.bytesWritten += arg->bytes;
    work.arguments.push_back(*arg);
  }
  if (auto err = counter.countBlock(func.getBody().front(), 1))
    return std::move(err);
  return work;
}

llvm::json::Value toJSON(const SemanticWork &work) {
  llvm::json::Object flops;
  for (const auto &engine : work.flops) {
    llvm::json::Object dtypes;
    for (const auto &dtype : engine.second)
      dtypes[dtype.first] = static_cast<int64_t>(dtype.second);
    flops[engine.first] = std::move(dtypes);
  }
  flops["total"] = static_cast<int64_t>(work.totalFlops());
  llvm::json::Object special;
  for (const auto &fn : work.special)
    special[fn.first] = static_cast<int64_t>(fn.second);
  llvm::json::Object shape;
  for (const auto &dim : work.shape)
    shape[dim.first] = dim.second;
  llvm::json::Array arguments;
  for (const ArgumentBytes &arg : work.arguments)
    arguments.push_back(
        llvm::json::Object{{"name", arg.name},
                           {"role", arg.role},
                           {"dtype", arg.dtype},
                           {"bytes", static_cast<int64_t>(arg.bytes)},
                           {"access", arg.access}});
  return llvm::json::Object{
      {"operator", work.operatorName},
      {"shape", std::move(shape)},
      {"flops", std::move(flops)},
      {"special", std::move(special)},
      {"bytes",
       llvm::json::Object{{"read", static_cast<int64_t>(work.bytesRead)},
                          {"write", static_cast<int64_t>(work.bytesWritten)},
                          {"total", static_cast<int64_t>(work.totalBytes())},
                          {"arguments", std::move(arguments)}}}};
}

DictionaryAttr toAttribute(MLIRContext *ctx, const SemanticWork &work) {
  Builder b(ctx);
  auto i64 = [&](uint64_t value) {
    return b.getI64IntegerAttr(static_cast<int64_t>(value));
  };
  SmallVector<NamedAttribute> engines;
  for (const auto &engine : work.flops) {
    SmallVector<NamedAttribute> dtypes;
    for (const auto &dtype : engine.second)
      dtypes.push_back(b.getNamedAttr(dtype.first, i64(dtype.second)));
    engines.push_back(
        b.getNamedAttr(engine.first, b.getDictionaryAttr(dtypes)));
  }
  SmallVector<NamedAttribute> special;
  for (const auto &fn : work.special)
    special.push_back(b.getNamedAttr(fn.first, i64(fn.second)));
  return b.getDictionaryAttr(
      {b.getNamedAttr("flops", b.getDictionaryAttr(engines)),
       b.getNamedAttr("special", b.getDictionaryAttr(special)),
       b.getNamedAttr("bytes",
                      b.getDictionaryAttr(
                          {b.getNamedAttr("read", i64(work.bytesRead)),
                           b.getNamedAttr("write", i64(work.bytesWritten)),
                           b.getNamedAttr("total", i64(work.totalBytes()))}))});
}

namespace {
struct SemanticWorkPass : public impl::AtrexSemanticWorkBase<SemanticWorkPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Facts facts;
    if (!factsFile.empty()) {
      auto loaded = Facts::fromFile(factsFile);
      if (!loaded) {
        module.emitError() << kPass << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      facts = std::move(*loaded);
    }
    llvm::json::Array results;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr("atrex.operator"))
        continue;
      auto work = countSemanticWork(func, facts);
      if (!work) {
        emitErrorAsDiagnostic(work.takeError(), func.getLoc());
        return signalPassFailure();
      }
      func->setAttr("atrex.work", toAttribute(&getContext(), *work));
      results.push_back(toJSON(*work));
    }
    if (jsonOutput.empty())
      return;
    if (llvm::Error err =
            writeJSONFile(jsonOutput, llvm::json::Value(std::move(results)))) {
      module.emitError() << kPass << llvm::toString(std::move(err));
      return signalPassFailure();
    }
  }
};
} // namespace

} // namespace atrex

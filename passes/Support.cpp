//===- Support.cpp - errors, dimension expressions, facts -----------------===//

#include "atrex/Passes/SemanticWork.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace atrex {

char LocatedError::ID = 0;

void LocatedError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code LocatedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error makeLocatedError(Location loc, const llvm::Twine &message) {
  return llvm::make_error<LocatedError>(loc, message.str());
}

void emitErrorAsDiagnostic(llvm::Error err, Location fallback) {
  llvm::handleAllErrors(
      std::move(err),
      [&](const LocatedError &e) {
        mlir::emitError(e.getLocation()) << e.getMessage();
      },
      [&](const llvm::ErrorInfoBase &e) {
        mlir::emitError(fallback) << e.message();
      });
}

std::string dtypeName(Type type) {
  if (type.isF64())
    return "f64";
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  if (type.isInteger(1))
    return "bool";
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.isUnsigned() && intType.getWidth() == 8)
      return "u8";
    return "i" + std::to_string(intType.getWidth());
  }
  if (type.isIndex())
    return "index";
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Dimension expressions
//===----------------------------------------------------------------------===//

namespace {
/// Recursive-descent evaluator for dimension expressions. With `symbols`
/// set, it only collects symbol names and evaluates them as 1.
class DimExprParser {
public:
  DimExprParser(llvm::StringRef text, const llvm::StringMap<int64_t> *dims,
                llvm::SmallVectorImpl<std::string> *symbols)
      : text(text), dims(dims), symbols(symbols) {}

  llvm::Expected<int64_t> parse() {
    auto value = parseSum();
    if (!value)
      return value.takeError();
    skipSpace();
    if (pos != text.size())
      return error("unexpected '" + text.substr(pos, 1) + "'");
    return *value;
  }

private:
  llvm::Error error(const llvm::Twine &message) {
    return llvm::createStringError("invalid dimension expression '" + text +
                                   "': " + message);
  }
  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  llvm::Expected<int64_t> parseSum() {
    auto lhs = parseProduct();
    if (!lhs)
      return lhs;
    int64_t value = *lhs;
    while (true) {
      if (consume('+')) {
        auto rhs = parseProduct();
        if (!rhs)
          return rhs;
        value += *rhs;
      } else if (consume('-')) {
        auto rhs = parseProduct();
        if (!rhs)
          return rhs;
        value -= *rhs;
      } else {
        return value;
      }
    }
  }

  llvm::Expected<int64_t> parseProduct() {
    auto lhs = parseAtom();
    if (!lhs)
      return lhs;
    int64_t value = *lhs;
    while (true) {
      if (consume('*')) {
        auto rhs = parseAtom();
        if (!rhs)
          return rhs;
        value *= *rhs;
      } else if (consume('/')) {
        auto rhs = parseAtom();
        if (!rhs)
          return rhs;
        if (symbols)
          continue;
        if (*rhs == 0 || value % *rhs != 0)
          return error(llvm::Twine(value) + " is not divisible by " +
                       llvm::Twine(*rhs));
        value /= *rhs;
      } else {
        return value;
      }
    }
  }

  llvm::Expected<int64_t> parseAtom() {
    skipSpace();
    if (consume('(')) {
      auto value = parseSum();
      if (!value)
        return value;
      if (!consume(')'))
        return error("missing ')'");
      return value;
    }
    size_t start = pos;
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.substr(start, pos - start).getAsInteger(10, value))
        return error("integer out of range");
      return value;
    }
    while (pos < text.size() &&
           (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    if (start == pos)
      return error(pos < text.size() ? "unexpected '" + text.substr(pos, 1) + "'"
                                     : llvm::Twine("unexpected end"));
    llvm::StringRef name = text.substr(start, pos - start);
    if (symbols) {
      symbols->push_back(name.str());
      return 1;
    }
    auto it = dims->find(name);
    if (it == dims->end())
      return llvm::createStringError("dimension '" + name + "' is not bound");
    return it->second;
  }

  llvm::StringRef text;
  size_t pos = 0;
  const llvm::StringMap<int64_t> *dims;
  llvm::SmallVectorImpl<std::string> *symbols;
};
} // namespace

llvm::Expected<int64_t> evaluateDimExpr(llvm::StringRef expr,
                                        const llvm::StringMap<int64_t> &dims) {
  return DimExprParser(expr, &dims, nullptr).parse();
}

llvm::Error collectDimSymbols(llvm::StringRef expr,
                              llvm::SmallVectorImpl<std::string> &symbols) {
  auto result = DimExprParser(expr, nullptr, &symbols).parse();
  if (!result)
    return result.takeError();
  return llvm::Error::success();
}

llvm::Expected<llvm::StringMap<int64_t>>
parseDimBindings(llvm::ArrayRef<std::string> bindings) {
  llvm::StringMap<int64_t> dims;
  for (llvm::StringRef binding : bindings) {
    auto [name, value] = binding.split('=');
    name = name.trim();
    value = value.trim();
    int64_t number;
    if (name.empty() || value.getAsInteger(10, number) || number < 0)
      return llvm::createStringError(
          "invalid binding '" + binding +
          "': expected NAME=VALUE with a non-negative integer");
    if (!dims.try_emplace(name, number).second)
      return llvm::createStringError("dimension '" + name +
                                     "' is bound twice");
  }
  return dims;
}

//===----------------------------------------------------------------------===//
// Facts
//===----------------------------------------------------------------------===//

llvm::Expected<Facts> Facts::fromJSON(llvm::StringRef text) {
  auto value = llvm::json::parse(text);
  if (!value)
    return llvm::createStringError("facts are not valid JSON: " +
                                   llvm::toString(value.takeError()));
  auto *object = value->getAsObject();
  if (!object)
    return llvm::createStringError("facts must be a JSON object");
  Facts facts;
  for (auto &entry : *object)
    facts.raw.try_emplace(entry.first.str(), entry.second);
  return facts;
}

llvm::Expected<Facts> Facts::fromFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read facts file '" + path +
                                   "': " + buffer.getError().message());
  auto facts = fromJSON((*buffer)->getBuffer());
  if (!facts)
    return llvm::createStringError("facts file '" + path + "': " +
                                   llvm::toString(facts.takeError()));
  return facts;
}

static llvm::Error flatten(const llvm::json::Value &value,
                           llvm::ArrayRef<int64_t> shape,
                           std::vector<int64_t> &out, llvm::StringRef name) {
  if (shape.empty()) {
    auto number = value.getAsInteger();
    if (!number)
      return llvm::createStringError("fact '" + name +
                                     "' holds a non-integer element");
    out.push_back(*number);
    return llvm::Error::success();
  }
  auto *array = value.getAsArray();
  if (!array || static_cast<int64_t>(array->size()) != shape.front())
    return llvm::createStringError(
        "fact '" + name + "' does not match the argument's shape: expected " +
        llvm::Twine(shape.front()) + " elements along a dimension");
  for (const auto &element : *array)
    if (auto err = flatten(element, shape.drop_front(), out, name))
      return err;
  return llvm::Error::success();
}

llvm::Expected<Fact> Facts::get(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> shape) const {
  auto it = raw.find(name);
  if (it == raw.end())
    return llvm::createStringError("missing fact '" + name + "'");
  Fact fact;
  fact.shape.assign(shape.begin(), shape.end());
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  const llvm::json::Value &value = it->second;
  if (const auto *object = value.getAsObject()) {
    if (auto fill = object->getInteger("fill")) {
      fact.values.assign(count, *fill);
      return fact;
    }
    if (const auto *iota = object->getObject("iota")) {
      int64_t start = iota->getInteger("start").value_or(0);
      std::optional<int64_t> mod = iota->getInteger("mod");
      if (mod && *mod <= 0)
        return llvm::createStringError("fact '" + name +
                                       "': iota mod must be positive");
      for (int64_t i = 0; i < count; ++i)
        fact.values.push_back(mod ? (start + i) % *mod : start + i);
      return fact;
    }
    return llvm::createStringError(
        "fact '" + name +
        "': expected an array, {\"fill\": V} or {\"iota\": {...}}");
  }
  if (auto err = flatten(value, shape, fact.values, name))
    return std::move(err);
  return fact;
}

} // namespace atrex

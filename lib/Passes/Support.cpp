//===- Support.cpp - errors, dimension expressions, facts -----------------===//

#include "atrex/Passes/SemanticWork.h"
#include "atrex/Support/Expr.h"
#include "atrex/Support/JSON.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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

llvm::Expected<int64_t> evaluateDimExpr(llvm::StringRef expr,
                                        const llvm::StringMap<int64_t> &dims) {
  return expr::evaluate(expr, expr::DimGrammar,
                        [&](llvm::StringRef name) -> llvm::Expected<int64_t> {
                          auto it = dims.find(name);
                          if (it == dims.end())
                            return llvm::createStringError(
                                "dimension '" + name + "' is not bound");
                          return it->second;
                        });
}

llvm::Error collectDimSymbols(llvm::StringRef expr,
                              llvm::SmallVectorImpl<std::string> &symbols) {
  return expr::collectNames(expr, expr::DimGrammar, symbols);
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
      return llvm::createStringError("dimension '" + name + "' is bound twice");
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

llvm::Expected<llvm::json::Value> readTensorDirIndex(llvm::StringRef dir) {
  llvm::SmallString<256> index(dir);
  llvm::sys::path::append(index, "tensors.json");
  auto buffer = llvm::MemoryBuffer::getFile(index);
  if (!buffer)
    return llvm::createStringError("cannot read '" + index +
                                   "': " + buffer.getError().message());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("'" + index + "' is not valid JSON: " +
                                   llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || !root->getArray("tensors"))
    return llvm::createStringError("'" + index + "' has no \"tensors\" array");
  return std::move(*json);
}

/// Loads the integer input tensors of a tensor directory as facts.
static llvm::Error factsFromTensorDir(llvm::StringRef dir,
                                      llvm::StringMap<Fact> &out) {
  llvm::Expected<llvm::json::Value> json = readTensorDirIndex(dir);
  if (!json)
    return json.takeError();
  llvm::SmallString<256> index(dir); // for messages
  llvm::sys::path::append(index, "tensors.json");
  const llvm::json::Array *list = json->getAsObject()->getArray("tensors");
  for (const llvm::json::Value &entry : *list) {
    const llvm::json::Object *t = entry.getAsObject();
    auto name = t ? t->getString("name") : std::nullopt;
    auto role = t ? t->getString("role") : std::nullopt;
    auto dtype = t ? t->getString("dtype") : std::nullopt;
    auto file = t ? t->getString("file") : std::nullopt;
    const llvm::json::Array *shape = t ? t->getArray("shape") : nullptr;
    if (!name || !role || !dtype || !file || !shape)
      return llvm::createStringError("'" + index + "': malformed tensor entry");
    unsigned width = llvm::StringSwitch<unsigned>(*dtype)
                         .Case("i64", 8)
                         .Case("i32", 4)
                         .Case("i16", 2)
                         .Cases({"i8", "u8", "bool"}, 1)
                         .Default(0);
    if (*role != "input" || width == 0)
      continue;
    Fact fact;
    int64_t count = 1;
    for (const llvm::json::Value &dim : *shape) {
      auto size = getInteger(dim);
      if (!size || *size < 0)
        return llvm::createStringError("'" + index + "': tensor '" + *name +
                                       "' has a bad shape");
      fact.shape.push_back(*size);
      count *= *size;
    }
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, *file);
    auto data = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!data)
      return llvm::createStringError("cannot read '" + path +
                                     "': " + data.getError().message());
    if ((*data)->getBufferSize() != static_cast<size_t>(count) * width)
      return llvm::createStringError(
          "'" + path + "' has " + llvm::Twine((*data)->getBufferSize()) +
          " bytes for " + llvm::Twine(count) + " elements of " + *dtype);
    const char *bytes = (*data)->getBufferStart();
    for (int64_t i = 0; i < count; ++i) {
      const char *p = bytes + i * width;
      int64_t value = 0;
      if (*dtype == "i64")
        value = llvm::support::endian::read64le(p);
      else if (*dtype == "i32")
        value = static_cast<int32_t>(llvm::support::endian::read32le(p));
      else if (*dtype == "i16")
        value = static_cast<int16_t>(llvm::support::endian::read16le(p));
      else if (*dtype == "i8")
        value = static_cast<int8_t>(*p);
      else
        value = static_cast<uint8_t>(*p);
      fact.values.push_back(value);
    }
    out[*name] = std::move(fact);
  }
  return llvm::Error::success();
}

llvm::Expected<Facts> Facts::fromFile(llvm::StringRef path) {
  if (llvm::sys::fs::is_directory(path)) {
    Facts facts;
    if (auto err = factsFromTensorDir(path, facts.tensors))
      return std::move(err);
    return facts;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read facts file '" + path +
                                   "': " + buffer.getError().message());
  auto facts = fromJSON((*buffer)->getBuffer());
  if (!facts)
    return llvm::createStringError("facts file '" + path +
                                   "': " + llvm::toString(facts.takeError()));
  return facts;
}

static llvm::Error flatten(const llvm::json::Value &value,
                           llvm::ArrayRef<int64_t> shape,
                           std::vector<int64_t> &out, llvm::StringRef name) {
  if (shape.empty()) {
    auto number = getInteger(value);
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
  auto tensor = tensors.find(name);
  if (tensor != tensors.end()) {
    if (!llvm::equal(tensor->second.shape, shape))
      return llvm::createStringError("fact '" + name +
                                     "' does not match the argument's shape");
    return tensor->second;
  }
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
    if (auto fill = getInteger(*object, "fill")) {
      fact.values.assign(count, *fill);
      return fact;
    }
    if (const auto *iota = object->getObject("iota")) {
      int64_t start = getInteger(*iota, "start").value_or(0);
      std::optional<int64_t> mod = getInteger(*iota, "mod");
      if (mod && *mod <= 0)
        return llvm::createStringError("fact '" + name +
                                       "': iota mod must be positive");
      if (count > 0 && !llvm::checkedAdd(start, count - 1))
        return llvm::createStringError("fact '" + name +
                                       "': iota start overflows 64 bits");
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

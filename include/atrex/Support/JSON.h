//===- JSON.h - integers of llvm::json values, without UB ------*- C++ -*-===//
//
// Part of atrex. llvm::json::Value::getAsInteger converts a double to
// int64_t after checking D <= double(INT64_MAX), which is 2^63: the double
// 9223372036854775808.0 (or 9.223372036854775807e18) is converted out of
// range, an undefined conversion (found by fuzzing, docs/fuzzing.md).
// getInteger below returns std::nullopt for it instead.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_JSON_H
#define ATREX_SUPPORT_JSON_H

#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>

namespace atrex {

/// The value as an int64_t: an integer, or an integral double inside
/// [-2^63, 2^63); std::nullopt otherwise.
inline std::optional<int64_t> getInteger(const llvm::json::Value &V) {
  std::optional<double> D = V.getAsNumber();
  if (!D)
    return std::nullopt;
  if (*D >= -0x1p63 && *D < 0x1p63)
    return V.getAsInteger(); // integers, and doubles in range
  // Only an integer type can be at 2^63 here (INT64_MAX rounds to it as a
  // double); getAsUINT64 is empty for doubles.
  if (V.getAsUINT64())
    return V.getAsInteger();
  return std::nullopt;
}

/// The member \p Key of \p O as an int64_t (see getInteger).
inline std::optional<int64_t> getInteger(const llvm::json::Object &O,
                                         llvm::StringRef Key) {
  const llvm::json::Value *V = O.get(Key);
  return V ? getInteger(*V) : std::nullopt;
}

} // namespace atrex

#endif // ATREX_SUPPORT_JSON_H

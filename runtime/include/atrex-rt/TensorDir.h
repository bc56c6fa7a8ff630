//===- TensorDir.h - The tensor directory format ----------------*- C++ -*-===//
//
// Reads and writes docs/formats/tensor-dir.md: a folder with tensors.json and
// one raw little-endian row-major file per tensor. No libtorch here, so the
// comparison side (atrex-ref --check, the gate's parent) stays light.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_TENSORDIR_H
#define ATREX_RT_TENSORDIR_H

#include "atrex-rt/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace atrex::rt {

enum class DType {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3,
  F8E5M2,
  I64,
  I32,
  I16,
  I8,
  U8,
  Bool
};

const char *dtypeName(DType dtype);
std::optional<DType> parseDType(const std::string &name);
size_t dtypeSize(DType dtype);
bool isFloating(DType dtype);

// Scalar element conversions used by the comparison code.
double decodeBF16(uint16_t bits);
double decodeF16(uint16_t bits);
double decodeF8E4M3(uint8_t bits); // e4m3fn: no infinities, 0x7f/0xff are NaN
double decodeF8E5M2(uint8_t bits);

struct RawTensor {
  std::string name;
  std::string role; // "input" or "output"
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  // For outputs that the entry point writes in place into an input argument:
  // the name of that input (extension of the format, see tensor-dir.md).
  std::string alias;

  int64_t numel() const;
  size_t byteSize() const {
    return static_cast<size_t>(numel()) * dtypeSize(dtype);
  }
  // All elements as doubles (exact for every dtype except i64 beyond 2^53).
  std::vector<double> toDoubles() const;
};

struct TensorDir {
  std::string op;
  Json shape = Json::object();
  int64_t seed = 0;
  std::vector<RawTensor> tensors;

  const RawTensor *find(const std::string &name) const;
};

// Throws std::runtime_error naming the directory/file on any inconsistency
// (missing file, size mismatch, unknown dtype, bad role, duplicate name).
TensorDir readTensorDir(const std::string &dir);
// Creates `dir` if needed and writes tensors.json plus <name>.bin per tensor.
void writeTensorDir(const std::string &dir, const TensorDir &td);

std::string shapeToString(const std::vector<int64_t> &shape);

} // namespace atrex::rt

#endif // ATREX_RT_TENSORDIR_H

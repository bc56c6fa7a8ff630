//===- Roofline.h - hardware table and roofline times -----------*- C++ -*-===//
//
// The hardware table (hw/gpus.json, documented in docs/hardware-table.md)
// and T_roofline = max(max_e sum_d FLOPs_e,d / peak_e,d, bytes / bandwidth):
// the matrix and vector engines run concurrently (see docs/roofline.md for
// the H200 measurement that rules out summing over engines).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TOOLS_ROOFLINE_H
#define ATREX_TOOLS_ROOFLINE_H

#include "atrex/Passes/SemanticWork.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex {

/// One set of ceilings: datasheet (impossibility floor) or measured (score
/// ceiling). Peaks in FLOP/s, bandwidth in bytes/s.
struct Ceilings {
  double bandwidth = 0;
  /// engine ("matrix"/"vector") -> table dtype ("bf16", "fp8", ...) -> FLOP/s.
  std::map<std::string, std::map<std::string, double>> peaks;
  std::string source;
};

struct GpuSpec {
  std::string name;
  std::string fullName;
  Ceilings datasheet;
  std::optional<Ceilings> measured;
};

/// Parses the hardware table.
llvm::Expected<std::vector<GpuSpec>> loadHardwareTable(llvm::StringRef path);

/// The table dtype of a counted dtype: f8e4m3/f8e5m2 -> fp8, f16 -> fp16,
/// f32 -> fp32, f64 -> fp64, i8 -> int8, bf16 -> bf16.
std::string tableDtype(llvm::StringRef countedDtype);

struct RooflineTime {
  double computeSeconds = 0;
  double memorySeconds = 0;
  double seconds() const { return std::max(computeSeconds, memorySeconds); }
  bool memoryBound() const { return memorySeconds >= computeSeconds; }
};

/// T_roofline of `work` under `ceilings`. A matrix dtype without a matrix
/// peak (fp32 on NVIDIA) uses the vector peak of that dtype; a vector dtype
/// without a vector peak (bf16 on AMD) uses the vector fp32 peak. Special
/// functions are not part of the time.
llvm::Expected<RooflineTime> rooflineTime(const SemanticWork &work,
                                          const Ceilings &ceilings,
                                          llvm::StringRef gpu);

} // namespace atrex

#endif // ATREX_TOOLS_ROOFLINE_H

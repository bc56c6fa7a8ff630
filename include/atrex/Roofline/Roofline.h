//===- Roofline.h - hardware table and roofline times -----------*- C++ -*-===//
//
// Part of atrex. The hardware table (hw/gpus.json, documented in
// docs/hardware-table.md) and T_roofline = max(max_e sum_d FLOPs_e,d /
// peak_e,d, bytes / bandwidth, T_floor) (T_floor: the measured latency floor, 0
// for datasheet ceilings): the matrix and vector engines run concurrently (see
// docs/roofline.md for the H200 measurement that rules out summing over
// engines).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_ROOFLINE_ROOFLINE_H
#define ATREX_ROOFLINE_ROOFLINE_H

#include "atrex/Passes/SemanticWork.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex {

/// One set of ceilings: datasheet (impossibility floor) or measured (score
/// ceiling). Peaks in FLOP/s, bandwidth in bytes/s.
struct Ceilings {
  double bandwidth = 0;
  /// The latency floor: the shortest time the gate measures for a trivial
  /// kernel on this GPU, in its own timing mode (`floor_us` in the table;
  /// measured ceilings only, 0 where not measured). docs/roofline.md.
  double floorSeconds = 0;
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
  double floorSeconds = 0; ///< the ceilings' latency floor
  /// T_roofline = max(T_compute, T_memory, T_floor).
  double seconds() const { return std::max(noFloorSeconds(), floorSeconds); }
  /// max(T_compute, T_memory): the roofline without the latency floor.
  double noFloorSeconds() const {
    return std::max(computeSeconds, memorySeconds);
  }
  bool memoryBound() const { return memorySeconds >= computeSeconds; }
  /// The latency floor decides T_roofline (the work alone would take less).
  bool floorBound() const { return floorSeconds > noFloorSeconds(); }
};

/// T_roofline of `work` under `ceilings`. A matrix dtype without a matrix
/// peak (fp32 on NVIDIA) uses the vector peak of that dtype; a vector dtype
/// without a vector peak (bf16 on AMD) uses the vector fp32 peak. Special
/// functions are not part of the time.
llvm::Expected<RooflineTime> rooflineTime(const SemanticWork &work,
                                          const Ceilings &ceilings,
                                          llvm::StringRef gpu);

/// The roofline of one problem on one GPU under both ceilings of the table.
struct ProblemRoofline {
  std::string Gpu;
  RooflineTime Datasheet;
  std::optional<RooflineTime> Measured;
  uint64_t FlopsTotal = 0;
  uint64_t Bytes = 0;

  /// The score ceiling: measured where the GPU has a profile, else datasheet.
  const RooflineTime &primary() const {
    return Measured ? *Measured : Datasheet;
  }
  llvm::StringRef ceiling() const {
    return Measured ? "measured" : "datasheet";
  }
  double intensity() const {
    return Bytes ? static_cast<double>(FlopsTotal) / Bytes : 0.0;
  }
};

/// T_roofline of `Work` on `Gpu` under its datasheet and measured ceilings.
llvm::Expected<ProblemRoofline> computeRoofline(const SemanticWork &Work,
                                                const GpuSpec &Gpu);

/// The compact JSON form used by the sealed bundle (docs/release.md):
/// t_roofline_s, t_roofline_datasheet_s, t_roofline_measured_s (null without
/// a measured profile), ceiling, regime, regime_datasheet, intensity,
/// flops_total, bytes, t_compute_s, t_memory_s.
llvm::json::Object toJSON(const ProblemRoofline &R);

} // namespace atrex

#endif // ATREX_ROOFLINE_ROOFLINE_H

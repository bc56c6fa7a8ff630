//===- Protocol.h - Names shared by atrex-gate and its worker ----*- C++
//-*-===//
//
// The schema ids, statuses, stages, verdicts and worker-run kinds that the
// gate (parent) and atrex-gate-worker (child) exchange through the job
// document and the report lines, spelled once (docs/gate.md, "Result line").
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_PROTOCOL_H
#define ATREX_RT_PROTOCOL_H

#include <string>
#include <string_view>

namespace atrex::rt::protocol {

inline constexpr const char *kPlanSchema = "atrex-gate-plan/1";
inline constexpr const char *kResultSchema = "atrex-gate-result/1";
/// The job document the parent writes for one worker process: the run kind,
/// the submission and `units` (one or more of its problems, in order). Since
/// /2 (worker batches) the shape and the per-run options are per unit; stdin
/// carries one seed per unit, then the report key; every report line names
/// its "unit", and the line with "status" ends that unit (docs/gate.md,
/// "Worker batches").
inline constexpr const char *kJobSchema = "atrex-gate-job/2";

// Unit statuses.
inline constexpr const char *kPass = "pass";
inline constexpr const char *kFail = "fail";
inline constexpr const char *kError = "error";

// Stages, in order.
inline constexpr const char *kStageCompile = "compile";
inline constexpr const char *kStageSetup = "setup";
inline constexpr const char *kStageCorrectness = "correctness";
inline constexpr const char *kStagePerformance = "performance";
inline constexpr const char *kStageDone = "done";
/// Accepted in result lines for compatibility with results files written
/// before the attribution moved into the correctness and performance stages.
inline constexpr const char *kStageAttribution = "attribution";

// Dynamic verdicts.
inline constexpr const char *kAdopted = "adopted";
inline constexpr const char *kFallback = "fallback";
inline constexpr const char *kNoKernel = "no-kernel";
inline constexpr const char *kSuspicious = "suspicious";
inline constexpr const char *kUnknown = "unknown";

/// Every value each result field may take (the result validator's sets).
inline constexpr const char *kStatuses[] = {kPass, kFail, kError};
inline constexpr const char *kStages[] = {kStageCompile,     kStageSetup,
                                          kStageCorrectness, kStagePerformance,
                                          kStageDone,        kStageAttribution};
inline constexpr const char *kVerdicts[] = {kAdopted, kFallback, kNoKernel,
                                            kSuspicious, kUnknown};

// Worker runs (the job document's "run"): the attributed run (Compute
// Sanitizer subscription: the verdict), the clean timing run (no
// subscription, CUPTI: the time) and the memcheck run (correctness trials
// only, under compute-sanitizer).
inline constexpr const char *kRunAttributed = "attributed";
inline constexpr const char *kRunClean = "clean";
inline constexpr const char *kRunMemcheck = "memcheck";

// The worker's phase byte (<job>.phase): whose work the process is doing.
inline constexpr char kPhaseCandidate = 'c';
inline constexpr char kPhaseGate = 'g';

/// Whether \p arch is a compile target of a plan's settings.arch: sm_XY
/// with an optional arch-specific suffix (sm_90a, sm_100f), which the gate
/// turns into "-gencode arch=compute_XY[a|f],code=sm_XY[a|f]".
inline bool isCudaArch(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_")
    return false;
  arch.remove_prefix(3);
  size_t digits = 0;
  while (digits < arch.size() && arch[digits] >= '0' && arch[digits] <= '9')
    ++digits;
  std::string_view suffix = arch.substr(digits);
  return digits >= 2 && (suffix.empty() || suffix == "a" || suffix == "f");
}

/// The TORCH_CUDA_ARCH_LIST entry of a compile target that isCudaArch
/// accepts: sm_90 -> "9.0", sm_90a -> "9.0a", sm_100f -> "10.0f" (the last
/// digit is the minor version); "" for anything else.
inline std::string torchArchList(std::string_view arch) {
  if (!isCudaArch(arch))
    return "";
  arch.remove_prefix(3);
  size_t digits = arch.find_first_not_of("0123456789");
  if (digits == std::string_view::npos)
    digits = arch.size();
  return std::string(arch.substr(0, digits - 1)) + "." +
         std::string(arch.substr(digits - 1));
}

} // namespace atrex::rt::protocol

#endif // ATREX_RT_PROTOCOL_H

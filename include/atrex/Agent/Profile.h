//===- Profile.h - Nsight Compute profile and diagnosis ---------*- C++ -*-===//
//
// Part of atrex. A passing candidate is profiled by running Nsight Compute on
// the gate's one-problem plan, restricted to the candidate's own kernels
// (the names the gate's attribution gave, else the __global__ functions of
// its source), with a small metric set: duration, DRAM bytes and throughput,
// SM throughput, occupancy and its limiter, FP32 instruction counts, tensor-
// pipe use and warp stall reasons. The metrics and the problem's roofline
// give a structured diagnosis: the bottleneck, the evidence (metric = value
// lines), suggested directions and terms for the knowledge base. See
// docs/agent.md, "Profiling and diagnosis".
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_PROFILE_H
#define ATREX_AGENT_PROFILE_H

#include "atrex/Agent/Evaluate.h"
#include "atrex/Agent/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atrex::agent {

/// One kernel of the profile, its launches aggregated: `.sum` metrics
/// summed, every other metric averaged weighted by the launch's duration
/// (gpu__time_duration.sum; unweighted where a launch has none). Values in
/// base units (seconds, bytes, percent, counts).
struct KernelMetrics {
  std::string Name; ///< as ncu printed it (mangled under the attribution rule)
  unsigned Launches = 0;
  std::string BlockSize, GridSize; ///< of the first launch: "(256, 1, 1)"
  std::map<std::string, double> Metrics;

  std::optional<double> get(llvm::StringRef Metric) const;
};

/// One launch (a data row of ncu's raw CSV page).
struct NcuLaunch {
  unsigned Line = 0;
  std::string Kernel, BlockSize, GridSize;
  std::map<std::string, double> Metrics; ///< n/a and empty values left out
};

/// Parses ncu's `--csv --page raw` output: lines that are not CSV (==PROF==
/// lines, the application's output) are skipped; each header row ("ID",
/// ..., "Kernel Name", ..., metric names) is followed by its units row
/// (values converted to base units: nsecond/usecond/msecond/second,
/// byte/Kbyte/Mbyte/Gbyte, ...), then one row per launch. Thousands
/// separators are dropped; n/a is a missing value. Errors name \p FileName
/// and the line: an unterminated quote, a row whose field count differs from
/// its header's, a data row before any header, a metric value that is not a
/// number.
llvm::Expected<std::vector<NcuLaunch>> parseNcuCsv(llvm::StringRef Text,
                                                   llvm::StringRef FileName);

/// Groups launches by kernel name (first appearance order) and aggregates
/// them (KernelMetrics).
std::vector<KernelMetrics> aggregateLaunches(llvm::ArrayRef<NcuLaunch> L);

/// How the candidate's own kernels were told from the gate's and torch's.
namespace ownrule {
/// The own kernels the gate's attribution named (results.jsonl,
/// attribution.kernels[own]), matched by mangled name.
inline constexpr const char *kAttribution = "attribution";
/// The __global__ functions of the candidate's source, matched by function
/// name (attribution unavailable).
inline constexpr const char *kSource = "source";
/// Every kernel of a saved CSV (`atrex agent diagnose`), or those matching
/// its --kernel regex.
inline constexpr const char *kCsv = "csv";
} // namespace ownrule

struct Profile {
  std::string CsvFile;
  std::string Ncu;                  ///< the ncu that ran ("" for a saved CSV)
  std::vector<std::string> Command; ///< ncu's command line as run
  std::string OwnRule;              ///< ownrule::...
  std::vector<std::string> OwnNames;
  std::vector<KernelMetrics> Kernels; ///< own kernels, most time first
  std::vector<std::string> Ignored;   ///< other kernels in the CSV
  std::vector<std::string> Missing;   ///< metrics of the set no kernel had
  std::vector<std::string> Notes;     ///< e.g. ncu's exit status
};

/// The metrics asked of ncu on the GPU \p FullGpuName (the hardware
/// table's full_name; the wgmma pipe's metric only on Hopper GPUs).
std::vector<std::string> defaultMetrics(llvm::StringRef FullGpuName);

/// Names the bottleneck classes (the diagnosis's `bottleneck`), spelled
/// once.
namespace bottleneck {
inline constexpr const char *kLaunchLatency = "launch-latency";
inline constexpr const char *kTooManyKernels = "too-many-kernels";
inline constexpr const char *kTensorCores = "tensor-core-underused";
inline constexpr const char *kMemoryBandwidth = "memory-bandwidth";
inline constexpr const char *kCompute = "compute";
inline constexpr const char *kMemoryLatency = "memory-latency";
inline constexpr const char *kLatency = "latency";
inline constexpr const char *kUnclassified = "unclassified";
} // namespace bottleneck

/// The optimisation directions (Directions.def), spelled once: a
/// diagnosis's `directions`, a template's `atrex-direction`.
namespace direction {
#define ATREX_DIRECTION(ID, NAME, SUMMARY)                                     \
  inline constexpr const char *k##ID = NAME;
#include "atrex/Agent/Directions.def"
/// Whether \p Name is a direction of Directions.def.
bool isKnown(llvm::StringRef Name);
/// Its one-line summary ("" for an unknown name).
llvm::StringRef summary(llvm::StringRef Name);
/// Every direction's name, in the order of Directions.def.
std::vector<llvm::StringRef> all();
} // namespace direction

/// The numbers the diagnosis is made of (none where a metric is missing).
struct Measures {
  std::optional<double> TimePerCallS; ///< own kernels' time per call
  std::optional<double> GateMedianS;
  unsigned Kernels = 0, Launches = 0;
  std::optional<double> KernelsPerCall;
  std::optional<double> RooflineFraction; ///< T_roofline / time per call
  std::optional<double> DramBytesPerCall, SemanticBytes;
  std::optional<double> DramTbps, PeakTbps; ///< achieved; the ceiling's
  std::optional<double> DramPct, SmPct;     ///< of ncu's peaks
  std::optional<double> Tflops, PeakTflops; ///< semantic FLOPs per second
  std::optional<double> Fp32FlopsPerCall;   ///< executed FFMA x2 + FADD + FMUL
  std::optional<double> AchievedOccupancyPct, TheoreticalOccupancyPct;
  std::string OccupancyLimiter; ///< registers, shared_mem, blocks, warps
  std::optional<double> BlocksPerSm, RegistersPerThread, Waves;
  std::optional<double> TensorPipePct;
  std::optional<double> LoadBytesPerThread; ///< per global load instruction
  std::string DominantKernel;
  std::vector<std::pair<std::string, double>> Stalls; ///< cycles per issue,
                                                      ///< largest first
};

struct Diagnosis {
  std::string Bottleneck; ///< bottleneck::...
  bool NearRoofline = false;
  std::string Summary; ///< one line: "profile: ..."
  std::vector<std::string> Evidence;
  std::vector<std::string> Suggestions;
  /// The directions of the suggestions (direction::k...), in their order,
  /// each once: what the search backend moves knobs for.
  std::vector<std::string> Directions;
  std::vector<std::string> Secondary; ///< other classes that hold
  /// Terms for the knowledge base (KbQuery::Terms, `atrex agent kb query`).
  std::vector<std::string> KbTerms;
  Measures M;

  /// KbTerms joined by spaces.
  std::string query() const;
};

/// The thresholds of the classification (docs/agent.md).
struct Thresholds {
  double LaunchFloorFactor = 3;  ///< time per call < 3 x T_floor: launch
  double TinyKernelS = 5e-6;     ///< ... or < 5 us where T_floor is unknown
  double GapShare = 0.25;        ///< gate median beyond the kernels' time
  double SaturatedPct = 60;      ///< DRAM or SM throughput: saturated
  double NearPeakFraction = 0.8; ///< DRAM at 80% of the ceiling: near peak
  double NearRoofline = 0.9;     ///< within 10% of T_roofline
  double MatrixShare = 0.5;      ///< matrix FLOPs of the work: tensor cores
  double TensorIdlePct = 5;      ///< tensor pipe below this: unused
  double LowOccupancyPct = 50;   ///< theoretical occupancy below this
  double ExcessBytes = 1.25;     ///< DRAM bytes over the semantic bytes
  double VectorBytes = 16;       ///< bytes per thread of a 128-bit load
  double RedundantFlops = 1.5;   ///< executed FP32 FLOPs over semantic
};

/// Diagnoses the own kernels of \p Prof against \p P's roofline;
/// \p GateMedianUs: the gate's median of the same candidate, if known.
Diagnosis diagnose(const Problem &P, const Profile &Prof,
                   std::optional<double> GateMedianUs,
                   const Thresholds &T = Thresholds());

struct ProfileOptions {
  std::string Ncu; ///< the ncu to run (findNcu)
  std::string GatePath, GateWorker, GateCache;
  unsigned LaunchSkip = 1, LaunchCount = 4;
  std::vector<std::string> Metrics; ///< empty: defaultMetrics
  unsigned TimeoutS = 1800;
};

/// ncu: \p Given (--ncu), else $ATREX_NCU, else $CUDA_PATH/bin/ncu, else
/// /usr/local/cuda/bin/ncu, else PATH; "" when there is none. An error when
/// \p Given (or $ATREX_NCU) is not an executable.
llvm::Expected<std::string> findNcu(llvm::StringRef Given);

/// The own kernels of a gate result line (attribution.kernels with own:
/// true, timed region first), or the __global__ function names of
/// \p Source; the rule in \p Rule.
std::vector<std::string> ownKernelNames(llvm::StringRef ResultLine,
                                        llvm::StringRef Source,
                                        std::string &Rule);

/// Profiles the candidate \p E evaluated (its gate passed): writes
/// plan-profile.json (the plan with read_only_view, clean_timing, memcheck,
/// ghost_replay and clock_check off), runs ncu on atrex-gate with
/// ATREX_GATE_NO_ATTRIBUTION=1, its CSV to profile.csv (ncu's output to
/// profile.out/profile.err), and keeps the own kernels. Errors: no ncu, ncu
/// failed (ERR_NVGPUCTRPERM named as such), no own kernel profiled, a
/// malformed CSV.
llvm::Expected<Profile> profileCandidate(const Problem &P, const Evaluation &E,
                                         llvm::StringRef SourceFile,
                                         llvm::StringRef Dir,
                                         const ProfileOptions &O);

/// What the loop records of one iteration's profile.
struct ProfileRecord {
  std::optional<Profile> Prof;
  std::optional<Diagnosis> Diag;
  std::string Error; ///< the profile failed ("" otherwise)
  std::string ProfileFile, DiagnosisFile;
};

/// profileCandidate, then diagnose; writes profile.json and diagnosis.json
/// in \p Dir. A failure is recorded in Error, never returned.
ProfileRecord profileIteration(const Problem &P, const Evaluation &E,
                               llvm::StringRef SourceFile, llvm::StringRef Dir,
                               const ProfileOptions &O);

llvm::json::Object toJSON(const KernelMetrics &K);
llvm::json::Object toJSON(const Profile &P);
llvm::json::Object toJSON(const Measures &M);
llvm::json::Object toJSON(const Diagnosis &D);
/// The trail's `profile` key: {csv, profile, diagnosis_file, error,
/// diagnosis}.
llvm::json::Object toJSON(const ProfileRecord &R);
llvm::Expected<Profile> profileFromJSON(const llvm::json::Object &O);
llvm::Expected<Diagnosis> diagnosisFromJSON(const llvm::json::Object &O);

/// The diagnosis as text (the `profile` and `diagnose` commands).
std::string renderDiagnosis(const Diagnosis &D);

} // namespace atrex::agent

#endif // ATREX_AGENT_PROFILE_H

//===- Profile.cpp - Nsight Compute profile and diagnosis -----------------===//
//
// Part of atrex. See include/atrex/Agent/Profile.h and docs/agent.md,
// "Profiling and diagnosis".
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Profile.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Process.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace atrex::agent {

//===----------------------------------------------------------------------===//
// The metric set
//===----------------------------------------------------------------------===//

namespace metric {
constexpr const char *kDuration = "gpu__time_duration.sum";
constexpr const char *kDramRead = "dram__bytes_read.sum";
constexpr const char *kDramWrite = "dram__bytes_write.sum";
constexpr const char *kDramPct =
    "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char *kSmPct =
    "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char *kAchievedOcc =
    "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char *kTheoreticalOcc =
    "sm__maximum_warps_per_active_cycle_pct";
constexpr const char *kLimitPrefix = "launch__occupancy_limit_";
constexpr const char *kRegisters = "launch__registers_per_thread";
constexpr const char *kBlockSize = "launch__block_size";
constexpr const char *kGridSize = "launch__grid_size";
constexpr const char *kWaves = "launch__waves_per_multiprocessor";
constexpr const char *kFfma =
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
constexpr const char *kFadd =
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum";
constexpr const char *kFmul =
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum";
constexpr const char *kHmma =
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
// Hopper's tensor pipe counted with wgmma (hgmma: fp16/bf16, qgmma: fp8) as
// ncu 2025.3 names it on the H200 (`ncu --query-metrics`, 2026-12-04;
// there is no sm__pipe_tensor_op_gmma_cycles_active).
constexpr const char *kGmma = "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_"
                              "cycles_active.avg.pct_of_peak_sustained_active";
constexpr const char *kLoadBytes =
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum";
constexpr const char *kLoadInst = "smsp__sass_inst_executed_op_global_ld.sum";
constexpr const char *kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr const char *kStallSuffix = "_per_issue_active.ratio";
/// The occupancy limiters, in the order a tie is reported: the block size
/// (warps) and the CTA limit first, as they bind at full occupancy too.
constexpr const char *kLimiters[] = {"warps", "blocks", "registers",
                                     "shared_mem"};
/// The warp stall reasons asked for (WarpStateStats' per-issue ratios).
constexpr const char *kStalls[] = {"long_scoreboard",
                                   "short_scoreboard",
                                   "barrier",
                                   "mio_throttle",
                                   "lg_throttle",
                                   "math_pipe_throttle",
                                   "wait",
                                   "not_selected",
                                   "no_instruction",
                                   "membar",
                                   "branch_resolving",
                                   "dispatch_stall"};
} // namespace metric

static std::string stallMetric(StringRef Reason) {
  return (metric::kStallPrefix + Reason + metric::kStallSuffix).str();
}

std::vector<std::string> defaultMetrics(StringRef FullGpuName) {
  std::vector<std::string> M = {
      metric::kDuration,       metric::kDramRead,  metric::kDramWrite,
      metric::kDramPct,        metric::kSmPct,     metric::kAchievedOcc,
      metric::kTheoreticalOcc, metric::kRegisters, metric::kBlockSize,
      metric::kGridSize,       metric::kWaves,     metric::kFfma,
      metric::kFadd,           metric::kFmul,      metric::kHmma,
      metric::kLoadBytes,      metric::kLoadInst};
  for (const char *L : metric::kLimiters)
    M.push_back(std::string(metric::kLimitPrefix) + L);
  // wgmma's pipe exists on Hopper only (ncu rejects an unknown metric).
  if (FullGpuName.contains("Hopper"))
    M.push_back(metric::kGmma);
  for (const char *S : metric::kStalls)
    M.push_back(stallMetric(S));
  return M;
}

/// Metrics whose values must be numbers (a text there is a malformed CSV).
static const StringSet<> &knownMetrics() {
  static const StringSet<> Known = [] {
    StringSet<> S;
    for (const std::string &M : defaultMetrics("Hopper"))
      S.insert(M);
    return S;
  }();
  return Known;
}

std::optional<double> KernelMetrics::get(StringRef Metric) const {
  auto It = Metrics.find(Metric.str());
  if (It == Metrics.end())
    return std::nullopt;
  return It->second;
}

//===----------------------------------------------------------------------===//
// ncu's raw CSV page
//===----------------------------------------------------------------------===//

/// Splits one CSV line; "" inside a quoted field is a quote. Fails on an
/// unterminated quote or text after a closing quote.
static Expected<std::vector<std::string>> splitCsv(StringRef Line) {
  std::vector<std::string> Fields;
  size_t I = 0;
  while (true) {
    std::string F;
    if (I < Line.size() && Line[I] == '"') {
      ++I;
      bool Closed = false;
      while (I < Line.size()) {
        if (Line[I] == '"') {
          if (I + 1 < Line.size() && Line[I + 1] == '"') {
            F += '"';
            I += 2;
            continue;
          }
          Closed = true;
          ++I;
          break;
        }
        F += Line[I++];
      }
      if (!Closed)
        return createStringError("unterminated quoted field");
      if (I < Line.size() && Line[I] != ',')
        return createStringError("text after a quoted field");
    } else {
      while (I < Line.size() && Line[I] != ',')
        F += Line[I++];
    }
    Fields.push_back(std::move(F));
    if (I >= Line.size())
      break;
    ++I; // the comma
    if (I == Line.size()) {
      Fields.emplace_back();
      break;
    }
  }
  return Fields;
}

/// The factor from \p Unit to its base unit (seconds, bytes, bytes per
/// second); 1 for units without a prefix or unknown ones (%, cycle, ...).
static double unitScale(StringRef Unit) {
  auto Part = [](StringRef U) -> double {
    static const std::pair<StringRef, double> Table[] = {
        {"nsecond", 1e-9}, {"usecond", 1e-6}, {"msecond", 1e-3},
        {"second", 1},     {"ns", 1e-9},      {"us", 1e-6},
        {"ms", 1e-3},      {"byte", 1},       {"Kbyte", 1e3},
        {"Mbyte", 1e6},    {"Gbyte", 1e9},    {"Tbyte", 1e12},
        {"KB", 1e3},       {"MB", 1e6},       {"GB", 1e9},
        {"TB", 1e12}};
    for (const auto &[Name, F] : Table)
      if (U == Name)
        return F;
    return 0;
  };
  auto [Num, Den] = Unit.trim().split('/');
  double N = Part(Num);
  if (N == 0)
    return 1;
  if (Den.empty())
    return N;
  double D = Part(Den);
  return D == 0 ? 1 : N / D;
}

/// A metric value: thousands separators dropped; none for n/a or empty.
static Expected<std::optional<double>> metricValue(StringRef Text) {
  Text = Text.trim();
  if (Text.empty() || Text.equals_insensitive("n/a") || Text == "-")
    return std::nullopt;
  std::string Digits;
  for (char C : Text)
    if (C != ',')
      Digits += C;
  double V = 0;
  if (StringRef(Digits).getAsDouble(V) || !std::isfinite(V))
    return createStringError("'" + Text + "' is not a number");
  return V;
}

Expected<std::vector<NcuLaunch>> parseNcuCsv(StringRef Text,
                                             StringRef FileName) {
  std::vector<NcuLaunch> Out;
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  std::vector<std::string> Header, Units;
  unsigned HeaderLine = 0;
  bool ExpectUnits = false;
  int KernelCol = -1, BlockCol = -1, GridCol = -1;
  for (size_t N = 0; N < Lines.size(); ++N) {
    StringRef L = Lines[N].rtrim("\r");
    if (!L.starts_with("\""))
      continue; // ==PROF== lines, the application's own output
    unsigned LineNo = N + 1;
    auto Fail = [&](const Twine &Why) {
      return createStringError(FileName + ":" + Twine(LineNo) + ": " + Why);
    };
    auto Fields = splitCsv(L);
    if (!Fields)
      return Fail(toString(Fields.takeError()));
    if (Fields->front() == "ID") {
      Header = std::move(*Fields);
      HeaderLine = LineNo;
      Units.assign(Header.size(), "");
      ExpectUnits = true;
      KernelCol = BlockCol = GridCol = -1;
      for (size_t C = 0; C < Header.size(); ++C) {
        if (Header[C] == "Kernel Name")
          KernelCol = C;
        else if (Header[C] == "Block Size")
          BlockCol = C;
        else if (Header[C] == "Grid Size")
          GridCol = C;
      }
      if (KernelCol < 0)
        return Fail("ncu's header has no 'Kernel Name' column");
      continue;
    }
    if (Header.empty())
      return Fail("a CSV row before ncu's header (\"ID\",...,\"Kernel "
                  "Name\",...)");
    if (Fields->size() != Header.size())
      return Fail(formatv("{0} fields, the header (line {1}) has {2}",
                          Fields->size(), HeaderLine, Header.size()));
    if (ExpectUnits) {
      ExpectUnits = false;
      if (Fields->front().empty()) { // the units row
        Units = std::move(*Fields);
        continue;
      }
    }
    NcuLaunch R;
    R.Line = LineNo;
    R.Kernel = (*Fields)[KernelCol];
    if (BlockCol >= 0)
      R.BlockSize = (*Fields)[BlockCol];
    if (GridCol >= 0)
      R.GridSize = (*Fields)[GridCol];
    if (R.Kernel.empty())
      return Fail("a launch without a kernel name");
    for (size_t C = 0; C < Header.size(); ++C) {
      if (!StringRef(Header[C]).contains("__"))
        continue; // ID, Process Name, Kernel Name, ...: not metrics
      auto V = metricValue((*Fields)[C]);
      if (!V) {
        if (knownMetrics().contains(Header[C]))
          return Fail("column '" + Header[C] + "': " + toString(V.takeError()));
        consumeError(V.takeError()); // a text-valued metric nobody asked
        continue;
      }
      if (*V)
        R.Metrics[Header[C]] = **V * unitScale(Units[C]);
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

static bool isSumMetric(StringRef Name) { return Name.ends_with(".sum"); }

std::vector<KernelMetrics> aggregateLaunches(ArrayRef<NcuLaunch> Launches) {
  std::vector<KernelMetrics> Out;
  // Per kernel and metric: sum, and the weighted mean as the first value
  // plus the weighted mean of the differences (equal values stay exact).
  struct Acc {
    double Sum = 0, First = 0, WDiff = 0, W = 0;
  };
  std::vector<std::map<std::string, Acc>> Accs;
  for (const NcuLaunch &L : Launches) {
    auto It = llvm::find_if(
        Out, [&](const KernelMetrics &K) { return K.Name == L.Kernel; });
    size_t I = It - Out.begin();
    if (It == Out.end()) {
      KernelMetrics K;
      K.Name = L.Kernel;
      K.BlockSize = L.BlockSize;
      K.GridSize = L.GridSize;
      Out.push_back(std::move(K));
      Accs.emplace_back();
    }
    ++Out[I].Launches;
    auto D = L.Metrics.find(metric::kDuration);
    double W = D != L.Metrics.end() && D->second > 0 ? D->second : 1;
    for (const auto &[Name, V] : L.Metrics) {
      Acc &A = Accs[I][Name];
      if (A.W == 0)
        A.First = V;
      A.Sum += V;
      A.WDiff += (V - A.First) * W;
      A.W += W;
    }
  }
  for (size_t I = 0; I < Out.size(); ++I)
    for (const auto &[Name, A] : Accs[I])
      Out[I].Metrics[Name] =
          isSumMetric(Name) ? A.Sum : A.First + A.WDiff / A.W;
  return Out;
}

//===----------------------------------------------------------------------===//
// Own kernels
//===----------------------------------------------------------------------===//

/// The __global__ functions of a CUDA source (a scan, not a parse:
/// `__global__ [attributes] type name(`, __launch_bounds__(...) skipped).
static std::vector<std::string> globalFunctions(StringRef Source) {
  std::vector<std::string> Names;
  size_t Pos = 0;
  while ((Pos = Source.find("__global__", Pos)) != StringRef::npos) {
    Pos += strlen("__global__");
    size_t I = Pos;
    while (I < Source.size() && Source[I] != ';' && Source[I] != '{') {
      if (Source[I] != '(') {
        ++I;
        continue;
      }
      size_t End = I;
      while (End > Pos && isSpace(Source[End - 1]))
        --End;
      size_t Begin = End;
      while (Begin > Pos &&
             (isAlnum(Source[Begin - 1]) || Source[Begin - 1] == '_'))
        --Begin;
      StringRef Name = Source.slice(Begin, End);
      if (Name == "__launch_bounds__" || Name == "__attribute__" ||
          Name == "alignas" || Name.empty()) {
        // skip the parenthesised arguments
        int Depth = 0;
        for (; I < Source.size(); ++I) {
          if (Source[I] == '(')
            ++Depth;
          else if (Source[I] == ')' && --Depth == 0)
            break;
        }
        ++I;
        continue;
      }
      if (!is_contained(Names, Name))
        Names.push_back(Name.str());
      break;
    }
  }
  return Names;
}

std::vector<std::string> ownKernelNames(StringRef ResultLine, StringRef Source,
                                        std::string &Rule) {
  std::vector<std::string> Timed, Other;
  if (auto V = json::parse(ResultLine)) {
    const json::Object *O = V->getAsObject();
    const json::Object *A = O ? O->getObject("attribution") : nullptr;
    const json::Array *Ks = A ? A->getArray("kernels") : nullptr;
    if (Ks)
      for (const json::Value &KV : *Ks) {
        const json::Object *K = KV.getAsObject();
        if (!K || !K->getBoolean("own").value_or(false))
          continue;
        auto Name = K->getString("name");
        if (!Name || Name->empty())
          continue;
        auto &List = K->getString("region") == "timed" ? Timed : Other;
        if (!is_contained(Timed, *Name) && !is_contained(Other, *Name))
          List.push_back(Name->str());
      }
  } else {
    consumeError(V.takeError());
  }
  llvm::append_range(Timed, Other);
  if (!Timed.empty()) {
    Rule = ownrule::kAttribution;
    return Timed;
  }
  std::vector<std::string> Names = globalFunctions(Source);
  Rule = Names.empty() ? "" : ownrule::kSource;
  return Names;
}

/// Whether the CSV's kernel name \p Printed is one of \p Own: equal, or
/// the name followed by its template arguments or parameters.
static bool isOwn(StringRef Printed, ArrayRef<std::string> Own) {
  for (const std::string &N : Own)
    if (Printed == N || (Printed.starts_with(N) && (Printed[N.size()] == '<' ||
                                                    Printed[N.size()] == '(')))
      return true;
  return false;
}

static std::string regexEscape(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (StringRef("\\^$.|?*+()[]{}").contains(C))
      Out += '\\';
    Out += C;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Running ncu
//===----------------------------------------------------------------------===//

Expected<std::string> findNcu(StringRef Given) {
  auto Check = [](StringRef Path, StringRef What) -> Expected<std::string> {
    if (!sys::fs::can_execute(Path))
      return createStringError(What + " '" + Path +
                               "': not an executable (Nsight Compute's ncu)");
    return Path.str();
  };
  if (!Given.empty())
    return Check(Given, "--ncu");
  if (const char *V = std::getenv("ATREX_NCU"); V && *V)
    return Check(V, "ATREX_NCU");
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *V = std::getenv(Var); V && *V) {
      std::string P = (Twine(V) + "/bin/ncu").str();
      if (sys::fs::can_execute(P))
        return P;
    }
  if (sys::fs::can_execute("/usr/local/cuda/bin/ncu"))
    return std::string("/usr/local/cuda/bin/ncu");
  if (auto Found = sys::findProgramByName("ncu"))
    return *Found;
  return std::string();
}

/// The plan with the settings that stop ncu or add launches turned off: the
/// read-only view (ncu cannot reach a worker in it), the clean timing run,
/// memcheck, the ghost replay and the clock check.
static Error writeProfilePlan(StringRef PlanFile, StringRef Out) {
  auto Text = readFile(PlanFile);
  if (!Text)
    return Text.takeError();
  auto V = json::parse(*Text);
  if (!V)
    return createStringError(PlanFile +
                             ": not JSON: " + toString(V.takeError()));
  json::Object *O = V->getAsObject();
  json::Object *S = O ? O->getObject("settings") : nullptr;
  if (!S)
    return createStringError(PlanFile + ": a plan without 'settings'");
  // private_network: ncu's injected library reaches the ncu front end over
  // the loopback; in the worker's private network namespace the profiled
  // gate hung in setup (H200, 2026-12-04;
  // bench/results/agent-profile-2026-12-04).
  for (const char *K : {"read_only_view", "private_network", "clean_timing",
                        "memcheck", "ghost_replay", "clock_check"})
    (*S)[K] = false;
  return writeFile(Out, formatv("{0:2}", *V).str() + "\n");
}

/// The first line of \p Text that starts with \p Prefix ("" if none).
static std::string lineStartingWith(StringRef Text, StringRef Prefix) {
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines)
    if (L.trim().starts_with(Prefix))
      return L.trim().str();
  return "";
}

Expected<Profile> profileCandidate(const Problem &P, const Evaluation &E,
                                   StringRef SourceFile, StringRef Dir,
                                   const ProfileOptions &O) {
  if (O.Ncu.empty())
    return createStringError("ncu not found (give --ncu PATH or set "
                             "ATREX_NCU; looked in $CUDA_PATH/bin, "
                             "/usr/local/cuda/bin and PATH)");
  if (!E.Measured || E.GateStatus != atrex::rt::protocol::kPass ||
      E.PlanFile.empty())
    return createStringError("the gate did not pass: nothing to profile");
  auto Source = readFile(SourceFile);
  if (!Source)
    return Source.takeError();
  std::string ResultLine;
  if (auto R = readFile(E.ResultsFile))
    ResultLine = StringRef(*R).split('\n').first.str();
  else
    consumeError(R.takeError());
  Profile Prof;
  Prof.Ncu = O.Ncu;
  Prof.OwnNames = ownKernelNames(ResultLine, *Source, Prof.OwnRule);
  if (Prof.OwnNames.empty())
    return createStringError(
        "no own kernel to profile: the gate's attribution named none and "
        "the source has no __global__ function");
  std::string Plan = (Dir + "/plan-profile.json").str();
  if (Error Err = writeProfilePlan(E.PlanFile, Plan))
    return std::move(Err);
  Prof.CsvFile = (Dir + "/profile.csv").str();
  std::string OutFile = (Dir + "/profile.out").str();
  std::string ErrFile = (Dir + "/profile.err").str();
  sys::fs::remove(Prof.CsvFile);
  // Attribution names kernels mangled, so ncu filters and prints them
  // mangled; a source scan has function names.
  StringRef Base =
      Prof.OwnRule == ownrule::kAttribution ? "mangled" : "function";
  std::vector<std::string> Escaped;
  for (const std::string &N : Prof.OwnNames)
    Escaped.push_back(regexEscape(N));
  std::vector<std::string> Metrics =
      O.Metrics.empty() ? defaultMetrics(P.GpuFullName) : O.Metrics;
  Prof.Command = {O.Ncu,
                  "--csv",
                  "--page",
                  "raw",
                  "--print-units",
                  "base",
                  "--log-file",
                  Prof.CsvFile,
                  "--target-processes",
                  "all",
                  "--replay-mode",
                  "kernel",
                  "--clock-control",
                  "none",
                  "--cache-control",
                  "all",
                  "--launch-skip",
                  std::to_string(O.LaunchSkip),
                  "--launch-count",
                  std::to_string(O.LaunchCount),
                  "--kernel-name-base",
                  Base.str(),
                  "--print-kernel-base",
                  Base.str(),
                  "--kernel-name",
                  "regex:^(" + join(Escaped, "|") + ")$",
                  "--metrics",
                  join(Metrics, ","),
                  O.GatePath,
                  "--quiet",
                  "--plan",
                  Plan,
                  "--out",
                  (Dir + "/profile-gate.jsonl").str(),
                  "--cache",
                  O.GateCache};
  if (!O.GateWorker.empty()) {
    Prof.Command.push_back("--worker");
    Prof.Command.push_back(O.GateWorker);
  }
  ProcessResult R =
      runProcess(O.Ncu, Prof.Command, {{"ATREX_GATE_NO_ATTRIBUTION", "1"}},
                 OutFile, ErrFile, O.TimeoutS);
  if (!R.ExitStatus && !R.TimedOut && !sys::fs::exists(Prof.CsvFile))
    return createStringError("ncu: " + R.Error);
  std::string Csv, All;
  if (sys::fs::exists(Prof.CsvFile)) {
    auto T = readFile(Prof.CsvFile);
    if (!T)
      return T.takeError();
    Csv = *T;
  }
  All = Csv;
  for (StringRef F : {StringRef(OutFile), StringRef(ErrFile)})
    if (auto T = readFile(F))
      All += "\n" + *T;
    else
      consumeError(T.takeError());
  if (StringRef(All).contains("ERR_NVGPUCTRPERM"))
    return createStringError(
        "ncu: no permission to read the GPU's performance counters "
        "(ERR_NVGPUCTRPERM): run as root, or load the driver with "
        "NVreg_RestrictProfilingToAdminUsers=0");
  auto Launches = parseNcuCsv(Csv, Prof.CsvFile);
  if (!Launches)
    return Launches.takeError();
  std::string Status =
      R.TimedOut     ? "timed out after " + std::to_string(O.TimeoutS) + " s"
      : R.ExitStatus ? "exit status " + std::to_string(*R.ExitStatus)
                     : R.Error;
  if (Launches->empty()) {
    std::string Why = lineStartingWith(All, "==ERROR==");
    if (Why.empty())
      Why = lineStartingWith(All, "==WARNING== No kernels");
    return createStringError("ncu profiled no own kernel (" + Status +
                             ", names " + join(Prof.OwnNames, ", ") + ")" +
                             (Why.empty() ? "" : ": " + Why) + "; see " +
                             ErrFile);
  }
  if (!R.ExitStatus || *R.ExitStatus != 0)
    Prof.Notes.push_back("ncu: " + Status + " (the CSV has " +
                         std::to_string(Launches->size()) + " launches)");
  for (KernelMetrics &K : aggregateLaunches(*Launches)) {
    if (isOwn(K.Name, Prof.OwnNames))
      Prof.Kernels.push_back(std::move(K));
    else
      Prof.Ignored.push_back(K.Name);
  }
  if (Prof.Kernels.empty())
    return createStringError("ncu profiled no own kernel: the CSV names " +
                             join(Prof.Ignored, ", ") + ", not " +
                             join(Prof.OwnNames, ", "));
  llvm::stable_sort(Prof.Kernels,
                    [](const KernelMetrics &A, const KernelMetrics &B) {
                      return A.get(metric::kDuration).value_or(0) >
                             B.get(metric::kDuration).value_or(0);
                    });
  for (const std::string &M : Metrics)
    if (none_of(Prof.Kernels,
                [&](const KernelMetrics &K) { return K.Metrics.count(M); }))
      Prof.Missing.push_back(M);
  return Prof;
}

//===----------------------------------------------------------------------===//
// Diagnosis
//===----------------------------------------------------------------------===//

static std::string fmt(double V, int Decimals = 2) {
  char Buf[64];
  snprintf(Buf, sizeof Buf, "%.*f", Decimals, V);
  return Buf;
}

std::string Diagnosis::query() const { return join(KbTerms, " "); }

namespace {
/// The own kernels' metrics combined: sums, and averages weighted by each
/// kernel's time.
struct Combined {
  const Profile &P;
  std::optional<double> sum(StringRef M) const {
    std::optional<double> S;
    for (const KernelMetrics &K : P.Kernels)
      if (auto V = K.get(M))
        S = S.value_or(0) + *V;
    return S;
  }
  std::optional<double> avg(StringRef M) const {
    std::optional<double> First;
    double WDiff = 0, W = 0; // as aggregateLaunches: equal values stay exact
    for (const KernelMetrics &K : P.Kernels)
      if (auto V = K.get(M)) {
        double Wt = K.get(metric::kDuration).value_or(0);
        if (Wt <= 0)
          Wt = 1;
        if (!First)
          First = *V;
        WDiff += (*V - *First) * Wt;
        W += Wt;
      }
    if (!First)
      return std::nullopt;
    return *First + WDiff / W;
  }
};
} // namespace

namespace {
struct DirectionInfo {
  const char *Name, *Summary;
};
constexpr DirectionInfo kDirections[] = {
#define ATREX_DIRECTION(ID, NAME, SUMMARY) {NAME, SUMMARY},
#include "atrex/Agent/Directions.def"
};
} // namespace

bool direction::isKnown(StringRef Name) { return !summary(Name).empty(); }

StringRef direction::summary(StringRef Name) {
  for (const DirectionInfo &D : kDirections)
    if (Name == D.Name)
      return D.Summary;
  return "";
}

std::vector<StringRef> direction::all() {
  std::vector<StringRef> Out;
  for (const DirectionInfo &D : kDirections)
    Out.push_back(D.Name);
  return Out;
}

static std::string limiterSuggestion(const Measures &M) {
  std::string N = M.BlocksPerSm ? fmt(*M.BlocksPerSm, 0) : "?";
  if (M.OccupancyLimiter == "registers")
    return "raise occupancy: registers limit to " + N + " blocks/SM (" +
           (M.RegistersPerThread ? fmt(*M.RegistersPerThread, 0) : "?") +
           " registers/thread): __launch_bounds__(threads, minBlocks) or "
           "fewer live values";
  if (M.OccupancyLimiter == "shared_mem")
    return "raise occupancy: shared memory limits to " + N +
           " blocks/SM: smaller tiles or fewer stages";
  if (M.OccupancyLimiter == "blocks")
    return "raise occupancy: at most " + N +
           " blocks/SM are resident: larger blocks";
  return "raise occupancy: the block size limits to " + N + " blocks/SM";
}

Diagnosis diagnose(const Problem &P, const Profile &Prof,
                   std::optional<double> GateMedianUs, const Thresholds &T) {
  Diagnosis D;
  Measures &M = D.M;
  Combined C{Prof};
  unsigned LMin = 0;
  for (const KernelMetrics &K : Prof.Kernels) {
    M.Launches += K.Launches;
    if (K.Launches && (!LMin || K.Launches < LMin))
      LMin = K.Launches;
  }
  M.Kernels = Prof.Kernels.size();
  std::optional<double> Dur = C.sum(metric::kDuration);
  // Every call launches every own kernel at least once: the calls profiled
  // are the launches of the least launched own kernel.
  if (Dur && LMin)
    M.TimePerCallS = *Dur / LMin;
  if (LMin)
    M.KernelsPerCall = static_cast<double>(M.Launches) / LMin;
  if (GateMedianUs && *GateMedianUs > 0)
    M.GateMedianS = *GateMedianUs * 1e-6;
  if (M.TimePerCallS && *M.TimePerCallS > 0 && P.TRooflineS > 0)
    M.RooflineFraction = P.TRooflineS / *M.TimePerCallS;
  auto Rd = C.sum(metric::kDramRead), Wr = C.sum(metric::kDramWrite);
  if ((Rd || Wr) && LMin) {
    double Bytes = Rd.value_or(0) + Wr.value_or(0);
    M.DramBytesPerCall = Bytes / LMin;
    if (Dur && *Dur > 0)
      M.DramTbps = Bytes / *Dur / 1e12;
  }
  if (P.Bytes > 0)
    M.SemanticBytes = P.Bytes;
  if (P.Bytes > 0 && P.TMemoryS > 0)
    M.PeakTbps = P.Bytes / P.TMemoryS / 1e12;
  M.DramPct = C.avg(metric::kDramPct);
  M.SmPct = C.avg(metric::kSmPct);
  if (P.Flops > 0 && M.TimePerCallS && *M.TimePerCallS > 0)
    M.Tflops = P.Flops / *M.TimePerCallS / 1e12;
  if (P.Flops > 0 && P.TComputeS > 0)
    M.PeakTflops = P.Flops / P.TComputeS / 1e12;
  auto Ffma = C.sum(metric::kFfma), Fadd = C.sum(metric::kFadd),
       Fmul = C.sum(metric::kFmul);
  if ((Ffma || Fadd || Fmul) && LMin)
    M.Fp32FlopsPerCall =
        (2 * Ffma.value_or(0) + Fadd.value_or(0) + Fmul.value_or(0)) / LMin;
  M.AchievedOccupancyPct = C.avg(metric::kAchievedOcc);
  M.TheoreticalOccupancyPct = C.avg(metric::kTheoreticalOcc);
  auto Hmma = C.avg(metric::kHmma), Gmma = C.avg(metric::kGmma);
  if (Hmma || Gmma)
    M.TensorPipePct = std::max(Hmma.value_or(0), Gmma.value_or(0));
  auto LdBytes = C.sum(metric::kLoadBytes), LdInst = C.sum(metric::kLoadInst);
  if (LdBytes && LdInst && *LdInst > 0)
    M.LoadBytesPerThread = *LdBytes / *LdInst / 32;
  if (!Prof.Kernels.empty()) {
    const KernelMetrics &Dom = Prof.Kernels.front();
    M.DominantKernel = Dom.Name;
    for (const char *L : metric::kLimiters)
      if (auto V = Dom.get(std::string(metric::kLimitPrefix) + L))
        if (!M.BlocksPerSm || *V < *M.BlocksPerSm) {
          M.BlocksPerSm = *V;
          M.OccupancyLimiter = L;
        }
    M.RegistersPerThread = Dom.get(metric::kRegisters);
    M.Waves = Dom.get(metric::kWaves);
  }
  for (const char *S : metric::kStalls)
    if (auto V = C.avg(stallMetric(S)); V && *V > 0)
      M.Stalls.emplace_back(S, *V);
  llvm::stable_sort(M.Stalls, [](const auto &A, const auto &B) {
    return A.second > B.second;
  });

  // Classes, in order of precedence.
  bool Tiny = M.TimePerCallS &&
              (P.TFloorS > 0 ? *M.TimePerCallS < T.LaunchFloorFactor * P.TFloorS
                             : *M.TimePerCallS < T.TinyKernelS);
  bool DramSat = (M.DramPct && *M.DramPct >= T.SaturatedPct) ||
                 (M.DramTbps && M.PeakTbps &&
                  *M.DramTbps >= T.SaturatedPct / 100 * *M.PeakTbps);
  bool SmSat = M.SmPct && *M.SmPct >= T.SaturatedPct;
  std::optional<double> GapS;
  if (M.GateMedianS && M.TimePerCallS)
    GapS = *M.GateMedianS - *M.TimePerCallS;
  bool Gaps = GapS && *GapS >= T.GapShare * *M.GateMedianS;
  bool ManyKernels = M.KernelsPerCall && *M.KernelsPerCall >= 1.5;
  bool MatrixWork = P.Flops > 0 && P.MatrixFlops >= T.MatrixShare * P.Flops;
  bool TensorIdle = M.TensorPipePct && *M.TensorPipePct < T.TensorIdlePct;
  bool LowOcc = M.TheoreticalOccupancyPct &&
                *M.TheoreticalOccupancyPct < T.LowOccupancyPct;
  bool SmallGrid = M.Waves && *M.Waves < 1;
  bool NarrowLoads =
      M.LoadBytesPerThread && *M.LoadBytesPerThread < T.VectorBytes - 0.5;
  std::optional<double> Excess;
  if (M.DramBytesPerCall && M.SemanticBytes)
    Excess = *M.DramBytesPerCall / *M.SemanticBytes;
  StringRef TopStall = M.Stalls.empty() ? "" : StringRef(M.Stalls[0].first);
  bool NearPeak = (M.DramTbps && M.PeakTbps &&
                   *M.DramTbps >= T.NearPeakFraction * *M.PeakTbps) ||
                  (M.DramPct && *M.DramPct >= T.NearPeakFraction * 100);
  D.NearRoofline = M.RooflineFraction && *M.RooflineFraction >= T.NearRoofline;

  namespace B = bottleneck;
  std::vector<std::string> Holds;
  if (ManyKernels && Gaps)
    Holds.push_back(B::kTooManyKernels);
  if (Tiny && !DramSat && !SmSat)
    Holds.push_back(B::kLaunchLatency);
  if (MatrixWork && P.Regime == "compute" && TensorIdle)
    Holds.push_back(B::kTensorCores);
  if (DramSat)
    Holds.push_back(B::kMemoryBandwidth);
  if (SmSat)
    Holds.push_back(B::kCompute);
  if (!DramSat && !SmSat && (M.DramPct || M.SmPct))
    Holds.push_back(TopStall == "long_scoreboard" ? B::kMemoryLatency
                                                  : B::kLatency);
  if (Holds.empty())
    Holds.push_back(B::kUnclassified);
  D.Bottleneck = Holds.front();
  D.Secondary.assign(Holds.begin() + 1, Holds.end());

  // Evidence: metric = value lines.
  auto Us = [](double S) { return fmt(S * 1e6); };
  auto &Ev = D.Evidence;
  if (M.TimePerCallS)
    Ev.push_back(
        formatv("kernel time per call = {0} us ({1} launches of {2} "
                "own kernel{3}, {4} per call{5})",
                Us(*M.TimePerCallS), M.Launches, M.Kernels,
                M.Kernels == 1 ? "" : "s", fmt(M.KernelsPerCall.value_or(0), 1),
                M.GateMedianS ? "; gate median " + Us(*M.GateMedianS) + " us"
                              : std::string())
            .str());
  if (P.TRooflineS > 0)
    Ev.push_back(formatv("T_roofline = {0} us ({1}-bound, {2} ceiling){3}",
                         Us(P.TRooflineS), P.Regime, P.Ceiling,
                         M.RooflineFraction ? ": " + fmt(*M.RooflineFraction) +
                                                  " of the roofline"
                                            : std::string())
                     .str());
  if (M.DramBytesPerCall)
    Ev.push_back(
        formatv("dram__bytes_read.sum + dram__bytes_write.sum = {0} MB per "
                "call{1}",
                fmt(*M.DramBytesPerCall / 1e6, 3),
                M.SemanticBytes
                    ? " (semantic " + fmt(*M.SemanticBytes / 1e6, 3) + " MB, " +
                          fmt(*Excess) + "x)"
                    : std::string())
            .str());
  if (M.DramTbps)
    Ev.push_back(formatv("achieved DRAM bandwidth = {0} TB/s{1}",
                         fmt(*M.DramTbps),
                         M.PeakTbps ? " (" + fmt(*M.DramTbps / *M.PeakTbps) +
                                          " of the ceiling's " +
                                          fmt(*M.PeakTbps) + " TB/s)"
                                    : std::string())
                     .str());
  if (M.DramPct)
    Ev.push_back(std::string(metric::kDramPct) + " = " + fmt(*M.DramPct, 1) +
                 "%");
  if (M.SmPct)
    Ev.push_back(std::string(metric::kSmPct) + " = " + fmt(*M.SmPct, 1) + "%");
  if (M.Tflops)
    Ev.push_back(formatv("semantic FLOP rate = {0} TFLOP/s{1}", fmt(*M.Tflops),
                         M.PeakTflops ? " (" + fmt(*M.Tflops / *M.PeakTflops) +
                                            " of the ceiling's " +
                                            fmt(*M.PeakTflops, 1) + " TFLOP/s)"
                                      : std::string())
                     .str());
  if (M.Fp32FlopsPerCall)
    Ev.push_back(formatv("executed FP32 FLOPs per call = {0} GFLOP (2 x FFMA "
                         "+ FADD + FMUL){1}",
                         fmt(*M.Fp32FlopsPerCall / 1e9, 3),
                         P.Flops > 0
                             ? ", " + fmt(*M.Fp32FlopsPerCall / P.Flops) +
                                   "x the semantic FLOPs"
                             : std::string())
                     .str());
  if (M.TensorPipePct)
    Ev.push_back("tensor pipe (hmma/gmma cycles active) = " +
                 fmt(*M.TensorPipePct, 1) + "%");
  if (M.AchievedOccupancyPct || M.TheoreticalOccupancyPct)
    Ev.push_back(
        formatv("achieved occupancy = {0}% (theoretical {1}%)",
                M.AchievedOccupancyPct ? fmt(*M.AchievedOccupancyPct, 1) : "?",
                M.TheoreticalOccupancyPct ? fmt(*M.TheoreticalOccupancyPct, 1)
                                          : "?")
            .str());
  if (M.BlocksPerSm)
    Ev.push_back(
        formatv("occupancy limit = {0} blocks/SM by {1} "
                "(launch__occupancy_limit_{1}; {2} registers/thread)",
                fmt(*M.BlocksPerSm, 0), M.OccupancyLimiter,
                M.RegistersPerThread ? fmt(*M.RegistersPerThread, 0) : "?")
            .str());
  if (M.Waves)
    Ev.push_back("launch__waves_per_multiprocessor = " + fmt(*M.Waves));
  if (M.LoadBytesPerThread)
    Ev.push_back("global load width = " + fmt(*M.LoadBytesPerThread, 1) +
                 " bytes per thread per instruction");
  if (!M.Stalls.empty()) {
    std::vector<std::string> S;
    for (size_t I = 0; I < M.Stalls.size() && I < 3; ++I)
      S.push_back(M.Stalls[I].first + " " + fmt(M.Stalls[I].second));
    Ev.push_back("top stalls (cycles per issued instruction) = " +
                 join(S, ", "));
  }
  if (!Prof.Missing.empty())
    Ev.push_back("not measured: " + join(Prof.Missing, ", "));

  // Suggestions.
  auto &Sg = D.Suggestions;
  // Each suggestion names its direction (Directions.def; none for the
  // remarks on the roofline and the metrics).
  namespace Dn = direction;
  auto Add = [&](std::string S, const char *Dir) {
    if (S.empty() || is_contained(Sg, S))
      return;
    Sg.push_back(std::move(S));
    if (Dir && !is_contained(D.Directions, Dir))
      D.Directions.push_back(Dir);
  };
  if (D.NearRoofline)
    Add("within " + fmt((1 - *M.RooflineFraction) * 100, 0) +
            "% of the roofline: little left to gain on this problem",
        nullptr);
  std::string Fuse =
      formatv("fuse the kernels: {0} per call, the intermediate stays on "
              "chip and the launches go",
              fmt(M.KernelsPerCall.value_or(0), 1))
          .str();
  std::string Vector = M.LoadBytesPerThread
                           ? "vectorise global loads to 128-bit (now " +
                                 fmt(*M.LoadBytesPerThread, 1) +
                                 " bytes per thread per load)"
                           : "";
  std::string Grid =
      M.Waves ? "more CTAs: the grid fills " + fmt(*M.Waves) +
                    " of a wave (split the rows, split-K or split-KV)"
              : "";
  StringRef Primary = D.Bottleneck;
  if (Primary == B::kTooManyKernels) {
    Add(Fuse, Dn::kFuse);
    Add("the gate's median is " + Us(*M.GateMedianS) + " us, the kernels " +
            Us(*M.TimePerCallS) +
            " us: remove the host work and launches "
            "between them",
        Dn::kFuse);
  } else if (Primary == B::kLaunchLatency) {
    Add("the kernel takes " + Us(*M.TimePerCallS) +
            " us against a latency floor of " +
            (P.TFloorS > 0 ? Us(P.TFloorS) : std::string("a few")) +
            " us: one launch, no serial passes over the data",
        Dn::kFewerLaunches);
    if (ManyKernels)
      Add(Fuse, Dn::kFuse);
  } else if (Primary == B::kTensorCores) {
    Add("use tensor cores (mma.sync/WMMA, or wgmma on Hopper) for the "
        "matrix FLOPs: the tensor pipe is idle",
        Dn::kTensorCores);
    Add("tile through shared memory with cp.async double buffering to feed "
        "the tensor cores",
        Dn::kPipelineStages);
    if (SmallGrid)
      Add("split-K / more CTAs for the skinny GEMM: the grid fills " +
              fmt(*M.Waves) + " of a wave",
          Dn::kMoreCtas);
  } else if (Primary == B::kMemoryBandwidth) {
    if (Excess && *Excess >= T.ExcessBytes)
      Add("cut DRAM traffic: " + fmt(*Excess) +
              "x the semantic bytes move; read each input once, keep reused "
              "data on chip, fuse passes",
          Dn::kFewerBytes);
    if (NarrowLoads)
      Add(Vector, Dn::kWiderLoads);
    if (NearPeak)
      Add("DRAM is near its peak: only fewer bytes make it faster",
          Dn::kFewerBytes);
    else
      Add("more bytes in flight per SM: unroll, issue several 128-bit loads "
          "before their use, keep every SM busy",
          Dn::kMoreInFlight);
  } else if (Primary == B::kCompute) {
    if (MatrixWork && !TensorIdle && M.TensorPipePct)
      Add("the tensor pipe is busy: larger tiles, more stages, wgmma + TMA "
          "on Hopper",
          Dn::kLargerTiles);
    if (M.Fp32FlopsPerCall && P.Flops > 0 &&
        *M.Fp32FlopsPerCall >= T.RedundantFlops * P.Flops)
      Add("redundant arithmetic: " + fmt(*M.Fp32FlopsPerCall / P.Flops) +
              "x the semantic FLOPs execute; hoist recomputed values",
          Dn::kFewerInstructions);
    if (TopStall == "math_pipe_throttle")
      Add("cheaper math: exp2f/__expf, rsqrtf, packed bf16x2 instructions",
          Dn::kFewerInstructions);
    Add("fewer instructions per element: hoist index arithmetic, unroll",
        Dn::kFewerInstructions);
  } else if (Primary == B::kMemoryLatency || Primary == B::kLatency) {
    if (LowOcc && M.BlocksPerSm)
      Add(limiterSuggestion(M), Dn::kRaiseOccupancy);
    if (Primary == B::kMemoryLatency)
      Add("hide memory latency: more independent loads in flight per thread "
          "(unroll, 128-bit loads, cp.async prefetch)",
          Dn::kMoreInFlight);
    if (NarrowLoads)
      Add(Vector, Dn::kWiderLoads);
    if (SmallGrid)
      Add(Grid, Dn::kMoreCtas);
    if (TopStall == "barrier")
      Add("fewer block-wide barriers: warp shuffles for reductions",
          Dn::kFewerBarriers);
    if (TopStall == "short_scoreboard" || TopStall == "mio_throttle")
      Add("shared memory is the limit: fewer round trips, pad against bank "
          "conflicts, ldmatrix",
          Dn::kSharedMemory);
    if (Sg.empty() || (Sg.size() == 1 && D.NearRoofline))
      Add("more work in flight: more CTAs or more independent work per "
          "thread",
          Dn::kMoreInFlight);
  } else {
    Add("ncu gave neither DRAM nor SM throughput: check the metrics "
        "(--ncu-metrics) and ncu's version",
        nullptr);
  }
  // What the other classes that hold add.
  if (ManyKernels && Primary != B::kTooManyKernels)
    Add(Fuse, Dn::kFuse);
  if (is_contained(D.Secondary, B::kTensorCores))
    Add("use tensor cores (mma.sync/WMMA, or wgmma on Hopper) for the "
        "matrix FLOPs: the tensor pipe is idle",
        Dn::kTensorCores);
  if (LowOcc && M.BlocksPerSm && Primary == B::kMemoryBandwidth && !NearPeak)
    Add(limiterSuggestion(M), Dn::kRaiseOccupancy);

  // Terms for the knowledge base.
  auto &Kb = D.KbTerms;
  auto Term = [&](StringRef S) {
    if (!is_contained(Kb, S) && Kb.size() < 16)
      Kb.push_back(S.str());
  };
  auto Terms = [&](std::initializer_list<StringRef> L) {
    for (StringRef S : L)
      Term(S);
  };
  if (Primary == B::kTooManyKernels)
    Terms({"fusion", "fuse", "launch"});
  else if (Primary == B::kLaunchLatency)
    Terms({"launch", "latency", "grid", "wave"});
  else if (Primary == B::kTensorCores)
    Terms({"tensor cores", "wmma", "mma.sync", "wgmma", "ldmatrix", "tiling"});
  else if (Primary == B::kMemoryBandwidth)
    Terms({"memory-bound", "bandwidth", "128-bit", "vectorized", "vectorised",
           "coalesced"});
  else if (Primary == B::kCompute)
    Terms({"compute-bound", "FMA", "instruction mix"});
  else if (Primary == B::kMemoryLatency)
    Terms(
        {"latency", "occupancy", "in flight", "128-bit", "unroll", "cp.async"});
  else if (Primary == B::kLatency)
    Terms({"latency", "occupancy"});
  if (is_contained(D.Secondary, B::kTensorCores))
    Terms({"tensor cores", "wmma"});
  if (ManyKernels)
    Term("fusion");
  if (LowOcc && M.BlocksPerSm && is_contained(Sg, limiterSuggestion(M))) {
    if (M.OccupancyLimiter == "registers")
      Terms({"registers", "__launch_bounds__"});
    else if (M.OccupancyLimiter == "shared_mem")
      Term("shared memory");
    else
      Term("block size");
  }
  if (SmallGrid)
    Terms(MatrixWork ? std::initializer_list<StringRef>{"split-K", "grid"}
                     : std::initializer_list<StringRef>{"grid"});
  if (NarrowLoads)
    Terms({"128-bit", "vectorized"});
  if (!TopStall.empty() && TopStall != "not_selected") {
    std::string Words = TopStall.str(); // "long scoreboard"
    std::replace(Words.begin(), Words.end(), '_', ' ');
    Term(Words);
  }

  // The one line.
  std::string What;
  if (Primary == B::kTooManyKernels)
    What = "too many kernels: " + fmt(*M.KernelsPerCall, 1) + " per call, " +
           Us(*GapS) + " us of the gate's " + Us(*M.GateMedianS) +
           " us outside them";
  else if (Primary == B::kLaunchLatency)
    What = "launch/latency-bound: " + Us(*M.TimePerCallS) + " us per call";
  else if (Primary == B::kTensorCores)
    What = "tensor cores unused: tensor pipe " + fmt(*M.TensorPipePct, 1) +
           "% on matrix work" +
           (M.Tflops ? ", " + fmt(*M.Tflops, 1) + " TFLOP/s" : std::string());
  else if (Primary == B::kMemoryBandwidth)
    What = std::string("memory-bandwidth-bound") +
           (NearPeak ? " near peak" : "") + ": DRAM " +
           (M.DramTbps ? fmt(*M.DramTbps) + " TB/s" : std::string()) +
           (M.DramTbps && M.PeakTbps ? " (" + fmt(*M.DramTbps / *M.PeakTbps) +
                                           " of " + fmt(*M.PeakTbps) + ")"
            : M.DramPct              ? fmt(*M.DramPct, 1) + "%"
                                     : std::string());
  else if (Primary == B::kCompute)
    What = "compute-bound: SM throughput " + fmt(*M.SmPct, 1) + "%";
  else if (Primary == B::kMemoryLatency || Primary == B::kLatency)
    What = (Primary == B::kMemoryLatency ? std::string("memory-latency-bound")
                                         : std::string("latency-bound")) +
           ": DRAM " + (M.DramPct ? fmt(*M.DramPct, 1) : "?") + "%, SM " +
           (M.SmPct ? fmt(*M.SmPct, 1) : "?") + "%" +
           (TopStall.empty() ? "" : ", stalls " + TopStall.str()) +
           (LowOcc ? ", occupancy " + fmt(*M.TheoreticalOccupancyPct, 1) +
                         "% (" + M.OccupancyLimiter + ")"
                   : std::string());
  else
    What = "unclassified";
  D.Summary = "profile: " + What;
  if (M.RooflineFraction)
    D.Summary += ", " + fmt(*M.RooflineFraction) + " of the roofline";
  if (!D.Suggestions.empty())
    D.Summary +=
        "; try: " +
        D.Suggestions[D.NearRoofline && D.Suggestions.size() > 1 ? 1 : 0];
  return D;
}

//===----------------------------------------------------------------------===//
// The loop's profile of one iteration
//===----------------------------------------------------------------------===//

ProfileRecord profileIteration(const Problem &P, const Evaluation &E,
                               StringRef SourceFile, StringRef Dir,
                               const ProfileOptions &O) {
  ProfileRecord R;
  auto Prof = profileCandidate(P, E, SourceFile, Dir, O);
  if (!Prof) {
    R.Error = toString(Prof.takeError());
    return R;
  }
  R.Diag = diagnose(P, *Prof, E.MedianUs);
  R.Prof = std::move(*Prof);
  R.ProfileFile = (Dir + "/profile.json").str();
  R.DiagnosisFile = (Dir + "/diagnosis.json").str();
  if (Error Err = writeFile(
          R.ProfileFile,
          formatv("{0:2}", json::Value(toJSON(*R.Prof))).str() + "\n"))
    R.Error = toString(std::move(Err));
  else if (Error Err = writeFile(
               R.DiagnosisFile,
               formatv("{0:2}", json::Value(toJSON(*R.Diag))).str() + "\n"))
    R.Error = toString(std::move(Err));
  return R;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static json::Value opt(const std::optional<double> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}
static json::Array strings(ArrayRef<std::string> V) { return json::Array(V); }
static std::vector<std::string> strings(const json::Object &O, StringRef Key) {
  std::vector<std::string> Out;
  if (const json::Array *A = O.getArray(Key))
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        Out.push_back(S->str());
  return Out;
}

json::Object toJSON(const KernelMetrics &K) {
  json::Object Metrics;
  for (const auto &[Name, V] : K.Metrics)
    Metrics[Name] = V;
  return json::Object{{"name", K.Name},
                      {"launches", K.Launches},
                      {"block_size", K.BlockSize},
                      {"grid_size", K.GridSize},
                      {"metrics", std::move(Metrics)}};
}

json::Object toJSON(const Profile &P) {
  json::Array Kernels;
  for (const KernelMetrics &K : P.Kernels)
    Kernels.push_back(toJSON(K));
  return json::Object{
      {"schema", "atrex-agent-profile/1"},
      {"csv", P.CsvFile},
      {"ncu", P.Ncu.empty() ? json::Value(nullptr) : json::Value(P.Ncu)},
      {"command", strings(P.Command)},
      {"own_rule", P.OwnRule},
      {"own_kernels", strings(P.OwnNames)},
      {"kernels", std::move(Kernels)},
      {"ignored", strings(P.Ignored)},
      {"missing_metrics", strings(P.Missing)},
      {"notes", strings(P.Notes)}};
}

Expected<Profile> profileFromJSON(const json::Object &O) {
  if (O.getString("schema") != "atrex-agent-profile/1")
    return createStringError("not an atrex-agent-profile/1 object");
  Profile P;
  P.CsvFile = O.getString("csv").value_or("").str();
  P.Ncu = O.getString("ncu").value_or("").str();
  P.Command = strings(O, "command");
  P.OwnRule = O.getString("own_rule").value_or("").str();
  P.OwnNames = strings(O, "own_kernels");
  P.Ignored = strings(O, "ignored");
  P.Missing = strings(O, "missing_metrics");
  P.Notes = strings(O, "notes");
  if (const json::Array *Ks = O.getArray("kernels"))
    for (const json::Value &V : *Ks) {
      const json::Object *K = V.getAsObject();
      auto Name = K ? K->getString("name") : std::nullopt;
      if (!Name)
        return createStringError("profile: a kernel without a name");
      KernelMetrics KM;
      KM.Name = Name->str();
      KM.Launches =
          static_cast<unsigned>(getInteger(*K, "launches").value_or(0));
      KM.BlockSize = K->getString("block_size").value_or("").str();
      KM.GridSize = K->getString("grid_size").value_or("").str();
      if (const json::Object *Ms = K->getObject("metrics"))
        for (const auto &[MName, MV] : *Ms) {
          auto N = MV.getAsNumber();
          if (!N)
            return createStringError("profile: kernel '" + KM.Name +
                                     "': metric '" + MName.str() +
                                     "' is not a number");
          KM.Metrics[MName.str()] = *N;
        }
      P.Kernels.push_back(std::move(KM));
    }
  return P;
}

json::Object toJSON(const Measures &M) {
  json::Array Stalls;
  for (const auto &[Reason, V] : M.Stalls)
    Stalls.push_back(json::Object{{"reason", Reason}, {"cycles", V}});
  return json::Object{
      {"time_per_call_us",
       M.TimePerCallS ? json::Value(*M.TimePerCallS * 1e6) : nullptr},
      {"gate_median_us",
       M.GateMedianS ? json::Value(*M.GateMedianS * 1e6) : nullptr},
      {"kernels", M.Kernels},
      {"launches", M.Launches},
      {"kernels_per_call", opt(M.KernelsPerCall)},
      {"roofline_fraction", opt(M.RooflineFraction)},
      {"dram_bytes_per_call", opt(M.DramBytesPerCall)},
      {"semantic_bytes", opt(M.SemanticBytes)},
      {"dram_tbps", opt(M.DramTbps)},
      {"peak_tbps", opt(M.PeakTbps)},
      {"dram_pct", opt(M.DramPct)},
      {"sm_pct", opt(M.SmPct)},
      {"tflops", opt(M.Tflops)},
      {"peak_tflops", opt(M.PeakTflops)},
      {"fp32_flops_per_call", opt(M.Fp32FlopsPerCall)},
      {"achieved_occupancy_pct", opt(M.AchievedOccupancyPct)},
      {"theoretical_occupancy_pct", opt(M.TheoreticalOccupancyPct)},
      {"occupancy_limiter", M.OccupancyLimiter.empty()
                                ? json::Value(nullptr)
                                : json::Value(M.OccupancyLimiter)},
      {"blocks_per_sm", opt(M.BlocksPerSm)},
      {"registers_per_thread", opt(M.RegistersPerThread)},
      {"waves", opt(M.Waves)},
      {"tensor_pipe_pct", opt(M.TensorPipePct)},
      {"load_bytes_per_thread", opt(M.LoadBytesPerThread)},
      {"dominant_kernel", M.DominantKernel},
      {"stalls", std::move(Stalls)}};
}

json::Object toJSON(const Diagnosis &D) {
  return json::Object{{"schema", "atrex-agent-diagnosis/1"},
                      {"bottleneck", D.Bottleneck},
                      {"near_roofline", D.NearRoofline},
                      {"summary", D.Summary},
                      {"evidence", strings(D.Evidence)},
                      {"suggestions", strings(D.Suggestions)},
                      {"directions", strings(D.Directions)},
                      {"secondary", strings(D.Secondary)},
                      {"kb_terms", strings(D.KbTerms)},
                      {"query", D.query()},
                      {"measures", toJSON(D.M)}};
}

Expected<Diagnosis> diagnosisFromJSON(const json::Object &O) {
  if (O.getString("schema") != "atrex-agent-diagnosis/1")
    return createStringError("not an atrex-agent-diagnosis/1 object");
  Diagnosis D;
  auto B = O.getString("bottleneck");
  if (!B)
    return createStringError("diagnosis without a 'bottleneck'");
  D.Bottleneck = B->str();
  D.NearRoofline = O.getBoolean("near_roofline").value_or(false);
  D.Summary = O.getString("summary").value_or("").str();
  D.Evidence = strings(O, "evidence");
  D.Suggestions = strings(O, "suggestions");
  D.Directions = strings(O, "directions"); // none in diagnoses before them
  D.Secondary = strings(O, "secondary");
  D.KbTerms = strings(O, "kb_terms");
  if (const json::Object *M = O.getObject("measures")) {
    auto Num = [&](StringRef K) -> std::optional<double> {
      return M->getNumber(K);
    };
    Measures &X = D.M;
    if (auto V = Num("time_per_call_us"))
      X.TimePerCallS = *V * 1e-6;
    if (auto V = Num("gate_median_us"))
      X.GateMedianS = *V * 1e-6;
    X.Kernels = static_cast<unsigned>(getInteger(*M, "kernels").value_or(0));
    X.Launches = static_cast<unsigned>(getInteger(*M, "launches").value_or(0));
    X.KernelsPerCall = Num("kernels_per_call");
    X.RooflineFraction = Num("roofline_fraction");
    X.DramBytesPerCall = Num("dram_bytes_per_call");
    X.SemanticBytes = Num("semantic_bytes");
    X.DramTbps = Num("dram_tbps");
    X.PeakTbps = Num("peak_tbps");
    X.DramPct = Num("dram_pct");
    X.SmPct = Num("sm_pct");
    X.Tflops = Num("tflops");
    X.PeakTflops = Num("peak_tflops");
    X.Fp32FlopsPerCall = Num("fp32_flops_per_call");
    X.AchievedOccupancyPct = Num("achieved_occupancy_pct");
    X.TheoreticalOccupancyPct = Num("theoretical_occupancy_pct");
    X.OccupancyLimiter = M->getString("occupancy_limiter").value_or("").str();
    X.BlocksPerSm = Num("blocks_per_sm");
    X.RegistersPerThread = Num("registers_per_thread");
    X.Waves = Num("waves");
    X.TensorPipePct = Num("tensor_pipe_pct");
    X.LoadBytesPerThread = Num("load_bytes_per_thread");
    X.DominantKernel = M->getString("dominant_kernel").value_or("").str();
    if (const json::Array *S = M->getArray("stalls"))
      for (const json::Value &V : *S)
        if (const json::Object *SO = V.getAsObject())
          if (auto R = SO->getString("reason"))
            X.Stalls.emplace_back(R->str(),
                                  SO->getNumber("cycles").value_or(0));
  }
  return D;
}

json::Object toJSON(const ProfileRecord &R) {
  json::Object O{
      {"csv", R.Prof ? json::Value(R.Prof->CsvFile) : nullptr},
      {"profile", R.ProfileFile.empty() ? json::Value(nullptr)
                                        : json::Value(R.ProfileFile)},
      {"diagnosis_file", R.DiagnosisFile.empty()
                             ? json::Value(nullptr)
                             : json::Value(R.DiagnosisFile)},
      {"error", R.Error.empty() ? json::Value(nullptr) : json::Value(R.Error)},
      {"diagnosis",
       R.Diag ? json::Value(toJSON(*R.Diag)) : json::Value(nullptr)}};
  return O;
}

std::string renderDiagnosis(const Diagnosis &D) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "bottleneck: " << D.Bottleneck
     << (D.NearRoofline ? " (near the roofline)" : "") << "\n";
  OS << "summary: " << D.Summary << "\n";
  if (!D.Secondary.empty())
    OS << "also: " << join(D.Secondary, ", ") << "\n";
  OS << "evidence:\n";
  for (const std::string &E : D.Evidence)
    OS << "  " << E << "\n";
  OS << "suggestions:\n";
  for (const std::string &E : D.Suggestions)
    OS << "  - " << E << "\n";
  OS << "kb query: " << D.query() << "\n";
  return S;
}

} // namespace atrex::agent

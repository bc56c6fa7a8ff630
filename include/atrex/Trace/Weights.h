//===- Weights.h - importance weights from mapped GPU time ------*- C++ -*-===//
//
// Part of atrex. Aggregates the kernels of each application's traces by
// (operator, shape, phase), fills phases that no annotation or query length
// decided from the nearest decided kernel on the same device, and computes
// weights: share of the application's kernel time x the application's
// card-hours, normalised over the fleet; hot problems are those that cover a
// chosen share of the mapped, shaped time. The output is the weights format
// of docs/formats/weights.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TRACE_WEIGHTS_H
#define ATREX_TRACE_WEIGHTS_H

#include "atrex/Trace/Kineto.h"
#include "atrex/Trace/Mapping.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace atrex {
namespace trace {

/// The fleet description (YAML): applications with their card-hours and the
/// traces (globs, matched against the path as given or its file name).
struct FleetApp {
  std::string Name;
  double CardHours = 0;
  std::vector<std::string> Traces;
};
struct Fleet {
  std::vector<FleetApp> Apps;
  static llvm::Expected<Fleet> load(llvm::StringRef Path);
  static llvm::Expected<Fleet> parse(llvm::StringRef Name,
                                     llvm::StringRef Text);
  /// The application whose trace globs match \p TracePath.
  llvm::Expected<const FleetApp *> appFor(llvm::StringRef TracePath) const;
};

struct ProblemKey {
  std::string Operator;
  std::map<std::string, int64_t> Shape;
  Phase P = Phase::Unknown;
  bool operator<(const ProblemKey &O) const {
    return std::tie(Operator, Shape, P) < std::tie(O.Operator, O.Shape, O.P);
  }
  std::string str() const;
};

struct TimeAndCalls {
  int64_t Ns = 0;
  uint64_t Calls = 0;
};

struct AppStats {
  std::string Name;
  double CardHours = 0;
  std::vector<std::string> Traces;
  uint64_t Kernels = 0;
  int64_t KernelNs = 0, BusyNs = 0, UnshapedNs = 0, UnmappedNs = 0;
  int64_t PhaseNs[3] = {0, 0, 0}; // by Phase
  std::map<ProblemKey, TimeAndCalls> Problems;
  std::map<std::string, TimeAndCalls> Unshaped; // by operator
  /// By kernel name and innermost launching op ("" when none).
  std::map<std::pair<std::string, std::string>, TimeAndCalls> Unmapped;
};

struct WeightedProblem {
  ProblemKey Key;
  double FleetShare = 0; // of all fleet GPU kernel time
  double Weight = 0;     // normalised over the hot problems
  int64_t Ns = 0;
  uint64_t Calls = 0;
  std::map<std::string, double> AppShare; // share of each app's kernel time
};

struct WeightsResult {
  double CoverageTarget = 0, Coverage = 0;
  double MappedShare = 0, UnshapedShare = 0, UnmappedShare = 0;
  double Top5OperatorShare = 0;
  size_t ShapedProblems = 0;
  std::vector<WeightedProblem> Hot;
  std::vector<std::pair<std::string, double>> Operators; // fleet share, desc
  std::vector<std::pair<std::string, double>> UnshapedOps;
  struct UnmappedRow {
    std::string Kernel, Op;
    double FleetShare;
    uint64_t Calls;
  };
  std::vector<UnmappedRow> Unmapped;
  std::vector<std::string> Warnings;
};

class WeightBuilder {
public:
  explicit WeightBuilder(const Mapping &M) : Map(M) {}

  /// Threads addTrace may use (0: every core, as LoadOptions::Threads).
  void setThreads(unsigned N) { Threads = N; }

  /// Adds the kernels of \p T to application \p App.
  void addTrace(llvm::StringRef App, double CardHours, const Trace &T);

  /// Computes the weights; \p Coverage in (0, 1].
  llvm::Expected<WeightsResult> compute(double Coverage) const;

  const std::vector<AppStats> &apps() const { return Apps; }

  static llvm::json::Value toJSON(const WeightsResult &R,
                                  const std::vector<AppStats> &Apps);
  /// toJSON, written with short numbers.
  static void writeJSON(llvm::raw_ostream &OS, const WeightsResult &R,
                        const std::vector<AppStats> &Apps);
  static void printSummary(llvm::raw_ostream &OS, const WeightsResult &R,
                           const std::vector<AppStats> &Apps);

private:
  const Mapping &Map;
  std::vector<AppStats> Apps;
  unsigned Threads = 0;
};

} // namespace trace
} // namespace atrex

#endif // ATREX_TRACE_WEIGHTS_H

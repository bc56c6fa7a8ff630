//===- Problem.h - the problem an agent run optimises -----------*- C++ -*-===//
//
// Part of atrex. One problem of a suite (operator + shape, docs/suite.md)
// with what the loop needs of it: the entry point submissions implement (its
// C++ signature from the suite's entry-point snapshot), the entry shape the
// gate is given, and T_roofline and the impossibility floor on one GPU of the
// suite's hardware table (docs/roofline.md). See docs/agent.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_PROBLEM_H
#define ATREX_AGENT_PROBLEM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atrex::agent {

struct Problem {
  std::string Suite;    ///< the suite's name
  std::string Id;       ///< the suite's problem id (p0009), or "custom"
  std::string Operator; ///< rms_norm
  std::string Phase;    ///< prefill, decode; any: a custom shape of both
  std::map<std::string, int64_t> Shape; ///< entry shape (the gate's keys)
  std::string Signature;                ///< the entry point's C++ signature
  std::string Summary;                  ///< the entry's one-line summary
  std::string KeyDoc;                   ///< what the shape keys mean
  std::string Gpu;                      ///< hardware-table name (H200)
  std::string GpuFullName; ///< the table's full_name ("... (Hopper)")
  double TRooflineS = 0;   ///< score ceiling (measured, else datasheet)
  std::string Ceiling;     ///< "measured" or "datasheet"
  std::string Regime;      ///< "memory" or "compute"
  double FloorS = 0;       ///< impossibility floor (datasheet, floor facts)
  // The parts of T_roofline on its ceiling (docs/roofline.md), for the
  // profile's diagnosis (Profile.h); 0 where unknown (a trail written before
  // they were recorded).
  double Flops = 0;       ///< semantic FLOPs, every engine and dtype
  double MatrixFlops = 0; ///< of which on the matrix engine (tensor cores)
  double Bytes = 0;       ///< semantic bytes read + written
  double TComputeS = 0, TMemoryS = 0, TFloorS = 0;
};

/// Which problem: a suite id, or an operator with its entry shape
/// ("T=1,H=4096", matched against the suite's problems).
struct ProblemQuery {
  std::string SuitePath;
  std::string Id;
  std::string Operator;
  std::string Shape;
  std::string Gpu = "H200";
};

/// Reads the suite, its operator definitions, entry-point snapshot and
/// hardware table, and computes the problem's roofline. Errors name the
/// suite file and the problem.
llvm::Expected<Problem> loadProblem(const ProblemQuery &Q);

/// The problems of a track (`atrex agent run --track`): for each operator of
/// \p Operators (empty: every operator of the suite, in the suite's order),
/// its \p PerOp heaviest problems by weight (ties by id), of the visible
/// ones only when \p VisibleOnly. Errors: an unreadable suite, an operator
/// it does not have.
llvm::Expected<std::vector<std::string>>
trackProblems(llvm::StringRef SuitePath, llvm::ArrayRef<std::string> Operators,
              unsigned PerOp, bool VisibleOnly);

llvm::json::Object toJSON(const Problem &P);
llvm::Expected<Problem> problemFromJSON(const llvm::json::Object &O);

/// "K=V,..." in key order.
std::string shapeText(const std::map<std::string, int64_t> &Shape);

} // namespace atrex::agent

#endif // ATREX_AGENT_PROBLEM_H

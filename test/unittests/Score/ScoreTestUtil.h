//===- ScoreTestUtil.h - bundles and results built in code ------*- C++ -*-===//

#ifndef ATREX_UNITTESTS_SCORE_SCORETESTUTIL_H
#define ATREX_UNITTESTS_SCORE_SCORETESTUTIL_H

#include "atrex/Score/Score.h"

namespace atrex {
namespace score {
namespace test {

/// A memory-bound problem on the H200 with T_roofline = \p TRoofUs and the
/// datasheet floor at 0.8 of it.
inline SuiteProblem problem(const std::string &Id, const std::string &Op,
                            const std::string &Phase, double TRoofUs,
                            const std::string &Regime = "memory") {
  SuiteProblem P;
  P.Id = Id;
  P.Operator = Op;
  P.Phase = Phase;
  Roofline R;
  R.TRooflineS = TRoofUs * 1e-6;
  R.TDatasheetS = 0.8 * TRoofUs * 1e-6;
  R.TMeasuredS = R.TRooflineS;
  R.Ceiling = "measured";
  R.Regime = Regime;
  R.Bytes = 4.25e12 * R.TRooflineS;
  R.Intensity = 2;
  R.FlopsTotal = 2 * R.Bytes;
  P.Rooflines["H200"] = R;
  return P;
}

inline Hardware h200() {
  Hardware H;
  H.Name = "H200";
  H.FullName = "NVIDIA H200 SXM 141GB (Hopper)";
  H.Datasheet.HbmTbps = 4.8;
  H.Datasheet.Peaks = {{"matrix", "bf16", 989.4}, {"vector", "fp32", 66.9}};
  Ceilings M;
  M.HbmTbps = 4.25;
  M.Peaks = {{"matrix", "bf16", 703.2}};
  H.Measured = M;
  return H;
}

/// Problems a (rms_norm decode, 10 us), b (rms_norm prefill, 20 us),
/// c (gemm_bf16 prefill, 40 us, compute-bound), d (gemm_bf16 decode, 5 us);
/// raw weights 1, 1, 1.5, 0.5 (sum 4).
inline SealedBundle bundle() {
  SealedBundle B;
  B.SealedPath = "sealed.json";
  B.WeightsPath = "weights.json";
  B.Suite = "unit";
  B.Commitment = "sha256:00";
  B.Gpus["H200"] = h200();
  B.Problems = {problem("a", "rms_norm", "decode", 10),
                problem("b", "rms_norm", "prefill", 20),
                problem("c", "gemm_bf16", "prefill", 40, "compute"),
                problem("d", "gemm_bf16", "decode", 5)};
  B.Weights = {{"a", 1}, {"b", 1}, {"c", 1.5}, {"d", 0.5}};
  return B;
}

inline GateResult
result(const std::string &Id, const std::string &Status,
       const std::string &Stage, const std::string &Verdict,
       std::optional<double> MedianUs, std::optional<bool> Correct = true,
       const std::string &StartedAt = "2026-11-29T12:00:00Z") {
  GateResult R;
  R.File = "r.jsonl";
  R.ProblemId = Id;
  R.Status = Status;
  R.Stage = Stage;
  R.Verdict = Verdict;
  R.MedianUs = MedianUs;
  R.CorrectnessOk = Correct;
  R.StartedAt = StartedAt;
  R.Gpu = "NVIDIA H200";
  return R;
}

inline GateResult passed(const std::string &Id, double MedianUs,
                         const std::string &Verdict = "adopted") {
  return result(Id, "pass", "done", Verdict, MedianUs);
}

inline SubmissionSet set(const std::string &Name,
                         std::vector<GateResult> Results,
                         bool Baseline = false) {
  SubmissionSet S;
  S.Name = Name;
  S.Baseline = Baseline;
  S.ResultFiles = {"r.jsonl"};
  S.Results = std::move(Results);
  return S;
}

} // namespace test
} // namespace score
} // namespace atrex

#endif

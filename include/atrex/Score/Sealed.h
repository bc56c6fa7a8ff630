//===- Sealed.h - the sealed bundle that scoring reads ----------*- C++ -*-===//
//
// Part of atrex. A sealed release bundle: `sealed.json` (format
// `atrex-sealed`, version 1: suite, hardware entries, problems with their
// rooflines per GPU) and `weights.json` (format `atrex-sealed-weights`,
// version 1: importance weights per problem id). The public bundle's
// `public.json` commits to the sealed one by the SHA-256 of the bytes of
// `sealed.json`; scoring verifies that commitment. See docs/scoring.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SCORE_SEALED_H
#define ATREX_SCORE_SEALED_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace score {

/// One problem's roofline on one GPU (docs/roofline.md).
struct Roofline {
  double TRooflineS = 0;  ///< score ceiling (measured where present)
  double TDatasheetS = 0; ///< datasheet roofline of the expected work
  /// Datasheet roofline of the least work the gate's inputs can have
  /// (`t_floor_s`, data-dependent operators); absent: TDatasheetS.
  std::optional<double> TFloorS;
  std::optional<double> TMeasuredS;
  /// The score ceiling without the latency floor (`t_roofline_nofloor_s`,
  /// bundles since 2026-12-02); absent (older bundles, no floor): TRooflineS.
  std::optional<double> TNoFloorS;
  std::string Ceiling;  ///< "measured" or "datasheet"
  std::string Regime;   ///< "memory" or "compute"
  double Intensity = 0; ///< FLOP per byte
  double FlopsTotal = 0;
  double Bytes = 0;

  /// The impossibility floor: a time below it is suspicious.
  double floorS() const { return TFloorS.value_or(TDatasheetS); }
  double noFloorS() const { return TNoFloorS.value_or(TRooflineS); }
};

struct SuiteProblem {
  std::string Id;
  std::string Operator;
  std::string Phase;      ///< "prefill" or "decode"
  std::string Visibility; ///< "public" or "hidden"
  llvm::json::Value Shape = llvm::json::Object();
  std::map<std::string, Roofline> Rooflines; ///< by GPU name
};

/// A compute ceiling of the hardware table: one engine and dtype.
struct Peak {
  std::string Engine; ///< "matrix" or "vector"
  std::string Dtype;
  double Tflops = 0;
};

/// One set of ceilings (datasheet or measured) of a GPU.
struct Ceilings {
  double HbmTbps = 0;
  std::vector<Peak> Peaks;
};

/// A GPU entry of the hardware table (hw/gpus.json) as sealed.
struct Hardware {
  std::string Name;
  std::string FullName;
  Ceilings Datasheet;
  std::optional<Ceilings> Measured;
};

struct SealedBundle {
  std::string SealedPath;
  std::string WeightsPath;
  std::string Suite;
  /// "sha256:<hex>" of the bytes of sealed.json.
  std::string Commitment;
  std::map<std::string, Hardware> Gpus; ///< by name
  std::vector<SuiteProblem> Problems;
  /// Raw weights by problem id, as written in weights.json.
  std::map<std::string, double> Weights;
  std::string WeightsCommitment;
  std::string WeightsSource;
  /// Non-fatal findings (weights for unknown ids, problems without weight).
  std::vector<std::string> Warnings;

  const SuiteProblem *find(llvm::StringRef Id) const;
};

/// "sha256:<lower-case hex>" of \p Bytes.
std::string sha256Commitment(llvm::StringRef Bytes);

/// Parses sealed.json (\p Name is used in messages).
llvm::Expected<SealedBundle> parseSealed(llvm::StringRef Name,
                                         llvm::StringRef Text);
/// Parses weights.json into \p B; its commitment must be \p B's.
llvm::Error parseWeights(SealedBundle &B, llvm::StringRef Name,
                         llvm::StringRef Text);
/// Loads a sealed bundle: \p Path is the bundle directory (holding
/// sealed.json and weights.json) or sealed.json itself; \p WeightsPath, when
/// not empty, overrides where weights.json is.
llvm::Expected<SealedBundle> loadSealedBundle(llvm::StringRef Path,
                                              llvm::StringRef WeightsPath = "");
/// Checks the public bundle's `sealed_commitment` (\p PublicPath: the public
/// bundle directory or its public.json) against \p B's commitment.
llvm::Error verifyPublicCommitment(const SealedBundle &B,
                                   llvm::StringRef PublicPath);

} // namespace score
} // namespace atrex

#endif // ATREX_SCORE_SEALED_H

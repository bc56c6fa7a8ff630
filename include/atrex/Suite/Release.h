//===- Release.h - public and sealed bundles of a suite ---------*- C++ -*-===//
//
// Part of atrex. The release contract (docs/release.md): a public bundle
// (public.json, cards/<operator>.md: what submitters may see) and a sealed
// bundle (sealed.json: every problem with facts, provenance, rooflines,
// salt and seeds; weights.json: the weights, refreshable). public.json
// carries sha256 of sealed.json's bytes; weights.json names that commitment.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUITE_RELEASE_H
#define ATREX_SUITE_RELEASE_H

#include "atrex/Suite/Suite.h"

#include <optional>
#include <string>
#include <vector>

namespace atrex::release {

struct PackOptions {
  std::string PublicDir;
  std::string SealedDir;
  /// GPUs for the rooflines; empty: every GPU of the table that has the
  /// peaks every problem needs.
  std::vector<std::string> Gpus;
  /// An atrex-weights file instead of the suite's serving-mix weights.
  std::string WeightsFile;
  /// Strings the public bundle must not contain, besides the suite's deny
  /// list and provenance.
  std::vector<std::string> ExtraDeny;
  /// Fixed salt (hex) and evaluation seed, for reproducible packs.
  std::optional<std::string> Salt;
  std::optional<uint64_t> Seed;
  /// Notes (GPUs left out, unmatched weights) go here.
  llvm::raw_ostream *Notes = nullptr;
};

/// Checks the suite, computes rooflines and writes both bundles. Fails
/// (writing no public bundle) when the leak check finds provenance.
llvm::Error pack(const suite::Suite &S, const OperatorLibrary &Ops,
                 const std::map<std::string, suite::EntrySpec> &Specs,
                 const PackOptions &Options);

/// Checks a sealed bundle against a public one. All problems are reported,
/// each naming the file and the entry.
llvm::Error verify(llvm::StringRef PublicDir, llvm::StringRef SealedDir);

/// Writes a new sealed bundle `OutDir` with the same sealed.json (so the
/// same public bundle) and weights from `WeightsFile` (atrex-weights),
/// after verifying the old one against `PublicDir`.
llvm::Error refreshWeights(llvm::StringRef PublicDir, llvm::StringRef SealedDir,
                           llvm::StringRef WeightsFile, llvm::StringRef OutDir,
                           llvm::raw_ostream *Notes = nullptr);

/// A string the public bundle must not contain, and where it came from.
struct DenyTerm {
  std::string Text;
  std::string Origin; ///< "deny list" or "provenance"
};

/// Scans every file under `Dir` for the terms (case-insensitive). Errors
/// name the string, its origin and the file relative to `Dir`.
llvm::Error leakCheck(llvm::StringRef Dir, llvm::ArrayRef<DenyTerm> Terms);

/// Public text without provenance: `Rewrites` applied, then every
/// parenthesized group that contains a term removed.
std::string sanitize(llvm::StringRef Text,
                     llvm::ArrayRef<suite::Rewrite> Rewrites,
                     llvm::ArrayRef<DenyTerm> Terms);

} // namespace atrex::release

#endif // ATREX_SUITE_RELEASE_H

//===- Mapping.h - GPU kernels to suite operators and shapes ----*- C++ -*-===//
//
// Part of atrex. A mapping file (YAML, docs/trace.md) lists rules tried in
// order: a rule names a suite operator and matches a kernel by its name
// (glob), by an op of its launch stack (glob on aten ops or custom-op names,
// innermost first), by the op's input types, and by a pattern over the op's
// `Input Dims` that binds the operator's shape parameters, for example
// `aten::mm` with dims [[M, K], [K, N]] -> gemm_bf16 {M, N, K}. A composite
// rule (`sequence`) recognises one operator spread over several ops of an
// eager trace: consecutive kernel-launching sibling ops (under one parent on
// one thread) that match its elements in order, such as RMSNorm written as
// pow, mean, add, rsqrt, mul; every kernel of the claimed ops maps to the
// operator with the shape bound across the elements' input dims. Phase rules
// map annotation names to prefill or decode; candidate entries name
// operators that a kernel could be mapped to once the suite has them (for
// `atrex-trace explain`).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TRACE_MAPPING_H
#define ATREX_TRACE_MAPPING_H

#include "atrex/Trace/Kineto.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/StringSaver.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace trace {

enum class Phase { Prefill, Decode, Unknown };
llvm::StringRef phaseName(Phase P);

/// One element of a dims pattern: "4096", "_", "X", "2*X", or a leading
/// "X..." (the product of any number of leading dims; "..." ignores them).
struct DimPattern {
  enum Kind { Literal, Wildcard, Symbol, Product } K = Wildcard;
  int64_t Value = 1; // the literal, or the coefficient of a symbol
  std::string Name;
};

/// One element of a composite rule's sequence: an op (glob) with optional
/// types and dims, which binds symbols shared by the whole sequence.
struct SeqElement {
  std::string OpText;
  std::vector<std::string> Types;
  std::vector<std::vector<std::string>> DimsText;
  /// May be absent; with Repeat, may match several consecutive ops (up to
  /// Max, default 8).
  bool Optional = false, Repeat = false;
  int64_t Max = 0;
  /// False: the op must be there but its kernels are not claimed by the
  /// composite (a GEMM between SiLU and the multiply of a gated MLP).
  bool Claim = true;

  // Derived when the file is loaded.
  std::optional<llvm::GlobPattern> Op;
  std::vector<llvm::GlobPattern> TypeGlobs;
  std::vector<std::optional<std::vector<DimPattern>>> Dims;
};

struct MapRule {
  std::string Name;
  std::string Operator;
  std::string OpGlob, KernelGlob;
  std::vector<std::string> Types;
  std::vector<std::vector<std::string>> DimsText;
  std::vector<std::string> Params;
  /// "NAME=EXPR" with + - * / (floor division), parentheses, integers and
  /// names bound by `dims` or by earlier derivations.
  std::vector<std::string> Derive;
  std::string PhaseText;
  std::string QueryLen;
  /// A composite rule: the ops, in order (no `op`, `types` or `dims`).
  std::vector<SeqElement> Sequence;
  /// Where the rule's patterns come from (documentation; shown by explain).
  std::string Source;

  bool isComposite() const { return !Sequence.empty(); }

  // Derived when the file is loaded.
  std::optional<llvm::GlobPattern> Op, Kernel;
  std::vector<llvm::GlobPattern> TypeGlobs;
  /// One pattern per input; std::nullopt skips the input ("*").
  std::vector<std::optional<std::vector<DimPattern>>> Dims;
  std::vector<std::pair<std::string, std::string>> Derived;
  Phase FixedPhase = Phase::Unknown;
};

struct PhaseRule {
  std::string Annotation;
  std::string PhaseText;
  std::optional<llvm::GlobPattern> Glob;
  Phase P = Phase::Unknown;
};

/// An operator the suite does not have (yet) that kernels matching `kernel`
/// or launched under `op` would map to: `atrex-trace explain` names it.
struct Candidate {
  std::string KernelGlob, OpGlob, Operator, Note;
  std::optional<llvm::GlobPattern> Kernel, Op;
};

/// One recognised composite: the rule, its bound shape and the ops whose
/// kernels it claims.
struct CompositeInstance {
  const MapRule *Rule = nullptr;
  bool HasShape = true;
  std::map<std::string, int64_t> Shape;
  Phase P = Phase::Unknown; // from query_len; Unknown when not decided
  const CpuRange *First = nullptr;
  unsigned NumOps = 0;
};

/// The composites recognised in one trace (Mapping::recognize).
struct Composites {
  std::vector<CompositeInstance> Instances;
  /// Claimed op -> index into Instances.
  llvm::DenseMap<const CpuRange *, int32_t> Claimed;
  const CompositeInstance *of(const CpuRange *Op) const {
    auto It = Claimed.find(Op);
    return It == Claimed.end() ? nullptr : &Instances[It->second];
  }
};

/// What a kernel maps to.
struct Match {
  const MapRule *Rule = nullptr; // null: unmapped
  const CpuRange *Op = nullptr;  // the op whose shapes were used
  /// False when the rule needs shapes the trace did not record.
  bool HasShape = false;
  std::map<std::string, int64_t> Shape;
  Phase P = Phase::Unknown;
};

class Mapping {
public:
  static llvm::Expected<Mapping> load(llvm::StringRef Path);
  static llvm::Expected<Mapping> parse(llvm::StringRef Name,
                                       llvm::StringRef Text);

  /// Maps one kernel of \p T (first matching rule) and decides its phase
  /// from annotations, the rule's fixed phase or its query length. Composite
  /// rules match only through \p C (recognize's result for \p T).
  Match match(const KernelView &K, const Trace &T,
              const Composites *C = nullptr) const;
  /// Recognises the composite rules' sequences among the kernel-launching
  /// sibling ops of \p T; rules claim ops in file order, an op once.
  Composites recognize(const Trace &T) const;
  /// For a kernel that no rule maps: the rules that come closest (a kernel
  /// or op pattern matches but types, dims or the rest of a sequence do
  /// not), each as "rule 'NAME' (operator): why", nearest first, and the
  /// candidate operators whose patterns match it.
  struct NearMiss {
    const MapRule *Rule = nullptr;
    std::string Why;
  };
  std::vector<NearMiss> nearMisses(const KernelView &K, const Trace &T) const;
  std::vector<const Candidate *> candidates(const KernelView &K) const;
  /// The phase named by the innermost annotation that a phase rule matches.
  Phase phaseOf(llvm::ArrayRef<llvm::StringRef> Annotations) const;

  const std::vector<MapRule> &rules() const { return Rules; }
  int64_t decodeMaxQueryLen() const { return DecodeMaxQueryLen; }

  std::vector<MapRule> Rules;
  std::vector<PhaseRule> Phases;
  std::vector<Candidate> Candidates;
  int64_t DecodeMaxQueryLen = 1;

  /// A copy of \p S that lives as long as any copy of this mapping (glob
  /// patterns keep references into their source text).
  llvm::StringRef keep(llvm::StringRef S) {
    return llvm::StringSaver(*Storage).save(S);
  }

private:
  std::shared_ptr<llvm::BumpPtrAllocator> Storage =
      std::make_shared<llvm::BumpPtrAllocator>();
};

/// Binds \p Patterns against \p In; false when the inputs do not fit.
bool bindDims(
    const std::vector<std::optional<std::vector<DimPattern>>> &Patterns,
    const OpInputs &In, std::map<std::string, int64_t> &Symbols);

/// Evaluates a derivation expression over \p Symbols; an error names the
/// problem (syntax, an unbound name, division by zero).
llvm::Expected<int64_t>
evalShapeExpr(llvm::StringRef Expr,
              const std::map<std::string, int64_t> &Symbols);

/// Parses one dims element ("4096", "_", "X", "2*X", "X...", "...").
llvm::Expected<DimPattern> parseDimPattern(llvm::StringRef Text);

} // namespace trace
} // namespace atrex

#endif // ATREX_TRACE_MAPPING_H

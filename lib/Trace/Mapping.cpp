//===- Mapping.cpp - GPU kernels to suite operators and shapes ------------===//

#include "atrex/Trace/Mapping.h"
#include "atrex/Support/YAML.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <limits>
#include <set>

using namespace llvm;
using namespace atrex::trace;

namespace {
struct MappingDoc {
  int64_t Version = 1;
  int64_t DecodeMaxQueryLen = 1;
  std::vector<PhaseRule> Phases;
  std::vector<MapRule> Rules;
  std::vector<Candidate> Candidates;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(MapRule)
LLVM_YAML_IS_SEQUENCE_VECTOR(PhaseRule)
LLVM_YAML_IS_SEQUENCE_VECTOR(SeqElement)
LLVM_YAML_IS_SEQUENCE_VECTOR(Candidate)

namespace llvm {
namespace yaml {
// A dims pattern is a list of lists of strings.
template <> struct SequenceElementTraits<std::vector<std::string>> {
  static const bool flow = false;
};
template <> struct MappingTraits<MapRule> {
  static void mapping(IO &Io, MapRule &R) {
    Io.mapOptional("name", R.Name);
    Io.mapRequired("operator", R.Operator);
    Io.mapOptional("op", R.OpGlob);
    Io.mapOptional("kernel", R.KernelGlob);
    Io.mapOptional("types", R.Types);
    Io.mapOptional("dims", R.DimsText);
    Io.mapOptional("params", R.Params);
    Io.mapOptional("derive", R.Derive);
    Io.mapOptional("phase", R.PhaseText);
    Io.mapOptional("query_len", R.QueryLen);
    Io.mapOptional("sequence", R.Sequence);
    Io.mapOptional("source", R.Source);
  }
};
template <> struct MappingTraits<SeqElement> {
  static void mapping(IO &Io, SeqElement &E) {
    Io.mapRequired("op", E.OpText);
    Io.mapOptional("types", E.Types);
    Io.mapOptional("dims", E.DimsText);
    Io.mapOptional("optional", E.Optional);
    Io.mapOptional("repeat", E.Repeat);
    Io.mapOptional("max", E.Max);
    Io.mapOptional("claim", E.Claim);
  }
};
template <> struct MappingTraits<Candidate> {
  static void mapping(IO &Io, Candidate &C) {
    Io.mapOptional("kernel", C.KernelGlob);
    Io.mapOptional("op", C.OpGlob);
    Io.mapRequired("operator", C.Operator);
    Io.mapOptional("note", C.Note);
  }
};
template <> struct MappingTraits<PhaseRule> {
  static void mapping(IO &Io, PhaseRule &R) {
    Io.mapRequired("annotation", R.Annotation);
    Io.mapRequired("phase", R.PhaseText);
  }
};
template <> struct MappingTraits<MappingDoc> {
  static void mapping(IO &Io, MappingDoc &D) {
    Io.mapRequired("version", D.Version);
    Io.mapOptional("decode_max_query_len", D.DecodeMaxQueryLen);
    Io.mapOptional("phases", D.Phases);
    Io.mapRequired("rules", D.Rules);
    Io.mapOptional("candidates", D.Candidates);
  }
};
} // namespace yaml
} // namespace llvm

namespace atrex {
namespace trace {

StringRef phaseName(Phase P) {
  switch (P) {
  case Phase::Prefill:
    return "prefill";
  case Phase::Decode:
    return "decode";
  case Phase::Unknown:
    break;
  }
  return "unknown";
}

static std::optional<Phase> parsePhase(StringRef S) {
  if (S == "prefill")
    return Phase::Prefill;
  if (S == "decode")
    return Phase::Decode;
  return std::nullopt;
}

Expected<DimPattern> parseDimPattern(StringRef Text) {
  DimPattern P;
  StringRef T = Text.trim();
  auto Bad = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "bad dims element '" + Text + "': " + Why);
  };
  auto IsName = [](StringRef S) {
    return !S.empty() && (isAlpha(S[0]) || S[0] == '_') &&
           all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
  };
  if (T == "_" || T == "...") {
    P.K = T == "_" ? DimPattern::Wildcard : DimPattern::Product;
    return P;
  }
  if (T.consume_back("...")) {
    if (!IsName(T))
      return Bad("expected NAME...");
    P.K = DimPattern::Product;
    P.Name = T.str();
    return P;
  }
  int64_t V;
  if (!T.getAsInteger(10, V)) {
    P.K = DimPattern::Literal;
    P.Value = V;
    return P;
  }
  auto [Coef, Name] = T.split('*');
  if (!Name.empty()) {
    if (Coef.trim().getAsInteger(10, P.Value) || P.Value <= 0)
      return Bad("expected a positive coefficient before '*'");
    T = Name.trim();
  }
  if (!IsName(T))
    return Bad("expected a number, '_', NAME, C*NAME or NAME...");
  P.K = DimPattern::Symbol;
  P.Name = T.str();
  return P;
}

namespace {
/// Recursive descent over + - * / ( ) integers and names.
class ExprParser {
  StringRef S;
  size_t Pos = 0;
  const std::map<std::string, int64_t> &Syms;

public:
  std::string Err;
  ExprParser(StringRef S, const std::map<std::string, int64_t> &Syms)
      : S(S), Syms(Syms) {}
  void skip() {
    while (Pos < S.size() && S[Pos] == ' ')
      ++Pos;
  }
  bool done() {
    skip();
    return Pos == S.size();
  }
  int64_t sum() {
    int64_t V = product();
    for (;;) {
      skip();
      if (!Err.empty() || Pos >= S.size() || (S[Pos] != '+' && S[Pos] != '-'))
        return V;
      char Op = S[Pos++];
      int64_t R = product();
      if (!Err.empty())
        return 0;
      std::optional<int64_t> W =
          Op == '+' ? checkedAdd(V, R) : checkedSub(V, R);
      if (!W) {
        Err = "value out of the 64-bit range";
        return 0;
      }
      V = *W;
    }
  }
  int64_t product() {
    int64_t V = atom();
    for (;;) {
      skip();
      if (!Err.empty() || Pos >= S.size() || (S[Pos] != '*' && S[Pos] != '/'))
        return V;
      char Op = S[Pos++];
      int64_t R = atom();
      if (!Err.empty())
        return 0;
      if (Op == '*') {
        std::optional<int64_t> W = checkedMul(V, R);
        if (!W) {
          Err = "value out of the 64-bit range";
          return 0;
        }
        V = *W;
      } else if (R == 0) {
        Err = "division by zero";
        return 0;
      } else if (R == -1 && V == std::numeric_limits<int64_t>::min()) {
        Err = "value out of the 64-bit range";
        return 0;
      } else
        V = V / R - ((V % R != 0) && ((V < 0) != (R < 0)));
    }
  }
  int64_t atom() {
    skip();
    if (Pos >= S.size()) {
      Err = "unexpected end";
      return 0;
    }
    if (S[Pos] == '(') {
      ++Pos;
      int64_t V = sum();
      skip();
      if (Err.empty() && (Pos >= S.size() || S[Pos] != ')'))
        Err = "expected ')'";
      ++Pos;
      return V;
    }
    size_t Start = Pos;
    if (isDigit(S[Pos])) {
      while (Pos < S.size() && isDigit(S[Pos]))
        ++Pos;
      int64_t V = 0;
      if (S.substr(Start, Pos - Start).getAsInteger(10, V)) {
        Err = "integer '" + S.substr(Start, Pos - Start).str() +
              "' out of the 64-bit range";
        return 0;
      }
      return V;
    }
    while (Pos < S.size() && (isAlnum(S[Pos]) || S[Pos] == '_'))
      ++Pos;
    if (Pos == Start) {
      Err = "unexpected '" + std::string(1, S[Pos]) + "'";
      return 0;
    }
    std::string Name = S.substr(Start, Pos - Start).str();
    auto It = Syms.find(Name);
    if (It == Syms.end()) {
      Err = "unbound name '" + Name + "'";
      return 0;
    }
    return It->second;
  }
};
} // namespace

Expected<int64_t> evalShapeExpr(StringRef Expr,
                                const std::map<std::string, int64_t> &Syms) {
  ExprParser P(Expr, Syms);
  int64_t V = P.sum();
  if (P.Err.empty() && !P.done())
    P.Err = "trailing text";
  if (!P.Err.empty())
    return createStringError(inconvertibleErrorCode(),
                             "expression '" + Expr + "': " + P.Err);
  return V;
}

static bool bindOne(const DimPattern &P, int64_t D,
                    std::map<std::string, int64_t> &S) {
  switch (P.K) {
  case DimPattern::Literal:
    return D == P.Value;
  case DimPattern::Wildcard:
    return true;
  case DimPattern::Symbol: {
    if (D % P.Value != 0)
      return false;
    auto [It, New] = S.try_emplace(P.Name, D / P.Value);
    return New || It->second == D / P.Value;
  }
  case DimPattern::Product:
    break;
  }
  return false;
}

bool bindDims(const std::vector<std::optional<std::vector<DimPattern>>> &Pats,
              const OpInputs &In, std::map<std::string, int64_t> &S) {
  for (size_t I = 0; I < Pats.size(); ++I) {
    if (!Pats[I])
      continue;
    if (I >= In.Dims.size() || In.IsList[I])
      return false;
    const std::vector<DimPattern> &P = *Pats[I];
    const std::vector<int64_t> &D = In.Dims[I];
    size_t Fixed = P.size();
    bool Lead = !P.empty() && P[0].K == DimPattern::Product;
    if (Lead)
      --Fixed;
    if (Lead ? D.size() < Fixed : D.size() != Fixed)
      return false;
    size_t NLead = D.size() - Fixed;
    if (Lead && !P[0].Name.empty()) {
      int64_t Prod = 1;
      for (size_t J = 0; J < NLead; ++J)
        Prod *= D[J];
      auto [It, New] = S.try_emplace(P[0].Name, Prod);
      if (!New && It->second != Prod)
        return false;
    }
    for (size_t J = 0; J < Fixed; ++J)
      if (!bindOne(P[J + (Lead ? 1 : 0)], D[NLead + J], S))
        return false;
  }
  return true;
}

/// Globs may use brace alternatives ("aten::{add,masked_fill}"), at most
/// this many.
static constexpr size_t MaxBraces = 64;

/// Parses one rule's or element's dims text; adds the bound names.
static Error
parseDims(const std::vector<std::vector<std::string>> &Text,
          std::vector<std::optional<std::vector<DimPattern>>> &Dims,
          std::set<std::string> &Symbols) {
  for (const std::vector<std::string> &Input : Text) {
    if (Input.size() == 1 && Input[0] == "*") {
      Dims.push_back(std::nullopt);
      continue;
    }
    std::vector<DimPattern> Pats;
    for (size_t J = 0; J < Input.size(); ++J) {
      auto P = parseDimPattern(Input[J]);
      if (!P)
        return P.takeError();
      if (P->K == DimPattern::Product && J != 0)
        return createStringError(inconvertibleErrorCode(),
                                 "'" + Input[J] +
                                     "' is allowed only as the first element");
      if (!P->Name.empty())
        Symbols.insert(P->Name);
      Pats.push_back(std::move(*P));
    }
    Dims.push_back(std::move(Pats));
  }
  return Error::success();
}

Expected<Mapping> Mapping::parse(StringRef Name, StringRef Text) {
  MappingDoc Doc;
  if (std::optional<std::string> Diags = readYAML(Text, "", Doc))
    return createStringError(inconvertibleErrorCode(),
                             "invalid mapping file '" + Name +
                                 "': " + StringRef(*Diags).trim());
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             "mapping file '" + Name + "': " + Msg);
  };
  if (Doc.Version != 1)
    return Fail("unsupported version " + Twine(Doc.Version) + " (expected 1)");
  Mapping M;
  M.DecodeMaxQueryLen = Doc.DecodeMaxQueryLen;
  for (PhaseRule &P : Doc.Phases) {
    auto Ph = parsePhase(P.PhaseText);
    if (!Ph)
      return Fail("phase rule '" + P.Annotation +
                  "': phase must be prefill "
                  "or decode, not '" +
                  P.PhaseText + "'");
    P.P = *Ph;
    auto G = GlobPattern::create(M.keep(P.Annotation), MaxBraces);
    if (!G)
      return Fail("phase rule '" + P.Annotation +
                  "': " + toString(G.takeError()));
    P.Glob = std::move(*G);
    M.Phases.push_back(std::move(P));
  }
  for (size_t I = 0; I < Doc.Rules.size(); ++I) {
    MapRule &R = Doc.Rules[I];
    std::string Id = R.Name.empty() ? "rule " + std::to_string(I + 1) + " (" +
                                          R.Operator + ")"
                                    : "rule '" + R.Name + "'";
    if (R.Operator.empty())
      return Fail(Id + ": empty operator");
    for (auto [Glob, Out] :
         {std::pair(&R.OpGlob, &R.Op), std::pair(&R.KernelGlob, &R.Kernel)}) {
      if (Glob->empty())
        continue;
      auto G = GlobPattern::create(M.keep(*Glob), MaxBraces);
      if (!G)
        return Fail(Id + ": " + toString(G.takeError()));
      *Out = std::move(*G);
    }
    for (const std::string &T : R.Types) {
      auto G = GlobPattern::create(M.keep(T), MaxBraces);
      if (!G)
        return Fail(Id + ": " + toString(G.takeError()));
      R.TypeGlobs.push_back(std::move(*G));
    }
    std::set<std::string> Symbols;
    if (Error E = parseDims(R.DimsText, R.Dims, Symbols))
      return Fail(Id + ": " + toString(std::move(E)));
    if (R.isComposite()) {
      if (!R.OpGlob.empty() || !R.KernelGlob.empty() || !R.Types.empty() ||
          !R.DimsText.empty())
        return Fail(Id + ": a rule with a 'sequence' takes no 'op', "
                         "'kernel', 'types' or 'dims' (give them per element)");
      bool Claims = false;
      for (size_t J = 0; J < R.Sequence.size(); ++J) {
        SeqElement &E = R.Sequence[J];
        std::string EId = Id + ": sequence element " + std::to_string(J + 1);
        if (StringRef(E.OpText).trim().empty())
          return Fail(EId + ": empty 'op'");
        auto G = GlobPattern::create(M.keep(E.OpText), MaxBraces);
        if (!G)
          return Fail(EId + ": " + toString(G.takeError()));
        E.Op = std::move(*G);
        for (const std::string &T : E.Types) {
          auto TG = GlobPattern::create(M.keep(T), MaxBraces);
          if (!TG)
            return Fail(EId + ": " + toString(TG.takeError()));
          E.TypeGlobs.push_back(std::move(*TG));
        }
        if (Error Err = parseDims(E.DimsText, E.Dims, Symbols))
          return Fail(EId + ": " + toString(std::move(Err)));
        if (E.Max < 0 || E.Max > 64 || (E.Max && !E.Repeat))
          return Fail(EId + ": 'max' must be in 1..64 and needs 'repeat'");
        Claims |= E.Claim && !E.Optional;
      }
      if (!Claims)
        return Fail(Id + ": the sequence needs an element that is neither "
                         "optional nor 'claim: false'");
    } else if (R.OpGlob.empty() && R.KernelGlob.empty())
      return Fail(Id + ": needs 'op', 'kernel' or 'sequence'");
    // Derivations, checked with every bound name set to 1.
    {
      std::map<std::string, int64_t> Probe;
      for (const std::string &S : Symbols)
        Probe[S] = 1;
      for (const std::string &D : R.Derive) {
        auto [Lhs, Rhs] = StringRef(D).split('=');
        Lhs = Lhs.trim();
        if (Rhs.empty() || Lhs.empty())
          return Fail(Id + ": derive '" + D + "' is not NAME=EXPR");
        auto V = evalShapeExpr(Rhs, Probe);
        if (!V) {
          std::string Msg = toString(V.takeError());
          if (!StringRef(Msg).contains("division by zero"))
            return Fail(Id + ": derive '" + D + "': " + Msg);
        }
        Probe[Lhs.str()] = 1;
        Symbols.insert(Lhs.str());
        R.Derived.emplace_back(Lhs.str(), Rhs.trim().str());
      }
    }
    if (R.Params.empty()) {
      for (const std::string &S : Symbols)
        if (S[0] != '_')
          R.Params.push_back(S);
    } else {
      for (const std::string &P : R.Params)
        if (!Symbols.count(P))
          return Fail(Id + ": parameter '" + P + "' is not bound by 'dims'");
    }
    if (!R.QueryLen.empty() && !Symbols.count(R.QueryLen))
      return Fail(Id + ": query_len '" + R.QueryLen +
                  "' is not bound by 'dims'");
    if (!R.PhaseText.empty()) {
      auto Ph = parsePhase(R.PhaseText);
      if (!Ph)
        return Fail(Id + ": phase must be prefill or decode, not '" +
                    R.PhaseText + "'");
      R.FixedPhase = *Ph;
    }
    M.Rules.push_back(std::move(R));
  }
  for (size_t I = 0; I < Doc.Candidates.size(); ++I) {
    Candidate &C = Doc.Candidates[I];
    std::string Id =
        "candidate " + std::to_string(I + 1) + " (" + C.Operator + ")";
    if (StringRef(C.Operator).trim().empty())
      return Fail("candidate " + std::to_string(I + 1) + ": empty operator");
    if (C.KernelGlob.empty() && C.OpGlob.empty())
      return Fail(Id + ": needs 'kernel' or 'op'");
    for (auto [Glob, Out] :
         {std::pair(&C.OpGlob, &C.Op), std::pair(&C.KernelGlob, &C.Kernel)}) {
      if (Glob->empty())
        continue;
      auto G = GlobPattern::create(M.keep(*Glob), MaxBraces);
      if (!G)
        return Fail(Id + ": " + toString(G.takeError()));
      *Out = std::move(*G);
    }
    M.Candidates.push_back(std::move(C));
  }
  return std::move(M);
}

Expected<Mapping> Mapping::load(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(inconvertibleErrorCode(),
                             "cannot read mapping file '" + Path +
                                 "': " + Buf.getError().message());
  return parse(Path, (*Buf)->getBuffer());
}

Phase Mapping::phaseOf(ArrayRef<StringRef> Annotations) const {
  for (StringRef A : Annotations)
    for (const PhaseRule &P : Phases)
      if (P.Glob->match(A))
        return P.P;
  return Phase::Unknown;
}

static bool typesMatch(ArrayRef<GlobPattern> Globs, const OpInputs &In) {
  // Traces that record no types (Nsight Systems with emit_nvtx) are not
  // filtered by type.
  if (In.Types.empty())
    return true;
  for (size_t I = 0; I < Globs.size(); ++I)
    if (I >= In.Types.size() || !Globs[I].match(In.Types[I]))
      return false;
  return true;
}
static bool typesMatch(const MapRule &R, const OpInputs &In) {
  return typesMatch(R.TypeGlobs, In);
}

/// Evaluates \p R's derivations into \p Symbols; false when one fails.
static bool applyDerive(const MapRule &R, std::map<std::string, int64_t> &S) {
  for (auto &[Name, Expr] : R.Derived) {
    auto V = evalShapeExpr(Expr, S);
    if (!V) {
      consumeError(V.takeError());
      return false;
    }
    S[Name] = *V;
  }
  return true;
}

Match Mapping::match(const KernelView &K, const Trace &T,
                     const Composites *C) const {
  Match M;
  Phase FromAnnotation = phaseOf(K.Annotations);
  for (const MapRule &R : Rules) {
    if (R.isComposite()) {
      if (!C)
        continue;
      const CompositeInstance *I = nullptr;
      const CpuRange *At = nullptr;
      for (const CpuRange *Op : K.Stack)
        if (const CompositeInstance *CI = C->of(Op); CI && CI->Rule == &R) {
          I = CI;
          At = Op;
          break;
        }
      if (!I)
        continue;
      M.Rule = &R;
      M.Op = At;
      M.HasShape = I->HasShape;
      M.Shape = I->Shape;
      M.P = FromAnnotation != Phase::Unknown ? FromAnnotation
            : R.FixedPhase != Phase::Unknown ? R.FixedPhase
                                             : I->P;
      return M;
    }
    if (R.Kernel && !R.Kernel->match(K.Name))
      continue;
    // Candidate ops: those the rule names, innermost first; without 'op',
    // the innermost op (or none).
    SmallVector<const CpuRange *, 8> Candidates;
    if (R.Op) {
      for (const CpuRange *C : K.Stack)
        if (R.Op->match(C->Name))
          Candidates.push_back(C);
      if (Candidates.empty())
        continue;
    } else {
      const CpuRange *Inner = nullptr;
      for (const CpuRange *C : K.Stack)
        if (C->IsOp) {
          Inner = C;
          break;
        }
      Candidates.push_back(Inner);
    }
    bool Found = false;
    for (const CpuRange *C : Candidates) {
      if (C && C->Inputs >= 0 && !typesMatch(R, T.inputs(C->Inputs)))
        continue;
      if (R.Dims.empty() || !C || C->Inputs < 0) {
        // The rule applies but gives no shape: it has no dims pattern or the
        // trace has no shapes for the op.
        M.Op = C;
        M.HasShape = false;
        Found = true;
        break;
      }
      const OpInputs &In = T.inputs(C->Inputs);
      std::map<std::string, int64_t> Symbols;
      if (!typesMatch(R, In) || !bindDims(R.Dims, In, Symbols))
        continue;
      if (!applyDerive(R, Symbols))
        continue;
      M.Op = C;
      M.HasShape = true;
      for (const std::string &P : R.Params)
        M.Shape[P] = Symbols[P];
      if (!R.QueryLen.empty() && FromAnnotation == Phase::Unknown &&
          R.FixedPhase == Phase::Unknown)
        M.P = Symbols[R.QueryLen] <= DecodeMaxQueryLen ? Phase::Decode
                                                       : Phase::Prefill;
      Found = true;
      break;
    }
    if (!Found)
      continue;
    M.Rule = &R;
    if (FromAnnotation != Phase::Unknown)
      M.P = FromAnnotation;
    else if (R.FixedPhase != Phase::Unknown)
      M.P = R.FixedPhase;
    return M;
  }
  M.P = FromAnnotation;
  return M;
}

namespace {
/// Matches one composite rule's sequence against a list of sibling ops.
class SeqMatcher {
  const MapRule &R;
  const Trace &T;
  ArrayRef<const CpuRange *> Ops;
  const Composites &C;

public:
  /// Per element: the first op index and the number of ops it matched.
  std::vector<std::pair<size_t, size_t>> Spans;
  std::map<std::string, int64_t> Symbols;
  size_t End = 0;

  SeqMatcher(const MapRule &R, const Trace &T, ArrayRef<const CpuRange *> Ops,
             const Composites &C)
      : R(R), T(T), Ops(Ops), C(C), Spans(R.Sequence.size()) {}

  static bool fits(const SeqElement &E, const CpuRange *Op, const Trace &T,
                   std::map<std::string, int64_t> &S) {
    if (!E.Op->match(Op->Name))
      return false;
    if (Op->Inputs >= 0 && !typesMatch(E.TypeGlobs, T.inputs(Op->Inputs)))
      return false;
    if (E.Dims.empty())
      return true;
    if (Op->Inputs < 0)
      return false;
    std::map<std::string, int64_t> Next = S;
    if (!bindDims(E.Dims, T.inputs(Op->Inputs), Next))
      return false;
    S = std::move(Next);
    return true;
  }

  bool run(size_t EI, size_t Pos, const std::map<std::string, int64_t> &S) {
    if (EI == R.Sequence.size()) {
      End = Pos;
      Symbols = S;
      return true;
    }
    const SeqElement &E = R.Sequence[EI];
    size_t MaxN = E.Repeat ? size_t(E.Max > 0 ? E.Max : 8) : 1;
    // States[n]: the symbols after the element matched n ops.
    std::vector<std::map<std::string, int64_t>> States{S};
    for (size_t N = 0; N < MaxN && Pos + N < Ops.size(); ++N) {
      const CpuRange *Op = Ops[Pos + N];
      if (E.Claim && C.Claimed.count(Op))
        break;
      std::map<std::string, int64_t> Next = States.back();
      if (!fits(E, Op, T, Next))
        break;
      States.push_back(std::move(Next));
    }
    size_t MinN = E.Optional ? 0 : 1;
    for (size_t N = States.size(); N-- > MinN;) {
      Spans[EI] = {Pos, N};
      if (run(EI + 1, Pos + N, States[N]))
        return true;
    }
    return false;
  }
};
} // namespace

namespace {
/// A necessary condition for a composite rule to consume ops from a
/// position: the ops' names alone fit its sequence, with every element's
/// types, dims, claims and repeat limit left out (each of those only
/// rejects more). The sequence is read as an automaton over the elements
/// (at most 63: a bit each; longer sequences are not filtered), so the
/// check costs one step per op it reads and allocates nothing.
class NameOnlyMatcher {
  const MapRule &R;
  size_t N;
  bool Usable;
  uint64_t OptionalMask = 0, RepeatMask = 0;
  /// Per op name: the elements whose op pattern matches it.
  DenseMap<const char *, uint64_t> Fits;

  uint64_t fits(StringRef Name) {
    auto [It, New] = Fits.try_emplace(Name.data(), 0);
    if (New)
      for (size_t E = 0; E < N; ++E)
        if (R.Sequence[E].Op->match(Name))
          It->second |= uint64_t(1) << E;
    return It->second;
  }
  /// States (elements still to match; bit N: the sequence is done) closed
  /// under skipping optional elements.
  uint64_t closure(uint64_t S) const {
    for (size_t E = 0; E < N; ++E)
      if ((S >> E & 1) && (OptionalMask >> E & 1))
        S |= uint64_t(1) << (E + 1);
    return S;
  }

public:
  explicit NameOnlyMatcher(const MapRule &R)
      : R(R), N(R.Sequence.size()), Usable(N < 64) {
    if (!Usable)
      return;
    for (size_t E = 0; E < N; ++E) {
      if (R.Sequence[E].Optional)
        OptionalMask |= uint64_t(1) << E;
      if (R.Sequence[E].Repeat)
        RepeatMask |= uint64_t(1) << E;
    }
  }

  /// False when no match of the sequence that starts at Ops[Pos] consumes
  /// at least one op.
  bool mayConsume(ArrayRef<const CpuRange *> Ops, size_t Pos) {
    if (!Usable)
      return true;
    uint64_t Done = uint64_t(1) << N;
    uint64_t S = closure(1);
    for (size_t P = Pos; P < Ops.size(); ++P) {
      uint64_t Matched = S & fits(Ops[P]->Name);
      if (!Matched)
        return false;
      // An element that matched moves on; a repeated one may match again.
      S = closure((Matched << 1) | (Matched & RepeatMask));
      if (S & Done)
        return true;
    }
    return false;
  }
};
} // namespace

Composites Mapping::recognize(const Trace &T) const {
  Composites Out;
  if (none_of(Rules, [](const MapRule &R) { return R.isComposite(); }))
    return Out;
  // The ops that launched a kernel (directly or through a nested op).
  std::vector<bool> Launching = T.launchingRanges();
  // Sibling lists: launching ops with the same parent on the same thread,
  // in time order.
  std::map<std::tuple<uint64_t, uint64_t, int32_t>,
           std::vector<const CpuRange *>>
      Groups;
  size_t Index = 0;
  // Consecutive ops mostly share their group: the last one is kept at hand.
  std::tuple<uint64_t, uint64_t, int32_t> LastKey;
  std::vector<const CpuRange *> *LastGroup = nullptr;
  for (const CpuRange &R : T.ranges()) {
    if (!Launching[Index++] || !R.IsOp)
      continue;
    std::tuple<uint64_t, uint64_t, int32_t> Key{R.Pid, R.Tid, R.Parent};
    if (!LastGroup || Key != LastKey) {
      LastGroup = &Groups[Key];
      LastKey = Key;
    }
    LastGroup->push_back(&R);
  }
  for (auto &[Key, Ops] : Groups) {
    auto ByTs = [](const CpuRange *L, const CpuRange *R) {
      return L->Ts < R->Ts;
    };
    if (!std::is_sorted(Ops.begin(), Ops.end(), ByTs))
      std::stable_sort(Ops.begin(), Ops.end(), ByTs);
  }
  // A match that consumes an op starts with an element, after optional
  // ones only, whose op pattern the op's name matches: per composite rule
  // (the first 64) a bit of the names that can start one, per op name.
  std::vector<const MapRule *> Composite;
  for (const MapRule &R : Rules)
    if (R.isComposite())
      Composite.push_back(&R);
  DenseMap<const char *, uint64_t> StartsByName;
  auto Starts = [&](StringRef Name) {
    auto [It, New] = StartsByName.try_emplace(Name.data(), 0);
    if (New)
      for (size_t B = 0; B < Composite.size() && B < 64; ++B)
        for (const SeqElement &E : Composite[B]->Sequence) {
          if (E.Op->match(Name)) {
            It->second |= uint64_t(1) << B;
            break;
          }
          if (!E.Optional)
            break;
        }
    return It->second;
  };
  // Per group, the ops that can start a composite (most cannot), with
  // their bits.
  struct Starters {
    std::vector<uint32_t> Pos;
    std::vector<uint64_t> Bits;
  };
  std::map<std::tuple<uint64_t, uint64_t, int32_t>, Starters> GroupStarts;
  for (auto &[Key, Ops] : Groups) {
    Starters &S = GroupStarts[Key];
    for (size_t I = 0; I < Ops.size(); ++I)
      if (uint64_t Bits = Starts(Ops[I]->Name)) {
        S.Pos.push_back(uint32_t(I));
        S.Bits.push_back(Bits);
      }
  }
  for (size_t B = 0; B < Composite.size(); ++B) {
    const MapRule &R = *Composite[B];
    NameOnlyMatcher Names(R);
    for (auto &[Key, Ops] : Groups) {
      // Tries R at Ops[I]; returns the next op to try (after the match).
      auto TryAt = [&, &Ops = Ops](size_t I) -> size_t {
        if (!Names.mayConsume(Ops, I))
          return I + 1; // not even the ops' names fit R's sequence
        SeqMatcher SM(R, T, Ops, Out);
        if (!SM.run(0, I, {}) || SM.End == I)
          return I + 1;
        std::map<std::string, int64_t> S = SM.Symbols;
        if (!applyDerive(R, S))
          return I + 1;
        CompositeInstance CI;
        CI.Rule = &R;
        CI.First = Ops[I];
        CI.HasShape = all_of(
            R.Params, [&](const std::string &P) { return S.count(P) != 0; });
        if (CI.HasShape)
          for (const std::string &P : R.Params)
            CI.Shape[P] = S[P];
        if (!R.QueryLen.empty() && S.count(R.QueryLen))
          CI.P = S[R.QueryLen] <= DecodeMaxQueryLen ? Phase::Decode
                                                    : Phase::Prefill;
        int32_t Index = int32_t(Out.Instances.size());
        for (size_t EI = 0; EI < R.Sequence.size(); ++EI) {
          if (!R.Sequence[EI].Claim)
            continue;
          auto [From, N] = SM.Spans[EI];
          for (size_t J = From; J < From + N; ++J) {
            Out.Claimed[Ops[J]] = Index;
            ++CI.NumOps;
          }
        }
        Out.Instances.push_back(std::move(CI));
        return SM.End;
      };
      if (B >= 64) {
        for (size_t I = 0; I < Ops.size();)
          I = TryAt(I);
        continue;
      }
      // Only an op whose bit for R is set can start a match of R that
      // consumes it; the ops a match consumed are not tried again.
      const Starters &S = GroupStarts[Key];
      size_t Next = 0;
      for (size_t K = 0; K < S.Pos.size(); ++K)
        if (S.Pos[K] >= Next && (S.Bits[K] >> B & 1))
          Next = TryAt(S.Pos[K]);
    }
  }
  return Out;
}

static std::string dimsOf(const OpInputs &In) {
  std::string S;
  for (size_t I = 0; I < In.Dims.size(); ++I) {
    S += I ? " (" : "(";
    if (In.IsList[I])
      S += "list";
    for (size_t J = 0; J < In.Dims[I].size(); ++J)
      S += (J ? "," : "") + std::to_string(In.Dims[I][J]);
    S += ")";
  }
  return S;
}

static std::string patternText(const std::vector<std::vector<std::string>> &D) {
  std::string S = "[";
  for (size_t I = 0; I < D.size(); ++I) {
    S += I ? ", [" : "[";
    S += join(D[I], ", ");
    S += "]";
  }
  return S + "]";
}

/// "to? pow mean add rsqrt mul to? mul": the ops of a sequence without
/// their namespace ('?' optional, '+' repeated, '(...)' not claimed).
static std::string sequenceText(const MapRule &R) {
  std::string S;
  for (const SeqElement &E : R.Sequence) {
    StringRef Op = E.OpText;
    if (size_t P = Op.rfind("::"); P != StringRef::npos)
      Op = Op.drop_front(P + 2);
    std::string Item = Op == "*" ? "..." : Op.str();
    if (Op == "*")
      ;
    else if (E.Repeat)
      Item += E.Optional ? "*" : "+";
    else if (E.Optional)
      Item += "?";
    if (!E.Claim)
      Item = "(" + Item + ")";
    S += (S.empty() ? "" : " ") + Item;
  }
  return S;
}

std::vector<Mapping::NearMiss> Mapping::nearMisses(const KernelView &K,
                                                   const Trace &T) const {
  // Closeness: 3 the shapes or types are the only difference, 2 a named
  // op or kernel pattern matches, 1 the op is one element of a sequence.
  std::vector<std::pair<int, NearMiss>> Found;
  for (const MapRule &R : Rules) {
    if (R.isComposite()) {
      for (const CpuRange *Op : K.Stack) {
        if (!Op->IsOp)
          continue;
        for (size_t EI = 0; EI < R.Sequence.size(); ++EI) {
          const SeqElement &E = R.Sequence[EI];
          if (!E.Claim || E.OpText == "*" || !E.Op->match(Op->Name))
            continue;
          std::map<std::string, int64_t> S;
          bool DimsFit = SeqMatcher::fits(E, Op, T, S);
          std::string Why = "composite: '" + Op->Name.str() + "' is element " +
                            std::to_string(EI + 1) + " of [" + sequenceText(R) +
                            "]";
          if (!DimsFit && !E.DimsText.empty())
            Why += ", but its dims " +
                   (Op->Inputs >= 0 ? dimsOf(T.inputs(Op->Inputs))
                                    : std::string("(not recorded)")) +
                   " do not fit " + patternText(E.DimsText);
          else
            Why += "; the ops next to it do not complete the sequence";
          Found.push_back({DimsFit ? 2 : 1, NearMiss{&R, Why}});
          goto NextRule;
        }
      }
      continue;
    }
    {
      bool KernelNamed = R.Kernel && R.KernelGlob != "*";
      if (R.Kernel && !R.Kernel->match(K.Name))
        continue;
      if (!R.Op) {
        // A kernel-name rule that did not map: its op's types or dims.
        if (!KernelNamed)
          continue;
      }
      for (const CpuRange *Op : K.Stack) {
        if (R.Op ? !R.Op->match(Op->Name) : !Op->IsOp)
          continue;
        if (Op->Inputs < 0)
          continue;
        const OpInputs &In = T.inputs(Op->Inputs);
        if (!typesMatch(R, In)) {
          Found.push_back(
              {3,
               NearMiss{&R, "'" + Op->Name.str() + "' has types [" +
                                join(In.Types, ", ") + "], the rule wants [" +
                                join(R.Types, ", ") + "]"}});
          goto NextRule;
        }
        std::map<std::string, int64_t> S;
        if (!bindDims(R.Dims, In, S)) {
          Found.push_back(
              {3, NearMiss{&R, "'" + Op->Name.str() + "' has dims " +
                                   dimsOf(In) + ", the rule wants " +
                                   patternText(R.DimsText)}});
          goto NextRule;
        }
        if (!applyDerive(R, S)) {
          Found.push_back(
              {3, NearMiss{&R, "'" + Op->Name.str() + "' dims " + dimsOf(In) +
                                   " fit, but a derivation fails (" +
                                   join(R.Derive, "; ") + ")"}});
          goto NextRule;
        }
      }
      if (KernelNamed && R.Op)
        Found.push_back(
            {2, NearMiss{&R, "the kernel name matches '" + R.KernelGlob +
                                 "' but no launching op matches '" + R.OpGlob +
                                 "'"}});
    }
  NextRule:;
  }
  std::stable_sort(Found.begin(), Found.end(),
                   [](auto &L, auto &R) { return L.first > R.first; });
  std::vector<NearMiss> Out;
  for (auto &F : Found)
    Out.push_back(std::move(F.second));
  return Out;
}

std::vector<const Candidate *> Mapping::candidates(const KernelView &K) const {
  std::vector<const Candidate *> Out;
  for (const Candidate &C : Candidates) {
    bool Hit = C.Kernel && C.Kernel->match(K.Name);
    if (!Hit && C.Op)
      Hit = any_of(K.Stack,
                   [&](const CpuRange *R) { return C.Op->match(R->Name); });
    if (Hit)
      Out.push_back(&C);
  }
  return Out;
}

} // namespace trace
} // namespace atrex

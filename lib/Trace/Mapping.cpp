//===- Mapping.cpp - GPU kernels to suite operators and shapes ------------===//

#include "atrex/Trace/Mapping.h"
#include "atrex/Support/YAML.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace llvm;
using namespace atrex::trace;

namespace {
struct MappingDoc {
  int64_t Version = 1;
  int64_t DecodeMaxQueryLen = 1;
  std::vector<PhaseRule> Phases;
  std::vector<MapRule> Rules;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(MapRule)
LLVM_YAML_IS_SEQUENCE_VECTOR(PhaseRule)

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
      V = Op == '+' ? V + R : V - R;
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
      if (Op == '*')
        V *= R;
      else if (R == 0) {
        Err = "division by zero";
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
      S.substr(Start, Pos - Start).getAsInteger(10, V);
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
    auto G = GlobPattern::create(M.keep(P.Annotation));
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
    if (R.OpGlob.empty() && R.KernelGlob.empty())
      return Fail(Id + ": needs 'op' or 'kernel'");
    for (auto [Glob, Out] :
         {std::pair(&R.OpGlob, &R.Op), std::pair(&R.KernelGlob, &R.Kernel)}) {
      if (Glob->empty())
        continue;
      auto G = GlobPattern::create(M.keep(*Glob));
      if (!G)
        return Fail(Id + ": " + toString(G.takeError()));
      *Out = std::move(*G);
    }
    for (const std::string &T : R.Types) {
      auto G = GlobPattern::create(M.keep(T));
      if (!G)
        return Fail(Id + ": " + toString(G.takeError()));
      R.TypeGlobs.push_back(std::move(*G));
    }
    std::set<std::string> Symbols;
    for (const std::vector<std::string> &Input : R.DimsText) {
      if (Input.size() == 1 && Input[0] == "*") {
        R.Dims.push_back(std::nullopt);
        continue;
      }
      std::vector<DimPattern> Pats;
      for (size_t J = 0; J < Input.size(); ++J) {
        auto P = parseDimPattern(Input[J]);
        if (!P)
          return Fail(Id + ": " + toString(P.takeError()));
        if (P->K == DimPattern::Product && J != 0)
          return Fail(Id + ": '" + Input[J] +
                      "' is allowed only as the first element");
        if (!P->Name.empty())
          Symbols.insert(P->Name);
        Pats.push_back(std::move(*P));
      }
      R.Dims.push_back(std::move(Pats));
    }
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

static bool typesMatch(const MapRule &R, const OpInputs &In) {
  // Traces that record no types (Nsight Systems with emit_nvtx) are not
  // filtered by type.
  if (In.Types.empty())
    return true;
  for (size_t I = 0; I < R.TypeGlobs.size(); ++I)
    if (I >= In.Types.size() || !R.TypeGlobs[I].match(In.Types[I]))
      return false;
  return true;
}

Match Mapping::match(const KernelView &K, const Trace &T) const {
  Match M;
  Phase FromAnnotation = phaseOf(K.Annotations);
  for (const MapRule &R : Rules) {
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
      bool Ok = true;
      for (auto &[Name, Expr] : R.Derived) {
        auto V = evalShapeExpr(Expr, Symbols);
        if (!V) {
          consumeError(V.takeError());
          Ok = false;
          break;
        }
        Symbols[Name] = *V;
      }
      if (!Ok)
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

} // namespace trace
} // namespace atrex

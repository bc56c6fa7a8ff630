//===- Suite.cpp - expand, read, check and weigh a suite ------------------===//
//
// Part of atrex. See include/atrex/Suite/Suite.h and docs/suite.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/Suite.h"
#include "atrex/Suite/OpTable.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace atrex::suite {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string sha256Hex(StringRef Data) {
  std::array<uint8_t, 32> Hash = SHA256::hash(arrayRefFromStringRef(Data));
  return toHex(Hash, /*LowerCase=*/true);
}

std::string pythonSubmissionFormat(StringRef Source) {
  SmallVector<StringRef> Lines;
  Source.split(Lines, '\n');
  auto Defines = [&](StringRef Prefix) {
    return any_of(Lines, [&](StringRef L) {
      return L.consume_front(Prefix) &&
             (L.empty() || !(isAlnum(L.front()) || L.front() == '_'));
    });
  };
  if (Defines("class ModelNew"))
    return "kernelbench";
  if (Defines("def custom_kernel"))
    return "gpumode";
  return "entry";
}

std::string shapeString(const Shape &S) {
  std::string Out;
  for (const auto &[Key, Value] : S)
    Out += (Out.empty() ? "" : ",") + Key + "=" + std::to_string(Value);
  return Out;
}

static json::Object shapeToJSON(const Shape &S) {
  json::Object O;
  for (const auto &[Key, Value] : S)
    O[Key] = Value;
  return O;
}

static Expected<Shape> shapeFromJSON(const json::Value *V, StringRef Where) {
  const json::Object *O = V ? V->getAsObject() : nullptr;
  if (!O)
    return createStringError(Where + ": must be an object of integers");
  Shape S;
  for (const auto &Entry : *O) {
    auto I = atrex::getInteger(Entry.second);
    if (!I)
      return createStringError(Where + "." + Entry.first.str() +
                               ": must be an integer");
    S[Entry.first.str()] = *I;
  }
  return S;
}

const OperatorConfig *Suite::findOperator(StringRef Name) const {
  for (const OperatorConfig &O : Operators)
    if (O.Name == Name)
      return &O;
  return nullptr;
}

const Problem *Suite::findProblem(StringRef Id) const {
  for (const Problem &P : Problems)
    if (P.Id == Id)
      return &P;
  return nullptr;
}

std::string Suite::resolve(StringRef Relative) const {
  if (sys::path::is_absolute(Relative))
    return Relative.str();
  SmallString<256> P(BaseDir);
  sys::path::append(P, Relative);
  return std::string(P);
}

std::vector<std::string> Suite::provenanceStrings() const {
  std::set<std::string> All;
  for (const Problem &P : Problems)
    for (const Source &S : P.Sources)
      for (const std::string *Str :
           {&S.Model, &S.Application, &S.UpstreamKernel})
        if (!Str->empty())
          All.insert(*Str);
  return std::vector<std::string>(All.begin(), All.end());
}

//===----------------------------------------------------------------------===//
// Entry shapes and facts models
//===----------------------------------------------------------------------===//

Expected<Shape> entryShape(const OperatorConfig &Op, const Shape &Def) {
  Vars V(Def.begin(), Def.end());
  Shape Entry;
  for (const auto &[Key, Expr] : Op.Entry) {
    auto Value = evaluate(Expr, V);
    if (!Value)
      return createStringError("entry key '" + Key +
                               "': " + toString(Value.takeError()));
    Entry[Key] = *Value;
  }
  return Entry;
}

static int64_t get(const Shape &S, StringRef Key) {
  auto It = S.find(Key.str());
  return It == S.end() ? 0 : It->second;
}

static json::Value iotaMod(int64_t Mod) {
  return json::Object{{"iota", json::Object{{"start", 0}, {"mod", Mod}}}};
}

/// Splits `Total` into `Weights.size()` parts proportional to `Weights` by
/// the largest remainder.
static std::vector<int64_t> apportion(int64_t Total,
                                      const std::vector<double> &Weights) {
  double Sum = 0;
  for (double W : Weights)
    Sum += W;
  std::vector<int64_t> Parts(Weights.size());
  std::vector<std::pair<double, size_t>> Remainders;
  int64_t Given = 0;
  for (size_t I = 0; I < Weights.size(); ++I) {
    double Exact = Total * Weights[I] / Sum;
    Parts[I] = static_cast<int64_t>(std::floor(Exact));
    Given += Parts[I];
    Remainders.push_back({Exact - Parts[I], I});
  }
  llvm::stable_sort(Remainders, [](const auto &A, const auto &B) {
    return A.first > B.first;
  });
  for (size_t I = 0; Given < Total; ++I, ++Given)
    ++Parts[Remainders[I % Remainders.size()].second];
  return Parts;
}

static double causalPairs(const std::vector<int64_t> &Lengths) {
  double P = 0;
  for (int64_t L : Lengths)
    P += 0.5 * static_cast<double>(L) * static_cast<double>(L + 1);
  return P;
}

static json::Value cuSeqlens(const std::vector<int64_t> &Lengths) {
  json::Array A;
  int64_t Sum = 0;
  A.push_back(Sum);
  for (int64_t L : Lengths)
    A.push_back(Sum += L);
  return A;
}

namespace {

using FactsPair = std::pair<json::Value, json::Value>;

/// A facts model's arguments resolved for one problem: names of the
/// definition's inputs, and expressions over the definition and entry shape.
class FactsArgs {
public:
  FactsArgs(const FactsModel &M, const OperatorConfig &Op, const Shape &Def,
            const Shape &Entry)
      : M(M), Op(Op), V(Def.begin(), Def.end()) {
    V.insert(Entry.begin(), Entry.end());
  }
  StringRef text(StringRef Arg) const {
    auto It = Op.FactsArgs.find(Arg.str());
    if (It != Op.FactsArgs.end())
      return It->second;
    for (const auto &[Name, Default] : M.Args)
      if (Name == Arg)
        return Default;
    llvm_unreachable("facts model argument not declared");
  }
  std::string name(StringRef Arg) const { return text(Arg).str(); }
  Expected<int64_t> value(StringRef Arg) const {
    auto Value = evaluate(text(Arg), V);
    if (!Value)
      return createStringError("facts model '" + M.Name + "' argument '" + Arg +
                               "': " + toString(Value.takeError()));
    return *Value;
  }
  /// The values of several arguments, in order.
  Expected<std::vector<int64_t>>
  values(std::initializer_list<StringRef> Args) const {
    std::vector<int64_t> Out;
    for (StringRef Arg : Args) {
      auto V = value(Arg);
      if (!V)
        return V.takeError();
      Out.push_back(*V);
    }
    return Out;
  }

private:
  const FactsModel &M;
  const OperatorConfig &Op;
  Vars V;
};

using FactsFn = Expected<FactsPair> (*)(const FactsArgs &);

// Each model mirrors a generator of runtime/lib/ops (named in its comment);
// a change to either changes both.

/// paged_attention_decode.cpp, mla_decode.cpp: context lengths uniform in
/// [1, max] with the first exactly max (and, when `last` is non-zero and
/// B > 1, the last exactly `last`); each sequence gets distinct pages.
/// Expected: the uniform ones at the midpoints of equal quantiles of
/// [1, max]. Floor: the uniform ones 1.
Expected<FactsPair> pagedDecode(const FactsArgs &A) {
  auto V = A.values({"batch", "max", "last"});
  if (!V)
    return V.takeError();
  int64_t B = (*V)[0], Max = (*V)[1], Last = (*V)[2];
  bool Forced = Last > 0 && B > 1;
  int64_t Uniform = B - 1 - (Forced ? 1 : 0);
  json::Array Lens, FloorLens;
  for (int64_t I = 0; I < B; ++I) {
    if (I == 0) {
      Lens.push_back(Max);
      FloorLens.push_back(Max);
    } else if (Forced && I == B - 1) {
      Lens.push_back(Last);
      FloorLens.push_back(Last);
    } else {
      Lens.push_back(1 + ((2 * I - 1) * Max) / (2 * Uniform));
      FloorLens.push_back(1);
    }
  }
  json::Value Iota = json::Object{{"iota", json::Object{}}};
  json::Object Expected{{A.name("lengths"), std::move(Lens)},
                        {A.name("table"), Iota}};
  json::Object Floor{{A.name("lengths"), std::move(FloorLens)},
                     {A.name("table"), Iota}};
  return FactsPair(std::move(Expected), std::move(Floor));
}

/// flash_attention_prefill.cpp: B-1 distinct cut points uniform in
/// [1, T-1], a uniformly random composition of T into B positive lengths,
/// for which E[sum L(L+1)/2] = T(T+1)/(B+1). Expected: lengths 1 +
/// apportioned exp(alpha i / B), alpha chosen so the causal pairs match
/// that expectation. Floor: the equal split (fewest pairs by convexity).
Expected<FactsPair> varlenPrefill(const FactsArgs &A) {
  auto V = A.values({"batch", "tokens"});
  if (!V)
    return V.takeError();
  int64_t B = (*V)[0], T = (*V)[1];
  if (B <= 0 || T < B)
    return createStringError("facts model 'varlen-prefill' needs "
                             "0 < B <= T");
  auto Lengths = [&](double Alpha) {
    std::vector<double> W;
    for (int64_t I = 0; I < B; ++I)
      W.push_back(std::exp(Alpha * I / B));
    std::vector<int64_t> Parts = apportion(T - B, W);
    for (int64_t &P : Parts)
      ++P;
    return Parts;
  };
  double Target = static_cast<double>(T) * (T + 1) / (B + 1);
  double Lo = 0, Hi = 64;
  for (int I = 0; I < 80; ++I) {
    double Mid = (Lo + Hi) / 2;
    (causalPairs(Lengths(Mid)) < Target ? Lo : Hi) = Mid;
  }
  return FactsPair(json::Object{{A.name("offsets"), cuSeqlens(Lengths(Hi))}},
                   json::Object{{A.name("offsets"), cuSeqlens(Lengths(0))}});
}

/// Common.cpp randomRouting: each token routes to K distinct experts of E,
/// effectively uniformly (top-k of softmax over Gaussian logits). Expected
/// distinct experts E(1 - (1 - K/E)^T); floor K (all tokens share K).
Expected<FactsPair> moeRouting(const FactsArgs &A) {
  auto V = A.values({"tokens", "experts", "topk"});
  if (!V)
    return V.takeError();
  int64_t T = (*V)[0], E = (*V)[1], K = (*V)[2];
  double U = E * (1 - std::pow(1 - static_cast<double>(K) / E,
                               static_cast<double>(T)));
  int64_t Distinct =
      std::clamp<int64_t>(std::llround(U), K, std::min<int64_t>(E, T * K));
  return FactsPair(json::Object{{A.name("ids"), iotaMod(Distinct)}},
                   json::Object{{A.name("ids"), iotaMod(K)}});
}

/// rotary_embedding.cpp, fused_qk_norm_rope.cpp: positions uniform in
/// [0, P). Expected distinct positions P(1 - (1 - 1/P)^T); floor 1.
Expected<FactsPair> ropePositions(const FactsArgs &A) {
  auto V = A.values({"count", "range"});
  if (!V)
    return V.takeError();
  int64_t T = (*V)[0], P = (*V)[1];
  double U = P * (1 - std::pow(1 - 1.0 / P, static_cast<double>(T)));
  int64_t Distinct =
      std::clamp<int64_t>(std::llround(U), 1, std::min<int64_t>(P, T));
  return FactsPair(json::Object{{A.name("index"), iotaMod(Distinct)}},
                   json::Object{{A.name("index"), json::Object{{"fill", 0}}}});
}

/// embedding.cpp: ids drawn from a pool of n = max(T/2, 1) random ids of
/// [0, V), then 0 at one position and V-1 at up to two (T >= 2). Expected
/// distinct ids: the pool entries the other T-3 draws use,
/// n(1 - (1 - 1/n)^(T-3)), plus 0 and V-1; floor 1 (one row).
Expected<FactsPair> pooledIds(const FactsArgs &A) {
  auto Args = A.values({"count", "range"});
  if (!Args)
    return Args.takeError();
  int64_t T = (*Args)[0], V = (*Args)[1];
  double Pool = std::max<int64_t>(T / 2, 1);
  int64_t Fixed = std::min<int64_t>(T, 3), Drawn = T - Fixed;
  double U = std::min<int64_t>(T, 2) +
             Pool * (1 - std::pow(1 - 1 / Pool, static_cast<double>(Drawn)));
  int64_t Distinct =
      std::clamp<int64_t>(std::llround(U), 1, std::min<int64_t>(V, T));
  return FactsPair(json::Object{{A.name("index"), iotaMod(Distinct)}},
                   json::Object{{A.name("index"), json::Object{{"fill", 0}}}});
}

/// Common.cpp slotMapping: T distinct slots of which max(1, T/8) (T > 1)
/// are padding tokens marked -1. The count of written slots does not
/// depend on the seed: expected = floor = T - pad distinct slots, written
/// as slots -pad .. T-pad-1 (negative: padding).
Expected<FactsPair> kvSlots(const FactsArgs &A) {
  auto T = A.value("count");
  if (!T)
    return T.takeError();
  int64_t Pad = *T > 1 ? std::max<int64_t>(1, *T / 8) : 0;
  json::Value Slots = json::Object{{"iota", json::Object{{"start", -Pad}}}};
  return FactsPair(json::Object{{A.name("index"), Slots}},
                   json::Object{{A.name("index"), Slots}});
}

/// grouped_gemm_bf16.cpp: exactly floor(E/4) experts own no rows; of the
/// n = E - floor(E/4) others, min(T, n) own rows (each at least one). The
/// count does not depend on the seed: expected = floor = cumulative row
/// ends with the first min(T, n) experts owning the rows, split evenly.
Expected<FactsPair> expertGroups(const FactsArgs &A) {
  auto V = A.values({"rows", "groups"});
  if (!V)
    return V.takeError();
  int64_t T = (*V)[0], E = (*V)[1];
  int64_t Owners = std::min(T, E - E / 4);
  json::Array Ends;
  int64_t End = 0;
  for (int64_t I = 0; I < E; ++I) {
    if (I < Owners)
      End += T / Owners + (I < T % Owners ? 1 : 0);
    Ends.push_back(End);
  }
  json::Object Expected{{A.name("ends"), json::Array(Ends)}};
  json::Object Floor{{A.name("ends"), std::move(Ends)}};
  return FactsPair(std::move(Expected), std::move(Floor));
}

struct FactsModelImpl {
  FactsModel Model;
  FactsFn Fn;
};

const std::vector<FactsModelImpl> &registry() {
  static const std::vector<FactsModelImpl> R = {
      {{"paged-decode",
        "context lengths uniform in [1, max], the first = max (the last = "
        "`last` when non-zero); distinct pages per sequence",
        {{"lengths", "context_lens"},
         {"table", "block_tables"},
         {"batch", "B"},
         {"max", "L"},
         {"last", "0"}}},
       pagedDecode},
      {{"varlen-prefill",
        "a uniformly random composition of T tokens into B sequences",
        {{"offsets", "cu_seqlens"}, {"batch", "B"}, {"tokens", "T"}}},
       varlenPrefill},
      {{"moe-routing",
        "K distinct experts of E per token, uniformly",
        {{"ids", "topk_ids"},
         {"tokens", "T"},
         {"experts", "E"},
         {"topk", "K"}}},
       moeRouting},
      {{"rope-positions",
        "indices uniform in [0, range)",
        {{"index", "positions"}, {"count", "T"}, {"range", "P"}}},
       ropePositions},
      {{"pooled-ids",
        "ids drawn from a pool of count/2 random ids of [0, range), 0 and "
        "range-1 among them",
        {{"index", "ids"}, {"count", "T"}, {"range", "V"}}},
       pooledIds},
      {{"kv-slots",
        "distinct cache slots, count/8 padding tokens marked -1",
        {{"index", "slot_mapping"}, {"count", "T"}}},
       kvSlots},
      {{"expert-groups",
        "rows grouped by expert; floor(groups/4) experts own none, "
        "min(rows, the others) own at least one",
        {{"ends", "offs"}, {"rows", "T"}, {"groups", "E"}}},
       expertGroups},
  };
  return R;
}

const FactsModelImpl *findImpl(StringRef Name) {
  for (const FactsModelImpl &I : registry())
    if (I.Model.Name == Name)
      return &I;
  return nullptr;
}

} // namespace

ArrayRef<FactsModel> factsModels() {
  static const std::vector<FactsModel> Models = [] {
    std::vector<FactsModel> M;
    for (const FactsModelImpl &I : registry())
      M.push_back(I.Model);
    return M;
  }();
  return Models;
}

const FactsModel *findFactsModel(StringRef Name) {
  for (const FactsModel &M : factsModels())
    if (M.Name == Name)
      return &M;
  return nullptr;
}

Error checkFactsConfig(const OperatorConfig &Op) {
  if (Op.Facts.empty())
    return Op.FactsArgs.empty()
               ? Error::success()
               : createStringError("'facts_args' without 'facts'");
  const FactsModel *M = findFactsModel(Op.Facts);
  if (!M) {
    std::vector<std::string> Known;
    for (const FactsModel &F : factsModels())
      Known.push_back(F.Name.str());
    return createStringError("unknown facts model '" + Op.Facts +
                             "' (known: " + join(Known, ", ") + ")");
  }
  for (const auto &[Arg, Value] : Op.FactsArgs)
    if (none_of(M->Args, [&](const auto &A) { return A.first == Arg; }))
      return createStringError("facts model '" + Op.Facts +
                               "' has no argument '" + Arg + "'");
  return Error::success();
}

Expected<std::pair<json::Value, json::Value>>
factsFor(const OperatorConfig &Op, const Shape &Def, const Shape &Entry) {
  if (Error E = checkFactsConfig(Op))
    return std::move(E);
  if (Op.Facts.empty())
    return FactsPair(nullptr, nullptr);
  const FactsModelImpl *I = findImpl(Op.Facts);
  return I->Fn(FactsArgs(I->Model, Op, Def, Entry));
}

//===----------------------------------------------------------------------===//
// Validity
//===----------------------------------------------------------------------===//

static std::string jsonText(const json::Value &V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << V;
  return S;
}

Expected<ProblemWork> checkProblem(const Problem &P, const OperatorConfig &Op,
                                   const OperatorLibrary &Ops,
                                   const EntrySpec *Spec) {
  if (!Ops.contains(P.Operator))
    return createStringError("operator '" + P.Operator +
                             "' has no MLIR definition");
  if (!is_contained(Op.Phases, P.Phase))
    return createStringError("phase '" + P.Phase + "' is not one of " +
                             P.Operator + "'s phases (" +
                             join(Op.Phases, ", ") + ")");
  std::vector<std::string> Params = Ops.shapeParameters(P.Operator);
  for (const std::string &Param : Params)
    if (!P.DefShape.count(Param))
      return createStringError("shape parameter '" + Param + "' missing (" +
                               P.Operator + " has: " + join(Params, ", ") +
                               ")");
  for (const auto &[Key, Value] : P.DefShape) {
    if (!is_contained(Params, Key))
      return createStringError("unknown shape parameter '" + Key + "' (" +
                               P.Operator + " has: " + join(Params, ", ") +
                               ")");
    bool ZeroOk = is_contained(Op.NonNegative, Key);
    if (Value < 0 || (Value == 0 && !ZeroOk))
      return createStringError("degenerate shape: " + Key + " = " +
                               std::to_string(Value) + " must be " +
                               (ZeroOk ? "non-negative" : "positive"));
  }
  auto Entry = entryShape(Op, P.DefShape);
  if (!Entry)
    return Entry.takeError();
  // The definition's own constraints (atrex.entry: over its shape keys and
  // derived symbols) hold for every problem; the configuration's
  // `constraints` add only what the definition cannot say (relations of
  // definition parameters that are not entry keys).
  auto Def = readOperatorEntry(Ops.definition(P.Operator));
  if (!Def)
    return Def.takeError();
  Vars EV(Entry->begin(), Entry->end());
  auto Violated = firstViolatedConstraint(*Def, EV);
  if (!Violated)
    return Violated.takeError();
  if (*Violated)
    return createStringError("degenerate shape: constraint '" +
                             (*Violated)->first + "' does not hold (" +
                             (*Violated)->second + ")");
  Vars V(P.DefShape.begin(), P.DefShape.end());
  V.insert(Entry->begin(), Entry->end());
  for (const std::string &C : Op.Constraints) {
    auto Holds = evaluate(C, V);
    if (!Holds)
      return Holds.takeError();
    if (!*Holds)
      return createStringError("degenerate shape: constraint '" + C +
                               "' does not hold");
  }
  for (const auto &[Key, Value] : *Entry)
    if (Value <= 0 && !is_contained(Op.NonNegative, Key))
      return createStringError("degenerate shape: entry key " + Key + " = " +
                               std::to_string(Value) + " must be positive");
  if (*Entry != P.EntryShape)
    return createStringError("shape {" + shapeString(P.EntryShape) +
                             "} does not follow from the definition_shape "
                             "(expected {" +
                             shapeString(*Entry) + "})");
  if (Spec) {
    std::set<std::string> Keys(Spec->ShapeKeys.begin(), Spec->ShapeKeys.end());
    std::set<std::string> Have;
    for (const auto &KV : *Entry)
      Have.insert(KV.first);
    if (Keys != Have)
      return createStringError("entry shape keys {" + join(Have, ",") +
                               "} are not the entry point's shape keys {" +
                               join(Spec->ShapeKeys, ",") + "}");
  }
  auto Facts = factsFor(Op, P.DefShape, *Entry);
  if (!Facts)
    return Facts.takeError();
  if (Facts->first != P.Facts || Facts->second != P.FloorFacts)
    return createStringError("facts differ from the facts model '" + Op.Facts +
                             "' of the gate's input generator");
  auto Count = [&](const json::Value &F) -> Expected<SemanticWork> {
    auto Parsed = atrex::Facts::fromJSON(
        F.kind() == json::Value::Null ? "{}" : jsonText(F));
    if (!Parsed)
      return Parsed.takeError();
    StringMap<int64_t> Dims;
    for (const auto &[Key, Value] : P.DefShape)
      Dims[Key] = Value;
    return Ops.count(P.Operator, Dims, *Parsed);
  };
  auto Work = Count(P.Facts);
  if (!Work)
    return Work.takeError();
  // Data movement (embedding, KV-cache writes, routing metadata) has no
  // FLOPs; every problem moves bytes.
  if (Work->totalBytes() == 0)
    return createStringError("semantic work is not positive (" +
                             std::to_string(Work->totalFlops()) + " FLOPs, " +
                             std::to_string(Work->totalBytes()) + " bytes)");
  auto Floor = Count(P.FloorFacts);
  if (!Floor)
    return Floor.takeError();
  if (Floor->totalFlops() > Work->totalFlops() ||
      Floor->totalBytes() > Work->totalBytes())
    return createStringError("floor facts count more work than the expected "
                             "facts");
  return ProblemWork{std::move(*Work), std::move(*Floor)};
}

static std::string describe(const Problem &P) {
  return P.Operator + " " + P.Phase + " " + shapeString(P.DefShape);
}

Error checkSuite(const Suite &S, const OperatorLibrary &Ops,
                 const std::map<std::string, EntrySpec> &Specs) {
  std::string Errors;
  auto Fail = [&](const Twine &Message) {
    Errors += (Errors.empty() ? "" : "\n") + Message.str();
  };
  std::string File = S.Path.empty() ? "suite.json" : S.Path;
  std::set<std::string> Ids, Keys;
  double Sum = 0;
  for (const Problem &P : S.Problems) {
    std::string Where = File + ": problems[" + P.Id + "] (" + describe(P) + ")";
    if (!Ids.insert(P.Id).second)
      Fail(Where + ": duplicate id");
    if (!Keys.insert(P.Operator + " " + P.Phase + " " + shapeString(P.DefShape))
             .second)
      Fail(Where + ": duplicate problem");
    if (P.Visibility != "public" && P.Visibility != "hidden")
      Fail(Where + ": visibility must be public or hidden");
    if (!(P.Weight >= 0) || !std::isfinite(P.Weight))
      Fail(Where + ": weight must be a finite non-negative number");
    Sum += P.Weight;
    const OperatorConfig *Op = S.findOperator(P.Operator);
    if (!Op) {
      Fail(Where + ": operator '" + P.Operator + "' is not in 'operators'");
      continue;
    }
    auto Spec = Specs.find(P.Operator);
    if (Spec == Specs.end()) {
      Fail(Where + ": operator '" + P.Operator +
           "' has no entry-point specification");
      continue;
    }
    if (auto Work = checkProblem(P, *Op, Ops, &Spec->second); !Work)
      Fail(Where + ": " + toString(Work.takeError()));
  }
  if (!S.Problems.empty() && std::abs(Sum - 1) > 1e-6)
    Fail(File + ": weights sum to " + std::to_string(Sum) + ", not 1");
  if (!Errors.empty())
    return createStringError(Errors);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Expansion
//===----------------------------------------------------------------------===//

namespace {
struct SourceKey {
  std::string Model, Application, Kernel;
  bool operator<(const SourceKey &O) const {
    return std::tie(Model, Application, Kernel) <
           std::tie(O.Model, O.Application, O.Kernel);
  }
};
struct Pending {
  Problem P;
  double TimeSeconds = 0; ///< the weight model's time per call
  std::map<SourceKey, double> SourceWeights;
};
} // namespace

Expected<Suite> expandSuite(const Config &C, const OperatorLibrary &Ops,
                            ArrayRef<GpuSpec> Gpus) {
  const GpuSpec *Gpu = nullptr;
  for (const GpuSpec &G : Gpus)
    if (G.name == C.WeightsGpu)
      Gpu = &G;
  if (!Gpu)
    return createStringError(C.Path + ": weights_gpu: no GPU '" + C.WeightsGpu +
                             "' in the hardware table");
  auto Specs = readEntrySpecs(C.resolve(C.Specs));
  if (!Specs)
    return Specs.takeError();
  for (const OperatorConfig &O : C.Operators) {
    if (!Ops.contains(O.Name))
      return createStringError(C.Path + ": operators[" + O.Name +
                               "]: no MLIR definition in '" + C.resolve(C.Ops) +
                               "'");
    if (!Specs->count(O.Name))
      return createStringError(C.Path + ": operators[" + O.Name +
                               "]: no entry-point specification in '" +
                               C.resolve(C.Specs) + "'");
  }
  auto FindOp = [&](StringRef Name) -> const OperatorConfig * {
    for (const OperatorConfig &O : C.Operators)
      if (O.Name == Name)
        return &O;
    return nullptr;
  };

  std::map<std::string, Pending> Problems; // "op phase shape" -> problem
  double TotalCardHours = 0;
  for (const ApplicationConfig &A : C.Applications)
    TotalCardHours += A.CardHours;

  for (const ApplicationConfig &A : C.Applications) {
    const ModelConfig *M = nullptr;
    for (const ModelConfig &Model : C.Models)
      if (Model.Name == A.Model)
        M = &Model;
    Vars ModelVars;
    for (const std::string &Binding : M->Vars) {
      auto [Name, Expr] = StringRef(Binding).split('=');
      ModelVars[Name.trim().str()] = cantFail(evaluate(Expr, ModelVars));
    }
    for (StringRef Phase : {"decode", "prefill"}) {
      bool Decode = Phase == "decode";
      double Share = Decode ? 1 - A.PrefillShare : A.PrefillShare;
      const auto &Steps = Decode ? A.Decode : A.Prefill;
      if (Share <= 0)
        continue;
      // Time of each problem in this application-phase, weighted by the
      // steps' shares; normalised to the phase's share afterwards.
      std::map<std::string, std::map<SourceKey, double>> Time;
      double Total = 0;
      for (size_t J = 0; J < Steps.size(); ++J) {
        const StepConfig &Step = Steps[J];
        Vars V = ModelVars;
        V["S"] = Step.Seqs;
        V["T"] = Decode ? Step.Seqs : Step.Tokens;
        if (Decode)
          V["L"] = Step.KV;
        std::string StepWhere = "applications[" + A.Name + "]." + Phase.str() +
                                "[" + std::to_string(J) + "]";
        for (size_t I = 0; I < M->Calls.size(); ++I) {
          const CallConfig &Call = M->Calls[I];
          if (!Call.Phase.empty() && Call.Phase != Phase)
            continue;
          std::string Where = C.Path + ": models[" + M->Name + "].calls[" +
                              std::to_string(I) + "] (" + Call.Op + ") at " +
                              StepWhere;
          const OperatorConfig *Op = FindOp(Call.Op);
          Problem P;
          P.Operator = Call.Op;
          P.Phase = Phase.str();
          for (const auto &[Key, Expr] : Call.Shape) {
            auto Value = evaluate(Expr, V);
            if (!Value)
              return createStringError(Where + ": shape." + Key + ": " +
                                       toString(Value.takeError()));
            P.DefShape[Key] = *Value;
          }
          std::string Key =
              P.Operator + " " + P.Phase + " " + shapeString(P.DefShape);
          auto It = Problems.find(Key);
          if (It == Problems.end()) {
            // A shape the mapping or the facts model cannot take is
            // reported by checkProblem, parameters first.
            auto Entry = entryShape(*Op, P.DefShape);
            if (Entry)
              P.EntryShape = *Entry;
            else
              consumeError(Entry.takeError());
            auto Facts = factsFor(*Op, P.DefShape, P.EntryShape);
            if (!Facts) {
              consumeError(Facts.takeError());
            } else {
              P.Facts = std::move(Facts->first);
              P.FloorFacts = std::move(Facts->second);
            }
            auto Work = checkProblem(P, *Op, Ops, &Specs->at(P.Operator));
            if (!Work)
              return createStringError(Where + ": {" + shapeString(P.DefShape) +
                                       "}: " + toString(Work.takeError()));
            auto R = computeRoofline(Work->Expected, *Gpu);
            if (!R)
              return createStringError(Where + ": " + toString(R.takeError()));
            Pending New;
            New.P = std::move(P);
            // The weight model has its own least time per call (min_kernel_us),
            // not the score's latency floor.
            New.TimeSeconds =
                std::max(R->primary().noFloorSeconds(), C.MinKernelUs * 1e-6);
            It = Problems.emplace(Key, std::move(New)).first;
          }
          int64_t Calls = cantFail(evaluate(Call.Calls, ModelVars));
          double T = Step.Steps * Calls * It->second.TimeSeconds;
          Time[Key][SourceKey{M->Name, A.Name, Call.Kernel}] += T;
          Total += T;
        }
      }
      double Scale = A.CardHours / TotalCardHours * Share / Total;
      for (const auto &[Key, Sources] : Time)
        for (const auto &[Source, T] : Sources)
          Problems[Key].SourceWeights[Source] += T * Scale;
    }
  }

  Suite S;
  S.Name = C.Suite;
  S.Ops = C.Ops;
  S.Specs = C.Specs;
  S.Hardware = C.Hardware;
  S.DenyList = C.DenyList;
  S.PublicRewrites = C.PublicRewrites;
  S.Tracks = C.Tracks;
  S.Operators = C.Operators;
  S.WeightsSource = "serving-mix-model/1";
  // Ids over every expanded problem, in an order that says nothing about
  // model or operator: the hot-shape cut below leaves gaps, so a change of
  // weights (a ceiling of the hardware table) that moves a shape across the
  // cut adds or drops that problem without renumbering the others.
  std::vector<std::pair<std::string, std::string>> ByHash; // hash, key
  for (const auto &[Key, Pend] : Problems)
    ByHash.emplace_back(sha256Hex(C.IdSeed + "|id|" + Key), Key);
  llvm::sort(ByHash);
  std::map<std::string, std::string> IdOf;
  char Buf[32];
  for (size_t I = 0; I < ByHash.size(); ++I) {
    snprintf(Buf, sizeof(Buf), "p%04zu", I + 1);
    IdOf[ByHash[I].second] = Buf;
  }
  // Hot shapes: per (operator, phase), keep the heaviest problems until
  // they carry hot_share of the group's weight, scaled to carry all of it
  // (the operator and phase shares stay exact; rare shapes are dropped).
  if (C.HotShare < 1) {
    std::map<std::string, std::vector<std::pair<double, std::string>>> Groups;
    for (const auto &[Key, Pend] : Problems) {
      double W = 0;
      for (const auto &[Src, SW] : Pend.SourceWeights)
        W += SW;
      Groups[Pend.P.Operator + " " + Pend.P.Phase].emplace_back(W, Key);
    }
    for (auto &[Group, Members] : Groups) {
      llvm::sort(Members, [](const auto &A, const auto &B) {
        return A.first != B.first ? A.first > B.first : A.second < B.second;
      });
      double Total = 0, Kept = 0;
      for (const auto &M : Members)
        Total += M.first;
      size_t N = 0;
      while (N < Members.size() && (N == 0 || Kept < C.HotShare * Total))
        Kept += Members[N++].first;
      for (size_t I = N; I < Members.size(); ++I)
        Problems.erase(Members[I].second);
      if (Kept > 0)
        for (size_t I = 0; I < N; ++I)
          for (auto &[Src, SW] : Problems[Members[I].second].SourceWeights)
            SW *= Total / Kept;
    }
  }
  std::vector<std::pair<std::string, Problem>> Ordered;
  for (auto &[Key, Pend] : Problems) {
    Problem P = std::move(Pend.P);
    for (const auto &[Src, W] : Pend.SourceWeights) {
      P.Sources.push_back(Source{Src.Model, Src.Application, Src.Kernel, W});
      P.Weight += W;
    }
    llvm::stable_sort(P.Sources, [](const Source &A, const Source &B) {
      return A.Weight > B.Weight;
    });
    P.Id = IdOf.at(Key);
    Ordered.emplace_back(P.Id, std::move(P));
  }
  llvm::sort(Ordered,
             [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto &[Id, P] : Ordered)
    S.Problems.push_back(std::move(P));
  // Visibility: per (operator, phase), ceil(n * visible_fraction) problems
  // in keyed-hash order are public.
  std::map<std::string, std::vector<std::pair<std::string, Problem *>>> Groups;
  for (Problem &P : S.Problems)
    Groups[P.Operator + " " + P.Phase].emplace_back(
        sha256Hex(C.IdSeed + "|visibility|" + P.Operator + " " + P.Phase + " " +
                  shapeString(P.DefShape)),
        &P);
  for (auto &[Group, Members] : Groups) {
    llvm::sort(Members,
               [](const auto &A, const auto &B) { return A.first < B.first; });
    size_t Visible = static_cast<size_t>(
        std::ceil(Members.size() * C.VisibleFraction - 1e-9));
    for (size_t I = 0; I < Members.size(); ++I)
      Members[I].second->Visibility = I < Visible ? "public" : "hidden";
  }
  S.BaseDir = sys::path::parent_path(C.Path).str();
  return S;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

bool Track::covers(StringRef Operator) const {
  return Operators.empty() || is_contained(Operators, Operator);
}

json::Object toJSON(const Track &T) {
  return json::Object{
      {"name", T.Name},        {"summary", T.Summary},
      {"dsl", strings(T.Dsl)}, {"gpu", T.Gpu},
      {"policy", T.Policy},    {"operators", strings(T.Operators)}};
}

json::Array tracksToJSON(const std::vector<Track> &Tracks) {
  json::Array A;
  for (const Track &T : Tracks)
    A.push_back(toJSON(T));
  return A;
}

Expected<std::vector<Track>> tracksFromJSON(const json::Array &A) {
  std::vector<Track> Out;
  for (const json::Value &V : A) {
    const json::Object *O = V.getAsObject();
    if (!O || !O->getString("name") || !O->getArray("dsl"))
      return createStringError("a track is an object with 'name' and 'dsl'");
    Track T;
    T.Name = O->getString("name")->str();
    T.Summary = O->getString("summary").value_or("").str();
    T.Gpu = O->getString("gpu").value_or("").str();
    T.Policy = O->getString("policy").value_or("default").str();
    for (const json::Value &D : *O->getArray("dsl"))
      if (auto DS = D.getAsString())
        T.Dsl.push_back(DS->str());
    if (const json::Array *Ops = O->getArray("operators"))
      for (const json::Value &Op : *Ops)
        if (auto OS = Op.getAsString())
          T.Operators.push_back(OS->str());
    Out.push_back(std::move(T));
  }
  return Out;
}

json::Value toJSON(const Suite &S) {
  json::Array Ops;
  for (const OperatorConfig &O : S.Operators) {
    json::Object Entry;
    for (const auto &[Key, Expr] : O.Entry)
      Entry[Key] = Expr;
    json::Object Op{{"name", O.Name},
                    {"entry", std::move(Entry)},
                    {"constraints", strings(O.Constraints)},
                    {"nonnegative", strings(O.NonNegative)},
                    {"phases", strings(O.Phases)},
                    {"facts", O.Facts}};
    if (!O.FactsArgs.empty()) {
      json::Object Args;
      for (const auto &[Key, Value] : O.FactsArgs)
        Args[Key] = Value;
      Op["facts_args"] = std::move(Args);
    }
    Ops.push_back(std::move(Op));
  }
  json::Array Rewrites;
  for (const Rewrite &R : S.PublicRewrites)
    Rewrites.push_back(json::Object{{"from", R.From}, {"to", R.To}});
  json::Array Problems;
  for (const Problem &P : S.Problems) {
    json::Array Sources;
    for (const Source &Src : P.Sources)
      Sources.push_back(json::Object{{"model", Src.Model},
                                     {"application", Src.Application},
                                     {"upstream_kernel", Src.UpstreamKernel},
                                     {"weight", Src.Weight}});
    json::Object Prov;
    if (!P.Sources.empty()) {
      Prov["model"] = P.Sources[0].Model;
      Prov["application"] = P.Sources[0].Application;
      Prov["upstream_kernel"] = P.Sources[0].UpstreamKernel;
    }
    Prov["sources"] = std::move(Sources);
    Problems.push_back(
        json::Object{{"id", P.Id},
                     {"operator", P.Operator},
                     {"phase", P.Phase},
                     {"shape", shapeToJSON(P.EntryShape)},
                     {"definition_shape", shapeToJSON(P.DefShape)},
                     {"facts", P.Facts},
                     {"floor_facts", P.FloorFacts},
                     {"visibility", P.Visibility},
                     {"provenance", std::move(Prov)},
                     {"weight", P.Weight}});
  }
  return json::Object{{"format", "atrex-suite"},
                      {"version", 1},
                      {"suite", S.Name},
                      {"ops", S.Ops},
                      {"specs", S.Specs},
                      {"hardware", S.Hardware},
                      {"deny_list", strings(S.DenyList)},
                      {"public_rewrites", std::move(Rewrites)},
                      {"tracks", tracksToJSON(S.Tracks)},
                      {"operators", std::move(Ops)},
                      {"weights_source", S.WeightsSource},
                      {"problems", std::move(Problems)}};
}

static Expected<json::Value> readJSONFile(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError("cannot read '" + Path +
                             "': " + Buffer.getError().message());
  auto V = json::parse((*Buffer)->getBuffer());
  if (!V)
    return createStringError("'" + Path +
                             "' is not valid JSON: " + toString(V.takeError()));
  return V;
}

static std::vector<std::string> stringList(const json::Object &O,
                                           StringRef Key) {
  std::vector<std::string> Out;
  if (const json::Array *A = O.getArray(Key))
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        Out.push_back(S->str());
  return Out;
}

Expected<Suite> readSuite(StringRef Path, StringRef BaseDir) {
  auto Root = readJSONFile(Path);
  if (!Root)
    return Root.takeError();
  const json::Object *O = Root->getAsObject();
  auto Err = [&](const Twine &Where, const Twine &Message) {
    return createStringError(Path + ": " + Where + ": " + Message);
  };
  if (!O || O->getString("format") != "atrex-suite" ||
      atrex::getInteger(*O, "version") != 1)
    return createStringError(Path + ": not an atrex-suite version 1 file");
  Suite S;
  S.Path = Path.str();
  S.BaseDir =
      BaseDir.empty() ? sys::path::parent_path(Path).str() : BaseDir.str();
  if (S.BaseDir.empty())
    S.BaseDir = ".";
  S.Name = O->getString("suite").value_or("").str();
  S.Ops = O->getString("ops").value_or("ops").str();
  S.Specs = O->getString("specs").value_or("").str();
  S.Hardware = O->getString("hardware").value_or("").str();
  S.WeightsSource = O->getString("weights_source").value_or("").str();
  S.DenyList = stringList(*O, "deny_list");
  if (const json::Array *A = O->getArray("public_rewrites"))
    for (const json::Value &V : *A)
      if (const json::Object *R = V.getAsObject())
        S.PublicRewrites.push_back(
            Rewrite{R->getString("from").value_or("").str(),
                    R->getString("to").value_or("").str()});
  if (const json::Array *A = O->getArray("tracks")) {
    auto T = tracksFromJSON(*A);
    if (!T)
      return Err("tracks", toString(T.takeError()));
    S.Tracks = std::move(*T);
  }
  if (const json::Array *A = O->getArray("operators"))
    for (const json::Value &V : *A) {
      const json::Object *Op = V.getAsObject();
      if (!Op)
        return Err("operators", "entries must be objects");
      OperatorConfig OC;
      OC.Name = Op->getString("name").value_or("").str();
      if (const json::Object *E = Op->getObject("entry"))
        for (const auto &KV : *E)
          OC.Entry[KV.first.str()] = KV.second.getAsString().value_or("").str();
      OC.Constraints = stringList(*Op, "constraints");
      OC.NonNegative = stringList(*Op, "nonnegative");
      OC.Phases = stringList(*Op, "phases");
      OC.Facts = Op->getString("facts").value_or("").str();
      if (const json::Object *FA = Op->getObject("facts_args"))
        for (const auto &KV : *FA)
          OC.FactsArgs[KV.first.str()] =
              KV.second.getAsString().value_or("").str();
      S.Operators.push_back(std::move(OC));
    }
  const json::Array *Problems = O->getArray("problems");
  if (!Problems)
    return Err("problems", "missing");
  for (size_t I = 0; I < Problems->size(); ++I) {
    const json::Object *PO = (*Problems)[I].getAsObject();
    std::string Where = "problems[" + std::to_string(I) + "]";
    if (!PO)
      return Err(Where, "must be an object");
    Problem P;
    P.Id = PO->getString("id").value_or("").str();
    if (!P.Id.empty())
      Where = "problems[" + P.Id + "]";
    P.Operator = PO->getString("operator").value_or("").str();
    P.Phase = PO->getString("phase").value_or("").str();
    P.Visibility = PO->getString("visibility").value_or("").str();
    if (P.Id.empty() || P.Operator.empty() || P.Phase.empty())
      return Err(Where, "needs id, operator and phase");
    auto Def = shapeFromJSON(PO->get("definition_shape"),
                             (Path + ": " + Where + ".definition_shape").str());
    if (!Def)
      return Def.takeError();
    P.DefShape = *Def;
    auto Entry =
        shapeFromJSON(PO->get("shape"), (Path + ": " + Where + ".shape").str());
    if (!Entry)
      return Entry.takeError();
    P.EntryShape = *Entry;
    if (const json::Value *F = PO->get("facts"))
      P.Facts = *F;
    if (const json::Value *F = PO->get("floor_facts"))
      P.FloorFacts = *F;
    auto W = PO->getNumber("weight");
    if (!W)
      return Err(Where, "missing weight");
    P.Weight = *W;
    if (const json::Object *Prov = PO->getObject("provenance")) {
      if (const json::Array *Srcs = Prov->getArray("sources"))
        for (const json::Value &V : *Srcs)
          if (const json::Object *SO = V.getAsObject())
            P.Sources.push_back(
                Source{SO->getString("model").value_or("").str(),
                       SO->getString("application").value_or("").str(),
                       SO->getString("upstream_kernel").value_or("").str(),
                       SO->getNumber("weight").value_or(0)});
      if (P.Sources.empty())
        P.Sources.push_back(Source{
            Prov->getString("model").value_or("").str(),
            Prov->getString("application").value_or("").str(),
            Prov->getString("upstream_kernel").value_or("").str(), P.Weight});
    }
    S.Problems.push_back(std::move(P));
  }
  return S;
}

Expected<std::map<std::string, EntrySpec>> readEntrySpecs(StringRef Path) {
  auto Root = readJSONFile(Path);
  if (!Root)
    return Root.takeError();
  const json::Array *A = Root->getAsArray();
  if (!A)
    return createStringError(Path + ": expected the array of atrex-ref "
                                    "--list-json");
  std::map<std::string, EntrySpec> Specs;
  for (size_t I = 0; I < A->size(); ++I) {
    const json::Object *O = (*A)[I].getAsObject();
    auto Name = O ? O->getString("name") : std::nullopt;
    if (!Name)
      return createStringError(Path + ": [" + Twine(I) + "]: missing name");
    EntrySpec S;
    S.Name = Name->str();
    S.Summary = O->getString("summary").value_or("").str();
    S.KeyDoc = O->getString("key_doc").value_or("").str();
    S.Signature = O->getString("signature").value_or("").str();
    S.ShapeKeys = stringList(*O, "shape_keys");
    if (const json::Value *Out = O->get("outputs"))
      S.Outputs = *Out;
    if (S.Signature.empty() || S.ShapeKeys.empty())
      return createStringError(Path + ": [" + S.Name +
                               "]: missing signature or shape_keys");
    Specs[S.Name] = std::move(S);
  }
  return Specs;
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

WeightAssignment suiteWeights(const Suite &S) {
  WeightAssignment W;
  W.Source = S.WeightsSource.empty() ? "serving-mix-model/1" : S.WeightsSource;
  double Sum = 0;
  for (const Problem &P : S.Problems)
    Sum += P.Weight;
  for (const Problem &P : S.Problems) {
    W.Weights[P.Id] = Sum > 0 ? P.Weight / Sum : 0;
    if (P.Weight == 0)
      W.UnmatchedProblems.push_back(P.Id);
  }
  return W;
}

Expected<WeightAssignment> traceWeights(const Suite &S, StringRef File) {
  auto Root = readJSONFile(File);
  if (!Root)
    return Root.takeError();
  const json::Object *O = Root->getAsObject();
  if (!O || O->getString("format") != "atrex-weights" ||
      atrex::getInteger(*O, "version") != 1)
    return createStringError(File + ": not an atrex-weights version 1 file");
  const json::Array *Problems = O->getArray("problems");
  if (!Problems)
    return createStringError(File + ": missing 'problems'");
  WeightAssignment W;
  W.Source = ("trace:" + sys::path::filename(File)).str();
  for (const Problem &P : S.Problems)
    W.Weights[P.Id] = 0;
  double Sum = 0;
  for (size_t I = 0; I < Problems->size(); ++I) {
    const json::Object *PO = (*Problems)[I].getAsObject();
    std::string Where = File.str() + ": problems[" + std::to_string(I) + "]";
    if (!PO)
      return createStringError(Where + ": must be an object");
    StringRef Op = PO->getString("operator").value_or("");
    StringRef Phase = PO->getString("phase").value_or("");
    auto Weight = PO->getNumber("weight");
    auto Sh = shapeFromJSON(PO->get("shape"), Where + ".shape");
    if (!Sh)
      return Sh.takeError();
    if (Op.empty() || Phase.empty() || !Weight || *Weight < 0)
      return createStringError(Where + ": needs operator, phase, shape and a "
                                       "non-negative weight");
    std::vector<const Problem *> Matches;
    for (const Problem &P : S.Problems)
      if (P.Operator == Op && P.DefShape == *Sh &&
          (P.Phase == Phase || Phase == "unknown"))
        Matches.push_back(&P);
    if (Matches.empty()) {
      W.UnmatchedTrace.push_back(
          (Op + " " + Phase + " " + shapeString(*Sh)).str());
      continue;
    }
    for (const Problem *P : Matches)
      W.Weights[P->Id] += *Weight / Matches.size();
    Sum += *Weight;
  }
  if (Sum <= 0)
    return createStringError(File + ": no problem of the trace weights "
                                    "matches a problem of the suite");
  for (auto &[Id, Weight] : W.Weights) {
    Weight /= Sum;
    if (Weight == 0)
      W.UnmatchedProblems.push_back(Id);
  }
  return W;
}

} // namespace atrex::suite

//===- Eval.cpp - evaluating external agents over a public bundle ---------===//
//
// Part of atrex. See include/atrex/Agent/Eval.h and docs/eval.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Eval.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Process.h"
#include "atrex/Lint/Finding.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <map>
#include <set>

using namespace llvm;
namespace protocol = atrex::rt::protocol;

namespace atrex::agent::eval {

Expected<const suite::Track *> findTrack(const PublicBundle &B,
                                         StringRef Name) {
  std::vector<std::string> Names;
  for (const suite::Track &T : B.Tracks) {
    if (T.Name == Name)
      return &T;
    Names.push_back(T.Name);
  }
  return createStringError(B.File + ": no track '" + Name + "' (" +
                           (Names.empty() ? std::string("the bundle has none")
                                          : "tracks: " + join(Names, ", ")) +
                           ")");
}

Expected<std::string> trackLanguage(const suite::Track &T) {
  std::set<std::string> Kinds;
  for (const std::string &D : T.Dsl)
    Kinds.insert(lint::dslSourceKind(D).str());
  if (Kinds.size() == 1 && languageExtension(*Kinds.begin()))
    return *Kinds.begin();
  return createStringError("track '" + T.Name + "' (" + join(T.Dsl, ", ") +
                           "): atrex eval has agents write CUDA C++ (.cu) or "
                           "Python (.py) submissions, one kind per track");
}

Expected<PublicBundle> loadPublicBundle(StringRef Path) {
  SmallString<256> File(Path);
  if (sys::fs::is_directory(Path))
    sys::path::append(File, "public.json");
  PublicBundle B;
  B.File = std::string(File);
  auto Text = readFile(File);
  if (!Text)
    return Text.takeError();
  auto Err = [&](const Twine &Why) {
    return createStringError(B.File + ": " + Why);
  };
  auto V = json::parse(*Text);
  if (!V)
    return Err("not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != "atrex-public")
    return Err("not a public bundle (format is not \"atrex-public\")");
  if (auto S = O->getString("suite"))
    B.Suite = S->str();
  if (auto S = O->getString("sealed_commitment"))
    B.Commitment = S->str();
  if (const json::Array *Tracks = O->getArray("tracks")) {
    auto T = suite::tracksFromJSON(*Tracks);
    if (!T)
      return Err("tracks: " + toString(T.takeError()));
    B.Tracks = std::move(*T);
  }
  const json::Array *Cards = O->getArray("cards");
  if (!Cards)
    return Err("no 'cards' array");
  SmallString<256> CardDir(File);
  sys::path::remove_filename(CardDir);
  sys::path::append(CardDir, "cards");
  for (size_t I = 0; I < Cards->size(); ++I) {
    const json::Object *C = (*Cards)[I].getAsObject();
    auto Op = C ? C->getString("operator") : std::nullopt;
    if (!Op || Op->empty() || !C->getString("signature"))
      return Err(formatv("cards[{0}]: no 'operator' or 'signature'", I));
    // The operator names a file and a directory: a name that could leave
    // them (a tampered bundle) is refused.
    if (!all_of(*Op, [](char Ch) { return isAlnum(Ch) || Ch == '_'; }))
      return Err(
          formatv("cards[{0}]: operator '{1}' is not a plain name", I, *Op));
    Card Cd;
    Cd.Operator = Op->str();
    Cd.Json = *C;
    SmallString<256> Md(CardDir);
    sys::path::append(Md, Cd.Operator + ".md");
    if (sys::fs::exists(Md)) {
      auto M = readFile(Md);
      if (!M)
        return M.takeError();
      Cd.Markdown = std::move(*M);
    }
    B.Cards.push_back(std::move(Cd));
  }
  return B;
}

Problem cardProblem(const PublicBundle &B, const Card &C, StringRef Gpu) {
  Problem P;
  P.Suite = B.Suite;
  P.Operator = C.Operator;
  auto Str = [&](StringRef Key) {
    auto S = C.Json.getString(Key);
    return S ? S->str() : std::string();
  };
  P.Signature = Str("signature");
  P.Summary = Str("summary");
  P.KeyDoc = Str("key_doc");
  P.Gpu = Gpu.str();
  return P;
}

std::optional<StringRef> languageExtension(StringRef Lang) {
  if (Lang == "cuda")
    return StringRef(".cu");
  if (Lang == "python")
    return StringRef(".py");
  return std::nullopt;
}

/// What the agent is asked to write, in the card it is handed.
static StringRef contract(StringRef Lang) {
  if (Lang == "python")
    return "one Python file (the candidate path): a KernelBench class "
           "ModelNew (model(*inputs) returns the outputs), a GPU MODE "
           "custom_kernel(data), or a function named like the operator with "
           "the entry's destination-passing signature; own kernels are Triton "
           "(@triton.jit in this file) or CUDA built by "
           "torch.utils.cpp_extension.load_inline; torch operators, cuBLAS "
           "and other libraries do not count as the submission's work "
           "(docs/submission-contract.md, Python form)";
  return "one CUDA C++ file (the candidate path) defining the entry "
         "signature as a torch extension function that launches kernels "
         "defined in the file; torch operators, cuBLAS, cuDNN, CUTLASS "
         "device operators and other libraries do not count as the "
         "submission's work (docs/submission-contract.md)";
}

Expected<AgentSpec> parseAgentSpec(StringRef Text) {
  auto [Name, Rest] = Text.split('=');
  auto Bad = [&](const Twine &Why) {
    return createStringError("--agent '" + Text + "': " + Why);
  };
  if (Name.empty() || Rest.empty() || !Text.contains('='))
    return Bad("expected NAME=command:COMMAND or NAME=openai:MODEL[@URL]");
  if (!all_of(Name, [](char Ch) {
        return isAlnum(Ch) || Ch == '_' || Ch == '-' || Ch == '.';
      }))
    return Bad("the name may hold letters, digits, '_', '-' and '.' only");
  AgentSpec A;
  A.Name = Name.str();
  auto [Kind, Arg] = Rest.split(':');
  A.Kind = Kind.str();
  if (Kind == "command") {
    if (Arg.trim().empty())
      return Bad("no command");
    A.Command = Arg.str();
  } else if (Kind == "openai") {
    auto [Model, URL] = Arg.split('@');
    if (Model.empty())
      return Bad("no model");
    A.Model = Model.str();
    A.BaseURL = URL.str();
  } else {
    return Bad("unknown kind '" + Kind + "' (command or openai)");
  }
  return A;
}

unsigned AgentOutcome::withFile() const {
  return count_if(Operators,
                  [](const OperatorOutcome &O) { return !O.File.empty(); });
}

unsigned AgentOutcome::staticAdopted() const {
  return count_if(Operators, [](const OperatorOutcome &O) {
    return !O.File.empty() && O.LintVerdict == protocol::kAdopted;
  });
}

static json::Value optInt(const std::optional<int64_t> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

static json::Object toJSON(const Turn &T) {
  return json::Object{
      {"turn", T.N},
      {"hash", T.Hash.empty() ? json::Value(nullptr) : json::Value(T.Hash)},
      {"failure",
       T.Failure.empty() ? json::Value(nullptr) : json::Value(T.Failure)},
      {"lint_verdict", T.LintVerdict.empty() ? json::Value(nullptr)
                                             : json::Value(T.LintVerdict)},
      {"diagnosis", T.Diagnosis},
      {"tokens_in", optInt(T.TokensIn)},
      {"tokens_out", optInt(T.TokensOut)},
      {"wall_s", T.WallS}};
}

static void addTokens(std::optional<int64_t> &Sum,
                      const std::optional<int64_t> &V) {
  if (V)
    Sum = Sum.value_or(0) + *V;
}

/// The one-line feedback of a turn: verdict, reasons, first compiler errors.
static std::string turnDiagnosis(const Evaluation &E) {
  std::string D = "lint " + E.LintVerdict;
  if (!E.LintError.empty())
    return D + " (" + E.LintError + ")";
  if (!E.LintReasons.empty())
    D += " (" + join(E.LintReasons, "; ") + ")";
  if (!E.LintErrors.empty())
    D += "; errors: " + join(E.LintErrors, " | ");
  return D;
}

Expected<AgentOutcome> generate(const PublicBundle &B, const AgentSpec &A,
                                Backend &Back, const GenerateOptions &O,
                                raw_ostream &Log) {
  AgentOutcome Out;
  Out.Name = A.Name;
  Out.Backend = Back.name().str();
  SmallString<256> AgentDir(O.OutDir);
  sys::path::append(AgentDir, "agents", A.Name);
  if (std::error_code EC = sys::fs::make_absolute(AgentDir))
    return createStringError(EC, "cannot resolve '" + AgentDir + "'");
  // <out>/sets/<name>: the directory's name is the set's name in the plan
  // and results (atrex suite plan names submissions <set>/<operator>).
  SmallString<256> SetDir(O.OutDir);
  sys::path::append(SetDir, "sets", A.Name);
  if (std::error_code EC = sys::fs::make_absolute(SetDir))
    return createStringError(EC, "cannot resolve '" + SetDir + "'");
  for (StringRef D : {StringRef(AgentDir), StringRef(SetDir)})
    if (std::error_code EC = sys::fs::create_directories(D))
      return createStringError(EC,
                               "cannot create '" + D + "': " + EC.message());
  Out.SetDir = std::string(SetDir);
  const suite::Track *Tr = nullptr;
  if (!O.Track.empty()) {
    auto T = findTrack(B, O.Track);
    if (!T)
      return T.takeError();
    Tr = *T;
    Out.Track = Tr->Name;
    Out.TrackDsl = Tr->Dsl;
    Out.TrackGpu = Tr->Gpu;
  }

  std::vector<const Card *> Cards;
  for (const Card &C : B.Cards)
    if (O.Operators.empty() || is_contained(O.Operators, C.Operator))
      Cards.push_back(&C);
  for (const std::string &Op : O.Operators)
    if (none_of(B.Cards, [&](const Card &C) { return C.Operator == Op; }))
      return createStringError(B.File + ": no card for operator '" + Op + "'");

  auto Ext = languageExtension(O.Lang);
  if (!Ext)
    return createStringError("unknown submission language '" + O.Lang +
                             "' (cuda or python)");
  EvalOptions LintOpts = O.Lint;
  LintOpts.NoGate = true;
  if (Tr)
    LintOpts.LintDsl = Tr->Dsl;
  std::string TurnsFile = (AgentDir + "/turns.jsonl").str();
  std::error_code EC;
  raw_fd_ostream Turns(TurnsFile, EC);
  if (EC)
    return createStringError(EC, "cannot write '" + TurnsFile +
                                     "': " + EC.message());

  for (const Card *Cd : Cards) {
    OperatorOutcome OO;
    OO.Operator = Cd->Operator;
    Problem P = cardProblem(B, *Cd, O.Gpu);
    Context Ctx;
    Ctx.Prob = P;
    Ctx.Card = Cd->Json;
    (*Ctx.Card)["language"] = O.Lang;
    (*Ctx.Card)["write"] = contract(O.Lang);
    if (Tr) // the track the agent writes for, and the DSL it requires
      (*Ctx.Card)["track"] = json::Object{
          {"name", Tr->Name}, {"dsl", json::Array(Tr->Dsl)}, {"gpu", Tr->Gpu}};
    Ctx.Measured = false;
    std::optional<std::string> Last;
    for (unsigned N = 1; N <= std::max(1u, O.Turns); ++N) {
      SmallString<256> Dir(AgentDir);
      sys::path::append(Dir, Cd->Operator, "turn-" + std::to_string(N));
      if (std::error_code EC = sys::fs::create_directories(Dir))
        return createStringError(EC, "cannot create '" + Dir +
                                         "': " + EC.message());
      Ctx.Iteration = N;
      Ctx.Dir = std::string(Dir);
      Ctx.ContextFile = (Dir + "/context.json").str();
      Ctx.CandidateFile = (Dir + "/candidate" + *Ext).str();
      Ctx.TokensFile = (Dir + "/tokens.json").str();
      Ctx.BestFile = (Dir + "/previous" + *Ext).str();
      Ctx.CardFile = (Dir + "/card.md").str();
      if (Error E = writeFile(
              Ctx.CardFile,
              Cd->Markdown.empty()
                  ? formatv("{0:2}", json::Value(json::Object(Cd->Json))).str()
                  : Cd->Markdown))
        return std::move(E);
      if (Error E = writeFile(Ctx.BestFile, Ctx.Best.Source))
        return std::move(E);
      if (Error E = writeFile(Ctx.ContextFile,
                              formatv("{0:2}", json::Value(toJSON(Ctx))).str()))
        return std::move(E);

      Turn T;
      T.N = N;
      auto Cand = Back.propose(Ctx);
      if (!Cand)
        return Cand.takeError();
      T.TokensIn = Cand->TokensIn;
      T.TokensOut = Cand->TokensOut;
      T.WallS = Cand->WallS;
      addTokens(Out.TokensIn, T.TokensIn);
      addTokens(Out.TokensOut, T.TokensOut);
      Out.WallS += T.WallS;
      HistoryEntry H;
      H.Iteration = N;
      if (!Cand->Source) {
        T.Failure = Cand->Failure;
        H.Kind = failure::kBackend;
        H.Diagnosis = "no candidate: " + Cand->Failure;
        Log << formatv("{0} {1} turn {2}: no candidate: {3}\n", A.Name,
                       Cd->Operator, N, Cand->Failure);
      } else {
        T.Hash = suite::sha256Hex(*Cand->Source);
        if (Error E = writeFile(Ctx.CandidateFile, *Cand->Source))
          return std::move(E);
        auto Ev = evaluate(P, Ctx.CandidateFile, Dir,
                           A.Name + "/" + Cd->Operator, LintOpts);
        if (!Ev)
          return Ev.takeError();
        T.LintVerdict = Ev->LintVerdict;
        T.Diagnosis = turnDiagnosis(*Ev);
        H.Hash = T.Hash;
        H.Kind = Ev->LintVerdict == protocol::kAdopted ? "" : Ev->LintVerdict;
        H.Diagnosis = T.Diagnosis;
        H.LintVerdict = Ev->LintVerdict;
        Last = *Cand->Source;
        OO.LintVerdict = Ev->LintVerdict;
        // The next turn revises this candidate (there is no accepted one).
        Ctx.Best.Source = *Cand->Source;
        Ctx.Best.Hash = T.Hash;
        Ctx.Best.Iteration = N;
        Ctx.Best.LintVerdict = Ev->LintVerdict;
        Log << formatv("{0} {1} turn {2}: {3}\n", A.Name, Cd->Operator, N,
                       T.Diagnosis);
      }
      json::Object Line = toJSON(T);
      Line["schema"] = "atrex-eval-turn/1";
      Line["agent"] = A.Name;
      Line["operator"] = Cd->Operator;
      Turns << json::Value(std::move(Line)) << "\n";
      Turns.flush();
      OO.Turns.push_back(std::move(T));
      Ctx.History.push_back(std::move(H));
      if (OO.LintVerdict == protocol::kAdopted && Last)
        break;
    }
    if (Last) {
      SmallString<256> F(SetDir);
      sys::path::append(F, Cd->Operator + *Ext);
      if (Error E = writeFile(F, *Last))
        return std::move(E);
      OO.File = std::string(F);
    }
    Out.Operators.push_back(std::move(OO));
  }
  std::string OutcomeFile = (AgentDir + "/outcome.json").str();
  if (Error E = writeFile(OutcomeFile,
                          formatv("{0:2}", json::Value(toJSON(Out))).str()))
    return std::move(E);
  return Out;
}

json::Object toJSON(const AgentOutcome &A) {
  json::Array Ops;
  for (const OperatorOutcome &O : A.Operators) {
    json::Array Turns;
    for (const Turn &T : O.Turns)
      Turns.push_back(toJSON(T));
    Ops.push_back(json::Object{
        {"operator", O.Operator},
        {"file", O.File.empty() ? json::Value(nullptr) : json::Value(O.File)},
        {"lint_verdict", O.LintVerdict.empty() ? json::Value(nullptr)
                                               : json::Value(O.LintVerdict)},
        {"turns", std::move(Turns)}});
  }
  return json::Object{
      {"schema", "atrex-eval-outcome/1"},
      {"agent", A.Name},
      {"backend", A.Backend},
      {"set", A.SetDir},
      {"track", A.Track.empty()
                    ? json::Value(nullptr)
                    : json::Value(json::Object{{"name", A.Track},
                                               {"dsl", json::Array(A.TrackDsl)},
                                               {"gpu", A.TrackGpu}})},
      {"tokens_in", optInt(A.TokensIn)},
      {"tokens_out", optInt(A.TokensOut)},
      {"wall_s", A.WallS},
      {"operators", std::move(Ops)}};
}

Expected<AgentOutcome> outcomeFromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O || O->getString("schema") != "atrex-eval-outcome/1")
    return createStringError("not an atrex-eval-outcome/1 document");
  AgentOutcome A;
  auto Str = [](const json::Object &O, StringRef K) {
    auto S = O.getString(K);
    return S ? S->str() : std::string();
  };
  A.Name = Str(*O, "agent");
  A.Backend = Str(*O, "backend");
  A.SetDir = Str(*O, "set");
  if (const json::Object *T = O->getObject("track")) {
    A.Track = Str(*T, "name");
    A.TrackGpu = Str(*T, "gpu");
    if (const json::Array *D = T->getArray("dsl"))
      for (const json::Value &DV : *D)
        if (auto DS = DV.getAsString())
          A.TrackDsl.push_back(DS->str());
  }
  if (A.Name.empty())
    return createStringError("the outcome names no agent");
  if (const json::Value *T = O->get("tokens_in"); T && !T->getAsNull())
    A.TokensIn = getInteger(*T);
  if (const json::Value *T = O->get("tokens_out"); T && !T->getAsNull())
    A.TokensOut = getInteger(*T);
  A.WallS = O->getNumber("wall_s").value_or(0);
  const json::Array *Ops = O->getArray("operators");
  if (!Ops)
    return createStringError("the outcome has no 'operators' array");
  for (const json::Value &OV : *Ops) {
    const json::Object *OpO = OV.getAsObject();
    if (!OpO || Str(*OpO, "operator").empty())
      return createStringError("an operator entry without 'operator'");
    OperatorOutcome OO;
    OO.Operator = Str(*OpO, "operator");
    OO.File = Str(*OpO, "file");
    OO.LintVerdict = Str(*OpO, "lint_verdict");
    if (const json::Array *Ts = OpO->getArray("turns"))
      for (const json::Value &TV : *Ts) {
        const json::Object *TO = TV.getAsObject();
        if (!TO)
          continue;
        Turn T;
        T.N = getInteger(*TO, "turn").value_or(0);
        T.Hash = Str(*TO, "hash");
        T.Failure = Str(*TO, "failure");
        T.LintVerdict = Str(*TO, "lint_verdict");
        T.Diagnosis = Str(*TO, "diagnosis");
        if (const json::Value *X = TO->get("tokens_in"); X && !X->getAsNull())
          T.TokensIn = getInteger(*X);
        if (const json::Value *X = TO->get("tokens_out"); X && !X->getAsNull())
          T.TokensOut = getInteger(*X);
        T.WallS = TO->getNumber("wall_s").value_or(0);
        OO.Turns.push_back(std::move(T));
      }
    A.Operators.push_back(std::move(OO));
  }
  return A;
}

//===----------------------------------------------------------------------===//
// The leaderboard
//===----------------------------------------------------------------------===//

namespace {
/// The columns of the leaderboard, defined once for every format.
struct Column {
  const char *Header;
  const char *Key; ///< JSON key
  std::function<json::Value(const Row &, const Leaderboard &)> Get;
};
} // namespace

static json::Value optD(std::optional<double> V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

static std::optional<double>
part(const std::map<std::string, score::PartScore> &M, StringRef Key) {
  auto It = M.find(Key.str());
  return It == M.end() ? std::nullopt : It->second.SAgg;
}

static const std::vector<Column> &columns() {
  static const std::vector<Column> Cols = {
      {"set", "name",
       [](const Row &R, const Leaderboard &) { return json::Value(R.Name); }},
      {"kind", "kind",
       [](const Row &R, const Leaderboard &) {
         return json::Value(R.IsAgent                      ? "agent"
                            : R.Score && R.Score->Baseline ? "baseline"
                                                           : "set");
       }},
      {"files", "files",
       [](const Row &R, const Leaderboard &) {
         return R.Files ? json::Value(int64_t(*R.Files)) : json::Value(nullptr);
       }},
      {"static adopted", "static_adopted",
       [](const Row &R, const Leaderboard &) {
         return R.StaticAdopted ? json::Value(int64_t(*R.StaticAdopted))
                                : json::Value(nullptr);
       }},
      {"adopted by DSL", "adopted_by_dsl",
       [](const Row &R, const Leaderboard &) {
         if (!R.AdoptedByDsl)
           return json::Value(nullptr);
         json::Object O;
         for (const auto &[D, N] : *R.AdoptedByDsl)
           O[D] = int64_t(N);
         return json::Value(std::move(O));
       }},
      {"correct", "correctness_rate",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? json::Value(R.Score->CorrectnessRate)
                        : json::Value(nullptr);
       }},
      {"dynamic adoption", "dynamic_adoption",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? json::Value(R.Score->DynamicAdoption)
                        : json::Value(nullptr);
       }},
      {"both adopted", "both_adoption",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? optD(R.Score->BothAdoption) : json::Value(nullptr);
       }},
      {"S_agg", "s_agg",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? json::Value(R.Score->SAgg) : json::Value(nullptr);
       }},
      {"S decode", "s_agg_decode",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? optD(part(R.Score->Phases, "decode"))
                        : json::Value(nullptr);
       }},
      {"S prefill", "s_agg_prefill",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? optD(part(R.Score->Phases, "prefill"))
                        : json::Value(nullptr);
       }},
      {"S memory", "s_agg_memory",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? optD(part(R.Score->Regimes, "memory"))
                        : json::Value(nullptr);
       }},
      {"S compute", "s_agg_compute",
       [](const Row &R, const Leaderboard &) {
         return R.Score ? optD(part(R.Score->Regimes, "compute"))
                        : json::Value(nullptr);
       }},
      {"turns", "turns",
       [](const Row &R, const Leaderboard &) {
         if (!R.Agent)
           return json::Value(nullptr);
         int64_t N = 0;
         for (const OperatorOutcome &O : R.Agent->Operators)
           N += O.Turns.size();
         return json::Value(N);
       }},
      {"tokens in", "tokens_in",
       [](const Row &R, const Leaderboard &) {
         return R.Agent ? optInt(R.Agent->TokensIn) : json::Value(nullptr);
       }},
      {"tokens out", "tokens_out",
       [](const Row &R, const Leaderboard &) {
         return R.Agent ? optInt(R.Agent->TokensOut) : json::Value(nullptr);
       }},
  };
  return Cols;
}

std::map<std::string, unsigned>
adoptedByDsl(const std::vector<score::LintSubmission> &Lint,
             const std::vector<std::string> &Ops) {
  std::map<std::string, unsigned> Out;
  std::set<std::string> Seen;
  for (const score::LintSubmission &L : Lint) {
    std::string Op = sys::path::stem(L.Path).str();
    if ((!Ops.empty() && !is_contained(Ops, Op)) || !Seen.insert(Op).second ||
        L.Verdict != protocol::kAdopted)
      continue;
    for (const std::string &D : L.KernelDsls)
      ++Out[D];
  }
  return Out;
}

static std::string cell(const json::Value &V, StringRef Key) {
  if (V.getAsNull())
    return "-";
  if (auto S = V.getAsString())
    return S->str();
  if (const json::Object *O = V.getAsObject()) { // {"flydsl": 5, ...}
    std::vector<std::string> Items;
    for (const auto &[K, N] : *O)
      Items.push_back(K.str() + " " +
                      std::to_string(N.getAsInteger().value_or(0)));
    llvm::sort(Items);
    return Items.empty() ? "none" : join(Items, ", ");
  }
  // Rates as percentages, S values with three decimals, counts as integers
  // (a JSON number does not say which: 1.0 reads as an integer too).
  auto D = V.getAsNumber();
  if (!D)
    return "?";
  if (Key.ends_with("_rate") || Key.ends_with("_adoption"))
    return formatv("{0:F1}%", *D * 100).str();
  if (Key.starts_with("s_agg"))
    return formatv("{0:F3}", *D).str();
  return std::to_string(static_cast<int64_t>(*D));
}

static std::vector<std::vector<std::string>> cells(const Leaderboard &L) {
  std::vector<std::vector<std::string>> Out;
  for (const Row &R : L.Rows) {
    std::vector<std::string> Line;
    for (const Column &C : columns()) {
      std::string S = cell(C.Get(R, L), C.Key);
      if ((StringRef(C.Key) == "files" ||
           StringRef(C.Key) == "static_adopted") &&
          S != "-")
        S += "/" + std::to_string(L.Operators);
      Line.push_back(std::move(S));
    }
    Out.push_back(std::move(Line));
  }
  return Out;
}

static void scopeNote(raw_ostream &OS, const Leaderboard &L) {
  OS << "Operators: " << L.Operators << " cards of the public bundle. ";
  if (L.Report)
    OS << "Gated sets scored on " << L.Report->Gpu << ": "
       << L.Report->Problems.size() << " problems ("
       << (L.Report->Scope == "measured" ? "those with a result"
                                         : "the whole suite")
       << formatv(", {0:F1}% of the weight).",
                  L.Report->ScopeWeightShare * 100);
  else
    OS << "Nothing was gated: correctness, adoption at run time and S_agg are "
          "'-'.";
  OS << "\n";
}

void printLeaderboardText(raw_ostream &OS, const Leaderboard &L) {
  auto Rows = cells(L);
  std::vector<size_t> W;
  for (const Column &C : columns())
    W.push_back(StringRef(C.Header).size());
  for (const auto &R : Rows)
    for (size_t I = 0; I < R.size(); ++I)
      W[I] = std::max(W[I], R[I].size());
  OS << "atrex eval leaderboard\n";
  scopeNote(OS, L);
  for (size_t I = 0; I < columns().size(); ++I)
    OS << left_justify(columns()[I].Header, W[I] + 2);
  OS << "\n";
  for (const auto &R : Rows) {
    for (size_t I = 0; I < R.size(); ++I)
      OS << left_justify(R[I], W[I] + 2);
    OS << "\n";
  }
}

void printLeaderboardMarkdown(raw_ostream &OS, const Leaderboard &L) {
  OS << "# atrex eval leaderboard\n\n";
  scopeNote(OS, L);
  OS << "\n|";
  for (const Column &C : columns())
    OS << " " << C.Header << " |";
  OS << "\n|";
  for (size_t I = 0; I < columns().size(); ++I)
    OS << (I < 2 ? "---|" : "---:|");
  OS << "\n";
  for (const auto &R : cells(L)) {
    OS << "|";
    for (const std::string &C : R)
      OS << " " << C << " |";
    OS << "\n";
  }
}

json::Value toJSON(const Leaderboard &L) {
  json::Array Rows;
  for (const Row &R : L.Rows) {
    json::Object O;
    for (const Column &C : columns())
      O[C.Key] = C.Get(R, L);
    Rows.push_back(std::move(O));
  }
  json::Object Out{{"schema", "atrex-eval-leaderboard/1"},
                   {"operators", int64_t(L.Operators)},
                   {"rows", std::move(Rows)}};
  if (L.Report)
    Out["scope"] =
        json::Object{{"gpu", L.Report->Gpu},
                     {"kind", L.Report->Scope},
                     {"problems", int64_t(L.Report->Problems.size())},
                     {"weight_share", L.Report->ScopeWeightShare}};
  else
    Out["scope"] = nullptr;
  return Out;
}

} // namespace atrex::agent::eval

//===- Loop.cpp - the measure-revise loop ---------------------------------===//
//
// Part of atrex. See include/atrex/Agent/Loop.h and docs/agent.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Loop.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Trail.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>

using namespace llvm;

namespace atrex::agent {

//===----------------------------------------------------------------------===//
// LoopState
//===----------------------------------------------------------------------===//

Outcome LoopState::decide(const Evaluation &E, const LoopOptions &O) const {
  Outcome Out;
  Out.Diagnosis = diagnosis(E);
  if (!O.Measured || !E.Measured) {
    Out.Kind = failure::kUnmeasured;
    std::string Static = failureKind(E);
    if (!Static.empty() && Static != failure::kUnmeasured)
      Out.Kind = Static;
    Out.Diagnosis += "; not accepted: not measured, S_i unknown";
    return Out;
  }
  Out.Kind = failureKind(E);
  if (!Out.Kind.empty()) {
    Out.Diagnosis += "; rejected: " + Out.Kind;
    return Out;
  }
  double S = E.S.value_or(0);
  double Need = HaveAccepted ? Best.S * (1 + O.MinImprovement) : 0;
  if (S > Need) {
    Out.Accepted = true;
    Out.Diagnosis +=
        HaveAccepted
            ? formatv("; accepted: S_i {0:F4} > best {1:F4} (iteration {2})", S,
                      Best.S, Best.Iteration)
                  .str()
            : formatv("; accepted: S_i {0:F4}, the first adopted kernel", S)
                  .str();
    return Out;
  }
  Out.Kind = failure::kSlower;
  Out.Diagnosis += formatv("; rejected: S_i {0:F4} does not beat best {1:F4}"
                           " (iteration {2})",
                           S, Best.S, Best.Iteration)
                       .str();
  return Out;
}

static HistoryEntry entryOf(unsigned Iteration, const std::string &Hash,
                            const Evaluation *E, const Outcome &Out) {
  HistoryEntry H;
  H.Iteration = Iteration;
  H.Hash = Hash;
  H.Accepted = Out.Accepted;
  H.Kind = Out.Kind;
  H.Diagnosis = Out.Diagnosis;
  if (E) {
    H.S = E->S;
    H.MedianUs = E->MedianUs;
    H.LintVerdict = E->LintVerdict;
    H.GateStatus = E->GateStatus;
    H.GateVerdict = E->GateVerdict;
  }
  return H;
}

void LoopState::recordEvaluated(unsigned Iteration, const Kernel &K,
                                const Evaluation &E, const Outcome &Out) {
  History.push_back(entryOf(Iteration, K.Hash, &E, Out));
  if (!llvm::is_contained(Explored, K.Hash))
    Explored.push_back(K.Hash);
  if (Iteration == 0 || Out.Accepted) {
    // The starting submission is the kernel to revise until one is accepted.
    if (Out.Accepted || !HaveAccepted) {
      Best = K;
      Best.Iteration = Iteration;
      Best.Accepted = Out.Accepted;
      Best.S = Out.Accepted ? E.S.value_or(0) : 0;
      Best.MedianUs = E.MedianUs;
      Best.LintVerdict = E.LintVerdict;
      Best.GateStatus = E.GateStatus;
      Best.GateVerdict = E.GateVerdict;
    }
    HaveAccepted |= Out.Accepted;
  }
  if (Out.Accepted)
    StaleKinds.clear();
  else if (Iteration > 0) // iteration 0 proposes nothing: never stale
    StaleKinds.push_back(Out.Kind);
  LastIteration = Iteration;
  Started = true;
}

void LoopState::recordBackendFailure(unsigned Iteration,
                                     const std::string &Why) {
  Outcome Out;
  Out.Kind = failure::kBackend;
  Out.Diagnosis = "no candidate: " + Why;
  History.push_back(entryOf(Iteration, "", nullptr, Out));
  StaleKinds.push_back(failure::kBackend);
  LastIteration = Iteration;
}

void LoopState::recordProfile(unsigned Iteration,
                              std::optional<json::Object> Diagnosis,
                              const std::string &Error) {
  auto Set = [&](auto &X) {
    X.Profile = Diagnosis;
    X.ProfileError = Error;
  };
  for (HistoryEntry &H : History)
    if (H.Iteration == Iteration)
      Set(H);
  if (Started && Best.Iteration == Iteration)
    Set(Best);
}

std::optional<DropoutDue> LoopState::dropoutDue(const LoopOptions &O) const {
  DropoutDue D;
  D.Stale = StaleKinds.size();
  if (O.DropoutAfter && StaleKinds.size() >= O.DropoutAfter) {
    D.Trigger = "stale";
    D.Kinds = StaleKinds;
    return D;
  }
  if (O.DropoutSameKind && StaleKinds.size() >= O.DropoutSameKind) {
    std::vector<std::string> Last(StaleKinds.end() - O.DropoutSameKind,
                                  StaleKinds.end());
    if (llvm::all_equal(Last)) {
      D.Trigger = "same-kind";
      D.Kinds = Last;
      return D;
    }
  }
  return std::nullopt;
}

std::vector<unsigned> LoopState::dropout(unsigned AfterIteration,
                                         const DropoutDue &Why) {
  std::vector<unsigned> Masked;
  for (const HistoryEntry &H : History)
    Masked.push_back(H.Iteration);
  ++Dropouts;
  std::string Range =
      Masked.empty() ? "none"
                     : formatv("{0}-{1}", Masked.front(), Masked.back()).str();
  DropoutNote =
      formatv("optimization dropout {0} after iteration {1}: {2} iterations "
              "without improvement ({3}); the history of iterations {4} is "
              "masked, continue from the best kernel (iteration {5})",
              Dropouts, AfterIteration, Why.Stale, join(Why.Kinds, ", "), Range,
              Best.Iteration)
          .str();
  History.clear();
  StaleKinds.clear();
  return Masked;
}

//===----------------------------------------------------------------------===//
// Retrieval terms
//===----------------------------------------------------------------------===//

/// Words of a diagnosis line that say something about the candidate: not the
/// loop's own vocabulary ("gate pass, verdict adopted, median ... us; lint
/// ..."), not numbers, at least three characters.
static std::vector<std::string> diagnosisWords(StringRef Diagnosis) {
  static const StringSet<> Stop = {
      "gate",      "lint",     "verdict", "median",     "not",     "measured",
      "rejected",  "accepted", "does",    "beat",       "best",    "iteration",
      "the",       "first",    "kernel",  "and",        "for",     "with",
      "candidate", "s_i",      "than",    "from",       "was",     "are",
      "its",       "this",     "that",    "none",       "gave",    "result",
      "own",       "launched", "entry",   "delegation", "unknown", "no-gate"};
  std::vector<std::string> Out;
  SmallVector<StringRef> Words;
  SplitString(Diagnosis, Words, " \t;,:()[]{}'\"=<>/");
  for (StringRef W : Words) {
    W = W.trim(".-");
    std::string L = W.lower();
    if (W.size() < 3 || none_of(W, isAlpha) || Stop.contains(L) ||
        L == atrex::rt::protocol::kAdopted || L == atrex::rt::protocol::kPass ||
        is_contained(Out, W))
      continue;
    Out.push_back(W.str());
  }
  return Out;
}

std::vector<std::string> retrievalTerms(const Context &C) {
  std::vector<std::string> T;
  auto Add = [&](StringRef S) {
    if (!S.empty() && T.size() < 32 && !is_contained(T, S))
      T.push_back(S.str());
  };
  Add(C.Prob.Operator);
  Add(C.Prob.Phase);
  if (!C.Prob.Regime.empty())
    Add(C.Prob.Regime + "-bound");
  for (const std::string &V : {C.Best.LintVerdict, C.Best.GateVerdict})
    if (V != atrex::rt::protocol::kAdopted)
      Add(V);
  if (C.Best.GateStatus != atrex::rt::protocol::kPass)
    Add(C.Best.GateStatus);
  size_t From = C.History.size() > 2 ? C.History.size() - 2 : 0;
  for (size_t I = C.History.size(); I-- > From;) { // newest first
    Add(C.History[I].Kind);
    if (C.History[I].Profile) // --profile: the diagnosis's own terms
      if (const json::Array *Kb = C.History[I].Profile->getArray("kb_terms"))
        for (const json::Value &V : *Kb)
          if (auto S = V.getAsString())
            Add(*S);
    std::vector<std::string> Words = diagnosisWords(C.History[I].Diagnosis);
    for (size_t W = 0; W < Words.size() && W < 12; ++W)
      Add(Words[W]);
  }
  return T;
}

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

static std::string iso8601Now() {
  auto Now = std::chrono::system_clock::now();
  std::time_t T = std::chrono::system_clock::to_time_t(Now);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

static json::Value optNumber(const std::optional<double> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}
static json::Value optInt(const std::optional<int64_t> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

/// Saves \p Source by content hash in <run>/candidates/.
static Expected<Kernel> saveCandidate(StringRef RunDir, StringRef Source) {
  Kernel K;
  K.Source = Source.str();
  K.Hash = suite::sha256Hex(Source);
  SmallString<256> Dir(RunDir);
  sys::path::append(Dir, "candidates");
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC,
                             "cannot create '" + Dir + "': " + EC.message());
  SmallString<256> File(Dir);
  sys::path::append(File, K.Hash + ".cu");
  K.File = std::string(File);
  if (!sys::fs::exists(File))
    if (Error E = writeFile(File, Source))
      return std::move(E);
  return K;
}

static json::Object optionsJSON(const RunOptions &O) {
  return json::Object{{"iterations", O.Loop.Iterations},
                      {"wall_seconds", O.Loop.WallSeconds},
                      {"dropout_after", O.Loop.DropoutAfter},
                      {"dropout_same_kind", O.Loop.DropoutSameKind},
                      {"min_improvement", O.Loop.MinImprovement},
                      {"measured", O.Loop.Measured},
                      {"token_budget", O.Loop.TokenBudget
                                           ? json::Value(O.Loop.TokenBudget)
                                           : json::Value(nullptr)},
                      {"gate_worker", O.Eval.GateWorker.empty()
                                          ? json::Value(nullptr)
                                          : json::Value(O.Eval.GateWorker)},
                      {"kb_index", O.KbIndex.empty() ? json::Value(nullptr)
                                                     : json::Value(O.KbIndex)},
                      {"profile", O.Profile}};
}

namespace {
struct Runner {
  const RunOptions &O;
  Backend &B;
  raw_ostream &Log;
  TrailWriter &Trail;
  Problem Prob;
  LoopState State;
  /// Tokens the backend reported in the run (resume included).
  int64_t TokensIn = 0, TokensOut = 0;

  std::string iterDir(unsigned I) const {
    return formatv("{0}/iter-{1:D4}", O.RunDir, I).str();
  }

  Error evaluateAndDecide(unsigned I, const Kernel &K) {
    auto E = evaluate(Prob, K.File, iterDir(I),
                      formatv("agent/iter-{0}", I).str(), O.Eval);
    if (!E)
      return E.takeError();
    json::Object Ev = toJSON(*E);
    Ev["iteration"] = I;
    Ev["hash"] = K.Hash;
    // --profile: ncu on a candidate whose gate passed; a failed profile is
    // recorded and the loop goes on.
    std::optional<ProfileRecord> Prof;
    if (O.Profile && E->Measured &&
        E->GateStatus == atrex::rt::protocol::kPass) {
      Prof = profileIteration(Prob, *E, K.File, iterDir(I), O.Prof);
      Ev["profile"] = toJSON(*Prof);
      if (!Prof->Diag) // a diagnosis is in the decision's line below
        Log << formatv("atrex-agent: iteration {0}: profile failed: {1}\n", I,
                       Prof->Error);
    }
    if (Error Err = Trail.write("evaluation", std::move(Ev)))
      return Err;
    Outcome Out = State.decide(*E, O.Loop);
    if (Prof && Prof->Diag)
      Out.Diagnosis += "; " + Prof->Diag->Summary;
    double PrevS = State.Best.S;
    bool PrevAccepted = State.HaveAccepted;
    unsigned PrevIter = State.Best.Iteration;
    State.recordEvaluated(I, K, *E, Out);
    if (Prof)
      State.recordProfile(I,
                          Prof->Diag
                              ? std::optional<json::Object>(toJSON(*Prof->Diag))
                              : std::nullopt,
                          Prof->Error);
    Log << formatv("atrex-agent: iteration {0}: {1}\n", I, Out.Diagnosis);
    if (Out.Accepted)
      return Trail.write(
          "accept",
          json::Object{{"iteration", I},
                       {"hash", K.Hash},
                       {"s", optNumber(E->S)},
                       {"median_us", optNumber(E->MedianUs)},
                       {"previous_best_s", PrevAccepted ? json::Value(PrevS)
                                                        : json::Value(nullptr)},
                       {"previous_best_iteration", PrevAccepted
                                                       ? json::Value(PrevIter)
                                                       : json::Value(nullptr)},
                       {"diagnosis", Out.Diagnosis}});
    return Trail.write(
        "reject",
        json::Object{{"iteration", I},
                     {"hash", K.Hash},
                     {"kind", Out.Kind},
                     {"s", optNumber(E->S)},
                     {"s_time", optNumber(E->STime)},
                     {"median_us", optNumber(E->MedianUs)},
                     {"best_s", State.HaveAccepted ? json::Value(State.Best.S)
                                                   : json::Value(nullptr)},
                     {"best_iteration", State.Best.Iteration},
                     {"diagnosis", Out.Diagnosis}});
  }

  Error startIteration() {
    auto Start = readFile(O.StartFile);
    if (!Start)
      return Start.takeError();
    auto K = saveCandidate(O.RunDir, *Start);
    if (!K)
      return K.takeError();
    if (Error E =
            Trail.write("candidate", json::Object{{"iteration", 0},
                                                  {"backend", "start"},
                                                  {"command", nullptr},
                                                  {"source_path", O.StartFile},
                                                  {"hash", K->Hash},
                                                  {"file", K->File},
                                                  {"error", nullptr}}))
      return E;
    return evaluateAndDecide(0, *K);
  }

  /// Queries the knowledge base for \p C (every retrieval is a `retrieval`
  /// record; a failed one too, and the run goes on without hits).
  Error retrieve(Context &C) {
    KbQuery Q;
    Q.Operator = Prob.Operator;
    Q.Gpu = Prob.Gpu;
    Q.Limit = O.KbLimit;
    Q.Focus = State.Dropouts; // after a dropout the merge starts elsewhere
    Q.Terms = retrievalTerms(C);
    auto Hits = queryKnowledge(O.KbIndex, Q);
    json::Object Rec{{"iteration", C.Iteration},
                     {"index", O.KbIndex},
                     {"operator", Q.Operator},
                     {"gpu", Q.Gpu},
                     {"focus", json::Array(kbLayerOrder(Q.Focus))},
                     {"terms", json::Array(Q.Terms)},
                     {"error", nullptr}};
    json::Array Logged;
    C.Retrievals.emplace();
    if (!Hits) {
      std::string Why = toString(Hits.takeError());
      Log << formatv("atrex-agent: iteration {0}: retrieval failed: {1}\n",
                     C.Iteration, Why);
      Rec["error"] = Why;
    } else {
      std::vector<std::string> Ids;
      for (const KbHit &H : *Hits) {
        Logged.push_back(toJSON(H, /*WithSnippet=*/false));
        Ids.push_back(H.Id);
      }
      Log << formatv("atrex-agent: iteration {0}: retrieved {1} (focus {2}): "
                     "{3}\n",
                     C.Iteration, Hits->size(), kbLayerOrder(Q.Focus).front(),
                     join(Ids, ", "));
      C.Retrievals = std::move(*Hits);
    }
    Rec["hits"] = std::move(Logged);
    return Trail.write("retrieval", std::move(Rec));
  }

  Error iteration(unsigned I) {
    Context C;
    C.Prob = Prob;
    C.Iteration = I;
    C.Best = State.Best;
    C.History = State.History;
    C.Explored = State.Explored;
    C.DropoutNote = State.DropoutNote;
    C.Dropouts = State.Dropouts;
    C.Measured = O.Loop.Measured;
    C.Dir = iterDir(I);
    C.ContextFile = C.Dir + "/context.json";
    C.BestFile = C.Dir + "/best.cu";
    C.CandidateFile = C.Dir + "/candidate.cu";
    C.TokensFile = C.Dir + "/tokens.json";
    if (std::error_code EC = sys::fs::create_directories(C.Dir))
      return createStringError(EC, "cannot create '" + C.Dir +
                                       "': " + EC.message());
    if (Error E = writeFile(C.BestFile, C.Best.Source))
      return E;
    if (!O.KbIndex.empty())
      if (Error E = retrieve(C))
        return E;
    if (Error E =
            writeFile(C.ContextFile,
                      formatv("{0:2}", json::Value(toJSON(C))).str() + "\n"))
      return E;
    auto Cand = B.propose(C);
    if (!Cand)
      return Cand.takeError();
    TokensIn += Cand->TokensIn.value_or(0);
    TokensOut += Cand->TokensOut.value_or(0);
    json::Object Rec{{"iteration", I},
                     {"backend", Cand->Backend},
                     {"command", Cand->Command},
                     {"exit_status", Cand->ExitStatus
                                         ? json::Value(*Cand->ExitStatus)
                                         : json::Value(nullptr)},
                     {"wall_s", Cand->WallS},
                     {"tokens_in", optInt(Cand->TokensIn)},
                     {"tokens_out", optInt(Cand->TokensOut)},
                     {"context", C.ContextFile}};
    if (!Cand->TokensError.empty())
      Rec["tokens_error"] = Cand->TokensError;
    if (!Cand->Detail.empty())
      Rec["detail"] = json::Value(json::Object(Cand->Detail));
    if (!Cand->Source) {
      Rec["hash"] = nullptr;
      Rec["file"] = nullptr;
      Rec["error"] = Cand->Failure;
      if (Error E = Trail.write("candidate", std::move(Rec)))
        return E;
      State.recordBackendFailure(I, Cand->Failure);
      Log << formatv("atrex-agent: iteration {0}: no candidate: {1}\n", I,
                     Cand->Failure);
      return Trail.write(
          "reject",
          json::Object{{"iteration", I},
                       {"hash", nullptr},
                       {"kind", failure::kBackend},
                       {"s", nullptr},
                       {"best_s", State.HaveAccepted ? json::Value(State.Best.S)
                                                     : json::Value(nullptr)},
                       {"best_iteration", State.Best.Iteration},
                       {"diagnosis", State.History.back().Diagnosis}});
    }
    auto K = saveCandidate(O.RunDir, *Cand->Source);
    if (!K)
      return K.takeError();
    Rec["hash"] = K->Hash;
    Rec["file"] = K->File;
    Rec["error"] = nullptr;
    if (Error E = Trail.write("candidate", std::move(Rec)))
      return E;
    return evaluateAndDecide(I, *K);
  }

  Error maybeDropout(unsigned I) {
    auto Due = State.dropoutDue(O.Loop);
    if (!Due)
      return Error::success();
    std::vector<unsigned> Masked = State.dropout(I, *Due);
    json::Array M, Kinds;
    for (unsigned X : Masked)
      M.push_back(X);
    for (const std::string &K : Due->Kinds)
      Kinds.push_back(K);
    Log << "atrex-agent: " << State.DropoutNote << "\n";
    return Trail.write("dropout",
                       json::Object{{"iteration", I},
                                    {"trigger", Due->Trigger},
                                    {"stale", Due->Stale},
                                    {"kinds", std::move(Kinds)},
                                    {"masked", std::move(M)},
                                    {"best_iteration", State.Best.Iteration},
                                    {"note", State.DropoutNote}});
  }
};
} // namespace

Error runLoop(const Problem &P, Backend &B, const RunOptions &O,
              raw_ostream &Log) {
  auto Begin = std::chrono::steady_clock::now();
  if (std::error_code EC = sys::fs::create_directories(O.RunDir))
    return createStringError(EC, "cannot create '" + O.RunDir +
                                     "': " + EC.message());
  std::string TrailPath = O.RunDir + "/trail.jsonl";
  if (!O.KbIndex.empty())
    if (Error E = checkKnowledgeIndex(O.KbIndex))
      return E;
  Restored R;
  R.Prob = P;
  int64_t TokensIn = 0, TokensOut = 0; // of the trail: spent, decided or not
  if (O.Resume) {
    if (!sys::fs::exists(TrailPath))
      return createStringError("--resume: no trail '" + TrailPath + "'");
    auto Records = readTrail(TrailPath);
    if (!Records)
      return Records.takeError();
    for (const TrailRecord &Rec : *Records)
      if (Rec.Event == "candidate") {
        TokensIn += getInteger(Rec.Data, "tokens_in").value_or(0);
        TokensOut += getInteger(Rec.Data, "tokens_out").value_or(0);
      }
    auto Rs = replayTrail(TrailPath, *Records, O.RunDir);
    if (!Rs)
      return Rs.takeError();
    R = std::move(*Rs);
  } else if (sys::fs::exists(TrailPath)) {
    return createStringError("'" + TrailPath +
                             "' exists: give --resume to continue it, or "
                             "another run directory");
  }
  auto Trail = TrailWriter::open(TrailPath);
  if (!Trail)
    return Trail.takeError();
  Runner Run{O, B, Log, *Trail, R.Prob, std::move(R.State)};
  Run.TokensIn = TokensIn;
  Run.TokensOut = TokensOut;
  if (Error E = Trail->write(
          "start",
          json::Object{
              {"time", iso8601Now()},
              {"resumed", O.Resume},
              {"problem", toJSON(Run.Prob)},
              {"backend", B.name()},
              {"command", O.Command},
              {"start_file", O.StartFile.empty() ? json::Value(nullptr)
                                                 : json::Value(O.StartFile)},
              {"run_dir", O.RunDir},
              {"options", optionsJSON(O)},
              {"restored",
               json::Object{{"last_iteration", Run.State.LastIteration},
                            {"best_iteration",
                             Run.State.HaveAccepted
                                 ? json::Value(Run.State.Best.Iteration)
                                 : json::Value(nullptr)},
                            {"best_s", Run.State.HaveAccepted
                                           ? json::Value(Run.State.Best.S)
                                           : json::Value(nullptr)},
                            {"stale", Run.State.StaleKinds.size()},
                            {"dropouts", Run.State.Dropouts}}}}))
    return E;
  if (!Run.State.Started) {
    if (O.StartFile.empty())
      return createStringError("no starting submission: give --start");
    if (Error E = Run.startIteration())
      return E;
  }
  std::string Reason = "iterations";
  for (unsigned I = Run.State.LastIteration + 1; I <= O.Loop.Iterations; ++I) {
    double Elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
            .count();
    if (O.Loop.WallSeconds > 0 && Elapsed >= O.Loop.WallSeconds) {
      Reason = "wall-seconds";
      break;
    }
    uint64_t Tokens = Run.TokensIn + Run.TokensOut;
    if (O.Loop.TokenBudget && Tokens >= O.Loop.TokenBudget) {
      Reason = "token-budget";
      Log << formatv("atrex-agent: token budget reached: {0} of {1} tokens "
                     "used, no new iteration\n",
                     Tokens, O.Loop.TokenBudget);
      break;
    }
    if (Error E = Run.iteration(I))
      return E;
    if (Error E = Run.maybeDropout(I))
      return E;
  }
  const Kernel &Best = Run.State.Best;
  json::Value BestJSON = nullptr;
  if (Run.State.HaveAccepted)
    BestJSON = json::Object{{"iteration", Best.Iteration},
                            {"hash", Best.Hash},
                            {"file", Best.File},
                            {"s", Best.S},
                            {"median_us", optNumber(Best.MedianUs)}};
  double Wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
          .count();
  if (Error E = Trail->write(
          "end",
          json::Object{
              {"iteration", Run.State.LastIteration},
              {"reason", Reason},
              {"best", std::move(BestJSON)},
              {"dropouts", Run.State.Dropouts},
              {"tokens",
               json::Object{{"in", Run.TokensIn},
                            {"out", Run.TokensOut},
                            {"budget", O.Loop.TokenBudget
                                           ? json::Value(O.Loop.TokenBudget)
                                           : json::Value(nullptr)}}},
              {"wall_s", Wall}}))
    return E;
  if (Run.State.HaveAccepted)
    Log << formatv("atrex-agent: best: iteration {0}, S_i {1:F4}, {2}\n",
                   Best.Iteration, Best.S, Best.File);
  else
    Log << "atrex-agent: no candidate was accepted"
        << (O.Loop.Measured ? "" : " (--no-gate: nothing is measured)") << "\n";
  return Error::success();
}

} // namespace atrex::agent

//===- Backend.cpp - the context document and the command backend ---------===//
//
// Part of atrex. See include/atrex/Agent/Backend.h and docs/agent.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Process.h"
#include "atrex/Support/JSON.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace atrex::agent {

Backend::~Backend() = default;

static json::Value optNumber(const std::optional<double> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

/// --profile's diagnosis of a kernel or iteration (docs/agent.md,
/// "Profiling and diagnosis"): `profile` or `profile_error`, absent without.
template <typename T> static void addProfile(json::Object &O, const T &X) {
  if (X.Profile)
    O["profile"] = json::Object(*X.Profile);
  if (!X.ProfileError.empty())
    O["profile_error"] = X.ProfileError;
}

json::Object toJSON(const Context &C) {
  json::Object Best{
      {"iteration", C.Best.Iteration},
      {"accepted", C.Best.Accepted},
      {"hash", C.Best.Hash},
      {"file", C.BestFile},
      {"source", C.Best.Source},
      {"s", C.Best.Accepted ? json::Value(C.Best.S) : json::Value(nullptr)},
      {"median_us", optNumber(C.Best.MedianUs)},
      {"lint_verdict", C.Best.LintVerdict},
      {"gate_status", C.Best.GateStatus},
      {"gate_verdict", C.Best.GateVerdict}};
  addProfile(Best, C.Best);
  json::Array History;
  for (const HistoryEntry &H : C.History) {
    json::Object Entry{
        {"iteration", H.Iteration},
        {"hash", H.Hash},
        {"accepted", H.Accepted},
        {"kind", H.Kind.empty() ? json::Value(nullptr) : json::Value(H.Kind)},
        {"diagnosis", H.Diagnosis},
        {"s", optNumber(H.S)},
        {"median_us", optNumber(H.MedianUs)},
        {"lint_verdict", H.LintVerdict},
        {"gate_status", H.GateStatus},
        {"gate_verdict", H.GateVerdict}};
    addProfile(Entry, H);
    History.push_back(std::move(Entry));
  }
  json::Object Problem = toJSON(C.Prob);
  Problem["t_roofline_us"] = C.Prob.TRooflineS * 1e6;
  if (C.Card) // an operator of the public bundle: no problem, no roofline
    Problem = json::Object{
        {"suite", C.Prob.Suite},         {"operator", C.Prob.Operator},
        {"signature", C.Prob.Signature}, {"summary", C.Prob.Summary},
        {"key_doc", C.Prob.KeyDoc},      {"gpu", C.Prob.Gpu}};
  std::string AcceptRule =
      C.Card       ? "none during generation: each turn is linted (the static "
                     "verdict must be adopted); the last candidate is then gated "
                     "and scored on the problems of the sealed bundle, which the "
                     "agent does not see"
      : C.Measured ? "gate pass, static and dynamic verdict adopted, S_i "
                     "greater than the best's"
                   : "none: --no-gate, candidates are not measured and none "
                     "is accepted";
  json::Object Files{{"candidate", C.CandidateFile},
                     {"best", C.BestFile},
                     {"tokens", C.TokensFile},
                     {"dir", C.Dir}};
  if (C.Card)
    Files["card"] = C.CardFile;
  json::Object Out{{"schema", "atrex-agent-context/1"},
                   {"iteration", C.Iteration},
                   {"problem", std::move(Problem)},
                   {"measured", C.Measured},
                   {"accept_rule", std::move(AcceptRule)},
                   {"best", std::move(Best)},
                   {"history", std::move(History)},
                   {"explored", json::Array(C.Explored)},
                   {"dropouts", C.Dropouts},
                   {"dropout_note", C.DropoutNote.empty()
                                        ? json::Value(nullptr)
                                        : json::Value(C.DropoutNote)},
                   {"files", std::move(Files)}};
  if (C.Card)
    Out["card"] = json::Object(*C.Card);
  if (C.Retrievals) {
    json::Array Hits;
    for (const KbHit &H : *C.Retrievals)
      Hits.push_back(toJSON(H));
    Out["retrievals"] = std::move(Hits);
  }
  return Out;
}

static std::string shellQuote(StringRef S) {
  std::string Out = "'";
  for (char Ch : S)
    Out += Ch == '\'' ? std::string("'\\''") : std::string(1, Ch);
  return Out + "'";
}

std::string expandPlaceholders(StringRef Text, const Context &C) {
  std::pair<StringRef, std::string> Subs[] = {
      {"{context}", shellQuote(C.ContextFile)},
      {"{candidate}", shellQuote(C.CandidateFile)},
      {"{best}", shellQuote(C.BestFile)},
      {"{tokens}", shellQuote(C.TokensFile)},
      {"{dir}", shellQuote(C.Dir)},
      {"{iteration}", std::to_string(C.Iteration)},
      {"{card}", shellQuote(C.CardFile)}};
  std::string Out;
  while (!Text.empty()) {
    bool Matched = false;
    for (const auto &[Key, Value] : Subs)
      if (Text.starts_with(Key)) {
        Out += Value;
        Text = Text.drop_front(Key.size());
        Matched = true;
        break;
      }
    if (!Matched) {
      Out += Text.front();
      Text = Text.drop_front();
    }
  }
  return Out;
}

Error readTokens(StringRef Path, Candidate &Cand) {
  if (!sys::fs::exists(Path))
    return Error::success();
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  auto V = json::parse(*Text);
  if (!V)
    return createStringError(Path + ": not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return createStringError(Path + ": not a JSON object");
  for (auto [Key, Out] :
       std::initializer_list<std::pair<StringRef, std::optional<int64_t> *>>{
           {"tokens_in", &Cand.TokensIn}, {"tokens_out", &Cand.TokensOut}}) {
    const json::Value *T = O->get(Key);
    if (!T || T->getAsNull())
      continue;
    auto N = getInteger(*T);
    if (!N || *N < 0)
      return createStringError(Path + ": '" + Key +
                               "' is not a non-negative integer");
    *Out = *N;
  }
  return Error::success();
}

namespace {
class CommandBackend : public Backend {
public:
  CommandBackend(std::string Command, unsigned TimeoutS)
      : Command(std::move(Command)), TimeoutS(TimeoutS) {}
  StringRef name() const override { return "command"; }

  Expected<Candidate> propose(const Context &C) override {
    Candidate Cand;
    Cand.Backend = "command";
    Cand.Command = expandPlaceholders(Command, C);
    // A candidate or token file from an earlier attempt is not this one's.
    sys::fs::remove(C.CandidateFile);
    sys::fs::remove(C.TokensFile);
    std::vector<std::pair<std::string, std::string>> Env = {
        {"ATREX_AGENT_CONTEXT", C.ContextFile},
        {"ATREX_AGENT_CANDIDATE", C.CandidateFile},
        {"ATREX_AGENT_BEST", C.BestFile},
        {"ATREX_AGENT_TOKENS", C.TokensFile},
        {"ATREX_AGENT_DIR", C.Dir},
        {"ATREX_AGENT_ITERATION", std::to_string(C.Iteration)}};
    if (C.Card)
      Env.push_back({"ATREX_AGENT_CARD", C.CardFile});
    std::string Out = C.Dir + "/command.out", Err = C.Dir + "/command.err";
    ProcessResult R = runProcess("/bin/sh", {"sh", "-c", Cand.Command}, Env,
                                 Out, Err, TimeoutS);
    Cand.ExitStatus = R.ExitStatus;
    Cand.WallS = R.WallS;
    if (Error E = readTokens(C.TokensFile, Cand))
      Cand.TokensError = toString(std::move(E));
    std::string ErrTail;
    if (auto T = readFile(Err))
      ErrTail = tail(*T, 3, 400);
    else
      consumeError(T.takeError());
    auto WithErr = [&](std::string Why) {
      return ErrTail.empty() ? Why : Why + " (stderr: " + ErrTail + ")";
    };
    if (!R.ExitStatus)
      Cand.Failure = WithErr("the command did not exit: " + R.Error);
    else if (*R.ExitStatus != 0)
      Cand.Failure = WithErr("the command exited with status " +
                             std::to_string(*R.ExitStatus));
    else if (!sys::fs::exists(C.CandidateFile))
      Cand.Failure = WithErr("the command wrote no candidate to '" +
                             C.CandidateFile + "'");
    if (!Cand.Failure.empty())
      return Cand;
    auto Source = readFile(C.CandidateFile);
    if (!Source) {
      Cand.Failure = toString(Source.takeError());
      return Cand;
    }
    if (StringRef(*Source).trim().empty()) {
      Cand.Failure =
          "the command wrote an empty candidate to '" + C.CandidateFile + "'";
      return Cand;
    }
    Cand.Source = std::move(*Source);
    return Cand;
  }

private:
  std::string Command;
  unsigned TimeoutS;
};
} // namespace

std::unique_ptr<Backend> createCommandBackend(std::string Command,
                                              unsigned TimeoutS) {
  return std::make_unique<CommandBackend>(std::move(Command), TimeoutS);
}

} // namespace atrex::agent

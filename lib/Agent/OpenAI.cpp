//===- OpenAI.cpp - the OpenAI-compatible chat-completions backend --------===//
//
// Part of atrex. See include/atrex/Agent/OpenAI.h and docs/agent.md, "The
// OpenAI-compatible backend". The transport is libcurl's easy API; built
// without libcurl (ATREX_HAVE_CURL undefined) the backend is an error at use.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/OpenAI.h"
#include "atrex/Agent/Process.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifdef ATREX_HAVE_CURL
#include <curl/curl.h>
#endif

using namespace llvm;

namespace atrex::agent {

bool openAIAvailable() {
#ifdef ATREX_HAVE_CURL
  return true;
#else
  return false;
#endif
}

//===----------------------------------------------------------------------===//
// The prompt
//===----------------------------------------------------------------------===//

static const char *const SystemPrompt =
    "You write GPU kernels for an evaluation harness (atrex agent). Reply with "
    "one complete CUDA C++ submission in one ```cuda fenced code block: the "
    "whole translation unit, defining the operator's entry point with exactly "
    "the entry signature given (name, parameters, semantics), compiled and "
    "run as it is. The compute must be your own CUDA kernels: no delegation "
    "to PyTorch/ATen operators (at::matmul, torch::...) or to vendor "
    "libraries (cuBLAS, cuBLASLt, cuDNN, CUTLASS device operators, Thrust "
    "algorithms and the like). The static linter (atrex-lint) and the gate's "
    "kernel attribution (atrex-gate) both check this, and a candidate counts "
    "only when both verdicts are `adopted`, its output is correct within the "
    "tolerance and its measured median beats the best kernel's. Revise the "
    "best kernel shown; a rejected candidate's diagnosis is in the history, "
    "learn from it. Put explanations, if any, outside the code block, and "
    "only one code block in the reply.";

/// The Python form's system prompt (`atrex eval --lang python`): the same
/// rules, a Python file (docs/submission-contract.md, "Python form").
static const char *const SystemPromptPython =
    "You write GPU kernels for an evaluation harness (atrex eval). Reply with "
    "one complete Python submission in one ```python fenced code block: the "
    "whole file, in one of the forms the card's `write` names (a KernelBench "
    "class ModelNew, a GPU MODE custom_kernel(data), or a function named like "
    "the operator with the entry's destination-passing signature), run as it "
    "is. The compute must be your own kernels: Triton kernels (@triton.jit) "
    "defined in this file or CUDA built by "
    "torch.utils.cpp_extension.load_inline; no delegation to PyTorch "
    "operators (torch.matmul, F.softmax, ...), torch.compile or vendor "
    "libraries. The static linter (atrex-lint) and the gate's kernel "
    "attribution (atrex-gate) both check this, and a candidate counts only "
    "when both verdicts are `adopted` and its output is correct within the "
    "tolerance. A rejected candidate's diagnosis is in the history, learn "
    "from it. Put explanations, if any, outside the code block, and only one "
    "code block in the reply.";

/// The fence tags of a submission language: the first is the one to write.
static ArrayRef<StringRef> codeTags(StringRef Language) {
  static const StringRef Python[] = {"python", "py"};
  static const StringRef Cuda[] = {"cuda", "cu", "c++", "cpp"};
  if (Language == "python")
    return Python;
  return Cuda;
}

/// The language a context asks for: its card's (`atrex eval --lang`), else
/// CUDA C++.
static std::string contextLanguage(const json::Object &Ctx) {
  if (const json::Object *Card = Ctx.getObject("card"))
    if (auto L = Card->getString("language"))
      return L->str();
  return "cuda";
}

static std::string str(const json::Object &O, StringRef Key,
                       StringRef Default = "") {
  if (auto S = O.getString(Key))
    return S->str();
  if (auto N = getInteger(O, Key))
    return std::to_string(*N);
  if (auto D = O.getNumber(Key))
    return formatv("{0}", *D).str();
  if (auto B = O.getBoolean(Key))
    return *B ? "true" : "false";
  return Default.str();
}

static std::string num(const json::Object &O, StringRef Key, const char *Fmt,
                       StringRef None = "-") {
  if (auto D = O.getNumber(Key))
    return formatv(Fmt, *D).str();
  return None.str();
}

/// A fence longer than any backtick run in \p Text.
static std::string fenceFor(StringRef Text) {
  size_t Longest = 0, Run = 0;
  for (char Ch : Text) {
    Run = Ch == '`' ? Run + 1 : 0;
    Longest = std::max(Longest, Run);
  }
  return std::string(std::max<size_t>(3, Longest + 1), '`');
}

static void codeBlock(raw_ostream &OS, StringRef Tag, StringRef Text) {
  std::string Fence = fenceFor(Text);
  OS << Fence << Tag << "\n" << Text;
  if (!Text.ends_with("\n"))
    OS << "\n";
  OS << Fence << "\n";
}

static void renderRetrievals(raw_ostream &OS, const json::Array &R) {
  OS << "\n## Retrieved from the knowledge base\n";
  unsigned N = 0;
  for (const json::Value &V : R) {
    ++N;
    if (auto S = V.getAsString()) {
      OS << "\n### " << N << "\n" << *S << "\n";
      continue;
    }
    const json::Object *O = V.getAsObject();
    if (!O) {
      OS << "\n### " << N << "\n" << formatv("{0:2}", V) << "\n";
      continue;
    }
    // Whatever the knowledge base calls them: a heading, then the text.
    std::string Head;
    for (StringRef K : {"title", "name", "id", "kind", "layer", "family"})
      if (auto S = O->getString(K); S && !S->empty())
        Head += (Head.empty() ? "" : ", ") + S->str();
    for (StringRef K : {"path", "file"})
      if (auto S = O->getString(K); S && !S->empty() && Head.empty())
        Head = S->str();
    OS << "\n### " << N << (Head.empty() ? "" : ". " + Head) << "\n";
    bool Body = false;
    for (StringRef K : {"text", "content", "body", "snippet", "summary"})
      if (auto S = O->getString(K)) {
        OS << *S << "\n";
        Body = true;
        break;
      }
    for (StringRef K : {"source", "code"})
      if (auto S = O->getString(K)) {
        codeBlock(OS, "cuda", *S);
        Body = true;
        break;
      }
    if (!Body)
      OS << formatv("{0:2}", json::Value(json::Object(*O))) << "\n";
  }
}

std::vector<ChatMessage> renderPrompt(const json::Object &Ctx) {
  std::string Language = contextLanguage(Ctx);
  StringRef Tag = codeTags(Language).front();
  std::string User;
  raw_string_ostream OS(User);
  json::Object Empty;
  const json::Object *P = Ctx.getObject("problem");
  if (!P)
    P = &Empty;
  const json::Object *Best = Ctx.getObject("best");
  if (!Best)
    Best = &Empty;
  bool Measured = Ctx.getBoolean("measured").value_or(true);

  // A suite problem; an operator of a public bundle (`atrex eval`) has no
  // id, shape or roofline but a card.
  std::string Id = str(*P, "id"), Phase = str(*P, "phase");
  OS << "# " << (Id.empty() ? "Operator " : "Problem " + Id + " of suite ")
     << (Id.empty() ? str(*P, "operator") + " of suite " + str(*P, "suite")
                    : str(*P, "suite") + ": operator " + str(*P, "operator"))
     << (Phase.empty() ? "" : " (" + Phase + ")") << ", on " << str(*P, "gpu")
     << "\n\n";
  OS << "Entry point (your submission defines exactly this):\n";
  codeBlock(OS, "cpp", str(*P, "signature"));
  if (std::string S = str(*P, "summary"); !S.empty())
    OS << "What it computes: " << S << "\n";
  std::string Shape, KeyDoc = str(*P, "key_doc");
  if (const json::Object *Sh = P->getObject("shape")) {
    std::vector<std::string> Keys;
    for (const auto &KV : *Sh)
      Keys.push_back(KV.first.str());
    llvm::sort(Keys);
    for (const std::string &K : Keys)
      Shape += (Shape.empty() ? "" : ",") + K + "=" + str(*Sh, K);
  }
  if (!Shape.empty())
    OS << "Shape: " << Shape << (KeyDoc.empty() ? "" : " (" + KeyDoc + ")")
       << "\n";
  else if (!KeyDoc.empty())
    OS << "Shape keys: " << KeyDoc << "\n";
  if (P->getNumber("t_roofline_us"))
    OS << "T_roofline: " << num(*P, "t_roofline_us", "{0:F3}") << " us ("
       << str(*P, "ceiling") << " ceiling, " << str(*P, "regime")
       << "-bound); S_i = min(1, T_roofline / T_median), 1 at the "
          "roofline.\n";
  if (auto F = P->getNumber("floor_s"); F && *F > 0)
    OS << formatv("Impossibility floor: {0:F3} us (a median below it fails "
                  "the gate).\n",
                  *F * 1e6);
  OS << "Accept rule: " << str(Ctx, "accept_rule") << ".\n";
  if (!Measured)
    OS << "Nothing is measured in this run (--no-gate): the linter's verdict "
          "is all a candidate gets.\n";
  OS << "Iteration: " << str(Ctx, "iteration") << "\n";
  if (const json::Object *Card = Ctx.getObject("card")) {
    OS << "\n## The operator's card\n";
    std::vector<std::string> Keys;
    for (const auto &KV : *Card)
      Keys.push_back(KV.first.str());
    llvm::sort(Keys);
    for (StringRef K : Keys) {
      if (K == "operator" || K == "signature" || K == "summary" ||
          K == "key_doc")
        continue; // shown above
      const json::Value &V = *Card->get(K);
      if (auto S = V.getAsString())
        OS << K << ":" << (S->contains('\n') ? "\n" : " ") << S->rtrim()
           << "\n";
      else
        OS << K << ": " << formatv("{0}", V) << "\n";
    }
  }

  bool Accepted = Best->getBoolean("accepted").value_or(false);
  OS << "\n## The best kernel so far (iteration " << str(*Best, "iteration")
     << (Accepted ? ", accepted"
                  : ", the starting submission: nothing is "
                    "accepted yet")
     << ")\n";
  OS << "S_i " << num(*Best, "s", "{0:F4}") << ", median "
     << num(*Best, "median_us", "{0:F2}") << " us, lint verdict "
     << str(*Best, "lint_verdict", "-") << ", gate status "
     << str(*Best, "gate_status", "-") << ", gate verdict "
     << str(*Best, "gate_verdict", "-") << "\n";
  codeBlock(OS, Tag, str(*Best, "source"));

  const json::Array *History = Ctx.getArray("history");
  OS << "\n## History since the last dropout (oldest first)\n";
  if (!History || History->empty())
    OS << "(none)\n";
  else
    for (const json::Value &V : *History) {
      const json::Object *H = V.getAsObject();
      if (!H)
        continue;
      bool A = H->getBoolean("accepted").value_or(false);
      OS << "- iteration " << str(*H, "iteration") << ": "
         << (A ? std::string("accepted")
               : "rejected (" + str(*H, "kind", "-") + ")")
         << "; S_i " << num(*H, "s", "{0:F4}") << ", median "
         << num(*H, "median_us", "{0:F2}") << " us; " << str(*H, "diagnosis")
         << "\n";
    }
  if (std::string Note = str(Ctx, "dropout_note"); !Note.empty())
    OS << "\n## Note\n" << Note << "\n";
  if (const json::Array *R = Ctx.getArray("retrievals"); R && !R->empty())
    renderRetrievals(OS, *R);
  if (Ctx.getObject("card"))
    OS << "\n## Task\nWrite the operator's submission (revise the previous "
          "candidate if one is shown): one ```"
       << Tag << " block with the complete source.\n";
  else
    OS << "\n## Task\nWrite a faster submission than the best kernel: one "
          "```"
       << Tag << " block with the complete source.\n";
  return {{"system", Language == "python" ? SystemPromptPython : SystemPrompt},
          {"user", std::move(User)}};
}

json::Object chatRequest(const OpenAIOptions &O,
                         const std::vector<ChatMessage> &Messages) {
  json::Array M;
  for (const ChatMessage &C : Messages)
    M.push_back(json::Object{{"role", C.Role}, {"content", C.Content}});
  json::Object Body{{"model", O.Model}, {"messages", std::move(M)}};
  if (O.MaxTokens)
    Body["max_tokens"] = *O.MaxTokens;
  if (O.Temperature)
    Body["temperature"] = *O.Temperature;
  return Body;
}

//===----------------------------------------------------------------------===//
// The response
//===----------------------------------------------------------------------===//

Error parseChatResponse(StringRef Body, ChatReply &R) {
  auto V = json::parse(Body);
  if (!V)
    return createStringError("the response is not JSON: " +
                             toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return createStringError("the response is not a JSON object");
  R.Model = O->getString("model").value_or("").str();
  if (const json::Object *U = O->getObject("usage")) {
    for (auto [Key, Out] :
         std::initializer_list<std::pair<StringRef, std::optional<int64_t> *>>{
             {"prompt_tokens", &R.TokensIn},
             {"completion_tokens", &R.TokensOut}}) {
      const json::Value *T = U->get(Key);
      if (!T || T->getAsNull())
        continue;
      auto N = getInteger(*T);
      if (!N || *N < 0)
        return createStringError("the response's usage." + Key +
                                 " is not a non-negative integer");
      *Out = *N;
    }
  }
  const json::Array *Choices = O->getArray("choices");
  if (!Choices)
    return createStringError("the response has no 'choices' array");
  if (Choices->empty())
    return createStringError("the response's 'choices' is empty");
  const json::Object *C0 = (*Choices)[0].getAsObject();
  if (!C0)
    return createStringError("the response's choices[0] is not an object");
  R.FinishReason = C0->getString("finish_reason").value_or("").str();
  const json::Object *Msg = C0->getObject("message");
  if (!Msg)
    return createStringError("the response has no choices[0].message");
  auto Content = Msg->getString("content");
  if (!Content)
    return createStringError(
        "the response's choices[0].message.content is not a string" +
        std::string(Msg->get("refusal") ? " (the model refused)" : ""));
  R.Content = Content->str();
  return Error::success();
}

namespace {
struct Fenced {
  std::string Tag; ///< the info string's first word, lower case
  std::string Text;
};
} // namespace

/// The closed fenced blocks of Markdown text (``` or ~~~, at most three
/// spaces of indentation; the closing fence at least as long as the
/// opening one). An unclosed block (a reply cut at max_tokens) is none.
static std::vector<Fenced> fencedBlocks(StringRef Text) {
  std::vector<Fenced> Out;
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  std::optional<Fenced> Open;
  char FenceCh = 0;
  size_t FenceLen = 0;
  for (StringRef Line : Lines) {
    StringRef L = Line.rtrim("\r");
    size_t Indent = L.find_first_not_of(' ');
    StringRef T = Indent == StringRef::npos || Indent > 3
                      ? StringRef()
                      : L.drop_front(Indent);
    char Ch = T.empty() ? 0 : T.front();
    size_t Run = (Ch == '`' || Ch == '~') ? T.find_first_not_of(Ch) : 0;
    if (Run == StringRef::npos)
      Run = T.size();
    if (!Open) {
      if (Run >= 3) {
        Open = Fenced();
        FenceCh = Ch;
        FenceLen = Run;
        StringRef Info = T.drop_front(Run).trim();
        Open->Tag = Info.take_until([](char C) { return isSpace(C); }).lower();
      }
      continue;
    }
    if (Ch == FenceCh && Run >= FenceLen && T.drop_front(Run).trim().empty()) {
      Out.push_back(std::move(*Open));
      Open.reset();
      continue;
    }
    Open->Text += Line.str() + "\n";
  }
  return Out;
}

Expected<std::string> extractCode(StringRef Content, unsigned *Blocks,
                                  StringRef Language) {
  std::vector<Fenced> All = fencedBlocks(Content);
  if (Blocks)
    *Blocks = All.size();
  ArrayRef<StringRef> Tags = codeTags(Language);
  for (auto It = All.rbegin(); It != All.rend(); ++It)
    if (is_contained(Tags, StringRef(It->Tag)))
      return It->Text;
  if (All.size() == 1)
    return All.front().Text;
  if (All.empty())
    return createStringError("no code block in the response");
  std::string Names = join(Tags.drop_back(), ", ") + " or " + Tags.back().str();
  return createStringError(formatv("no code block in the response ({0} "
                                   "fenced blocks, none tagged {1})",
                                   All.size(), Names)
                               .str());
}

std::optional<double> parseRetryAfter(StringRef Value) {
  StringRef V = Value.trim();
  unsigned long long N;
  if (V.empty() || getAsUnsignedInteger(V, 10, N))
    return std::nullopt;
  return static_cast<double>(N);
}

//===----------------------------------------------------------------------===//
// The transport
//===----------------------------------------------------------------------===//

namespace {
/// One HTTP exchange.
struct Exchange {
  bool Responded = false; ///< an HTTP status came back
  long Status = 0;
  std::string Body;
  std::string RetryAfter; ///< the header's value, "" when absent
  std::string Error;      ///< the transport's error ("" when Responded)
  bool TimedOut = false;
  bool Sent = false; ///< the request went out (a connection was made)
  double Seconds = 0;
};
} // namespace

#ifdef ATREX_HAVE_CURL
static size_t onBody(char *Data, size_t Size, size_t N, void *User) {
  auto *Out = static_cast<std::string *>(User);
  constexpr size_t Limit = 64u << 20; // a reply is text: 64 MiB is plenty
  if (Out->size() + Size * N > Limit)
    return 0; // curl fails the transfer (CURLE_WRITE_ERROR)
  Out->append(Data, Size * N);
  return Size * N;
}

static size_t onHeader(char *Data, size_t Size, size_t N, void *User) {
  StringRef Line(Data, Size * N);
  auto [Name, Value] = Line.split(':');
  if (Name.trim().equals_insensitive("retry-after"))
    *static_cast<std::string *>(User) = Value.trim().str();
  else if (Line.starts_with("HTTP/")) // a new response (after a 100)
    static_cast<std::string *>(User)->clear();
  return Size * N;
}

static Exchange post(const std::string &URL, const std::string &Body,
                     const std::string &Key, const OpenAIOptions &O) {
  static std::once_flag Init;
  std::call_once(Init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  Exchange X;
  CURL *H = curl_easy_init();
  if (!H) {
    X.Error = "curl_easy_init failed";
    return X;
  }
  char ErrBuf[CURL_ERROR_SIZE] = {0};
  struct curl_slist *Headers = nullptr;
  Headers = curl_slist_append(Headers, "Content-Type: application/json");
  Headers = curl_slist_append(Headers, "Accept: application/json");
  Headers = curl_slist_append(Headers, "Expect:"); // no 100-continue wait
  std::string Auth;
  if (!Key.empty()) {
    Auth = "Authorization: Bearer " + Key;
    Headers = curl_slist_append(Headers, Auth.c_str());
  }
  curl_easy_setopt(H, CURLOPT_URL, URL.c_str());
  curl_easy_setopt(H, CURLOPT_POST, 1L);
  curl_easy_setopt(H, CURLOPT_POSTFIELDS, Body.data());
  curl_easy_setopt(H, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(Body.size()));
  curl_easy_setopt(H, CURLOPT_HTTPHEADER, Headers);
  curl_easy_setopt(H, CURLOPT_USERAGENT, "atrex-agent");
  curl_easy_setopt(H, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(H, CURLOPT_ERRORBUFFER, ErrBuf);
  curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(H, CURLOPT_WRITEDATA, &X.Body);
  curl_easy_setopt(H, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(H, CURLOPT_HEADERDATA, &X.RetryAfter);
  curl_easy_setopt(H, CURLOPT_TIMEOUT, static_cast<long>(O.RequestTimeoutS));
  curl_easy_setopt(
      H, CURLOPT_CONNECTTIMEOUT,
      static_cast<long>(O.RequestTimeoutS
                            ? std::min(O.ConnectTimeoutS, O.RequestTimeoutS)
                            : O.ConnectTimeoutS));
  // Only http and https (redirects are not followed).
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(H, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(H, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
  auto Begin = std::chrono::steady_clock::now();
  CURLcode RC = curl_easy_perform(H);
  X.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
          .count();
  long RequestSize = 0;
  curl_easy_getinfo(H, CURLINFO_REQUEST_SIZE, &RequestSize);
  X.Sent = RequestSize > 0;
  if (RC == CURLE_OK) {
    X.Responded = true;
    curl_easy_getinfo(H, CURLINFO_RESPONSE_CODE, &X.Status);
  } else {
    X.TimedOut = RC == CURLE_OPERATION_TIMEDOUT;
    X.Error = ErrBuf[0] ? std::string(ErrBuf) : curl_easy_strerror(RC);
  }
  curl_slist_free_all(Headers);
  curl_easy_cleanup(H);
  std::fill(Auth.begin(), Auth.end(), '\0');
  return X;
}
#else
static Exchange post(const std::string &, const std::string &,
                     const std::string &, const OpenAIOptions &) {
  Exchange X;
  X.Error = "atrex was built without libcurl";
  return X;
}
#endif

/// \p Text with every occurrence of \p Secret replaced (a server that echoes
/// the key must not put it into a file).
static std::string redact(std::string Text, StringRef Secret) {
  if (Secret.size() < 4)
    return Text;
  for (size_t At; (At = Text.find(Secret)) != std::string::npos;)
    Text.replace(At, Secret.size(), "[redacted]");
  return Text;
}

/// The server's error message from an error body: error.message (OpenAI),
/// message, detail, a string `error`, else the body; one line, truncated.
static std::string serverMessage(StringRef Body) {
  std::string M;
  if (auto V = json::parse(Body)) {
    if (const json::Object *O = V->getAsObject()) {
      if (const json::Object *E = O->getObject("error"))
        M = E->getString("message").value_or("").str();
      else if (auto S = O->getString("error"))
        M = S->str();
      if (M.empty())
        M = O->getString("message").value_or("").str();
      if (M.empty())
        M = O->getString("detail").value_or("").str();
    }
  } else {
    consumeError(V.takeError());
  }
  if (M.empty())
    M = Body.trim().str();
  for (char &Ch : M)
    if (Ch == '\n' || Ch == '\r' || Ch == '\t')
      Ch = ' ';
  if (M.size() > 300)
    M = M.substr(0, 300) + "...";
  return M.empty() ? "(empty body)" : M;
}

namespace {
/// Failure kinds of the backend, the candidate detail's `failure`.
namespace openai_failure {
constexpr const char *kConnection = "connection";
constexpr const char *kTimeout = "timeout";
constexpr const char *kHttpStatus = "http-status";
constexpr const char *kMalformed = "malformed-response";
constexpr const char *kNoCode = "no-code-block";
constexpr const char *kConfig = "configuration";
} // namespace openai_failure

class OpenAIBackend : public Backend {
public:
  explicit OpenAIBackend(OpenAIOptions O) : O(std::move(O)) {
    while (StringRef(this->O.BaseURL).ends_with("/"))
      this->O.BaseURL.pop_back();
  }
  StringRef name() const override { return "openai"; }

  Expected<Candidate> propose(const Context &C) override {
    Candidate Cand;
    Cand.Backend = "openai";
    Cand.Command = O.Model + " at " + O.BaseURL;
    std::string URL = O.BaseURL + "/chat/completions";
    std::string RequestFile = C.Dir + "/request.json";
    std::string ResponseFile = C.Dir + "/response.json";
    // Files of an earlier attempt at this iteration are not this one's.
    sys::fs::remove(C.CandidateFile);
    sys::fs::remove(ResponseFile);
    json::Object Body = chatRequest(O, renderPrompt(toJSON(C)));
    std::string Text = formatv("{0:2}", json::Value(std::move(Body))).str();
    if (Error E = writeFile(RequestFile, Text + "\n"))
      return std::move(E);
    Cand.Detail =
        json::Object{{"model", O.Model},        {"base_url", O.BaseURL},
                     {"request", RequestFile},  {"response", nullptr},
                     {"http_status", nullptr},  {"response_model", nullptr},
                     {"finish_reason", nullptr}};
    auto Fail = [&](StringRef Kind, const std::string &Why) {
      Cand.Failure = Why;
      Cand.Detail["failure"] = Kind;
      return Cand;
    };

    const char *KeyVar = std::getenv(O.ApiKeyEnv.c_str());
    std::string Key = KeyVar ? KeyVar : "";
    Cand.Detail["authorization"] = !Key.empty();
    if (Key.find_first_of("\r\n") != std::string::npos)
      return Fail(openai_failure::kConfig,
                  "the API key in $" + O.ApiKeyEnv + " contains a line break");

    if (!openAIAvailable())
      return Fail(openai_failure::kConfig,
                  "atrex was built without libcurl: the openai backend cannot "
                  "send requests (install libcurl4-openssl-dev and rebuild)");

    json::Array Tries;
    Exchange X;
    auto Begin = std::chrono::steady_clock::now();
    unsigned Attempts = std::max(1u, O.Attempts);
    unsigned Attempt = 0;
    for (Attempt = 1; Attempt <= Attempts; ++Attempt) {
      X = post(URL, Text, Key, O);
      bool Retry = (!X.Responded && !(X.TimedOut && X.Sent)) ||
                   (X.Responded && (X.Status == 429 || X.Status >= 500));
      json::Object Try{
          {"attempt", Attempt},
          {"http_status", X.Responded ? json::Value(X.Status) : nullptr},
          {"error", X.Responded ? json::Value(nullptr)
                                : json::Value(redact(X.Error, Key))},
          {"latency_s", X.Seconds}};
      if (Retry && Attempt < Attempts) {
        double Wait =
            std::min(O.MaxWaitS, O.BackoffS * std::ldexp(1.0, Attempt - 1));
        if (auto RA = parseRetryAfter(X.RetryAfter))
          Wait = std::min(O.MaxWaitS, *RA);
        Try["wait_s"] = Wait;
        Tries.push_back(std::move(Try));
        std::this_thread::sleep_for(std::chrono::duration<double>(Wait));
        continue;
      }
      Tries.push_back(std::move(Try));
      break;
    }
    Attempt = std::min(Attempt, Attempts);
    Cand.WallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
            .count();
    Cand.Detail["attempts"] = Attempt;
    Cand.Detail["tries"] = std::move(Tries);
    Cand.Detail["latency_s"] = X.Seconds;
    std::string Times =
        Attempt > 1 ? formatv(" ({0} attempts)", Attempt).str() : std::string();
    if (!X.Responded) {
      if (X.TimedOut && X.Sent)
        return Fail(openai_failure::kTimeout,
                    formatv("the request to {0} timed out after {1} s "
                            "(--request-timeout){2}",
                            URL, O.RequestTimeoutS, Times)
                        .str());
      return Fail(openai_failure::kConnection,
                  "cannot reach " + URL + ": " + redact(X.Error, Key) + Times);
    }
    std::string Raw = redact(std::move(X.Body), Key);
    if (Error E = writeFile(ResponseFile, Raw))
      return std::move(E);
    Cand.Detail["response"] = ResponseFile;
    Cand.Detail["http_status"] = X.Status;
    if (X.Status < 200 || X.Status >= 300)
      return Fail(openai_failure::kHttpStatus,
                  formatv("HTTP {0} from {1}{2}: {3}", X.Status, URL, Times,
                          serverMessage(Raw))
                      .str());
    ChatReply Reply;
    Error Parsed = parseChatResponse(Raw, Reply);
    // What was spent counts, whatever else is wrong with the reply.
    Cand.TokensIn = Reply.TokensIn;
    Cand.TokensOut = Reply.TokensOut;
    if (!Reply.Model.empty())
      Cand.Detail["response_model"] = Reply.Model;
    if (!Reply.FinishReason.empty())
      Cand.Detail["finish_reason"] = Reply.FinishReason;
    if (Parsed)
      return Fail(openai_failure::kMalformed,
                  "malformed response: " + toString(std::move(Parsed)));
    unsigned Blocks = 0;
    auto Code = extractCode(Reply.Content, &Blocks,
                            C.Card ? contextLanguage(toJSON(C)) : "cuda");
    Cand.Detail["blocks"] = Blocks;
    if (!Code) {
      std::string Why = toString(Code.takeError());
      if (Reply.FinishReason == "length")
        Why += " (finish_reason length: the reply was cut at max_tokens)";
      return Fail(openai_failure::kNoCode, Why);
    }
    if (StringRef(*Code).trim().empty())
      return Fail(openai_failure::kNoCode,
                  "no code block in the response (the code block is empty)");
    if (Error E = writeFile(C.CandidateFile, *Code))
      return std::move(E);
    Cand.Source = std::move(*Code);
    return Cand;
  }

private:
  OpenAIOptions O;
};
} // namespace

Expected<std::unique_ptr<Backend>> createOpenAIBackend(OpenAIOptions O) {
  if (!openAIAvailable())
    return createStringError("--backend openai: atrex was built without "
                             "libcurl (install libcurl4-openssl-dev, "
                             "scripts/install-deps.sh, and rebuild)");
  if (O.Model.empty())
    return createStringError("--backend openai: give --model");
  StringRef URL(O.BaseURL);
  if (!URL.starts_with("http://") && !URL.starts_with("https://"))
    return createStringError("--base-url '" + O.BaseURL +
                             "': not an http:// or https:// URL");
  return std::make_unique<OpenAIBackend>(std::move(O));
}

} // namespace atrex::agent

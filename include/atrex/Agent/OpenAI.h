//===- OpenAI.h - the OpenAI-compatible backend -----------------*- C++ -*-===//
//
// Part of atrex. A backend that asks a model behind an OpenAI-compatible
// chat-completions endpoint (hosted APIs, local vLLM and SGLang servers) for
// the next candidate: POST {base_url}/chat/completions with a system message
// stating the contract and a user message rendered from the iteration's
// context document; the candidate is the reply's fenced CUDA block. The API
// key is read from an environment variable, never written anywhere. See
// docs/agent.md, "The OpenAI-compatible backend".
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_OPENAI_H
#define ATREX_AGENT_OPENAI_H

#include "atrex/Agent/Backend.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrex::agent {

struct OpenAIOptions {
  std::string BaseURL = "https://api.openai.com/v1"; ///< without /chat/...
  std::string Model;
  /// The environment variable holding the API key; unset or empty: no
  /// Authorization header (local servers need none).
  std::string ApiKeyEnv = "OPENAI_API_KEY";
  std::optional<int64_t> MaxTokens;
  std::optional<double> Temperature;
  unsigned RequestTimeoutS = 600; ///< one attempt, connect included
  unsigned ConnectTimeoutS = 30;  ///< at most RequestTimeoutS
  unsigned Attempts = 4; ///< connection errors, 429 and 5xx are retried
  double BackoffS = 2;   ///< first wait; doubles with every retry
  double MaxWaitS = 120; ///< cap of a wait (Retry-After included)
};

/// Whether atrex was built with libcurl (the backend's transport).
bool openAIAvailable();

/// The backend; an error when built without libcurl or without a model.
llvm::Expected<std::unique_ptr<Backend>>
createOpenAIBackend(OpenAIOptions Options);

/// One chat message.
struct ChatMessage {
  std::string Role; ///< "system" or "user"
  std::string Content;
};

/// The messages of one request: the contract (system) and the context
/// document (`atrex-agent-context/1`, toJSON(Context)) rendered for a model
/// (user): the problem, the best kernel's source and measurements, the
/// history since the last dropout, the dropout note and the context's
/// `retrievals` when it has them.
std::vector<ChatMessage> renderPrompt(const llvm::json::Object &Context);

/// The request body {model, messages, max_tokens?, temperature?}.
llvm::json::Object chatRequest(const OpenAIOptions &O,
                               const std::vector<ChatMessage> &Messages);

/// What a chat-completions response body says.
struct ChatReply {
  std::string Content;
  std::string Model;                          ///< the model that answered
  std::string FinishReason;                   ///< "" when absent
  std::optional<int64_t> TokensIn, TokensOut; ///< usage, when given
};
/// Parses a response body into \p Reply as far as it goes (usage first: the
/// tokens of a malformed reply were spent); errors say what is missing or
/// malformed.
llvm::Error parseChatResponse(llvm::StringRef Body, ChatReply &Reply);

/// The candidate of a reply: the last fenced block tagged cuda, cu, c++ or
/// cpp (\p Language "python": python or py); else the only fenced block;
/// else an error "no code block in the response ...". \p Blocks is set to
/// the number of fenced blocks found.
llvm::Expected<std::string> extractCode(llvm::StringRef Content,
                                        unsigned *Blocks = nullptr,
                                        llvm::StringRef Language = "cuda");

/// Seconds of a Retry-After header value (delta-seconds only; an HTTP date
/// or anything else gives none).
std::optional<double> parseRetryAfter(llvm::StringRef Value);

} // namespace atrex::agent

#endif // ATREX_AGENT_OPENAI_H

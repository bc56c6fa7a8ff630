//===- Knowledge.h - the layered knowledge base (SQLite FTS5) ---*- C++ -*-===//
//
// Part of atrex. The agent's knowledge base: optimisation notes written for
// this project (kb/notes), the project's own kernels (kb/templates, the
// naive set) and API documents extracted from the installed CUDA and CCCL
// headers, indexed in one SQLite FTS5 table and ranked by BM25. Retrieval
// is layered: the problem's operator, then its families (kb/families.yaml),
// then general documents; the layers' hits are merged most specific first.
// Also the instruction mix of a candidate (cuobjdump -sass). See
// docs/agent.md, "The knowledge base".
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_KNOWLEDGE_H
#define ATREX_AGENT_KNOWLEDGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace atrex::agent {

inline constexpr const char *KbSchema = "atrex-kb/1";

/// A document of the index. Operator, Family and Gpu hold space-separated
/// names ("" where they do not apply, Gpu "any" for every GPU).
struct KbDocument {
  std::string Id;    ///< note:<path>, ref:<path>, api:<header>:<name>
  std::string Layer; ///< operator, family, general
  std::string Operator, Family, Gpu;
  std::string Kind; ///< note, reference, api
  std::string Title, Path, Body;
};

/// What documents may name: the suite's operators, the knowledge base's
/// families and the hardware table's GPUs with their architectures.
struct KbRegistry {
  std::vector<std::string> Operators; ///< sorted
  /// family -> its operators (kb/families.yaml)
  std::map<std::string, std::vector<std::string>> Families;
  /// GPU name -> architecture: the hardware table's full name, the part in
  /// parentheses up to a comma, without spaces ("Hopper", "CDNA3").
  std::map<std::string, std::string> GpuArch;

  bool isOperator(llvm::StringRef Name) const;
  std::vector<std::string> familiesOf(llvm::StringRef Operator) const;
  /// "any", a GPU's name or an architecture.
  bool isGpu(llvm::StringRef Name) const;
};

/// Reads the suite's operators (suite.json's `operators` and its entry-point
/// snapshot), its hardware table and \p FamiliesPath. Errors name the file.
llvm::Expected<KbRegistry> loadKbRegistry(llvm::StringRef SuitePath,
                                          llvm::StringRef FamiliesPath);

/// A note: `---` front matter (layer, operator, family, gpu, title; lists
/// comma-separated) then Markdown. Errors name \p Path and the line.
llvm::Expected<KbDocument> parseNote(llvm::StringRef Path, llvm::StringRef Text,
                                     const KbRegistry &R);

/// API documents of one header: one per declared function (overloads of a
/// name together) with its declarations and the comment before the first.
/// \p Header names it in ids and titles, \p NsPrefix qualifies its names
/// (the namespace it is included into), names matching one of the
/// space-separated globs of \p SkipGlob are left out.
std::vector<KbDocument> extractApiDocs(llvm::StringRef Text,
                                       llvm::StringRef Header,
                                       llvm::StringRef Path,
                                       llvm::StringRef NsPrefix = "",
                                       llvm::StringRef SkipGlob = "");

struct KbBuildOptions {
  std::string KbDir;     ///< notes/, templates/, families.yaml, api-headers.txt
  std::string SuitePath; ///< suite.json
  std::string CudaDir;   ///< "" or missing: no API documents (a note)
  std::vector<std::string> ReferenceDirs; ///< <operator>.cu reference kernels
  std::string Output;                     ///< the index (replaced)
};

struct KbBuildResult {
  std::map<std::string, unsigned> Counts; ///< documents by kind
  std::vector<std::string> Notes;         ///< what was left out and why
  double Seconds = 0;
  uint64_t Bytes = 0; ///< the index file's size
};

/// Builds the index (written to Output.tmp, then renamed). Errors name the
/// file at fault; a missing CUDA directory or header is a note.
llvm::Expected<KbBuildResult> buildKnowledgeIndex(const KbBuildOptions &O);

struct KbQuery {
  std::string Operator;
  std::string Gpu; ///< "": documents of every GPU
  std::vector<std::string> Terms;
  unsigned Limit = 8;
  /// The merge starts at layer Focus mod 3 of operator, family, general
  /// (the loop's retrieval focus: its dropout count).
  unsigned Focus = 0;
  std::string Kind; ///< "": every kind
};

struct KbHit {
  std::string Id, Layer, Operator, Family, Gpu, Kind, Title, Path;
  std::string Snippet; ///< <= 64 tokens around the matches, one line, <= 700 B
  double Score = 0;    ///< bm25 within its layer (lower is better)
  unsigned Rank = 0;   ///< 1-based, after the merge
};

/// The layers in merge order for \p Focus.
std::vector<std::string> kbLayerOrder(unsigned Focus);

/// The FTS5 MATCH expression of user terms: every whitespace-separated term
/// that holds a letter or digit becomes a quoted string ("" inside doubled),
/// the strings joined by OR, so that no user text is FTS5 query syntax.
/// "" when no term is left.
std::string kbMatchExpression(llvm::ArrayRef<std::string> Terms);

/// Checks that \p IndexPath is a readable index of this schema.
llvm::Error checkKnowledgeIndex(llvm::StringRef IndexPath);

/// Ranked hits: per layer (the operator's documents, its families', the
/// general ones, each restricted to \p Q.Gpu and its architecture) by bm25
/// (title x4, body x1), merged one hit of each layer in turn in the focus's
/// layer order, up to Q.Limit. Errors name the index.
llvm::Expected<std::vector<KbHit>> queryKnowledge(llvm::StringRef IndexPath,
                                                  const KbQuery &Q);

llvm::json::Object toJSON(const KbHit &H, bool WithSnippet = true);

//===----------------------------------------------------------------------===//
// Instruction mix of a candidate (cuobjdump -sass)
//===----------------------------------------------------------------------===//

struct KernelIsa {
  std::string Name;      ///< mangled, as cuobjdump prints it
  std::string Demangled; ///< llvm::demangle of Name
  std::string Arch;      ///< sm_90
  unsigned Instructions = 0;
  std::map<std::string, unsigned> Opcodes; ///< with modifiers: LDG.E.128
};

/// Parses `cuobjdump -sass` output (NOP padding is not counted). An error
/// when no kernel is found.
llvm::Expected<std::vector<KernelIsa>> parseSass(llvm::StringRef Text);

/// The opcode's group (global-load, tensor, shuffle, ...) or "" for the
/// rest.
llvm::StringRef sassGroup(llvm::StringRef Opcode);

llvm::json::Object toJSON(const KernelIsa &K);

struct IsaOptions {
  std::string Source;
  std::string Arch = "sm_90";
  std::string Nvcc, Cuobjdump; ///< the tools to run
  std::vector<std::string> ExtraFlags;
  std::string WorkDir; ///< the cubin and the listing go here
};

/// Compiles \p O.Source to a cubin (nvcc -cubin -arch) and parses its SASS.
/// Errors carry the tool's message.
llvm::Expected<std::vector<KernelIsa>> candidateIsa(const IsaOptions &O);

} // namespace atrex::agent

#endif // ATREX_AGENT_KNOWLEDGE_H

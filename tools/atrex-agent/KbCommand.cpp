//===- KbCommand.cpp - `atrex agent kb build|query|isa` -------------------===//
//
// Part of atrex (docs/agent.md, "The knowledge base"):
//
//   atrex-agent kb build [--kb kb] [--suite suite.json] [--cuda DIR]
//                        [--references DIR]... -o FILE
//   atrex-agent kb query --index FILE --op OP [--gpu H200] [--limit N]
//                        [--focus K] [--kind note|reference|api]
//                        [--format text|json] TERMS...
//   atrex-agent kb isa FILE.cu [--arch sm_90] [--cuda DIR]
//                        [--format text|json] [-- NVCC-FLAGS...]
//
//===----------------------------------------------------------------------===//

#include "KbCommand.h"

#include "atrex/Agent/Knowledge.h"
#include "atrex/Agent/Process.h"
#include "atrex/Support/DataPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace atrex::agent {

static cl::OptionCategory KbCat("atrex-agent kb options");
static cl::SubCommand KbCmd("kb", "The knowledge base: build its index, query "
                                  "it, list a candidate's instruction mix");
static cl::list<std::string>
    KbArgs(cl::Positional, cl::sub(KbCmd),
           cl::desc("build | query TERMS... | isa FILE.cu [-- NVCC-FLAGS]"));
static cl::opt<std::string>
    KbDir("kb", cl::sub(KbCmd), cl::cat(KbCat),
          cl::desc("build: the knowledge base (notes/, templates/, "
                   "families.yaml, api-headers.txt)"),
          cl::init("kb"));
static cl::opt<std::string> KbSuite("suite", cl::sub(KbCmd), cl::cat(KbCat),
                                    cl::desc("build: the suite (operators)"),
                                    cl::init("suites/atrex-serve/suite.json"));
static cl::opt<std::string>
    KbCuda("cuda", cl::sub(KbCmd), cl::cat(KbCat),
           cl::desc("build, isa: the CUDA toolkit (default: $CUDA_PATH, else "
                    "/usr/local/cuda)"));
static cl::list<std::string>
    KbReferences("references", cl::sub(KbCmd), cl::cat(KbCat),
                 cl::desc("build: a directory of <operator>.cu reference "
                          "kernels (default: examples/sets/naive)"));
static cl::opt<std::string> KbOutput("o", cl::sub(KbCmd), cl::cat(KbCat),
                                     cl::desc("build: the index to write"));
static cl::opt<std::string> KbIndex("index", cl::sub(KbCmd), cl::cat(KbCat),
                                    cl::desc("query: the index"));
static cl::opt<std::string> KbOp("op", cl::sub(KbCmd), cl::cat(KbCat),
                                 cl::desc("query: the problem's operator"));
static cl::opt<std::string>
    KbGpu("gpu", cl::sub(KbCmd), cl::cat(KbCat),
          cl::desc("query: documents for this GPU (and its architecture) and "
                   "'any'; empty: every GPU"),
          cl::init("H200"));
static cl::opt<unsigned> KbLimit("limit", cl::sub(KbCmd), cl::cat(KbCat),
                                 cl::desc("query: hits"), cl::init(8));
static cl::opt<unsigned>
    KbFocus("focus", cl::sub(KbCmd), cl::cat(KbCat),
            cl::desc("query: the merge starts at layer K mod 3 of operator, "
                     "family, general"),
            cl::init(0));
static cl::opt<std::string> KbKind("kind", cl::sub(KbCmd), cl::cat(KbCat),
                                   cl::desc("query: note, reference or api "
                                            "only"));
static cl::opt<std::string> KbFormat("format", cl::sub(KbCmd), cl::cat(KbCat),
                                     cl::desc("query, isa: text or json"),
                                     cl::init("text"));
static cl::opt<std::string> KbArch("arch", cl::sub(KbCmd), cl::cat(KbCat),
                                   cl::desc("isa: nvcc -arch"),
                                   cl::init("sm_90"));

static ExitOnError KbExit("atrex-agent: error: ");

void prepareKbCommand() { cl::HideUnrelatedOptions(KbCat, KbCmd); }

bool kbCommandGiven() { return static_cast<bool>(KbCmd); }

static std::string cudaDir() {
  if (!KbCuda.empty())
    return KbCuda;
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *V = std::getenv(Var); V && *V)
      return V;
  return "/usr/local/cuda";
}

/// \p Path as given if it exists, else in the source tree atrex-agent was
/// built from.
static std::string sourcePath(StringRef Path) {
  if (sys::fs::exists(Path))
    return Path.str();
  std::string Src = (Twine(ATREX_SOURCE_DIR) + "/" + Path).str();
  return sys::fs::exists(Src) ? Src : Path.str();
}

static int build(const char *Argv0) {
  if (KbOutput.empty())
    KbExit(createStringError("kb build: give -o FILE (the index to write)"));
  KbBuildOptions O;
  O.KbDir = dataPath(KbDir, ATREX_SOURCE_DIR, Argv0);
  O.SuitePath = dataPath(KbSuite, ATREX_SOURCE_DIR, Argv0);
  O.CudaDir = cudaDir();
  if (KbReferences.empty())
    O.ReferenceDirs.push_back(sourcePath("examples/sets/naive"));
  else
    O.ReferenceDirs.assign(KbReferences.begin(), KbReferences.end());
  O.Output = KbOutput;
  KbBuildResult R = KbExit(buildKnowledgeIndex(O));
  for (const std::string &N : R.Notes)
    errs() << "atrex-agent: note: kb build: " << N << "\n";
  unsigned Total = 0;
  std::string Counts;
  for (const auto &[Kind, N] : R.Counts) {
    Total += N;
    Counts += (Counts.empty() ? "" : ", ") + std::to_string(N) + " " + Kind;
  }
  outs() << formatv("atrex-agent: kb build: {0} documents ({1}) in {2:F2} s, "
                    "{3} KiB: {4}\n",
                    Total, Counts, R.Seconds, (R.Bytes + 1023) / 1024,
                    KbOutput.getValue());
  return 0;
}

static int query() {
  if (KbIndex.empty())
    KbExit(createStringError("kb query: give --index FILE"));
  if (KbOp.empty())
    KbExit(createStringError("kb query: give --op OP (the problem's "
                             "operator)"));
  if (KbFormat != "text" && KbFormat != "json")
    KbExit(createStringError("--format must be text or json"));
  KbQuery Q;
  Q.Operator = KbOp;
  Q.Gpu = KbGpu;
  Q.Limit = KbLimit;
  Q.Focus = KbFocus;
  Q.Kind = KbKind;
  Q.Terms.assign(KbArgs.begin() + 1, KbArgs.end());
  if (!Q.Kind.empty() && Q.Kind != "note" && Q.Kind != "reference" &&
      Q.Kind != "api")
    KbExit(createStringError("--kind must be note, reference or api"));
  std::vector<KbHit> Hits = KbExit(queryKnowledge(KbIndex, Q));
  if (KbFormat == "json") {
    json::Array A;
    for (const KbHit &H : Hits)
      A.push_back(toJSON(H));
    json::Object O{{"index", KbIndex},
                   {"operator", Q.Operator},
                   {"gpu", Q.Gpu},
                   {"focus", json::Array(kbLayerOrder(Q.Focus))},
                   {"terms", json::Array(Q.Terms)},
                   {"match", kbMatchExpression(Q.Terms)},
                   {"hits", std::move(A)}};
    outs() << formatv("{0:2}", json::Value(std::move(O))) << "\n";
    return 0;
  }
  if (Hits.empty())
    outs() << "no hits\n";
  for (const KbHit &H : Hits)
    outs() << formatv("{0,2}. [{1} {2}] {3}  (bm25 {4:F3})\n    {5}  {6}\n"
                      "    {7}\n",
                      H.Rank, H.Layer, H.Kind, H.Title, H.Score, H.Id, H.Path,
                      H.Snippet);
  return 0;
}

/// A tool: \p EnvVar, else <cuda>/bin/NAME, else PATH; "" if none.
static std::string cudaTool(const char *EnvVar, StringRef Name) {
  if (const char *V = std::getenv(EnvVar); V && *V)
    return V;
  std::string InCuda = cudaDir() + "/bin/" + Name.str();
  if (sys::fs::can_execute(InCuda))
    return InCuda;
  if (auto Found = sys::findProgramByName(Name))
    return *Found;
  return "";
}

/// Include directories of torch: $ATREX_TORCH_INCLUDE (':'-separated), else
/// what atrex-lint finds (`--print-toolchain`, its torch-include line).
static std::vector<std::string> torchIncludes(const char *Argv0) {
  std::vector<std::string> Out;
  if (const char *V = std::getenv("ATREX_TORCH_INCLUDE"); V && *V) {
    SmallVector<StringRef> Parts;
    StringRef(V).split(Parts, ':', -1, false);
    for (StringRef P : Parts)
      Out.push_back(P.str());
    return Out;
  }
  SmallString<256> Lint(
      sys::fs::getMainExecutable(Argv0, reinterpret_cast<void *>(&cudaDir)));
  sys::path::remove_filename(Lint);
  sys::path::append(Lint, "atrex-lint");
  if (!sys::fs::can_execute(Lint))
    return Out;
  SmallString<128> Tmp;
  if (sys::fs::createTemporaryFile("atrex-toolchain", "txt", Tmp))
    return Out;
  runProcess(Lint, {"atrex-lint", "--print-toolchain"}, {}, Tmp, "", 60);
  auto Text = readFile(Tmp);
  if (std::error_code EC = sys::fs::remove(Tmp))
    errs() << "atrex-agent: note: cannot remove '" << Tmp
           << "': " << EC.message() << "\n";
  if (!Text) {
    consumeError(Text.takeError());
    return Out;
  }
  SmallVector<StringRef> Lines;
  StringRef(*Text).split(Lines, '\n');
  for (StringRef L : Lines)
    if (L.consume_front("torch-include:") && !L.contains("(not found)")) {
      SmallVector<StringRef> Dirs;
      L.trim().split(Dirs, ' ', -1, false);
      for (StringRef D : Dirs)
        Out.push_back(D.str());
    }
  return Out;
}

static int isa(const char *Argv0) {
  if (KbArgs.size() < 2)
    KbExit(createStringError("kb isa: give FILE.cu"));
  if (KbFormat != "text" && KbFormat != "json")
    KbExit(createStringError("--format must be text or json"));
  IsaOptions O;
  O.Source = KbArgs[1];
  O.Arch = KbArch;
  O.Nvcc = cudaTool("ATREX_NVCC", "nvcc");
  O.Cuobjdump = cudaTool("ATREX_CUOBJDUMP", "cuobjdump");
  if (O.Nvcc.empty())
    KbExit(createStringError("kb isa: nvcc not found (set ATREX_NVCC, or "
                             "--cuda DIR)"));
  if (O.Cuobjdump.empty())
    KbExit(createStringError("kb isa: cuobjdump not found (set "
                             "ATREX_CUOBJDUMP, or --cuda DIR)"));
  for (const std::string &D : torchIncludes(Argv0)) {
    O.ExtraFlags.push_back("-isystem");
    O.ExtraFlags.push_back(D);
  }
  O.ExtraFlags.insert(O.ExtraFlags.end(), KbArgs.begin() + 2, KbArgs.end());
  SmallString<128> Work;
  KbExit(
      errorCodeToError(sys::fs::createUniqueDirectory("atrex-kb-isa", Work)));
  O.WorkDir = std::string(Work);
  auto Kernels = candidateIsa(O);
  if (!Kernels) {
    errs() << "atrex-agent: error: kb isa: " << toString(Kernels.takeError())
           << "\n(files kept in " << Work << ")\n";
    return 1;
  }
  if (std::error_code EC = sys::fs::remove_directories(Work))
    errs() << "atrex-agent: note: cannot remove '" << Work
           << "': " << EC.message() << "\n";
  if (KbFormat == "json") {
    json::Array A;
    for (const KernelIsa &K : *Kernels)
      A.push_back(toJSON(K));
    outs() << formatv("{0:2}",
                      json::Value(json::Object{{"file", O.Source},
                                               {"arch", O.Arch},
                                               {"kernels", std::move(A)}}))
           << "\n";
    return 0;
  }
  for (const KernelIsa &K : *Kernels) {
    outs() << "kernel " << K.Demangled << "  [" << K.Arch << ", "
           << K.Instructions << " instructions]\n";
    std::map<std::string, std::vector<std::string>> Groups;
    for (const auto &[Op, N] : K.Opcodes) {
      StringRef G = sassGroup(Op);
      if (!G.empty())
        Groups[G.str()].push_back(Op + " x" + std::to_string(N));
    }
    for (const auto &[G, Ops] : Groups)
      outs() << "  " << G << ": " << join(Ops, ", ") << "\n";
    std::vector<std::pair<std::string, unsigned>> Top(K.Opcodes.begin(),
                                                      K.Opcodes.end());
    llvm::sort(Top, [](const auto &A, const auto &B) {
      return A.second != B.second ? A.second > B.second : A.first < B.first;
    });
    std::vector<std::string> Most;
    for (size_t I = 0; I < Top.size() && I < 8; ++I)
      Most.push_back(Top[I].first + " x" + std::to_string(Top[I].second));
    outs() << "  most frequent: " << join(Most, ", ") << "\n";
  }
  return 0;
}

int runKbCommand(const char *Argv0) {
  if (KbArgs.empty())
    KbExit(createStringError("kb: give build, query or isa (--help)"));
  StringRef Action = KbArgs[0];
  if (Action == "build") {
    if (KbArgs.size() > 1)
      KbExit(createStringError("kb build: unexpected '" + KbArgs[1] + "'"));
    return build(Argv0);
  }
  if (Action == "query")
    return query();
  if (Action == "isa")
    return isa(Argv0);
  KbExit(createStringError("kb: unknown action '" + Action +
                           "' (build, query or isa)"));
  return 1;
}

} // namespace atrex::agent

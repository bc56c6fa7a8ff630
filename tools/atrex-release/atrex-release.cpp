//===- atrex-release.cpp - pack and verify a suite's release --------------===//
//
// Part of atrex (`atrex release ...`, docs/release.md):
//
//   atrex-release pack [--suite suites/atrex-serve/suite.json] [--suite-dir D]
//                      --public DIR --sealed DIR [--gpu NAME]...
//                      [--weights W.json] [--deny STR]... [--deny-list FILE]
//                      [--salt HEX] [--seed N]
//   atrex-release verify --public DIR --sealed DIR
//   atrex-release refresh --public DIR --sealed DIR --weights W.json -o DIR
//
//===----------------------------------------------------------------------===//

#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Suite/Release.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/DataPath.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex;

static cl::OptionCategory ToolCat("atrex-release options");
static cl::SubCommand PackCmd("pack", "Write the public and sealed bundles");
static cl::SubCommand VerifyCmd("verify",
                                "Check a sealed bundle against a public one");
static cl::SubCommand
    RefreshCmd("refresh",
               "New sealed bundle with refreshed weights, same public bundle");

static cl::opt<std::string>
    SuitePath(cl::cat(ToolCat), "suite", cl::sub(PackCmd),
              cl::desc("suite.json"),
              cl::init("suites/atrex-serve/suite.json"));
static cl::opt<std::string>
    SuiteDir(cl::cat(ToolCat), "suite-dir", cl::sub(PackCmd),
             cl::desc("Directory the suite's relative paths resolve against "
                      "(default: the directory of --suite)"));
static cl::opt<std::string> PublicDir(cl::cat(ToolCat), "public",
                                      cl::sub(PackCmd), cl::sub(VerifyCmd),
                                      cl::sub(RefreshCmd),
                                      cl::desc("Public bundle directory"));
static cl::opt<std::string> SealedDir(cl::cat(ToolCat), "sealed",
                                      cl::sub(PackCmd), cl::sub(VerifyCmd),
                                      cl::sub(RefreshCmd),
                                      cl::desc("Sealed bundle directory"));
static cl::list<std::string>
    Gpus(cl::cat(ToolCat), "gpu", cl::sub(PackCmd),
         cl::desc("GPU for the rooflines (repeatable; default: every GPU of "
                  "the table with the peaks every problem needs)"));
static cl::opt<std::string>
    Weights(cl::cat(ToolCat), "weights", cl::sub(PackCmd), cl::sub(RefreshCmd),
            cl::desc("atrex-weights file (atrex-trace ingest)"));
static cl::list<std::string> Deny(cl::cat(ToolCat), "deny", cl::sub(PackCmd),
                                  cl::desc("Extra string the public bundle "
                                           "must not contain (repeatable)"));
static cl::opt<std::string>
    DenyList(cl::cat(ToolCat), "deny-list", cl::sub(PackCmd),
             cl::desc("File of extra strings the public bundle must not "
                      "contain, one a line ('#' comments)"));
static cl::opt<std::string> Salt(cl::cat(ToolCat), "salt", cl::sub(PackCmd),
                                 cl::desc("Fixed salt (hex, >= 32 digits; "
                                          "default: 32 random bytes)"));
static cl::opt<std::string> Seed(cl::cat(ToolCat), "seed", cl::sub(PackCmd),
                                 cl::desc("Fixed evaluation seed (default: "
                                          "random)"));
static cl::opt<std::string> Output(cl::cat(ToolCat), "o", cl::sub(RefreshCmd),
                                   cl::desc("New sealed bundle directory"));

/// argv[0], for finding the installed share/atrex.
static const char *Argv0 = "";

static ExitOnError ExitOnErr("atrex-release: error: ");

static void need(const cl::opt<std::string> &Opt, StringRef Command) {
  if (Opt.empty())
    ExitOnErr(createStringError(Command + " needs --" + Opt.ArgStr));
}

static int pack() {
  need(PublicDir, "pack");
  need(SealedDir, "pack");
  release::PackOptions Options;
  Options.PublicDir = PublicDir;
  Options.SealedDir = SealedDir;
  Options.Gpus.assign(Gpus.begin(), Gpus.end());
  Options.WeightsFile = Weights;
  Options.ExtraDeny.assign(Deny.begin(), Deny.end());
  Options.Notes = &errs();
  if (!DenyList.empty()) {
    auto Buffer = MemoryBuffer::getFile(DenyList);
    if (!Buffer)
      ExitOnErr(createStringError("cannot read '" + DenyList +
                                  "': " + Buffer.getError().message()));
    SmallVector<StringRef> Lines;
    (*Buffer)->getBuffer().split(Lines, '\n');
    for (StringRef Line : Lines) {
      Line = Line.split('#').first.trim();
      if (!Line.empty())
        Options.ExtraDeny.push_back(Line.str());
    }
  }
  if (!Salt.empty()) {
    if (Salt.size() < 32 || !all_of(Salt.getValue(), isHexDigit))
      ExitOnErr(createStringError("--salt must be at least 32 hex digits"));
    Options.Salt = Salt;
  }
  if (!Seed.empty()) {
    uint64_t N;
    if (StringRef(Seed).getAsInteger(10, N) || N >= (uint64_t(1) << 53))
      ExitOnErr(createStringError("--seed must be an integer below 2^53"));
    Options.Seed = N;
  }
  suite::Suite S = ExitOnErr(suite::readSuite(
      atrex::dataPath(SuitePath, ATREX_SOURCE_DIR, Argv0), SuiteDir));
  auto Ops = ExitOnErr(OperatorLibrary::load(S.resolve(S.Ops)));
  auto Specs = ExitOnErr(suite::readEntrySpecs(S.resolve(S.Specs)));
  ExitOnErr(release::pack(S, *Ops, Specs, Options));
  outs() << "packed " << S.Problems.size() << " problems: public " << PublicDir
         << ", sealed " << SealedDir << "\n";
  return 0;
}

int main(int argc, char **argv) {
  Argv0 = argv[0];
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::HideUnrelatedOptions(ToolCat, PackCmd);
  cl::HideUnrelatedOptions(ToolCat, VerifyCmd);
  cl::HideUnrelatedOptions(ToolCat, RefreshCmd);
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex release: public and sealed bundles of "
                              "a suite (docs/release.md)\n");
  if (PackCmd)
    return pack();
  if (VerifyCmd) {
    need(PublicDir, "verify");
    need(SealedDir, "verify");
    ExitOnErr(release::verify(PublicDir, SealedDir));
    outs() << SealedDir << ": verified against " << PublicDir << "\n";
    return 0;
  }
  if (RefreshCmd) {
    need(PublicDir, "refresh");
    need(SealedDir, "refresh");
    need(Weights, "refresh");
    need(Output, "refresh");
    ExitOnErr(release::refreshWeights(PublicDir, SealedDir, Weights, Output,
                                      &errs()));
    ExitOnErr(release::verify(PublicDir, Output));
    outs() << Output << ": sealed bundle with weights from " << Weights << "\n";
    return 0;
  }
  errs() << "atrex-release: error: give a command: pack, verify or refresh "
            "(--help)\n";
  return 1;
}

//===- atrex.cpp - the atrex umbrella command -----------------------------===//
//
// Part of atrex. `atrex <command> [args...]` runs `atrex-<command>` from the
// directory of this executable, then from the runtime's build next to it
// (`<dir>/../runtime/bin`: build/runtime/bin beside build/bin, where
// scripts/build.sh puts the execution side), then from PATH, the way git
// dispatches its subcommands: `atrex lint k.cu`, `atrex roofline --gpu H200`,
// `atrex trace ingest t.json`, `atrex opt ...`, `atrex fleet status ...`.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <unistd.h>
#include <vector>

using namespace llvm;

// Where commands are looked for before PATH: this executable's directory and
// the runtime's build beside it.
static std::vector<std::string> commandDirs(StringRef Dir) {
  SmallString<256> Runtime(Dir);
  sys::path::append(Runtime, "..", "runtime", "bin");
  return {Dir.str(), std::string(Runtime)};
}

static int usage(raw_ostream &OS, StringRef Dir) {
  OS << "usage: atrex <command> [args...]\n\ncommands:\n";
  std::vector<std::string> Names;
  for (const std::string &D : commandDirs(Dir)) {
    std::error_code EC;
    for (sys::fs::directory_iterator It(D, EC), End; !EC && It != End;
         It.increment(EC)) {
      StringRef Name = sys::path::filename(It->path());
      if (Name.consume_front("atrex-") && !Name.contains('.'))
        Names.push_back(Name.str());
    }
  }
  llvm::sort(Names);
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  for (const std::string &N : Names)
    OS << "  " << N << "\n";
  OS << "\n`atrex <command> --help` describes one command.\n";
  return 64;
}

int main(int argc, char **argv) {
  std::string Self = sys::fs::getMainExecutable(argv[0], (void *)&main);
  SmallString<256> Dir(Self);
  sys::path::remove_filename(Dir);
  if (argc < 2 || StringRef(argv[1]) == "--help" || StringRef(argv[1]) == "-h")
    return usage(argc < 2 ? errs() : outs(), Dir);

  std::string Tool = "atrex-" + std::string(argv[1]);
  std::string Exe;
  for (const std::string &D : commandDirs(Dir)) {
    SmallString<256> Path(D);
    sys::path::append(Path, Tool);
    if (Exe.empty() && sys::fs::can_execute(Path))
      Exe = std::string(Path);
  }
  if (Exe.empty())
    if (ErrorOr<std::string> Found = sys::findProgramByName(Tool))
      Exe = *Found;
  if (Exe.empty()) {
    errs() << "atrex: '" << argv[1] << "' is not an atrex command\n";
    usage(errs(), Dir);
    return 64;
  }
  std::vector<char *> Args;
  Args.push_back(const_cast<char *>(Exe.c_str()));
  for (int I = 2; I < argc; ++I)
    Args.push_back(argv[I]);
  Args.push_back(nullptr);
  execv(Exe.c_str(), Args.data());
  errs() << "atrex: cannot run '" << Exe << "'\n";
  return 70;
}

//===- atrex.cpp - the atrex umbrella command -----------------------------===//
//
// Part of atrex. `atrex <command> [args...]` runs `atrex-<command>` from the
// directory of this executable (then from PATH), the way git dispatches its
// subcommands: `atrex lint k.cu`, `atrex roofline --gpu H200`,
// `atrex trace ingest t.json`, `atrex opt ...`.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <unistd.h>
#include <vector>

using namespace llvm;

static int usage(raw_ostream &OS, StringRef Dir) {
  OS << "usage: atrex <command> [args...]\n\ncommands:\n";
  std::error_code EC;
  std::vector<std::string> Names;
  for (sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (Name.consume_front("atrex-") && !Name.contains('.'))
      Names.push_back(Name.str());
  }
  llvm::sort(Names);
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
  SmallString<256> Path(Dir);
  sys::path::append(Path, Tool);
  std::string Exe;
  if (sys::fs::can_execute(Path)) {
    Exe = std::string(Path);
  } else if (ErrorOr<std::string> Found = sys::findProgramByName(Tool)) {
    Exe = *Found;
  } else {
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

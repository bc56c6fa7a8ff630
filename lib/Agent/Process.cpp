//===- Process.cpp - subprocesses of the agent loop -----------------------===//
//
// Part of atrex. See include/atrex/Agent/Process.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

extern char **environ;

using namespace llvm;

namespace atrex::agent {

ProcessResult runProcess(StringRef Program, ArrayRef<std::string> Args,
                         ArrayRef<std::pair<std::string, std::string>> SetEnv,
                         StringRef StdoutFile, StringRef StderrFile,
                         unsigned TimeoutS) {
  std::vector<std::string> EnvStore;
  for (char **E = environ; E && *E; ++E) {
    StringRef Entry(*E);
    StringRef Name = Entry.split('=').first;
    bool Replaced = false;
    for (const auto &[K, V] : SetEnv)
      Replaced |= Name == K;
    if (!Replaced)
      EnvStore.push_back(Entry.str());
  }
  for (const auto &[K, V] : SetEnv)
    EnvStore.push_back(K + "=" + V);
  std::vector<StringRef> Env(EnvStore.begin(), EnvStore.end());
  std::vector<StringRef> Argv(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[3] = {StringRef("/dev/null"), std::nullopt,
                                           std::nullopt};
  if (!StdoutFile.empty())
    Redirects[1] = StdoutFile;
  if (!StderrFile.empty())
    Redirects[2] = StderrFile;

  ProcessResult R;
  std::string ErrMsg;
  bool Failed = false;
  auto Start = std::chrono::steady_clock::now();
  int Status = sys::ExecuteAndWait(Program, Argv, ArrayRef<StringRef>(Env),
                                   Redirects, TimeoutS, 0, &ErrMsg, &Failed);
  R.WallS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (Failed) {
    R.Error = "cannot run '" + Program.str() + "': " + ErrMsg;
  } else if (Status >= 0) {
    R.ExitStatus = Status;
  } else if (TimeoutS && R.WallS >= TimeoutS) {
    R.TimedOut = true;
    R.Error =
        "killed after the time limit of " + std::to_string(TimeoutS) + " s";
  } else {
    R.Error = ErrMsg.empty() ? "ended abnormally" : ErrMsg;
  }
  return R;
}

std::string findSiblingTool(StringRef Name, StringRef SelfExe) {
  SmallString<256> Dir(SelfExe);
  sys::path::remove_filename(Dir);
  SmallString<256> Here(Dir);
  sys::path::append(Here, Name);
  if (sys::fs::can_execute(Here))
    return std::string(Here);
  SmallString<256> Runtime(Dir);
  sys::path::append(Runtime, "..", "runtime", "bin", Name);
  if (sys::fs::can_execute(Runtime))
    return std::string(Runtime);
  if (auto Found = sys::findProgramByName(Name))
    return *Found;
  return "";
}

Expected<std::string> readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '" + Path + "': " +
                                                 Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

Error writeFile(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC)
    return createStringError(EC,
                             "cannot write '" + Path + "': " + EC.message());
  OS << Text;
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "cannot write '" + Path +
                                             "': " + OS.error().message());
  return Error::success();
}

std::string tail(StringRef Text, unsigned MaxLines, size_t MaxChars) {
  Text = Text.rtrim();
  size_t Pos = Text.size();
  for (unsigned I = 0; I < MaxLines && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  StringRef T = Pos == StringRef::npos ? Text : Text.substr(Pos + 1);
  if (T.size() > MaxChars)
    T = T.take_back(MaxChars);
  return T.str();
}

} // namespace atrex::agent

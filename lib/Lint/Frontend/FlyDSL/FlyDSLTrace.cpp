//===- FlyDSLTrace.cpp - trace a FlyDSL submission in a sandbox ----------===//
//
// Part of atrex. See include/atrex/Lint/FlyDSL.h. The submission's code runs
// in a child process (runInChildren, Isolation.h: a wall-clock limit, its
// process group killed on the limit and when it ends) whose own child execs
// Python with setrlimit limits (CPU time, address space, file size, no core
// files), a network namespace of its own where the kernel allows one (else
// proxies pointed at a closed port and Python's sockets disabled), a scratch
// working directory, HOME and TMPDIR, and flydsl's COMPILE_ONLY mode with IR
// dumps into the scratch directory. The driver (flydsl_trace.py, compiled
// in) reports which launchers ran; the dumps are read by FlyDSLIR.cpp.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Checks.h"
#include "atrex/Lint/FlyDSL.h"
#include "atrex/Lint/Isolation.h"
#include "atrex/Lint/Policy.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include <fcntl.h>
#include <mutex>
#include <sched.h>
#include <set>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace atrex::lint;
using namespace atrex::lint::flydsl;

#include "FlyDSLTraceDriver.inc" // FlyDSLTraceDriver: flydsl_trace.py

namespace {
std::string pythonExe() {
  if (const char *P = getenv("ATREX_PYTHON"))
    if (*P)
      return P;
  ErrorOr<std::string> P = sys::findProgramByName("python3");
  return P ? *P : std::string();
}

/// An lld of LLVM 22 (flydsl 0.4.2's final stage runs
/// $ROCM_PATH/llvm/bin/ld.lld; Debian's lld 14 fails).
std::string findLld() {
  if (const char *E = getenv("ATREX_FLYDSL_LLD"))
    if (*E && sys::fs::can_execute(E))
      return E;
  for (const char *C : {"/usr/lib/llvm-22/bin/ld.lld", "/usr/bin/ld.lld-22"})
    if (sys::fs::can_execute(C))
      return C;
  ErrorOr<std::string> P = sys::findProgramByName("ld.lld-22");
  return P ? *P : std::string();
}

/// ROCm's device bitcode libraries (ocml, ockl) for device math, when a
/// ROCm (or Debian's rocm-device-libs) provides them.
std::string findBitcode() {
  std::vector<std::string> C;
  if (const char *R = getenv("ROCM_PATH"))
    C.push_back(std::string(R) + "/amdgcn/bitcode");
  C.push_back("/opt/rocm/amdgcn/bitcode");
  C.push_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
  for (const std::string &D : C)
    if (sys::fs::is_directory(D))
      return D;
  return "";
}

struct TraceOutcome {
  /// ran: the entry returned; failed: the submission's code or compile
  /// failed, hung or crashed (`unknown`); skipped: nothing to say (the
  /// environment, or no inputs could be built).
  enum Kind { Ran, Failed, Skipped } K = Skipped;
  std::string Why;
  json::Value Result = nullptr; ///< the driver's JSON
  std::string Dumps;
};

TraceOutcome runTrace(StringRef File, StringRef Entry, const Options &O,
                      StringRef Scratch) {
  TraceOutcome T;
  std::string Py = pythonExe(), Lld = findLld();
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  std::string S = Scratch.str();
  std::string Rocm = S + "/rocm", Dumps = S + "/dumps", Home = S + "/home",
              Tmp = S + "/tmp", Result = S + "/result.json",
              Log = S + "/trace.log";
  for (const std::string &D : {Rocm + "/llvm/bin", Dumps, Home, Tmp})
    sys::fs::create_directories(D);
  sys::fs::create_link(Lld, Rocm + "/llvm/bin/ld.lld");
  std::string Bitcode = findBitcode();
  if (!Bitcode.empty()) {
    sys::fs::create_directories(Rocm + "/amdgcn");
    sys::fs::create_link(Bitcode, Rocm + "/amdgcn/bitcode");
  }
  T.Dumps = Dumps;

  // The environment: nothing of the caller's but what Python needs.
  std::vector<std::string> Env = {"HOME=" + Home,
                                  "TMPDIR=" + Tmp,
                                  "ROCM_PATH=" + Rocm,
                                  "COMPILE_ONLY=1",
                                  "ARCH=" + O.Arch,
                                  "FLYDSL_RUNTIME_ENABLE_CACHE=0",
                                  "FLYDSL_DUMP_IR=1",
                                  "FLYDSL_DUMP_DIR=" + Dumps,
                                  "CUDA_VISIBLE_DEVICES=",
                                  "HIP_VISIBLE_DEVICES=",
                                  "PYTHONDONTWRITEBYTECODE=1",
                                  "PYTHONNOUSERSITE=1",
                                  "http_proxy=http://127.0.0.1:9",
                                  "https_proxy=http://127.0.0.1:9",
                                  "HTTP_PROXY=http://127.0.0.1:9",
                                  "HTTPS_PROXY=http://127.0.0.1:9",
                                  "all_proxy=http://127.0.0.1:9",
                                  "no_proxy=",
                                  "OMP_NUM_THREADS=1"};
  for (const char *K : {"PATH", "PYTHONPATH", "VIRTUAL_ENV", "LD_LIBRARY_PATH",
                        "LANG", "LC_ALL"})
    if (const char *V = getenv(K))
      Env.push_back(std::string(K) + "=" + V);

  ChildLimits L;
  L.Seconds = O.Seconds;
  L.OwnProcessGroup = true;
  std::vector<ChildOutcome> Out =
      runInChildren(1, 1, L, [&](size_t) -> std::string {
        pid_t Pid = fork();
        if (Pid < 0)
          return "fork-failed";
        if (Pid == 0) {
          struct rlimit R;
          R.rlim_cur = R.rlim_max = static_cast<rlim_t>(O.Seconds) + 5;
          setrlimit(RLIMIT_CPU, &R);
          R.rlim_cur = R.rlim_max = static_cast<rlim_t>(O.MaxMemMiB) << 20;
          setrlimit(RLIMIT_AS, &R);
          R.rlim_cur = R.rlim_max = static_cast<rlim_t>(O.MaxFileMiB) << 20;
          setrlimit(RLIMIT_FSIZE, &R);
          R.rlim_cur = R.rlim_max = 0;
          setrlimit(RLIMIT_CORE, &R);
          const char *Net = "proxy";
          if (unshare(CLONE_NEWNET) == 0 ||
              unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0)
            Net = "namespace";
          std::vector<std::string> E = Env;
          E.push_back(std::string("ATREX_FLYDSL_NETWORK=") + Net);
          if (chdir(S.c_str()) != 0)
            _exit(70);
          int Fd = open(Log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
          if (Fd >= 0) {
            dup2(Fd, 1);
            dup2(Fd, 2);
            close(Fd);
          }
          int In = open("/dev/null", O_RDONLY);
          if (In >= 0) {
            dup2(In, 0);
            close(In);
          }
          std::vector<std::string> Args = {
              Py,     "-c",        FlyDSLTraceDriver, Abs.str().str(),
              Result, Entry.str(), O.InputsJSON};
          std::vector<char *> Argv, Envp;
          for (std::string &A : Args)
            Argv.push_back(A.data());
          Argv.push_back(nullptr);
          for (std::string &V : E)
            Envp.push_back(V.data());
          Envp.push_back(nullptr);
          execve(Py.c_str(), Argv.data(), Envp.data());
          _exit(127);
        }
        int Status = 0;
        while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
        }
        if (WIFSIGNALED(Status))
          return "signal " + std::to_string(WTERMSIG(Status));
        return "exit " + std::to_string(WEXITSTATUS(Status));
      });
  const ChildOutcome &C = Out[0];
  auto LogTail = [&] {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log);
    if (!B)
      return std::string();
    StringRef Text = (*B)->getBuffer().rtrim();
    size_t NL = Text.rfind('\n');
    return (NL == StringRef::npos ? Text : Text.drop_front(NL + 1)).str();
  };
  if (!C.OK) {
    T.K = TraceOutcome::Failed;
    T.Why = "its trace " + C.Failure;
    StringRef F(C.Failure);
    if (F.contains("--timeout"))
      T.Why = "its trace ran past the " + std::to_string(O.Seconds) +
              " s limit (--flydsl-timeout): a hang, or a compile that long";
    return T;
  }
  StringRef St(C.Output);
  if (St.starts_with("signal ")) {
    int Sig = 0;
    St.drop_front(7).getAsInteger(10, Sig);
    T.K = TraceOutcome::Failed;
    T.Why = "its trace crashed (signal " + std::to_string(Sig) + ": " +
            strsignal(Sig) + ")";
    if (Sig == SIGXCPU)
      T.Why = "its trace ran past its CPU-time limit (" +
              std::to_string(O.Seconds + 5) + " s)";
    else if (Sig == SIGXFSZ)
      T.Why = "its trace wrote a file larger than " +
              std::to_string(O.MaxFileMiB) + " MiB";
    std::string Tail = LogTail();
    if (!Tail.empty())
      T.Why += "; last output: " + Tail;
    return T;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> RB = MemoryBuffer::getFile(Result);
  Expected<json::Value> J = RB ? json::parse((*RB)->getBuffer())
                               : Expected<json::Value>(createStringError(
                                     inconvertibleErrorCode(), "no result"));
  if (!J) {
    consumeError(J.takeError());
    T.K = TraceOutcome::Failed;
    std::string Tail = LogTail();
    T.Why = "its trace " +
            std::string(St == "exit 127"
                            ? "could not start Python ('" + Py + "')"
                            : "ended (" + C.Output + ") without a result");
    if (StringRef(Tail).contains("MemoryError") ||
        StringRef(Tail).contains("std::bad_alloc"))
      T.Why += ": past its address-space limit (" +
               std::to_string(O.MaxMemMiB) + " MiB)";
    if (!Tail.empty())
      T.Why += "; last output: " + Tail;
    return T;
  }
  T.Result = std::move(*J);
  const json::Object *R = T.Result.getAsObject();
  StringRef Status = R ? R->getString("status").value_or("") : "";
  std::string Error = R ? R->getString("error").value_or("").str() : "";
  if (Status == "ok") {
    T.K = TraceOutcome::Ran;
    return T;
  }
  if (Status == "setup" || Status == "no-inputs") {
    T.K = TraceOutcome::Skipped;
    T.Why = Error;
    return T;
  }
  // The entry raised. In a launcher (the FlyDSL trace or compile failed) it
  // is the submission's kernel; elsewhere, most likely the inputs (a guess
  // from the signature) or the CPU stand-in for the device.
  T.Why = Error;
  T.K = TraceOutcome::Skipped;
  if (const json::Array *Ls = R ? R->getArray("launchers") : nullptr)
    for (const json::Value &V : *Ls)
      if (const json::Object *LO = V.getAsObject())
        if (std::optional<StringRef> E = LO->getString("error")) {
          std::string Msg = E->str();
          bool Environment = StringRef(Msg).contains("lld") ||
                             StringRef(Msg).contains("bitcode") ||
                             StringRef(Msg).contains("ROCM_PATH");
          // Inputs guessed from the signature may be what the launcher
          // rejects (a shape, a dtype): only the file's own inputs or
          // --flydsl-inputs make its failure the submission's.
          bool Guessed =
              R->getString("inputs").value_or("").contains("by signature");
          T.K = Environment || Guessed ? TraceOutcome::Skipped
                                       : TraceOutcome::Failed;
          T.Why = "the FlyDSL compile of launcher '" +
                  LO->getString("name").value_or("?").str() +
                  "' failed: " + Msg.substr(0, 400);
          if (Environment)
            T.Why += " (this machine lacks a tool or library the compile "
                     "needs)";
          else if (Guessed)
            T.Why += " (with inputs guessed from the signature: give "
                     "--flydsl-inputs)";
          break;
        }
  return T;
}

/// `make_gemm.gemm_kernel` -> `gemm_kernel`: the static model qualifies a
/// kernel defined in a builder; its symbol carries the function's name.
StringRef lastPart(StringRef Name) {
  return Name.rsplit('.').second.empty() ? Name : Name.rsplit('.').second;
}

Finding note(StringRef Check, const Policy &P, const SourcePos &Pos,
             StringRef Symbol, StringRef Message) {
  Finding F;
  F.Check = Check.str();
  F.Sev = P.severity(Check);
  F.Pos = Pos;
  F.Symbol = Symbol.str();
  F.Library = "FlyDSL IR";
  F.Message = Message.str();
  return F;
}
} // namespace

bool atrex::lint::flydsl::importsFlyDSL(StringRef File) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(File);
  if (!B)
    return false;
  static const Regex Import(
      "(^|\n)[ \t]*(import[ \t]+flydsl|from[ \t]+flydsl[ \t.])");
  return Import.match((*B)->getBuffer());
}

bool atrex::lint::flydsl::available(std::string &Why) {
  static std::once_flag Once;
  static bool OK = false;
  static std::string Reason;
  std::call_once(Once, [] {
    std::string Py = pythonExe();
    if (Py.empty()) {
      Reason = "no python3 on PATH";
      return;
    }
    if (findLld().empty()) {
      Reason = "no lld of LLVM 22 (Debian: lld-22; or set ATREX_FLYDSL_LLD): "
               "flydsl's final stage links with it";
      return;
    }
    std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(""),
                                            StringRef("")};
    int RC = sys::ExecuteAndWait(Py, {Py, "-c", "import flydsl"}, std::nullopt,
                                 Redirects, /*SecondsToWait=*/60);
    if (RC != 0) {
      Reason = "'" + Py + " -c \"import flydsl\"' failed (pip install " +
               "flydsl==0.4.2, or scripts/install-deps.sh with " +
               "ATREX_WITH_FLYDSL=1)";
      return;
    }
    OK = true;
  });
  Why = Reason;
  return OK;
}

void atrex::lint::flydsl::addEvidence(SubmissionResult &R, StringRef File,
                                      const Policy &P, const Options &O) {
  if (O.Compile == Options::Mode::Off && O.Dumps.empty())
    return;
  if (R.Mode == AnalysisMode::Library || !importsFlyDSL(File))
    return;
  SourcePos FilePos{R.Files.empty() ? File.str() : R.Files.front(), 1, 1};
  auto Note = [&](StringRef Msg) {
    R.Findings.push_back(note(checks::FlydslIr, P, FilePos, "", Msg));
  };
  std::string Why;
  IRReading IR;
  TraceOutcome T;
  std::string Scratch;
  if (!O.Dumps.empty()) {
    T.K = TraceOutcome::Ran;
    T.Dumps = O.Dumps;
  } else {
    if (!available(Why)) {
      if (O.Compile == Options::Mode::On)
        Note("no IR evidence: " + Why);
      return;
    }
    std::string Entry;
    for (const std::string &E : R.Entries)
      Entry += (Entry.empty() ? "" : ",") + E;
    if (!O.Keep.empty()) {
      Scratch = O.Keep;
      sys::fs::remove_directories(Scratch);
      sys::fs::create_directories(Scratch);
    } else {
      SmallString<128> D;
      if (sys::fs::createUniqueDirectory("atrex-flydsl", D)) {
        Note("no IR evidence: cannot create a scratch directory");
        return;
      }
      Scratch = std::string(D);
    }
    T = runTrace(File, Entry, O, Scratch);
  }
  // What was compiled before a failure is evidence too.
  if (!T.Dumps.empty())
    IR = readDumps(T.Dumps);
  if (!Scratch.empty() && O.Keep.empty())
    sys::fs::remove_directories(Scratch);

  if (T.K == TraceOutcome::Skipped) {
    Note("no IR evidence: " + T.Why);
  } else if (T.K == TraceOutcome::Failed) {
    R.Errors.push_back("atrex-flydsl: the IR evidence of '" + File.str() +
                       "' is missing: " + T.Why);
    R.Rendered += File.str() + ": error: " + R.Errors.back() + "\n";
  }
  for (const std::string &Pr : IR.Problems)
    Note("IR evidence: " + Pr);

  // The trace's launches, attributed to the linted file's lines.
  std::string Base = sys::path::filename(FilePos.File).str();
  std::set<std::string> Traced;
  bool AnyCode = false, AnyMultiplyAdd = false, AnyStore = false;
  for (Launch &L : IR.Launches) {
    Traced.insert(L.Kernel);
    SourcePos Pos = L.Pos;
    if (!Pos.isValid() || sys::path::filename(Pos.File) == Base)
      Pos.File = FilePos.File;
    if (!Pos.isValid())
      Pos = FilePos;
    std::string Msg =
        "IR: kernel '" + L.Kernel + "' (" + L.Symbol + ") is launched";
    if (!L.Host.empty())
      Msg += " by '" + L.Host + "'";
    Msg += " in the trace";
    if (L.HasCode) {
      AnyCode = true;
      AnyMultiplyAdd |= L.Work.multiplyAdd();
      AnyStore |= L.Work.GlobalStores > 0;
      Msg += "; its " + L.Source + " has " + L.Work.summary();
    } else {
      Msg += "; no code for it was found in the dump";
    }
    R.Findings.push_back(note(checks::FlydslIr, P, Pos, L.Kernel, Msg));
    // The decoy: the static no-compute note gets the device's word on it.
    if (L.HasCode && !L.Work.arithmetic())
      for (Finding &F : R.Findings)
        if (F.Check == checks::KernelNoCompute &&
            lastPart(F.Symbol) == L.Kernel)
          F.Notes.push_back(
              {Pos, "the code object of '" + L.Symbol +
                        "' has no floating-point arithmetic and no MFMA (" +
                        std::to_string(L.Work.GlobalLoads) + " loads, " +
                        std::to_string(L.Work.GlobalStores) + " stores)"});
  }
  if (T.K == TraceOutcome::Ran) {
    for (const KernelInfo &K : R.Kernels)
      if (K.Launched && !Traced.count(lastPart(K.Name).str()))
        R.Findings.push_back(
            note(checks::FlydslIr, P, K.Pos, K.Name,
                 "IR: kernel '" + K.Name +
                     "' is launched from the entry in the Python but was not "
                     "traced with these inputs (no dump of it): the launch did "
                     "not run, or another path did"));
    if (IR.Launches.empty() && O.Dumps.empty())
      Note("IR: the entry ran and launched no FlyDSL kernel with these "
           "inputs (no dump)");
  }
  // A GEMM whose launched kernels write results but do no multiply-add
  // computes its product elsewhere. (A kernel that stores nothing compiled
  // to nothing for these inputs: a loop bound the inputs made zero.)
  if (O.Gemm && AnyCode && AnyStore && !AnyMultiplyAdd) {
    std::string Names;
    SourcePos Pos = FilePos;
    for (const Launch &L : IR.Launches) {
      Names += (Names.empty() ? "" : ", ") + L.Kernel;
      if (Pos.File == FilePos.File && Pos.Line == 1 && L.Pos.isValid())
        Pos = {FilePos.File, L.Pos.Line, L.Pos.Column};
    }
    Finding F = note(
        checks::KernelNoMultiplyAdd, P, Pos, Names,
        "the operator '" + O.Operator + "' is of the '" + O.MultiplyAddFamily +
            "' family, and no kernel launched in the trace (" + Names +
            ") executes a multiply-add (no MFMA, FMA or dot instruction, "
            "no fp multiply with an fp add in its code object): the "
            "product is computed elsewhere");
    F.Library = "no multiply-add in the launched kernels";
    R.Findings.push_back(std::move(F));
  }
  std::stable_sort(R.Findings.begin(), R.Findings.end(),
                   [](const Finding &A, const Finding &B) {
                     return std::tie(A.Pos.File, A.Pos.Line, A.Pos.Column) <
                            std::tie(B.Pos.File, B.Pos.Line, B.Pos.Column);
                   });
  R.Findings.erase(
      std::remove_if(R.Findings.begin(), R.Findings.end(),
                     [](const Finding &F) { return F.Sev == Severity::Off; }),
      R.Findings.end());
  decideVerdict(R);
}

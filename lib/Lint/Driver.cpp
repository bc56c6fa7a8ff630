//===- Driver.cpp - lint files or a compilation database ------------------===//

#include "atrex/Lint/Driver.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/IRModel.h"
#include "atrex/Lint/ModelBuilder.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Project.h"
#include "atrex/Lint/PythonFrontend.h"
#include "atrex/Lint/Report.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Timer.h"
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <set>

using namespace clang;
using namespace clang::tooling;
using namespace llvm;
using namespace atrex::lint;

#ifndef ATREX_CLANG_RESOURCE_DIR
#define ATREX_CLANG_RESOURCE_DIR ""
#endif

//===----------------------------------------------------------------------===//
// Toolchain detection
//===----------------------------------------------------------------------===//

static bool exists(const Twine &P) { return sys::fs::exists(P); }

static std::string findCuda() {
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"})
    if (const char *V = getenv(Var))
      if (exists(Twine(V) + "/include/cuda_runtime.h"))
        return V;
  if (exists("/usr/local/cuda/include/cuda_runtime.h"))
    return "/usr/local/cuda";
  if (ErrorOr<std::string> Nvcc = sys::findProgramByName("nvcc")) {
    SmallString<256> P(*Nvcc);
    sys::path::remove_filename(P); // bin
    sys::path::remove_filename(P); // root
    if (exists(P + "/include/cuda_runtime.h"))
      return std::string(P);
  }
  return "";
}

/// Asks Python for its include directory and purelib (one short process).
static void findPython(Toolchain &TC) {
  if (const char *V = getenv("ATREX_TORCH_INCLUDE")) {
    SmallVector<StringRef, 4> Parts;
    StringRef(V).split(Parts, ':', -1, false);
    for (StringRef P : Parts)
      TC.TorchIncludes.push_back(P.str());
  }
  const char *PyEnv = getenv("ATREX_PYTHON");
  ErrorOr<std::string> Py = sys::findProgramByName(PyEnv ? PyEnv : "python3");
  if (!Py)
    return;
  SmallString<128> Out;
  if (sys::fs::createTemporaryFile("atrex-py", "txt", Out))
    return;
  FileRemover Remove(Out);
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Out),
                                          StringRef("")};
  StringRef Args[] = {*Py, "-c",
                      "import sysconfig;p=sysconfig.get_paths();"
                      "print(p['include']);print(p['purelib']);"
                      "print(p['platlib'])"};
  if (sys::ExecuteAndWait(*Py, Args, std::nullopt, Redirects,
                          /*SecondsToWait=*/20) != 0)
    return;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Out);
  if (!Buf)
    return;
  SmallVector<StringRef, 3> Lines;
  (*Buf)->getBuffer().trim().split(Lines, '\n');
  if (Lines.empty())
    return;
  if (exists(Lines[0] + "/Python.h"))
    TC.PythonInclude = Lines[0].str();
  // CUTLASS/CuTe headers of PyPI nvidia-cutlass.
  for (size_t I = 1; I < Lines.size() && TC.CutlassInclude.empty(); ++I) {
    std::string Inc =
        (Lines[I].trim() + "/cutlass_library/source/include").str();
    if (exists(Inc + "/cutlass/cutlass.h"))
      TC.CutlassInclude = Inc;
  }
  // TVM-FFI headers of PyPI apache-tvm-ffi (FlashInfer's and TVM's kernels'
  // bindings: tvm/ffi/container/tensor.h), with the DLPack header they use.
  for (size_t I = 1; I < Lines.size() && TC.TvmFfiIncludes.empty(); ++I) {
    std::string Root = (Lines[I].trim() + "/tvm_ffi").str();
    if (!exists(Root + "/include/tvm/ffi/c_api.h"))
      continue;
    TC.TvmFfiIncludes.push_back(Root + "/include");
    if (exists(Root + "/3rdparty/dlpack/include/dlpack/dlpack.h"))
      TC.TvmFfiIncludes.push_back(Root + "/3rdparty/dlpack/include");
  }
  if (!TC.TorchIncludes.empty())
    return;
  for (size_t I = 1; I < Lines.size(); ++I) {
    std::string Inc = (Lines[I].trim() + "/torch/include").str();
    if (exists(Inc + "/torch/extension.h") || exists(Inc + "/ATen/ATen.h")) {
      TC.TorchIncludes.push_back(Inc);
      TC.TorchIncludes.push_back(Inc + "/torch/csrc/api/include");
      return;
    }
  }
}

std::string atrex::lint::defaultPCHDir() {
  if (const char *D = getenv("ATREX_CACHE_DIR"))
    return std::string(D) + "/pch";
  if (const char *D = getenv("XDG_CACHE_HOME"))
    return std::string(D) + "/atrex/pch";
  SmallString<128> Home;
  if (sys::path::home_directory(Home))
    return std::string(Home) + "/.cache/atrex/pch";
  return "";
}

namespace {
struct BuiltinHeader {
  const char *Path;
  const char *Text;
};
const BuiltinHeader BuiltinHeaders[] = {
#include "BuiltinHeaders.inc"
};
} // namespace

/// Writes the built-in headers once into the cache (a directory named by
/// their content, published by rename so parallel runs never see a partial
/// file) and returns it; empty if no cache directory can be written.
static std::string builtinHeaderDir() {
  SHA256 H;
  for (const BuiltinHeader &B : BuiltinHeaders) {
    H.update(B.Path);
    H.update(B.Text);
  }
  std::string Key = toHex(H.final(), /*LowerCase=*/true).substr(0, 16);
  SmallString<256> Base(defaultPCHDir());
  if (Base.empty())
    return "";
  sys::path::remove_filename(Base); // .../atrex/pch -> .../atrex
  std::string Dir = (Base + "/headers-" + Key).str();
  if (exists(Dir + "/.complete"))
    return Dir;
  std::string Tmp = Dir + ".tmp" + std::to_string(sys::Process::getProcessId());
  for (const BuiltinHeader &B : BuiltinHeaders) {
    SmallString<256> P(Tmp);
    sys::path::append(P, B.Path);
    if (sys::fs::create_directories(sys::path::parent_path(P)))
      return "";
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    if (EC)
      return "";
    OS << B.Text;
  }
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp + "/.complete", EC);
  }
  if (sys::fs::rename(Tmp, Dir)) {
    sys::fs::remove_directories(Tmp);
    if (!exists(Dir + "/.complete"))
      return "";
  }
  return Dir;
}

const Toolchain &atrex::lint::detectToolchain() {
  static const Toolchain TC = [] {
    Toolchain T;
    T.CudaPath = findCuda();
    if (!T.CudaPath.empty())
      if (ErrorOr<std::unique_ptr<MemoryBuffer>> H =
              MemoryBuffer::getFile(T.CudaPath + "/include/cuda.h")) {
        StringRef Text = (*H)->getBuffer();
        size_t At = Text.find("#define CUDA_VERSION ");
        if (At != StringRef::npos)
          Text.substr(At + 21)
              .ltrim()
              .take_while([](char C) { return isDigit(C); })
              .getAsInteger(10, T.CudaVersion);
      }
    T.ResourceDir = ATREX_CLANG_RESOURCE_DIR;
    findPython(T);
    if (const char *V = getenv("ATREX_CUTLASS_INCLUDE"))
      T.CutlassInclude = V;
    if (const char *V = getenv("ATREX_TVM_FFI_INCLUDE")) {
      T.TvmFfiIncludes.clear();
      SmallVector<StringRef, 4> Parts;
      StringRef(V).split(Parts, ':', -1, false);
      for (StringRef P : Parts)
        T.TvmFfiIncludes.push_back(P.str());
    }
    T.BuiltinHeaders = builtinHeaderDir();
    const char *Roots[] = {getenv("ROCM_PATH"), "/opt/rocm", "/usr"};
    for (const char *Root : Roots) {
      if (Root && exists(Twine(Root) + "/include/hip/hip_runtime.h")) {
        T.HipInclude = std::string(Root) + "/include";
        break;
      }
    }
    return T;
  }();
  return TC;
}

enum class Lang { Cuda, Hip, Cxx };

static std::string sourceText(StringRef File);

/// HIP spelled in a .cpp or .cu file (HIP's own samples are .cpp files,
/// hipify keeps .cu): it includes HIP's runtime and not CUDA's.
static bool includesHipRuntime(StringRef Text) {
  auto Includes = [&](StringRef Header) {
    for (size_t At = Text.find(Header); At != StringRef::npos;
         At = Text.find(Header, At + 1)) {
      size_t LineStart = Text.rfind('\n', At);
      StringRef Line =
          Text.slice(LineStart == StringRef::npos ? 0 : LineStart + 1, At);
      if (Line.trim().starts_with("#") && Line.contains("include"))
        return true;
    }
    return false;
  };
  bool CudaRuntime = Includes("cuda_runtime.h") ||
                     Includes("cuda_runtime_api.h") || Includes("<cuda.h>");
  // HIP's runtime and not CUDA's (a hipified torch extension may still
  // spell ATen/cuda/ headers: hipify maps them at build time).
  if ((Includes("hip/hip_runtime.h") || Includes("hip/hip_runtime_api.h")) &&
      !CudaRuntime)
    return true;
  // A header only HIP has (<hip/hip_bf16.h>, hipCUB, rocPRIM, rocWMMA) and
  // no header only CUDA has: code written for both (`#ifdef USE_ROCM`
  // <hip/hip_bf16.h> `#else` <cuda_bf16.h>) is parsed as CUDA.
  bool HipOnly = Includes("<hip/") || Includes("<hipcub/") ||
                 Includes("<rocprim/") || Includes("<rocwmma/");
  bool CudaOnly =
      CudaRuntime || Includes("<cuda_bf16.h>") || Includes("<cuda_fp16.h>") ||
      Includes("<cuda_fp8.h>") || Includes("<cub/") || Includes("<cuda/") ||
      Includes("<cublas") || Includes("<mma.h>") || Includes("c10/cuda/") ||
      Includes("ATen/cuda/") || Includes("<cutlass/") || Includes("<cute/");
  return HipOnly && !CudaOnly;
}

static std::optional<std::pair<StringRef, bool>> includeDirective(StringRef L);

/// The text of \p File and of the project headers it includes with quotes,
/// found next to the including file (as the preprocessor's first quoted
/// search) or where include inference would find them (inferIncludeDirs:
/// a project's include/ or Common/), to a depth of 3 and 32 files: a HIP
/// program may reach <hip/hip_runtime.h> only through its own `hip_utils.h`.
static std::string textWithLocalIncludes(StringRef File) {
  std::string All;
  std::set<std::string> Seen;
  std::function<void(StringRef, unsigned)> Add = [&](StringRef F,
                                                     unsigned Depth) {
    if (Seen.size() >= 32 || !Seen.insert(F.str()).second)
      return;
    std::string Text = sourceText(F);
    All += Text;
    All += "\n";
    if (Depth == 3)
      return;
    SmallVector<StringRef, 0> Lines;
    StringRef(Text).split(Lines, '\n');
    for (StringRef L : Lines) {
      std::optional<std::pair<StringRef, bool>> Inc = includeDirective(L);
      if (!Inc || Inc->second)
        continue;
      SmallString<256> Next(sys::path::parent_path(F));
      sys::path::append(Next, Inc->first);
      if (!sys::fs::is_regular_file(Next)) {
        std::vector<std::string> Dirs = inferIncludeDirs(F, Inc->first);
        if (Dirs.empty())
          continue;
        Next = Dirs.front();
        sys::path::append(Next, Inc->first);
      }
      Add(Next, Depth + 1);
    }
  };
  Add(File, 0);
  return All;
}

static Lang languageOf(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  if (Ext == ".hip")
    return Lang::Hip;
  bool Cuda = Ext == ".cu" || Ext == ".cuh";
  if (Ext == ".ll" || Ext == ".bc" || Ext == ".py")
    return Cuda ? Lang::Cuda : Lang::Cxx;
  if (includesHipRuntime(textWithLocalIncludes(File)))
    return Lang::Hip;
  return Cuda ? Lang::Cuda : Lang::Cxx;
}

static void commonArguments(std::vector<std::string> &A, Lang L,
                            const Toolchain &TC, bool Warnings) {
  if (!TC.ResourceDir.empty())
    A.push_back("-resource-dir=" + TC.ResourceDir);
  switch (L) {
  case Lang::Cuda:
    A.insert(A.end(), {"-x", "cuda", "--cuda-host-only"});
    if (!TC.CudaPath.empty()) {
      A.push_back("--cuda-path=" + TC.CudaPath);
      if (exists(TC.CudaPath + "/include/cccl"))
        A.push_back("-isystem" + TC.CudaPath + "/include/cccl");
    }
    A.push_back("-Wno-unknown-cuda-version");
    // What torch extensions' builds define for CUDA sources (setup.py's
    // -DUSE_CUDA): the CUDA half of torch's stable C ABI
    // (torch/csrc/stable/c/shim.h: aoti_torch_get_current_cuda_stream) and
    // of projects' own `#ifdef USE_CUDA` paths.
    A.push_back("-DUSE_CUDA");
    // nvcc's version macros, which headers test to enable what a toolkit
    // has (CUTLASS's driver wrappers: `__CUDACC_VER_MAJOR__ >= 12`); clang
    // defines CUDA_VERSION only.
    if (TC.CudaVersion) {
      A.push_back("-D__CUDACC_VER_MAJOR__=" +
                  std::to_string(TC.CudaVersion / 1000));
      A.push_back("-D__CUDACC_VER_MINOR__=" +
                  std::to_string(TC.CudaVersion % 1000 / 10));
    }
    if (!TC.BuiltinHeaders.empty())
      A.push_back("-include" + TC.BuiltinHeaders +
                  "/cuda/atrex_cuda_prelude.h");
    break;
  case Lang::Hip:
    A.insert(A.end(), {"-x", "hip", "--offload-host-only", "-nogpuinc",
                       "-nogpulib", "-D__HIP_PLATFORM_AMD__=1",
                       // HIP 5.x headers use a macro newer clangs dropped,
                       // and include clang's wrappers relative to its
                       // resource directory.
                       "-D__AMDGCN_WAVEFRONT_SIZE=64"});
    if (!TC.ResourceDir.empty())
      A.push_back("-isystem" + TC.ResourceDir);
    if (!TC.HipInclude.empty() && TC.HipInclude != "/usr/include")
      A.push_back("-isystem" + TC.HipInclude);
    // What clang's HIP wrapper would include first, and stand-ins for
    // rocThrust headers that torch includes (lib/Lint/Headers/hip).
    if (!TC.BuiltinHeaders.empty()) {
      A.push_back("-include" + TC.BuiltinHeaders + "/hip/atrex_hip_prelude.h");
      A.push_back("-idirafter" + TC.BuiltinHeaders + "/hip");
    }
    break;
  case Lang::Cxx:
    A.insert(A.end(), {"-x", "c++"});
    if (!TC.CudaPath.empty()) {
      A.push_back("-isystem" + TC.CudaPath + "/include");
      if (exists(TC.CudaPath + "/include/cccl"))
        A.push_back("-isystem" + TC.CudaPath + "/include/cccl");
    }
    break;
  }
  if (!TC.CutlassInclude.empty() && L != Lang::Hip)
    A.push_back("-isystem" + TC.CutlassInclude);
  for (const std::string &I : TC.TorchIncludes)
    A.push_back("-isystem" + I);
  if (!TC.PythonInclude.empty())
    A.push_back("-isystem" + TC.PythonInclude);
  // Current PyTorch headers need C++20; a -std given later wins.
  A.push_back("-std=c++20");
  A.insert(A.end(), {"-DTORCH_EXTENSION_NAME=atrex_submission",
                     "-DTORCH_API_INCLUDE_EXTENSION_H", "-ferror-limit=20",
                     "-fsyntax-only"});
  if (!Warnings)
    A.push_back("-w");
}

std::vector<std::string> atrex::lint::defaultArguments(StringRef File,
                                                       const Toolchain &TC,
                                                       bool Warnings) {
  std::vector<std::string> A{"clang++"};
  commonArguments(A, languageOf(File), TC, Warnings);
  return A;
}

std::vector<std::string>
atrex::lint::translateCommand(const std::vector<std::string> &In,
                              StringRef File, const Toolchain &TC,
                              bool Warnings) {
  std::vector<std::string> A{"clang++"};
  commonArguments(A, languageOf(File), TC, Warnings);
  // Keep what changes the meaning of the source; drop code generation,
  // output and nvcc/hipcc-only options.
  for (size_t I = 1; I < In.size(); ++I) {
    StringRef S = In[I];
    auto TakesValue = [&](StringRef Flag) {
      return S == Flag && I + 1 < In.size();
    };
    if (TakesValue("-I") || TakesValue("-isystem") || TakesValue("-D") ||
        TakesValue("-U") || TakesValue("-include") || TakesValue("-iquote")) {
      A.push_back(S.str());
      A.push_back(In[++I]);
      continue;
    }
    if (S.starts_with("-I") || S.starts_with("-isystem") ||
        S.starts_with("-D") || S.starts_with("-U") || S.starts_with("-std=") ||
        S.starts_with("-iquote") || S.starts_with("--std=")) {
      A.push_back(S.starts_with("--std=") ? ("-std=" + S.substr(6)).str()
                                          : S.str());
      continue;
    }
    if (TakesValue("-o") || TakesValue("-x") || TakesValue("-Xcompiler") ||
        TakesValue("-Xptxas") || TakesValue("-Xlinker") ||
        TakesValue("-gencode") || TakesValue("-arch") || TakesValue("-ccbin") ||
        TakesValue("--compiler-options") || TakesValue("-MF") ||
        TakesValue("-MT") || TakesValue("-MQ"))
      ++I; // drop flag and value
    // Everything else (codegen, warnings, -c, the file itself) is dropped;
    // the file is appended by the tool.
  }
  return A;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// The header an `#include <h>` or `#include "h"` line names, with whether
/// it is angled; nullopt for any other line.
static std::optional<std::pair<StringRef, bool>> includeDirective(StringRef L) {
  L = L.trim();
  if (!L.consume_front("#"))
    return std::nullopt;
  L = L.ltrim();
  if (!L.consume_front("include"))
    return std::nullopt;
  L = L.ltrim();
  if (L.size() < 3 || (L[0] != '<' && L[0] != '"'))
    return std::nullopt;
  char Close = L[0] == '<' ? '>' : '"';
  size_t End = L.find(Close, 1);
  if (End == StringRef::npos)
    return std::nullopt;
  return std::make_pair(L.slice(1, End), L[0] == '<');
}

/// The include a "'x' file not found" message names.
static StringRef missingInclude(StringRef Msg) {
  size_t B = Msg.find('\'');
  size_t E = Msg.find("' file not found");
  if (B == StringRef::npos || E == StringRef::npos || E <= B)
    return "";
  return Msg.slice(B + 1, E);
}

/// What to do about a header that was not found, by whose header it is.
static std::string missingHint(StringRef Msg) {
  StringRef H = missingInclude(Msg);
  const Toolchain &TC = detectToolchain();
  if (H.starts_with("torch/") || H.starts_with("ATen/") ||
      H.starts_with("c10/") || H == "Python.h" || H.starts_with("pybind11/"))
    return "atrex-lint found no PyTorch headers: install PyPI torch, or set "
           "ATREX_TORCH_INCLUDE, or pass -- -isystem <dir>";
  if (H.starts_with("cutlass/") || H.starts_with("cute/"))
    return TC.CutlassInclude.empty()
               ? "atrex-lint found no CUTLASS headers: install PyPI "
                 "nvidia-cutlass, or set ATREX_CUTLASS_INCLUDE"
               : "not in the CUTLASS headers at " + TC.CutlassInclude +
                     ": pass a newer CUTLASS after '--' as -isystem <dir>";
  if (H.starts_with("tvm/ffi/") || H.starts_with("dlpack/"))
    return TC.TvmFfiIncludes.empty()
               ? "atrex-lint found no TVM-FFI headers: install PyPI "
                 "apache-tvm-ffi, or set ATREX_TVM_FFI_INCLUDE"
               : "not in the TVM-FFI headers at " + TC.TvmFfiIncludes[0] +
                     ": pass a newer apache-tvm-ffi's include directory "
                     "after '--' as -isystem <dir>";
  bool CudaHeader = H.starts_with("cuda_") || H == "cuda.h" ||
                    H.starts_with("cuda/") || H.starts_with("cub/") ||
                    H.starts_with("thrust/") || H.starts_with("cublas") ||
                    H.starts_with("cudnn") || H.starts_with("cufft") ||
                    H.starts_with("curand") || H.starts_with("cusparse") ||
                    H.starts_with("cusolver") || H.starts_with("nvrtc") ||
                    H.starts_with("cupti") || H.starts_with("nvtx") ||
                    H.starts_with("mma.h") || H.starts_with("crt/");
  if (CudaHeader)
    return TC.CudaPath.empty()
               ? "atrex-lint found no CUDA toolkit: set CUDA_PATH"
               : "not in the CUDA toolkit at " + TC.CudaPath +
                     ": a newer CUDA or CCCL may be needed (pass it after "
                     "'--' as -isystem <dir>)";
  if (H.starts_with("hip/"))
    return TC.HipInclude.empty()
               ? "atrex-lint found no HIP headers: set ROCM_PATH"
               : "not in the HIP headers at " + TC.HipInclude +
                     ": a newer ROCm may be needed (set ROCM_PATH)";
  if (H.starts_with("hipcub/") || H.starts_with("rocprim/") ||
      H.starts_with("rocblas") || H.starts_with("hipblas") ||
      H.starts_with("rocsparse") || H.starts_with("hipsparse") ||
      H.starts_with("rocfft") || H.starts_with("hipfft") ||
      H.starts_with("rocrand") || H.starts_with("hiprand") ||
      H.starts_with("miopen") || H.starts_with("rocsolver") ||
      H.starts_with("hipsolver") || H.starts_with("rocthrust"))
    return "a ROCm library's headers are not installed: install its -dev "
           "package or set ROCM_PATH";
  return "not found next to the file or in its project's include folders: "
         "pass the directory after '--' as -I<dir>, or a compile database "
         "with -p";
}

namespace {
/// Renders compiler diagnostics and keeps the errors.
class RecordingPrinter : public TextDiagnosticPrinter {
public:
  RecordingPrinter(raw_ostream &OS, DiagnosticOptions &Opts,
                   std::vector<std::string> &Errors,
                   std::vector<std::string> &LibraryErrors)
      : TextDiagnosticPrinter(OS, Opts), Errors(Errors),
        LibraryErrors(LibraryErrors) {}
  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    TextDiagnosticPrinter::HandleDiagnostic(L, Info);
    if (L < DiagnosticsEngine::Error)
      return;
    SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    std::string Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc P = Info.getSourceManager().getPresumedLoc(
          Info.getSourceManager().getExpansionLoc(Info.getLocation()));
      if (P.isValid())
        Where = std::string(P.getFilename()) + ":" +
                std::to_string(P.getLine()) + ":" +
                std::to_string(P.getColumn()) + ": ";
    }
    std::string E = Where + "error: " + std::string(Msg);
    StringRef M = Msg;
    if (Info.getID() == diag::fatal_too_many_errors) {
      // The error limit has no location: it continues the errors before
      // it. After library errors only (a header library clang rejects in
      // many instantiations, e.g. FlashInfer's mla.cuh) it is one more of
      // them; after any error of the file's own code it is an error.
      (Errors.empty() && !LibraryErrors.empty() ? LibraryErrors : Errors)
          .push_back(std::move(E));
      return;
    }
    if (M.ends_with("file not found")) {
      E += " (" + missingHint(M) + ")";
    } else if (L == DiagnosticsEngine::Error && Info.hasSourceManager() &&
               Info.getLocation().isValid() &&
               Info.getSourceManager().isInSystemHeader(
                   Info.getSourceManager().getExpansionLoc(
                       Info.getLocation()))) {
      // Inside a system header (a library: -isystem, the toolkit): kept
      // apart; parseOnce decides whether they alone stand in the way.
      LibraryErrors.push_back(std::move(E));
      return;
    }
    Errors.push_back(std::move(E));
  }

private:
  std::vector<std::string> &Errors;
  std::vector<std::string> &LibraryErrors;
};

class LintActionFactory : public FrontendActionFactory {
public:
  LintActionFactory(const Policy &P, Model &M) : P(P), M(M) {}
  std::unique_ptr<FrontendAction> create() override {
    class Action : public ASTFrontendAction {
    public:
      Action(const Policy &P, Model &M) : P(P), M(M) {}
      std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                     StringRef) override {
        return createModelConsumer(CI, P, M);
      }

    private:
      const Policy &P;
      Model &M;
    };
    return std::make_unique<Action>(P, M);
  }

private:
  const Policy &P;
  Model &M;
};

/// Precompiled prefixes. A file whose first lines are only `#include <...>`
/// directives, one of them a PyTorch header, is parsed with a PCH of those
/// lines (built once per prefix and flag set, with templates instantiated in
/// the PCH). Parsing torch/extension.h then costs about 2 s instead of 20.
class PCHCache {
public:
  explicit PCHCache(std::string Dir) : Dir(std::move(Dir)) {}

  /// In-memory sources (from Python files) by absolute path.
  static std::mutex VirtualM;
  static StringMap<std::string> &virtualFiles() {
    static StringMap<std::string> V;
    return V;
  }

  /// The leading `#include <...>` lines of a file, if they include torch.
  static std::string heavyPrefix(StringRef File) {
    {
      std::lock_guard<std::mutex> Lock(VirtualM);
      auto It = virtualFiles().find(File);
      if (It != virtualFiles().end())
        return heavyPrefixOf(It->second);
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      return "";
    return heavyPrefixOf((*Buf)->getBuffer());
  }

  static std::string heavyPrefixOf(StringRef Text) {
    // Lines up to and including the last heavy include of the leading run.
    std::string Prefix, Kept;
    bool InComment = false;
    SmallVector<StringRef, 64> Lines;
    Text.split(Lines, '\n');
    for (StringRef L : Lines) {
      L = L.trim();
      if (InComment) {
        if (L.contains("*/"))
          InComment = false;
        continue;
      }
      if (L.empty() || L.starts_with("//"))
        continue;
      if (L.starts_with("/*")) {
        InComment = !L.contains("*/");
        continue;
      }
      if (L.starts_with("#pragma once"))
        continue;
      std::optional<std::pair<StringRef, bool>> Inc = includeDirective(L);
      if (!Inc || !Inc->second)
        break;
      StringRef Header = Inc->first;
      Prefix += "#include <" + Header.str() + ">\n";
      if (Header.starts_with("torch/") || Header.starts_with("ATen/") ||
          Header.starts_with("c10/") || Header.starts_with("pybind11/"))
        Kept = Prefix;
    }
    return Kept;
  }

  /// Path of the PCH for this prefix and these arguments, building it if
  /// needed; empty if it cannot be built (the file is then parsed without).
  std::string get(const std::string &Prefix,
                  const std::vector<std::string> &Args) {
    SHA256 H;
    H.update(Prefix);
    for (const std::string &A : Args)
      H.update(A + "\n");
    H.update(LLVM_VERSION_STRING);
    std::string Key = toHex(H.final(), /*LowerCase=*/true).substr(0, 24);
    std::shared_future<std::string> F;
    {
      std::lock_guard<std::mutex> Lock(M);
      auto It = Building.find(Key);
      if (It == Building.end()) {
        std::promise<std::string> P;
        F = P.get_future().share();
        Building.emplace(Key, F);
        P.set_value(build(Key, Prefix, Args));
      } else {
        F = It->second;
      }
    }
    return F.get();
  }

private:
  std::string build(const std::string &Key, const std::string &Prefix,
                    const std::vector<std::string> &Args) {
    std::string Pch = Dir + "/" + Key + ".pch";
    if (sys::fs::exists(Pch))
      return Pch;
    if (sys::fs::create_directories(Dir))
      return "";
    // The header is published once, atomically, and never rewritten: a PCH
    // records its header's mtime, so a second process rewriting the header
    // while the first one's PCH is in use invalidated it ("file has been
    // modified since the precompiled header was built", seen with parallel
    // lit workers). Write a private copy, then hard-link it into place; if
    // another process won, use its header (same key, same content).
    std::string Hdr = Dir + "/" + Key + ".h";
    if (!sys::fs::exists(Hdr)) {
      std::string HdrTmp =
          Hdr + ".tmp" + std::to_string(sys::Process::getProcessId());
      {
        std::error_code EC;
        raw_fd_ostream OS(HdrTmp, EC);
        if (EC)
          return "";
        OS << Prefix;
      }
      std::error_code LinkEC = sys::fs::create_hard_link(HdrTmp, Hdr);
      sys::fs::remove(HdrTmp);
      if (LinkEC && !sys::fs::exists(Hdr))
        return "";
    }
    std::string Tmp =
        Pch + ".tmp" + std::to_string(sys::Process::getProcessId());
    std::vector<std::string> CL;
    for (const std::string &A : Args)
      if (A != "-fsyntax-only")
        CL.push_back(A);
    CL.insert(CL.end(),
              {"-c", "-Xclang", "-fpch-instantiate-templates", "-o", Tmp, Hdr});
    IntrusiveRefCntPtr<FileManager> FM(
        new FileManager(FileSystemOptions(), vfs::getRealFileSystem()));
    IgnoringDiagConsumer Quiet;
    ToolInvocation Inv(CL, std::make_unique<GeneratePCHAction>(), FM.get());
    Inv.setDiagnosticConsumer(&Quiet);
    if (!Inv.run() || !sys::fs::exists(Tmp)) {
      sys::fs::remove(Tmp);
      return "";
    }
    if (sys::fs::rename(Tmp, Pch))
      return "";
    return Pch;
  }

  std::string Dir;
  std::mutex M;
  std::map<std::string, std::shared_future<std::string>> Building;
};
std::mutex PCHCache::VirtualM;

/// Compile commands for one file: from the database, or atrex's defaults.
class LintDatabase : public CompilationDatabase {
public:
  LintDatabase(const CompilationDatabase *Base, std::vector<std::string> Extra,
               bool Warnings, PCHCache *PCH)
      : Base(Base), Extra(std::move(Extra)), Warnings(Warnings), PCH(PCH) {}

  std::vector<CompileCommand>
  getCompileCommands(StringRef File) const override {
    const Toolchain &TC = detectToolchain();
    SmallString<256> Abs(File);
    sys::fs::make_absolute(Abs);
    std::vector<CompileCommand> Out;
    if (Base)
      for (CompileCommand C : Base->getCompileCommands(Abs)) {
        C.CommandLine = translateCommand(C.CommandLine, File, TC, Warnings);
        appendExtra(C.CommandLine, Abs);
        Out.push_back(std::move(C));
        break; // one command per file
      }
    if (Out.empty()) {
      // Relative paths in the extra arguments are relative to where
      // atrex-lint runs.
      SmallString<256> Dir;
      sys::fs::current_path(Dir);
      CompileCommand C(Dir, Abs, defaultArguments(File, TC, Warnings), "");
      appendExtra(C.CommandLine, Abs);
      Out.push_back(std::move(C));
    }
    return Out;
  }

private:
  void appendExtra(std::vector<std::string> &CL, StringRef File) const {
    // The user's include directories come before the ones atrex-lint found
    // itself (the first -isystem holding a header wins); everything else is
    // appended (a later -std or -D wins).
    std::vector<std::string> Front, Back;
    for (size_t I = 0; I < Extra.size(); ++I) {
      StringRef A = Extra[I];
      bool Inc = A.starts_with("-I") || A.starts_with("-isystem") ||
                 A.starts_with("-iquote") || A.starts_with("-idirafter");
      std::vector<std::string> &To = Inc ? Front : Back;
      To.push_back(Extra[I]);
      if (Inc &&
          (A == "-I" || A == "-isystem" || A == "-iquote" ||
           A == "-idirafter") &&
          I + 1 < Extra.size())
        To.push_back(Extra[++I]);
    }
    CL.insert(CL.empty() ? CL.end() : CL.begin() + 1, Front.begin(),
              Front.end());
    CL.insert(CL.end(), Back.begin(), Back.end());
    if (PCH) {
      std::string Prefix = PCHCache::heavyPrefix(File);
      if (!Prefix.empty()) {
        std::string Pch = PCH->get(Prefix, CL);
        if (!Pch.empty())
          CL.insert(CL.end(), {"-include-pch", Pch});
      }
    }
    CL.push_back(File.str());
  }
  const CompilationDatabase *Base;
  std::vector<std::string> Extra;
  bool Warnings;
  PCHCache *PCH;
};
} // namespace

/// The text of a source (in-memory for Python's extensions), at most 1 MB.
static std::string sourceText(StringRef File) {
  {
    std::lock_guard<std::mutex> Lock(PCHCache::VirtualM);
    auto It = PCHCache::virtualFiles().find(File);
    if (It != PCHCache::virtualFiles().end())
      return It->second;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
  if (!Buf)
    return "";
  return (*Buf)->getBuffer().take_front(1 << 20).str();
}

namespace {
/// A database that adds include directories before the file (inferred ones).
class ExtraIncludesDatabase : public CompilationDatabase {
public:
  ExtraIncludesDatabase(const CompilationDatabase &Base,
                        const std::vector<std::string> &Dirs,
                        const std::vector<std::string> &SystemDirs,
                        const std::vector<std::string> &Flags = {})
      : Base(Base), Dirs(Dirs), SystemDirs(SystemDirs), Extra(Flags) {}
  std::vector<CompileCommand>
  getCompileCommands(StringRef File) const override {
    std::vector<CompileCommand> Out = Base.getCompileCommands(File);
    for (CompileCommand &C : Out) {
      auto At =
          C.CommandLine.empty() ? C.CommandLine.end() : C.CommandLine.end() - 1;
      std::vector<std::string> Flags(Extra.begin(), Extra.end());
      for (const std::string &D : Dirs)
        Flags.push_back("-I" + D);
      C.CommandLine.insert(At, Flags.begin(), Flags.end());
      // A project's own copy of a library comes before the toolkit's.
      std::vector<std::string> Sys;
      for (const std::string &D : SystemDirs)
        Sys.push_back("-isystem" + D);
      if (!C.CommandLine.empty())
        C.CommandLine.insert(C.CommandLine.begin() + 1, Sys.begin(), Sys.end());
    }
    return Out;
  }

private:
  const CompilationDatabase &Base;
  const std::vector<std::string> &Dirs, &SystemDirs, &Extra;
};

/// The preprocessor flags (-D, -U, -I, -std=) with which a build script
/// beside \p File compiles it: a shell script or Makefile in the file's
/// directory with a compiler command (nvcc, hipcc, clang++, g++, ...,
/// $(NVCC), $(CXX)) that names the file, directly or through a variable the
/// script sets (`SRC=nbody-orig.cu` ... `nvcc -DSHMOO -o $EXE $SRC`).
/// \p Script is set to the script's name and \p Spelled to the flags as it
/// spells them. Empty when none does.
static std::vector<std::string>
buildScriptFlags(StringRef File, std::string &Script, std::string &Spelled) {
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  SmallString<256> Dir(Abs);
  sys::path::remove_filename(Dir);
  StringRef Base = sys::path::filename(Abs);
  std::vector<std::string> Scripts;
  std::error_code EC;
  unsigned Seen = 0;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (++Seen > 256)
      break;
    StringRef N = sys::path::filename(It->path());
    if (N.ends_with(".sh") || N == "Makefile" || N == "makefile" ||
        N == "GNUmakefile" || N.ends_with(".mk"))
      Scripts.push_back(It->path());
  }
  llvm::sort(Scripts);
  auto IsCompiler = [](StringRef Tok) {
    StringRef B = sys::path::filename(Tok);
    static const char *const Compilers[] = {
        "nvcc", "hipcc", "clang", "clang++", "gcc",        "g++",
        "c++",  "cc",    "nvc++", "icpx",    "amdclang++", "hipcc.pl"};
    if (llvm::is_contained(Compilers, B))
      return true;
    // $(NVCC), ${CXX}, $HIPCC, $(CUDA_CC)
    if (!Tok.consume_front("$"))
      return false;
    Tok = Tok.trim("(){}");
    return Tok.contains("CC") || Tok.contains("CXX");
  };
  for (const std::string &S : Scripts) {
    uint64_t Size = 0;
    if (sys::fs::file_size(S, Size) || Size > (256u << 10))
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(S);
    if (!Buf)
      continue;
    std::string Text = (*Buf)->getBuffer().str();
    // Continuation lines are one command.
    for (size_t At; (At = Text.find("\\\n")) != std::string::npos;)
      Text.replace(At, 2, " ");
    SmallVector<StringRef, 0> Lines;
    StringRef(Text).split(Lines, '\n');
    // Variables the script sets to a value naming the file.
    std::set<std::string> Naming;
    auto NamesFile = [&](StringRef Tok) {
      Tok = Tok.trim("\"'");
      return Tok == Base || Tok.ends_with(("/" + Base).str());
    };
    for (StringRef L : Lines) {
      L = L.trim();
      L.consume_front("export ");
      size_t Eq = L.find('=');
      if (Eq == StringRef::npos || Eq == 0)
        continue;
      StringRef Name = L.take_front(Eq).rtrim(" :+?");
      if (Name.empty() ||
          !llvm::all_of(Name, [](char C) { return isAlnum(C) || C == '_'; }))
        continue;
      SmallVector<StringRef, 8> Toks;
      L.drop_front(Eq + 1).split(Toks, ' ', -1, false);
      if (llvm::any_of(Toks, NamesFile))
        Naming.insert(Name.str());
    }
    for (StringRef L : Lines) {
      L = L.trim();
      if (L.starts_with("#"))
        continue;
      SmallVector<StringRef, 16> Toks;
      L.split(Toks, ' ', -1, false);
      bool Compiler = false, Names = false;
      for (StringRef T : Toks) {
        Compiler |= IsCompiler(T);
        Names |= NamesFile(T);
        StringRef V = T.trim("\"'");
        if (V.consume_front("$"))
          Names |= Naming.count(V.trim("(){}").str()) > 0;
      }
      if (!Compiler || !Names)
        continue;
      std::vector<std::string> Flags;
      for (size_t I = 0; I < Toks.size(); ++I) {
        StringRef T = Toks[I].trim("\"'");
        bool Split =
            (T == "-D" || T == "-U" || T == "-I") && I + 1 < Toks.size();
        std::string Flag = Split ? (T + Toks[++I].trim("\"'")).str() : T.str();
        StringRef F = Flag;
        if (F.contains('$') || F.contains('`'))
          continue;
        bool Kept = (F.starts_with("-D") || F.starts_with("-U") ||
                     F.starts_with("-I")) &&
                    F.size() > 2;
        Kept |= F.starts_with("-std=");
        if (Kept)
          Spelled += (Spelled.empty() ? "" : " ") + Flag;
        if ((F.starts_with("-D") || F.starts_with("-U")) && F.size() > 2) {
          Flags.push_back(Flag);
        } else if (F.starts_with("-I") && F.size() > 2) {
          SmallString<256> D(F.drop_front(2));
          if (!sys::path::is_absolute(D)) {
            SmallString<256> J(Dir);
            sys::path::append(J, D);
            D = J;
          }
          sys::path::remove_dots(D, true);
          Flags.push_back(("-I" + D).str());
        } else if (F.starts_with("-std=")) {
          Flags.push_back(Flag);
        }
      }
      if (!Flags.empty()) {
        Script = sys::path::filename(S).str();
        return Flags;
      }
      Spelled.clear();
    }
  }
  return {};
}

/// Third-party libraries that projects vend with their own copies: their
/// headers are system headers (their code is the library's, matched by the
/// policy, not the submission's), found through one marker header each.
static const char *const LibraryMarkers[][2] = {
    {"cub/", "cub/cub.cuh"},
    {"thrust/", "thrust/version.h"},
    {"cuda/", "cuda/std/version"},
    {"cutlass/", "cutlass/cutlass.h"},
    {"cute/", "cute/tensor.hpp"},
    {"cutlass/util/", "cutlass/util/host_tensor.h"},
    {"hipcub/", "hipcub/hipcub.hpp"},
    {"rocprim/", "rocprim/rocprim.hpp"}};

static bool isLibraryHeader(StringRef Header) {
  for (const auto &M : LibraryMarkers)
    if (Header.starts_with(M[0]))
      return true;
  return false;
}
} // namespace

std::vector<std::string> atrex::lint::inferIncludeDirs(StringRef File,
                                                       StringRef Missing) {
  // The folders builds conventionally put on the include path.
  static const char *const Conventional[] = {
      "",         "include", "Common",    "common",   "inc",
      "includes", "src",     "csrc",      "utils",    "util",
      "lib",      "helpers", "Utilities", "utilities"};
  std::vector<std::string> Out;
  if (Missing.empty() || sys::path::is_absolute(Missing) ||
      Missing.contains(".."))
    return Out;
  auto Add = [&](const Twine &Cand) {
    SmallString<256> C;
    Cand.toVector(C);
    sys::path::remove_dots(C, true);
    SmallString<256> F(C);
    sys::path::append(F, Missing);
    if (sys::fs::is_regular_file(F) && !llvm::is_contained(Out, std::string(C)))
      Out.push_back(std::string(C));
  };
  // The ancestors up to the repository root (or the home directory).
  std::vector<std::string> Ancestors = projectAncestors(File);
  // First the conventional folders of every ancestor (cuda-samples'
  // Common/ at the root wins over a sample directory's private copy)...
  for (const std::string &A : Ancestors)
    for (const char *Sub : Conventional)
      Add(*Sub ? Twine(A) + "/" + Sub : Twine(A));
  // ...then each sub-directory's include/ (a repository of several
  // libraries: libcudacxx/include, CUTLASS's tools/util/include) and the
  // sub-directories themselves.
  for (const std::string &A : Ancestors) {
    std::error_code EC;
    unsigned Seen = 0;
    for (sys::fs::directory_iterator It(A, EC), End; It != End && !EC;
         It.increment(EC)) {
      if (++Seen > 256)
        break;
      StringRef Name = sys::path::filename(It->path());
      if (Name.starts_with(".") ||
          It->type() != sys::fs::file_type::directory_file)
        continue;
      Add(It->path() + "/include");
      Add(It->path());
      std::error_code EC2;
      unsigned Seen2 = 0;
      for (sys::fs::directory_iterator J(It->path(), EC2), End2;
           J != End2 && !EC2 && ++Seen2 <= 64; J.increment(EC2))
        if (J->type() == sys::fs::file_type::directory_file &&
            !sys::path::filename(J->path()).starts_with("."))
          Add(J->path() + "/include");
    }
  }
  return Out;
}

static void parseOnce(StringRef File, const CompilationDatabase &DB,
                      const Policy &P, bool Color, Model &M,
                      std::string &Rendered, std::optional<StringRef> Content);

/// Calls spelled in the text of a file that did not compile (a vendor
/// library's headers missing, headers that disagree with the compiler)
/// whose names a delegation or evasion rule of the policy matches by name
/// alone. Comments, string literals and preprocessor lines are skipped;
/// member calls (`x.f(`) are not names a rule can judge.
static std::vector<Finding> nameEvidence(StringRef Text, StringRef File,
                                         const Policy &P, const Model &M) {
  std::vector<Finding> Out;
  // Names the AST resolved were judged there (with their arguments).
  std::set<std::string> Seen;
  for (auto &KV : M.Functions)
    for (const Site &S : KV.second.Sites)
      if (!S.Name.empty()) {
        Seen.insert(S.Name);
        Seen.insert(StringRef(S.Name).rsplit("::").second.str());
      }
  // What the file's project defines is its own, whatever its name looks
  // like (as the AST path decides with Site::ProjectDefined): the functions
  // the partial AST holds with a body in a project file, and the macros the
  // file defines (`CHECK_INPUT(x)` is not a call). Their namespaces are not:
  // a project's own examples of its device-level operators (Composable
  // Kernel's `ck::tensor_operation::device::DeviceGemm<...>`) still use them.
  std::set<std::string> Own;
  ProjectFiles Project(projectRoot(File));
  for (auto &KV : M.Functions) {
    const FunctionNode &F = KV.second;
    if (!F.HasBody || F.Name.empty() || F.Pos.File.empty() ||
        !Project.contains(F.Pos.File))
      continue;
    Own.insert(F.Name);
    Own.insert(StringRef(F.Name).rsplit("::").second.str());
  }
  for (size_t At = Text.find("#"); At != StringRef::npos;
       At = Text.find("#", At + 1)) {
    StringRef Rest = Text.substr(At + 1).ltrim(" \t");
    if (!Rest.consume_front("define"))
      continue;
    Rest = Rest.ltrim(" \t");
    size_t E = 0;
    while (E < Rest.size() && (isAlnum(Rest[E]) || Rest[E] == '_'))
      ++E;
    if (E)
      Own.insert(Rest.take_front(E).str());
  }
  // Keywords and operators spelled like a call (`if (`, `sizeof(`,
  // `static_cast<T>(`): a `using namespace` prefix must not make them a
  // library's names.
  static const std::set<StringRef> Keywords = {"if",
                                               "for",
                                               "while",
                                               "switch",
                                               "return",
                                               "sizeof",
                                               "alignof",
                                               "alignas",
                                               "decltype",
                                               "static_assert",
                                               "catch",
                                               "throw",
                                               "new",
                                               "delete",
                                               "typeid",
                                               "noexcept",
                                               "defined",
                                               "static_cast",
                                               "dynamic_cast",
                                               "reinterpret_cast",
                                               "const_cast",
                                               "asm",
                                               "__asm__",
                                               "__asm",
                                               "__attribute__",
                                               "__declspec",
                                               "__launch_bounds__",
                                               "__builtin_expect",
                                               "requires",
                                               "co_await",
                                               "co_return",
                                               "co_yield",
                                               "do",
                                               "else",
                                               "case",
                                               "goto",
                                               "explicit",
                                               "__has_include",
                                               "_Pragma",
                                               "__pragma",
                                               "operator",
                                               "template",
                                               "typename",
                                               "using",
                                               "namespace",
                                               "struct",
                                               "class",
                                               "union",
                                               "enum",
                                               "constexpr",
                                               "consteval",
                                               "constinit",
                                               "volatile",
                                               "const",
                                               "auto",
                                               "void",
                                               "int",
                                               "unsigned",
                                               "signed",
                                               "char",
                                               "short",
                                               "long",
                                               "float",
                                               "double",
                                               "bool"};
  // `using namespace cub;` lets `DeviceReduce::Sum(` name cub's.
  std::vector<std::string> Namespaces{""};
  for (size_t At = Text.find("using namespace"); At != StringRef::npos;
       At = Text.find("using namespace", At + 1)) {
    StringRef NS = Text.substr(At + 15).ltrim().split(';').first.trim();
    if (!NS.empty() && NS.size() < 64)
      Namespaces.push_back(NS.str() + "::");
  }
  // Namespaces the file opens are its project's own (ROCm/aiter's kernels
  // in `namespace aiter`): a library rule on that namespace's names
  // (`aiter::*`) does not make them delegation.
  std::vector<std::string> Opened;
  for (size_t At = Text.find("namespace"); At != StringRef::npos;
       At = Text.find("namespace", At + 9)) {
    if (At > 0 && (isAlnum(Text[At - 1]) || Text[At - 1] == '_'))
      continue;
    StringRef Rest = Text.substr(At + 9);
    if (Rest.empty() || !isSpace(Rest.front()))
      continue;
    Rest = Rest.ltrim();
    size_t E = 0;
    while (E < Rest.size() && (isAlnum(Rest[E]) || Rest[E] == '_'))
      ++E;
    StringRef After = Rest.drop_front(E);
    bool Opens = After.ltrim().starts_with("{") || After.starts_with("::");
    if (E == 0 || !Opens)
      continue;
    std::string NS = Rest.take_front(E).str() + "::";
    if (!llvm::is_contained(Opened, NS))
      Opened.push_back(NS);
  }
  unsigned Line = 1, Col = 1;
  size_t I = 0, N = Text.size();
  auto Advance = [&](size_t To) {
    for (; I < To && I < N; ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
  };
  bool LineStart = true;
  char Prev = 0; // last significant character before a name
  while (I < N) {
    char C = Text[I];
    if (C == '\n') {
      LineStart = true;
      Advance(I + 1);
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\r') {
      Advance(I + 1);
      continue;
    }
    if (LineStart && C == '#') { // a directive, with its continuations
      size_t E = I;
      while (E < N && Text[E] != '\n')
        E = (Text[E] == '\\' && E + 1 < N) ? E + 2 : E + 1;
      Advance(E);
      continue;
    }
    LineStart = false;
    if (Text.substr(I).starts_with("//")) {
      size_t E = Text.find('\n', I);
      Advance(E == StringRef::npos ? N : E);
      continue;
    }
    if (Text.substr(I).starts_with("/*")) {
      size_t E = Text.find("*/", I + 2);
      Advance(E == StringRef::npos ? N : E + 2);
      continue;
    }
    if (C == '"' || C == '\'') {
      size_t E = I + 1;
      while (E < N && Text[E] != C && Text[E] != '\n')
        E = Text[E] == '\\' ? E + 2 : E + 1;
      Advance(E + 1);
      Prev = C;
      continue;
    }
    if (isAlpha(C) || C == '_') {
      size_t B = I, E = I;
      unsigned L0 = Line, C0 = Col;
      for (;;) {
        while (E < N && (isAlnum(Text[E]) || Text[E] == '_'))
          ++E;
        if (Text.substr(E).starts_with("::") && E + 2 < N &&
            (isAlpha(Text[E + 2]) || Text[E + 2] == '_')) {
          E += 2;
          continue;
        }
        break;
      }
      std::string Name = Text.slice(B, E).str();
      Advance(E);
      size_t K = E;
      while (K < N && (Text[K] == ' ' || Text[K] == '\t'))
        ++K;
      bool Member = Prev == '.' || Prev == '>';
      Prev = 'a';
      // A call `f(`, or the template-id of a device-level operator class
      // (`cutlass::gemm::device::Gemm<...>`, used through a member call),
      // which counts only for delegation rules. Other template-ids name
      // functors and containers (`thrust::less<...>`): not compute.
      bool TemplateId = K < N && Text[K] == '<' &&
                        StringRef(Name).contains("::device::") && !Member;
      if (K >= N || (Text[K] != '(' && !TemplateId) || Member)
        continue;
      if (Keywords.count(Name) || Own.count(Name))
        continue;
      // The first argument, as far as the text tells: an integer literal
      // or EXIT_FAILURE, or a (qualified) name.
      StringRef Arg0 = Text.substr(K + 1).ltrim();
      size_t ArgEnd = 0;
      while (
          ArgEnd < Arg0.size() &&
          (isAlnum(Arg0[ArgEnd]) || Arg0[ArgEnd] == '_' || Arg0[ArgEnd] == ':'))
        ++ArgEnd;
      StringRef ArgTok = Arg0.take_front(ArgEnd);
      std::optional<int64_t> IntArg0;
      int64_t V;
      if (ArgTok == "EXIT_FAILURE")
        IntArg0 = 1;
      else if (ArgTok == "EXIT_SUCCESS")
        IntArg0 = 0;
      else if (!ArgTok.getAsInteger(0, V))
        IntArg0 = V;
      const SymbolRule *R = nullptr;
      std::string Resolved;
      for (const std::string &NS : Namespaces) {
        R = P.match(NS + Name, "", /*InDeviceCode=*/false);
        // Through `using namespace NS;`, an unqualified name is NS's only
        // if a rule names it beyond the namespace (`cub::Device*` for
        // `DeviceReduce::Sum`): a rule on all of NS (`flashinfer::*`)
        // would claim every macro, local and runtime call of the file.
        if (R && !NS.empty() &&
            P.match(NS + "atrex_no_such_name_", "", false) == R)
          R = nullptr;
        if (R) {
          Resolved = NS + Name;
          break;
        }
      }
      if (!R || R->Action == RuleAction::Allow || R->Check.empty())
        continue;
      if (TemplateId && R->Action != RuleAction::Delegate)
        continue;
      if (R->Action == RuleAction::Delegate &&
          llvm::any_of(Opened, [&](const std::string &NS) {
            return StringRef(Resolved).starts_with(NS);
          }))
        continue;
      if (R->exceptsCall(IntArg0, IntArg0 ? StringRef() : ArgTok))
        continue;
      if (Seen.count(Name) || Seen.count(Resolved) ||
          !Seen.insert(Resolved).second)
        continue;
      Name = Resolved;
      Finding F;
      F.Check = R->Check;
      F.Pos = {File.str(), L0, C0};
      F.Library = R->Library;
      F.Symbol = Name;
      F.Message =
          std::string(TemplateId ? "use of '" : "call to '") + Name + "' " +
          (R->Action == RuleAction::Delegate
               ? "delegates compute to " + R->Library
               : (findCheck(R->Check) ? findCheck(R->Check)->Phrase.str()
                                      : "matches rule '" + R->Id + "'")) +
          " (matched by name: the file did not compile, so its calls "
          "are not resolved)";
      Out.push_back(std::move(F));
      continue;
    }
    Prev = C == '-' && I + 1 < N && Text[I + 1] == '>' ? '>' : C;
    Advance(I + (Prev == '>' && C == '-' ? 2 : 1));
  }
  return Out;
}

/// Parses one file. Headers it includes that are not found are looked for
/// where its project's build would have put them (inferIncludeDirs, the way
/// clangd interpolates commands for files without one), and the file is
/// parsed again with those directories; a note names each one.
static void parseOne(StringRef File, const CompilationDatabase &DB,
                     const Policy &P, bool Color, Model &M,
                     std::string &Rendered,
                     std::optional<StringRef> Content = std::nullopt) {
  std::vector<std::string> Dirs, SystemDirs;
  std::string Notes;
  auto Note = [&](const std::string &D, StringRef Header, StringRef Why) {
    SmallString<256> Rel(D);
    SmallString<256> Cwd;
    if (!sys::fs::current_path(Cwd) && StringRef(D).starts_with(Cwd))
      Rel = StringRef(D).drop_front(Cwd.size()).ltrim('/');
    Notes += File.str() +
             ": note: atrex-lint inferred the include directory '" +
             (Rel.empty() ? "." : Rel.str().str()) + "' for '" + Header.str() +
             "' (" + Why.str() +
             "; pass -p or -- -I<dir> to set it) [atrex-include]\n";
  };
  // A project that ships its own copy of a library it includes as
  // <lib/...> (CUTLASS's include/, CCCL's cub/ and libcudacxx/include) is
  // built against that copy, not the toolkit's or site-packages' one.
  if (!Content) {
    std::string Text = sourceText(File);
    bool UsesLibrary = false;
    SmallVector<StringRef, 0> Lines;
    StringRef(Text).split(Lines, '\n');
    for (StringRef L : Lines) {
      std::optional<std::pair<StringRef, bool>> Inc = includeDirective(L);
      if (!Inc)
        continue;
      StringRef Header = Inc->first;
      if (isLibraryHeader(Header)) {
        UsesLibrary = true;
        break;
      }
    }
    // The whole family (CCCL's cub, thrust and libcudacxx; CUTLASS's
    // include/ and tools/util/include) from the project, or none of it.
    if (UsesLibrary)
      for (const auto &M : LibraryMarkers) {
        std::vector<std::string> Found = inferIncludeDirs(File, M[1]);
        if (Found.empty() || llvm::is_contained(SystemDirs, Found.front()))
          continue;
        SystemDirs.push_back(Found.front());
        Note(Found.front(), M[1], "the file's project ships its own copy");
      }
  }
  // A file that still does not compile is parsed once more with the flags
  // a build script beside it compiles it with (buildScriptFlags), and that
  // parse is kept when it has fewer errors.
  std::vector<std::string> BuildFlags;
  bool TriedBuild = false;
  std::optional<Model> Without;
  std::string WithoutText, BuildNote;
  for (unsigned Round = 0;; ++Round) {
    Model Try;
    std::string Text;
    ExtraIncludesDatabase WithDirs(DB, Dirs, SystemDirs, BuildFlags);
    parseOnce(File, WithDirs, P, Color, Try, Text, Content);
    bool Added = false;
    for (const std::string &E : Try.Errors) {
      if (Round >= 10)
        break;
      StringRef Missing = missingInclude(E);
      if (Missing.empty())
        continue;
      // The including file: the error's location.
      StringRef From = StringRef(E).split(": error:").first;
      From = From.rsplit(':').first.rsplit(':').first;
      if (From.empty())
        From = File;
      bool Library = isLibraryHeader(Missing);
      bool Found = false;
      for (const std::string &D : inferIncludeDirs(From, Missing)) {
        Found = true;
        if (llvm::is_contained(Dirs, D) || llvm::is_contained(SystemDirs, D))
          continue;
        (Library ? SystemDirs : Dirs).push_back(D);
        Note(D, Missing, "not found on the include path");
        Added = true;
        break;
      }
      // TVM-FFI's headers (tvm/ffi/..., and the dlpack/dlpack.h they
      // include) that the project does not ship: those of the installed
      // apache-tvm-ffi, as its build would take them (`tvm_ffi.libinfo`).
      if (!Found &&
          (Missing.starts_with("tvm/ffi/") || Missing.starts_with("dlpack/"))) {
        const Toolchain &TC = detectToolchain();
        for (const std::string &D : TC.TvmFfiIncludes) {
          if (llvm::is_contained(SystemDirs, D))
            continue;
          SystemDirs.push_back(D);
          bool Holds = sys::fs::exists(D + "/" + Missing.str());
          Note(D, Holds ? Missing : StringRef("dlpack/dlpack.h"),
               Holds ? "not found on the include path; the headers of the "
                       "installed PyPI apache-tvm-ffi"
                     : "what TVM-FFI's headers include; from the installed "
                       "PyPI apache-tvm-ffi");
          Added = true;
        }
      }
    }
    if (!Added && !Try.Errors.empty() && !Content && !TriedBuild) {
      TriedBuild = true;
      std::string Script, Spelled;
      BuildFlags = buildScriptFlags(File, Script, Spelled);
      if (!BuildFlags.empty()) {
        BuildNote = File.str() + ": note: atrex-lint took '" + Spelled +
                    "' from the build script '" + Script +
                    "' beside the file, which compiles it with them (it does "
                    "not compile without them; pass -p or -- <flags> to set "
                    "them) [atrex-build-flags]\n";
        Without = std::move(Try);
        WithoutText = std::move(Text);
        continue;
      }
    }
    if (!Added) {
      if (Without) {
        if (Try.Errors.size() < Without->Errors.size())
          Notes += BuildNote;
        else {
          Try = std::move(*Without);
          Text = std::move(WithoutText);
        }
      }
      M = std::move(Try);
      Rendered += Notes + Text;
      // Errors inside system headers only (a note) still mean an
      // instantiation the file caused failed, and with it the calls inside
      // it (pytorch-labs/applied-ai's cutlass_kernel.cu: CUTLASS's static
      // asserts, then no GemmUniversalAdapter call in the AST): the names
      // in the text count as for a file that did not compile.
      if ((!M.Errors.empty() || !M.LibraryErrors.empty()) && !Content) {
        SmallString<256> Abs(File);
        sys::fs::make_absolute(Abs);
        M.TextEvidence = nameEvidence(sourceText(File), Abs, P, M);
      }
      return;
    }
  }
}

static void parseOnce(StringRef File, const CompilationDatabase &DB,
                      const Policy &P, bool Color, Model &M,
                      std::string &Rendered, std::optional<StringRef> Content) {
  if (!Content && !sys::fs::exists(File)) {
    M.Files.push_back(File.str());
    M.Errors.push_back(File.str() +
                       ": error: no such file (atrex-lint cannot open it)");
    Rendered += M.Errors.back() + "\n";
    return;
  }
  StringRef Ext = sys::path::extension(File);
  if (Ext == ".ll" || Ext == ".bc") {
    M = buildModelFromIRFile(File, P);
    for (const std::string &E : M.Errors)
      Rendered += E + "\n";
    return;
  }
  raw_string_ostream OS(Rendered);
  DiagnosticOptions DiagOpts;
  DiagOpts.ShowColors = Color;
  // Sources from Python files carry #line directives to the Python lines.
  DiagOpts.ShowPresumedLoc = Content.has_value();
  std::vector<std::string> LibraryErrors;
  RecordingPrinter Printer(OS, DiagOpts, M.Errors, LibraryErrors);
  ClangTool Tool(DB, {File.str()});
  if (Content) {
    // A source extracted from a Python file: parsed from memory.
    Tool.mapVirtualFile(File, *Content);
    std::lock_guard<std::mutex> Lock(PCHCache::VirtualM);
    PCHCache::virtualFiles()[File] = Content->str();
  }
  scope_exit Unmap([&] {
    if (!Content)
      return;
    std::lock_guard<std::mutex> Lock(PCHCache::VirtualM);
    PCHCache::virtualFiles().erase(File);
  });
  Tool.setDiagnosticConsumer(&Printer);
  Tool.setPrintErrorMessage(false);
  LintActionFactory Factory(P, M);
  CrashRecoveryContext CRC;
  int RC = 0;
  bool OK = CRC.RunSafely([&] { RC = Tool.run(&Factory); });
  // Errors inside the bodies of kernels and device functions (where clang's
  // CUDA and nvcc disagree, e.g. intrinsics' overloads) leave what the host
  // side defines, launches and calls intact: they become notes.
  if (OK && !M.DeviceBodies.empty()) {
    std::vector<std::string> Host;
    for (std::string &E : M.Errors) {
      StringRef Where = StringRef(E).split(": error:").first;
      auto [PathLine, ColS] = Where.rsplit(':');
      auto [Path, LineS] = PathLine.rsplit(':');
      unsigned Line = 0;
      bool InDevice = false;
      if (!LineS.getAsInteger(10, Line))
        for (const Model::LineRange &R : M.DeviceBodies)
          InDevice |= R.File == Path && R.Begin <= Line && Line <= R.End;
      (InDevice ? M.DeviceErrors : Host).push_back(std::move(E));
    }
    M.Errors = std::move(Host);
    if (!M.DeviceErrors.empty())
      OS << File << ": note: " << M.DeviceErrors.size()
         << " compiler error(s) inside kernels or device functions (clang "
            "and nvcc disagree there); the host side was analysed "
            "[atrex-device-errors]\n";
    if (M.Errors.empty())
      RC = 0;
  }
  // Errors inside system headers only (library code that nvcc compiles and
  // clang rejects, e.g. a dependent template call without `template` in an
  // instantiation the submission caused): the submission's own code parsed,
  // what it defines, launches and calls is intact: a note. With any error in
  // the file's own code they stay errors (the verdict is unknown as before).
  if (OK && !LibraryErrors.empty()) {
    if (M.Errors.empty()) {
      OS << File << ": note: " << LibraryErrors.size()
         << " compiler error(s) inside system headers (library code clang "
            "rejects where nvcc does not); the file's own code was analysed "
            "[atrex-library-errors]\n";
      M.LibraryErrors = std::move(LibraryErrors);
      RC = 0;
    } else {
      M.Errors.insert(M.Errors.end(), LibraryErrors.begin(),
                      LibraryErrors.end());
    }
  }
  if (!OK) {
    M.Errors.push_back(File.str() +
                       ": error: the analysis crashed on this file");
    OS << M.Errors.back() << "\n";
  } else if (RC != 0 && M.Errors.empty()) {
    M.Errors.push_back(File.str() + ": error: clang could not process the "
                                    "file (see the diagnostics above)");
  }
  if (M.Files.empty())
    M.Files.push_back(File.str());
  OS.flush();
}

void Model::merge(Model &&O) {
  DeviceModule = (Functions.empty() || DeviceModule) && O.DeviceModule;
  UsesTorch |= O.UsesTorch;
  FromSource |= O.FromSource;
  Files.insert(Files.end(), O.Files.begin(), O.Files.end());
  Errors.insert(Errors.end(), O.Errors.begin(), O.Errors.end());
  DeviceErrors.insert(DeviceErrors.end(), O.DeviceErrors.begin(),
                      O.DeviceErrors.end());
  LibraryErrors.insert(LibraryErrors.end(), O.LibraryErrors.begin(),
                       O.LibraryErrors.end());
  DeviceBodies.insert(DeviceBodies.end(), O.DeviceBodies.begin(),
                      O.DeviceBodies.end());
  Unconditional.insert(Unconditional.end(), O.Unconditional.begin(),
                       O.Unconditional.end());
  TextEvidence.insert(TextEvidence.end(), O.TextEvidence.begin(),
                      O.TextEvidence.end());
  for (auto &KV : O.Functions) {
    auto It = Functions.find(KV.first);
    if (It == Functions.end()) {
      Functions.emplace(KV.first, std::move(KV.second));
      continue;
    }
    FunctionNode &A = It->second, &B = KV.second;
    // Inline functions and templates appear in several units: keep one body.
    if (A.HasBody && B.HasBody && A.Key != staticInitKey())
      continue;
    if (!A.HasBody && B.HasBody) {
      std::vector<Site> Extra = std::move(A.Sites);
      A = std::move(B);
      A.Sites.insert(A.Sites.end(), Extra.begin(), Extra.end());
      continue;
    }
    A.Sites.insert(A.Sites.end(), B.Sites.begin(), B.Sites.end());
  }
  for (auto &KV : O.Globals) {
    auto [It, New] = Globals.emplace(KV.first, KV.second);
    // An `extern` declaration carries no state; the defining unit does.
    if (!New && It->second.State.Name.empty())
      It->second.State = KV.second.State;
  }
}

static Expected<std::unique_ptr<CompilationDatabase>>
loadDatabase(const LintOptions &Opts) {
  std::unique_ptr<CompilationDatabase> Base;
  if (!Opts.CompileCommands.empty()) {
    std::string Err;
    StringRef CC = Opts.CompileCommands;
    if (sys::fs::is_directory(CC))
      Base = JSONCompilationDatabase::loadFromDirectory(CC, Err);
    else
      Base = JSONCompilationDatabase::loadFromFile(
          CC, Err, JSONCommandLineSyntax::AutoDetect);
    if (!Base)
      return createStringError(inconvertibleErrorCode(),
                               "atrex-lint: cannot load compilation database "
                               "'%s': %s",
                               CC.str().c_str(), Err.c_str());
  }
  return std::move(Base);
}

Expected<std::vector<std::string>>
atrex::lint::commandFor(StringRef File, const LintOptions &Opts) {
  Expected<std::unique_ptr<CompilationDatabase>> Base = loadDatabase(Opts);
  if (!Base)
    return Base.takeError();
  LintDatabase DB(Base->get(), Opts.ExtraArgs, Opts.CompilerWarnings,
                  /*PCH=*/nullptr);
  return DB.getCompileCommands(File).front().CommandLine;
}

/// runLint with every task (a file, or the whole submission) in a child
/// process under Opts.Limits: a task that crashes, hangs or takes all memory
/// becomes a result with verdict `unknown` naming what stopped it.
static Expected<std::vector<SubmissionResult>>
runIsolated(const LintOptions &Opts, const Policy &P,
            const std::vector<std::string> &Files) {
  bool Whole = !Opts.Submission.empty();
  size_t Tasks = Whole ? 1 : Files.size();
  unsigned Jobs =
      Opts.Jobs ? Opts.Jobs : hardware_concurrency().compute_thread_count();
  detectToolchain(); // once, inherited by every child
  // The precompiled torch prefixes first, each once (in-process, the cache
  // shares a PCH being built between threads; children would each build
  // their own): in a child of its own, so that the limits hold for it too.
  if (!Opts.PCHDir.empty()) {
    Expected<std::unique_ptr<CompilationDatabase>> Base = loadDatabase(Opts);
    if (!Base) {
      consumeError(Base.takeError());
    } else {
      runInChildren(1, 1, Opts.Limits, [&](size_t) -> std::string {
        PCHCache PCH(Opts.PCHDir);
        LintDatabase DB(Base->get(), Opts.ExtraArgs, Opts.CompilerWarnings,
                        &PCH);
        for (const std::string &F : Files)
          if (!isPythonFile(F))
            DB.getCompileCommands(F);
        return "";
      });
    }
  }
  std::vector<ChildOutcome> Outcomes = runInChildren(
      Tasks, Whole ? 1 : Jobs, Opts.Limits, [&](size_t I) -> std::string {
        LintOptions Sub = Opts;
        Sub.Isolate = false;
        if (!Whole) {
          Sub.Files = {Files[I]};
          Sub.Jobs = 1;
        }
        Expected<std::vector<SubmissionResult>> R = runLint(Sub, P);
        json::Array A;
        if (!R) {
          // Reported by the parent as this task's error.
          A.push_back(json::Object{{"error", toString(R.takeError())}});
        } else {
          for (const SubmissionResult &S : *R)
            A.push_back(submissionToJSON(S, /*Complete=*/true));
        }
        std::string Text;
        raw_string_ostream OS(Text);
        OS << json::Value(std::move(A));
        return Text;
      });

  std::vector<SubmissionResult> Results;
  for (size_t I = 0; I < Tasks; ++I) {
    std::string Name = Whole ? Opts.Submission : Files[I];
    auto Failed = [&](const std::string &Why) {
      SubmissionResult R;
      R.Path = Name;
      R.Files = Whole ? Files : std::vector<std::string>{Files[I]};
      R.Errors.push_back("atrex-lint: the analysis of '" + Name + "' " + Why);
      R.Seconds = Outcomes[I].Seconds;
      R.ModeReason.clear();
      decideVerdict(R);
      Results.push_back(std::move(R));
    };
    if (!Outcomes[I].OK) {
      Failed(Outcomes[I].Failure);
      continue;
    }
    Expected<json::Value> V = json::parse(Outcomes[I].Output);
    const json::Array *A = V ? V->getAsArray() : nullptr;
    if (!V)
      consumeError(V.takeError());
    if (!A) {
      Failed("returned an unreadable result");
      continue;
    }
    for (const json::Value &E : *A) {
      if (const json::Object *O = E.getAsObject())
        if (std::optional<StringRef> Err = O->getString("error")) {
          Failed("failed: " + Err->str());
          continue;
        }
      Expected<SubmissionResult> R = submissionFromJSON(E);
      if (!R) {
        Failed("returned an unreadable result: " + toString(R.takeError()));
        continue;
      }
      Results.push_back(std::move(*R));
    }
  }
  return Results;
}

Expected<std::vector<SubmissionResult>>
atrex::lint::runLint(const LintOptions &Opts, const Policy &P) {
  if (Opts.Isolate) {
    Expected<std::unique_ptr<CompilationDatabase>> BaseOr = loadDatabase(Opts);
    if (!BaseOr)
      return BaseOr.takeError();
    std::vector<std::string> Files = Opts.Files;
    if (*BaseOr && Files.empty())
      Files = (*BaseOr)->getAllFiles();
    if (Files.empty())
      return createStringError(inconvertibleErrorCode(),
                               "atrex-lint: no input files");
    LintOptions Sub = Opts;
    Sub.Files = Files;
    return runIsolated(Sub, P, Files);
  }
  Expected<std::unique_ptr<CompilationDatabase>> BaseOr = loadDatabase(Opts);
  if (!BaseOr)
    return BaseOr.takeError();
  std::unique_ptr<CompilationDatabase> Base = std::move(*BaseOr);
  std::vector<std::string> Files = Opts.Files;
  if (Base && Files.empty())
    Files = Base->getAllFiles();
  if (Files.empty())
    return createStringError(inconvertibleErrorCode(),
                             "atrex-lint: no input files");
  std::unique_ptr<PCHCache> PCH;
  if (!Opts.PCHDir.empty())
    PCH = std::make_unique<PCHCache>(Opts.PCHDir);
  LintDatabase DB(Base.get(), Opts.ExtraArgs, Opts.CompilerWarnings, PCH.get());
  detectToolchain(); // once, before the threads start

  struct PerFile {
    Model M;
    std::string Rendered;
    double Seconds = 0;
    std::optional<SubmissionResult> Python; ///< a .py file, already analysed
  };
  std::vector<PerFile> Out(Files.size());
  unsigned Jobs = Opts.Jobs
                      ? Opts.Jobs
                      : llvm::hardware_concurrency().compute_thread_count();
  auto Work = [&](size_t I) {
    auto T0 = std::chrono::steady_clock::now();
    if (isPythonFile(Files[I]))
      Out[I].Python = lintPythonFile(
          Files[I], P, Opts.Analysis,
          [&](StringRef Path, StringRef Content, Model &M, std::string &R) {
            parseOne(Path, DB, P, Opts.Color, M, R, Content);
          });
    else
      parseOne(Files[I], DB, P, Opts.Color, Out[I].M, Out[I].Rendered);
    Out[I].Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
  };
  CrashRecoveryContext::Enable();
  if (Jobs <= 1 || Files.size() == 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Work(I);
  } else {
    DefaultThreadPool Pool(hardware_concurrency(Jobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Work(I); });
    Pool.wait();
  }

  std::vector<SubmissionResult> Results;
  if (!Opts.Submission.empty()) {
    Model All;
    std::string Rendered;
    double Seconds = 0;
    std::vector<SubmissionResult> PythonResults; // analysed on their own
    for (size_t I = 0; I < Out.size(); ++I) {
      PerFile &F = Out[I];
      if (F.Python) {
        F.Python->Path = Files[I];
        if (Opts.PythonEvidence)
          Opts.PythonEvidence(*F.Python, Files[I], P);
        F.Python->Seconds = F.Seconds;
        PythonResults.push_back(std::move(*F.Python));
        continue;
      }
      All.merge(std::move(F.M));
      Rendered += F.Rendered;
      Seconds += F.Seconds;
    }
    SubmissionResult R = analyze(All, P, Opts.Analysis);
    R.Path = Opts.Submission;
    R.Rendered = std::move(Rendered);
    R.Seconds = Seconds;
    Results.push_back(std::move(R));
    for (SubmissionResult &PR : PythonResults)
      Results.push_back(std::move(PR));
    return Results;
  }
  for (size_t I = 0; I < Files.size(); ++I) {
    SubmissionResult R = Out[I].Python ? std::move(*Out[I].Python)
                                       : analyze(Out[I].M, P, Opts.Analysis);
    R.Path = Files[I];
    if (!Out[I].Python)
      R.Rendered = std::move(Out[I].Rendered);
    R.Seconds = Out[I].Seconds;
    if (Out[I].Python && Opts.PythonEvidence) {
      auto T0 = std::chrono::steady_clock::now();
      Opts.PythonEvidence(R, Files[I], P);
      R.Seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
              .count();
    }
    Results.push_back(std::move(R));
  }
  return Results;
}

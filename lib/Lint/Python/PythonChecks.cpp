//===- PythonChecks.cpp - checks only Python submissions need -------------===//

#include "PythonChecks.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/PythonFrontend.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
/// Attributes of the model and module globals written by code the entry
/// reaches keep state between calls; when they can hold tensors (or are
/// containers written by key) they can cache outputs. `__init__` is setup.
class PythonStateCheck : public LintCheck {
public:
  explicit PythonStateCheck(const PythonFacts &Facts) : Facts(Facts) {}
  StringRef name() const override { return "atrex-evasion-static-state"; }
  void run(CheckContext &Ctx) override {
    for (const FunctionNode *F : Ctx.Reachable) {
      auto It = Facts.Functions.find(F->Key);
      if (It == Facts.Functions.end())
        continue;
      for (const PythonFunctionFacts::StateWrite &W : It->second.StateWrites) {
        Finding Fd;
        Fd.Check = name().str();
        Fd.Pos = W.Pos;
        Fd.Symbol = W.Name;
        Fd.CallPath = Ctx.pathTo(F);
        Fd.Library = "static state";
        if (W.What == "memoised result")
          Fd.Message = "'" + W.Name +
                       "' memoises results between calls of the entry" +
                       (W.Risky ? " and can cache outputs"
                                : " (it takes and returns no tensors)");
        else
          Fd.Message = W.What + " '" + W.Name +
                       "' is written by the entry and keeps state between "
                       "calls" +
                       (W.Risky ? " and can cache outputs" : "");
        Ctx.report(std::move(Fd), W.Risky ? Severity::Error : Severity::Note);
      }
    }
  }

private:
  const PythonFacts &Facts;
};

/// Work issued on a side stream that the same function never joins back to
/// the current stream escapes the harness's timer.
class PythonSideStreamCheck : public LintCheck {
public:
  explicit PythonSideStreamCheck(const PythonFacts &Facts) : Facts(Facts) {}
  StringRef name() const override { return "atrex-evasion-side-stream"; }
  void run(CheckContext &Ctx) override {
    for (const FunctionNode *F : Ctx.Reachable) {
      auto It = Facts.Functions.find(F->Key);
      if (It == Facts.Functions.end() || It->second.Joins)
        continue;
      for (const PythonFunctionFacts::StreamUse &U : It->second.StreamUses) {
        Finding Fd;
        Fd.Check = name().str();
        Fd.Pos = U.Pos;
        Fd.Symbol = U.Name;
        Fd.CallPath = Ctx.pathTo(F);
        Fd.Library = "side stream";
        Fd.Message = "stream used through '" + U.Name +
                     "' is never joined back (no synchronize, wait_stream or "
                     "wait_event in the same function): its work can escape "
                     "the timer";
        Ctx.report(std::move(Fd));
      }
    }
  }

private:
  const PythonFacts &Facts;
};

SymbolRule rule(StringRef Id, RuleAction A, StringRef Check, StringRef Library,
                std::vector<std::string> Symbols,
                std::vector<std::string> Except = {}) {
  SymbolRule R;
  R.Id = Id.str();
  R.Action = A;
  R.Check = Check.str();
  R.Library = Library.str();
  R.Context = RuleContext::Any;
  R.Symbols = std::move(Symbols);
  R.Except = std::move(Except);
  return R;
}
} // namespace

std::vector<std::unique_ptr<LintCheck>>
atrex::lint::createPythonChecks(const PythonFacts &Facts) {
  std::vector<std::unique_ptr<LintCheck>> V;
  V.push_back(std::make_unique<PythonStateCheck>(Facts));
  V.push_back(std::make_unique<PythonSideStreamCheck>(Facts));
  return V;
}

/// The Python rules (docs/python-frontend.md). Names are Python's dotted
/// names with `::` for `.`, as the default policy spells C++ names.
static std::vector<SymbolRule> pythonRules() {
  const RuleAction Allow = RuleAction::Allow, Delegate = RuleAction::Delegate,
                   Evasion = RuleAction::Evasion;
  std::vector<SymbolRule> Rs;
  Rs.push_back(rule(
      "python-torch-glue", Allow, "", "PyTorch",
      {"torch::utils::cpp_extension::*", "torch::device", "torch::Size",
       "torch::dtype", "torch::is_tensor", "torch::no_grad",
       "torch::inference_mode", "torch::get_default_dtype", "torch::finfo",
       "torch::get_device_module", "torch::get_device", "torch::accelerator::*",
       "torch::iinfo", "torch::set_grad_enabled", "torch::manual_seed",
       "torch::nn::Module::*", "torch::nn::Parameter", "torch::numel",
       "torch::backends::*", "torch::library::*", "torch::_C::_cuda_*",
       "at::Tensor::new_empty", "at::Tensor::new_empty_strided",
       "at::Tensor::tolist", "at::Tensor::type", "at::Tensor::nelement",
       "at::Tensor::untyped_storage", "at::Tensor::numpy",
       "at::Tensor::dim_order", "at::Tensor::view_as"}));
  // The function forms of the tensor views the default policy allows as
  // methods (`torch.squeeze(x)` is `x.squeeze()`).
  Rs.push_back(rule(
      "python-torch-views", Allow, "", "PyTorch",
      {"torch::squeeze", "torch::unsqueeze", "torch::reshape",
       "torch::flatten", "torch::unflatten", "torch::permute",
       "torch::transpose", "torch::t", "torch::narrow", "torch::select",
       "torch::chunk", "torch::split", "torch::unbind", "torch::as_strided",
       "torch::view_as_real", "torch::view_as_complex", "torch::movedim",
       "torch::swapaxes", "torch::swapdims"}));
  Rs.push_back(rule("python-side-stream", Allow, "", "PyTorch",
                    {"torch::cuda::Stream", "torch::cuda::stream",
                     "torch::cuda::current_stream", "torch::cuda::Event"}));
  Rs.push_back(rule("python-process", Evasion, "atrex-evasion-process",
                    "process or thread",
                    {"threading::*", "_thread::*", "concurrent::futures::*",
                     "multiprocessing::*", "torch::multiprocessing::*",
                     "subprocess::*", "os::system", "os::popen", "os::fork",
                     "os::setsid", "os::setpgid", "os::exec*", "os::spawn*", "os::posix_spawn*",
                     "asyncio::create_subprocess_*", "asyncio::to_thread",
                     "pty::spawn"}));
  // Reading a package's installed version loads none of its code.
  Rs.push_back(rule("python-package-metadata", Allow, "", "package metadata",
                    {"importlib::metadata::version",
                     "importlib::metadata::PackageNotFoundError"}));
  Rs.push_back(rule("python-dynamic-load", Evasion,
                    "atrex-evasion-dynamic-load", "dynamic loader",
                    // ctypes' loaders and calls through raw addresses (its
                    // scalar types, c_float(...) for kernel arguments, are
                    // not loading).
                    {"ctypes::CDLL", "ctypes::PyDLL", "ctypes::WinDLL",
                     "ctypes::OleDLL", "ctypes::LibraryLoader",
                     "ctypes::cdll::*", "ctypes::pydll::*", "ctypes::windll::*",
                     "ctypes::oledll::*", "ctypes::pythonapi::*",
                     "ctypes::CFUNCTYPE", "ctypes::PYFUNCTYPE",
                     "ctypes::WINFUNCTYPE", "ctypes::cast",
                     "ctypes::util::find_library", "cffi::*", "importlib::*",
                     "__import__",
                     "torch::ops::load_library", "torch::classes::load_library",
                     "sys::modules::*"}));
  Rs.push_back(rule("python-module-load", Evasion, "atrex-evasion-module-load",
                    "module loader",
                    {"cupy::RawModule", "cupy::cuda::function::Module",
                     "pycuda::driver::module_from_*", "*::cuModuleLoad*",
                     "*::hipModuleLoad*", "*::hiprtcLink*",
                     "*::cuLibraryLoad*", "*::cudaLibraryLoad*"}));
  Rs.push_back(rule("python-runtime-compile", Evasion,
                    "atrex-evasion-runtime-compile", "run-time compiler",
                    {"exec", "eval", "compile", "cupy::RawKernel",
                     "cupy::ElementwiseKernel", "cupy::ReductionKernel",
                     "pycuda::compiler::*", "*::nvrtc::*", "*::nvrtc*",
                     "*::hiprtc::*", "*::hiprtc*",
                     "torch::cuda::jiterator::*", "numba::cuda::jit"}));
  Rs.push_back(rule("python-file-env", Evasion, "atrex-evasion-file-env",
                    "file or environment access",
                    {"open", "io::open", "os::getenv", "os::putenv",
                     "os::environ::*", "os::listdir", "os::scandir",
                     "os::remove", "os::unlink", "pathlib::*", "shutil::*",
                     "pickle::*", "numpy::load", "numpy::save", "torch::load",
                     "torch::save", "json::load", "json::dump", "glob::*",
                     "tempfile::*"}));
  Rs.push_back(rule("python-harness-io", Evasion, "atrex-evasion-harness-io",
                    "raw descriptor output or process exit",
                    {"os::write", "os::pwrite", "os::writev", "os::dup",
                     "os::dup2", "os::fdopen", "os::_exit", "os::abort",
                     "os::kill", "sys::exit", "exit", "quit", "signal::raise_signal"}));
  Rs.push_back(rule("python-vendor", Delegate, "atrex-delegation-vendor",
                    "vendor library (Python)",
                    {"flash_attn::*", "xformers::*", "apex::*",
                     "transformer_engine::*", "deep_gemm::*", "sgl_kernel::*",
                     "vllm::*", "liger_kernel::*", "bitsandbytes::*",
                     "cupy::*", "cublas::*", "nvidia::cublas::*",
                     "cuda::bindings::cublas*"}));
  return Rs;
}

/// Program mode only (docs/python-frontend.md): what a script's `__main__`
/// does around the kernel it runs.
static std::vector<SymbolRule> programRules() {
  std::vector<SymbolRule> Rs;
  Rs.push_back(rule(
      "python-program-inputs", RuleAction::Allow, "", "PyTorch",
      {"torch::randn", "torch::rand", "torch::randint", "torch::randn_like",
       "torch::rand_like", "torch::randint_like", "torch::randperm",
       "torch::arange", "torch::manual_seed", "torch::seed",
       "torch::random::*", "torch::cuda::manual_seed*",
       "torch::testing::make_tensor", "at::Tensor::normal_",
       "at::Tensor::uniform_", "at::Tensor::random_"}));
  Rs.push_back(rule(
      "python-program-checks", RuleAction::Allow, "", "PyTorch",
      {"torch::allclose", "torch::isclose", "torch::equal",
       "torch::testing::assert_close", "torch::testing::assert_allclose",
       "at::Tensor::allclose", "at::Tensor::isclose", "at::Tensor::equal"}));
  return Rs;
}

Policy atrex::lint::pythonProgramPolicy(const Policy &PyP) {
  auto It = std::find_if(PyP.Rules.begin(), PyP.Rules.end(),
                         [](const SymbolRule &R) {
                           return R.Id == "python-torch-glue";
                         });
  if (It == PyP.Rules.end())
    return PyP;
  Policy Out = PyP;
  std::vector<SymbolRule> Pr = programRules();
  Out.Rules.insert(Out.Rules.begin() + (It - PyP.Rules.begin()), Pr.begin(),
                   Pr.end());
  if (Error E = Out.compile()) {
    consumeError(std::move(E));
    return PyP;
  }
  return Out;
}

Policy atrex::lint::pythonPolicy(const Policy &P) {
  Policy Out = P;
  const std::vector<SymbolRule> &Def = Policy::getDefault().Rules;
  if (Def.empty())
    return Out;
  auto It = std::find_if(Out.Rules.begin(), Out.Rules.end(),
                         [&](const SymbolRule &R) {
                           return R.Id == Def.front().Id;
                         });
  if (It == Out.Rules.end())
    return Out; // inherit: none: the file is the whole policy
  std::vector<SymbolRule> Py = pythonRules();
  Out.Rules.insert(It, Py.begin(), Py.end());
  if (Error E = Out.compile()) {
    consumeError(std::move(E)); // the built-in rules are valid
    return P;
  }
  return Out;
}

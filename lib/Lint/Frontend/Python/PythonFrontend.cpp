//===- PythonFrontend.cpp - atrex-lint for Python submissions -------------===//
//
// Builds the lint model of a Python submission. Every function and method
// becomes a FunctionNode (`py:` keys), every call a Site whose name follows
// the C++ spelling the policy is written in (`torch.matmul` ->
// `torch::matmul`, a tensor method -> `at::Tensor::sum`, an operator on
// tensors -> `at::operator+`), `@triton.jit` functions are kernels and
// `kernel[grid](...)` launches them. The sources of `load_inline`/`load`
// are parsed by the C++ front end and merged by USR; calls of the
// extension's functions from Python are linked to their C++ definitions.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/PythonFrontend.h"
#include "PythonChecks.h"
#include "PythonSyntax.h"
#include "atrex/Lint/Check.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace llvm;
using namespace atrex::lint;
using namespace atrex::lint::python;

bool atrex::lint::isPythonFile(StringRef Path) {
  return sys::path::extension(Path) == ".py";
}

namespace {

/// What a Python expression denotes, as far as the front end can tell.
struct Ref {
  enum Kind {
    None,
    Qualified,    ///< S: dotted name of something imported (or a builtin)
    OwnFunction,  ///< S: function key
    OwnClass,     ///< S: class name
    OwnInstance,  ///< S: class name (an instance of an own nn.Module)
    Extension,    ///< S: extension index
    ExtFunction,  ///< S: extension index, Member: function name
    TorchLayer,   ///< S: dotted class name of a torch.nn layer instance
    TritonKernel, ///< S: function key (a kernel: Triton, CuTe DSL, cupyx.jit,
                  ///< TileLang)
    KernelHandle, ///< S: kernel key: a compiled kernel, calling it launches
                  ///< (`tilelang.compile(f)`, a `@tilelang.jit` factory's
                  ///< result)
    CupyArray,    ///< a CuPy array (result of `cupy.*`): not a torch tensor
    KernelLaunch, ///< S: kernel key: a FlyDSL/CuTe DSL kernel applied to its
                  ///< arguments (`l = k(args)`), whose `.launch(...)` launches
    Profiler,     ///< S: kernel key: a TileLang kernel's `get_profiler()`,
                  ///< whose `assert_allclose`/`do_bench` run the kernel
    Tensor,       ///< known to be a tensor
    MaybeTensor,  ///< an untyped parameter nothing shows to be a tensor
    OwnExternal,  ///< S: dotted name in the submission's own package
    Stream,
    SelfObj,
    AutogradCtx, ///< `ctx` of a torch.autograd.Function method
  } K = None;
  std::string S;
  std::string Member;
  static Ref of(Kind K, std::string S = "", std::string M = "") {
    Ref R;
    R.K = K;
    R.S = std::move(S);
    R.Member = std::move(M);
    return R;
  }
};

struct PyFunc {
  std::string Key, Name, Class;
  /// The name without the module prefix (`f`, `Cls.m`, `outer.k`): what the
  /// names of definitions nested in it start with.
  std::string Local;
  PyNode Def; ///< function_definition
  std::vector<PyNode> Decorators;
  bool Triton = false; ///< a kernel (device code: its body is not host code)
  std::string Dsl;     ///< a kernel's language (Dsls.def)
  /// A kernel that a plain call launches: a TileLang `@tilelang.jit`
  /// function whose own body opens `T.Kernel` (eager style: calling it
  /// compiles and launches it), a cupyx.jit `@rawkernel`.
  bool LaunchOnCall = false;
  /// TileLang: a `@tilelang.jit` function that builds and returns a
  /// `@T.prim_func`: calling it returns the compiled kernel (a handle whose
  /// call launches); under `@autotune` the call also runs it.
  bool JitFactory = false, Autotuned = false;
  /// An eager TileLang kernel: its call returns its outputs (tensors).
  bool ReturnsOutputs = false;
  /// A device helper the kernels call (TileLang's `@T.macro`): device code,
  /// neither a kernel nor an entry.
  bool Device = false;
  /// A DSL's traced host function (FlyDSL's `@flyc.jit`): host code that
  /// launches kernels. Defined in a builder function, it is a node of its
  /// own (as a kernel is) that the builder may return to its callers
  /// (`self._launch = make_gemm(K)`, then `self._launch(a, b, c)`).
  bool JitHost = false;
  /// Defined inside another function (a kernel or a class's method there).
  bool Nested = false;
  /// What the function returns when that is a kernel or a compiled kernel
  /// (`def build(): @triton.jit def k(...): ...; return k`), for its callers.
  Ref Returns;
  /// Returns is element ReturnsIndex of a returned tuple (`return launch,
  /// meta`), or -1 when it is the whole value.
  int ReturnsIndex = -1;
  bool Module = false; ///< defined at module level
  bool Static = false; ///< @staticmethod: no `self`
  /// The `if __name__ == "__main__":` block of a script: a pseudo-function
  /// (`__main__`) whose body is the block, a program's entry.
  bool Main = false;
  PyNode Body; ///< the block (Main only); the first statement (Script)
  /// A script's module-level code (`<module>`): the top-level statements
  /// other than definitions and imports, in a file with no `__main__` block
  /// whose top level calls things (hip-python, cuda-python samples).
  bool Script = false;
  /// Parameters promoted to tensors because a caller passes a tensor, and
  /// those a caller passes a tensor or an unknown value.
  std::set<std::string> TensorParams, TensorishArgs;
  /// Parameters a caller passes a CuPy array in; a compiled kernel in (its
  /// kernel's key).
  std::set<std::string> CupyParams;
  std::map<std::string, std::string> HandleParams;
};

struct PyClass {
  std::string Name;
  PyNode Def;
  std::vector<std::string> Bases;             ///< own classes
  std::vector<std::string> QualBases;         ///< imported bases (dotted)
  std::map<std::string, std::string> Methods; ///< name -> key
  std::map<std::string, Ref> Attrs;           ///< set in __init__ / class body
};

struct ExtensionInfo {
  std::string Name;
  PyNode Call;
  bool Inline = true;
  std::vector<PyString> CppSources, CudaSources;
  std::vector<std::string> Files; ///< load(sources=[...])
  std::vector<std::string> Functions;
  std::vector<std::string> Problems;
};

const char *const NonTensorMethods[] = {"size",       "dim",
                                        "ndimension", "numel",
                                        "nelement",   "item",
                                        "data_ptr",   "stride",
                                        "tolist",     "element_size",
                                        "get_device", "is_contiguous",
                                        "is_cuda",    "storage_offset",
                                        "type",       "untyped_storage",
                                        "nbytes",     "itemsize",
                                        "__len__",    "is_floating_point",
                                        "is_complex", "numpy",
                                        "dim_order",  "is_pinned"};

const char *const NonTensorAttrs[] = {
    "shape",         "dtype",   "device", "ndim",     "is_cuda", "layout",
    "requires_grad", "grad_fn", "names",  "itemsize", "nbytes"};

/// Python containers' methods are never tensor compute.
const char *const ContainerMethods[] = {
    "append", "extend",     "insert",   "pop",        "items",  "keys",
    "values", "get",        "update",   "setdefault", "format", "join",
    "strip",  "startswith", "endswith", "lower",      "upper",  "encode",
    "decode", "copy",       "count",    "index",      "remove", "clear",
    "sort",   "reverse",    "popitem"};

template <size_t N> bool oneOf(StringRef S, const char *const (&List)[N]) {
  for (const char *E : List)
    if (S == E)
      return true;
  return false;
}

std::string cxxName(StringRef Dotted) {
  std::string S;
  SmallVector<StringRef, 8> Parts;
  Dotted.split(Parts, '.');
  for (size_t I = 0; I < Parts.size(); ++I)
    S += (I ? "::" : "") + Parts[I].str();
  return S;
}

bool isTorchLayerClass(StringRef Q) {
  if (!Q.starts_with("torch.nn."))
    return false;
  StringRef Last = Q.rsplit('.').second;
  if (Last.empty() || !isUpper(Last.front()))
    return false;
  return !(Last == "Parameter" || Last == "Module" || Last == "ParameterList" ||
           Last == "ParameterDict" || Last == "Buffer");
}

/// torch.* calls that return no tensor (for the tensor-ness of values):
/// device and version queries among them (`torch.xpu.get_device_properties`,
/// `torch.get_device_module()`).
bool torchReturnsNonTensor(StringRef Q) {
  return Q.starts_with("torch.cuda.") || Q.starts_with("torch.utils.") ||
         Q.starts_with("torch.xpu.") || Q.starts_with("torch.mps.") ||
         Q.starts_with("torch.npu.") || Q.starts_with("torch.accelerator.") ||
         Q.starts_with("torch.version.") || Q == "torch.get_device_module" ||
         Q == "torch.get_device" || Q == "torch.manual_seed" ||
         Q.starts_with("torch.testing.") || Q == "torch.allclose" ||
         Q == "torch.equal" || Q == "torch.device" || Q == "torch.Size" ||
         Q == "torch.dtype" || Q == "torch.is_tensor" || Q == "torch.numel" ||
         Q == "torch.finfo" || Q == "torch.iinfo" || Q == "torch.no_grad" ||
         Q == "torch.inference_mode" || Q == "torch.get_default_dtype" ||
         Q.starts_with("torch.distributed.") ||
         Q.starts_with("torch.backends.") || Q.starts_with("torch.ops.load");
}

/// A call that configures a library at import (`np.set_printoptions(...)`,
/// `tilelang.disable_cache()`): setup, not a script's work.
static bool isConfigurationCall(StringRef Callee) {
  StringRef Last = Callee.contains('.') ? Callee.rsplit('.').second : Callee;
  return Callee.contains('.') &&
         (Last.starts_with("set_") || Last.starts_with("enable_") ||
          Last.starts_with("disable_"));
}

/// CuPy calls that return arrays (its allocation, compute and random
/// functions); dtypes, scalar types, `cupy.cuda.*` (devices, streams,
/// events), run-time compiled kernels and `cupyx.jit` return none.
bool cupyReturnsArray(StringRef Q) {
  if (!Q.starts_with("cupy.") && !Q.starts_with("cupyx."))
    return false;
  if (Q.starts_with("cupy.cuda.") || Q.starts_with("cupyx.jit.") ||
      Q.starts_with("cupy.testing.") || Q.starts_with("cupyx.profiler."))
    return false;
  StringRef Last = Q.rsplit('.').second;
  static const char *const NotArrays[] = {"RawKernel",
                                          "RawModule",
                                          "ElementwiseKernel",
                                          "ReductionKernel",
                                          "dtype",
                                          "finfo",
                                          "iinfo",
                                          "get_array_module",
                                          "fuse",
                                          "bool_",
                                          "float16",
                                          "float32",
                                          "float64",
                                          "complex64",
                                          "complex128",
                                          "int8",
                                          "int16",
                                          "int32",
                                          "int64",
                                          "uint8",
                                          "uint16",
                                          "uint32",
                                          "uint64",
                                          "intp",
                                          "uintp",
                                          "asnumpy",
                                          "get_default_memory_pool",
                                          "get_default_pinned_memory_pool",
                                          "isscalar",
                                          "ndim",
                                          "shape",
                                          "size",
                                          "result_type",
                                          "can_cast",
                                          "promote_types"};
  return !oneOf(Last, NotArrays);
}

/// The operator of a binary, unary or comparison node (the first of a
/// chained comparison): `+`, `not in`, `is not`.
static StringRef operatorOf(PyNode N) {
  if (!N.is("comparison_operator"))
    return N.field("operator").text();
  for (unsigned I = 0, E = N.numChildren(); I < E; ++I)
    if (!N.child(I).isNamed())
      return N.child(I).text();
  return {};
}

static bool identityOrMembership(StringRef Op) {
  return Op.starts_with("is") || Op.starts_with("in") || Op.starts_with("not");
}

PyNode bodyOf(const PyFunc &F) {
  return F.Main ? F.Body : F.Script ? F.Def : F.Def.field("body");
}

/// Statements of a module that define or import (not a script's code).
bool isDefinitionOrImport(PyNode S) {
  return S.is("function_definition") || S.is("class_definition") ||
         S.is("decorated_definition") || S.is("import_statement") ||
         S.is("import_from_statement") || S.is("future_import_statement") ||
         S.is("comment");
}

/// `__name__ == "__main__"` (either order, parenthesised).
bool isMainCondition(PyNode C) {
  while (C.is("parenthesized_expression"))
    C = C.named(0);
  if (!C.is("comparison_operator") || C.numNamed() != 2 ||
      operatorOf(C) != "==")
    return false;
  auto IsName = [](PyNode N) {
    return N.is("identifier") && N.text() == "__name__";
  };
  auto IsMain = [](PyNode N) {
    std::optional<PyString> S =
        N.is("string") ? decodeStringLiteral(N) : std::nullopt;
    return S && S->Text == "__main__";
  };
  PyNode A = C.named(0), B = C.named(1);
  return (IsName(A) && IsMain(B)) || (IsMain(A) && IsName(B));
}

class PythonModelBuilder;

/// Modules of the submission's own package that its imports name, read
/// from disk and built into the same model (each once).
struct OwnModule {
  std::string Path;
  std::unique_ptr<PySyntaxTree> Tree;
  std::unique_ptr<PythonModelBuilder> B;
};
struct OwnModules {
  std::map<std::string, std::unique_ptr<OwnModule>> ByName; ///< null: none
  unsigned Budget = 32; ///< modules read at most
};

/// Where the file's package is: \p Root is the directory dotted module
/// names start from, \p Package the file's own package (`pkg.ops`), empty
/// for a file outside a package. Packages are directories with
/// `__init__.py`, or those below a `src/` directory.
static void findPackage(StringRef Abs, std::string &Root,
                        std::string &Package) {
  SmallString<256> D = sys::path::parent_path(Abs);
  std::vector<std::string> Parts;
  for (unsigned I = 0; I < 16; ++I) {
    SmallString<256> Init = D;
    sys::path::append(Init, "__init__.py");
    if (!sys::fs::exists(Init) || sys::path::parent_path(D) == D)
      break;
    Parts.push_back(sys::path::filename(D).str());
    D.resize(sys::path::parent_path(D).size()); // a prefix: no self-assignment
  }
  if (Parts.empty()) {
    // src/<pkg>/... without __init__.py (namespace packages).
    SmallString<256> E = sys::path::parent_path(Abs);
    std::vector<std::string> Up;
    for (unsigned I = 0; I < 6 && sys::path::parent_path(E) != E; ++I) {
      if (sys::path::filename(E) == "src" && !Up.empty()) {
        Parts = Up;
        D = E;
        break;
      }
      Up.push_back(sys::path::filename(E).str());
      E.resize(sys::path::parent_path(E).size());
    }
  }
  Root = std::string(D);
  Package.clear();
  for (auto It = Parts.rbegin(); It != Parts.rend(); ++It)
    Package += (Package.empty() ? "" : ".") + *It;
}

class PythonModelBuilder {
public:
  PythonModelBuilder(StringRef File, StringRef AbsFile, const PySyntaxTree &T,
                     Model &M, PythonFacts &Facts, OwnModules &Own,
                     std::string Prefix = "")
      : File(File), Abs(AbsFile), T(T), M(M), Facts(Facts), Own(Own),
        Prefix(std::move(Prefix)) {
    findPackage(Abs, OwnRoot, Package);
    if (!Package.empty())
      OwnTops.insert(StringRef(Package).split('.').first);
  }

  void scanModule();
  std::vector<ExtensionInfo> &extensions() { return Exts; }
  void buildFunctions();
  /// Reads each DSL kernel's body for what it does with the values it loads
  /// (Facts.Kernels, atrex-kernel-no-compute).
  void classifyKernelWork();
  void linkExtensions();
  /// Why the entries chosen are the entries (the analysis mode's reason),
  /// and whether one is a harness's (named, ModelNew.forward, custom_kernel).
  std::string EntryReason;
  /// Which functions are the entries when no harness names one (for the
  /// reason of library mode).
  std::string EntryWhat;
  bool HarnessEntry = false;
  void chooseEntries(const std::vector<std::string> &Names,
                     std::vector<std::string> &Errors);
  /// Entries named with --entry (their parameters are tensors).
  std::vector<std::string> EntryNames;
  /// The key of the `__main__` pseudo-function, empty without one.
  std::string MainKey;
  /// The key of the `<module>` pseudo-function, empty without one.
  std::string ScriptKey;
  /// A program's entry is its `__main__` block (after chooseEntries).
  void useMainEntry();
  /// Library code is judged per function: every module-level function and
  /// every method of a module-level class is an entry (after chooseEntries;
  /// the methods are where a wrapper class loads and calls its library).
  void useLibraryEntries();
  /// The file is a module of a package (`__init__.py` directories or a
  /// `src/` layout), and its dotted name.
  bool inPackage() const { return !Package.empty(); }
  const std::string &package() const { return Package; }

private:
  // ---- module scan
  void scanImports(PyNode N);
  void addFunction(PyNode Def, std::vector<PyNode> Decorators,
                   const std::string &Class, const std::string &Outer = "");
  void scanClass(PyNode Def, std::string Name = "");
  /// What the decorators make of \p F (a kernel, a TileLang factory, ...).
  void classifyDecorators(PyFunc &F);
  /// Kernels and classes defined inside the function \p Outer (a local
  /// name): they get function nodes of their own (`outer.k`,
  /// `outer.Cls.method`).
  void scanNested(PyNode N, const std::string &Outer);
  /// `with T.Kernel(...)` in \p Body itself (not in definitions nested in it).
  bool opensTileLangKernel(PyNode Body);
  /// Module-level names bound by assignments (each pass: what a builder
  /// returns is known after its callees were walked).
  void bindModuleVars();
  void bindInitAttrs(); ///< what `self.x = ...` in `__init__` binds
  /// Whether the body \p Body (of a kernel or an own helper it calls) only
  /// moves data; counts its moves into \p Moves. Params: the kernel's
  /// tensor parameters (element reads of them and of their views load).
  bool movesOnly(PyNode Body, const std::vector<std::string> &Params,
                 unsigned &Moves, unsigned Depth);
  std::optional<std::vector<PyString>> evalStrings(PyNode N,
                                                   unsigned Depth = 0);
  void scanExtensionCalls(PyNode N);
  std::string qualifiedOf(PyNode N); // dotted name through aliases
  PyNode unwrapDefinition(PyNode N, std::vector<PyNode> &Decorators);

  // ---- function bodies
  struct FnState {
    PyFunc *F = nullptr;
    FunctionNode *Node = nullptr;
    PythonFunctionFacts *PF = nullptr;
    PyClass *Class = nullptr;
    std::string SelfName;
    std::map<std::string, Ref> Locals;
    std::set<std::string> Globals; ///< names declared `global`
    bool Dead = false;
    bool Init = false; ///< __init__: attribute writes are setup
    bool ReturnsTensor = false;
    Ref Returns;           ///< a kernel or compiled kernel it returns
    int ReturnsIndex = -1; ///< its position in a returned tuple
    std::set<std::string> TensorParams; ///< parameters bound as tensors
    /// Locals bound to what a compiler returned (`cute.compile(f, ...)`):
    /// a cache of them keeps compiled code, not outputs.
    std::set<std::string> CompiledLocals;
    /// Containers (as spelled: `self._cache`) that hold built launchers.
    std::map<std::string, Ref> CodeContainers;
    /// Locals bound to a torch function looked up by an assembled name
    /// (`fn = getattr(torch, "mat" + "mul")`).
    std::set<std::string> DynamicLookups;
    /// In a function a harness calls: the names that are its inputs, with
    /// the input each is (`data`, `data[2]` for `a, b, c = data`).
    std::map<std::string, std::string> InputOf;
    struct InputWriteSite {
      PyNode At;
      std::string Name, Input, How;
    };
    std::vector<InputWriteSite> InputWrites;
    std::set<std::string> ReturnedInputs; ///< inputs it returns
    bool ReturnsValue = false; ///< a `return` with a value other than None
  };
  /// The input \p V is (an input name, or a constant index of one), else "".
  std::string inputOf(PyNode V, const FnState &St);
  void bindInputs(PyNode Body, FnState &St);
  void noteInputWrite(PyNode At, PyNode Obj, StringRef How, FnState &St);
  struct PyParam {
    std::string Name;
    bool Receiver = false;  ///< `self`, `cls`, an autograd `ctx`
    bool Tensor = false;    ///< annotated as a tensor
    bool NonTensor = false; ///< annotated or defaulted as a scalar
    /// Annotated with another library's type (`cute.Tensor`, `cutlass.Int32`):
    /// not a tensor unless a harness passes one.
    bool Foreign = false;
  };
  std::vector<PyParam> params(const PyFunc &F);
  bool isAutogradFunction(const std::string &Class, unsigned Depth = 0);
  std::set<std::string> tensorUses(PyNode Body);
  /// Whether \p N names module \p Mod or something in it (through aliases).
  bool namesModule(PyNode N, StringRef Mod);
  /// Whether the file imports module \p Mod (or something in it).
  bool importsModule(StringRef Mod) {
    for (auto &KV : Aliases)
      if (StringRef(KV.second) == Mod ||
          StringRef(KV.second).starts_with((Mod + ".").str()))
        return true;
    return false;
  }
  std::map<unsigned, std::string> QualCache;
  void recordArgs(const std::string &Callee, PyNode Args, FnState &St);
  /// A caller outside the file (a profiler) passes tensors in every
  /// parameter of \p Callee.
  void suppliesTensors(const std::string &Callee);
  bool Promoted = false; ///< a pass promoted a parameter to a tensor
  PyNode CurrentValue;   ///< the right side bindTarget binds (visitAssign)
  Ref resolve(PyNode N, FnState &St);
  Ref resolveAttr(const Ref &Obj, StringRef Attr, FnState &St);
  Ref classMember(const std::string &Class, StringRef Name, unsigned Depth = 0);
  void walk(PyNode N, FnState &St);
  void visitCall(PyNode Call, FnState &St);
  /// What a compiler returned (`cute.compile(...)`), or a local bound to it.
  bool isCompiledValue(PyNode V, FnState &St);
  /// Element \p I of what call \p V returns, when that is a launcher in a
  /// returned tuple (`launch, meta = build(n)`).
  Ref tupleElement(PyNode V, size_t I, FnState &St) {
    if (!V || !V.is("call"))
      return {};
    Ref F = resolve(V.field("function"), St);
    const PyFunc *G = F.K == Ref::OwnFunction ? findFunc(F.S) : nullptr;
    if (G && G->ReturnsIndex == int(I))
      return G->Returns;
    return {};
  }
  /// `getattr(torch..., name)` whose name is not a string literal or a
  /// constant (assembled at run time: `"mat" + "mul"`, a variable).
  bool isDynamicTorchLookup(PyNode V, FnState &St);
  /// A launcher or kernel value: a `@flyc.jit` host, a kernel, a compiled
  /// kernel.
  bool isCodeRef(const Ref &R) const {
    if (R.K == Ref::TritonKernel || R.K == Ref::KernelHandle)
      return true;
    const PyFunc *F = R.K == Ref::OwnFunction ? findFunc(R.S) : nullptr;
    return F && F->JitHost;
  }
  bool ordinaryImport(PyNode Call, StringRef Q, FnState &St);
  std::optional<std::string> importedName(PyNode Call, StringRef Q);
  bool perfReport(const std::string &Key);
  void visitAssign(PyNode N, FnState &St);
  void bindTarget(PyNode Target, const Ref &V, FnState &St);
  void checkStateWrite(PyNode Target, PyNode Value, FnState &St,
                       bool Augmented);
  /// \p Value, stored by the assignment to \p Target, is a new tensor whose
  /// content depends on no input: an allocation call itself, or a name that
  /// the statements before the store, in its block, bind to one and do not
  /// use otherwise.
  bool isFreshValue(PyNode Value, PyNode Target);
  /// A container key that holds no input data: metadata (`x.device`,
  /// `(n, dtype)`) and names that are not tensors.
  bool keyHoldsNoData(PyNode Key, FnState &St);
  void checkModuleOverride(PyNode Target, PyNode Value);
  /// Whether \p C tests that module \p Mod has (\p Has) or lacks the
  /// attribute \p Attr: `hasattr(m, "x")`, `"x" in dir(m)`,
  /// `getattr(m, "x", None) is None`, their negations.
  bool testsAttribute(PyNode C, StringRef Mod, StringRef Attr, bool Has);
  /// An assignment that only runs when the attribute is absent: a
  /// compatibility polyfill, not an override.
  bool polyfill(PyNode Assign, StringRef Q);
  void addSite(FnState &St, PyNode At, SiteKind K, std::string Name,
               std::string Key = "");
  void walkFunction(PyFunc &F);
  SourcePos pos(PyNode N) const { return {Abs.str(), N.line(), N.column()}; }

  StringRef File, Abs;
  const PySyntaxTree &T;
  Model &M;
  PythonFacts &Facts;
  OwnModules &Own;
  /// For a module read because the submission imports it: its dotted name
  /// and a dot, which prefixes its functions' names and keys.
  std::string Prefix;
  std::string OwnRoot, Package;
  StringSet<> OwnTops; ///< top-level names of the own package's modules
  /// `os.environ` (or `os.environb`), through aliases.
  bool isEnviron(PyNode N) {
    std::string Q = N ? qualifiedOf(N) : std::string();
    return Q == "os.environ" || Q == "os.environb";
  }
  /// A parameter annotation that names PyTorch's tensor (`torch.Tensor`,
  /// `Optional[Tensor]`), not a DSL's (`cute.Tensor`, TileLang's `T.Tensor`).
  bool torchTensorAnnotation(StringRef Ty);
  /// An annotation naming a type of an imported module other than torch
  /// and typing (`cute.Tensor`, `cutlass.Int32`, `np.ndarray`).
  bool foreignAnnotation(StringRef Ty);
  bool isOwn(StringRef Q) const {
    return !Q.empty() && OwnTops.count(Q.split('.').first);
  }
  /// A script outside a package imports the modules next to it by their
  /// plain names (`from helpers import f` with helpers.py beside it).
  void noteSibling(StringRef Module) {
    StringRef Top = Module.split('.').first;
    SmallString<256> P(OwnRoot);
    sys::path::append(P, Top + ".py");
    SmallString<256> Q(OwnRoot);
    sys::path::append(Q, Top, "__init__.py");
    if (sys::fs::exists(P) || sys::fs::exists(Q))
      OwnTops.insert(Top);
  }
  /// A function of an own module by dotted name (`pkg.ops.utils.f`).
  Ref lookupOwn(StringRef Q, unsigned Depth = 0);
  OwnModule *loadOwn(const std::string &Module);
  /// A function of this module or of a read one (by key), or null.
  const PyFunc *findFunc(const std::string &Key) const {
    auto It = Funcs.find(Key);
    if (It != Funcs.end())
      return &It->second;
    for (auto &Mod : Own.ByName)
      if (Mod.second && Mod.second->B.get() != this)
        if (auto J = Mod.second->B->Funcs.find(Key);
            J != Mod.second->B->Funcs.end())
          return &J->second;
    return nullptr;
  }
  /// What the name of a function defined inside another one denotes there:
  /// a kernel, a `@flyc.jit` host (an own function), nothing for a device
  /// helper.
  static Ref nestedRef(const PyFunc *F, const std::string &Key) {
    if (F && F->Device)
      return {};
    if (F && F->JitHost)
      return Ref::of(Ref::OwnFunction, Key);
    return Ref::of(Ref::TritonKernel, Key);
  }
  std::string funcName(const std::string &Key) {
    auto It = Funcs.find(Key);
    if (It != Funcs.end())
      return It->second.Name;
    auto MI = M.Functions.find(Key);
    return MI != M.Functions.end() && !MI->second.Name.empty() ? MI->second.Name
                                                               : Key;
  }

public:
  /// Reads the modules the imports name (after scanModule).
  void loadOwnModules();
  /// Drops the functions of read modules that this file's functions never
  /// reach: another file's unused kernels are not this file's.
  void pruneOwnModules();
  bool Followed = false; ///< a module read for its functions only

private:
  StringMap<std::string> Aliases;
  StringMap<std::vector<PyString>> Consts;
  std::map<std::string, Ref> ModuleVars;
  std::map<std::string, PyFunc> Funcs; ///< key -> function
  StringMap<std::string> ModuleFuncs;  ///< name -> key
  std::map<std::string, PyClass> Classes;
  std::vector<ExtensionInfo> Exts;
  std::map<unsigned, unsigned> ExtByCall; ///< call start byte -> extension
  /// Definitions nested in functions that have nodes of their own: the
  /// `function_definition`/`class_definition` start byte -> key (a function
  /// key, or a class name when Class).
  struct NestedDef {
    bool Class = false;
    std::string Key;
  };
  std::map<unsigned, NestedDef> NestedByDef;
};

PyNode PythonModelBuilder::unwrapDefinition(PyNode N,
                                            std::vector<PyNode> &Decorators) {
  if (!N.is("decorated_definition"))
    return N;
  for (PyNode C : N.namedChildren())
    if (C.is("decorator"))
      Decorators.push_back(C);
  return N.field("definition");
}

std::string PythonModelBuilder::qualifiedOf(PyNode N) {
  if (N.is("identifier")) {
    auto It = Aliases.find(N.text());
    if (It != Aliases.end())
      return It->second;
    return "";
  }
  if (N.is("attribute")) {
    std::string Obj = qualifiedOf(N.field("object"));
    if (Obj.empty())
      return "";
    return Obj + "." + N.field("attribute").text().str();
  }
  if (N.is("call")) // decorators written as calls: triton.autotune(...)
    return qualifiedOf(N.field("function"));
  return "";
}

void PythonModelBuilder::scanImports(PyNode N) {
  if (N.is("import_statement")) {
    for (PyNode C : N.namedChildren()) {
      if (C.is("dotted_name")) {
        // `import torch.nn.functional` binds `torch`.
        StringRef Root = C.text().split('.').first;
        Aliases[Root] = Root.str();
        if (Package.empty())
          noteSibling(C.text());
      } else if (C.is("aliased_import")) {
        Aliases[C.field("alias").text()] = C.field("name").text().str();
        if (Package.empty())
          noteSibling(C.field("name").text());
      }
    }
    return;
  }
  if (N.is("import_from_statement")) {
    PyNode Mod = N.field("module_name");
    std::string Base = Mod.text().str();
    if (Mod.is("relative_import")) {
      // `from .utils import f`, `from .. import ops`: the own package.
      StringRef Rel = Mod.text();
      size_t Dots = Rel.find_first_not_of('.');
      if (Dots == StringRef::npos)
        Dots = Rel.size();
      StringRef Rest = Rel.drop_front(Dots).trim();
      SmallVector<StringRef, 8> Pkg;
      if (!Package.empty())
        StringRef(Package).split(Pkg, '.');
      for (size_t I = 1; I < Dots && !Pkg.empty(); ++I)
        Pkg.pop_back();
      Base = join(Pkg, ".");
      if (!Rest.empty())
        Base += (Base.empty() ? "" : ".") + Rest.str();
      if (!Base.empty())
        OwnTops.insert(StringRef(Base).split('.').first);
      else // `from . import x` outside a package: x is a sibling module
        for (PyNode C : N.namedChildren())
          if (!(C == Mod))
            OwnTops.insert(
                (C.is("aliased_import") ? C.field("name") : C).text());
    } else if (Package.empty()) {
      noteSibling(Base);
    }
    for (unsigned I = 0, E = N.numNamed(); I < E; ++I) {
      PyNode C = N.named(I);
      if (C == Mod)
        continue;
      if (C.is("dotted_name"))
        Aliases[C.text()] = Base + "." + C.text().str();
      else if (C.is("aliased_import"))
        Aliases[C.field("alias").text()] =
            Base + "." + C.field("name").text().str();
    }
    return;
  }
  for (PyNode C : N.namedChildren())
    scanImports(C);
}

/// What a decorator names (docs/python-frontend.md, the frameworks table).
enum class DecoratorKind {
  Other,
  Kernel,
  LaunchedKernel, ///< a kernel that a plain call launches too
  TileLangJit,
  TileLangAutotune,
  DeviceHelper,
  JitHost
};
/// A DSL compiler that traces the host function it is given (CuTe DSL's
/// `cute.compile(host_fn, ...)`, FlyDSL's `flyc.compile(launch, ...)`).
static bool isDslCompile(StringRef Q) {
  return Q == "cutlass.cute.compile" || Q == "flydsl.compiler.compile";
}

static DecoratorKind decoratorKind(StringRef Q) {
  // Kernels: Triton's, CuTe DSL's (`@cute.kernel`, launched with
  // `kernel(args).launch(grid=..., block=...)` from a `@cute.jit` host
  // function) and TileLang's `@T.prim_func` (compiled with
  // `tilelang.compile` or by the `@tilelang.jit` function that returns it).
  if (Q == "triton.jit" || Q == "triton.autotune" || Q == "triton.heuristics" ||
      Q == "triton.runtime.jit.jit" || Q == "cutlass.cute.kernel" ||
      Q == "tilelang.language.prim_func" || Q == "tvm.script.tir.prim_func" ||
      // FlyDSL's `@flyc.kernel`, launched as CuTe DSL's are
      // (`kernel(args).launch(grid=..., block=...)` from a `@flyc.jit` host).
      Q == "flydsl.compiler.kernel")
    return DecoratorKind::Kernel;
  // cupyx.jit's `@jit.rawkernel()`: launched as `k[grid, block](args)` or
  // `k(grid, block, args)`, as a `cupy.RawKernel` is.
  if (Q == "cupyx.jit.rawkernel")
    return DecoratorKind::LaunchedKernel;
  if (Q == "tilelang.jit" || Q == "tilelang.jit.jit")
    return DecoratorKind::TileLangJit;
  if (Q == "tilelang.autotune" || Q == "tilelang.autotuner.autotune")
    return DecoratorKind::TileLangAutotune;
  if (Q == "tilelang.language.macro")
    return DecoratorKind::DeviceHelper;
  // FlyDSL's `@flyc.jit` host functions (traced, they launch kernels).
  if (Q == "flydsl.compiler.jit")
    return DecoratorKind::JitHost;
  return DecoratorKind::Other;
}

/// The language of a kernel made by the decorator \p Q (Dsls.def).
static StringRef kernelDslOf(StringRef Q) {
  if (Q.starts_with("triton."))
    return "triton";
  if (Q.starts_with("cutlass.cute."))
    return "cute-dsl";
  if (Q.starts_with("tilelang."))
    return "tilelang";
  if (Q.starts_with("tvm."))
    return "tvm-tir";
  if (Q.starts_with("flydsl."))
    return "flydsl";
  if (Q.starts_with("cupyx."))
    return "cupy-jit";
  return "";
}

bool PythonModelBuilder::opensTileLangKernel(PyNode Body) {
  if (!Body || Body.is("function_definition") || Body.is("class_definition") ||
      Body.is("lambda"))
    return false;
  if (Body.is("with_item")) {
    PyNode V = Body.field("value");
    if (V.is("as_pattern"))
      V = V.named(0);
    if (V.is("call") &&
        qualifiedOf(V.field("function")) == "tilelang.language.Kernel")
      return true;
  }
  for (PyNode C : Body.namedChildren())
    if (opensTileLangKernel(C))
      return true;
  return false;
}

void PythonModelBuilder::classifyDecorators(PyFunc &F) {
  bool Jit = false;
  for (PyNode D : F.Decorators) {
    PyNode E = D.numNamed() ? D.named(0) : PyNode();
    if (E.text() == "staticmethod")
      F.Static = true;
    std::string Q = qualifiedOf(E);
    switch (decoratorKind(Q)) {
    case DecoratorKind::Kernel:
      F.Triton = true;
      F.Dsl = kernelDslOf(Q).str();
      break;
    case DecoratorKind::LaunchedKernel:
      F.Triton = F.LaunchOnCall = true;
      F.Dsl = kernelDslOf(Q).str();
      break;
    case DecoratorKind::TileLangJit:
      Jit = true;
      break;
    case DecoratorKind::TileLangAutotune:
      F.Autotuned = true;
      break;
    case DecoratorKind::DeviceHelper:
      F.Device = true;
      break;
    case DecoratorKind::JitHost:
      F.JitHost = true;
      break;
    case DecoratorKind::Other:
      break;
    }
  }
  // `@tilelang.jit`: device code itself when its body opens `T.Kernel`
  // (called, it compiles and launches); else host code that builds the
  // `@T.prim_func` it returns (called, it returns the compiled kernel).
  if (Jit && !F.Triton) {
    if (opensTileLangKernel(F.Def.field("body"))) {
      F.Triton = F.LaunchOnCall = F.ReturnsOutputs = true;
      F.Dsl = "tilelang";
    } else
      F.JitFactory = true;
  }
}

void PythonModelBuilder::addFunction(PyNode Def, std::vector<PyNode> Decorators,
                                     const std::string &Class,
                                     const std::string &Outer) {
  PyFunc F;
  std::string Name = Def.field("name").text().str();
  F.Local = !Outer.empty()  ? Outer + "." + Name
            : Class.empty() ? Name
                            : Class + "." + Name;
  F.Name = Prefix + F.Local;
  F.Key = "py:" + F.Name;
  F.Class = Class;
  F.Def = Def;
  F.Decorators = std::move(Decorators);
  F.Nested = !Outer.empty();
  F.Module = Class.empty() && !F.Nested;
  classifyDecorators(F);
  if (F.Nested)
    NestedByDef[Def.startByte()] = {false, F.Key};
  else if (Class.empty())
    ModuleFuncs[Name] = F.Key;
  else
    Classes[Class].Methods[Name] = F.Key;
  std::string Local = F.Local;
  bool Kernel = F.Triton || F.Device;
  Funcs[F.Key] = std::move(F);
  if (!Kernel)
    scanNested(Def.field("body"), Local);
}

void PythonModelBuilder::scanNested(PyNode N, const std::string &Outer) {
  for (PyNode C : N.namedChildren()) {
    std::vector<PyNode> Decs;
    PyNode D = unwrapDefinition(C, Decs);
    if (D.is("function_definition")) {
      PyFunc Probe;
      Probe.Def = D;
      Probe.Decorators = Decs;
      classifyDecorators(Probe);
      if (Probe.Triton || Probe.Device || Probe.JitHost)
        addFunction(D, Decs, "", Outer);
      else // a local helper: part of its holder; kernels may nest in it
        scanNested(D.field("body"), Outer + "." + D.field("name").text().str());
      continue;
    }
    if (D.is("class_definition")) {
      std::string Key = Outer + "." + D.field("name").text().str();
      NestedByDef[D.startByte()] = {true, Key};
      scanClass(D, Key);
      continue;
    }
    if (C.is("lambda"))
      continue;
    scanNested(C, Outer);
  }
}

void PythonModelBuilder::scanClass(PyNode Def, std::string Name) {
  PyClass C;
  C.Name = Name.empty() ? Def.field("name").text().str() : std::move(Name);
  C.Def = Def;
  if (PyNode Sup = Def.field("superclasses"))
    for (PyNode B : Sup.namedChildren()) {
      if (B.is("identifier") && Classes.count(B.text().str()))
        C.Bases.push_back(B.text().str());
      else if (std::string Q = qualifiedOf(B); !Q.empty())
        C.QualBases.push_back(Q);
    }
  Classes[C.Name] = C;
  for (PyNode S : Def.field("body").namedChildren()) {
    std::vector<PyNode> Decs;
    PyNode D = unwrapDefinition(S, Decs);
    if (D.is("function_definition"))
      addFunction(D, Decs, C.Name);
  }
}

std::optional<std::vector<PyString>>
PythonModelBuilder::evalStrings(PyNode N, unsigned Depth) {
  if (!N || Depth > 16)
    return std::nullopt;
  StringRef Ty = N.type();
  if (Ty == "string") {
    std::optional<PyString> S = decodeStringLiteral(N);
    if (!S)
      return std::nullopt;
    return std::vector<PyString>{*S};
  }
  if (Ty == "concatenated_string") {
    PyString All;
    for (PyNode C : N.namedChildren()) {
      if (C.is("comment"))
        continue;
      std::optional<PyString> S = decodeStringLiteral(C);
      if (!S)
        return std::nullopt;
      All.append(*S);
    }
    return std::vector<PyString>{All};
  }
  if (Ty == "parenthesized_expression")
    return evalStrings(N.named(0), Depth + 1);
  if (Ty == "identifier") {
    auto It = Consts.find(N.text());
    if (It == Consts.end())
      return std::nullopt;
    return It->second;
  }
  if (Ty == "list" || Ty == "tuple") {
    std::vector<PyString> Out;
    for (PyNode C : N.namedChildren()) {
      auto V = evalStrings(C, Depth + 1);
      if (!V)
        return std::nullopt;
      Out.insert(Out.end(), V->begin(), V->end());
    }
    return Out;
  }
  if (Ty == "binary_operator" && N.field("operator").text() == "+") {
    auto L = evalStrings(N.field("left"), Depth + 1);
    auto R = evalStrings(N.field("right"), Depth + 1);
    if (!L || !R)
      return std::nullopt;
    bool LList = N.field("left").is("list"),
         RList = N.field("right").is("list");
    if (!LList && !RList && L->size() == 1 && R->size() == 1) {
      (*L)[0].append((*R)[0]);
      return L;
    }
    L->insert(L->end(), R->begin(), R->end());
    return L;
  }
  if (Ty == "call") {
    std::string Q = qualifiedOf(N.field("function"));
    PyNode Args = N.field("arguments");
    if ((Q == "textwrap.dedent" || Q == "inspect.cleandoc") &&
        Args.numNamed() == 1) {
      auto V = evalStrings(Args.named(0), Depth + 1);
      if (!V || V->size() != 1)
        return std::nullopt;
      // Drop the common indentation; positions travel with the characters.
      PyString &S = (*V)[0];
      size_t Common = std::string::npos;
      for (StringRef L : split(S.Text, '\n')) {
        size_t Ind = L.find_first_not_of(" \t");
        if (Ind != StringRef::npos)
          Common = std::min(Common, Ind);
      }
      if (Common == std::string::npos || Common == 0)
        return V;
      PyString Out;
      size_t I = 0;
      while (I < S.Text.size()) {
        size_t E = S.Text.find('\n', I);
        if (E == std::string::npos)
          E = S.Text.size() - 1;
        size_t Skip = 0;
        while (Skip < Common && I + Skip <= E &&
               (S.Text[I + Skip] == ' ' || S.Text[I + Skip] == '\t'))
          ++Skip;
        for (size_t J = I + Skip; J <= E; ++J) {
          Out.Text.push_back(S.Text[J]);
          Out.Pos.push_back(S.Pos[J]);
        }
        I = E + 1;
      }
      return std::vector<PyString>{Out};
    }
    // "sep".join([...])
    PyNode Fn = N.field("function");
    if (Fn.is("attribute") && Fn.field("attribute").text() == "join" &&
        Args.numNamed() == 1) {
      auto Sep = evalStrings(Fn.field("object"), Depth + 1);
      auto Parts = evalStrings(Args.named(0), Depth + 1);
      if (!Sep || Sep->size() != 1 || !Parts)
        return std::nullopt;
      PyString Out;
      for (size_t I = 0; I < Parts->size(); ++I) {
        if (I)
          Out.append((*Sep)[0]);
        Out.append((*Parts)[I]);
      }
      return std::vector<PyString>{Out};
    }
  }
  return std::nullopt;
}

void PythonModelBuilder::scanExtensionCalls(PyNode N) {
  if (N.is("call")) {
    std::string Q = qualifiedOf(N.field("function"));
    StringRef QR = Q;
    bool Inline = QR.ends_with("cpp_extension.load_inline");
    bool Load = QR.ends_with("cpp_extension.load");
    if (Inline || Load) {
      ExtensionInfo E;
      E.Call = N;
      E.Inline = Inline;
      PyNode Args = N.field("arguments");
      unsigned Positional = 0;
      auto Handle = [&](StringRef Key, PyNode V) {
        if (Key == "name") {
          if (auto S = evalStrings(V); S && S->size() == 1)
            E.Name = (*S)[0].Text;
          return;
        }
        bool IsSrc = Inline ? (Key == "cpp_sources" || Key == "cuda_sources")
                            : Key == "sources";
        if (IsSrc) {
          auto S = evalStrings(V);
          if (!S) {
            E.Problems.push_back(
                (Abs + ":" + Twine(V.line()) + ":" + Twine(V.column()) +
                 ": error: atrex-python: cannot reconstruct '" + Key +
                 "' of '" + (Inline ? "load_inline" : "load") +
                 "': not a constant string (literals, concatenation, "
                 "module-level constants)")
                    .str());
            return;
          }
          if (!Inline) {
            for (const PyString &P : *S)
              E.Files.push_back(P.Text);
          } else if (Key == "cpp_sources") {
            E.CppSources = *S;
          } else {
            E.CudaSources = *S;
          }
          return;
        }
        if (Key == "functions") {
          if (auto S = evalStrings(V))
            for (const PyString &P : *S)
              E.Functions.push_back(P.Text);
        }
      };
      for (PyNode A : Args.namedChildren()) {
        if (A.is("keyword_argument")) {
          Handle(A.field("name").text(), A.field("value"));
          continue;
        }
        if (A.is("comment"))
          continue;
        static const char *const InlineOrder[] = {"name", "cpp_sources",
                                                  "cuda_sources"};
        static const char *const LoadOrder[] = {"name", "sources"};
        if (Inline && Positional < 3)
          Handle(InlineOrder[Positional], A);
        else if (!Inline && Positional < 2)
          Handle(LoadOrder[Positional], A);
        ++Positional;
      }
      ExtByCall[N.startByte()] = Exts.size();
      Exts.push_back(std::move(E));
    }
  }
  for (PyNode C : N.namedChildren())
    scanExtensionCalls(C);
}

void PythonModelBuilder::scanModule() {
  PyNode Root = T.root();
  scanImports(Root);
  // Definitions made under a module-level condition or `try` (`if
  // runtime_available(): import flydsl ... def f(...)`, `try: import triton
  // ... except ImportError: ...`) are module-level definitions too: the
  // first definition of a name (the branch that runs where the library is
  // installed) is the one analysed, a later stand-in of the same name
  // (`else: def f(*a): raise ...`) is not.
  std::function<void(PyNode)> ScanConditional = [&](PyNode B) {
    for (PyNode S : B.namedChildren()) {
      if (S.is("block") || S.is("elif_clause") || S.is("else_clause") ||
          S.is("except_clause") || S.is("finally_clause") ||
          S.is("if_statement") || S.is("try_statement")) {
        ScanConditional(S);
        continue;
      }
      std::vector<PyNode> Decs;
      PyNode D = unwrapDefinition(S, Decs);
      if (D.is("function_definition") &&
          !ModuleFuncs.count(D.field("name").text()))
        addFunction(D, Decs, "");
      else if (D.is("class_definition") &&
               !Classes.count(D.field("name").text().str()))
        scanClass(D);
    }
  };
  // Definitions and constants, in order.
  for (PyNode S : Root.namedChildren()) {
    std::vector<PyNode> Decs;
    PyNode D = unwrapDefinition(S, Decs);
    if (D.is("function_definition")) {
      addFunction(D, Decs, "");
      continue;
    }
    if (D.is("class_definition")) {
      scanClass(D);
      continue;
    }
    if ((S.is("if_statement") && !isMainCondition(S.field("condition"))) ||
        S.is("try_statement")) {
      ScanConditional(S);
      continue;
    }
    // `if __name__ == "__main__":` runs when the file is the program (never
    // in a module read because the file imports it).
    if (S.is("if_statement") && !Followed && MainKey.empty() &&
        isMainCondition(S.field("condition")) && S.field("consequence")) {
      PyFunc F;
      F.Name = "__main__";
      F.Key = "py:__main__";
      F.Def = S;
      F.Main = true;
      F.Body = S.field("consequence");
      MainKey = F.Key;
      Funcs[F.Key] = std::move(F);
      continue;
    }
    if (S.is("expression_statement") && S.numNamed() == 1 &&
        S.named(0).is("assignment")) {
      PyNode A = S.named(0);
      PyNode L = A.field("left"), R = A.field("right");
      if (L.is("identifier") && R)
        if (auto V = evalStrings(R))
          Consts[L.text()] = *V;
    }
  }
  // A script without a `__main__` block: its top level calls things (a bare
  // call statement other than output and process setup). That code runs
  // when the file runs: a pseudo-function `<module>`, an entry beside the
  // module-level functions.
  if (!Followed && MainKey.empty()) {
    PyNode First;
    for (PyNode S : Root.namedChildren()) {
      if (!S.is("expression_statement") || S.numNamed() != 1 ||
          !S.named(0).is("call"))
        continue;
      std::string Callee = qualifiedOf(S.named(0).field("function"));
      if (Callee.empty())
        Callee = S.named(0).field("function").text().str();
      StringRef C = Callee;
      if (C == "print" || C.starts_with("sys.") || C.starts_with("warnings.") ||
          C.starts_with("logging.") || C.starts_with("os.environ") ||
          C.starts_with("torch.library.") || C.starts_with("torch._dynamo.") ||
          C.starts_with("torch.backends.") || C.starts_with("torch.set_") ||
          C == "torch.manual_seed" || C.starts_with("random.") ||
          C.contains("register") || C.starts_with("triton.") ||
          C.starts_with("tilelang.") || isConfigurationCall(C))
        continue;
      First = S;
      break;
    }
    if (First) {
      PyFunc F;
      F.Name = "<module>";
      F.Key = "py:<module>";
      F.Def = Root;
      F.Body = First;
      F.Script = true;
      ScriptKey = F.Key;
      Funcs[F.Key] = std::move(F);
    }
  }
  scanExtensionCalls(Root);
  bindModuleVars();
  bindInitAttrs();
  // Module-level attribute assignments to imported modules patch them for
  // everyone (timers, synchronisation, torch functions).
  std::function<void(PyNode)> Overrides = [&](PyNode N) {
    if (N.is("assignment") || N.is("augmented_assignment"))
      checkModuleOverride(N.field("left"), N.field("right"));
    if (N.is("call") && N.field("function").is("identifier") &&
        N.field("function").text() == "setattr") {
      PyNode Args = N.field("arguments");
      if (Args.numNamed() >= 2) {
        std::string Q = qualifiedOf(Args.named(0));
        auto Attr = evalStrings(Args.named(1));
        if (!Q.empty() && Attr && Attr->size() == 1 &&
            !polyfill(N, Q + "." + (*Attr)[0].Text)) {
          Finding F;
          F.Check = checks::EvasionRuntimeOverride.str();
          F.Pos = pos(N);
          F.Symbol = cxxName(Q + "." + (*Attr)[0].Text);
          F.Library = "runtime symbol";
          F.Message = "setattr on '" + F.Symbol +
                      "' replaces a function of an imported module the "
                      "harness relies on";
          M.Unconditional.push_back(std::move(F));
        }
      }
    }
    for (PyNode C : N.namedChildren())
      Overrides(C);
  };
  if (!Followed)
    Overrides(Root);
}

void PythonModelBuilder::bindModuleVars() {
  // Module-level bindings: extensions and other values.
  FnState Mod;
  for (PyNode S : T.root().namedChildren()) {
    if (!S.is("expression_statement"))
      continue;
    for (PyNode A : S.namedChildren()) {
      if (!A.is("assignment") || !A.field("right"))
        continue;
      PyNode L = A.field("left");
      Ref V = resolve(A.field("right"), Mod);
      if (L.is("identifier"))
        ModuleVars[L.text().str()] = V;
    }
  }
}

OwnModule *PythonModelBuilder::loadOwn(const std::string &Module) {
  auto It = Own.ByName.find(Module);
  if (It != Own.ByName.end())
    return It->second.get(); // read already (or being read, or none)
  Own.ByName[Module] = nullptr;
  SmallString<256> P(OwnRoot);
  for (StringRef Part : split(Module, '.'))
    sys::path::append(P, Part);
  SmallString<256> File = P, Init = P;
  File += ".py";
  sys::path::append(Init, "__init__.py");
  std::string Path = sys::fs::exists(File)   ? std::string(File)
                     : sys::fs::exists(Init) ? std::string(Init)
                                             : std::string();
  if (Path.empty() || Path == Abs || !Own.Budget)
    return nullptr;
  --Own.Budget;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return nullptr;
  Expected<std::unique_ptr<PySyntaxTree>> Tree =
      PySyntaxTree::parse((*Buf)->getBuffer().str());
  if (!Tree) {
    consumeError(Tree.takeError());
    return nullptr;
  }
  auto Mod = std::make_unique<OwnModule>();
  Mod->Path = Path;
  Mod->Tree = std::move(*Tree);
  Mod->B = std::make_unique<PythonModelBuilder>(
      Mod->Path, Mod->Path, *Mod->Tree, M, Facts, Own, Module + ".");
  Mod->B->Followed = true;
  OwnModule *Raw = Mod.get();
  Own.ByName[Module] = std::move(Mod);
  Raw->B->scanModule();
  Raw->B->loadOwnModules();
  Raw->B->buildFunctions();
  return Raw;
}

void PythonModelBuilder::loadOwnModules() {
  for (auto &KV : Aliases) {
    StringRef Q = KV.second;
    if (!isOwn(Q))
      continue;
    // The module is the alias itself or its parent (`from m import f`).
    if (!loadOwn(Q.str()) && Q.contains('.'))
      loadOwn(Q.rsplit('.').first.str());
  }
}

void PythonModelBuilder::pruneOwnModules() {
  std::set<std::string> Seen;
  std::vector<std::string> Work;
  for (auto &KV : Funcs)
    Work.push_back(KV.first);
  while (!Work.empty()) {
    std::string K = std::move(Work.back());
    Work.pop_back();
    if (!Seen.insert(K).second)
      continue;
    auto It = M.Functions.find(K);
    if (It == M.Functions.end())
      continue;
    for (const Site &S : It->second.Sites)
      if (!S.Key.empty())
        Work.push_back(S.Key);
  }
  for (auto &Mod : Own.ByName)
    if (Mod.second)
      for (auto &KV : Mod.second->B->Funcs)
        if (!Seen.count(KV.first))
          M.Functions.erase(KV.first);
}

Ref PythonModelBuilder::lookupOwn(StringRef Q, unsigned Depth) {
  Ref Unknown = Ref::of(Ref::OwnExternal, Q.str());
  if (Depth > 8 || !Q.contains('.'))
    return Unknown;
  auto [Module, Name] = Q.rsplit('.');
  auto It = Own.ByName.find(Module.str());
  if (It == Own.ByName.end() || !It->second)
    return Unknown;
  PythonModelBuilder &B = *It->second->B;
  auto MF = B.ModuleFuncs.find(Name);
  if (MF != B.ModuleFuncs.end())
    return Ref::of(B.Funcs[MF->second].Triton ? Ref::TritonKernel
                                              : Ref::OwnFunction,
                   MF->second);
  // Re-exported: `from .utils import f` in the package's __init__.py.
  auto A = B.Aliases.find(Name);
  if (A != B.Aliases.end() && B.isOwn(A->second) && A->second != Q)
    return B.lookupOwn(A->second, Depth + 1);
  return Unknown;
}

bool PythonModelBuilder::testsAttribute(PyNode C, StringRef Mod, StringRef Attr,
                                        bool Has) {
  while (C.is("parenthesized_expression"))
    C = C.named(0);
  if (C.is("not_operator"))
    return testsAttribute(C.field("argument"), Mod, Attr, !Has);
  if (C.is("boolean_operator")) {
    // `a and b` holds only when both do: either one's test is the
    // condition's; `a or b` tests it only when both do.
    bool L = testsAttribute(C.field("left"), Mod, Attr, Has),
         R = testsAttribute(C.field("right"), Mod, Attr, Has);
    return C.field("operator").text() == "and" ? L || R : L && R;
  }
  auto IsAttrName = [&](PyNode S) {
    std::optional<std::vector<PyString>> V = evalStrings(S);
    return V && V->size() == 1 && (*V)[0].Text == Attr;
  };
  auto IsMod = [&](PyNode M) { return qualifiedOf(M) == Mod; };
  // `getattr(m, "x", None)`, `hasattr(m, "x")`.
  auto CallOn = [&](PyNode Call, StringRef Fn, unsigned MinArgs) {
    if (!Call.is("call") || Call.field("function").text() != Fn)
      return false;
    PyNode Args = Call.field("arguments");
    return Args.numNamed() >= MinArgs && IsMod(Args.named(0)) &&
           IsAttrName(Args.named(1));
  };
  if (CallOn(C, "hasattr", 2))
    return Has;
  if (CallOn(C, "getattr", 3))
    return Has;
  if (C.is("comparison_operator") && C.numNamed() == 2) {
    StringRef Op = operatorOf(C);
    PyNode L = C.named(0), R = C.named(1);
    if (Op == "in" || Op == "not in") {
      // `"x" in dir(m)`, `"x" in vars(m)`, `"x" in m.__dict__`.
      bool Names = false;
      if (R.is("call") && (R.field("function").text() == "dir" ||
                           R.field("function").text() == "vars")) {
        PyNode Args = R.field("arguments");
        Names = Args.numNamed() == 1 && IsMod(Args.named(0));
      } else if (R.is("attribute") &&
                 R.field("attribute").text() == "__dict__") {
        Names = IsMod(R.field("object"));
      }
      return Names && IsAttrName(L) && ((Op == "in") == Has);
    }
    if ((Op == "is" || Op == "is not" || Op == "==" || Op == "!=") &&
        CallOn(L, "getattr", 3) && R.is("none"))
      return (Op == "is not" || Op == "!=") == Has;
  }
  return false;
}

bool PythonModelBuilder::polyfill(PyNode Assign, StringRef Q) {
  auto [Mod, Attr] = Q.rsplit('.');
  if (Mod.empty() || Attr.empty())
    return false;
  PyNode Child = Assign;
  for (PyNode P = Assign.parent(); P; Child = P, P = P.parent()) {
    if (P.is("function_definition") || P.is("class_definition") ||
        P.is("module"))
      return false;
    if ((P.is("if_statement") || P.is("elif_clause")) &&
        P.field("consequence") == Child &&
        testsAttribute(P.field("condition"), Mod, Attr, /*Has=*/false))
      return true;
    // `if hasattr(m, "x"): ... else: m.x = ...`
    if (P.is("else_clause") && P.parent().is("if_statement") &&
        testsAttribute(P.parent().field("condition"), Mod, Attr,
                       /*Has=*/true))
      return true;
  }
  return false;
}

void PythonModelBuilder::checkModuleOverride(PyNode Target, PyNode Value) {
  if (!Target.is("attribute"))
    return;
  // Configuration flags (`torch.backends.cudnn.benchmark = True`) set
  // values, not functions.
  if (Value && (Value.is("true") || Value.is("false") || Value.is("none") ||
                Value.is("integer") || Value.is("float") ||
                Value.is("string") || Value.is("concatenated_string")))
    return;
  std::string Q = qualifiedOf(Target);
  if (Q.empty() || polyfill(Target.parent(), Q))
    return;
  Finding F;
  F.Check = checks::EvasionRuntimeOverride.str();
  F.Pos = pos(Target);
  F.Symbol = cxxName(Q);
  F.Library = "runtime symbol";
  StringRef Last = StringRef(Q).rsplit('.').second;
  bool Timing = Last.contains("synchronize") || Last.contains("elapsed") ||
                Last.contains("time") || Last.contains("Event") ||
                Last.contains("record") || Last.contains("counter");
  F.Message = "assignment to '" + F.Symbol + "' replaces the " +
              (Timing ? std::string("timing/synchronisation")
                      : std::string("runtime")) +
              " function the harness relies on";
  M.Unconditional.push_back(std::move(F));
}

Ref PythonModelBuilder::classMember(const std::string &Class, StringRef Name,
                                    unsigned Depth) {
  auto It = Classes.find(Class);
  if (It == Classes.end() || Depth > 8)
    return {};
  PyClass &C = It->second;
  auto A = C.Attrs.find(Name.str());
  if (A != C.Attrs.end())
    return A->second;
  auto MIt = C.Methods.find(Name.str());
  if (MIt != C.Methods.end()) // `self.kernel` of a CuTe DSL class
    return Ref::of(Funcs[MIt->second].Triton ? Ref::TritonKernel
                                             : Ref::OwnFunction,
                   MIt->second);
  for (const std::string &B : C.Bases) {
    Ref R = classMember(B, Name, Depth + 1);
    if (R.K != Ref::None)
      return R;
  }
  return {};
}

Ref PythonModelBuilder::resolveAttr(const Ref &Obj, StringRef Attr,
                                    FnState &St) {
  switch (Obj.K) {
  case Ref::Qualified:
    return Ref::of(Ref::Qualified, Obj.S + "." + Attr.str());
  case Ref::OwnExternal:
    return lookupOwn(Obj.S + "." + Attr.str());
  case Ref::Extension:
    return Ref::of(Ref::ExtFunction, Obj.S, Attr.str());
  case Ref::OwnClass:
  case Ref::OwnInstance:
    return classMember(Obj.S, Attr);
  case Ref::SelfObj: {
    if (!St.Class)
      return {};
    Ref R = classMember(St.Class->Name, Attr);
    return R;
  }
  case Ref::TorchLayer:
    if (Attr == "forward")
      return Obj;
    if (Attr == "weight" || Attr == "bias" || Attr.starts_with("running_"))
      return Ref::of(Ref::Tensor);
    return {};
  case Ref::Tensor:
  case Ref::MaybeTensor:
    if (oneOf(Attr, NonTensorAttrs))
      return {};
    if (Attr == "T" || Attr == "mT" || Attr == "H" || Attr == "mH" ||
        Attr == "data" || Attr == "real" || Attr == "imag")
      return Ref::of(Obj.K);
    return {};
  case Ref::CupyArray:
    if (Attr == "T" || Attr == "real" || Attr == "imag")
      return Obj;
    return {};
  case Ref::AutogradCtx:
    if (Attr == "saved_tensors")
      return Ref::of(Ref::Tensor);
    return {};
  default:
    return {};
  }
}

Ref PythonModelBuilder::resolve(PyNode N, FnState &St) {
  if (!N)
    return {};
  StringRef Ty = N.type();
  if (Ty == "parenthesized_expression")
    return resolve(N.named(0), St);
  if (Ty == "identifier") {
    std::string Name = N.text().str();
    if (!St.SelfName.empty() && Name == St.SelfName)
      return Ref::of(Ref::SelfObj);
    auto L = St.Locals.find(Name);
    if (L != St.Locals.end())
      return L->second;
    auto MF = ModuleFuncs.find(Name);
    if (MF != ModuleFuncs.end())
      return Ref::of(Funcs[MF->second].Triton ? Ref::TritonKernel
                                              : Ref::OwnFunction,
                     MF->second);
    if (Classes.count(Name))
      return Ref::of(Ref::OwnClass, Name);
    auto MV = ModuleVars.find(Name);
    if (MV != ModuleVars.end())
      return MV->second;
    auto A = Aliases.find(Name);
    if (A != Aliases.end()) {
      if (isOwn(A->second))
        return lookupOwn(A->second);
      return Ref::of(Ref::Qualified, A->second);
    }
    if (Consts.count(Name))
      return {};
    // A builtin (open, exec, getattr, ...).
    return Ref::of(Ref::Qualified, Name);
  }
  if (Ty == "attribute") {
    PyNode Obj = N.field("object");
    StringRef Attr = N.field("attribute").text();
    // super().method
    if (Obj.is("call") && Obj.field("function").text() == "super" && St.Class) {
      for (const std::string &B : St.Class->Bases) {
        Ref R = classMember(B, Attr);
        if (R.K != Ref::None)
          return R;
      }
      return {};
    }
    return resolveAttr(resolve(Obj, St), Attr, St);
  }
  if (Ty == "subscript") {
    if (auto C = St.CodeContainers.find(N.field("value").text().str());
        C != St.CodeContainers.end())
      return C->second;
    Ref V = resolve(N.field("value"), St);
    if (V.K == Ref::Tensor || V.K == Ref::MaybeTensor || V.K == Ref::CupyArray)
      return V;
    return {};
  }
  if (Ty == "binary_operator" || Ty == "unary_operator" ||
      Ty == "comparison_operator") {
    if (Ty == "comparison_operator" && identityOrMembership(operatorOf(N)))
      return {};
    bool Maybe = false, Cupy = false;
    for (PyNode C : N.namedChildren()) {
      Ref::Kind K = resolve(C, St).K;
      if (K == Ref::Tensor)
        return Ref::of(Ref::Tensor);
      Maybe |= K == Ref::MaybeTensor;
      Cupy |= K == Ref::CupyArray;
    }
    if (Cupy)
      return Ref::of(Ref::CupyArray);
    if (Maybe && Ty != "comparison_operator")
      return Ref::of(Ref::MaybeTensor);
    return {};
  }
  if (Ty == "conditional_expression") {
    for (PyNode C : N.namedChildren())
      if (resolve(C, St).K == Ref::Tensor)
        return Ref::of(Ref::Tensor);
    return {};
  }
  if (Ty == "call") {
    auto E = ExtByCall.find(N.startByte());
    if (E != ExtByCall.end())
      return Ref::of(Ref::Extension, std::to_string(E->second));
    PyNode Fn = N.field("function");
    // getattr(obj, "name") with a constant name.
    if (Fn.is("identifier") && Fn.text() == "getattr") {
      PyNode Args = N.field("arguments");
      if (Args.numNamed() >= 2) {
        auto Name = evalStrings(Args.named(1));
        if (Name && Name->size() == 1)
          return resolveAttr(resolve(Args.named(0), St), (*Name)[0].Text, St);
      }
      return {};
    }
    Ref C = resolve(Fn, St);
    switch (C.K) {
    case Ref::Qualified: {
      StringRef Q = C.S;
      if (std::optional<std::string> Mod = importedName(N, Q))
        return isOwn(*Mod) ? lookupOwn(*Mod) : Ref::of(Ref::Qualified, *Mod);
      if (Q == "torch.cuda.Stream" || Q == "torch.cuda.streams.Stream" ||
          Q == "torch.Stream")
        return Ref::of(Ref::Stream);
      if (isTorchLayerClass(Q))
        return Ref::of(Ref::TorchLayer, C.S);
      if (Q.starts_with("torch.") && !torchReturnsNonTensor(Q))
        return Ref::of(Ref::Tensor);
      // `tilelang.compile(prim_func, ...)` (or `tilelang.jit(prim_func)`):
      // the compiled kernel, whose call launches it.
      if (Q == "tilelang.compile" || Q == "tilelang.jit") {
        PyNode Args = N.field("arguments");
        PyNode A = Args.numNamed() ? Args.named(0) : PyNode();
        if (A && A.is("keyword_argument"))
          A = A.field("name").text() == "func" ? A.field("value") : PyNode();
        Ref K = resolve(A, St);
        if (K.K == Ref::TritonKernel)
          return Ref::of(Ref::KernelHandle, K.S);
        return {};
      }
      if (cupyReturnsArray(Q))
        return Ref::of(Ref::CupyArray);
      // A library ctypes loaded: its functions are named after the loader
      // (`lib = ctypes.CDLL("libcuda.so.1"); lib.cuModuleLoadData(...)` is
      // `ctypes::CDLL::cuModuleLoadData`), so the policy's patterns on
      // driver functions (`*::cuModuleLoad*`) see calls through the handle.
      if (Q == "ctypes.CDLL" || Q == "ctypes.PyDLL" || Q == "ctypes.WinDLL" ||
          Q == "ctypes.OleDLL" || Q == "ctypes.cdll.LoadLibrary" ||
          Q == "ctypes.pydll.LoadLibrary")
        return Ref::of(Ref::Qualified, "ctypes.CDLL");
      // `functools.partial(f, ...)` calls f.
      if (Q == "functools.partial") {
        PyNode Args = N.field("arguments");
        if (Args.numNamed() && !Args.named(0).is("keyword_argument"))
          if (Ref F = resolve(Args.named(0), St); F.K == Ref::OwnFunction)
            return F;
      }
      return {};
    }
    case Ref::ExtFunction:
    case Ref::TorchLayer:
    case Ref::KernelHandle: // a TileLang kernel returns its outputs
      return Ref::of(Ref::Tensor);
    case Ref::TritonKernel:
      if (const PyFunc *K = findFunc(C.S); K && K->ReturnsOutputs)
        return Ref::of(Ref::Tensor);
      // FlyDSL/CuTe DSL: `l = k(args)` then `l.launch(grid=..., ...)`.
      return Ref::of(Ref::KernelLaunch, C.S);
    case Ref::OwnClass:
      return Ref::of(Ref::OwnInstance, C.S);
    case Ref::OwnFunction: {
      // A builder function: `def build(): return load_inline(...)`.
      std::function<std::optional<unsigned>(PyNode)> Find =
          [&](PyNode X) -> std::optional<unsigned> {
        if (X.is("return_statement") && X.numNamed() == 1)
          if (auto It = ExtByCall.find(X.named(0).startByte());
              It != ExtByCall.end() && X.named(0).is("call"))
            return It->second;
        if (X.is("function_definition") || X.is("class_definition"))
          return std::nullopt;
        for (PyNode Ch : X.namedChildren())
          if (auto R = Find(Ch))
            return R;
        return std::nullopt;
      };
      const PyFunc *GP = findFunc(C.S);
      if (!GP)
        return {};
      if (auto Ext = Find(GP->Def.field("body")))
        return Ref::of(Ref::Extension, std::to_string(*Ext));
      // A builder or a cache of kernels: what it returns (a `@tilelang.jit`
      // factory returns its prim_func compiled), here or in a read module.
      const PyFunc &G = *GP;
      if (G.ReturnsIndex >= 0)
        return {}; // a tuple: see tupleElement
      if (G.Returns.K == Ref::TritonKernel && G.JitFactory)
        return Ref::of(Ref::KernelHandle, G.Returns.S);
      if (G.Returns.K == Ref::TritonKernel ||
          G.Returns.K == Ref::KernelHandle ||
          G.Returns.K == Ref::OwnFunction) // a builder's `@flyc.jit` host
        return G.Returns;
      return {};
    }
    default:
      break;
    }
    if (Fn.is("attribute")) {
      Ref Obj = resolve(Fn.field("object"), St);
      StringRef Meth = Fn.field("attribute").text();
      // TileLang: `jit_fn.compile(...)` returns the compiled kernel, its
      // `get_profiler()` a profiler that runs it.
      if (Meth == "compile" &&
          (Obj.K == Ref::TritonKernel || Obj.K == Ref::OwnFunction)) {
        if (const PyFunc *G = findFunc(Obj.S)) {
          if (G->ReturnsOutputs)
            return Ref::of(Ref::KernelHandle, Obj.S);
          if (G->JitFactory && G->Returns.K == Ref::TritonKernel)
            return Ref::of(Ref::KernelHandle, G->Returns.S);
        }
      }
      if (Meth == "get_profiler" && Obj.K == Ref::KernelHandle)
        return Ref::of(Ref::Profiler, Obj.S);
      if ((Obj.K == Ref::Tensor || Obj.K == Ref::MaybeTensor) &&
          !oneOf(Meth, NonTensorMethods))
        return Ref::of(Ref::Tensor);
      if (Obj.K == Ref::CupyArray && !oneOf(Meth, NonTensorMethods) &&
          !oneOf(Meth, ContainerMethods))
        return Obj;
    }
    return {};
  }
  return {};
}

bool PythonModelBuilder::perfReport(const std::string &Key) {
  auto It = Funcs.find(Key);
  if (It == Funcs.end())
    return false;
  for (PyNode D : It->second.Decorators)
    if (qualifiedOf(D.numNamed() ? D.named(0) : PyNode()) ==
        "triton.testing.perf_report")
      return true;
  return false;
}

/// The module `importlib.import_module("m")` / `__import__("m")` names with
/// a constant string (absolute: a relative name needs its package).
std::optional<std::string> PythonModelBuilder::importedName(PyNode Call,
                                                            StringRef Q) {
  if (Q != "importlib.import_module" && Q != "__import__")
    return std::nullopt;
  PyNode Args = Call.field("arguments");
  if (!Args.numNamed())
    return std::nullopt;
  PyNode A = Args.named(0);
  if (A.is("keyword_argument"))
    A = A.field("name").text() == "name" ? A.field("value") : PyNode();
  auto S = evalStrings(A);
  if (!S || S->size() != 1 || (*S)[0].Text.empty() ||
      (*S)[0].Text.front() == '.')
    return std::nullopt;
  std::string Name = (*S)[0].Text;
  for (char C : Name)
    if (!isAlnum(C) && C != '_' && C != '.')
      return std::nullopt;
  // `__import__("a.b")` returns the package `a`.
  if (Q == "__import__")
    Name = StringRef(Name).split('.').first.str();
  return Name;
}

/// Whether a dynamic import is an ordinary one: its module is named by a
/// constant string, or its result is only read for non-callable metadata
/// (`m.__version__`, `hasattr(m, ...)`, `m is None`). A result that is
/// called, handed on, returned or stored stays dynamic loading.
bool PythonModelBuilder::ordinaryImport(PyNode Call, StringRef Q, FnState &St) {
  PyNode Args = Call.field("arguments");
  if (importedName(Call, Q))
    return true;
  // A relative name with a constant string: a module of the own package.
  if (Args.numNamed() && !Args.named(0).is("keyword_argument"))
    if (auto S = evalStrings(Args.named(0));
        S && S->size() == 1 && StringRef((*S)[0].Text).starts_with("."))
      return true;
  if (!St.F)
    return false;
  PyNode P = Call.parent();
  while (P.is("parenthesized_expression"))
    P = P.parent();
  if (!P.is("assignment") ||
      !(P.field("right") == Call.parent() || P.field("right") == Call))
    return false;
  PyNode L = P.field("left");
  if (!L.is("identifier"))
    return false;
  std::string Var = L.text().str();
  if (St.Globals.count(Var))
    return false;
  static const char *const Metadata[] = {"__version__", "version",  "VERSION",
                                         "__file__",    "__name__", "__path__",
                                         "__package__", "__doc__"};
  bool Inert = true;
  std::function<void(PyNode)> Scan = [&](PyNode N) {
    if (!Inert)
      return;
    if (N.is("global_statement") || N.is("nonlocal_statement")) {
      for (PyNode C : N.namedChildren())
        if (C.text() == Var)
          Inert = false;
      return;
    }
    if (N.is("identifier") && N.text() == Var && !(N == L)) {
      PyNode Up = N.parent();
      // `m.attr`: `attr` is an attribute name, `m` the object.
      if (Up.is("attribute") && !(Up.field("object") == N))
        return;
      if (Up.is("keyword_argument") && Up.field("name") == N)
        return;
      if (Up.is("attribute")) {
        StringRef Attr = Up.field("attribute").text();
        if (!oneOf(Attr, Metadata)) {
          Inert = false;
          return;
        }
        if (Attr.starts_with("__"))
          return; // strings and lists: their methods run no module code
        // `m.version.cuda`: never called.
        PyNode Top = Up;
        while (Top.parent().is("attribute") &&
               Top.parent().field("object") == Top)
          Top = Top.parent();
        if (Top.parent().is("call") && Top.parent().field("function") == Top)
          Inert = false;
        return;
      }
      if (Up.is("argument_list")) {
        PyNode C = Up.parent();
        StringRef F = C.field("function").text();
        if (F == "hasattr" && Up.numNamed() && Up.named(0) == N)
          return;
        if (F == "getattr" && Up.numNamed() >= 2 && Up.named(0) == N) {
          auto Name = evalStrings(Up.named(1));
          PyNode Outer = C.parent();
          bool Called = Outer.is("call") && Outer.field("function") == C;
          if (Name && Name->size() == 1 &&
              oneOf(StringRef((*Name)[0].Text), Metadata) && !Called)
            return;
        }
        Inert = false;
        return;
      }
      // `m is None`, `if m:`, `not m`.
      if (Up.is("comparison_operator") && identityOrMembership(operatorOf(Up)))
        return;
      if (Up.is("not_operator") || Up.is("if_statement") ||
          Up.is("elif_clause") || Up.is("boolean_operator"))
        return;
      Inert = false;
      return;
    }
    for (unsigned I = 0, E = N.numChildren(); I < E; ++I)
      Scan(N.child(I));
  };
  Scan(bodyOf(*St.F));
  return Inert;
}

void PythonModelBuilder::addSite(FnState &St, PyNode At, SiteKind K,
                                 std::string Name, std::string Key) {
  Site S;
  S.Kind = K;
  S.Name = std::move(Name);
  S.Key = std::move(Key);
  S.Pos = pos(At);
  S.Dead = St.Dead;
  St.Node->Sites.push_back(std::move(S));
}

static std::string operatorName(StringRef Op) {
  if (Op == "@")
    return "at::matmul";
  return ("at::operator" + Op).str();
}

void PythonModelBuilder::visitCall(PyNode Call, FnState &St) {
  PyNode Fn = Call.field("function");
  // A torch function called through a name assembled at run time hides
  // the callee from analysis (VERDICTS: suspicious), whatever it resolves to.
  if (isDynamicTorchLookup(Fn, St) ||
      (Fn.is("identifier") && St.DynamicLookups.count(Fn.text().str()))) {
    Site S;
    S.Kind = SiteKind::Unresolved;
    S.Name = Fn.text().str();
    S.Detail = "call of a torch function looked up by a name assembled at "
               "run time:";
    S.Pos = pos(Call);
    S.Dead = St.Dead;
    St.Node->Sites.push_back(std::move(S));
  }
  // `x.copy_(...)`, `x.zero_()`, `x.fill_(v)`: an overwrite of x in place.
  if (Fn.is("attribute") && !St.InputOf.empty()) {
    static const char *const Overwrites[] = {
        "copy_",      "zero_",       "fill_",       "masked_fill_",
        "index_put_", "index_copy_", "index_fill_", "scatter_",
        "normal_",    "uniform_",    "random_"};
    StringRef A = Fn.field("attribute").text();
    if (llvm::is_contained(Overwrites, A) &&
        resolve(Fn.field("object"), St).K == Ref::Tensor)
      noteInputWrite(Call, Fn.field("object"),
                     ("('" + Fn.text() + "(...)')").str(), St);
  }
  // kernel[grid](...) launches a Triton kernel.
  if (Fn.is("subscript")) {
    Ref K = resolve(Fn.field("value"), St);
    if (K.K == Ref::TritonKernel) {
      addSite(St, Call, SiteKind::Launch, funcName(K.S), K.S);
      return;
    }
  }
  // `launcher = kernel(args); launcher.launch(...)` (FlyDSL's kernels).
  if (Fn.is("attribute") && Fn.field("attribute").text() == "launch" &&
      Fn.field("object").is("identifier")) {
    Ref K = resolve(Fn.field("object"), St);
    if (K.K == Ref::KernelLaunch) {
      walk(Call.field("arguments"), St);
      addSite(St, Call, SiteKind::Launch, funcName(K.S), K.S);
      return;
    }
  }
  // kernel(args).launch(grid=..., block=...) launches a CuTe DSL kernel.
  if (Fn.is("attribute") && Fn.field("attribute").text() == "launch" &&
      Fn.field("object").is("call")) {
    PyNode Inner = Fn.field("object");
    Ref K = resolve(Inner.field("function"), St);
    if (K.K == Ref::TritonKernel) {
      walk(Inner.field("arguments"), St);
      walk(Call.field("arguments"), St);
      addSite(St, Call, SiteKind::Launch, funcName(K.S), K.S);
      return;
    }
  }
  if (ExtByCall.count(Call.startByte()))
    return; // building the extension is glue
  Ref C;
  if (Fn.is("identifier") && Fn.text() == "getattr") {
    C = resolve(Call, St); // getattr(...) itself names the callee
    if (C.K == Ref::None || C.K == Ref::Tensor)
      return;
  } else {
    C = resolve(Fn, St);
  }
  // X.apply(...) of an own torch.autograd.Function runs its forward (and,
  // under autograd, its backward).
  if (C.K == Ref::None && Fn.is("attribute") &&
      Fn.field("attribute").text() == "apply") {
    Ref Cls = resolve(Fn.field("object"), St);
    if (Cls.K == Ref::OwnClass && isAutogradFunction(Cls.S)) {
      for (StringRef Meth : {"forward", "backward"}) {
        Ref R = classMember(Cls.S, Meth);
        if (R.K != Ref::OwnFunction)
          continue;
        addSite(St, Call, SiteKind::Call, Funcs[R.S].Name, R.S);
        if (Meth == "forward")
          recordArgs(R.S, Call.field("arguments"), St);
      }
      return;
    }
  }
  // `bench.run(...)` of a `@triton.testing.perf_report` function runs it.
  if (C.K == Ref::None && Fn.is("attribute") &&
      Fn.field("attribute").text() == "run") {
    Ref Obj = resolve(Fn.field("object"), St);
    if (Obj.K == Ref::OwnFunction && perfReport(Obj.S)) {
      addSite(St, Call, SiteKind::Call, funcName(Obj.S), Obj.S);
      return;
    }
  }
  // A function of the submission's own package that was not read (or is
  // not a function there): own code, not a library's.
  if (C.K == Ref::OwnExternal)
    return;
  if (C.K == Ref::Qualified) {
    StringRef Q = C.S;
    if (Q == "torch.cuda.Stream" || Q == "torch.cuda.streams.Stream" ||
        Q == "torch.Stream" || Q == "torch.cuda.stream" ||
        Q == "torch.cuda.StreamContext" || Q == "torch.cuda.set_stream")
      St.PF->StreamUses.push_back({pos(Call), cxxName(Q)});
    StringRef Last = Q.rsplit('.').second;
    if (Q == "torch.cuda.synchronize" || Last == "wait_stream" ||
        Last == "wait_event")
      St.PF->Joins = true;
    if (Q == "getattr" || Q == "super" || Q == "isinstance" || Q == "len" ||
        Q == "range" || Q == "print")
      return;
    if ((Q == "importlib.import_module" || Q == "__import__") &&
        ordinaryImport(Call, Q, St))
      return;
    // A test runner in a script's `__main__` runs the file's tests.
    if (St.F && St.F->Main && (Q == "pytest.main" || Q == "unittest.main")) {
      for (auto &KV : Funcs) {
        const PyFunc &T = KV.second;
        StringRef Simple = StringRef(T.Name).rsplit('.').second;
        if (Simple.empty())
          Simple = T.Name;
        if (!T.Triton && !T.Main && Simple.starts_with("test"))
          addSite(St, Call, SiteKind::Call, T.Name, T.Key);
      }
    }
    addSite(St, Call, SiteKind::Call, cxxName(Q));
    // Own functions handed to a call in `__main__` (`fire.Fire(main)`,
    // `do_bench(fn)`, `Thread(target=run)`) are run by it; so is the host
    // function CuTe DSL's compiler traces (`cute.compile(host_fn, ...)`).
    if ((St.F && St.F->Main) || isDslCompile(Q))
      for (PyNode A : Call.field("arguments").namedChildren()) {
        PyNode V = A.is("keyword_argument") ? A.field("value") : A;
        if (!V.is("identifier"))
          continue;
        Ref R = resolve(V, St);
        if (R.K == Ref::OwnFunction)
          addSite(St, V, SiteKind::Call, funcName(R.S), R.S);
        // `cute.compile(obj, ...)` traces the object's `@cute.jit __call__`.
        if (R.K == Ref::OwnInstance && Q == "cutlass.cute.compile")
          if (Ref Fn = classMember(R.S, "__call__"); Fn.K == Ref::OwnFunction)
            addSite(St, V, SiteKind::Call, funcName(Fn.S), Fn.S);
      }
    return;
  }
  switch (C.K) {
  case Ref::OwnFunction: {
    addSite(St, Call, SiteKind::Call, funcName(C.S), C.S);
    recordArgs(C.S, Call.field("arguments"), St);
    // An autotuned TileLang factory compiles and runs (benchmarks) the
    // kernel it builds when called.
    const PyFunc *G = findFunc(C.S);
    if (G && G->Autotuned && G->JitFactory && G->Returns.K == Ref::TritonKernel)
      addSite(St, Call, SiteKind::Launch, funcName(G->Returns.S), G->Returns.S);
    return;
  }
  case Ref::TritonKernel:
    // Calling a @triton.jit function directly (not through [grid]) from
    // host code does not launch it; calling an eager `@tilelang.jit`
    // function or a cupyx.jit kernel does.
    if (const PyFunc *K = findFunc(C.S); K && K->LaunchOnCall)
      addSite(St, Call, SiteKind::Launch, funcName(C.S), C.S);
    return;
  case Ref::KernelHandle:
    // A compiled TileLang kernel: its call launches it.
    addSite(St, Call, SiteKind::Launch, funcName(C.S), C.S);
    return;
  case Ref::OwnClass: {
    auto It = Classes.find(C.S);
    if (It != Classes.end()) {
      auto Init = It->second.Methods.find("__init__");
      if (Init != It->second.Methods.end())
        addSite(St, Call, SiteKind::Call, Funcs[Init->second].Name,
                Init->second);
    }
    return;
  }
  case Ref::OwnInstance: {
    Ref Fwd = classMember(C.S, "forward");
    if (Fwd.K != Ref::OwnFunction)
      Fwd = classMember(C.S, "__call__");
    if (Fwd.K == Ref::OwnFunction) {
      addSite(St, Call, SiteKind::Call, Funcs[Fwd.S].Name, Fwd.S);
      recordArgs(Fwd.S, Call.field("arguments"), St);
    }
    return;
  }
  case Ref::ExtFunction: {
    addSite(St, Call, SiteKind::Call, C.Member);
    Facts.PendingSites.push_back({St.Node->Key, St.Node->Sites.size() - 1,
                                  unsigned(std::stoul(C.S)), C.Member});
    return;
  }
  case Ref::TorchLayer:
    addSite(St, Call, SiteKind::Call, cxxName(C.S));
    return;
  case Ref::Stream:
    return;
  default:
    break;
  }
  // Methods: of tensors (at::Tensor::*), of streams and events.
  if (Fn.is("attribute")) {
    StringRef Meth = Fn.field("attribute").text();
    Ref Obj = resolve(Fn.field("object"), St);
    // A TileLang profiler runs its kernel (`assert_allclose(ref)` runs the
    // reference too; `do_bench(fn)` runs fn, `do_bench()` the kernel).
    if (Obj.K == Ref::Profiler &&
        (Meth == "assert_allclose" || Meth == "manual_assert_close" ||
         Meth == "run_once" || Meth == "do_bench")) {
      PyNode First;
      for (PyNode A : Call.field("arguments").namedChildren()) {
        if (A.is("keyword_argument")) {
          StringRef K = A.field("name").text();
          if (K == "func" || K == "reference_program")
            First = A.field("value");
          continue;
        }
        if (!A.is("comment") && !First)
          First = A;
      }
      Ref Arg = First ? resolve(First, St) : Ref();
      // The profiler calls the function it is given with the kernel's
      // inputs: tensors (a reference program, a lambda).
      if (Arg.K == Ref::OwnFunction) {
        addSite(St, First, SiteKind::Call, funcName(Arg.S), Arg.S);
        suppliesTensors(Arg.S);
      } else if (First && First.is("lambda")) {
        std::map<std::string, Ref> Saved = St.Locals;
        if (PyNode Ps = First.field("parameters"))
          for (PyNode P : Ps.namedChildren())
            if (P.is("identifier"))
              St.Locals[P.text().str()] = Ref::of(Ref::Tensor);
        walk(First.field("body"), St);
        St.Locals = std::move(Saved);
      }
      bool Kernel =
          Meth != "do_bench" || !First || Arg.K == Ref::KernelHandle ||
          (First.is("attribute") && First.field("attribute").text() == "func" &&
           resolve(First.field("object"), St).K == Ref::Profiler);
      if (Kernel)
        addSite(St, Call, SiteKind::Launch, funcName(Obj.S), Obj.S);
      return;
    }
    if (Meth == "synchronize" || Meth == "wait_stream" || Meth == "wait_event")
      St.PF->Joins = true;
    if ((Obj.K == Ref::Tensor || Obj.K == Ref::MaybeTensor) &&
        !oneOf(Meth, ContainerMethods))
      addSite(St, Call, SiteKind::Call, ("at::Tensor::" + Meth).str());
    if (Obj.K == Ref::CupyArray && !oneOf(Meth, ContainerMethods))
      addSite(St, Call, SiteKind::Call, ("cupy::ndarray::" + Meth).str());
    // A cache written through a method: CACHE.update(...), self.c.append(x)
    if (!St.Init && oneOf(Meth, ContainerMethods) &&
        (Meth == "append" || Meth == "update" || Meth == "setdefault" ||
         Meth == "extend" || Meth == "insert")) {
      PyNode O = Fn.field("object");
      if (O.is("attribute") && O.field("object").text() == St.SelfName &&
          !St.SelfName.empty())
        St.PF->StateWrites.push_back(
            {pos(Call), ("self." + O.field("attribute").text()).str(),
             "attribute", true});
      else if (O.is("identifier") && ModuleVars.count(O.text().str()) &&
               !St.Locals.count(O.text().str()))
        St.PF->StateWrites.push_back(
            {pos(Call), O.text().str(), "global", true});
    }
  }
}

void PythonModelBuilder::bindTarget(PyNode Target, const Ref &V, FnState &St) {
  if (Target.is("identifier")) {
    Ref &L = St.Locals[Target.text().str()];
    // `x = None` on another path (`else: dW = None`) keeps a tensor a
    // tensor: whatever uses it as one runs when it is one.
    if (V.K == Ref::None && (L.K == Ref::Tensor || L.K == Ref::MaybeTensor) &&
        CurrentValue && CurrentValue.is("none"))
      return;
    L = V;
    if (CurrentValue && isDynamicTorchLookup(CurrentValue, St))
      St.DynamicLookups.insert(Target.text().str());
    else
      St.DynamicLookups.erase(Target.text().str());
    return;
  }
  // A cache of launchers (`self._cache[n] = build(n)`, `_MODS[d] = ...`):
  // an element call (`self._cache[n](x, y)`) calls the launcher.
  if (Target.is("subscript") && isCodeRef(V))
    St.CodeContainers[Target.field("value").text().str()] = V;
  if (Target.is("pattern_list") || Target.is("tuple_pattern") ||
      Target.is("list_pattern")) {
    for (PyNode C : Target.namedChildren())
      bindTarget(C, V.K == Ref::Tensor ? V : Ref(), St);
  }
}

/// Builtins and `math` functions that take numbers, strings or device and
/// dtype descriptions and give numbers, strings or booleans back.
static bool isScalarCallee(PyNode Fn) {
  static const char *const Builtins[] = {
      "int",        "float", "str",    "bool",   "len",  "min",   "max",
      "abs",        "range", "round",  "divmod", "hash", "print", "repr",
      "isinstance", "type",  "format", "pow",    "ord",  "chr",   "id"};
  if (Fn.is("identifier"))
    return oneOf(Fn.text(), Builtins);
  if (Fn.is("attribute"))
    return Fn.field("object").text() == "math";
  return false;
}

/// Metadata of a tensor (its shape, dtype, device, size, stride), never the
/// values it holds: `x.shape[0] * 2`, `x.device`, `(n, 4)`, `torch.int32`.
static bool isMetadataExpr(PyNode E, unsigned Depth = 0) {
  if (!E || Depth > 16)
    return false;
  if (E.is("integer") || E.is("float") || E.is("string") || E.is("true") ||
      E.is("false") || E.is("none") || E.is("identifier"))
    return true;
  if (E.is("attribute")) {
    StringRef A = E.field("attribute").text();
    PyNode O = E.field("object");
    if (A == "shape" || A == "dtype" || A == "device" || A == "ndim" ||
        A == "layout")
      return isMetadataExpr(O, Depth + 1);
    // A module's constant: `torch.int32`, `torch.float8_e4m3fn`.
    PyNode Root = O;
    while (Root.is("attribute"))
      Root = Root.field("object");
    StringRef R = Root.text();
    return Root.is("identifier") &&
           (R == "torch" || R == "np" || R == "numpy" || R == "math");
  }
  if (E.is("call")) {
    PyNode Fn = E.field("function");
    if (Fn.is("attribute")) {
      StringRef M = Fn.field("attribute").text();
      if (!(M == "size" || M == "dim" || M == "numel" || M == "stride" ||
            M == "get_device" || M == "element_size" || M == "current_device" ||
            M == "current_stream" || M == "device"))
        return false;
    } else if (!isScalarCallee(Fn)) {
      return false;
    }
    for (PyNode A : E.field("arguments").namedChildren())
      if (!isMetadataExpr(A.is("keyword_argument") ? A.field("value") : A,
                          Depth + 1))
        return false;
    return true;
  }
  if (E.is("subscript"))
    return isMetadataExpr(E.field("value"), Depth + 1) &&
           isMetadataExpr(E.field("subscript"), Depth + 1);
  if (E.is("binary_operator") || E.is("unary_operator") ||
      E.is("parenthesized_expression") || E.is("tuple") || E.is("list") ||
      E.is("expression_list") || E.is("keyword_argument") ||
      E.is("argument_list")) {
    if (E.is("binary_operator") && E.field("operator").text() == "@")
      return false;
    for (PyNode C : E.namedChildren())
      if (!isMetadataExpr(C.is("keyword_argument") ? C.field("value") : C,
                          Depth + 1))
        return false;
    return true;
  }
  return false;
}

/// A new tensor whose content depends on no input: `torch.zeros(n, dtype=...,
/// device=x.device)`, `torch.ones(1)`, `torch.empty(shape)`.
static bool isFreshAllocation(PyNode E, StringRef Callee) {
  static const char *const Allocs[] = {"torch.zeros",  "torch.ones",
                                       "torch.empty",  "torch.full",
                                       "torch.arange", "torch.eye"};
  if (!E.is("call") || !oneOf(Callee, Allocs))
    return false;
  PyNode Args = E.field("arguments");
  return Args && isMetadataExpr(Args);
}

/// Every use of \p Name in \p Body treats it as a number, a string or a
/// device, dtype or stream description, never as a tensor: arithmetic with a
/// literal, comparisons, conditions, scalar builtins (`int`, `min`, `str`),
/// `device=`/`dtype=` arguments, a name bound to it that is used so in turn.
static bool usedOnlyAsScalar(PyNode Body, StringRef Name, unsigned Depth = 0);

static bool scalarUse(PyNode Id, PyNode Body, unsigned Depth) {
  PyNode P = Id.parent();
  while (P.is("parenthesized_expression")) {
    Id = P;
    P = P.parent();
  }
  if (P.is("comparison_operator") || P.is("boolean_operator") ||
      P.is("not_operator") || P.is("interpolation") ||
      P.is("global_statement") || P.is("nonlocal_statement") ||
      P.is("parameters") || P.is("default_parameter") ||
      P.is("typed_parameter") || P.is("typed_default_parameter") ||
      P.is("if_statement") || P.is("elif_clause") || P.is("while_statement") ||
      P.is("assert_statement"))
    return true;
  if (P.is("attribute"))
    return P.field("attribute") == Id; // `o.name`: not the variable
  if (P.is("unary_operator"))
    return scalarUse(P, Body, Depth);
  if (P.is("binary_operator")) {
    StringRef Op = P.field("operator").text();
    if (Op == "@")
      return false;
    PyNode Other = P.field("left") == Id ? P.field("right") : P.field("left");
    return Other.is("integer") || Other.is("float") || Op == "//" ||
           Op == "%" || Op == "<<" || Op == ">>";
  }
  if (P.is("conditional_expression")) // `a if c else b`: c is a condition
    return P.numNamed() == 3 && P.named(1) == Id;
  if (P.is("keyword_argument")) {
    if (P.field("name") == Id)
      return true;
    StringRef K = P.field("name").text();
    return K == "device" || K == "dtype" || K == "stream" || K == "layout";
  }
  if (P.is("argument_list"))
    return isScalarCallee(P.parent().field("function"));
  if (P.is("assignment") || P.is("augmented_assignment")) {
    if (P.field("left") == Id)
      return true; // rebound
    PyNode L = P.field("left");
    if (P.is("assignment") && P.field("right") == Id && L.is("identifier") &&
        Depth < 4)
      return usedOnlyAsScalar(Body, L.text(), Depth + 1);
    return false;
  }
  return false;
}

static bool usedOnlyAsScalar(PyNode Body, StringRef Name, unsigned Depth) {
  bool Ok = true;
  std::function<void(PyNode)> Walk = [&](PyNode N) {
    if (!Ok)
      return;
    if (N.is("identifier") && N.text() == Name) {
      Ok = scalarUse(N, Body, Depth);
      return;
    }
    for (PyNode C : N.namedChildren())
      Walk(C);
  };
  Walk(Body);
  return Ok;
}

/// The function definition that holds \p N, or a null node at module level.
static PyNode enclosingFunction(PyNode N) {
  for (PyNode P = N.parent(); P; P = P.parent())
    if (P.is("function_definition"))
      return P;
  return {};
}

/// Whether a value that \p IsSource matches reaches a `return` of the
/// function it is in: `return f()`, `return cache[k]`, or a name bound to it
/// there (`v = f()`, `a, b = f()`) that a `return` mentions.
static bool reachesReturn(PyNode Root,
                          llvm::function_ref<bool(PyNode)> IsSource) {
  bool Found = false;
  auto NamesReturned = [&](PyNode Fn, const std::set<std::string> &Names) {
    bool Hit = false;
    std::function<void(PyNode, bool)> Walk = [&](PyNode N, bool InReturn) {
      if (Hit)
        return;
      if (N.is("function_definition") && !(N == Fn))
        return; // a nested definition returns to its own callers
      InReturn = InReturn || N.is("return_statement");
      if (InReturn && N.is("identifier") && Names.count(N.text().str())) {
        Hit = true;
        return;
      }
      for (PyNode C : N.namedChildren())
        Walk(C, InReturn);
    };
    Walk(Fn ? Fn.field("body") : Root, false);
    return Hit;
  };
  std::function<void(PyNode)> Walk = [&](PyNode N) {
    if (Found)
      return;
    if (IsSource(N)) {
      PyNode Cur = N;
      for (PyNode P = N.parent(); P; Cur = P, P = P.parent()) {
        if (P.is("return_statement")) {
          Found = true;
          return;
        }
        if (P.is("assignment")) {
          if (!(P.field("right") == Cur))
            break;
          std::set<std::string> Names;
          PyNode L = P.field("left");
          if (L.is("identifier"))
            Names.insert(L.text().str());
          for (PyNode C : L.namedChildren())
            if (C.is("identifier"))
              Names.insert(C.text().str());
          if (!Names.empty() && NamesReturned(enclosingFunction(P), Names))
            Found = true;
          break;
        }
        if (P.is("expression_statement") || P.is("block") ||
            P.is("function_definition") || P.is("module"))
          break;
      }
    }
    for (PyNode C : N.namedChildren())
      Walk(C);
  };
  Walk(Root);
  return Found;
}

bool PythonModelBuilder::isFreshValue(PyNode Value, PyNode Target) {
  auto Fresh = [&](PyNode E) {
    return E.is("call") &&
           isFreshAllocation(E, qualifiedOf(E.field("function")));
  };
  if (Fresh(Value))
    return true;
  if (!Value.is("identifier"))
    return false;
  StringRef Name = Value.text();
  PyNode Stmt = Target.parent();
  while (Stmt && !Stmt.is("expression_statement"))
    Stmt = Stmt.parent();
  PyNode Block = Stmt ? Stmt.parent() : PyNode();
  if (!Block || !Block.is("block"))
    return false;
  std::vector<PyNode> Stmts = Block.namedChildren();
  auto It = std::find(Stmts.begin(), Stmts.end(), Stmt);
  auto Mentions = [&](PyNode N) {
    bool Hit = false;
    std::function<void(PyNode)> W = [&](PyNode X) {
      if (Hit)
        return;
      if (X.is("identifier") && X.text() == Name &&
          !(X.parent().is("attribute") && X.parent().field("attribute") == X))
        Hit = true;
      for (PyNode C : X.namedChildren())
        W(C);
    };
    W(N);
    return Hit;
  };
  while (It != Stmts.begin()) {
    PyNode S = *--It;
    PyNode A = S.is("expression_statement") && S.numNamed() == 1 ? S.named(0)
                                                                 : PyNode();
    if (A && A.is("assignment") && A.field("left").is("identifier") &&
        A.field("left").text() == Name)
      return A.field("right") && Fresh(A.field("right"));
    if (Mentions(S))
      return false;
  }
  return false;
}

bool PythonModelBuilder::keyHoldsNoData(PyNode Key, FnState &St) {
  if (!Key || !isMetadataExpr(Key))
    return false;
  auto DataName = [&](PyNode N) {
    if (!N.is("identifier"))
      return false;
    Ref::Kind K = resolve(N, St).K;
    return K == Ref::Tensor || K == Ref::MaybeTensor;
  };
  if (DataName(Key))
    return false;
  if (Key.is("tuple") || Key.is("expression_list") ||
      Key.is("parenthesized_expression"))
    for (PyNode C : Key.namedChildren())
      if (DataName(C))
        return false;
  return true;
}

void PythonModelBuilder::checkStateWrite(PyNode Target, PyNode Value,
                                         FnState &St, bool Augmented) {
  if (St.Init)
    return;
  bool Risky = false;
  PyNode Base = Target;
  if (Target.is("subscript")) {
    Base = Target.field("value");
    Risky = true; // a container keyed on something: a cache
  }
  if (Value && resolve(Value, St).K == Ref::Tensor)
    Risky = true;
  // A cache of compiled code (`self.compiled[key] = cute.compile(...)`, or a
  // local bound to it) keeps no outputs.
  if (Value && isCompiledValue(Value, St))
    Risky = false;
  if (Value && (Value.is("call") || Value.is("identifier")) && !Augmented &&
      resolve(Value, St).K == Ref::None && Target.is("attribute"))
    Risky = Risky || Value.is("identifier"); // storing a local (the output?)
  // A new tensor whose content depends on no input, kept by a key that
  // holds no input data and never handed back as the entry's result
  // (`_masks[x.device] = torch.ones(1, ...)`, split-K semaphores): a
  // workspace, not a cache of outputs.
  if (Risky && Value && !Augmented && isFreshValue(Value, Target) &&
      (!Target.is("subscript") ||
       keyHoldsNoData(Target.field("subscript"), St))) {
    StringRef Held = Base.text();
    if (!reachesReturn(T.root(), [&](PyNode N) {
          return (N.is("identifier") || N.is("attribute")) && N.text() == Held;
        }))
      Risky = false;
  }
  if (Base.is("attribute") && !St.SelfName.empty() &&
      Base.field("object").text() == St.SelfName) {
    St.PF->StateWrites.push_back(
        {pos(Target), ("self." + Base.field("attribute").text()).str(),
         "attribute", Risky});
    return;
  }
  if (Base.is("identifier")) {
    std::string N = Base.text().str();
    bool Global =
        St.Globals.count(N) ||
        (Target.is("subscript") && !St.Locals.count(N) && ModuleVars.count(N));
    if (Global)
      St.PF->StateWrites.push_back({pos(Target), N, "global", Risky});
  }
}

void PythonModelBuilder::visitAssign(PyNode N, FnState &St) {
  PyNode L = N.field("left"), R = N.field("right");
  bool Augmented = N.is("augmented_assignment");
  if (R)
    walk(R, St);
  // Subscripts and attributes on the left are walked for their calls.
  if (L && !L.is("identifier"))
    for (PyNode C : L.namedChildren())
      if (!C.is("identifier"))
        walk(C, St);
  if (Augmented) {
    Ref LV = resolve(L, St), RV = resolve(R, St);
    if (LV.K == Ref::Tensor || RV.K == Ref::Tensor)
      addSite(St, N, SiteKind::Call,
              ("at::Tensor::operator" + N.field("operator").text()).str());
    else if (LV.K == Ref::CupyArray || RV.K == Ref::CupyArray)
      addSite(St, N, SiteKind::Call,
              ("cupy::ndarray::operator" + N.field("operator").text()).str());
  } else if (L && L.is("subscript") && isEnviron(L.field("value"))) {
    addSite(St, L.field("value"), SiteKind::Call, "os::environ::__setitem__");
  } else if (L && L.is("subscript") && R &&
             resolve(L.field("value"), St).K == Ref::Tensor) {
    // `out[...] = x` copies into the tensor (`out[mask] = 0` fills it).
    PyNode V = R.is("unary_operator") ? R.named(0) : R;
    bool Fill =
        V.is("integer") || V.is("float") || V.is("true") || V.is("false");
    addSite(St, L, SiteKind::Call,
            Fill ? "at::Tensor::fill_" : "at::Tensor::copy_");
    noteInputWrite(L, L.field("value"), ("('" + L.text() + " = ...')").str(),
                   St);
  }
  checkStateWrite(L, R, St, Augmented);
  if (!R)
    return;
  Ref V = resolve(R, St);
  if (Augmented)
    return;
  CurrentValue = R;
  if (R.is("tuple") || R.is("expression_list")) {
    std::vector<PyNode> Ls = L.namedChildren(), Rs = R.namedChildren();
    if ((L.is("pattern_list") || L.is("tuple_pattern")) &&
        Ls.size() == Rs.size()) {
      for (size_t I = 0; I < Ls.size(); ++I)
        bindTarget(Ls[I], resolve(Rs[I], St), St);
      return;
    }
  }
  if (L.is("identifier")) {
    if (isCompiledValue(R, St))
      St.CompiledLocals.insert(L.text().str());
    else
      St.CompiledLocals.erase(L.text().str());
  }
  bindTarget(L, V, St);
  if (L.is("pattern_list") || L.is("tuple_pattern")) {
    std::vector<PyNode> Ls = L.namedChildren();
    for (size_t I = 0; I < Ls.size(); ++I)
      if (Ref E = tupleElement(R, I, St); E.K != Ref::None)
        bindTarget(Ls[I], E, St);
  }
  CurrentValue = PyNode();
}

bool PythonModelBuilder::isDynamicTorchLookup(PyNode V, FnState &St) {
  if (!V.is("call") || !V.field("function").is("identifier") ||
      V.field("function").text() != "getattr")
    return false;
  PyNode Args = V.field("arguments");
  if (Args.numNamed() < 2)
    return false;
  Ref M = resolve(Args.named(0), St);
  if (M.K != Ref::Qualified ||
      !(M.S == "torch" || StringRef(M.S).starts_with("torch.")))
    return false;
  PyNode Name = Args.named(1);
  if (Name.is("string") && evalStrings(Name))
    return false; // a literal
  if (Name.is("identifier") && evalStrings(Name))
    return false; // a named constant
  return true;
}

bool PythonModelBuilder::isCompiledValue(PyNode V, FnState &St) {
  if ((V.is("identifier") || V.is("call")) && isCodeRef(resolve(V, St)))
    return true; // a built launcher or kernel: code, not outputs
  if (V.is("identifier"))
    return St.CompiledLocals.count(V.text().str()) > 0;
  if (!V.is("call"))
    return false;
  std::string Q = qualifiedOf(V.field("function"));
  return isDslCompile(Q) || Q == "triton.compile";
}

void PythonModelBuilder::walk(PyNode N, FnState &St) {
  if (!N)
    return;
  StringRef Ty = N.type();
  if (Ty == "comment" || Ty == "string" || Ty == "concatenated_string")
    return;
  if (Ty == "function_definition" || Ty == "class_definition" ||
      Ty == "decorated_definition") {
    PyNode D = N;
    if (Ty == "decorated_definition")
      D = N.field("definition");
    // Kernels and classes defined here have nodes of their own: the name
    // is bound to them, and a class's methods count as part of the holder
    // (its code runs when the holder uses the class).
    auto It = NestedByDef.find(D.startByte());
    if (It != NestedByDef.end()) {
      std::string Name = D.field("name").text().str();
      if (!It->second.Class) {
        const PyFunc *K = findFunc(It->second.Key);
        St.Locals[Name] = nestedRef(K, It->second.Key);
        return;
      }
      St.Locals[Name] = Ref::of(Ref::OwnClass, It->second.Key);
      for (auto &KV : Classes[It->second.Key].Methods)
        if (!Funcs[KV.second].Triton)
          addSite(St, D.field("name"), SiteKind::Call, funcName(KV.second),
                  KV.second);
      return;
    }
    // Other nested definitions run when called; their bodies count as the
    // holder's (closures, local helpers).
    walk(D.field("body"), St);
    return;
  }
  if (Ty == "global_statement" || Ty == "nonlocal_statement") {
    for (PyNode C : N.namedChildren())
      St.Globals.insert(C.text().str());
    return;
  }
  if (Ty == "assignment" || Ty == "augmented_assignment") {
    visitAssign(N, St);
    return;
  }
  if (Ty == "if_statement") {
    PyNode Cond = N.field("condition");
    bool False =
        Cond.is("false") || Cond.text() == "0" || Cond.text() == "None";
    bool True = Cond.is("true") || Cond.text() == "1";
    walk(Cond, St);
    bool Saved = St.Dead;
    St.Dead = Saved || False;
    walk(N.field("consequence"), St);
    St.Dead = Saved || True;
    for (PyNode C : N.namedChildren())
      if (C.is("elif_clause") || C.is("else_clause"))
        walk(C, St);
    St.Dead = Saved;
    return;
  }
  if (Ty == "call") {
    visitCall(N, St);
    for (PyNode C : N.namedChildren())
      walk(C, St);
    return;
  }
  if (Ty == "binary_operator" || Ty == "comparison_operator" ||
      Ty == "unary_operator") {
    // Compute only with an operand known to be a tensor; `is`, `in` (and
    // their negations) test identity and membership, never tensor values.
    StringRef Op = operatorOf(N);
    bool Tensor = false, Cupy = false;
    if (!identityOrMembership(Op))
      for (PyNode C : N.namedChildren()) {
        Ref::Kind K = resolve(C, St).K;
        Tensor |= K == Ref::Tensor;
        Cupy |= K == Ref::CupyArray;
      }
    PyNode At = N.field("operator");
    if (Tensor)
      addSite(St, At ? At : N, SiteKind::Call, operatorName(Op));
    else if (Cupy)
      addSite(St, At ? At : N, SiteKind::Call,
              ("cupy::ndarray::operator" + Op).str());
    // `"SEED" in os.environ` reads the environment as `os.environ.get` does.
    if (Ty == "comparison_operator" && Op.ends_with("in") &&
        N.numNamed() == 2 && isEnviron(N.named(1)))
      addSite(St, N.named(1), SiteKind::Call, "os::environ::__contains__");
    for (PyNode C : N.namedChildren())
      walk(C, St);
    return;
  }
  if (Ty == "return_statement" || Ty == "yield") {
    for (PyNode C : N.namedChildren()) {
      std::vector<PyNode> Vals = C.is("expression_list") || C.is("tuple")
                                     ? C.namedChildren()
                                     : std::vector<PyNode>{C};
      for (size_t VI = 0; VI < Vals.size(); ++VI) {
        PyNode V = Vals[VI];
        Ref R = resolve(V, St);
        // `return launch, meta`: a launcher in a tuple (FlyDSL builders).
        if (Ty == "return_statement" && Vals.size() > 1 &&
            St.Returns.K == Ref::None && isCodeRef(R)) {
          St.Returns = R;
          St.ReturnsIndex = int(VI);
        }
        St.ReturnsTensor |= R.K == Ref::Tensor;
        if (Ty == "return_statement" && !V.is("none")) {
          St.ReturnsValue = true;
          std::vector<PyNode> Parts = V.is("tuple") || V.is("list")
                                          ? V.namedChildren()
                                          : std::vector<PyNode>{V};
          for (PyNode P : Parts)
            if (std::string I = inputOf(P, St); !I.empty())
              St.ReturnedInputs.insert(I);
        }
        if (Ty == "return_statement" && Vals.size() == 1 &&
            St.Returns.K == Ref::None &&
            (R.K == Ref::TritonKernel || R.K == Ref::KernelHandle ||
             (R.K == Ref::OwnFunction && findFunc(R.S) &&
              findFunc(R.S)->JitHost)))
          St.Returns = R;
      }
      walk(C, St);
    }
    return;
  }
  // `os.environ["X"]` reads the environment.
  if (Ty == "subscript" && isEnviron(N.field("value"))) {
    addSite(St, N.field("value"), SiteKind::Call, "os::environ::__getitem__");
    walk(N.field("subscript"), St);
    return;
  }
  for (PyNode C : N.namedChildren())
    walk(C, St);
}

bool PythonModelBuilder::isAutogradFunction(const std::string &Class,
                                            unsigned Depth) {
  auto It = Classes.find(Class);
  if (It == Classes.end() || Depth > 8)
    return false;
  for (const std::string &Q : It->second.QualBases)
    if (StringRef(Q).ends_with("autograd.Function"))
      return true;
  for (const std::string &B : It->second.Bases)
    if (isAutogradFunction(B, Depth + 1))
      return true;
  return false;
}

/// Scalar annotations: `int`, `Optional[int]`, `tl.constexpr`,
/// `torch.dtype`, containers of anything but tensors.
static bool scalarAnnotation(StringRef Ty) {
  Ty = Ty.trim();
  for (StringRef P : {"typing.", "Optional[", "Union["})
    Ty.consume_front(P);
  static const char *const Scalars[] = {
      "int",          "float",        "str",
      "bool",         "complex",      "bytes",
      "tl.constexpr", "constexpr",    "triton.language.constexpr",
      "torch.dtype",  "torch.device", "dtype",
      "device",       "list",         "List",
      "dict",         "Dict",         "tuple",
      "Tuple",        "Sequence",     "set",
      "Set",          "Iterable",     "torch.Size"};
  for (const char *S : Scalars) {
    size_t L = strlen(S);
    if (Ty.starts_with(S) &&
        (Ty.size() == L || !(isAlnum(Ty[L]) || Ty[L] == '_')))
      return true;
  }
  return false;
}

std::vector<PythonModelBuilder::PyParam>
PythonModelBuilder::params(const PyFunc &F) {
  std::vector<PyParam> Out;
  bool ReceiverFirst =
      !F.Class.empty() && (!F.Static || isAutogradFunction(F.Class));
  for (PyNode P : F.Def.field("parameters").namedChildren()) {
    PyParam Pa;
    PyNode Id = P;
    if (P.is("typed_parameter") || P.is("typed_default_parameter") ||
        P.is("default_parameter")) {
      Id = P.is("typed_parameter") ? P.named(0) : P.field("name");
      StringRef Ty = P.field("type").text();
      Pa.Tensor = torchTensorAnnotation(Ty);
      // A type of another imported module (`cute.Tensor`, `cutlass.Int32`,
      // `np.ndarray`) is not PyTorch's tensor.
      Pa.Foreign = !Pa.Tensor && foreignAnnotation(Ty);
      Pa.NonTensor = !Pa.Tensor && !Ty.empty() && scalarAnnotation(Ty);
      PyNode Def = P.field("value");
      if (Def && Def.is("unary_operator"))
        Def = Def.named(0);
      if (!Pa.Tensor && Def &&
          (Def.is("integer") || Def.is("float") || Def.is("string") ||
           Def.is("true") || Def.is("false") || Def.is("tuple") ||
           Def.is("list")))
        Pa.NonTensor = true;
    }
    if (!Id.is("identifier"))
      continue; // *args, **kwargs, `*`, `/`
    Pa.Name = Id.text().str();
    Pa.Receiver = Out.empty() && ReceiverFirst;
    Out.push_back(std::move(Pa));
  }
  return Out;
}

/// The names used as tensors in \p Body: `x.shape`, `x.stride(0)`,
/// `x.contiguous()`, ... (an int or a list has none of these).
bool PythonModelBuilder::namesModule(PyNode N, StringRef Mod) {
  if (!N || N.is("string") || N.is("comment"))
    return false;
  if (N.is("identifier") || N.is("attribute")) {
    StringRef Q =
        QualCache.try_emplace(N.startByte(), qualifiedOf(N)).first->second;
    if (Q == Mod ||
        (Q.starts_with(Mod) && Q.drop_front(Mod.size()).starts_with(".")))
      return true;
    if (N.is("identifier"))
      return false;
  }
  for (PyNode C : N.namedChildren())
    if (namesModule(C, Mod))
      return true;
  return false;
}

std::set<std::string> PythonModelBuilder::tensorUses(PyNode Body) {
  static const char *const Evidence[] = {"contiguous",
                                         "view",
                                         "reshape",
                                         "cuda",
                                         "cpu",
                                         "half",
                                         "bfloat16",
                                         "T",
                                         "mT",
                                         "transpose",
                                         "permute",
                                         "unsqueeze",
                                         "squeeze",
                                         "expand",
                                         "expand_as",
                                         "flatten",
                                         "clone",
                                         "copy_",
                                         "zero_",
                                         "fill_",
                                         "view_as",
                                         "new_empty",
                                         "new_zeros",
                                         "is_contiguous",
                                         "data_ptr",
                                         "numel",
                                         "stride",
                                         "dim",
                                         "ndim",
                                         "shape",
                                         "dtype",
                                         "device",
                                         "element_size",
                                         "is_cuda",
                                         "storage_offset",
                                         "untyped_storage",
                                         "requires_grad",
                                         "nelement",
                                         "ndimension"};
  std::set<std::string> Out;
  std::function<void(PyNode)> Scan = [&](PyNode N) {
    if (N.is("attribute") && N.field("object").is("identifier") &&
        oneOf(N.field("attribute").text(), Evidence))
      Out.insert(N.field("object").text().str());
    for (PyNode C : N.namedChildren())
      Scan(C);
  };
  Scan(Body);
  return Out;
}

/// A call of an own function: a tensor argument makes the parameter a
/// tensor (a fixpoint over the passes of buildFunctions).
void PythonModelBuilder::recordArgs(const std::string &Callee, PyNode Args,
                                    FnState &St) {
  auto FIt = Funcs.find(Callee);
  if (FIt == Funcs.end() || !Args.is("argument_list"))
    return;
  PyFunc &F = FIt->second;
  std::vector<PyParam> Ps = params(F);
  if (!Ps.empty() && Ps.front().Receiver)
    Ps.erase(Ps.begin());
  size_t Pos = 0;
  bool Splat = false;
  for (PyNode A : Args.namedChildren()) {
    std::string Name;
    PyNode V = A;
    if (A.is("comment"))
      continue;
    if (A.is("list_splat") || A.is("dictionary_splat")) {
      Splat = true;
      continue;
    }
    if (A.is("keyword_argument")) {
      Name = A.field("name").text().str();
      V = A.field("value");
    } else if (!Splat && Pos < Ps.size()) {
      Name = Ps[Pos++].Name;
    } else {
      continue;
    }
    Ref R = resolve(V, St);
    if (R.K == Ref::Tensor || R.K == Ref::MaybeTensor)
      F.TensorishArgs.insert(Name);
    if (R.K == Ref::Tensor && F.TensorParams.insert(Name).second)
      Promoted = true;
    if (R.K == Ref::CupyArray && F.CupyParams.insert(Name).second)
      Promoted = true;
    if (R.K == Ref::KernelHandle && F.HandleParams[Name] != R.S) {
      F.HandleParams[Name] = R.S;
      Promoted = true;
    }
  }
}

bool PythonModelBuilder::foreignAnnotation(StringRef Ty) {
  bool Foreign = false;
  for (size_t I = 0; I < Ty.size();) {
    if (!(isAlpha(Ty[I]) || Ty[I] == '_')) {
      ++I;
      continue;
    }
    size_t E = I;
    while (E < Ty.size() && (isAlnum(Ty[E]) || Ty[E] == '_' || Ty[E] == '.'))
      ++E;
    StringRef Head = Ty.slice(I, E).split('.').first;
    I = E;
    auto A = Aliases.find(Head);
    if (A == Aliases.end() || isOwn(A->second))
      continue; // own types may alias tensors (GPU MODE's `input_t`)
    StringRef Mod = A->second;
    if (Mod.starts_with("torch"))
      return false;
    if (!Mod.starts_with("typing") && !Mod.starts_with("collections"))
      Foreign = true;
  }
  return Foreign;
}

void PythonModelBuilder::suppliesTensors(const std::string &Callee) {
  auto FIt = Funcs.find(Callee);
  if (FIt == Funcs.end())
    return;
  PyFunc &F = FIt->second;
  for (const PyParam &P : params(F))
    if (!P.Receiver && !P.NonTensor && !P.Foreign &&
        F.TensorParams.insert(P.Name).second)
      Promoted = true;
}

bool PythonModelBuilder::torchTensorAnnotation(StringRef Ty) {
  // Every dotted name ending in `Tensor`: PyTorch's unless its module is
  // imported from elsewhere (`cute` = `cutlass.cute`).
  bool Torch = false;
  size_t From = 0;
  while ((From = Ty.find("Tensor", From)) != StringRef::npos) {
    size_t End = From + 6, Begin = From;
    From = End;
    if (End < Ty.size() && (isAlnum(Ty[End]) || Ty[End] == '_'))
      continue; // `TensorList`, `TensorSpec`
    while (Begin && (isAlnum(Ty[Begin - 1]) || Ty[Begin - 1] == '_' ||
                     Ty[Begin - 1] == '.'))
      --Begin;
    StringRef Name = Ty.slice(Begin, End);
    StringRef Head = Name.split('.').first;
    auto A = Aliases.find(Head);
    if (A == Aliases.end() || StringRef(A->second).starts_with("torch"))
      Torch = true; // `torch.Tensor`, `Tensor`, an unknown module's
  }
  return Torch;
}

std::string PythonModelBuilder::inputOf(PyNode V, const FnState &St) {
  if (!V)
    return "";
  if (V.is("parenthesized_expression") && V.numNamed() == 1)
    return inputOf(V.named(0), St);
  if (V.is("identifier")) {
    auto It = St.InputOf.find(V.text().str());
    return It == St.InputOf.end() ? "" : It->second;
  }
  if (V.is("subscript")) {
    std::string Base = inputOf(V.field("value"), St);
    PyNode Idx = V.field("subscript");
    if (!Base.empty() && Idx && Idx.is("integer"))
      return Base + "[" + Idx.text().str() + "]";
  }
  return "";
}

/// The locals that are a harness input or a constant element of one
/// (`a, b, c = data`, `out = data[2]`), flow-insensitively: a name also
/// bound to anything else (`x = x.contiguous()`) is none.
void PythonModelBuilder::bindInputs(PyNode Body, FnState &St) {
  std::map<std::string, std::string> Bound;
  std::set<std::string> Other;
  std::function<void(PyNode)> Scan = [&](PyNode N) {
    if (!N || N.is("function_definition") || N.is("class_definition") ||
        N.is("lambda"))
      return;
    if (N.is("assignment") || N.is("augmented_assignment")) {
      PyNode L = N.field("left"), R = N.field("right");
      auto Bind = [&](PyNode T, const std::string &I) {
        if (!T.is("identifier"))
          return;
        std::string Name = T.text().str();
        if (I.empty() || N.is("augmented_assignment") ||
            (Bound.count(Name) && Bound[Name] != I))
          Other.insert(Name);
        else
          Bound[Name] = I;
      };
      if (L && (L.is("pattern_list") || L.is("tuple_pattern") ||
                L.is("list_pattern"))) {
        std::string Whole = inputOf(R, St);
        std::vector<PyNode> Ts = L.namedChildren();
        std::vector<PyNode> Rs = R && (R.is("tuple") || R.is("expression_list"))
                                     ? R.namedChildren()
                                     : std::vector<PyNode>();
        for (size_t I = 0; I < Ts.size(); ++I)
          Bind(Ts[I], !Whole.empty()  ? Whole + "[" + std::to_string(I) + "]"
                      : I < Rs.size() ? inputOf(Rs[I], St)
                                      : std::string());
      } else if (L) {
        Bind(L, inputOf(R, St));
      }
    } else if (N.is("for_statement") || N.is("with_item") ||
               N.is("named_expression")) {
      // Loop variables and `as` targets are bound to something else.
      std::function<void(PyNode)> Kill = [&](PyNode T) {
        if (T.is("identifier"))
          Other.insert(T.text().str());
        for (PyNode C : T.namedChildren())
          Kill(C);
      };
      if (PyNode T =
              N.is("named_expression") ? N.field("name") : N.field("left"))
        Kill(T);
      if (N.is("with_item"))
        if (PyNode V = N.field("value"); V && V.is("as_pattern"))
          if (PyNode A = V.field("alias"))
            Kill(A);
    }
    for (PyNode C : N.namedChildren())
      Scan(C);
  };
  // Twice, for names bound through another (`t = data; a, b = t`).
  for (int Pass = 0; Pass < 2; ++Pass) {
    Bound.clear();
    Other.clear();
    Scan(Body);
    for (auto &KV : Bound)
      if (!Other.count(KV.first) && !St.InputOf.count(KV.first))
        St.InputOf[KV.first] = KV.second;
  }
  // A parameter rebound in the body is no longer the input everywhere.
  for (const std::string &N : Other)
    St.InputOf.erase(N);
}

void PythonModelBuilder::noteInputWrite(PyNode At, PyNode Obj, StringRef How,
                                        FnState &St) {
  std::string I = inputOf(Obj, St);
  if (I.empty())
    return;
  St.InputWrites.push_back({At, Obj.text().str(), I, How.str()});
}

void PythonModelBuilder::walkFunction(PyFunc &F) {
  FunctionNode &Node = M.Functions[F.Key];
  Node.Key = F.Key;
  Node.Name = F.Name;
  Node.Display = F.Name;
  Node.Pos = pos(F.Main ? F.Def : F.Script ? F.Body : F.Def.field("name"));
  Node.HasBody = true;
  Node.IsKernel = F.Triton;
  if (F.Triton)
    Node.Dsl = F.Dsl;
  Node.IsDeviceOnly = F.Triton || F.Device;
  if (F.Triton || F.Device)
    return; // device code: tl.* (T.*, cute.*) is the DSL
  FnState St;
  St.F = &F;
  St.Node = &Node;
  St.PF = &Facts.Functions[F.Key];
  if (!F.Class.empty())
    St.Class = &Classes[F.Class];
  St.Init = StringRef(F.Name).ends_with(".__init__");
  // A host function defined in a builder (`def make_gemm(K): @flyc.kernel
  // def gemm_kernel(...): ...; @flyc.jit def launch(...): gemm_kernel(...)
  // .launch(...)`) sees the kernels and hosts defined beside it.
  if (F.Nested) {
    StringRef Outer = StringRef(F.Local).rsplit('.').first;
    for (const auto &KV : Funcs) {
      const PyFunc &G = KV.second;
      if (!G.Nested || &G == &F)
        continue;
      StringRef L = G.Local;
      if (!L.consume_front(Outer) || !L.consume_front(".") || L.contains('.'))
        continue;
      St.Locals[L.str()] = nestedRef(&G, G.Key);
    }
  }
  bool Autograd = !F.Class.empty() && isAutogradFunction(F.Class);
  // The parameters a harness passes tensors in are tensors: those of
  // `forward`/`backward` methods and of the named or harness entries. Other
  // untyped parameters are tensors once the body uses them as tensors or a
  // caller passes a tensor; until then operators on them are not compute.
  StringRef Simple = StringRef(F.Name).rsplit('.').second;
  if (Simple.empty())
    Simple = F.Name;
  bool HarnessParams =
      (!F.Class.empty() && (Simple == "forward" || Simple == "backward")) ||
      (F.Module && Simple == "custom_kernel") ||
      llvm::is_contained(EntryNames, F.Name) ||
      llvm::is_contained(EntryNames, Simple.str());
  std::set<std::string> Used = tensorUses(bodyOf(F));
  // A helper that builds FlyDSL code (`fx.*`, `flydsl.expr.*`) and never
  // names torch is trace-time DSL code (a kernel's or a `@flyc.jit` host's
  // helper): its untyped parameters are DSL values, whatever methods the
  // body calls on them (`y.to(dtype)`, `v.bitcast(...)`, `u >> 16`).
  // In a FlyDSL module, a function that never names torch is such code too
  // unless a caller passes it a tensor.
  bool NoTorch = !HarnessParams && importsModule("flydsl") &&
                 !namesModule(bodyOf(F), "torch");
  bool DslHelper = NoTorch && namesModule(bodyOf(F), "flydsl");
  bool First = true;
  for (const PyParam &P : params(F)) {
    if (First && P.Receiver) {
      First = false;
      if (Autograd && F.Static)
        St.Locals[P.Name] = Ref::of(Ref::AutogradCtx);
      else
        St.SelfName = P.Name;
      continue;
    }
    First = false;
    Ref V;
    if (!P.Tensor && (DslHelper || (NoTorch && !F.TensorParams.count(P.Name))))
      ; // a DSL value
    else if (auto H = F.HandleParams.find(P.Name);
             H != F.HandleParams.end() && !P.Tensor)
      V = Ref::of(Ref::KernelHandle, H->second); // a compiled kernel passed in
    else if (!P.Tensor && !P.NonTensor && !P.Foreign &&
             F.CupyParams.count(P.Name) && !F.TensorParams.count(P.Name))
      V = Ref::of(Ref::CupyArray); // a caller passes a CuPy array
    else if (P.Tensor ||
             (!P.NonTensor && (HarnessParams ||
                               (!P.Foreign && (Used.count(P.Name) ||
                                               F.TensorParams.count(P.Name))))))
      V = Ref::of(Ref::Tensor), St.TensorParams.insert(P.Name);
    else if (!P.NonTensor && !P.Foreign)
      V = Ref::of(Ref::MaybeTensor);
    St.Locals[P.Name] = V;
    if (HarnessParams && !F.Script && !F.Main)
      St.InputOf[P.Name] = P.Name;
  }
  if (!St.InputOf.empty())
    bindInputs(bodyOf(F), St);
  // Decorators of the function run with it: torch.compile, lru_cache.
  std::optional<PyNode> Memo;
  std::string MemoName;
  for (PyNode D : F.Decorators) {
    PyNode E = D.numNamed() ? D.named(0) : PyNode();
    std::string Q = qualifiedOf(E);
    if (Q.empty() || isOwn(Q))
      continue;
    if (Q == "functools.lru_cache" || Q == "functools.cache") {
      Memo = D;
      MemoName = Q;
    } else {
      addSite(St, D, SiteKind::Call, cxxName(Q));
    }
  }
  if (F.Script) {
    for (PyNode S : F.Def.namedChildren())
      if (!isDefinitionOrImport(S))
        walk(S, St);
  } else {
    walk(bodyOf(F), St);
  }
  // An input overwritten in place while the function returns something
  // else: what the harness compares is computed from the inputs it passed,
  // after the call. Returning the written input (GPU MODE's output buffer
  // in `data`), or nothing (destination passing), is the in/out convention.
  if (St.ReturnsValue)
    for (const FnState::InputWriteSite &W : St.InputWrites) {
      bool Returned =
          llvm::any_of(St.ReturnedInputs, [&](const std::string &R) {
            return R == W.Input || StringRef(W.Input).starts_with(R + "[") ||
                   StringRef(R).starts_with(W.Input + "[");
          });
      if (!Returned)
        St.PF->InputWrites.push_back({pos(W.At), W.Name, W.Input, W.How});
    }
  // What it returns, for its callers (a kernel built here): once known, it
  // stays known (the passes only learn more).
  if (St.Returns.K != Ref::None &&
      (F.Returns.K != St.Returns.K || F.Returns.S != St.Returns.S ||
       F.ReturnsIndex != St.ReturnsIndex)) {
    F.Returns = St.Returns;
    F.ReturnsIndex = St.ReturnsIndex;
    Promoted = true;
  }
  if (Memo) {
    // Memoising can replay outputs only when the function takes or returns
    // tensors (or a caller passes it tensors or unknown values); a cached
    // device query or config lookup is state, not an output cache.
    // A memoised function replays outputs when its key can hold input data
    // (a tensor argument, hashed by identity, or an unknown value used as a
    // tensor), or when the tensor it returns is what a caller returns (the
    // same output object on every call). Scratch it returns to callers that
    // pass it to kernels (split-K semaphores keyed on the stream) is not.
    bool Risky = false;
    PyNode Body = bodyOf(F);
    for (const PyParam &P : params(F)) {
      if (P.Receiver)
        continue;
      if (St.TensorParams.count(P.Name) ||
          (!P.NonTensor && F.TensorishArgs.count(P.Name) &&
           !usedOnlyAsScalar(Body, P.Name)))
        Risky = true;
    }
    StringRef Short = StringRef(F.Name).rsplit('.').second.empty()
                          ? StringRef(F.Name)
                          : StringRef(F.Name).rsplit('.').second;
    if (!Risky && St.ReturnsTensor)
      Risky = reachesReturn(T.root(), [&](PyNode N) {
        if (!N.is("call"))
          return false;
        PyNode Fn = N.field("function");
        return (Fn.is("identifier") && Fn.text() == Short) ||
               (Fn.is("attribute") && Fn.field("attribute").text() == Short);
      });
    St.PF->StateWrites.push_back({pos(*Memo),
                                  cxxName(MemoName) + " on '" + F.Name + "'",
                                  "memoised result", Risky});
  }
}

/// Calls that address, copy, load or store data, or build layouts, atoms,
/// register fragments and indices (FlyDSL's `fx.*`, Triton's `tl.*`): no
/// arithmetic on what a kernel loads. Matched on the last name of the callee.
static bool isMoveApi(StringRef N) {
  static const char *const Names[] = {
      // FlyDSL layouts, views, atoms, fragments, copies
      "make_buffer_tensor", "logical_divide", "flat_divide", "zipped_divide",
      "tiled_divide", "local_tile", "local_partition", "slice", "make_layout",
      "make_ordered_layout", "make_identity_layout", "make_view",
      "make_copy_atom", "copy_atom_call", "copy", "make_rmem_tensor",
      "make_fragment_like", "make_tiled_copy", "make_tiled_copy_tv",
      "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
      "get_slice", "partition_S", "partition_D", "retile", "memref_load_vec",
      "memref_store_vec", "memref_load", "memref_store", "load", "store",
      "range_constexpr", "range", "size", "unpack", "elem_less", "coalesce",
      "composition", "const_expr", "barrier", "Stream", "make_shape",
      "make_stride", "make_coord", "get", "view", "peek", "allocate",
      "SharedAllocator", "thread_idx", "block_idx", "block_dim", "grid_dim",
      // dtypes and index types (constructors of constants and indices)
      "Float32", "Float16", "BFloat16", "Float64", "Int32", "Int64", "Int8",
      "Uint32", "Uint8", "Index", "Boolean",
      // Triton
      "program_id", "num_programs", "arange", "cdiv", "multiple_of",
      "max_contiguous", "static_range", "static_assert",
      // Python builtins used at trace time
      "len", "int", "isinstance", "tuple", "list", "enumerate", "zip"};
  if (N.starts_with("BufferCopy") || N.starts_with("UniversalCopy"))
    return true;
  return llvm::is_contained(Names, N);
}

static bool isMoveCall(StringRef N) {
  return N == "copy" || N == "copy_atom_call" || N == "load" || N == "store" ||
         N.starts_with("memref_load") || N.starts_with("memref_store");
}

bool PythonModelBuilder::movesOnly(PyNode Body,
                                   const std::vector<std::string> &Params,
                                   unsigned &Moves, unsigned Depth) {
  if (Depth > 4)
    return false;
  // Names holding loaded values (data) and views of the tensor parameters.
  std::set<std::string> Data, Views(Params.begin(), Params.end()), LocalDefs;
  std::function<void(PyNode)> Defs = [&](PyNode N) {
    if (N.is("function_definition"))
      LocalDefs.insert(N.field("name").text().str());
    for (PyNode C : N.namedChildren())
      Defs(C);
  };
  Defs(Body);
  auto Last = [](PyNode Fn) -> StringRef {
    if (Fn.is("attribute"))
      return Fn.field("attribute").text();
    return Fn.text();
  };
  // Whether an expression carries a loaded value / a view of a tensor.
  std::function<bool(PyNode, const std::set<std::string> &)> Mentions =
      [&](PyNode N, const std::set<std::string> &Names) -> bool {
    if (!N)
      return false;
    if (N.is("identifier"))
      return Names.count(N.text().str()) > 0;
    if (N.is("attribute")) {
      StringRef A = N.field("attribute").text();
      if (A == "shape" || A == "layout" || A == "stride" || A == "dtype" ||
          A == "tile_mn")
        return false; // metadata, not elements
      return Mentions(N.field("object"), Names);
    }
    if (N.is("lambda") || N.is("function_definition"))
      return false;
    for (PyNode C : N.namedChildren())
      if (Mentions(C, Names))
        return true;
    return false;
  };
  std::function<bool(PyNode)> IsData = [&](PyNode E) -> bool {
    if (!E)
      return false;
    if (E.is("call")) {
      StringRef L = Last(E.field("function"));
      if (L == "load" || L.starts_with("memref_load"))
        return true;
    }
    if (E.is("subscript") && Mentions(E.field("value"), Views))
      return true;
    if (Mentions(E, Data))
      return true;
    for (PyNode C : E.namedChildren())
      if (!C.is("lambda") && IsData(C))
        return true;
    return false;
  };
  bool Compute = false;
  std::function<void(PyNode)> Scan = [&](PyNode N) {
    if (!N || Compute || N.is("string") || N.is("comment"))
      return;
    StringRef Ty = N.type();
    if (Ty == "assignment" || Ty == "augmented_assignment") {
      PyNode L = N.field("left"), R = N.field("right");
      bool D = IsData(R), V = Mentions(R, Views) || Mentions(R, Data);
      if (Ty == "augmented_assignment" && (D || IsData(L)))
        Compute = true;
      std::function<void(PyNode)> Bind = [&](PyNode T) {
        if (T.is("identifier")) {
          if (D)
            Data.insert(T.text().str());
          if (V)
            Views.insert(T.text().str());
        } else if (T.is("pattern_list") || T.is("tuple_pattern") ||
                   T.is("list_pattern") || T.is("tuple") ||
                   T.is("expression_list")) {
          for (PyNode C : T.namedChildren())
            Bind(C);
        } // an element write (`y[i] = v`) is counted where Scan reaches it
      };
      Bind(L);
    }
    // Arithmetic on a loaded value, and comparisons of one (a max or an
    // argmax written as `best = v if v > best else best`).
    if (Ty == "binary_operator" || Ty == "unary_operator") {
      bool Bin = N.is("binary_operator");
      if (IsData(Bin ? N.field("left") : N.field("argument")) ||
          (Bin && IsData(N.field("right"))))
        Compute = true;
    }
    if (Ty == "comparison_operator")
      for (PyNode C : N.namedChildren())
        if (IsData(C))
          Compute = true;
    if (Ty == "subscript" && Mentions(N.field("value"), Views))
      ++Moves;
    if (Ty == "call") {
      PyNode Fn = N.field("function");
      StringRef L = Last(Fn);
      if (isMoveCall(L))
        ++Moves;
      if (!isMoveApi(L) && !(Fn.is("identifier") && LocalDefs.count(L.str()))) {
        // An own module-level helper: read its body too.
        Ref R;
        if (Fn.is("identifier")) {
          auto MF = ModuleFuncs.find(L);
          if (MF != ModuleFuncs.end())
            R = Ref::of(Ref::OwnFunction, MF->second);
        }
        const PyFunc *H = R.K == Ref::OwnFunction ? findFunc(R.S) : nullptr;
        if (!H || H->Triton ||
            !movesOnly(H->Def.field("body"), {}, Moves, Depth + 1)) {
          Compute = true; // arithmetic, math, MMA, or code not read
          return;
        }
      }
    }
    for (PyNode C : N.namedChildren())
      Scan(C);
  };
  // Twice: values loaded late in a loop flow back to its top.
  for (int Pass = 0; Pass < 2 && !Compute; ++Pass) {
    Moves = 0;
    Scan(Body);
  }
  return !Compute;
}

void PythonModelBuilder::classifyKernelWork() {
  for (auto &KV : Funcs) {
    const PyFunc &F = KV.second;
    if (!F.Triton || F.LaunchOnCall || F.JitFactory)
      continue; // TileLang's and cupyx.jit's kernels are not read here
    std::vector<std::string> Params;
    for (const PyParam &P : params(F))
      if (!P.Receiver && !P.NonTensor)
        Params.push_back(P.Name);
    PythonFacts::KernelWork W;
    W.MovesOnly =
        movesOnly(F.Def.field("body"), Params, W.Moves, 0) && W.Moves > 0;
    Facts.Kernels[KV.first] = W;
  }
}

void PythonModelBuilder::bindInitAttrs() {
  // Attributes set up in __init__ (and class-level assignments); again on
  // every pass, as what a builder returns (`self._launch = make_gemm(K)`)
  // is known after its function was walked.
  for (auto &KV : Classes) {
    PyClass &C = KV.second;
    auto It = C.Methods.find("__init__");
    if (It == C.Methods.end())
      continue;
    PyFunc &F = Funcs[It->second];
    FnState St;
    St.Class = &C;
    PyNode Params = F.Def.field("parameters");
    if (Params.numNamed())
      St.SelfName = Params.named(0).text().str();
    std::function<void(PyNode)> Scan = [&](PyNode N) {
      if (N.is("function_definition") || N.is("class_definition"))
        return;
      if (N.is("assignment")) {
        PyNode L = N.field("left");
        if ((L.is("pattern_list") || L.is("tuple_pattern")) &&
            N.field("right")) {
          std::vector<PyNode> Ls = L.namedChildren();
          for (size_t I = 0; I < Ls.size(); ++I)
            if (Ls[I].is("attribute") &&
                Ls[I].field("object").text() == St.SelfName)
              C.Attrs[Ls[I].field("attribute").text().str()] =
                  tupleElement(N.field("right"), I, St);
        }
        if (L.is("attribute") && L.field("object").text() == St.SelfName &&
            N.field("right")) {
          Ref V = resolve(N.field("right"), St);
          C.Attrs[L.field("attribute").text().str()] = V;
        } else if (L.is("identifier") && N.field("right")) {
          St.Locals[L.text().str()] = resolve(N.field("right"), St);
        }
      }
      for (PyNode Ch : N.namedChildren())
        Scan(Ch);
    };
    Scan(F.Def.field("body"));
  }
}

void PythonModelBuilder::buildFunctions() {
  // Passes until no caller promotes a parameter to a tensor; each pass
  // rebuilds the Python functions' sites and facts.
  size_t Pending = Facts.PendingSites.size();
  for (unsigned Pass = 0; Pass < 4; ++Pass) {
    Promoted = false;
    if (Pass) {
      bindModuleVars();
      bindInitAttrs();
    }
    Facts.PendingSites.resize(Pending);
    for (auto &KV : Funcs) {
      M.Functions[KV.first].Sites.clear();
      Facts.Functions.erase(KV.first);
    }
    for (auto &KV : Funcs)
      walkFunction(KV.second);
    if (!Promoted)
      break;
  }
}

void PythonModelBuilder::linkExtensions() {
  // C++ functions by simple name (definitions first).
  StringMap<std::string> ByName;
  std::vector<std::string> PybindInits;
  for (auto &KV : M.Functions) {
    const FunctionNode &F = KV.second;
    if (StringRef(F.Key).starts_with("py:") || !F.HasBody || F.IsKernel)
      continue;
    StringRef Simple = StringRef(F.Name).rsplit("::").second;
    if (Simple.empty())
      Simple = F.Name;
    ByName.try_emplace(Simple, F.Key);
    if (Simple.starts_with("pybind11_init_"))
      PybindInits.push_back(F.Key);
  }
  for (const PythonFacts::PendingSite &P : Facts.PendingSites) {
    FunctionNode &Holder = M.Functions[P.Holder];
    if (P.Index >= Holder.Sites.size())
      continue;
    Site &S = Holder.Sites[P.Index];
    auto It = ByName.find(P.Name);
    if (It != ByName.end()) {
      S.Key = It->second;
      S.Name = M.Functions[It->second].Name;
    } else if (!PybindInits.empty()) {
      // Bound under another name by the file's own PYBIND11_MODULE: every
      // function the module binds is reachable through its init function.
      S.Key = PybindInits.front();
    } else {
      S.Name = "<extension>." + P.Name;
    }
  }
}

void PythonModelBuilder::chooseEntries(const std::vector<std::string> &Names,
                                       std::vector<std::string> &Errors) {
  for (auto &KV : M.Functions)
    KV.second.IsEntryCandidate = false;
  auto Mark = [&](const std::string &Key) {
    M.Functions[Key].IsEntryCandidate = true;
  };
  if (!Names.empty()) {
    EntryReason = "the entry is named with --entry";
    HarnessEntry = true;
    for (const std::string &N : Names) {
      bool Found = false;
      for (auto &KV : Funcs) {
        StringRef Simple = StringRef(KV.second.Name).rsplit('.').second;
        if (Simple.empty())
          Simple = KV.second.Name;
        if (KV.second.Name == N || Simple == N) {
          Mark(KV.first);
          Found = true;
        }
      }
      if (!Found)
        Errors.push_back("atrex-lint: entry point '" + N +
                         "' is not defined in the submission");
    }
    return;
  }
  if (Classes.count("ModelNew")) {
    Ref F = classMember("ModelNew", "forward");
    if (F.K == Ref::OwnFunction) {
      Mark(F.S);
      EntryReason = "it defines 'ModelNew.forward', the entry a KernelBench "
                    "harness calls";
      HarnessEntry = true;
      return;
    }
  }
  if (ModuleFuncs.count("custom_kernel")) {
    Mark(ModuleFuncs["custom_kernel"]);
    EntryReason = "it defines 'custom_kernel', the entry a GPU MODE harness "
                  "calls";
    HarnessEntry = true;
    return;
  }
  EntryWhat = "its module-level functions";
  EntryReason = EntryWhat + " are entries a harness calls";
  bool Any = false;
  if (!ScriptKey.empty()) {
    Mark(ScriptKey);
    EntryReason = "its module-level code and functions are entries (a script "
                  "without a '__main__' block)";
    Any = true;
  }
  for (auto &KV : Funcs)
    if (KV.second.Module && !KV.second.Triton && !KV.second.Device) {
      Mark(KV.first);
      Any = true;
    }
  // A builder's `@flyc.jit` hosts are handed to the caller, who calls them
  // (`build_softmax_module(M, N)` returns `launch_softmax`; a builder may
  // return them in a dict or a tuple too): entries as the builder is.
  for (auto &KV : Funcs) {
    if (!KV.second.JitHost || !KV.second.Nested || !M.Functions.count(KV.first))
      continue;
    auto Top = ModuleFuncs.find(StringRef(KV.second.Local).split('.').first);
    if (Top != ModuleFuncs.end() && !Funcs[Top->second].Triton &&
        !Funcs[Top->second].Device)
      Mark(KV.first);
  }
  if (Any)
    return;
  // A class's `forward`, else its `__call__` (a CuTe DSL class's `@cute.jit`
  // host function): what its users call.
  EntryWhat = "its classes' 'forward' (else '__call__') methods";
  EntryReason = EntryWhat + " are entries a harness calls";
  for (auto &KV : Classes) {
    if (KV.first == "Model" || StringRef(KV.first).contains('.'))
      continue; // the reference model; classes nested in functions
    Ref F = classMember(KV.first, "forward");
    if (F.K != Ref::OwnFunction)
      F = classMember(KV.first, "__call__");
    if (F.K == Ref::OwnFunction) {
      Mark(F.S);
      Any = true;
    }
  }
  if (!Any) {
    EntryWhat = "it has no host function to be an entry";
    EntryReason = EntryWhat;
  }
}

void PythonModelBuilder::useLibraryEntries() {
  if (HarnessEntry)
    return;
  bool Any = false;
  for (auto &KV : Funcs) {
    const PyFunc &F = KV.second;
    if (F.Triton || F.Device || F.Nested || F.Main ||
        !M.Functions.count(KV.first))
      continue;
    bool Method = !F.Class.empty() && !StringRef(F.Class).contains('.') &&
                  F.Class != "Model";
    if (!Method && !F.Module)
      continue;
    M.Functions[KV.first].IsEntryCandidate = true;
    Any |= Method;
  }
  if (Any && StringRef(EntryWhat).starts_with("its module-level functions"))
    EntryWhat = "its module-level functions and its classes' methods";
  else if (Any)
    EntryWhat = "its classes' methods";
}

void PythonModelBuilder::useMainEntry() {
  if (MainKey.empty())
    return;
  for (auto &KV : M.Functions)
    KV.second.IsEntryCandidate = false;
  M.Functions[MainKey].IsEntryCandidate = true;
}

/// A script: `if __name__ == "__main__":` at the top level.
static bool hasMainBlock(StringRef Text) {
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.consume_front("if"))
      continue;
    std::string Compact;
    for (char C : L)
      if (C != ' ' && C != '\t' && C != '(' && C != ')')
        Compact += C == '\'' ? '"' : C;
    StringRef CS = Compact;
    if (CS.starts_with("__name__==\"__main__\"") ||
        CS.starts_with("\"__main__\"==__name__"))
      return true;
  }
  return false;
}

bool looksHip(const ExtensionInfo &E);

/// The C++ translation unit of one extension: what load_inline compiles,
/// with `#line` directives mapping every line back to the Python file.
std::string buildUnit(const ExtensionInfo &E, StringRef PyPath, bool Hip) {
  std::string Out;
  bool Cuda = !E.CudaSources.empty() && !Hip;
  Out += "#include <torch/extension.h>\n";
  if (Cuda)
    Out += "#include <torch/types.h>\n#include <cuda.h>\n"
           "#include <cuda_runtime.h>\n";
  auto Emit = [&](const PyString &S) {
    if (!Out.empty() && Out.back() != '\n')
      Out += '\n';
    unsigned Expected = 0; // Python line of the next output line
    bool LineStart = true;
    for (size_t I = 0; I < S.Text.size(); ++I) {
      char C = S.Text[I];
      if (LineStart) {
        auto [L, Col] = S.Pos[I];
        if (L != Expected) {
          Out += "#line " + std::to_string(L) + " \"" + PyPath.str() + "\"\n";
          Expected = L;
        }
        // Keep columns: pad the first line of a literal to its column.
        if (Col > 1)
          Out.append(Col - 1, ' ');
        LineStart = false;
      }
      Out += C;
      if (C == '\n') {
        LineStart = true;
        ++Expected;
      }
    }
    if (Out.back() != '\n')
      Out += '\n';
  };
  for (const PyString &S : E.CppSources)
    Emit(S);
  for (const PyString &S : E.CudaSources)
    Emit(S);
  return Out;
}

/// HIP sources (KernelBench's ROCm prompts put HIP kernels in cpp_sources
/// and compile them with CXX=hipcc).
bool looksHip(const ExtensionInfo &E) {
  for (const auto *List : {&E.CudaSources, &E.CppSources})
    for (const PyString &S : *List)
      if (StringRef(S.Text).contains("hip/hip_runtime.h"))
        return true;
  return false;
}

} // namespace

SubmissionResult atrex::lint::lintPythonFile(StringRef File, const Policy &P,
                                             const AnalysisOptions &Opts,
                                             const SourceParser &ParseCxx) {
  Model M;
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  M.Files.push_back(std::string(Abs));
  std::string Rendered;
  PythonFacts Facts;
  Policy PyP = pythonPolicy(P);
  auto Finish = [&](SubmissionResult R) {
    R.Path = File.str();
    R.Rendered = Rendered + R.Rendered;
    return R;
  };

  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    M.Errors.push_back(File.str() +
                       ": error: atrex-python: cannot read the "
                       "file: " +
                       Buf.getError().message());
    Rendered += M.Errors.back() + "\n";
    return Finish(analyze(M, PyP, AnalysisOptions()));
  }
  Expected<std::unique_ptr<PySyntaxTree>> Tree =
      PySyntaxTree::parse((*Buf)->getBuffer().str());
  if (!Tree) {
    M.Errors.push_back(File.str() + ": error: " + toString(Tree.takeError()));
    Rendered += M.Errors.back() + "\n";
    return Finish(analyze(M, PyP, AnalysisOptions()));
  }
  // Syntax errors: reported with their line; what parsed is still analysed.
  for (const PySyntaxTree::SyntaxError &E : (*Tree)->errors()) {
    M.Errors.push_back((Abs + ":" + Twine(E.Line) + ":" + Twine(E.Column) +
                        ": error: atrex-python: " + E.Message)
                           .str());
    Rendered += M.Errors.back() + "\n";
  }

  OwnModules Own;
  PythonModelBuilder B(File, Abs, **Tree, M, Facts, Own);
  B.EntryNames = Opts.Entries;
  B.scanModule();
  B.loadOwnModules();
  // The extensions' C++ sources, parsed like .cu files.
  unsigned Index = 0;
  for (ExtensionInfo &E : B.extensions()) {
    for (const std::string &Pr : E.Problems) {
      M.Errors.push_back(Pr);
      Rendered += Pr + "\n";
    }
    if (E.Inline) {
      if (E.CppSources.empty() && E.CudaSources.empty())
        continue;
      std::string Name = E.Name.empty() ? "ext" : E.Name;
      for (char &C : Name)
        if (!isAlnum(C) && C != '_')
          C = '_';
      std::string Ext = looksHip(E)             ? ".hip"
                        : E.CudaSources.empty() ? ".cpp"
                                                : ".cu";
      std::string Path = (Abs + "." + Twine(Index++) + "." + Name + Ext).str();
      Model Sub;
      ParseCxx(Path, buildUnit(E, Abs, Ext == ".hip"), Sub, Rendered);
      Sub.Files.clear();
      M.merge(std::move(Sub));
      continue;
    }
    for (const std::string &F : E.Files) {
      SmallString<256> P(F);
      if (!sys::path::is_absolute(P) && !sys::fs::exists(P)) {
        P = sys::path::parent_path(Abs);
        sys::path::append(P, F);
      }
      ErrorOr<std::unique_ptr<MemoryBuffer>> Src = MemoryBuffer::getFile(P);
      if (!Src) {
        std::string Err =
            (Abs + ":" + Twine(E.Call.line()) + ":" + Twine(E.Call.column()) +
             ": error: atrex-python: cannot read source '" + F +
             "' of 'load': " + Src.getError().message())
                .str();
        M.Errors.push_back(Err);
        Rendered += Err + "\n";
        continue;
      }
      Model Sub;
      ParseCxx(P, (*Src)->getBuffer(), Sub, Rendered);
      M.merge(std::move(Sub));
    }
  }
  B.buildFunctions();
  B.classifyKernelWork();
  B.pruneOwnModules();
  B.linkExtensions();
  std::vector<std::string> EntryErrors;
  B.chooseEntries(Opts.Entries, EntryErrors);
  M.Errors.insert(M.Errors.end(), EntryErrors.begin(), EntryErrors.end());
  M.EntriesChosen = true;

  // The mode: the caller's or the policy's, else a script with a
  // `__main__` block and no harness entry is a program.
  AnalysisOptions AO;
  AO.Mode = Opts.Mode;
  AO.ModeReason = Opts.ModeReason;
  if (!AO.Mode && !PyP.Mode) {
    if (!B.HarnessEntry &&
        (!B.MainKey.empty() || hasMainBlock((*Buf)->getBuffer()))) {
      AO.Mode = AnalysisMode::Program;
      AO.ModeReason = "a script with a '__main__' block and no ModelNew or "
                      "custom_kernel";
    } else if (!B.HarnessEntry && B.ScriptKey.empty() && B.inPackage()) {
      // A module of a package is imported, not run: an ops module, a
      // kernel library. (A stand-alone file's functions stay entries a
      // harness calls: agent sandboxes call `run()` of a `candidate.py`.)
      AO.Mode = AnalysisMode::Library;
      B.useLibraryEntries();
      AO.ModeReason =
          "a module of package '" + B.package() +
          "' with no harness entry (ModelNew, custom_kernel), no "
          "'__main__' block and no top-level script code: "
          "library code, " +
          B.EntryWhat +
          (StringRef(B.EntryWhat).starts_with("its ") ? " each on its own"
                                                      : "");
    } else {
      AO.Mode = AnalysisMode::Submission;
      AO.ModeReason = B.EntryReason;
    }
  }
  // A program runs its `__main__` block: that block (and what it calls) is
  // the entry, and its inputs and result checks are glue.
  AnalysisMode Mode = AO.Mode    ? *AO.Mode
                      : PyP.Mode ? *PyP.Mode
                                 : AnalysisMode::Submission;
  if (Mode == AnalysisMode::Library && Opts.Entries.empty() &&
      (Opts.Mode || PyP.Mode))
    B.useLibraryEntries();
  if (Mode == AnalysisMode::Program) {
    if (Opts.Entries.empty())
      B.useMainEntry();
    PyP = pythonProgramPolicy(PyP);
  }
  SubmissionResult R = analyze(M, PyP, AO);
  // The Python-only checks, on the same reachability.
  CheckContext Ctx(M, PyP, R.Mode);
  std::vector<std::string> Ignored;
  Ctx.computeReachability({}, Ignored);
  for (std::unique_ptr<LintCheck> &C : createPythonChecks(Facts))
    C->run(Ctx);
  for (Finding &F : Ctx.Findings)
    R.Findings.push_back(std::move(F));
  std::stable_sort(R.Findings.begin(), R.Findings.end(),
                   [](const Finding &A, const Finding &B) {
                     return std::tie(A.Pos.File, A.Pos.Line, A.Pos.Column) <
                            std::tie(B.Pos.File, B.Pos.Line, B.Pos.Column);
                   });
  R.Files = M.Files;
  decideVerdict(R);
  // A Python module's kernels are launched by Python host code, which is
  // here: library code none of whose functions launches one of its kernels
  // runs none (a verdict without a finding, as for C++ library code that
  // defines no kernel).
  if (R.Mode == AnalysisMode::Library && R.V == Verdict::Adopted &&
      !R.Kernels.empty()) {
    unsigned Launched = 0;
    for (const KernelInfo &K : R.Kernels)
      Launched += K.Launched;
    if (!R.Reasons.empty() &&
        StringRef(R.Reasons.back()).starts_with("adopted"))
      R.Reasons.pop_back();
    std::string N = std::to_string(R.Kernels.size());
    if (!Launched) {
      R.V = Verdict::NoKernel;
      R.Reasons.push_back("no-kernel: library module: none of its " + N +
                          " kernel(s) is launched by its functions");
    } else {
      R.Reasons.push_back("adopted: library module: " +
                          std::to_string(Launched) + " of its " + N +
                          " kernel(s) launched by its functions, no "
                          "delegation or evasion");
    }
  }
  return Finish(std::move(R));
}

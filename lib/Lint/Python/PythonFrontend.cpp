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
#include "../Checks/Check.h"
#include "PythonChecks.h"
#include "PythonSyntax.h"
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
    TritonKernel, ///< S: function key
    Tensor,
    Stream,
    SelfObj,
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
  PyNode Def; ///< function_definition
  std::vector<PyNode> Decorators;
  bool Triton = false;
  bool Module = false; ///< defined at module level
};

struct PyClass {
  std::string Name;
  PyNode Def;
  std::vector<std::string> Bases;       ///< own classes
  std::vector<std::string> QualBases;   ///< imported bases (dotted)
  std::map<std::string, std::string> Methods; ///< name -> key
  std::map<std::string, Ref> Attrs;     ///< set in __init__ / class body
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

const char *const NonTensorMethods[] = {
    "size",       "dim",          "ndimension", "numel",   "nelement",
    "item",       "data_ptr",     "stride",     "tolist",  "element_size",
    "get_device", "is_contiguous", "is_cuda",   "storage_offset", "type",
    "untyped_storage", "nbytes",  "itemsize",   "__len__", "is_floating_point",
    "is_complex", "numpy",        "dim_order",  "is_pinned"};

const char *const NonTensorAttrs[] = {"shape", "dtype", "device", "ndim",
                                      "is_cuda", "layout", "requires_grad",
                                      "grad_fn", "names", "itemsize",
                                      "nbytes"};

/// Python containers' methods are never tensor compute.
const char *const ContainerMethods[] = {
    "append", "extend", "insert", "pop",   "items",  "keys",   "values",
    "get",    "update", "setdefault", "format", "join", "strip", "startswith",
    "endswith", "lower", "upper", "encode", "decode", "copy",  "count",
    "index",  "remove", "clear",  "sort",  "reverse", "popitem"};

template <size_t N>
bool oneOf(StringRef S, const char *const (&List)[N]) {
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

/// torch.* calls that return no tensor (for the tensor-ness of values).
bool torchReturnsNonTensor(StringRef Q) {
  return Q.starts_with("torch.cuda.") || Q.starts_with("torch.utils.") ||
         Q == "torch.device" || Q == "torch.Size" || Q == "torch.dtype" ||
         Q == "torch.is_tensor" || Q == "torch.numel" || Q == "torch.finfo" ||
         Q == "torch.iinfo" || Q == "torch.no_grad" ||
         Q == "torch.inference_mode" || Q == "torch.get_default_dtype" ||
         Q.starts_with("torch.backends.") || Q.starts_with("torch.ops.load");
}

class PythonModelBuilder {
public:
  PythonModelBuilder(StringRef File, StringRef AbsFile, const PySyntaxTree &T,
                     Model &M, PythonFacts &Facts)
      : File(File), Abs(AbsFile), T(T), M(M), Facts(Facts) {}

  void scanModule();
  std::vector<ExtensionInfo> &extensions() { return Exts; }
  void buildFunctions();
  void linkExtensions();
  /// Why the entries chosen are the entries (the analysis mode's reason),
  /// and whether one is a harness's (named, ModelNew.forward, custom_kernel).
  std::string EntryReason;
  bool HarnessEntry = false;
  void chooseEntries(const std::vector<std::string> &Names,
                     std::vector<std::string> &Errors);

private:
  // ---- module scan
  void scanImports(PyNode N);
  void addFunction(PyNode Def, std::vector<PyNode> Decorators,
                   const std::string &Class);
  void scanClass(PyNode Def);
  std::optional<std::vector<PyString>> evalStrings(PyNode N, unsigned Depth = 0);
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
  };
  Ref resolve(PyNode N, FnState &St);
  Ref resolveAttr(const Ref &Obj, StringRef Attr, FnState &St);
  Ref classMember(const std::string &Class, StringRef Name, unsigned Depth = 0);
  void walk(PyNode N, FnState &St);
  void visitCall(PyNode Call, FnState &St);
  void visitAssign(PyNode N, FnState &St);
  void bindTarget(PyNode Target, const Ref &V, FnState &St);
  void checkStateWrite(PyNode Target, PyNode Value, FnState &St, bool Augmented);
  void checkModuleOverride(PyNode Target, PyNode Value);
  void addSite(FnState &St, PyNode At, SiteKind K, std::string Name,
               std::string Key = "");
  void walkFunction(PyFunc &F);
  SourcePos pos(PyNode N) const { return {Abs.str(), N.line(), N.column()}; }

  StringRef File, Abs;
  const PySyntaxTree &T;
  Model &M;
  PythonFacts &Facts;
  StringMap<std::string> Aliases;
  StringMap<std::vector<PyString>> Consts;
  std::map<std::string, Ref> ModuleVars;
  std::map<std::string, PyFunc> Funcs;   ///< key -> function
  StringMap<std::string> ModuleFuncs;    ///< name -> key
  std::map<std::string, PyClass> Classes;
  std::vector<ExtensionInfo> Exts;
  std::map<unsigned, unsigned> ExtByCall; ///< call start byte -> extension
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
      } else if (C.is("aliased_import")) {
        Aliases[C.field("alias").text()] = C.field("name").text().str();
      }
    }
    return;
  }
  if (N.is("import_from_statement")) {
    PyNode Mod = N.field("module_name");
    std::string Base = Mod.text().str();
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

void PythonModelBuilder::addFunction(PyNode Def, std::vector<PyNode> Decorators,
                                     const std::string &Class) {
  PyFunc F;
  std::string Name = Def.field("name").text().str();
  F.Name = Class.empty() ? Name : Class + "." + Name;
  F.Key = "py:" + F.Name;
  F.Class = Class;
  F.Def = Def;
  F.Decorators = std::move(Decorators);
  F.Module = Class.empty();
  for (PyNode D : F.Decorators) {
    PyNode E = D.numNamed() ? D.named(0) : PyNode();
    std::string Q = qualifiedOf(E);
    if (Q == "triton.jit" || Q == "triton.autotune" ||
        Q == "triton.heuristics" || Q == "triton.runtime.jit.jit")
      F.Triton = true;
  }
  if (Class.empty())
    ModuleFuncs[Name] = F.Key;
  else
    Classes[Class].Methods[Name] = F.Key;
  Funcs[F.Key] = std::move(F);
}

void PythonModelBuilder::scanClass(PyNode Def) {
  PyClass C;
  C.Name = Def.field("name").text().str();
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
    bool LList = N.field("left").is("list"), RList = N.field("right").is("list");
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
                 ": error: atrex-python: cannot reconstruct '" + Key + "' of '" +
                 (Inline ? "load_inline" : "load") +
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
    if (S.is("expression_statement") && S.numNamed() == 1 &&
        S.named(0).is("assignment")) {
      PyNode A = S.named(0);
      PyNode L = A.field("left"), R = A.field("right");
      if (L.is("identifier") && R)
        if (auto V = evalStrings(R))
          Consts[L.text()] = *V;
    }
  }
  scanExtensionCalls(Root);
  // Module-level bindings: extensions and other values.
  FnState Mod;
  for (PyNode S : Root.namedChildren()) {
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
  // Attributes set up in __init__ (and class-level assignments).
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
        if (!Q.empty() && Attr && Attr->size() == 1) {
          Finding F;
          F.Check = "atrex-evasion-runtime-override";
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
  Overrides(Root);
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
  if (Q.empty())
    return;
  Finding F;
  F.Check = "atrex-evasion-runtime-override";
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
  if (MIt != C.Methods.end())
    return Ref::of(Ref::OwnFunction, MIt->second);
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
    if (oneOf(Attr, NonTensorAttrs))
      return {};
    if (Attr == "T" || Attr == "mT" || Attr == "H" || Attr == "mH" ||
        Attr == "data" || Attr == "real" || Attr == "imag")
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
    if (A != Aliases.end())
      return Ref::of(Ref::Qualified, A->second);
    if (Consts.count(Name))
      return {};
    // A builtin (open, exec, getattr, ...).
    return Ref::of(Ref::Qualified, Name);
  }
  if (Ty == "attribute") {
    PyNode Obj = N.field("object");
    StringRef Attr = N.field("attribute").text();
    // super().method
    if (Obj.is("call") && Obj.field("function").text() == "super" &&
        St.Class) {
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
    Ref V = resolve(N.field("value"), St);
    if (V.K == Ref::Tensor)
      return V;
    return {};
  }
  if (Ty == "binary_operator" || Ty == "unary_operator") {
    for (PyNode C : N.namedChildren())
      if (resolve(C, St).K == Ref::Tensor)
        return Ref::of(Ref::Tensor);
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
      if (Q == "torch.cuda.Stream" || Q == "torch.cuda.streams.Stream" ||
          Q == "torch.Stream")
        return Ref::of(Ref::Stream);
      if (isTorchLayerClass(Q))
        return Ref::of(Ref::TorchLayer, C.S);
      if (Q.starts_with("torch.") && !torchReturnsNonTensor(Q))
        return Ref::of(Ref::Tensor);
      return {};
    }
    case Ref::ExtFunction:
    case Ref::TorchLayer:
      return Ref::of(Ref::Tensor);
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
      if (auto Ext = Find(Funcs[C.S].Def.field("body")))
        return Ref::of(Ref::Extension, std::to_string(*Ext));
      return {};
    }
    default:
      break;
    }
    if (Fn.is("attribute")) {
      Ref Obj = resolve(Fn.field("object"), St);
      StringRef Meth = Fn.field("attribute").text();
      if (Obj.K == Ref::Tensor && !oneOf(Meth, NonTensorMethods))
        return Ref::of(Ref::Tensor);
    }
    return {};
  }
  return {};
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
  // kernel[grid](...) launches a Triton kernel.
  if (Fn.is("subscript")) {
    Ref K = resolve(Fn.field("value"), St);
    if (K.K == Ref::TritonKernel) {
      addSite(St, Call, SiteKind::Launch, Funcs[K.S].Name, K.S);
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
    addSite(St, Call, SiteKind::Call, cxxName(Q));
    return;
  }
  switch (C.K) {
  case Ref::OwnFunction:
    addSite(St, Call, SiteKind::Call, Funcs[C.S].Name, C.S);
    return;
  case Ref::TritonKernel:
    // Calling a @triton.jit function directly (not through [grid]) from
    // host code does not launch it.
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
    if (Fwd.K == Ref::OwnFunction)
      addSite(St, Call, SiteKind::Call, Funcs[Fwd.S].Name, Fwd.S);
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
    if (Meth == "synchronize" || Meth == "wait_stream" || Meth == "wait_event")
      St.PF->Joins = true;
    if (Obj.K == Ref::Tensor && !oneOf(Meth, ContainerMethods))
      addSite(St, Call, SiteKind::Call, ("at::Tensor::" + Meth).str());
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
    St.Locals[Target.text().str()] = V;
    return;
  }
  if (Target.is("pattern_list") || Target.is("tuple_pattern") ||
      Target.is("list_pattern")) {
    for (PyNode C : Target.namedChildren())
      bindTarget(C, V.K == Ref::Tensor ? V : Ref(), St);
  }
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
  if (Value && (Value.is("call") || Value.is("identifier")) && !Augmented &&
      resolve(Value, St).K == Ref::None && Target.is("attribute"))
    Risky = Risky || Value.is("identifier"); // storing a local (the output?)
  if (Base.is("attribute") && !St.SelfName.empty() &&
      Base.field("object").text() == St.SelfName) {
    St.PF->StateWrites.push_back(
        {pos(Target), ("self." + Base.field("attribute").text()).str(),
         "attribute", Risky});
    return;
  }
  if (Base.is("identifier")) {
    std::string N = Base.text().str();
    bool Global = St.Globals.count(N) ||
                  (Target.is("subscript") && !St.Locals.count(N) &&
                   ModuleVars.count(N));
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
    Ref LV = resolve(L, St);
    if (LV.K == Ref::Tensor || resolve(R, St).K == Ref::Tensor)
      addSite(St, N, SiteKind::Call,
              ("at::Tensor::operator" + N.field("operator").text()).str());
  }
  checkStateWrite(L, R, St, Augmented);
  if (!R)
    return;
  Ref V = resolve(R, St);
  if (Augmented)
    return;
  if (R.is("tuple") || R.is("expression_list")) {
    std::vector<PyNode> Ls = L.namedChildren(), Rs = R.namedChildren();
    if ((L.is("pattern_list") || L.is("tuple_pattern")) &&
        Ls.size() == Rs.size()) {
      for (size_t I = 0; I < Ls.size(); ++I)
        bindTarget(Ls[I], resolve(Rs[I], St), St);
      return;
    }
  }
  bindTarget(L, V, St);
}

void PythonModelBuilder::walk(PyNode N, FnState &St) {
  if (!N)
    return;
  StringRef Ty = N.type();
  if (Ty == "comment" || Ty == "string" || Ty == "concatenated_string")
    return;
  if (Ty == "function_definition" || Ty == "class_definition" ||
      Ty == "decorated_definition") {
    // Nested definitions run when called; their bodies count as the
    // holder's (closures, local helpers).
    PyNode D = N;
    if (Ty == "decorated_definition")
      D = N.field("definition");
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
    bool False = Cond.is("false") || Cond.text() == "0" ||
                 Cond.text() == "None";
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
    bool Tensor = false;
    for (PyNode C : N.namedChildren())
      Tensor |= resolve(C, St).K == Ref::Tensor;
    if (Tensor) {
      StringRef Op;
      if (Ty == "comparison_operator") {
        // The operator is the first anonymous child.
        for (unsigned I = 0, E = N.numChildren(); I < E && Op.empty(); ++I)
          if (!N.child(I).isNamed())
            Op = N.child(I).text();
      } else {
        Op = N.field("operator").text();
      }
      PyNode At = N.field("operator");
      addSite(St, At ? At : N, SiteKind::Call, operatorName(Op));
    }
    for (PyNode C : N.namedChildren())
      walk(C, St);
    return;
  }
  if (Ty == "return_statement" || Ty == "yield") {
    for (PyNode C : N.namedChildren())
      walk(C, St);
    return;
  }
  for (PyNode C : N.namedChildren())
    walk(C, St);
}

void PythonModelBuilder::walkFunction(PyFunc &F) {
  FunctionNode &Node = M.Functions[F.Key];
  Node.Key = F.Key;
  Node.Name = F.Name;
  Node.Display = F.Name;
  Node.Pos = pos(F.Def.field("name"));
  Node.HasBody = true;
  Node.IsKernel = F.Triton;
  Node.IsDeviceOnly = F.Triton;
  if (F.Triton)
    return; // device code: tl.* is the DSL
  FnState St;
  St.F = &F;
  St.Node = &Node;
  St.PF = &Facts.Functions[F.Key];
  if (!F.Class.empty())
    St.Class = &Classes[F.Class];
  St.Init = StringRef(F.Name).ends_with(".__init__");
  PyNode Params = F.Def.field("parameters");
  bool First = true;
  for (PyNode P : Params.namedChildren()) {
    PyNode Id = P;
    bool NonTensor = false;
    if (P.is("typed_parameter") || P.is("typed_default_parameter") ||
        P.is("default_parameter")) {
      Id = P.is("typed_parameter") ? P.named(0) : P.field("name");
      StringRef Ty = P.field("type").text();
      NonTensor = Ty == "int" || Ty == "float" || Ty == "str" ||
                  Ty == "bool" || Ty.starts_with("list") ||
                  Ty.starts_with("dict");
      PyNode Def = P.field("value");
      if (Def && (Def.is("integer") || Def.is("float") || Def.is("string") ||
                  Def.is("true") || Def.is("false")))
        NonTensor = true;
    }
    if (!Id.is("identifier"))
      continue;
    if (First && !F.Class.empty()) {
      St.SelfName = Id.text().str();
      First = false;
      continue;
    }
    First = false;
    St.Locals[Id.text().str()] =
        NonTensor ? Ref() : Ref::of(Ref::Tensor);
  }
  // Decorators of the function run with it: torch.compile, lru_cache.
  for (PyNode D : F.Decorators) {
    PyNode E = D.numNamed() ? D.named(0) : PyNode();
    std::string Q = qualifiedOf(E);
    if (Q.empty())
      continue;
    if (Q == "functools.lru_cache" || Q == "functools.cache")
      St.PF->StateWrites.push_back(
          {pos(D), cxxName(Q) + " on '" + F.Name + "'", "memoised result",
           true});
    else
      addSite(St, D, SiteKind::Call, cxxName(Q));
  }
  walk(F.Def.field("body"), St);
}

void PythonModelBuilder::buildFunctions() {
  for (auto &KV : Funcs)
    walkFunction(KV.second);
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
  EntryReason = "its module-level functions are entries a harness calls";
  bool Any = false;
  for (auto &KV : Funcs)
    if (KV.second.Module && !KV.second.Triton) {
      Mark(KV.first);
      Any = true;
    }
  if (Any)
    return;
  EntryReason = "its modules' 'forward' methods are entries a harness calls";
  for (auto &KV : Classes)
    if (KV.first != "Model")
      if (Ref F = classMember(KV.first, "forward"); F.K == Ref::OwnFunction)
        Mark(F.S);
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
    M.Errors.push_back(File.str() + ": error: atrex-python: cannot read the "
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

  PythonModelBuilder B(File, Abs, **Tree, M, Facts);
  B.scanModule();
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
        hasMainBlock((*Buf)->getBuffer())) {
      AO.Mode = AnalysisMode::Program;
      AO.ModeReason = "a script with a '__main__' block and no ModelNew or "
                      "custom_kernel";
    } else {
      AO.Mode = AnalysisMode::Submission;
      AO.ModeReason = B.EntryReason;
    }
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
  return Finish(std::move(R));
}

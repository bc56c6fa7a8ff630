//===- Model.h - the submission model atrex-lint checks run on --*- C++ -*-===//
//
// Part of atrex. The AST (or IR) of each translation unit is reduced to a
// small, AST-independent model: user functions with their call, launch and
// reference sites, user globals, and unconditional findings. Models of several
// translation units merge by USR, so a submission of several files is checked
// as one program. Every check runs on this model, which is what lets the
// clang plugin, the stand-alone tool and the IR analysis share one
// implementation.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_MODEL_H
#define ATREX_LINT_MODEL_H

#include "atrex/Lint/Finding.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace lint {

enum class SiteKind {
  Call,       ///< direct call (functions, methods, operators)
  Construct,  ///< constructor or destructor
  Ref,        ///< function address taken (callbacks, registration tables)
  VarRef,     ///< reference to a variable declared outside user code
  Indirect,   ///< call through a pointer, target resolved
  Unresolved, ///< call through a pointer whose target is unknown
  Launch      ///< kernel launch (<<<>>> or a launch API)
};

struct Site {
  SiteKind Kind = SiteKind::Call;
  std::string Key;      ///< USR of the callee (empty for Unresolved)
  std::string Name;     ///< qualified name, no template arguments
  std::string DeclFile; ///< file that declares the callee
  SourcePos Pos;        ///< where the site is (expansion location)
  bool Dead = false;    ///< never executes (constant-false, after return)
  bool Device = false;  ///< sits in device code
  std::string Macro;    ///< user macro the call is written in
  SourcePos MacroPos;   ///< where that macro's body spells the call
  std::string Detail;   ///< extra facts: dlsym's symbol, an embedded image
  /// The symbol a resolver call names with a string literal (dlsym,
  /// cudaGetDriverEntryPoint, cuGetProcAddress); empty if not a literal.
  std::string NamedSymbol;
  /// Variables the call's arguments name (`&s`, `s`, `this->s`), the object
  /// of a member call first; empty strings for other arguments. Used to
  /// follow streams and events.
  std::vector<std::string> ArgVars;
  /// The variable a call initialises (`auto s = getStreamFromPool()`).
  std::string ResultVar;
  /// The first argument when it is an integer constant (`exit(1)`).
  std::optional<int64_t> IntArg0;
  /// The first argument is a variable known to hold a failure status here
  /// (`if (code != cudaSuccess) exit(code);`).
  bool Arg0Failure = false;
  /// The qualified name of what the first argument names, when it names a
  /// declaration (`thrust::host` in `thrust::sort(thrust::host, ...)`).
  std::string Arg0Decl;
  /// Per argument, the key of the function it passes (`run(k, my_launcher)`),
  /// else empty (member calls: the object first, as ArgVars).
  std::vector<std::string> ArgFuncs;
  /// Unresolved calls through a parameter of the holding function: its index
  /// (resolved when every caller passes a function there); else -1.
  int ParamIndex = -1;
  /// The callee is defined (has a body, or its template pattern has one) in
  /// the linted file's own project, not in a vendored copy (Project.h): a
  /// delegation rule that matches its name by pattern does not apply.
  bool ProjectDefined = false;
};

/// A mutable variable that outlives one call of the entry.
struct StateVar {
  std::string Key; ///< USR of the variable (what Site::ArgVars name)
  std::string Name;
  std::string Type;
  SourcePos Pos;
  bool Risky = false; ///< holds tensors, containers or pointers
  /// A type-erased holder (`shared_ptr<void>`, in a container or not):
  /// Risky was decided by what the unit stores in it.
  bool TypeErased = false;
  bool Device = false;
};

struct FunctionNode {
  std::string Key;
  std::string Name;
  std::string Display; ///< with template arguments, for the inventory
  SourcePos Pos;
  bool HasBody = false;
  bool IsKernel = false;
  /// A kernel's language (a name of Dsls.def: cuda, triton, flydsl, ...).
  std::string Dsl;
  bool IsDeviceOnly = false;
  bool IsEntryCandidate = false;
  bool IsTemplateInstance = false;
  bool IsTemplatePattern = false; ///< uninstantiated kernel template
  /// Defined in the file being linted, not in a header it includes (library
  /// mode judges the file's own functions).
  bool InMainFile = false;
  std::string PatternKey; ///< pattern of a template instance
  std::vector<Site> Sites;
  std::vector<std::string> GlobalRefs; ///< keys of user globals used
  std::vector<StateVar> StaticLocals;
};

struct GlobalNode {
  std::string Key;
  std::string Name;
  std::vector<Site> InitSites; ///< functions called or referenced in the init
  StateVar State;              ///< valid when State.Name is set
};

struct Model {
  std::vector<std::string> Files;
  std::map<std::string, FunctionNode> Functions;
  std::map<std::string, GlobalNode> Globals;
  /// Findings that hold whatever is reachable (redefined runtime symbols).
  std::vector<Finding> Unconditional;
  /// A file that did not compile: calls in its text whose names a policy
  /// rule matches (delegation, evasion), reported by the rule checks as
  /// evidence stronger than `unknown` (Driver.cpp, nameEvidence).
  std::vector<Finding> TextEvidence;
  std::vector<std::string> Errors;
  /// Built from device IR (nvptx, amdgcn): launches are not visible.
  bool DeviceModule = false;
  /// Where the bodies of kernels and device functions are (file, first and
  /// last line): compiler errors there leave the host side intact.
  struct LineRange {
    std::string File;
    unsigned Begin = 0, End = 0;
  };
  std::vector<LineRange> DeviceBodies;
  /// Compiler errors inside device bodies (clang and nvcc disagree on some
  /// device code): reported, but the verdict stands on the host side.
  std::vector<std::string> DeviceErrors;
  /// Compiler errors inside system headers, when the file's own code had
  /// none: reported as a note, the verdict stands on the file's own code.
  std::vector<std::string> LibraryErrors;
  /// Built from C++ source (the Clang AST): what it includes is known, so a
  /// unit with no harness entry can be told to be library code.
  bool FromSource = false;
  /// The unit includes PyTorch or pybind11 headers: a torch extension.
  bool UsesTorch = false;
  /// The front end chose the entries (IsEntryCandidate): the Python front
  /// end. The analysis mode then decides only which checks apply.
  bool EntriesChosen = false;

  /// Merges another translation unit's model (definitions win over
  /// declarations; sites of the same function are appended once).
  void merge(Model &&Other);
};

/// Qualified name with template arguments removed (`a::B<int>::f` ->
/// `a::B::f`; `operator<` and friends are kept).
std::string stripTemplateArgs(llvm::StringRef QualName);

/// The key of the pseudo-function that runs every user global initialiser.
inline const char *staticInitKey() { return "<static-initialization>"; }

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_MODEL_H

//===- IRModel.cpp - the lint model from LLVM IR --------------------------===//
//
// Part of atrex. Functions defined in the module are the submission's code;
// declarations are external and matched against the policy by their
// demangled names. Kernels are functions with a GPU kernel calling convention
// (ptx_kernel, amdgpu_kernel) and, in host IR, clang's launch stubs
// (`__device_stub__<kernel>`): a call to a stub is a `<<<>>>` launch, and a
// stub passed to a launch API is a launch too. Global variables give the
// static state and the function-pointer tables; llvm.global_ctors gives the
// load-time entry.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/IRModel.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace llvm;
using namespace atrex::lint;

/// The demangled function name with template arguments, without return
/// type and parameters.
static std::string demangledFunctionName(StringRef Symbol) {
  ItaniumPartialDemangler D;
  std::string Mangled = Symbol.str();
  if (!Symbol.starts_with("_Z") || D.partialDemangle(Mangled.c_str()) ||
      !D.isFunction())
    return Mangled;
  std::string Name;
  size_t N = 0;
  if (char *Buf = D.getFunctionName(nullptr, &N)) {
    Name.assign(Buf, strnlen(Buf, N));
    std::free(Buf);
  }
  return Name;
}

std::string atrex::lint::demangledQualifiedName(StringRef Symbol) {
  ItaniumPartialDemangler D;
  // The demangler keeps pointers into the mangled string: keep it alive.
  std::string Mangled = Symbol.str();
  if (!Symbol.starts_with("_Z") || D.partialDemangle(Mangled.c_str()))
    return Mangled;
  std::string Name;
  if (D.isFunction()) {
    // The qualified name without return type and parameters.
    size_t N = 0;
    if (char *Buf = D.getFunctionName(nullptr, &N)) {
      Name.assign(Buf, strnlen(Buf, N));
      std::free(Buf);
    }
  } else {
    Name = demangle(Symbol.str());
  }
  return stripTemplateArgs(Name);
}

namespace {
constexpr StringLiteral StubPrefix = "__device_stub__";

/// Files of the toolchain and installed libraries, not of the submission.
bool isLibraryPath(StringRef P) {
  return P.starts_with("/usr/") || P.starts_with("/opt/") ||
         P.contains("/site-packages/") || P.contains("/dist-packages/") ||
         P.contains("/include/c++/");
}

std::string fileOf(const DIScope *S) {
  if (!S)
    return "";
  StringRef Dir = S->getDirectory(), File = S->getFilename();
  if (File.starts_with("/") || Dir.empty())
    return File.str();
  return (Dir + "/" + File).str();
}

class IRBuilder {
public:
  IRBuilder(const Module &Mod, const Policy &P, Model &Out)
      : Mod(Mod), Pol(P), Out(Out) {}

  void build() {
    Out.Files.push_back(Mod.getSourceFileName());
    StringRef Triple = Mod.getTargetTriple().str();
    Out.DeviceModule =
        Triple.starts_with("nvptx") || Triple.starts_with("amdgcn");
    for (const Function &F : Mod)
      if (!F.isDeclaration()) {
        if (isKernel(F))
          Kernels.insert(&F);
        else if (isLibrary(F))
          LibraryFns.insert(&F);
      }
    for (const GlobalVariable &G : Mod.globals())
      if (G.getName().starts_with("_ZTV") && G.hasInitializer()) {
        SmallPtrSet<const Value *, 16> Seen;
        functionsIn(G.getInitializer(), VirtualTargets, Seen);
      }
    for (const Function &F : Mod)
      if (!F.isDeclaration())
        buildFunction(F);
    for (const GlobalVariable &G : Mod.globals())
      buildGlobal(G);
    buildStaticInit();
  }

private:
  static bool isKernel(const Function &F) {
    CallingConv::ID CC = F.getCallingConv();
    if (CC == CallingConv::PTX_Kernel || CC == CallingConv::AMDGPU_KERNEL)
      return true;
    return demangle(F.getName().str()).find(StubPrefix.str()) !=
           std::string::npos;
  }

  /// Header code of libraries (inline functions, library templates): with
  /// debug info, by file; without, by ODR linkage.
  static bool isLibrary(const Function &F) {
    if (const DISubprogram *SP = F.getSubprogram())
      return isLibraryPath(fileOf(SP));
    return F.hasLinkOnceODRLinkage() || F.hasWeakODRLinkage() ||
           F.hasAvailableExternallyLinkage();
  }

  static std::string declFile(const Function &F) {
    if (const DISubprogram *SP = F.getSubprogram())
      return fileOf(SP);
    return "";
  }

  static std::string name(const Function &F) {
    std::string N = demangledQualifiedName(F.getName());
    size_t P = N.find(StubPrefix);
    if (P != std::string::npos)
      N.erase(P, StubPrefix.size());
    return N;
  }

  SourcePos pos(const Instruction *I, const Function &F) const {
    if (I)
      if (const DebugLoc &DL = I->getDebugLoc())
        if (const DILocation *L = DL.get())
          return {fileOf(L->getScope()->getFile()), L->getLine(),
                  L->getColumn()};
    if (const DISubprogram *SP = F.getSubprogram())
      return {fileOf(SP->getFile()), SP->getLine(), 0};
    return {Mod.getSourceFileName(), 0, 0};
  }

  Site site(SiteKind K, const Function *Callee, const Instruction *I,
            const Function &F, bool Dead) const {
    Site S;
    S.Kind = K;
    if (Callee) {
      S.Key = Callee->getName().str();
      S.Name = name(*Callee);
    }
    S.Pos = pos(I, F);
    S.Dead = Dead;
    S.Device = F.getCallingConv() == CallingConv::PTX_Kernel ||
               F.getCallingConv() == CallingConv::AMDGPU_KERNEL ||
               StringRef(Mod.getTargetTriple().str()).starts_with("nvptx") ||
               StringRef(Mod.getTargetTriple().str()).starts_with("amdgcn");
    return S;
  }

  /// The variable (local slot or global) an argument names: `&s` is the
  /// slot itself, `s` a load from it (at -O0).
  static std::string varOf(const Value *V) {
    V = V->stripPointerCasts();
    if (const auto *L = dyn_cast<LoadInst>(V))
      V = L->getPointerOperand()->stripPointerCasts();
    if (isa<AllocaInst>(V) || isa<GlobalVariable>(V))
      return "ir:" + std::to_string(reinterpret_cast<uintptr_t>(V));
    return "";
  }

  /// Functions referenced by a constant (initialisers, operands).
  static void functionsIn(const Value *V,
                          SmallVectorImpl<const Function *> &Out,
                          SmallPtrSetImpl<const Value *> &Seen) {
    if (!Seen.insert(V).second)
      return;
    V = V->stripPointerCasts();
    if (const auto *F = dyn_cast<Function>(V)) {
      Out.push_back(F);
      return;
    }
    if (const auto *C = dyn_cast<Constant>(V))
      if (!isa<GlobalValue>(C))
        for (const Value *Op : C->operands())
          functionsIn(Op, Out, Seen);
  }

  /// Functions a pointer value may hold: functions, selects and phis of
  /// them, loads from globals (tables) and from local variables (the values
  /// stored to them), to a small depth.
  void functionsOf(const Value *V, SmallVectorImpl<const Function *> &Out,
                   SmallPtrSetImpl<const Value *> &Seen,
                   unsigned Depth = 0) const {
    if (!V || Depth > 8 || !Seen.insert(V).second)
      return;
    V = V->stripPointerCasts();
    if (const auto *F = dyn_cast<Function>(V)) {
      Out.push_back(F);
      return;
    }
    if (const auto *Sel = dyn_cast<SelectInst>(V)) {
      functionsOf(Sel->getTrueValue(), Out, Seen, Depth + 1);
      functionsOf(Sel->getFalseValue(), Out, Seen, Depth + 1);
      return;
    }
    if (const auto *Phi = dyn_cast<PHINode>(V)) {
      for (const Value *In : Phi->incoming_values())
        functionsOf(In, Out, Seen, Depth + 1);
      return;
    }
    const auto *L = dyn_cast<LoadInst>(V);
    if (!L)
      return;
    const Value *Ptr = L->getPointerOperand()->stripPointerCasts();
    if (const auto *GEP = dyn_cast<GEPOperator>(Ptr))
      Ptr = GEP->getPointerOperand()->stripPointerCasts();
    if (const auto *G = dyn_cast<GlobalVariable>(Ptr)) {
      if (G->hasInitializer()) {
        SmallPtrSet<const Value *, 16> CSeen;
        functionsIn(G->getInitializer(), Out, CSeen);
      }
      return;
    }
    if (const auto *A = dyn_cast<AllocaInst>(Ptr)) {
      for (const User *U : A->users())
        if (const auto *St = dyn_cast<StoreInst>(U))
          if (St->getPointerOperand()->stripPointerCasts() == A)
            functionsOf(St->getValueOperand(), Out, Seen, Depth + 1);
      return;
    }
    // A load through a loaded pointer (a vtable slot): every virtual
    // function of the module's vtables may be the target.
    if (isa<LoadInst>(Ptr))
      Out.append(VirtualTargets.begin(), VirtualTargets.end());
  }

  void buildFunction(const Function &F) {
    FunctionNode &N = Out.Functions[F.getName().str()];
    N.Key = F.getName().str();
    N.Name = name(F);
    N.Display = demangledFunctionName(F.getName());
    size_t Stub = N.Display.find(StubPrefix);
    if (Stub != std::string::npos)
      N.Display.erase(Stub, StubPrefix.size());
    N.Pos = pos(nullptr, F);
    N.HasBody = true;
    N.IsKernel = Kernels.count(&F);
    if (N.IsKernel)
      N.Dsl = "llvm-ir";
    N.IsDeviceOnly = !N.IsKernel && (F.getCallingConv() != CallingConv::C &&
                                     F.getCallingConv() != CallingConv::Fast);
    // Library code is analysed like the AST analysis treats system headers:
    // only what it delegates to counts, not its own evasions.
    bool Library = LibraryFns.count(&F);
    N.IsEntryCandidate = !Library && !N.IsKernel && F.hasExternalLinkage() &&
                         !F.getName().starts_with("__cuda") &&
                         !F.getName().starts_with("__hip");
    bool Timing = Pol.isTimingSymbol(N.Name);
    // An unmangled (extern "C") external definition with a runtime name
    // interposes the runtime's symbol at link or load time.
    bool Runtime = F.hasExternalLinkage() && !F.getName().starts_with("_Z") &&
                   Pol.isRuntimeSymbol(N.Name);
    if ((Timing || Runtime) && !F.hasLinkOnceLinkage() && !F.hasWeakLinkage()) {
      Finding Fd;
      Fd.Check = checks::EvasionRuntimeOverride.str();
      Fd.Pos = N.Pos;
      Fd.Symbol = N.Name;
      Fd.Library = "runtime symbol";
      Fd.Message = "definition of '" + N.Name + "' replaces the " +
                   (Timing ? "timing/synchronisation" : "runtime") +
                   " function the harness relies on";
      Out.Unconditional.push_back(Fd);
    }

    // Blocks the CFG cannot reach from the entry are dead.
    SmallPtrSet<const BasicBlock *, 32> Live;
    SmallVector<const BasicBlock *, 32> Work{&F.getEntryBlock()};
    while (!Work.empty()) {
      const BasicBlock *B = Work.pop_back_val();
      if (!Live.insert(B).second)
        continue;
      // Constant conditions (`if (0)`, `while (false)` at -O0) take one way.
      if (const auto *Br = dyn_cast<BranchInst>(B->getTerminator()))
        if (Br->isConditional())
          if (const auto *C = dyn_cast<ConstantInt>(Br->getCondition())) {
            Work.push_back(Br->getSuccessor(C->isZero() ? 1 : 0));
            continue;
          }
      for (const BasicBlock *S : successors(B))
        Work.push_back(S);
    }

    for (const BasicBlock &B : F) {
      bool Dead = !Live.count(&B);
      for (const Instruction &I : B) {
        const auto *CB = dyn_cast<CallBase>(&I);
        const Function *Callee = nullptr;
        if (CB) {
          const Value *Op = CB->getCalledOperand();
          if (isa<InlineAsm>(Op))
            continue;
          Callee = dyn_cast<Function>(Op->stripPointerCasts());
          if (Callee && Callee->isIntrinsic())
            continue;
          if (Callee) {
            Site S =
                site(Kernels.count(Callee) ? SiteKind::Launch : SiteKind::Call,
                     Callee, &I, F, Dead);
            const SymbolRule *R = nullptr;
            if (LibraryFns.count(Callee)) {
              // A library function a policy rule names is a leaf, matched by
              // its name and header; others are followed.
              S.DeclFile = declFile(*Callee);
              R = Pol.match(S.Name, S.DeclFile, S.Device);
              if (R)
                S.Key = "lib:" + S.Key;
            } else if (Callee->isDeclaration()) {
              R = Pol.match(S.Name, "", S.Device);
            }
            // Inside library code only delegation counts.
            if (Library && Callee->isDeclaration() &&
                (!R || R->Action != RuleAction::Delegate))
              continue;
            for (const Value *A : CB->args()) {
              S.ArgVars.push_back(varOf(A));
              const auto *AF = dyn_cast<Function>(A->stripPointerCasts());
              S.ArgFuncs.push_back(
                  AF && !AF->isDeclaration() ? AF->getName().str() : "");
            }
            N.Sites.push_back(S);
            StringRef CN = N.Sites.back().Name;
            if (CN.contains("dlsym") || CN.contains("ProcAddress") ||
                CN.contains("EntryPoint"))
              for (const Value *A : CB->args())
                if (const auto *G =
                        dyn_cast<GlobalVariable>(A->stripPointerCasts()))
                  if (G->hasInitializer())
                    if (const auto *CDA =
                            dyn_cast<ConstantDataArray>(G->getInitializer()))
                      if (CDA->isCString())
                        N.Sites.back().Detail =
                            "symbol \"" + CDA->getAsCString().str() + "\"";
          } else {
            SmallVector<const Function *, 4> Targets;
            SmallPtrSet<const Value *, 16> Seen;
            functionsOf(Op, Targets, Seen);
            for (const Function *T : Targets)
              N.Sites.push_back(
                  site(Kernels.count(T) ? SiteKind::Launch : SiteKind::Indirect,
                       T, &I, F, Dead));
            if (Targets.empty() && !Library) {
              Site S = site(SiteKind::Unresolved, nullptr, &I, F, Dead);
              S.Name = Op->hasName() ? Op->getName().str() : "<pointer>";
              S.Detail = "call through a function pointer";
              // A parameter, directly or (at -O0) through its stack slot.
              const Value *P = Op->stripPointerCasts();
              if (const auto *L = dyn_cast<LoadInst>(P))
                if (const auto *Slot = dyn_cast<AllocaInst>(
                        L->getPointerOperand()->stripPointerCasts()))
                  for (const User *U : Slot->users())
                    if (const auto *St = dyn_cast<StoreInst>(U))
                      if (isa<Argument>(St->getValueOperand()))
                        P = St->getValueOperand();
              if (const auto *Arg = dyn_cast<Argument>(P))
                S.ParamIndex = int(Arg->getArgNo());
              N.Sites.push_back(S);
            }
          }
        }
        if (Library)
          continue;
        bool LaunchApi = Callee && Pol.isLaunchApi(name(*Callee));
        // Other operands: functions whose address is taken (launch API
        // arguments, tables built at run time) and globals used.
        unsigned NumOps = CB ? CB->arg_size() : I.getNumOperands();
        for (unsigned Idx = 0; Idx < NumOps; ++Idx) {
          const Value *V = CB ? CB->getArgOperand(Idx) : I.getOperand(Idx);
          V = V->stripPointerCasts();
          if (const auto *RF = dyn_cast<Function>(V)) {
            if (RF->isIntrinsic())
              continue;
            N.Sites.push_back(site(LaunchApi && Kernels.count(RF)
                                       ? SiteKind::Launch
                                       : SiteKind::Ref,
                                   RF, &I, F, Dead));
          } else if (const auto *G = dyn_cast<GlobalVariable>(V)) {
            if (!G->isDeclaration())
              N.GlobalRefs.push_back(G->getName().str());
            else if (!G->isConstant())
              N.Sites.push_back(externalVar(*G, &I, F, Dead));
          } else if (const auto *GEP = dyn_cast<GEPOperator>(V)) {
            if (const auto *G = dyn_cast<GlobalVariable>(
                    GEP->getPointerOperand()->stripPointerCasts()))
              if (!G->isDeclaration())
                N.GlobalRefs.push_back(G->getName().str());
          }
        }
      }
    }
  }

  Site externalVar(const GlobalVariable &G, const Instruction *I,
                   const Function &F, bool Dead) const {
    Site S;
    S.Kind = SiteKind::VarRef;
    S.Key = G.getName().str();
    S.Name = demangledQualifiedName(G.getName());
    S.Pos = pos(I, F);
    S.Dead = Dead;
    return S;
  }

  static bool isLibraryGlobal(const GlobalVariable &G) {
    StringRef N = G.getName();
    return G.isConstant() || G.hasLinkOnceLinkage() || G.hasWeakLinkage() ||
           G.hasPrivateLinkage() || N.starts_with("llvm.") ||
           N.starts_with("__cuda") || N.starts_with("__hip") ||
           N.starts_with("_ZTV") || N.starts_with("_ZTI") ||
           N.starts_with("_ZTS") || N.starts_with("_ZGV") ||
           N.starts_with(".str");
  }

  void buildGlobal(const GlobalVariable &G) {
    if (G.isDeclaration())
      return;
    GlobalNode &N = Out.Globals[G.getName().str()];
    N.Key = G.getName().str();
    N.Name = demangle(G.getName().str());
    SmallVector<const Function *, 8> Fns;
    SmallPtrSet<const Value *, 16> Seen;
    if (G.hasInitializer())
      functionsIn(G.getInitializer(), Fns, Seen);
    for (const Function *F : Fns) {
      Site S;
      S.Kind = SiteKind::Ref;
      S.Key = F->getName().str();
      S.Name = name(*F);
      S.Pos = {Mod.getSourceFileName(), 0, 0};
      N.InitSites.push_back(S);
    }
    if (isLibraryGlobal(G))
      return;
    SmallVector<DIGlobalVariableExpression *, 1> DIs;
    G.getDebugInfo(DIs);
    const DIGlobalVariable *DV =
        DIs.empty() ? nullptr : DIs.front()->getVariable();
    if (DV ? isLibraryPath(fileOf(DV->getScope()->getFile()))
           : StringRef(N.Name).starts_with("std::"))
      return;
    StateVar V;
    V.Name = N.Name;
    std::string T;
    raw_string_ostream OS(T);
    G.getValueType()->print(OS);
    V.Type = T;
    V.Pos = {Mod.getSourceFileName(), 0, 0};
    if (DV)
      V.Pos = {fileOf(DV->getFile()), DV->getLine(), 0};
    Type *VT = G.getValueType();
    bool Ptr = VT->isPointerTy() ||
               (VT->isArrayTy() && VT->getArrayElementType()->isPointerTy());
    bool FnTable = !Fns.empty();
    StringRef TS = T;
    // A pointer to an incomplete struct (cudaStream_t, cublasHandle_t) is an
    // opaque handle, not a cached output: debug info tells.
    bool Handle = false;
    if (DV) {
      const DIType *DT = DV->getType();
      while (const auto *D = dyn_cast_or_null<DIDerivedType>(DT)) {
        if (D->getTag() == dwarf::DW_TAG_pointer_type) {
          const DIType *Pointee = D->getBaseType();
          while (const auto *TD = dyn_cast_or_null<DIDerivedType>(Pointee))
            if (TD->getTag() == dwarf::DW_TAG_typedef ||
                TD->getTag() == dwarf::DW_TAG_const_type)
              Pointee = TD->getBaseType();
            else
              break;
          if (const auto *C = dyn_cast_or_null<DICompositeType>(Pointee))
            Handle = C->isForwardDecl();
          break;
        }
        DT = D->getBaseType();
      }
    }
    V.Risky = (Ptr && !FnTable && !Handle) || TS.contains("Tensor") ||
              TS.contains("map") || TS.contains("vector") ||
              TS.contains("set<") || TS.contains("intrusive_ptr");
    V.Device = StringRef(Mod.getTargetTriple().str()).starts_with("nvptx") ||
               StringRef(Mod.getTargetTriple().str()).starts_with("amdgcn");
    N.State = V;
  }

  void buildStaticInit() {
    FunctionNode &Init = Out.Functions[staticInitKey()];
    Init.Key = Init.Name = staticInitKey();
    Init.HasBody = true;
    const GlobalVariable *Ctors = Mod.getGlobalVariable("llvm.global_ctors");
    if (!Ctors || !Ctors->hasInitializer())
      return;
    SmallVector<const Function *, 8> Fns;
    SmallPtrSet<const Value *, 16> Seen;
    functionsIn(Ctors->getInitializer(), Fns, Seen);
    for (const Function *F : Fns) {
      Site S;
      S.Kind = SiteKind::Call;
      S.Key = F->getName().str();
      S.Name = name(*F);
      S.Pos = {Mod.getSourceFileName(), 0, 0};
      Init.Sites.push_back(S);
    }
  }

  const Module &Mod;
  const Policy &Pol;
  Model &Out;
  SmallPtrSet<const Function *, 16> Kernels;
  SmallPtrSet<const Function *, 32> LibraryFns;
  SmallVector<const Function *, 16> VirtualTargets;
};
} // namespace

Model atrex::lint::buildModelFromIR(const Module &M, const Policy &P) {
  Model Out;
  IRBuilder(M, P, Out).build();
  return Out;
}

Model atrex::lint::buildModelFromIRFile(StringRef Path, const Policy &P) {
  LLVMContext Ctx;
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseIRFile(Path, Err, Ctx);
  if (!M) {
    Model Out;
    Out.Files.push_back(Path.str());
    std::string S;
    raw_string_ostream OS(S);
    OS << Path << ":" << Err.getLineNo() << ":" << (Err.getColumnNo() + 1)
       << ": error: " << Err.getMessage();
    Out.Errors.push_back(OS.str());
    return Out;
  }
  Model Out = buildModelFromIR(*M, P);
  Out.Files.front() = Path.str();
  return Out;
}

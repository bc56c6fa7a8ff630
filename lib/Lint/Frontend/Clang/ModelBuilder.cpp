//===- ModelBuilder.cpp - reduce a Clang AST to the lint model ------------===//
//
// Part of atrex. One RecursiveASTVisitor pass over the user code of a
// translation unit (declarations in system headers are skipped whole):
// functions, their call/construct/reference/launch sites with callees resolved
// by the AST (templates, lambdas, macros, `using namespace` all resolved by
// Sema), calls through pointers resolved through variable initialisers, dead
// code from the CFG, static state, and redefinitions of runtime symbols.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/ModelBuilder.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Project.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;
using namespace atrex::lint;

namespace {

struct MacroDef {
  std::string Name;
  SourcePos Pos;
};

/// Records macro definitions made in user files.
class MacroWatcher : public PPCallbacks {
public:
  MacroWatcher(SourceManager &SM, std::vector<MacroDef> &Out)
      : SM(SM), Out(Out) {}
  void MacroDefined(const Token &Name, const MacroDirective *MD) override {
    SourceLocation L = Name.getLocation();
    if (L.isInvalid() || SM.isWrittenInBuiltinFile(L) ||
        SM.isWrittenInCommandLineFile(L) || SM.isInSystemHeader(L))
      return;
    PresumedLoc P = SM.getPresumedLoc(L);
    if (P.isInvalid())
      return;
    Out.push_back({Name.getIdentifierInfo()->getName().str(),
                   {P.getFilename(), P.getLine(), P.getColumn()}});
  }

private:
  SourceManager &SM;
  std::vector<MacroDef> &Out;
};

class Builder : public RecursiveASTVisitor<Builder> {
  using Base = RecursiveASTVisitor<Builder>;

public:
  Builder(ASTContext &Ctx, const Policy &P, Model &M)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Pol(P), M(M) {
    PP.SuppressInlineNamespace =
        llvm::to_underlying(PrintingPolicy::SuppressInlineNamespaceMode::All);
    PP.SuppressTemplateArgsInCXXConstructors = true;
    PP.FullyQualifiedName = true;
    PP.SuppressTagKeyword = true;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  //===--------------------------------------------------------------------===//
  // Where are we
  //===--------------------------------------------------------------------===//

  bool isUserLoc(SourceLocation L) const {
    if (L.isInvalid())
      return false;
    L = SM.getExpansionLoc(L);
    return !SM.isInSystemHeader(L) && !SM.isWrittenInBuiltinFile(L) &&
           !SM.isWrittenInCommandLineFile(L) && !SM.isWrittenInScratchSpace(L);
  }
  bool isUserDecl(const Decl *D) const { return isUserLoc(D->getLocation()); }

  SourcePos pos(SourceLocation L) const {
    if (L.isInvalid())
      return {};
    L = SM.getExpansionLoc(L);
    PresumedLoc P = SM.getPresumedLoc(L);
    if (P.isInvalid())
      return {};
    return {P.getFilename(), P.getLine(), P.getColumn()};
  }

  std::string declFile(const Decl *D) const {
    SourceLocation L = SM.getExpansionLoc(D->getLocation());
    if (L.isInvalid())
      return "";
    StringRef F = SM.getFilename(SM.getSpellingLoc(L));
    return F.str();
  }

  /// Whether \p D has a definition (its own body, or its template's) in
  /// the main file's project (Project.h).
  bool projectDefined(const NamedDecl *D) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD)
      return false;
    const FunctionDecl *Def = nullptr;
    if (!FD->isDefined(Def)) {
      const FunctionDecl *Pat = FD->getTemplateInstantiationPattern();
      if (!Pat || !Pat->isDefined(Def))
        return false;
    }
    if (!isUserDecl(Def))
      return false;
    if (!Project) {
      OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
      Project.emplace(Main ? projectRoot(Main->getName()) : std::string());
    }
    return Project->contains(declFile(Def));
  }

  std::string key(const Decl *D) const {
    SmallString<128> USR;
    if (index::generateUSRForDecl(D, USR))
      return "decl:" + std::to_string(reinterpret_cast<uintptr_t>(D));
    return std::string(USR);
  }

  std::string qualName(const NamedDecl *D) const {
    std::string S;
    raw_string_ostream OS(S);
    D->printQualifiedName(OS, PP);
    return stripTemplateArgs(S);
  }

  //===--------------------------------------------------------------------===//
  // Declarations
  //===--------------------------------------------------------------------===//

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // System headers hold no user code: skip them whole (this is most of the
    // AST of a torch extension).
    if (!isa<TranslationUnitDecl>(D) && !D->isImplicit() &&
        D->getLocation().isValid() && !isUserDecl(D))
      return true;
    if (auto *FD = dyn_cast<FunctionDecl>(D))
      return traverseFunction(FD);
    if (auto *VD = dyn_cast<VarDecl>(D))
      if (VD->hasGlobalStorage() && !VD->isStaticLocal() &&
          !VD->getDeclContext()->isDependentContext())
        return traverseGlobal(VD);
    return Base::TraverseDecl(D);
  }

  FunctionNode &node(const FunctionDecl *FD) {
    std::string K = key(FD);
    FunctionNode &N = M.Functions[K];
    if (N.Key.empty()) {
      N.Key = K;
      N.Name = qualName(FD);
      raw_string_ostream OS(N.Display);
      FD->getNameForDiagnostic(OS, PP, /*Qualified=*/true);
      N.Pos = pos(FD->getLocation());
    }
    return N;
  }

  static bool isKernel(const FunctionDecl *FD) {
    return FD->hasAttr<CUDAGlobalAttr>();
  }
  /// The DSL of this translation unit's kernels (Dsls.def).
  const char *kernelDsl() const {
    return Ctx.getLangOpts().HIP ? "hip" : "cuda";
  }

  static bool isDeviceOnly(const FunctionDecl *FD) {
    return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>();
  }

  bool traverseFunction(FunctionDecl *FD) {
    // An uninstantiated kernel template still belongs in the inventory.
    if (FD->isDependentContext()) {
      if (isKernel(FD) && FD->getDescribedFunctionTemplate() &&
          FD->doesThisDeclarationHaveABody()) {
        FunctionNode &N = node(FD);
        N.IsKernel = true;
        N.Dsl = kernelDsl();
        N.IsTemplatePattern = true;
        N.HasBody = true;
      }
      return true; // Bodies are analysed in their instantiations.
    }
    if (!FD->doesThisDeclarationHaveABody())
      return Base::TraverseDecl(FD);

    FunctionNode &N = node(FD);
    N.HasBody = true;
    N.Pos = pos(FD->getLocation());
    N.InMainFile = SM.isInMainFile(SM.getExpansionLoc(FD->getLocation()));
    N.IsKernel = isKernel(FD);
    if (N.IsKernel)
      N.Dsl = kernelDsl();
    N.IsDeviceOnly = isDeviceOnly(FD);
    if (N.IsKernel || N.IsDeviceOnly) {
      SourcePos B = pos(FD->getBeginLoc()), E = pos(FD->getEndLoc());
      if (B.isValid() && E.isValid() && B.File == E.File)
        M.DeviceBodies.push_back({B.File, B.Line, E.Line});
    }
    if (FD->isTemplateInstantiation()) {
      N.IsTemplateInstance = true;
      if (const FunctionDecl *Pat = FD->getTemplateInstantiationPattern())
        N.PatternKey = key(Pat);
    }
    N.IsEntryCandidate = !N.IsKernel && !N.IsDeviceOnly &&
                         FD->isExternallyVisible() &&
                         !FD->isTemplateInstantiation() &&
                         !isa<CXXMethodDecl>(FD) && !FD->isInlined();
    if (FD->hasAttr<ConstructorAttr>() || FD->hasAttr<DestructorAttr>())
      N.IsEntryCandidate = true;
    checkRuntimeOverride(FD);
    if (auto *MD = dyn_cast<CXXMethodDecl>(FD))
      for (const CXXMethodDecl *O : MD->overridden_methods()) {
        // Dispatch through the base reaches every override.
        FunctionNode &B = node(O);
        Site S;
        S.Kind = SiteKind::Call;
        S.Key = N.Key;
        S.Name = N.Name;
        S.Pos = N.Pos;
        B.Sites.push_back(S);
      }

    Context Saved = Cur;
    Cur = Context();
    Cur.Node = &N;
    Cur.Device = N.IsKernel || N.IsDeviceOnly;
    computeDeadCode(FD);
    bool R = Base::TraverseDecl(FD);
    Cur = Saved;
    return R;
  }

  // A generic lambda (`[&](auto tag) { k<tag.value><<<...>>>(); }`, the
  // dispatch idiom of xformers, FlashInfer and CUTLASS examples) has a body
  // that is a template: its code is in the specializations of its call
  // operator, which the traversal of the lambda expression does not reach.
  // Each becomes a function of its own, called where the lambda is called.
  bool TraverseLambdaExpr(LambdaExpr *E, DataRecursionQueue *Q = nullptr) {
    if (!Base::TraverseLambdaExpr(E, Q))
      return false;
    if (FunctionTemplateDecl *FTD = E->getDependentCallOperator())
      for (FunctionDecl *Spec : FTD->specializations())
        if (Spec->doesThisDeclarationHaveABody() &&
            !Spec->isDependentContext() && LambdaSpecs.insert(Spec).second)
          traverseFunction(Spec);
    return true;
  }

  bool traverseGlobal(VarDecl *VD) {
    GlobalNode &G = M.Globals[key(VD)];
    G.Key = key(VD);
    G.Name = qualName(VD);
    // Only an object the submission defines can keep its state: `extern`
    // declarations (Python's `extern PyObject *PyExc_...` when its headers
    // come in with -I) name someone else's. A definition seen in another
    // unit of the submission is kept (merge keeps the first State).
    if (isMutableState(VD) && VD->hasDefinition() != VarDecl::DeclarationOnly)
      G.State = stateVar(VD);
    Context Saved = Cur;
    Cur = Context();
    Cur.Global = &G;
    Cur.Device =
        VD->hasAttr<CUDADeviceAttr>() || VD->hasAttr<CUDAConstantAttr>();
    bool R = Base::TraverseDecl(VD);
    Cur = Saved;
    return R;
  }

  bool isMutableState(const VarDecl *VD) const {
    QualType T = VD->getType();
    if (T.isConstQualified() || VD->isConstexpr())
      return false;
    if (VD->hasAttr<CUDASharedAttr>() || VD->hasAttr<CUDAConstantAttr>())
      return false;
    if (T->isReferenceType())
      return false;
    if (const auto *AT = Ctx.getAsArrayType(T))
      if (AT->getElementType().isConstQualified())
        return false;
    return true;
  }

  StateVar stateVar(const VarDecl *VD) const {
    StateVar S;
    S.Key = key(VD);
    S.Name = VD->getNameAsString();
    S.Type = VD->getType().getAsString(PP);
    S.Pos = pos(VD->getLocation());
    S.Device = VD->hasAttr<CUDADeviceAttr>();
    Holds H = holds(VD->getType(), /*Top=*/true);
    S.Risky = H != Holds::No;
    S.TypeErased = H == Holds::Erased;
    return S;
  }

  /// What state of a type can keep: results (tensors, data pointers,
  /// numbers and plain values in containers), only long-lived objects (a
  /// registry of layers, plans, handles), or whatever was stored in it (a
  /// type-erased `shared_ptr<void>`: decided by its stores).
  enum class Holds { No, Yes, Erased };

  /// The old test by name, for types the structural test does not know
  /// (a user template at the top, an unusual std type).
  static bool riskyByName(StringRef T) {
    return T.contains("Tensor") || T.contains("map<") || T.contains("set<") ||
           T.contains("vector<") || T.contains("list<") ||
           T.contains("deque<") || T.contains("optional<") ||
           T.contains("intrusive_ptr<") || T.contains("shared_ptr<") ||
           T.contains("unique_ptr<");
  }

  /// A class with behaviour (not trivially copyable: a constructor or
  /// destructor that owns resources, virtual functions): a layer, a plan, an
  /// engine; a trivially copyable struct (float4, __half, a POD) is a value.
  static bool isObjectClass(const CXXRecordDecl *RD) {
    return RD && RD->hasDefinition() && !RD->isTriviallyCopyable();
  }

  /// An object class with a tensor among its fields (or its bases' or
  /// member objects', two levels deep) can keep the entry's outputs.
  bool hasTensorField(const CXXRecordDecl *RD, unsigned Depth = 0) const {
    if (!RD || !RD->hasDefinition() || Depth > 2)
      return false;
    for (const FieldDecl *F : RD->fields()) {
      QualType FT = F->getType().getCanonicalType();
      if (StringRef(FT.getAsString(PP)).contains("Tensor"))
        return true;
      if (hasTensorField(FT->getAsCXXRecordDecl(), Depth + 1))
        return true;
    }
    for (const CXXBaseSpecifier &B : RD->bases())
      if (hasTensorField(B.getType()->getAsCXXRecordDecl(), Depth + 1))
        return true;
    return false;
  }

  Holds holds(QualType T, bool Top, unsigned Depth = 0) const {
    if (T.isNull() || Depth > 8)
      return Holds::Yes;
    T = T.getNonReferenceType().getCanonicalType();
    if (T->isFunctionType() || T->isFunctionPointerType() ||
        T->isMemberPointerType())
      return Holds::No;
    if (T->isArithmeticType() || T->isEnumeralType())
      return Top ? Holds::No : Holds::Yes; // a scalar; numbers in a container
    if (const auto *AT = Ctx.getAsArrayType(T)) {
      QualType E = AT->getElementType();
      return holds(E, Top && !E->isPointerType(), Depth + 1);
    }
    if (T->isPointerType()) {
      QualType P = T->getPointeeType().getCanonicalType();
      // Opaque handles (pointers to incomplete structs: cudaStream_t,
      // cublasHandle_t) name library objects, not data that could be a
      // cached output.
      if (P->isRecordType() && P->isIncompleteType())
        return Holds::No;
      const CXXRecordDecl *RD = P->getAsCXXRecordDecl();
      if (isObjectClass(RD) && holds(P, false, Depth + 1) == Holds::No)
        return Holds::No; // a pointer to a layer, a plan
      return Holds::Yes;  // a data pointer (float *, void *, __half *)
    }
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (!RD)
      return Top ? Holds::No : Holds::Yes;
    std::string QName = RD->getQualifiedNameAsString();
    StringRef Q = QName;
    if (Q.contains("Tensor"))
      return Holds::Yes;
    const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    auto Arg = [&](unsigned I) -> QualType {
      if (!CTS || I >= CTS->getTemplateArgs().size() ||
          CTS->getTemplateArgs()[I].getKind() != TemplateArgument::Type)
        return QualType();
      return CTS->getTemplateArgs()[I].getAsType();
    };
    StringRef N = RD->getName();
    bool Std = RD->isInStdNamespace() || Q.starts_with("c10::");
    if (CTS && Std) {
      // What a smart pointer owns: void is whatever was stored.
      auto Owned = [&](QualType E) {
        if (E.isNull())
          return Holds::Yes;
        E = E.getCanonicalType();
        if (E->isVoidType())
          return Holds::Erased;
        if (E->isArrayType())
          return Holds::Yes; // unique_ptr<float[]>: a buffer
        return holds(E, false, Depth + 1);
      };
      if (N == "map" || N == "unordered_map" || N == "multimap" ||
          N == "unordered_multimap" || N == "flat_map")
        return holds(Arg(1), false, Depth + 1); // what is kept per key
      if (N == "shared_ptr" || N == "unique_ptr" || N == "weak_ptr" ||
          N == "intrusive_ptr")
        return Owned(Arg(0));
      if (N == "vector" || N == "list" || N == "deque" || N == "set" ||
          N == "unordered_set" || N == "multiset" ||
          N == "unordered_multiset" || N == "forward_list" || N == "optional" ||
          N == "array" || N == "queue" || N == "stack" ||
          N == "priority_queue" || N == "valarray")
        return holds(Arg(0), false, Depth + 1);
      if (N == "pair" || N == "tuple" || N == "variant") {
        Holds H = Holds::No;
        for (const TemplateArgument &A : CTS->getTemplateArgs().asArray()) {
          if (A.getKind() == TemplateArgument::Pack) {
            for (const TemplateArgument &P : A.pack_elements())
              if (P.getKind() == TemplateArgument::Type &&
                  holds(P.getAsType(), false, Depth + 1) != Holds::No)
                return Holds::Yes;
            continue;
          }
          if (A.getKind() == TemplateArgument::Type &&
              holds(A.getAsType(), false, Depth + 1) != Holds::No)
            H = Holds::Yes;
        }
        return H;
      }
    }
    if (Top || Std)
      return riskyByName(T.getAsString(PP)) ? Holds::Yes : Holds::No;
    // Kept in a container or owned by a pointer: a long-lived object
    // (layer, plan, handle wrapper) unless it has tensors of its own; a
    // plain value (a POD struct, float4) is data.
    if (isObjectClass(RD))
      return hasTensorField(RD) ? Holds::Yes : Holds::No;
    return Holds::Yes;
  }

  /// The state variable an assignment's target names: `g`, `g[k]`,
  /// `g.at(k)`; null for anything else.
  static const VarDecl *storedVar(const Expr *E) {
    for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
      E = E->IgnoreParenImpCasts();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        return dyn_cast<VarDecl>(DRE->getDecl());
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
        if (OC->getOperator() != OO_Subscript || OC->getNumArgs() < 1)
          return nullptr;
        E = OC->getArg(0);
        continue;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
        const CXXMethodDecl *MD = MC->getMethodDecl();
        if (!MD || MD->getName() != "at")
          return nullptr;
        E = MC->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }

  /// The type of what is stored, before the conversion to the holder's
  /// type (`shared_ptr<void> = shared_ptr<Layer>`).
  static QualType storedType(const Expr *E) {
    for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
      E = E->IgnoreImplicit();
      if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
        if (CE->getNumArgs() >= 1 && !isa<CXXTemporaryObjectExpr>(CE)) {
          E = CE->getArg(0);
          continue;
        }
      if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
        E = FC->getSubExpr();
        continue;
      }
      break;
    }
    return E ? E->getType() : QualType();
  }

  /// A store into type-erased state: what it stores decides whether the
  /// state can keep results (resolveErasedState).
  void noteStore(const VarDecl *VD, const Expr *Value) {
    if (!VD || !VD->hasGlobalStorage() ||
        holds(VD->getType(), true) != Holds::Erased)
      return;
    ErasedStore &St = ErasedStores[key(VD)];
    QualType T = Value ? storedType(Value) : QualType();
    if (!T.isNull() && holds(T, false) == Holds::No)
      ++St.Objects;
    else
      ++St.Other;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *E) {
    if (E->isTypeDependent() || E->getOperator() != OO_Equal ||
        E->getNumArgs() != 2)
      return true;
    noteStore(storedVar(E->getArg(0)), E->getArg(1));
    return true;
  }

  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *E) {
    const CXXMethodDecl *MD = E->getMethodDecl();
    if (E->isTypeDependent() || !MD || !MD->getIdentifier())
      return true;
    StringRef N = MD->getName();
    static const char *const Reads[] = {
        "find",    "count",  "contains",     "at",         "begin",
        "end",     "cbegin", "cend",         "size",       "empty",
        "erase",   "clear",  "get",          "use_count",  "operator bool",
        "reserve", "rehash", "bucket_count", "load_factor"};
    if (llvm::is_contained(Reads, N))
      return true;
    const VarDecl *VD = storedVar(E->getImplicitObjectArgument());
    if (!VD)
      return true;
    // emplace(k, v), try_emplace(k, v), insert_or_assign(k, v),
    // push_back(v): the value is the last argument; anything else that
    // writes (insert({k, v}), reset(p), swap) is not judged by its type.
    bool ByLast = N == "emplace" || N == "try_emplace" ||
                  N == "insert_or_assign" || N == "push_back" ||
                  N == "emplace_back";
    noteStore(VD, ByLast && E->getNumArgs() ? E->getArg(E->getNumArgs() - 1)
                                            : nullptr);
    return true;
  }

public:
  /// Type-erased state (`static std::unordered_map<int,
  /// std::shared_ptr<void>> layers`) only ever given objects of classes
  /// (`layers[id] = std::make_shared<Layer<T>>(...)`) is a registry of
  /// long-lived objects, not a cache of outputs; with no store seen, or any
  /// other store, it can cache outputs.
  void resolveErasedState() {
    auto Resolve = [&](StateVar &V) {
      if (!V.TypeErased)
        return;
      auto It = ErasedStores.find(V.Key);
      V.Risky = It == ErasedStores.end() || It->second.Objects == 0 ||
                It->second.Other != 0;
    };
    for (auto &KV : M.Functions)
      for (StateVar &V : KV.second.StaticLocals)
        Resolve(V);
    for (auto &KV : M.Globals)
      Resolve(KV.second.State);
  }

private:
  struct ErasedStore {
    unsigned Objects = 0, Other = 0;
  };
  std::map<std::string, ErasedStore> ErasedStores;

public:
  bool VisitVarDecl(VarDecl *VD) {
    if (!Cur.Node)
      return true;
    // Statics spelled inside library macros (PYBIND11_MODULE) are theirs.
    if (VD->isStaticLocal() && isMutableState(VD) &&
        isUserLoc(SM.getSpellingLoc(VD->getLocation())))
      Cur.Node->StaticLocals.push_back(stateVar(VD));
    // Destructors of user types run when the variable goes out of scope.
    if (!VD->hasGlobalStorage())
      addDestructorSite(VD->getType(), VD->getLocation());
    return true;
  }

  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *E) {
    addDestructorSite(E->getType(), E->getBeginLoc());
    return true;
  }

  void addDestructorSite(QualType T, SourceLocation L) {
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      return;
    const CXXDestructorDecl *DD = RD->getDestructor();
    if (!DD || DD->isTrivial() || !isUserDecl(DD) || DD->isImplicit())
      return;
    addSite(SiteKind::Construct, DD, L, nullptr);
  }

  //===--------------------------------------------------------------------===//
  // Dead code: blocks the CFG cannot reach, with trivially false edges pruned.
  //===--------------------------------------------------------------------===//

  void computeDeadCode(FunctionDecl *FD) {
    Cur.Dead.clear();
    CFG::BuildOptions Opts;
    Opts.PruneTriviallyFalseEdges = true;
    Opts.setAllAlwaysAdd();
    std::unique_ptr<CFG> G = CFG::buildCFG(FD, FD->getBody(), &Ctx, Opts);
    if (!G)
      return;
    llvm::DenseSet<const CFGBlock *> Live;
    SmallVector<const CFGBlock *, 32> Work{&G->getEntry()};
    while (!Work.empty()) {
      const CFGBlock *B = Work.pop_back_val();
      if (!Live.insert(B).second)
        continue;
      for (const CFGBlock::AdjacentBlock &A : B->succs())
        if (const CFGBlock *S = A.getReachableBlock())
          Work.push_back(S);
    }
    for (const CFGBlock *B : *G) {
      if (Live.count(B))
        continue;
      for (const CFGElement &E : *B)
        if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
          Cur.Dead.insert(S->getStmt());
    }
  }

  bool isDead(const Stmt *S) const { return Cur.Dead.count(S); }

  // Statements nested in a dead statement (lambda bodies are their own).
  bool TraverseStmt(Stmt *S, DataRecursionQueue *Q = nullptr) {
    if (S && Cur.DeadDepth == 0 && isDead(S)) {
      ++Cur.DeadDepth;
      bool R = Base::TraverseStmt(S, nullptr);
      --Cur.DeadDepth;
      return R;
    }
    return Base::TraverseStmt(S, nullptr);
  }

  //===--------------------------------------------------------------------===//
  // Sites
  //===--------------------------------------------------------------------===//

  std::vector<Site> *sites() {
    if (Cur.Node)
      return &Cur.Node->Sites;
    if (Cur.Global)
      return &Cur.Global->InitSites;
    return nullptr;
  }

  Site makeSite(SiteKind K, const NamedDecl *Callee, SourceLocation L,
                const Stmt *S) {
    Site St;
    St.Kind = K;
    if (Callee) {
      St.Key = key(Callee);
      St.Name = qualName(Callee);
      St.DeclFile = declFile(Callee);
      St.ProjectDefined = projectDefined(Callee);
    }
    St.Pos = pos(L);
    St.Dead = Cur.DeadDepth > 0 || (S && isDead(S));
    St.Device = Cur.Device;
    // A call written inside a macro of the submission's own: remember the
    // macro and where its body spells the call.
    if (L.isMacroID()) {
      SourceLocation Spell = SM.getSpellingLoc(L);
      if (isUserLoc(Spell) && !SM.isMacroArgExpansion(L))
        St.Macro =
            Lexer::getImmediateMacroNameForDiagnostics(L, SM, Ctx.getLangOpts())
                .str();
      if (!St.Macro.empty()) {
        PresumedLoc P = SM.getPresumedLoc(Spell);
        if (P.isValid())
          St.MacroPos = {P.getFilename(), P.getLine(), P.getColumn()};
      }
    }
    return St;
  }

  Site *addSite(SiteKind K, const NamedDecl *Callee, SourceLocation L,
                const Stmt *S) {
    std::vector<Site> *V = sites();
    if (!V)
      return nullptr;
    V->push_back(makeSite(K, Callee, L, S));
    return &V->back();
  }

  /// Functions an expression may designate: direct references, casts,
  /// conditionals, local and global variables' initialisers (function-pointer
  /// variables and tables), to a small depth.
  void collectFunctions(const Expr *E,
                        SmallVectorImpl<const FunctionDecl *> &Out,
                        unsigned Depth = 0) {
    if (!E || Depth > 6)
      return;
    E = E->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl())) {
        Out.push_back(FD);
        return;
      }
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl())) {
        if (const Expr *Init = VD->getAnyInitializer())
          collectFunctions(Init, Out, Depth + 1);
        // Later assignments to a local pointer are not tracked.
      }
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      collectFunctions(UO->getSubExpr(), Out, Depth + 1);
      return;
    }
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
      collectFunctions(CO->getTrueExpr(), Out, Depth + 1);
      collectFunctions(CO->getFalseExpr(), Out, Depth + 1);
      return;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      collectFunctions(AS->getBase(), Out, Depth + 1);
      return;
    }
    if (const auto *ILE = dyn_cast<InitListExpr>(E)) {
      for (const Expr *I : ILE->inits())
        collectFunctions(I, Out, Depth + 1);
      return;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (const auto *FD = dyn_cast<FunctionDecl>(ME->getMemberDecl()))
        Out.push_back(FD);
      return;
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      for (const Expr *A : CE->arguments())
        collectFunctions(A, Out, Depth + 1);
      return;
    }
  }

  /// Text of a string-literal argument, if any (dlsym's symbol name).
  static std::string stringArg(const CallExpr *CE) {
    for (const Expr *A : CE->arguments())
      if (const auto *SL =
              dyn_cast<clang::StringLiteral>(A->IgnoreParenCasts()))
        if (SL->getCharByteWidth() == 1)
          return SL->getString().str();
    return "";
  }

  /// An argument naming a global byte array (an embedded image).
  std::string embeddedImage(const CallExpr *CE) const {
    for (const Expr *A : CE->arguments()) {
      const Expr *E = A->IgnoreParenCasts();
      if (const auto *UO = dyn_cast<UnaryOperator>(E))
        E = UO->getSubExpr()->IgnoreParenCasts();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
        E = AS->getBase()->IgnoreParenCasts();
      const auto *DRE = dyn_cast<DeclRefExpr>(E);
      if (!DRE)
        continue;
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD || !VD->hasGlobalStorage())
        continue;
      if (const auto *CAT = Ctx.getAsConstantArrayType(VD->getType()))
        return "embedded image '" + VD->getNameAsString() + "' (" +
               std::to_string(CAT->getSize().getZExtValue() *
                              Ctx.getTypeSizeInChars(CAT->getElementType())
                                  .getQuantity()) +
               " bytes)";
    }
    return "";
  }

  bool VisitCallExpr(CallExpr *E) {
    if (!sites() || E->isTypeDependent())
      return true;
    const Expr *CalleeE = E->getCallee();
    if (CalleeE)
      CalleeRefs.insert(CalleeE->IgnoreParenImpCasts());
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(
            CalleeE ? CalleeE->IgnoreParenImpCasts() : nullptr))
      CalleeRefs.insert(ME);

    // <<<>>> launches.
    if (auto *KC = dyn_cast<CUDAKernelCallExpr>(E)) {
      if (const FunctionDecl *K = KC->getDirectCallee()) {
        addSite(SiteKind::Launch, K, E->getBeginLoc(), E);
        return true;
      }
      SmallVector<const FunctionDecl *, 4> Targets;
      collectFunctions(CalleeE, Targets);
      for (const FunctionDecl *T : Targets)
        addSite(SiteKind::Launch, T, E->getBeginLoc(), E);
      if (Targets.empty())
        addUnresolved(E, "kernel launch through a pointer");
      return true;
    }

    if (const FunctionDecl *FD = E->getDirectCallee()) {
      if (FD->getBuiltinID() && !isUserDecl(FD) &&
          !Ctx.BuiltinInfo.isPredefinedLibFunction(FD->getBuiltinID()))
        return true; // __builtin_expect and friends
      Site *S = addSite(SiteKind::Call, FD, E->getBeginLoc(), E);
      if (!S)
        return true;
      recordArgVars(E, *S);
      std::string Name = S->Name;
      if (StringRef(Name).contains("dlsym") ||
          StringRef(Name).contains("ProcAddress") ||
          StringRef(Name).contains("EntryPoint")) {
        std::string Sym = stringArg(E);
        if (!Sym.empty()) {
          S->Detail = "symbol \"" + Sym + "\"";
          S->NamedSymbol = Sym;
        }
      } else if (StringRef(Name).contains("Load")) {
        S->Detail = embeddedImage(E);
      }
      if (Pol.isLaunchApi(Name)) {
        for (const Expr *A : E->arguments()) {
          SmallVector<const FunctionDecl *, 4> Targets;
          collectFunctions(A, Targets);
          for (const FunctionDecl *T : Targets)
            if (isKernel(T))
              addSite(SiteKind::Launch, T, E->getBeginLoc(), E);
        }
      }
      return true;
    }

    // A call through something that is not a declared function.
    if (!CalleeE)
      return true;
    const Expr *C = CalleeE->IgnoreParenImpCasts();
    if (isa<CXXPseudoDestructorExpr>(C) || C->isTypeDependent())
      return true;
    SmallVector<const FunctionDecl *, 4> Targets;
    collectFunctions(C, Targets);
    for (const FunctionDecl *T : Targets)
      addSite(isKernel(T) ? SiteKind::Launch : SiteKind::Indirect, T,
              E->getBeginLoc(), E);
    if (Targets.empty()) {
      // A pointer typed as a driver entry point (cudaTypedefs.h's
      // PFN_cuTensorMapEncodeTiled_v12000) calls that driver function.
      std::string Driver = driverFunctionOfType(C->getType());
      if (!Driver.empty()) {
        if (Site *S = addSite(SiteKind::Call, nullptr, E->getBeginLoc(), E)) {
          S->Name = Driver;
          S->Detail = "through a pointer of type 'PFN_" + Driver + "'";
        }
        return true;
      }
      addUnresolved(E, "call through a function pointer");
      if (const auto *DRE = dyn_cast<DeclRefExpr>(C))
        if (std::vector<Site> *V = sites();
            V && !V->empty() && V->back().Kind == SiteKind::Unresolved) {
          if (const auto *PVD = dyn_cast<ParmVarDecl>(DRE->getDecl()))
            V->back().ParamIndex = int(PVD->getFunctionScopeIndex());
        }
    }
    return true;
  }

  /// The variable (or member) an argument expression names, through `&`,
  /// `*`, casts and `.stream()`-style accessor calls.
  std::string varOf(const Expr *E) const {
    for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
      E = E->IgnoreParenImpCasts();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        return isa<VarDecl>(DRE->getDecl()) ? key(DRE->getDecl()) : "";
      if (const auto *ME = dyn_cast<MemberExpr>(E))
        return key(ME->getMemberDecl());
      if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
        E = UO->getSubExpr();
        continue;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
        E = MC->getImplicitObjectArgument(); // side.stream()
        continue;
      }
      if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
        E = CE->getNumArgs() ? CE->getArg(0) : nullptr;
        continue;
      }
      if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
        E = BT->getSubExpr();
        continue;
      }
      if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
        E = MT->getSubExpr();
        continue;
      }
      return "";
    }
    return "";
  }

  /// The function an argument passes (`f`, `&f`, `(fn_t)f`), else empty.
  std::string funcOf(const Expr *A) const {
    SmallVector<const FunctionDecl *, 2> Fs;
    const Expr *X = A->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(X))
      if (UO->getOpcode() == UO_AddrOf)
        X = UO->getSubExpr()->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
        return key(FD);
    return "";
  }

  void recordArgVars(const CallExpr *E, Site &S) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      S.ArgVars.push_back(varOf(MC->getImplicitObjectArgument()));
      S.ArgFuncs.push_back("");
    }
    for (const Expr *A : E->arguments()) {
      S.ArgVars.push_back(varOf(A));
      S.ArgFuncs.push_back(funcOf(A));
    }
    S.ResultVar = Cur.InitVar;
    if (!isa<CXXMemberCallExpr>(E) && E->getNumArgs() > 0) {
      const Expr *A = E->getArg(0);
      if (!A->isValueDependent() && A->getType()->isIntegralOrEnumerationType())
        if (std::optional<llvm::APSInt> V = A->getIntegerConstantExpr(Ctx))
          S.IntArg0 = V->getExtValue();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts())) {
        S.Arg0Decl = qualName(DRE->getDecl());
        if (llvm::is_contained(FailureVars, DRE->getDecl()))
          S.Arg0Failure = true;
      }
    }
  }

  /// The variable a condition finds to hold a failure status in its true
  /// (\p WhenTrue) or false branch: `code != cudaSuccess` / `code != 0` /
  /// `code` are true on failure, `code == cudaSuccess` false on failure.
  /// Success codes are 0 (cudaSuccess, CUBLAS_STATUS_SUCCESS, ncclSuccess).
  static const ValueDecl *failureVar(const Expr *Cond, bool &WhenTrue) {
    Cond = Cond->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Cond)) {
      WhenTrue = true;
      return isa<VarDecl>(DRE->getDecl()) ? DRE->getDecl() : nullptr;
    }
    return nullptr;
  }
  const ValueDecl *failureVarOf(const Expr *Cond, bool &WhenTrue) {
    Cond = Cond->IgnoreParenImpCasts();
    if (const auto *BO = dyn_cast<BinaryOperator>(Cond)) {
      if (BO->getOpcode() != BO_NE && BO->getOpcode() != BO_EQ)
        return nullptr;
      auto IsZero = [&](const Expr *E) {
        E = E->IgnoreParenImpCasts();
        if (E->isValueDependent())
          return false;
        std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx);
        return V && *V == 0;
      };
      const Expr *L = BO->getLHS()->IgnoreParenImpCasts();
      const Expr *R = BO->getRHS()->IgnoreParenImpCasts();
      const Expr *Var = IsZero(R) ? L : IsZero(L) ? R : nullptr;
      const auto *DRE = Var ? dyn_cast<DeclRefExpr>(Var) : nullptr;
      if (!DRE || !isa<VarDecl>(DRE->getDecl()))
        return nullptr;
      WhenTrue = BO->getOpcode() == BO_NE;
      return DRE->getDecl();
    }
    return failureVar(Cond, WhenTrue);
  }

  // `if (code != cudaSuccess) { ...; exit(code); }`: inside the failure
  // branch, the variable holds a failure status (a failure exit).
  bool TraverseIfStmt(IfStmt *If) {
    bool WhenTrue = false;
    const ValueDecl *V = If->getCond() && !If->getConditionVariable()
                             ? failureVarOf(If->getCond(), WhenTrue)
                             : nullptr;
    if (!V)
      return Base::TraverseIfStmt(If);
    if (If->getInit())
      TraverseStmt(If->getInit());
    TraverseStmt(If->getCond());
    for (bool Branch : {true, false}) {
      Stmt *B = Branch ? If->getThen() : If->getElse();
      if (!B)
        continue;
      bool Failing = Branch == WhenTrue;
      if (Failing)
        FailureVars.push_back(V);
      TraverseStmt(B);
      if (Failing)
        FailureVars.pop_back();
    }
    return true;
  }

  bool TraverseVarDecl(VarDecl *VD) {
    std::string Saved = Cur.InitVar;
    Cur.InitVar = VD->hasInit() ? key(VD) : "";
    bool R = Base::TraverseVarDecl(VD);
    Cur.InitVar = Saved;
    return R;
  }

  /// The driver function a function-pointer type names: the CUDA
  /// toolkit's `PFN_<function>[_v<version>]` typedefs (cudaTypedefs.h),
  /// declared in a system header; empty for any other type.
  std::string driverFunctionOfType(QualType T) const {
    for (unsigned Depth = 0; !T.isNull() && Depth < 8; ++Depth) {
      const auto *TT = T->getAs<TypedefType>();
      if (!TT)
        return "";
      const TypedefNameDecl *D = TT->getDecl();
      StringRef N = D->getName();
      if (N.consume_front("PFN_") && N.starts_with("cu") &&
          SM.isInSystemHeader(D->getLocation())) {
        // Drop a version suffix: _v12000.
        size_t V = N.rfind("_v");
        if (V != StringRef::npos && V + 2 < N.size() &&
            llvm::all_of(N.drop_front(V + 2),
                         [](char Ch) { return isDigit(Ch); }))
          N = N.take_front(V);
        return N.str();
      }
      T = D->getUnderlyingType();
    }
    return "";
  }

  void addUnresolved(CallExpr *E, StringRef What) {
    Site *S = addSite(SiteKind::Unresolved, nullptr, E->getBeginLoc(), E);
    if (!S)
      return;
    std::string Text;
    if (const Expr *C = E->getCallee()) {
      CharSourceRange R = SM.getExpansionRange(C->getSourceRange());
      Text = Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
    }
    S->Name = Text.empty() ? "<pointer>" : Text;
    S->Detail = What.str();
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    if (!sites())
      return true;
    const CXXConstructorDecl *CD = E->getConstructor();
    if (!CD || CD->isTrivial())
      return true;
    addSite(SiteKind::Construct, CD, E->getBeginLoc(), E);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (!sites() || CalleeRefs.count(E))
      return true;
    const ValueDecl *D = E->getDecl();
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      addSite(SiteKind::Ref, FD, E->getBeginLoc(), E);
      return true;
    }
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (!VD->hasGlobalStorage())
        return true;
      if (isUserDecl(VD)) {
        if (Cur.Node && !VD->isStaticLocal())
          Cur.Node->GlobalRefs.push_back(key(VD));
      } else {
        addSite(SiteKind::VarRef, VD, E->getBeginLoc(), E);
      }
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Redefinition of runtime and timing symbols
  //===--------------------------------------------------------------------===//

  void checkRuntimeOverride(const FunctionDecl *FD) {
    if (!FD->getIdentifier())
      return;
    std::string Name = qualName(FD);
    bool Timing = Pol.isTimingSymbol(Name);
    bool RedeclaresSystem = false;
    for (const FunctionDecl *R : FD->redecls())
      if (R != FD && !isUserDecl(R))
        RedeclaresSystem = true;
    if (!Timing && !(RedeclaresSystem && Pol.isRuntimeSymbol(Name)))
      return;
    Finding F;
    F.Check = checks::EvasionRuntimeOverride.str();
    F.Pos = pos(FD->getLocation());
    F.Symbol = Name;
    F.Library = "runtime symbol";
    F.Message = "definition of '" + Name + "' replaces the " +
                (Timing ? std::string("timing/synchronisation")
                        : std::string("runtime")) +
                " function the harness relies on";
    M.Unconditional.push_back(std::move(F));
  }

  void checkMacros(const std::vector<MacroDef> &Macros) {
    for (const MacroDef &D : Macros) {
      bool Timing = Pol.isTimingSymbol(D.Name);
      bool Runtime = false;
      if (!Timing && Pol.isRuntimeSymbol(D.Name)) {
        // Only names that the runtime headers really declare.
        DeclContext::lookup_result R =
            Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(D.Name));
        for (const NamedDecl *ND : R)
          if (isa<FunctionDecl>(ND) && !isUserDecl(ND))
            Runtime = true;
      }
      if (!Timing && !Runtime)
        continue;
      Finding F;
      F.Check = checks::EvasionRuntimeOverride.str();
      F.Pos = D.Pos;
      F.Symbol = D.Name;
      F.Library = "runtime symbol";
      F.Message = "macro '" + D.Name + "' redefines the " +
                  (Timing ? std::string("timing/synchronisation")
                          : std::string("runtime")) +
                  " function of the same name";
      M.Unconditional.push_back(std::move(F));
    }
  }

private:
  struct Context {
    FunctionNode *Node = nullptr;
    GlobalNode *Global = nullptr;
    bool Device = false;
    unsigned DeadDepth = 0;
    llvm::DenseSet<const Stmt *> Dead;
    std::string InitVar; ///< the variable whose initialiser is traversed
  };

  ASTContext &Ctx;
  SourceManager &SM;
  const Policy &Pol;
  Model &M;
  std::optional<ProjectFiles> Project;              ///< the main file's project
  llvm::DenseSet<const FunctionDecl *> LambdaSpecs; ///< generic lambdas done
  PrintingPolicy PP{LangOptions()};
  Context Cur;
  llvm::DenseSet<const Expr *> CalleeRefs;
  /// Variables holding a failure status where the traversal is (see
  /// TraverseIfStmt).
  std::vector<const ValueDecl *> FailureVars;
};

class ModelConsumer : public ASTConsumer {
public:
  ModelConsumer(CompilerInstance &CI, const Policy &P, Model &Out)
      : Pol(P), Out(Out) {
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<MacroWatcher>(CI.getSourceManager(), Macros));
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    SourceManager &SM = Ctx.getSourceManager();
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getMainFileID()))
      Out.Files.push_back(FE->getName().str());
    Out.FromSource = true;
    // A torch extension: the unit includes PyTorch's or pybind11's headers.
    auto IsTorchHeader = [](StringRef Name) {
      return Name.ends_with("torch/extension.h") ||
             Name.ends_with("ATen/ATen.h") ||
             Name.ends_with("ATen/core/Tensor.h") ||
             Name.ends_with("torch/all.h") ||
             Name.ends_with("pybind11/pybind11.h") ||
             Name.ends_with("torch/library.h") ||
             // torch's stable C++ ABI (STABLE_TORCH_LIBRARY)
             Name.ends_with("torch/csrc/stable/library.h");
    };
    for (auto It = SM.fileinfo_begin(), E = SM.fileinfo_end();
         It != E && !Out.UsesTorch; ++It)
      Out.UsesTorch = IsTorchHeader(It->first.getName());
    // Headers that came in through a precompiled prefix are not in the
    // source manager: the main file's own #include lines name them.
    if (!Out.UsesTorch) {
      SmallVector<StringRef, 0> Lines;
      SM.getBufferData(SM.getMainFileID()).split(Lines, '\n');
      for (StringRef L : Lines) {
        L = L.trim();
        if (!L.consume_front("#"))
          continue;
        L = L.ltrim();
        if (!L.consume_front("include"))
          continue;
        L = L.trim();
        if (L.size() > 2 && (L.front() == '<' || L.front() == '"') &&
            IsTorchHeader(L.drop_front().take_until(
                [](char C) { return C == '>' || C == '"'; }))) {
          Out.UsesTorch = true;
          break;
        }
      }
    }
    Builder B(Ctx, Pol, Out);
    B.TraverseDecl(Ctx.getTranslationUnitDecl());
    B.resolveErasedState();
    B.checkMacros(Macros);
    // Every user global initialiser runs at load time.
    FunctionNode &Init = Out.Functions[staticInitKey()];
    Init.Key = staticInitKey();
    Init.Name = staticInitKey();
    Init.HasBody = true;
    for (auto &KV : Out.Globals) {
      // A global built by a library's constructor or call from function
      // references registers them (TORCH_LIBRARY_IMPL's init object, a
      // pybind or stable-ABI registration): the harness calls what it
      // registers. A plain table of pointers (`{&f, &g}`) calls nothing:
      // its functions count only where reachable code uses the table.
      bool Registers = llvm::any_of(KV.second.InitSites, [&](const Site &S) {
        if (S.Kind != SiteKind::Construct && S.Kind != SiteKind::Call)
          return false;
        auto It = Out.Functions.find(S.Key);
        return It == Out.Functions.end() || !It->second.HasBody;
      });
      for (const Site &S : KV.second.InitSites)
        if ((S.Kind != SiteKind::Ref || Registers) &&
            S.Kind != SiteKind::VarRef)
          Init.Sites.push_back(S);
    }
  }

private:
  const Policy &Pol;
  Model &Out;
  std::vector<MacroDef> Macros;
};

} // namespace

std::unique_ptr<ASTConsumer>
atrex::lint::createModelConsumer(CompilerInstance &CI, const Policy &P,
                                 Model &Out) {
  return std::make_unique<ModelConsumer>(CI, P, Out);
}

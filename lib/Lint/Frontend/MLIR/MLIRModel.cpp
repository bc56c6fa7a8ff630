//===- MLIRModel.cpp - the lint model from an MLIR module ----------------===//
//
// Part of atrex. The MLIR front end of atrex-lint (include/atrex/Lint/
// MLIRModel.h): a module of the gpu/func/llvm dialects reduced to the lint
// model.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/MLIRModel.h"
#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/IRModel.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace atrex::lint;

namespace {

SourcePos posOf(Location L) {
  if (auto F = L->findInstanceOf<FileLineColLoc>())
    return {F.getFilename().str(), F.getLine(), F.getColumn()};
  return {};
}

/// `outer::inner` for a symbol nested in symbol tables (gpu.module @m {
/// gpu.func @k }), the plain name at the top level.
std::string keyOf(Operation *Op) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  for (Operation *P = Op; P && P->getParentOp(); P = P->getParentOp())
    if (auto Name =
            P->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      Parts.push_back(Name.getValue());
  std::string Key;
  for (auto It = Parts.rbegin(); It != Parts.rend(); ++It)
    Key += (Key.empty() ? "" : "::") + It->str();
  return Key;
}

std::string keyOf(SymbolRefAttr Ref) {
  std::string Key = Ref.getRootReference().str();
  for (FlatSymbolRefAttr N : Ref.getNestedReferences())
    Key += "::" + N.getValue().str();
  return Key;
}

bool isKernel(Operation *Op) {
  if (auto G = dyn_cast<gpu::GPUFuncOp>(Op))
    return G.isKernel();
  return Op->hasAttr("nvvm.kernel") || Op->hasAttr("rocdl.kernel") ||
         Op->hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

} // namespace

SourcePos atrex::lint::sourcePosOf(Location L) { return posOf(L); }

Model atrex::lint::buildModelFromMLIR(ModuleOp Module) {
  Model M;
  SourcePos ModPos = posOf(Module.getLoc());
  M.Files.push_back(ModPos.File.empty() ? "<module>" : ModPos.File);
  SymbolTableCollection Symbols;
  unsigned InlineLaunches = 0;

  Module.walk([&](FunctionOpInterface Fn) {
    Operation *Op = Fn.getOperation();
    std::string Key = keyOf(Op);
    FunctionNode &N = M.Functions[Key];
    N.Key = Key;
    N.Name = demangledQualifiedName(Fn.getName());
    N.Display = Key;
    N.Pos = posOf(Op->getLoc());
    N.HasBody = !Fn.isExternal();
    N.IsKernel = isKernel(Op);
    if (N.IsKernel)
      N.Dsl = "mlir-gpu";
    bool InGpuModule = Op->getParentOfType<gpu::GPUModuleOp>() != nullptr;
    N.IsDeviceOnly = InGpuModule && !N.IsKernel;
    auto Sym = dyn_cast<SymbolOpInterface>(Op);
    N.IsEntryCandidate =
        N.HasBody && !N.IsKernel && !InGpuModule && Sym && Sym.isPublic();
    if (!N.HasBody)
      return;
    bool Device = InGpuModule;
    Fn.getFunctionBody().walk([&](Operation *Inner) {
      Site S;
      S.Pos = posOf(Inner->getLoc());
      S.Device = Device;
      if (auto L = dyn_cast<gpu::LaunchFuncOp>(Inner)) {
        S.Kind = SiteKind::Launch;
        S.Key = keyOf(L.getKernel());
        S.Name = L.getKernelName().str();
        N.Sites.push_back(S);
        return;
      }
      if (auto L = dyn_cast<gpu::LaunchOp>(Inner)) {
        // An inline kernel: its region is the submission's own kernel.
        std::string K =
            Key + "::gpu.launch#" + std::to_string(InlineLaunches++);
        FunctionNode &KN = M.Functions[K];
        KN.Key = K;
        KN.Name = KN.Display = K;
        KN.Pos = S.Pos;
        KN.HasBody = KN.IsKernel = true;
        KN.Dsl = "mlir-gpu";
        S.Kind = SiteKind::Launch;
        S.Key = S.Name = K;
        N.Sites.push_back(S);
        return;
      }
      if (auto Addr = dyn_cast<LLVM::AddressOfOp>(Inner)) {
        Operation *Target =
            Symbols.lookupNearestSymbolFrom(Inner, Addr.getGlobalNameAttr());
        if (Target && isa<FunctionOpInterface>(Target)) {
          S.Kind = SiteKind::Ref;
          S.Key = keyOf(Target);
          S.Name = demangledQualifiedName(Addr.getGlobalName());
          N.Sites.push_back(S);
        }
        return;
      }
      auto Call = dyn_cast<CallOpInterface>(Inner);
      if (!Call)
        return;
      CallInterfaceCallable Callee = Call.getCallableForCallee();
      if (auto Ref = dyn_cast<SymbolRefAttr>(Callee)) {
        Operation *Target = Symbols.lookupNearestSymbolFrom(Inner, Ref);
        S.Kind = Target && isKernel(Target) ? SiteKind::Launch : SiteKind::Call;
        S.Key = Target ? keyOf(Target) : keyOf(Ref);
        S.Name = demangledQualifiedName(Ref.getLeafReference().getValue());
        N.Sites.push_back(S);
        return;
      }
      // A call through a value: resolved when the value is the address of
      // a known function.
      Value V = cast<Value>(Callee);
      if (auto Addr = V.getDefiningOp<LLVM::AddressOfOp>()) {
        S.Kind = SiteKind::Indirect;
        S.Key = Addr.getGlobalName().str();
        S.Name = demangledQualifiedName(Addr.getGlobalName());
      } else if (auto C = V.getDefiningOp<func::ConstantOp>()) {
        S.Kind = SiteKind::Indirect;
        S.Key = C.getValue().str();
        S.Name = demangledQualifiedName(C.getValue());
      } else {
        S.Kind = SiteKind::Unresolved;
        S.Name = "<value>";
        S.Detail = "call through a function value";
      }
      N.Sites.push_back(S);
    });
  });
  bool Host = llvm::any_of(M.Functions,
                           [](auto &KV) { return KV.second.IsEntryCandidate; });
  M.DeviceModule = !Host && llvm::any_of(M.Functions, [](auto &KV) {
    return KV.second.IsKernel;
  });
  {
    FunctionNode &Init = M.Functions[staticInitKey()];
    Init.Key = Init.Name = staticInitKey();
    Init.HasBody = true;
  }
  return M;
}

//===- OperatorLibrary.cpp - a suite's operator definitions ---------------===//
//
// Part of atrex. See include/atrex/Roofline/OperatorLibrary.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Roofline/OperatorLibrary.h"

#include "atrex/Passes/AtrexDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace atrex {

OperatorLibrary::OperatorLibrary() {
  mlir::DialectRegistry Registry;
  Registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  // The atrex dialect verifies the definitions' annotations as they parse.
  registerAtrexDialect(Registry);
  Context = std::make_unique<mlir::MLIRContext>(Registry);
  Context->loadAllAvailableDialects();
}

OperatorLibrary::~OperatorLibrary() {
  // Modules must go before their context.
  Defs.clear();
}

/// The leading `//` comment lines of a file, markers and one space removed.
static std::string leadingComment(StringRef Text) {
  std::string Out;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    StringRef T = Line.trim();
    if (!T.consume_front("//"))
      break;
    T.consume_front(" ");
    Out += T.rtrim().str();
    Out += '\n';
    Text = Rest;
  }
  return Out;
}

Expected<std::unique_ptr<OperatorLibrary>>
OperatorLibrary::load(StringRef Dir) {
  std::unique_ptr<OperatorLibrary> Lib(new OperatorLibrary());
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::path::extension(It->path()) == ".mlir")
      Files.push_back(It->path());
  if (EC)
    return createStringError("cannot list operator definitions in '" + Dir +
                             "': " + EC.message());
  llvm::sort(Files);
  for (const std::string &File : Files) {
    auto Buffer = MemoryBuffer::getFile(File);
    if (!Buffer)
      return createStringError("cannot read '" + File +
                               "': " + Buffer.getError().message());
    std::string Header = leadingComment((*Buffer)->getBuffer());
    SourceMgr SM;
    SM.AddNewSourceBuffer(std::move(*Buffer), SMLoc());
    std::string Diags;
    raw_string_ostream DiagOS(Diags);
    mlir::SourceMgrDiagnosticHandler Handler(SM, Lib->Context.get(), DiagOS);
    mlir::OwningOpRef<mlir::ModuleOp> Module =
        mlir::parseSourceFile<mlir::ModuleOp>(SM, Lib->Context.get());
    if (!Module)
      return createStringError("cannot parse '" + File +
                               "': " + StringRef(Diags).trim());
    std::vector<std::pair<std::string, std::string>> Found;
    for (auto Func : Module->getOps<mlir::func::FuncOp>())
      if (auto Op = Func->getAttrOfType<mlir::StringAttr>("atrex.operator"))
        Found.emplace_back(Op.str(), Func.getSymName().str());
    for (size_t I = 0; I < Found.size(); ++I) {
      if (Lib->Defs.count(Found[I].first))
        return createStringError("operator '" + Found[I].first +
                                 "' is defined twice (second in '" + File +
                                 "')");
      Definition &D = Lib->Defs[Found[I].first];
      D.File = File;
      D.Header = Header;
      D.FuncName = Found[I].second;
      // One module per operator: clone when a file defines several.
      D.Module = I + 1 == Found.size()
                     ? std::move(Module)
                     : mlir::OwningOpRef<mlir::ModuleOp>(
                           cast<mlir::ModuleOp>(Module->clone()));
    }
  }
  return std::move(Lib);
}

std::vector<std::string> OperatorLibrary::operators() const {
  std::vector<std::string> Names;
  for (const auto &D : Defs)
    Names.push_back(D.getKey().str());
  llvm::sort(Names);
  return Names;
}

mlir::func::FuncOp OperatorLibrary::definition(StringRef Op) const {
  auto It = Defs.find(Op);
  if (It == Defs.end())
    return nullptr;
  return It->second.Module.get().lookupSymbol<mlir::func::FuncOp>(
      It->second.FuncName);
}

StringRef OperatorLibrary::file(StringRef Op) const {
  auto It = Defs.find(Op);
  return It == Defs.end() ? StringRef() : StringRef(It->second.File);
}

StringRef OperatorLibrary::headerComment(StringRef Op) const {
  auto It = Defs.find(Op);
  return It == Defs.end() ? StringRef() : StringRef(It->second.Header);
}

std::vector<std::string> OperatorLibrary::shapeParameters(StringRef Op) const {
  std::vector<std::string> Params;
  mlir::func::FuncOp Func = definition(Op);
  if (!Func)
    return Params;
  auto Add = [&](StringRef Name) {
    if (!llvm::is_contained(Params, Name))
      Params.push_back(Name.str());
  };
  auto AddDims = [&](mlir::DictionaryAttr Attrs) {
    auto Dims = Attrs ? Attrs.getAs<mlir::ArrayAttr>("atrex.dims") : nullptr;
    if (!Dims)
      return;
    for (mlir::Attribute D : Dims) {
      auto Expr = dyn_cast<mlir::StringAttr>(D);
      if (!Expr)
        continue;
      SmallVector<std::string> Symbols;
      if (Error E = collectDimSymbols(Expr.getValue(), Symbols)) {
        consumeError(std::move(E));
        continue;
      }
      for (const std::string &S : Symbols)
        Add(S);
    }
  };
  for (unsigned I = 0, E = Func.getNumArguments(); I < E; ++I)
    AddDims(Func.getArgAttrDict(I));
  for (unsigned I = 0, E = Func.getNumResults(); I < E; ++I)
    AddDims(Func.getResultAttrDict(I));
  Func.walk([&](mlir::Operation *Op) {
    if (auto Sym = Op->getAttrOfType<mlir::StringAttr>("atrex.symbol"))
      Add(Sym.getValue());
  });
  return Params;
}

std::string locatedErrorToString(Error Err) {
  std::string Out;
  handleAllErrors(
      std::move(Err),
      [&](const LocatedError &L) {
        std::string Where;
        if (auto FL = dyn_cast<mlir::FileLineColLoc>(L.getLocation()))
          Where = (FL.getFilename().str() + ":" + Twine(FL.getLine()) + ":" +
                   Twine(FL.getColumn()) + ": ")
                      .str();
        Out += (Out.empty() ? "" : "; ") + Where + L.getMessage();
      },
      [&](const ErrorInfoBase &E) {
        Out += (Out.empty() ? "" : "; ") + E.message();
      });
  return Out;
}

Expected<SemanticWork>
OperatorLibrary::count(StringRef Op, const StringMap<int64_t> &Dims,
                       const Facts &TheFacts,
                       const StringMap<std::string> &Dtypes) const {
  auto It = Defs.find(Op);
  if (It == Defs.end())
    return createStringError("no definition of operator '" + Op + "'");
  mlir::OwningOpRef<mlir::ModuleOp> Copy =
      cast<mlir::ModuleOp>(It->second.Module.get().clone());
  auto Func = Copy->lookupSymbol<mlir::func::FuncOp>(It->second.FuncName);
  // instantiateShape may also report through MLIR diagnostics (failed
  // canonicalization); collect them into the error.
  std::string Diags;
  mlir::ScopedDiagnosticHandler Handler(
      Context.get(), [&](mlir::Diagnostic &D) {
        Diags += (Diags.empty() ? "" : "; ") + D.str();
        return mlir::success();
      });
  if (Error E = instantiateShape(Func, Dims, Dtypes))
    return createStringError(locatedErrorToString(std::move(E)));
  if (!Diags.empty())
    return createStringError(It->second.File + ": " + Diags);
  auto Work = countSemanticWork(Func, TheFacts);
  if (!Work)
    return createStringError(locatedErrorToString(Work.takeError()));
  return Work;
}

} // namespace atrex

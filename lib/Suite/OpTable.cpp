//===- OpTable.cpp - the runtime's operator table from MLIR definitions ---===//
//
// Part of atrex. See include/atrex/Suite/OpTable.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/OpTable.h"

#include "atrex/Passes/SemanticWork.h"
#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Suite/Expr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace atrex {

namespace {

constexpr StringLiteral kTool = "atrex-optable: ";

using Kind = EntryArgument::Kind;

/// The C++ spelling of a tensor-directory dtype (runtime's DType).
StringRef dtypeEnumerator(StringRef Dtype) {
  return StringSwitch<StringRef>(Dtype)
      .Case("f64", "F64")
      .Case("f32", "F32")
      .Case("f16", "F16")
      .Case("bf16", "BF16")
      .Case("f8e4m3", "F8E4M3")
      .Case("f8e5m2", "F8E5M2")
      .Case("i64", "I64")
      .Case("i32", "I32")
      .Case("i16", "I16")
      .Case("i8", "I8")
      .Case("u8", "U8")
      .Case("bool", "Bool")
      .Default("");
}

/// Expression text as C++ over the members of the operator's shape struct.
std::string toCpp(StringRef Expr) {
  std::string Out;
  while (!Expr.empty()) {
    char C = Expr.front();
    if (isAlpha(C) || C == '_') {
      size_t N =
          Expr.find_if_not([](char Ch) { return isAlnum(Ch) || Ch == '_'; });
      Out += "x.s_" + Expr.take_front(N).str();
      Expr = Expr.drop_front(std::min(N, Expr.size()));
      continue;
    }
    Out += C;
    Expr = Expr.drop_front();
  }
  return "(" + Out + ")";
}

std::string quote(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out += C;
  }
  return Out + "\"";
}

StringRef kindName(Kind K) {
  switch (K) {
  case Kind::Tensor:
    return "Tensor";
  case Kind::OutTensor:
    return "OutTensor";
  case Kind::InOutTensor:
    return "InOutTensor";
  case Kind::Double:
    return "Double";
  case Kind::Int:
    return "Int";
  case Kind::Bool:
    return "Bool";
  }
  llvm_unreachable("unknown argument kind");
}

} // namespace

Expected<const std::pair<std::string, std::string> *>
firstViolatedConstraint(const OperatorEntry &E, suite::Vars &Vars) {
  for (const auto &[Sym, Expr] : E.Derived) {
    if (Vars.count(Sym))
      return createStringError("derived symbol '" + Sym +
                               "' is already defined");
    auto V = suite::evaluate(Expr, Vars);
    if (!V)
      return createStringError("derived symbol '" + Sym +
                               "': " + toString(V.takeError()));
    Vars[Sym] = *V;
  }
  for (const auto &C : E.Constraints) {
    auto V = suite::evaluate(C.first, Vars);
    if (!V)
      return createStringError("constraint: " + toString(V.takeError()));
    if (!*V)
      return &C;
  }
  return nullptr;
}

Expected<std::vector<OperatorEntry>>
readOperatorEntries(const OperatorLibrary &Lib) {
  std::vector<OperatorEntry> Entries;
  for (const std::string &Op : Lib.operators()) {
    mlir::func::FuncOp Func = Lib.definition(Op);
    auto E = readOperatorEntry(Func);
    if (!E)
      return makeLocatedError(Func.getLoc(), kTool + toString(E.takeError()));
    E->File = Lib.file(Op).str();
    auto Fail = [&](const Twine &Message) {
      return makeLocatedError(Func.getLoc(),
                              kTool + "operator '" + Op + "': " + Message);
    };
    // The example binds exactly the keys; derived symbols follow from them.
    suite::Vars Vars;
    for (const auto &[K, V] : E->Example) {
      if (!llvm::is_contained(E->Keys, K))
        return Fail("example binds '" + K + "', which is not a shape key");
      Vars[K] = V;
    }
    for (const std::string &K : E->Keys)
      if (!Vars.count(K))
        return Fail("example does not bind shape key '" + K + "'");
    auto Violated = firstViolatedConstraint(*E, Vars);
    if (!Violated)
      return Fail(toString(Violated.takeError()));
    if (*Violated)
      return Fail("the example shape violates '" + (*Violated)->first + "' (" +
                  (*Violated)->second + ")");
    for (const std::string &Sym : Lib.shapeParameters(Op))
      if (!Vars.count(Sym))
        return Fail("definition symbol '" + Sym +
                    "' is neither a shape key nor derived from them");
    StringMap<int64_t> Dims;
    for (const auto &[K, V] : Vars)
      Dims[K] = V;
    for (const EntryArgument &A : E->Arguments)
      for (const std::string &D : A.Dims) {
        auto V = evaluateDimExpr(D, Dims);
        if (!V)
          return Fail("'" + A.Name + "': " + toString(V.takeError()) +
                      " at the example shape");
        if (*V < 0)
          return Fail("'" + A.Name + "': dimension '" + D +
                      "' is negative at the example shape");
      }
    Entries.push_back(std::move(*E));
  }
  return Entries;
}

void writeOpTable(ArrayRef<OperatorEntry> Entries, StringRef Source,
                  raw_ostream &OS) {
  OS << "// Generated by atrex-optable from the operator definitions in "
     << Source << ": do not edit.\n"
     << "// Regenerate: cmake --build <build> --target update-optable\n"
     << "// (test/suite/optable.test fails when this file is stale).\n"
     << "//\n"
     << "// Included by runtime/lib/support/OpSpecs.cpp, which declares "
        "OpSpec, ArgSpec,\n"
     << "// ArgKind, DType, ShapeMap and Dims.\n\n";
  for (const OperatorEntry &E : Entries) {
    OS << "// " << E.Name << "\n"
       << "struct Shape_" << E.Name << " {\n";
    for (const std::string &K : E.Keys)
      OS << "  int64_t s_" << K << ";\n";
    for (const auto &D : E.Derived)
      OS << "  int64_t s_" << D.first << ";\n";
    OS << "  explicit Shape_" << E.Name << "(const ShapeMap &m)\n      : ";
    ListSeparator Sep(", ");
    for (const std::string &K : E.Keys)
      OS << Sep << "s_" << K << "(m.at(" << quote(K) << "))";
    OS << " {\n";
    if (!E.Derived.empty())
      OS << "    Shape_" << E.Name << " &x = *this;\n";
    for (const auto &D : E.Derived)
      OS << "    s_" << D.first << " = " << toCpp(D.second) << ";\n";
    OS << "  }\n};\n\n";
  }
  OS << "std::vector<OpSpec> generatedOpSpecs() {\n"
     << "  std::vector<OpSpec> v;\n";
  for (const OperatorEntry &E : Entries) {
    std::string Shape = "Shape_" + E.Name;
    OS << "  {\n"
       << "    OpSpec op;\n"
       << "    op.name = " << quote(E.Name) << ";\n"
       << "    op.summary = " << quote(E.Summary) << ";\n"
       << "    op.shapeKeys = {";
    ListSeparator KeySep(", ");
    for (const std::string &K : E.Keys)
      OS << KeySep << quote(K);
    OS << "};\n"
       << "    op.keyDoc = " << quote(E.KeyDoc) << ";\n"
       << "    op.exampleShape = {";
    ListSeparator ExSep(", ");
    for (const auto &[K, V] : E.Example)
      OS << ExSep << "{" << quote(K) << ", " << V << "}";
    OS << "};\n";
    for (const EntryArgument &A : E.Arguments) {
      OS << "    op.args.push_back(ArgSpec{" << quote(A.Name)
         << ", ArgKind::" << kindName(A.ArgKind) << ", DType::";
      switch (A.ArgKind) {
      case Kind::Double:
        OS << "F64";
        break;
      case Kind::Int:
        OS << "I64";
        break;
      case Kind::Bool:
        OS << "Bool";
        break;
      default:
        OS << dtypeEnumerator(A.Dtype);
      }
      OS << ",\n                                 ";
      if (A.Dims.empty()) {
        OS << "[](const ShapeMap &) { return Dims{}; }, {}});\n";
        continue;
      }
      OS << "[](const ShapeMap &m) {\n"
         << "                                   const " << Shape << " x(m);\n"
         << "                                   return Dims{";
      ListSeparator DimSep(", ");
      for (const std::string &D : A.Dims)
        OS << DimSep << toCpp(D);
      OS << "};\n"
         << "                                 }, {}});\n";
    }
    if (!E.Constraints.empty()) {
      OS << "    op.check = [](const ShapeMap &m) -> std::string {\n"
         << "      const " << Shape << " x(m);\n";
      for (const auto &[Expr, Message] : E.Constraints)
        OS << "      if (!" << toCpp(Expr) << ")\n"
           << "        return " << quote(Message) << ";\n";
      OS << "      return std::string();\n"
         << "    };\n";
    }
    if (!E.NonNegative.empty()) {
      OS << "    op.nonNegativeKeys = {";
      ListSeparator NSep(", ");
      for (const std::string &K : E.NonNegative)
        OS << NSep << quote(K);
      OS << "};\n";
    }
    OS << "    v.push_back(std::move(op));\n"
       << "  }\n";
  }
  OS << "  return v;\n"
     << "}\n";
}

} // namespace atrex

//===- OperatorEntry.cpp - the entry point an operator definition declares ===//
//
// Part of atrex. See include/atrex/Passes/OperatorEntry.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/OperatorEntry.h"

#include "atrex/Passes/SemanticWork.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace atrex {

namespace {

using Kind = EntryArgument::Kind;

struct Port {
  std::string Name;
  mlir::Type Type;
  std::vector<std::string> Dims;
  bool Used = false;
};

bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

/// Dtypes of the tensor-directory format (docs/formats/tensor-dir.md).
bool isTensorDirDtype(StringRef Dtype) {
  static const StringSet<> Known = {"f64",    "f32",    "f16", "bf16",
                                    "f8e4m3", "f8e5m2", "i64", "i32",
                                    "i16",    "i8",     "u8",  "bool"};
  return Known.contains(Dtype);
}

std::optional<Kind> scalarKind(StringRef CppType) {
  return StringSwitch<std::optional<Kind>>(CppType)
      .Case("double", Kind::Double)
      .Case("int64_t", Kind::Int)
      .Case("bool", Kind::Bool)
      .Default(std::nullopt);
}

/// The C++ type of a scalar argument of the definition.
std::optional<Kind> defaultScalarKind(mlir::Type T) {
  if (isa<mlir::FloatType>(T))
    return Kind::Double;
  if (T.isInteger(1))
    return Kind::Bool;
  if (isa<mlir::IntegerType>(T) || T.isIndex())
    return Kind::Int;
  return std::nullopt;
}

std::vector<Port> portsOf(mlir::func::FuncOp Func, bool Results) {
  std::vector<Port> Ports;
  unsigned N = Results ? Func.getNumResults() : Func.getNumArguments();
  for (unsigned I = 0; I < N; ++I) {
    mlir::DictionaryAttr Attrs =
        Results ? Func.getResultAttrDict(I) : Func.getArgAttrDict(I);
    Port P;
    P.Type = Results ? Func.getResultTypes()[I] : Func.getArgument(I).getType();
    auto Name = Attrs ? Attrs.getAs<mlir::StringAttr>("atrex.name") : nullptr;
    P.Name = Name ? Name.str() : "";
    if (auto Dims =
            Attrs ? Attrs.getAs<mlir::ArrayAttr>("atrex.dims") : nullptr)
      for (mlir::Attribute D : Dims) {
        if (auto S = dyn_cast<mlir::StringAttr>(D))
          P.Dims.push_back(S.str());
        else if (auto Int = dyn_cast<mlir::IntegerAttr>(D))
          P.Dims.push_back(std::to_string(Int.getInt()));
      }
    Ports.push_back(std::move(P));
  }
  return Ports;
}

Expected<std::vector<std::string>> stringList(mlir::Attribute A,
                                              const Twine &What) {
  auto Arr = dyn_cast_or_null<mlir::ArrayAttr>(A);
  if (!Arr)
    return createStringError(What + " must be an array of strings");
  std::vector<std::string> Out;
  for (mlir::Attribute E : Arr) {
    auto S = dyn_cast<mlir::StringAttr>(E);
    if (!S)
      return createStringError(What + " must be an array of strings");
    Out.push_back(S.str());
  }
  return Out;
}

Expected<std::string> string(mlir::DictionaryAttr D, StringRef Key) {
  auto S = D.getAs<mlir::StringAttr>(Key);
  if (!S)
    return createStringError("atrex.entry needs a string '" + Key + "'");
  return S.str();
}

/// Reads the fields of `atrex.entry`; arguments are resolved by the caller.
Error readEntryFields(mlir::DictionaryAttr Entry, OperatorEntry &E,
                      std::vector<std::string> &Args) {
  static const StringSet<> Known = {"summary",     "keys",       "key_doc",
                                    "example",     "args",       "derived",
                                    "constraints", "nonnegative"};
  for (mlir::NamedAttribute A : Entry)
    if (!Known.contains(A.getName().getValue()))
      return createStringError("unknown atrex.entry key '" +
                               A.getName().getValue() +
                               "' (known: summary, keys, key_doc, example, "
                               "args, derived, constraints, nonnegative)");
  auto Summary = string(Entry, "summary");
  if (!Summary)
    return Summary.takeError();
  E.Summary = std::move(*Summary);
  auto KeyDoc = string(Entry, "key_doc");
  if (!KeyDoc)
    return KeyDoc.takeError();
  E.KeyDoc = std::move(*KeyDoc);
  auto Keys = stringList(Entry.get("keys"), "atrex.entry 'keys'");
  if (!Keys)
    return Keys.takeError();
  E.Keys = std::move(*Keys);
  for (const std::string &K : E.Keys) {
    if (!isIdentifier(K))
      return createStringError("shape key '" + K + "' is not a name");
    if (llvm::count(E.Keys, K) > 1)
      return createStringError("shape key '" + K + "' is listed twice");
  }
  auto Example = Entry.getAs<mlir::DictionaryAttr>("example");
  if (!Example)
    return createStringError(
        "atrex.entry needs an 'example' shape ({KEY = VALUE, ...})");
  for (mlir::NamedAttribute A : Example) {
    auto V = dyn_cast<mlir::IntegerAttr>(A.getValue());
    if (!V)
      return createStringError("example value of '" + A.getName().getValue() +
                               "' must be an integer");
    E.Example.emplace_back(A.getName().str(), V.getInt());
  }
  auto ArgList = stringList(Entry.get("args"), "atrex.entry 'args'");
  if (!ArgList)
    return ArgList.takeError();
  Args = std::move(*ArgList);
  if (mlir::Attribute D = Entry.get("derived")) {
    auto Derived = stringList(D, "atrex.entry 'derived'");
    if (!Derived)
      return Derived.takeError();
    for (StringRef Def : *Derived) {
      auto [Name, Expr] = Def.split('=');
      Name = Name.trim();
      Expr = Expr.trim();
      if (!isIdentifier(Name) || Expr.empty())
        return createStringError("derived symbol '" + Def +
                                 "' is not NAME = EXPRESSION");
      E.Derived.emplace_back(Name.str(), Expr.str());
    }
  }
  if (mlir::Attribute C = Entry.get("constraints")) {
    auto Arr = dyn_cast<mlir::ArrayAttr>(C);
    if (!Arr)
      return createStringError("atrex.entry 'constraints' must be an array of "
                               "[expression, message] pairs");
    for (mlir::Attribute Pair : Arr) {
      auto Strings = stringList(Pair, "a constraint");
      if (!Strings || Strings->size() != 2) {
        if (!Strings)
          consumeError(Strings.takeError());
        return createStringError("each constraint must be a pair "
                                 "[\"expression\", \"message\"]");
      }
      E.Constraints.emplace_back((*Strings)[0], (*Strings)[1]);
    }
  }
  if (mlir::Attribute N = Entry.get("nonnegative")) {
    auto NonNeg = stringList(N, "atrex.entry 'nonnegative'");
    if (!NonNeg)
      return NonNeg.takeError();
    E.NonNegative = std::move(*NonNeg);
    for (const std::string &K : E.NonNegative)
      if (!llvm::is_contained(E.Keys, K))
        return createStringError("nonnegative key '" + K +
                                 "' is not a shape key");
  }
  return Error::success();
}

/// Resolves the entry's argument list against the definition.
Error resolveArguments(mlir::func::FuncOp Func, ArrayRef<std::string> Args,
                       OperatorEntry &E) {
  std::vector<Port> Inputs = portsOf(Func, false);
  std::vector<Port> Results = portsOf(Func, true);
  for (const Port &P : Inputs)
    if (P.Name.empty())
      return createStringError("every argument needs an atrex.name");
  for (const Port &P : Results)
    if (P.Name.empty())
      return createStringError("every result needs an atrex.name");
  StringSet<> Fixed;
  if (auto F = Func->getAttrOfType<mlir::DictionaryAttr>("atrex.fixed_inputs"))
    for (mlir::NamedAttribute A : F)
      Fixed.insert(A.getName().getValue());
  auto find = [](std::vector<Port> &Ports, StringRef Name) -> Port * {
    for (Port &P : Ports)
      if (P.Name == Name)
        return &P;
    return nullptr;
  };
  auto tensorArg = [&](const Port &P, Kind K) -> Expected<EntryArgument> {
    auto Shaped = cast<mlir::ShapedType>(P.Type);
    std::string Dtype = dtypeName(Shaped.getElementType());
    if (!isTensorDirDtype(Dtype))
      return createStringError("'" + P.Name + "' has element type " + Dtype +
                               ", which has no tensor-directory dtype");
    if (static_cast<int64_t>(P.Dims.size()) != Shaped.getRank())
      return createStringError("'" + P.Name +
                               "' needs one atrex.dims entry per dimension");
    return EntryArgument{P.Name, K, Dtype, P.Dims};
  };
  StringSet<> Seen;
  for (StringRef Spec : Args) {
    auto [NameRef, TypeRef] = Spec.split(':');
    StringRef Name = NameRef.trim(), CppType = TypeRef.trim();
    if (!Seen.insert(Name).second)
      return createStringError("entry argument '" + Name + "' is listed twice");
    std::optional<Kind> Typed;
    if (!CppType.empty()) {
      Typed = scalarKind(CppType);
      if (!Typed)
        return createStringError("entry argument '" + Spec +
                                 "': the type must be double, int64_t or bool");
    }
    if (Port *R = find(Results, Name)) {
      if (Typed || !isa<mlir::ShapedType>(R->Type))
        return createStringError("result '" + Name +
                                 "' must be a tensor without a type");
      R->Used = true;
      auto A = tensorArg(*R, Kind::OutTensor);
      if (!A)
        return A.takeError();
      E.Arguments.push_back(std::move(*A));
      continue;
    }
    if (Port *I = find(Inputs, Name)) {
      I->Used = true;
      if (isa<mlir::ShapedType>(I->Type)) {
        if (Typed)
          return createStringError("tensor argument '" + Name +
                                   "' takes no type");
        Port *Out = find(Results, (Name + "_out").str());
        if (Out) {
          if (Out->Type != I->Type || Out->Dims != I->Dims)
            return createStringError("in-place result '" + Out->Name +
                                     "' must have the type and dimensions "
                                     "of '" +
                                     Name + "'");
          Out->Used = true;
        }
        auto A = tensorArg(*I, Out ? Kind::InOutTensor : Kind::Tensor);
        if (!A)
          return A.takeError();
        E.Arguments.push_back(std::move(*A));
        continue;
      }
      std::optional<Kind> K = Typed ? Typed : defaultScalarKind(I->Type);
      if (!K)
        return createStringError("scalar argument '" + Name +
                                 "' has an unsupported type");
      E.Arguments.push_back(EntryArgument{Name.str(), *K, "", {}});
      continue;
    }
    if (Fixed.contains(Name)) {
      if (!Typed)
        return createStringError("fixed input '" + Name +
                                 "' needs its C++ type ('" + Name +
                                 ": int64_t', 'double' or 'bool')");
      Fixed.erase(Name);
      E.Arguments.push_back(EntryArgument{Name.str(), *Typed, "", {}});
      continue;
    }
    return createStringError("entry argument '" + Name +
                             "' is neither an argument, a result nor a fixed "
                             "input of the definition");
  }
  for (const Port &P : Inputs)
    if (!P.Used)
      return createStringError("argument '" + P.Name +
                               "' is missing from the entry's args");
  for (const Port &P : Results)
    if (!P.Used)
      return createStringError("result '" + P.Name +
                               "' is missing from the entry's args (list it, "
                               "or name it '<input>_out' for an in-place "
                               "input)");
  if (!Fixed.empty())
    return createStringError("fixed input '" + Fixed.begin()->getKey() +
                             "' is missing from the entry's args");
  return Error::success();
}

} // namespace

Expected<OperatorEntry> readOperatorEntry(mlir::func::FuncOp Func) {
  auto Op = Func->getAttrOfType<mlir::StringAttr>("atrex.operator");
  std::string Name = Op ? Op.str() : Func.getSymName().str();
  auto Fail = [&](Error Err) -> Error {
    return createStringError("operator '" + Name +
                             "': " + toString(std::move(Err)));
  };
  OperatorEntry E;
  E.Name = Name;
  auto Entry = Func->getAttrOfType<mlir::DictionaryAttr>("atrex.entry");
  if (!Entry)
    return Fail(createStringError(
        "no atrex.entry attribute (the entry point submissions implement)"));
  std::vector<std::string> Args;
  if (Error Err = readEntryFields(Entry, E, Args))
    return Fail(std::move(Err));
  if (Error Err = resolveArguments(Func, Args, E))
    return Fail(std::move(Err));
  return E;
}

} // namespace atrex

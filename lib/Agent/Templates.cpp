//===- Templates.cpp - parameterised kernel templates ---------------------===//
//
// Part of atrex. See include/atrex/Agent/Templates.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Templates.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Profile.h"
#include "atrex/Suite/Expr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>

using namespace llvm;

namespace atrex::agent {

const TemplateParam *KernelTemplate::param(StringRef Name) const {
  for (const TemplateParam &P : Params)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

Expected<bool> KernelTemplate::admissible(const Config &C) const {
  suite::Vars V;
  for (const TemplateParam &P : Params) {
    auto It = C.find(P.Name);
    if (It == C.end() || std::find(P.Values.begin(), P.Values.end(),
                                   It->second) == P.Values.end())
      return false;
    V[P.Name] = It->second;
  }
  for (const std::string &R : Requires) {
    auto X = suite::evaluate(R, V);
    if (!X)
      return createStringError(Path + ": atrex-require '" + R +
                               "': " + toString(X.takeError()));
    if (*X == 0)
      return false;
  }
  return true;
}

std::vector<std::string> KernelTemplate::moveOrder(StringRef Regime) const {
  std::vector<std::string> Out;
  auto It = Focus.find(Regime.str());
  if (It != Focus.end())
    Out = It->second;
  for (const TemplateParam &P : Params)
    if (std::find(Out.begin(), Out.end(), P.Name) == Out.end())
      Out.push_back(P.Name);
  return Out;
}

Expected<std::vector<Config>> KernelTemplate::space() const {
  std::vector<Config> Out;
  Config C;
  std::function<Error(size_t)> Rec = [&](size_t I) -> Error {
    if (I == Params.size()) {
      auto Ok = admissible(C);
      if (!Ok)
        return Ok.takeError();
      if (*Ok)
        Out.push_back(C);
      return Error::success();
    }
    for (int64_t V : Params[I].Values) {
      C[Params[I].Name] = V;
      if (Error E = Rec(I + 1))
        return E;
    }
    return Error::success();
  };
  if (Error E = Rec(0))
    return std::move(E);
  return Out;
}

static bool isName(StringRef S) {
  return !S.empty() && (isAlpha(S.front()) || S.front() == '_') &&
         llvm::all_of(S, [](char Ch) { return isAlnum(Ch) || Ch == '_'; });
}

static Expected<Config> parseAssignments(StringRef Text, StringRef Where) {
  Config C;
  SmallVector<StringRef, 8> Parts;
  Text.split(Parts, ' ', -1, false);
  for (StringRef P : Parts) {
    auto [K, V] = P.split('=');
    int64_t N;
    if (!isName(K) || V.getAsInteger(10, N))
      return createStringError(Where + ": '" + P + "' is not NAME=INTEGER");
    C[K.str()] = N;
  }
  return C;
}

Expected<KernelTemplate> parseTemplate(StringRef Path, StringRef Text,
                                       StringRef Operator) {
  KernelTemplate T;
  T.Operator = Operator.str();
  T.Path = Path.str();
  T.Body = Text.str();
  unsigned LineNo = 0;
  bool HaveDefault = false;
  for (StringRef Line : split(Text, '\n')) {
    ++LineNo;
    Line = Line.trim();
    if (!Line.consume_front("// atrex-"))
      continue;
    std::string Where = (Path + ":" + Twine(LineNo)).str();
    auto [Key, Rest] = Line.split(':');
    Rest = Rest.trim();
    if (Key == "template") {
      if (!isName(Rest))
        return createStringError(Where + ": the family '" + Rest +
                                 "' is not a name");
      T.Family = Rest.str();
    } else if (Key == "summary") {
      T.Summary = Rest.str();
    } else if (Key == "order") {
      if (Rest.getAsInteger(10, T.Order))
        return createStringError(Where + ": atrex-order is not an integer");
    } else if (Key == "param") {
      SmallVector<StringRef, 8> Parts;
      Rest.split(Parts, ' ', -1, false);
      if (Parts.size() < 2 || !isName(Parts[0]))
        return createStringError(Where +
                                 ": atrex-param needs NAME VALUE [VALUE...]");
      TemplateParam P;
      P.Name = Parts[0].str();
      if (T.param(P.Name))
        return createStringError(Where + ": param '" + P.Name +
                                 "' declared twice");
      for (StringRef V : ArrayRef(Parts).drop_front()) {
        int64_t N;
        if (V.getAsInteger(10, N))
          return createStringError(Where + ": value '" + V + "' of '" + P.Name +
                                   "' is not an integer");
        P.Values.push_back(N);
      }
      T.Params.push_back(std::move(P));
    } else if (Key == "default") {
      auto C = parseAssignments(Rest, Where);
      if (!C)
        return C.takeError();
      T.Defaults = std::move(*C);
      HaveDefault = true;
    } else if (Key == "require") {
      if (Rest.empty())
        return createStringError(Where + ": empty atrex-require");
      T.Requires.push_back(Rest.str());
    } else if (Key == "focus") {
      SmallVector<StringRef, 8> Parts;
      Rest.split(Parts, ' ', -1, false);
      if (Parts.size() < 2)
        return createStringError(Where +
                                 ": atrex-focus needs REGIME NAME [NAME...]");
      std::vector<std::string> Names;
      for (StringRef N : ArrayRef(Parts).drop_front())
        Names.push_back(N.str());
      T.Focus[Parts[0].str()] = std::move(Names);
    } else if (Key == "direction") {
      SmallVector<StringRef, 8> Parts;
      Rest.split(Parts, ' ', -1, false);
      if (Parts.empty())
        return createStringError(
            Where + ": atrex-direction needs NAME [PARAM+|PARAM-...]");
      if (!direction::isKnown(Parts[0]))
        return createStringError(Where + ": unknown direction '" + Parts[0] +
                                 "' (known: " + join(direction::all(), ", ") +
                                 ")");
      if (T.Directions.count(Parts[0].str()))
        return createStringError(Where + ": direction '" + Parts[0] +
                                 "' declared twice");
      auto &Moves = T.Directions[Parts[0].str()];
      for (StringRef M : ArrayRef(Parts).drop_front()) {
        int Sign = M.consume_back("+") ? 1 : M.consume_back("-") ? -1 : 0;
        if (!Sign)
          return createStringError(Where + ": '" + M +
                                   "' needs a sign: PARAM+ or PARAM-");
        Moves.push_back({M.str(), Sign});
      }
    } else if (Key == "search") {
      return createStringError(Where + ": a template has no atrex-search line "
                                       "(that marks an instance)");
    } else {
      return createStringError(Where + ": unknown header 'atrex-" + Key + "'");
    }
  }
  if (T.Family.empty())
    return createStringError(Path + ": no '// atrex-template: FAMILY' line");
  if (T.Params.empty())
    return createStringError(Path + ": no '// atrex-param:' line");
  if (!HaveDefault)
    return createStringError(Path + ": no '// atrex-default:' line");
  for (const auto &[Regime, Names] : T.Focus)
    for (const std::string &N : Names)
      if (!T.param(N))
        return createStringError(Path + ": atrex-focus " + Regime + " names '" +
                                 N + "', not a param");
  for (const auto &[Dir, Moves] : T.Directions)
    for (const auto &[N, Sign] : Moves)
      if (!T.param(N))
        return createStringError(Path + ": atrex-direction " + Dir +
                                 " names '" + N + "', not a param");
  for (const auto &[K, V] : T.Defaults)
    if (!T.param(K))
      return createStringError(Path + ": atrex-default sets '" + K +
                               "', not a param");
  auto Ok = T.admissible(T.Defaults);
  if (!Ok)
    return Ok.takeError();
  if (!*Ok)
    return createStringError(Path + ": atrex-default '" +
                             configText(T, T.Defaults) +
                             "' is not admissible (a value outside its "
                             "param's list, or an atrex-require fails)");
  return T;
}

Expected<std::vector<KernelTemplate>> loadTemplates(StringRef Root,
                                                    StringRef Operator) {
  std::vector<KernelTemplate> Out;
  SmallString<256> Dir(Root);
  sys::path::append(Dir, Operator);
  if (!sys::fs::is_directory(Dir))
    return Out;
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::path::extension(It->path()) == ".cu")
      Files.push_back(It->path());
  if (EC)
    return createStringError(EC, "cannot list '" + Dir + "': " + EC.message());
  std::sort(Files.begin(), Files.end());
  for (const std::string &F : Files) {
    auto Text = readFile(F);
    if (!Text)
      return Text.takeError();
    auto T = parseTemplate(F, *Text, Operator);
    if (!T)
      return T.takeError();
    for (const KernelTemplate &O : Out)
      if (O.Family == T->Family)
        return createStringError(F + ": family '" + T->Family + "' is also " +
                                 O.Path);
    Out.push_back(std::move(*T));
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const KernelTemplate &A, const KernelTemplate &B) {
                     return A.Order < B.Order;
                   });
  return Out;
}

std::string configText(const KernelTemplate &T, const Config &C) {
  std::string Out;
  for (const TemplateParam &P : T.Params) {
    auto It = C.find(P.Name);
    if (It == C.end())
      continue;
    if (!Out.empty())
      Out += ' ';
    Out += P.Name + "=" + std::to_string(It->second);
  }
  return Out;
}

std::string instantiate(const KernelTemplate &T, const Config &C) {
  std::string Out = "// atrex-search: " + T.Operator + "/" + T.Family + " " +
                    configText(T, C) + "\n";
  for (const TemplateParam &P : T.Params)
    Out += "#define " + P.Name + " " + std::to_string(C.at(P.Name)) + "\n";
  return Out + T.Body;
}

std::optional<InstanceInfo> parseInstance(StringRef Source) {
  StringRef First = Source.split('\n').first.trim();
  if (!First.consume_front("// atrex-search:"))
    return std::nullopt;
  First = First.trim();
  auto [Where, Rest] = First.split(' ');
  auto [Op, Family] = Where.split('/');
  if (Op.empty() || Family.empty())
    return std::nullopt;
  InstanceInfo I;
  I.Operator = Op.str();
  I.Family = Family.str();
  auto C = parseAssignments(Rest, "instance");
  if (!C) {
    consumeError(C.takeError());
    return std::nullopt;
  }
  I.Params = std::move(*C);
  return I;
}

} // namespace atrex::agent

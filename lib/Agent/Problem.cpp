//===- Problem.cpp - the problem an agent run optimises -------------------===//
//
// Part of atrex. See include/atrex/Agent/Problem.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Problem.h"

#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Roofline/Roofline.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace atrex::agent {

std::string shapeText(const std::map<std::string, int64_t> &Shape) {
  return suite::shapeString(Shape);
}

static Expected<std::map<std::string, int64_t>> parseShape(StringRef Text) {
  std::map<std::string, int64_t> Shape;
  SmallVector<StringRef> Parts;
  Text.split(Parts, ',', -1, false);
  for (StringRef Part : Parts) {
    auto [Key, Value] = Part.split('=');
    int64_t N = 0;
    if (Key.trim().empty() || Value.trim().getAsInteger(10, N))
      return createStringError("shape '" + Text +
                               "': expected K=V,... with integer values");
    Shape[Key.trim().str()] = N;
  }
  if (Shape.empty())
    return createStringError("empty shape");
  return Shape;
}

Expected<std::vector<std::string>>
trackProblems(StringRef SuitePath, ArrayRef<std::string> Operators,
              unsigned PerOp, bool VisibleOnly) {
  auto S = suite::readSuite(SuitePath);
  if (!S)
    return S.takeError();
  std::vector<std::string> Ops(Operators.begin(), Operators.end());
  if (Ops.empty())
    for (const suite::OperatorConfig &O : S->Operators)
      Ops.push_back(O.Name);
  std::vector<std::string> Ids;
  for (const std::string &Op : Ops) {
    std::vector<const suite::Problem *> Of;
    bool Known = false;
    for (const suite::Problem &P : S->Problems) {
      Known |= P.Operator == Op;
      if (P.Operator == Op && (!VisibleOnly || P.Visibility == "public"))
        Of.push_back(&P);
    }
    if (!Known)
      return createStringError(SuitePath + ": no operator '" + Op + "'");
    llvm::stable_sort(Of, [](const suite::Problem *A, const suite::Problem *B) {
      return A->Weight != B->Weight ? A->Weight > B->Weight : A->Id < B->Id;
    });
    for (size_t I = 0; I < Of.size() && I < std::max(1u, PerOp); ++I)
      Ids.push_back(Of[I]->Id);
  }
  return Ids;
}

Expected<Problem> loadProblem(const ProblemQuery &Q) {
  auto S = suite::readSuite(Q.SuitePath);
  if (!S)
    return S.takeError();
  const suite::Problem *P = nullptr;
  suite::Problem Custom; // a shape that is no problem of the suite
  if (!Q.Id.empty()) {
    P = S->findProblem(Q.Id);
    if (!P)
      return createStringError(Q.SuitePath + ": no problem '" + Q.Id + "'");
    if (!Q.Operator.empty() && P->Operator != Q.Operator)
      return createStringError(Q.SuitePath + ": problem '" + Q.Id +
                               "' is of operator '" + P->Operator + "', not '" +
                               Q.Operator + "'");
  } else {
    if (Q.Operator.empty() || Q.Shape.empty())
      return createStringError("give a problem id, or an operator and its "
                               "entry shape");
    auto Want = parseShape(Q.Shape);
    if (!Want)
      return Want.takeError();
    std::vector<const suite::Problem *> Matches;
    bool OpKnown = false;
    for (const suite::Problem &C : S->Problems) {
      OpKnown |= C.Operator == Q.Operator;
      if (C.Operator == Q.Operator && C.EntryShape == *Want)
        Matches.push_back(&C);
    }
    if (!OpKnown)
      return createStringError(Q.SuitePath + ": no operator '" + Q.Operator +
                               "'");
    if (Matches.empty()) {
      // A shape outside the suite: a custom problem, where the entry shape
      // is the definition shape (every entry key its own parameter).
      const suite::OperatorConfig *Op = S->findOperator(Q.Operator);
      bool Identity = Op && !Op->Entry.empty();
      if (Op)
        for (const auto &[Key, Expr] : Op->Entry)
          Identity &= Key == Expr && Want->count(Key);
      if (!Identity || Want->size() != Op->Entry.size())
        return createStringError(
            Q.SuitePath + ": no problem of '" + Q.Operator + "' at " +
            shapeText(*Want) +
            (Op && !Identity ? " (its entry shape does not determine the "
                               "definition's: give a suite problem)"
                             : ""));
      Custom.Id = "custom";
      Custom.Operator = Q.Operator;
      Custom.Phase = Op->Phases.front();
      Custom.DefShape = *Want;
      Custom.EntryShape = *Want;
      auto Facts = suite::factsFor(*Op, *Want, *Want);
      if (!Facts)
        return Facts.takeError();
      Custom.Facts = std::move(Facts->first);
      Custom.FloorFacts = std::move(Facts->second);
      Matches.push_back(&Custom);
    }
    if (Matches.size() > 1) {
      std::string Ids;
      for (const suite::Problem *M : Matches)
        Ids += (Ids.empty() ? "" : ", ") + M->Id + " (" + M->Phase + ")";
      return createStringError(
          Q.SuitePath + ": " + Q.Operator + " at " + shapeText(*Want) +
          " is several problems: " + Ids + "; give the id");
    }
    P = Matches.front();
  }
  std::string Where = Q.SuitePath + ": problems[" + P->Id + "]: ";
  const suite::OperatorConfig *Op = S->findOperator(P->Operator);
  if (!Op)
    return createStringError(Where + "operator '" + P->Operator +
                             "' is not in 'operators'");
  auto Specs = suite::readEntrySpecs(S->resolve(S->Specs));
  if (!Specs)
    return Specs.takeError();
  auto Spec = Specs->find(P->Operator);
  if (Spec == Specs->end())
    return createStringError(Where + "operator '" + P->Operator +
                             "' has no entry-point specification");
  auto Lib = OperatorLibrary::load(S->resolve(S->Ops));
  if (!Lib)
    return Lib.takeError();
  auto Work = suite::checkProblem(*P, *Op, **Lib, &Spec->second);
  if (!Work)
    return createStringError(Where + locatedErrorToString(Work.takeError()));
  std::string HwPath = S->resolve(S->Hardware);
  auto Table = loadHardwareTable(HwPath);
  if (!Table)
    return Table.takeError();
  const GpuSpec *Gpu = nullptr;
  std::string Known;
  for (const GpuSpec &G : *Table) {
    Known += (Known.empty() ? "" : ", ") + G.name;
    if (G.name == Q.Gpu)
      Gpu = &G;
  }
  if (!Gpu)
    return createStringError("no GPU '" + Q.Gpu + "' in " + HwPath +
                             " (known: " + Known + ")");
  auto Roof = computeRoofline(Work->Expected, *Gpu);
  if (!Roof)
    return Roof.takeError();
  auto Floor = computeRoofline(Work->Floor, *Gpu);
  if (!Floor)
    return Floor.takeError();

  Problem R;
  R.Suite = S->Name;
  R.Id = P->Id;
  R.Operator = P->Operator;
  // A custom shape belongs to no phase unless the operator has one.
  R.Phase = P == &Custom && Op->Phases.size() > 1 ? "any" : P->Phase;
  R.Shape = P->EntryShape;
  R.Signature = Spec->second.Signature;
  R.Summary = Spec->second.Summary;
  R.KeyDoc = Spec->second.KeyDoc;
  R.Gpu = Gpu->name;
  R.GpuFullName = Gpu->fullName;
  R.TRooflineS = Roof->primary().seconds();
  R.Ceiling = Roof->ceiling().str();
  R.Regime = Roof->primary().memoryBound() ? "memory" : "compute";
  R.FloorS = Floor->Datasheet.seconds();
  R.Flops = static_cast<double>(Roof->FlopsTotal);
  auto Matrix = Work->Expected.flops.find("matrix");
  if (Matrix != Work->Expected.flops.end())
    for (const auto &[Dtype, N] : Matrix->second)
      R.MatrixFlops += static_cast<double>(N);
  R.Bytes = static_cast<double>(Roof->Bytes);
  R.TComputeS = Roof->primary().computeSeconds;
  R.TMemoryS = Roof->primary().memorySeconds;
  R.TFloorS = Roof->primary().floorSeconds;
  return R;
}

json::Object toJSON(const Problem &P) {
  json::Object Shape;
  for (const auto &[K, V] : P.Shape)
    Shape[K] = V;
  return json::Object{{"suite", P.Suite},
                      {"id", P.Id},
                      {"operator", P.Operator},
                      {"phase", P.Phase},
                      {"shape", std::move(Shape)},
                      {"signature", P.Signature},
                      {"summary", P.Summary},
                      {"key_doc", P.KeyDoc},
                      {"gpu", P.Gpu},
                      {"gpu_full_name", P.GpuFullName},
                      {"t_roofline_s", P.TRooflineS},
                      {"ceiling", P.Ceiling},
                      {"regime", P.Regime},
                      {"floor_s", P.FloorS},
                      {"flops", P.Flops},
                      {"matrix_flops", P.MatrixFlops},
                      {"bytes", P.Bytes},
                      {"t_compute_s", P.TComputeS},
                      {"t_memory_s", P.TMemoryS},
                      {"t_floor_s", P.TFloorS}};
}

Expected<Problem> problemFromJSON(const json::Object &O) {
  Problem P;
  auto Str = [&](StringRef Key, std::string &Out) -> Error {
    auto V = O.getString(Key);
    if (!V)
      return createStringError("problem: missing string '" + Key + "'");
    Out = V->str();
    return Error::success();
  };
  for (auto [Key, Out] :
       std::initializer_list<std::pair<StringRef, std::string *>>{
           {"id", &P.Id}, {"operator", &P.Operator}, {"gpu", &P.Gpu}})
    if (Error E = Str(Key, *Out))
      return std::move(E);
  P.Suite = O.getString("suite").value_or("").str();
  P.Phase = O.getString("phase").value_or("").str();
  P.Signature = O.getString("signature").value_or("").str();
  P.Summary = O.getString("summary").value_or("").str();
  P.KeyDoc = O.getString("key_doc").value_or("").str();
  P.Ceiling = O.getString("ceiling").value_or("").str();
  P.GpuFullName = O.getString("gpu_full_name").value_or("").str();
  P.Regime = O.getString("regime").value_or("").str();
  auto T = O.getNumber("t_roofline_s");
  if (!T || *T <= 0)
    return createStringError("problem: 't_roofline_s' is not a positive "
                             "number");
  P.TRooflineS = *T;
  P.FloorS = O.getNumber("floor_s").value_or(0);
  P.Flops = O.getNumber("flops").value_or(0);
  P.MatrixFlops = O.getNumber("matrix_flops").value_or(0);
  P.Bytes = O.getNumber("bytes").value_or(0);
  P.TComputeS = O.getNumber("t_compute_s").value_or(0);
  P.TMemoryS = O.getNumber("t_memory_s").value_or(0);
  P.TFloorS = O.getNumber("t_floor_s").value_or(0);
  const json::Object *Shape = O.getObject("shape");
  if (!Shape)
    return createStringError("problem: missing object 'shape'");
  for (const auto &[K, V] : *Shape) {
    auto N = getInteger(V);
    if (!N)
      return createStringError("problem: shape '" + K.str() +
                               "' is not an integer");
    P.Shape[K.str()] = *N;
  }
  return P;
}

} // namespace atrex::agent

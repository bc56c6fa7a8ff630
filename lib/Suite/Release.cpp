//===- Release.cpp - public and sealed bundles of a suite -----------------===//
//
// Part of atrex. See include/atrex/Suite/Release.h and docs/release.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/Release.h"
#include "atrex/Lint/Finding.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/RandomNumberGenerator.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

using namespace llvm;
using namespace atrex::suite;

namespace atrex::release {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

static std::string joinPath(StringRef Dir, StringRef Name) {
  SmallString<256> P(Dir);
  sys::path::append(P, Name);
  return std::string(P);
}

static Error writeFile(StringRef Path, StringRef Data) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError("cannot write '" + Path + "': " + EC.message());
  OS << Data;
  OS.close();
  if (OS.has_error())
    return createStringError("cannot write '" + Path +
                             "': " + OS.error().message());
  return Error::success();
}

static std::string jsonText(json::Value V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << formatv("{0:2}", V) << "\n";
  return S;
}

static Expected<std::string> readFile(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError("cannot read '" + Path +
                             "': " + Buffer.getError().message());
  return (*Buffer)->getBuffer().str();
}

static Expected<json::Value> readJSON(StringRef Path) {
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  auto V = json::parse(*Text);
  if (!V)
    return createStringError("'" + Path +
                             "' is not valid JSON: " + toString(V.takeError()));
  return V;
}

static Error makeDir(StringRef Dir) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError("cannot create '" + Dir + "': " + EC.message());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Leak check and sanitizing
//===----------------------------------------------------------------------===//

Error leakCheck(StringRef Dir, ArrayRef<DenyTerm> Terms) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (It->type() == sys::fs::file_type::regular_file)
      Files.push_back(It->path());
  if (EC)
    return createStringError("cannot scan '" + Dir + "': " + EC.message());
  llvm::sort(Files);
  std::string Errors;
  for (const std::string &File : Files) {
    auto Text = readFile(File);
    if (!Text)
      return Text.takeError();
    std::string Lower = StringRef(*Text).lower();
    SmallString<128> Rel(File);
    sys::path::replace_path_prefix(Rel, Dir, "");
    StringRef Name = StringRef(Rel).ltrim("/");
    for (const DenyTerm &T : Terms) {
      if (T.Text.empty())
        continue;
      size_t At = Lower.find(StringRef(T.Text).lower());
      if (At == std::string::npos)
        continue;
      size_t Line = StringRef(Lower).take_front(At).count('\n') + 1;
      Errors += (Errors.empty() ? "" : "\n") +
                ("leak: '" + T.Text + "' (" + T.Origin + ") in " + Name + ":" +
                 Twine(Line))
                    .str();
    }
  }
  if (!Errors.empty())
    return createStringError(Errors);
  return Error::success();
}

std::string sanitize(StringRef Text, ArrayRef<Rewrite> Rewrites,
                     ArrayRef<DenyTerm> Terms) {
  std::string S = Text.str();
  for (const Rewrite &R : Rewrites) {
    if (R.From.empty())
      continue;
    for (size_t At = S.find(R.From); At != std::string::npos;
         At = S.find(R.From, At + R.To.size()))
      S.replace(At, R.From.size(), R.To);
  }
  // Drop every parenthesized group (no nesting) that names a term.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    std::string Lower = StringRef(S).lower();
    for (const DenyTerm &T : Terms) {
      if (T.Text.empty())
        continue;
      std::string Term = StringRef(T.Text).lower();
      for (size_t At = Lower.find(Term); At != std::string::npos && !Changed;
           At = Lower.find(Term, At + 1)) {
        size_t Open = Lower.rfind('(', At), Close = Lower.find(')', At);
        if (Open == std::string::npos || Close == std::string::npos ||
            Lower.find(')', Open) < At)
          continue;
        if (Open > 0 && S[Open - 1] == ' ')
          --Open;
        S.erase(Open, Close + 1 - Open);
        Changed = true;
      }
      if (Changed)
        break;
    }
  }
  return S;
}

//===----------------------------------------------------------------------===//
// Pack
//===----------------------------------------------------------------------===//

static json::Object shapeJSON(const Shape &S) {
  json::Object O;
  for (const auto &[K, V] : S)
    O[K] = V;
  return O;
}

static std::string randomHex(size_t Bytes) {
  std::vector<uint8_t> Buf(Bytes);
  if (getRandomBytes(Buf.data(), Buf.size()))
    report_fatal_error("no random bytes for the salt");
  return toHex(Buf, /*LowerCase=*/true);
}

static std::string markdownCard(const json::Object &Card) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "# " << Card.getString("operator").value_or("") << "\n\n";
  OS << "Entry point (a submission implements this function):\n\n```cpp\n"
     << Card.getString("signature").value_or("") << ";\n```\n\n";
  OS << Card.getString("summary").value_or("") << "\n\n";
  if (const json::Array *Tracks = Card.getArray("tracks");
      Tracks && !Tracks->empty()) {
    OS << "## Tracks\n\nA submission to a track writes its kernels in the "
          "track's DSL; a kernel launched in another counts as fallback "
          "(`atrex-lint --dsl`).\n\n| track | kernel DSL | GPU | lint "
          "policy |\n|---|---|---|---|\n";
    for (const json::Value &TV : *Tracks) {
      const json::Object *T = TV.getAsObject();
      if (!T)
        continue;
      std::vector<std::string> Dsls;
      if (const json::Array *D = T->getArray("dsl"))
        for (const json::Value &DV : *D)
          Dsls.push_back(
              atrex::lint::dslDisplayName(DV.getAsString().value_or("")).str() +
              " (`" + DV.getAsString().value_or("").str() + "`)");
      OS << "| " << T->getString("name").value_or("") << " | "
         << join(Dsls, " or ") << " | " << T->getString("gpu").value_or("")
         << " | " << T->getString("policy").value_or("") << " |\n";
    }
    OS << "\n";
  }
  OS << "## Reference semantics\n\n```text\n"
     << StringRef(Card.getString("semantics").value_or("")).rtrim()
     << "\n```\n\n";
  OS << "## Shape keys\n\n"
     << Card.getString("key_doc").value_or("") << "\n\nPhases: ";
  if (const json::Array *P = Card.getArray("phases"))
    for (size_t I = 0; I < P->size(); ++I)
      OS << (I ? ", " : "") << (*P)[I].getAsString().value_or("");
  OS << "\n\n## Tolerance\n\nAn element passes when `|out - ref| <= atol + "
        "atol_rms * rms(ref) + rtol * |ref|`; a tensor passes when every "
        "element passes, no element is NaN/Inf where the reference is "
        "finite, and `||out - ref|| / ||ref|| <= max_rel_norm`.\n\n"
        "| output | dtype | atol | rtol | atol_rms | max_rel_norm |\n"
        "|---|---|---|---|---|---|\n";
  if (const json::Object *T = Card.getObject("tolerance")) {
    std::vector<std::string> Names;
    for (const auto &E : *T)
      Names.push_back(E.first.str());
    llvm::sort(Names);
    for (const std::string &N : Names) {
      const json::Object *O = T->getObject(N);
      if (!O)
        continue;
      auto Num = [&](StringRef K) {
        auto V = O->getNumber(K);
        if (!V)
          return std::string("-");
        char Buf[32];
        snprintf(Buf, sizeof(Buf), "%g", *V);
        return std::string(Buf);
      };
      if (O->getBoolean("exact").value_or(false))
        OS << "| " << N << " | " << O->getString("dtype").value_or("")
           << " | exact | | | |\n";
      else
        OS << "| " << N << " | " << O->getString("dtype").value_or("") << " | "
           << Num("atol") << " | " << Num("rtol") << " | " << Num("atol_rms")
           << " | " << Num("max_rel_norm") << " |\n";
    }
  }
  OS << "\n## Visible problems\n\nThe evaluation also runs hidden problems "
        "of this operator.\n\n| id | phase | shape |\n|---|---|---|\n";
  if (const json::Array *V = Card.getArray("visible_problems"))
    for (const json::Value &P : *V) {
      const json::Object *O = P.getAsObject();
      std::string Shape;
      if (const json::Object *Sh = O->getObject("shape")) {
        std::vector<std::string> Items;
        for (const auto &E : *Sh)
          Items.push_back(
              E.first.str() + "=" +
              std::to_string(atrex::getInteger(E.second).value_or(0)));
        llvm::sort(Items);
        Shape = join(Items, ",");
      }
      OS << "| " << O->getString("id").value_or("") << " | "
         << O->getString("phase").value_or("") << " | `" << Shape << "` |\n";
    }
  return S;
}

static Error writeWeights(StringRef SealedDir, StringRef Commitment,
                          const WeightAssignment &W) {
  json::Object Weights;
  for (const auto &[Id, Value] : W.Weights)
    Weights[Id] = Value;
  json::Array Unmatched, UnmatchedTrace;
  for (const std::string &Id : W.UnmatchedProblems)
    Unmatched.push_back(Id);
  for (const std::string &T : W.UnmatchedTrace)
    UnmatchedTrace.push_back(T);
  return writeFile(
      joinPath(SealedDir, "weights.json"),
      jsonText(json::Object{
          {"format", "atrex-sealed-weights"},
          {"version", 1},
          {"commitment", Commitment},
          {"source", W.Source},
          {"weights", std::move(Weights)},
          {"zero_weight_problems", std::move(Unmatched)},
          {"unmatched_trace_problems", std::move(UnmatchedTrace)}}));
}

Error pack(const Suite &S, const OperatorLibrary &Ops,
           const std::map<std::string, EntrySpec> &Specs,
           const PackOptions &Options) {
  // Validity, and the work of every problem.
  std::vector<ProblemWork> Works;
  std::string Errors;
  for (const Problem &P : S.Problems) {
    const OperatorConfig *Op = S.findOperator(P.Operator);
    auto Spec = Specs.find(P.Operator);
    Expected<ProblemWork> W =
        !Op ? Expected<ProblemWork>(createStringError(
                  "operator '" + P.Operator + "' is not in 'operators'"))
        : Spec == Specs.end() ? Expected<ProblemWork>(createStringError(
                                    "operator '" + P.Operator +
                                    "' has no entry-point specification"))
                              : checkProblem(P, *Op, Ops, &Spec->second);
    if (!W) {
      Errors += (Errors.empty() ? "" : "\n") + S.Path + ": problems[" + P.Id +
                "]: " + toString(W.takeError());
      continue;
    }
    Works.push_back(std::move(*W));
  }
  if (!Errors.empty())
    return createStringError(Errors);

  // GPUs and rooflines.
  std::string HwPath = S.resolve(S.Hardware);
  auto Table = loadHardwareTable(HwPath);
  if (!Table)
    return Table.takeError();
  auto HwJSON = readJSON(HwPath);
  if (!HwJSON)
    return HwJSON.takeError();
  std::vector<const GpuSpec *> Gpus;
  for (const std::string &Name : Options.Gpus) {
    const GpuSpec *Found = nullptr;
    for (const GpuSpec &G : *Table)
      if (G.name == Name)
        Found = &G;
    if (!Found)
      return createStringError("no GPU '" + Name + "' in " + HwPath);
    Gpus.push_back(Found);
  }
  bool AllGpus = Gpus.empty();
  if (AllGpus)
    for (const GpuSpec &G : *Table)
      Gpus.push_back(&G);
  // GPU -> per problem (roofline, floor roofline).
  std::map<std::string,
           std::vector<std::pair<ProblemRoofline, ProblemRoofline>>>
      Rooflines;
  for (const GpuSpec *G : Gpus) {
    std::vector<std::pair<ProblemRoofline, ProblemRoofline>> Rows;
    Error Missing = Error::success();
    for (const ProblemWork &W : Works) {
      auto R = computeRoofline(W.Expected, *G);
      auto F = R ? computeRoofline(W.Floor, *G)
                 : Expected<ProblemRoofline>(R.takeError());
      if (!R || !F) {
        Missing = F.takeError();
        break;
      }
      Rows.emplace_back(*R, *F);
    }
    if (Missing) {
      if (!AllGpus)
        return Missing;
      if (Options.Notes)
        *Options.Notes << "note: GPU " << G->name
                       << " left out: " << toString(std::move(Missing)) << "\n";
      continue;
    }
    Rooflines[G->name] = std::move(Rows);
  }
  if (Rooflines.empty())
    return createStringError("no GPU of " + HwPath +
                             " has the peaks every problem needs");

  // sealed.json
  json::Object Hardware;
  if (const json::Object *Root = HwJSON->getAsObject())
    if (const json::Array *List = Root->getArray("gpus"))
      for (const json::Value &G : *List)
        if (const json::Object *GO = G.getAsObject())
          if (auto Name = GO->getString("name");
              Name && Rooflines.count(Name->str()))
            Hardware[*Name] = G;
  json::Array SealedProblems;
  for (size_t I = 0; I < S.Problems.size(); ++I) {
    const Problem &P = S.Problems[I];
    json::Object Roof;
    for (const auto &[Gpu, Rows] : Rooflines) {
      json::Object R = toJSON(Rows[I].first);
      R["t_floor_s"] = Rows[I].second.Datasheet.seconds();
      Roof[Gpu] = std::move(R);
    }
    json::Array Sources;
    for (const Source &Src : P.Sources)
      Sources.push_back(json::Object{{"model", Src.Model},
                                     {"application", Src.Application},
                                     {"upstream_kernel", Src.UpstreamKernel},
                                     {"weight", Src.Weight}});
    json::Object Prov{{"sources", std::move(Sources)}};
    if (!P.Sources.empty()) {
      Prov["model"] = P.Sources[0].Model;
      Prov["application"] = P.Sources[0].Application;
      Prov["upstream_kernel"] = P.Sources[0].UpstreamKernel;
    }
    SealedProblems.push_back(
        json::Object{{"id", P.Id},
                     {"operator", P.Operator},
                     {"phase", P.Phase},
                     {"shape", shapeJSON(P.EntryShape)},
                     {"definition_shape", shapeJSON(P.DefShape)},
                     {"facts", P.Facts},
                     {"floor_facts", P.FloorFacts},
                     {"visibility", P.Visibility},
                     {"provenance", std::move(Prov)},
                     {"roofline", std::move(Roof)}});
  }
  uint64_t Seed = 0;
  if (Options.Seed) {
    Seed = *Options.Seed;
  } else {
    uint8_t B[6];
    if (getRandomBytes(B, sizeof(B)))
      return createStringError("no random bytes for the evaluation seed");
    for (uint8_t Byte : B)
      Seed = Seed << 8 | Byte;
  }
  std::string Salt = Options.Salt ? *Options.Salt : randomHex(32);
  // Version 2 (2026-12-02): rooflines carry the latency floor
  // (t_roofline_nofloor_s, t_latency_floor_s, floor_bound; docs/roofline.md).
  std::string Sealed = jsonText(json::Object{
      {"format", "atrex-sealed"},
      {"version", 2},
      {"suite", S.Name},
      {"salt", Salt},
      {"seeds", json::Object{{"evaluation", static_cast<int64_t>(Seed)}}},
      {"hardware", std::move(Hardware)},
      {"problems", std::move(SealedProblems)}});
  std::string Commitment = "sha256:" + sha256Hex(Sealed);

  // Weights.
  WeightAssignment W;
  if (Options.WeightsFile.empty()) {
    W = suiteWeights(S);
  } else {
    auto T = traceWeights(S, Options.WeightsFile);
    if (!T)
      return T.takeError();
    W = std::move(*T);
  }
  if (Options.Notes) {
    if (!W.UnmatchedTrace.empty())
      *Options.Notes << "note: " << W.UnmatchedTrace.size()
                     << " trace problem(s) match no suite problem and are "
                        "left out: "
                     << join(W.UnmatchedTrace, "; ") << "\n";
    if (!Options.WeightsFile.empty() && !W.UnmatchedProblems.empty())
      *Options.Notes << "note: " << W.UnmatchedProblems.size()
                     << " suite problem(s) have no trace weight (weight 0)\n";
  }

  // Public bundle, leak-checked in a scratch directory first.
  std::vector<DenyTerm> Terms;
  for (const std::string &T : S.DenyList)
    Terms.push_back({T, "deny list"});
  for (const std::string &T : Options.ExtraDeny)
    Terms.push_back({T, "deny list"});
  for (const std::string &T : S.provenanceStrings())
    Terms.push_back({T, "provenance"});
  std::map<std::string, json::Object> Cards;
  for (const Problem &P : S.Problems) {
    auto [It, New] = Cards.try_emplace(P.Operator);
    json::Object &Card = It->second;
    if (New) {
      const EntrySpec &Spec = Specs.at(P.Operator);
      json::Array Keys, Phases;
      for (const std::string &K : Spec.ShapeKeys)
        Keys.push_back(K);
      for (const std::string &Ph : S.findOperator(P.Operator)->Phases)
        Phases.push_back(Ph);
      json::Array CardTracks;
      for (const Track &T : S.Tracks)
        if (T.covers(P.Operator))
          CardTracks.push_back(json::Object{{"name", T.Name},
                                            {"dsl", json::Array(T.Dsl)},
                                            {"gpu", T.Gpu},
                                            {"policy", T.Policy}});
      Card = json::Object{
          {"operator", P.Operator},
          {"signature", Spec.Signature},
          {"summary", sanitize(Spec.Summary, S.PublicRewrites, Terms)},
          {"semantics",
           sanitize(Ops.headerComment(P.Operator), S.PublicRewrites, Terms)},
          {"tolerance", Spec.Outputs},
          {"shape_keys", std::move(Keys)},
          {"key_doc", Spec.KeyDoc},
          {"phases", std::move(Phases)},
          {"tracks", std::move(CardTracks)},
          {"visible_problems", json::Array()}};
    }
    if (P.Visibility == "public")
      Card.getArray("visible_problems")
          ->push_back(json::Object{{"id", P.Id},
                                   {"phase", P.Phase},
                                   {"shape", shapeJSON(P.EntryShape)}});
  }
  // Tracks are public (a track's summary is leak-checked like the cards).
  json::Array PublicTracks;
  for (const Track &T : S.Tracks) {
    json::Object O = toJSON(T);
    O["summary"] = sanitize(T.Summary, S.PublicRewrites, Terms);
    PublicTracks.push_back(std::move(O));
  }
  json::Array CardList;
  for (auto &[Name, Card] : Cards)
    CardList.push_back(json::Object(Card));
  std::string Public =
      jsonText(json::Object{{"format", "atrex-public"},
                            {"version", 1},
                            {"suite", S.Name},
                            {"sealed_commitment", Commitment},
                            {"tracks", std::move(PublicTracks)},
                            {"cards", std::move(CardList)}});
  std::string Scratch = Options.PublicDir + ".partial";
  sys::fs::remove_directories(Scratch);
  if (Error E = makeDir(joinPath(Scratch, "cards")))
    return E;
  scope_exit Cleanup([&] { sys::fs::remove_directories(Scratch); });
  if (Error E = writeFile(joinPath(Scratch, "public.json"), Public))
    return E;
  for (auto &[Name, Card] : Cards)
    if (Error E = writeFile(joinPath(joinPath(Scratch, "cards"), Name + ".md"),
                            markdownCard(Card)))
      return E;
  if (Error E = leakCheck(Scratch, Terms))
    return createStringError("public bundle '" + Options.PublicDir +
                             "' not written: " + toString(std::move(E)));

  if (Error E = makeDir(joinPath(Options.PublicDir, "cards")))
    return E;
  if (Error E = makeDir(Options.SealedDir))
    return E;
  if (Error E = writeFile(joinPath(Options.PublicDir, "public.json"), Public))
    return E;
  for (auto &[Name, Card] : Cards)
    if (Error E = writeFile(
            joinPath(joinPath(Options.PublicDir, "cards"), Name + ".md"),
            markdownCard(Card)))
      return E;
  if (Error E = writeFile(joinPath(Options.SealedDir, "sealed.json"), Sealed))
    return E;
  return writeWeights(Options.SealedDir, Commitment, W);
}

//===----------------------------------------------------------------------===//
// Verify and refresh
//===----------------------------------------------------------------------===//

static Shape shapeOf(const json::Value *V) {
  Shape S;
  if (const json::Object *O = V ? V->getAsObject() : nullptr)
    for (const auto &E : *O)
      S[E.first.str()] = atrex::getInteger(E.second).value_or(INT64_MIN);
  return S;
}

Error verify(StringRef PublicDir, StringRef SealedDir) {
  std::string PublicPath = joinPath(PublicDir, "public.json");
  std::string SealedPath = joinPath(SealedDir, "sealed.json");
  std::string WeightsPath = joinPath(SealedDir, "weights.json");
  auto PublicV = readJSON(PublicPath);
  if (!PublicV)
    return PublicV.takeError();
  auto SealedText = readFile(SealedPath);
  if (!SealedText)
    return SealedText.takeError();
  auto SealedV = json::parse(*SealedText);
  if (!SealedV)
    return createStringError("'" + SealedPath + "' is not valid JSON: " +
                             toString(SealedV.takeError()));
  auto WeightsV = readJSON(WeightsPath);
  if (!WeightsV)
    return WeightsV.takeError();

  std::string Errors;
  auto Fail = [&](StringRef File, const Twine &Message) {
    Errors += (Errors.empty() ? "" : "\n") + (File + ": " + Message).str();
  };
  const json::Object *Pub = PublicV->getAsObject();
  const json::Object *Sealed = SealedV->getAsObject();
  const json::Object *Weights = WeightsV->getAsObject();
  if (!Pub || Pub->getString("format") != "atrex-public" ||
      atrex::getInteger(*Pub, "version") != 1)
    return createStringError(PublicPath +
                             ": not an atrex-public version 1 file");
  std::optional<int64_t> SealedVersion =
      Sealed ? atrex::getInteger(*Sealed, "version") : std::nullopt;
  if (!Sealed || Sealed->getString("format") != "atrex-sealed" ||
      !SealedVersion || *SealedVersion < 1 || *SealedVersion > 2)
    return createStringError(SealedPath +
                             ": not an atrex-sealed version 1 or 2 file");
  if (!Weights || Weights->getString("format") != "atrex-sealed-weights" ||
      atrex::getInteger(*Weights, "version") != 1)
    return createStringError(WeightsPath +
                             ": not an atrex-sealed-weights version 1 file");

  std::string Commitment = "sha256:" + sha256Hex(*SealedText);
  StringRef Claimed = Pub->getString("sealed_commitment").value_or("");
  if (Claimed != Commitment)
    Fail(SealedPath, "commitment mismatch: public.json commits to '" + Claimed +
                         "', the file hashes to '" + Commitment + "'");
  StringRef WeightsCommitment = Weights->getString("commitment").value_or("");
  if (WeightsCommitment != Claimed)
    Fail(WeightsPath, "commitment '" + WeightsCommitment +
                          "' is not the public bundle's '" + Claimed + "'");
  if (Pub->getString("suite") != Sealed->getString("suite"))
    Fail(SealedPath, "suite '" + Sealed->getString("suite").value_or("") +
                         "' is not the public bundle's '" +
                         Pub->getString("suite").value_or("") + "'");
  StringRef Salt = Sealed->getString("salt").value_or("");
  if (Salt.size() < 32 || !all_of(Salt, isHexDigit))
    Fail(SealedPath, "salt must be at least 32 hex digits");

  // Sealed problems by id.
  std::map<std::string, const json::Object *> ById;
  std::set<std::string> Gpus;
  if (const json::Object *Hw = Sealed->getObject("hardware"))
    for (const auto &E : *Hw)
      Gpus.insert(E.first.str());
  if (const json::Array *Problems = Sealed->getArray("problems")) {
    for (size_t I = 0; I < Problems->size(); ++I) {
      const json::Object *P = (*Problems)[I].getAsObject();
      std::string Id = P ? P->getString("id").value_or("").str() : "";
      if (Id.empty()) {
        Fail(SealedPath, "problems[" + Twine(I) + "]: missing id");
        continue;
      }
      if (!ById.emplace(Id, P).second)
        Fail(SealedPath, "problems[" + Id + "]: duplicate id");
      const json::Object *Roof = P->getObject("roofline");
      if (!Roof || Roof->empty())
        Fail(SealedPath, "problems[" + Id + "]: no roofline");
      else
        for (const auto &E : *Roof) {
          if (!Gpus.count(E.first.str()))
            Fail(SealedPath, "problems[" + Id + "].roofline." + E.first.str() +
                                 ": GPU not in 'hardware'");
          const json::Object *R = E.second.getAsObject();
          auto T = R ? R->getNumber("t_roofline_s") : std::nullopt;
          if (!T || !(*T > 0))
            Fail(SealedPath, "problems[" + Id + "].roofline." + E.first.str() +
                                 ": t_roofline_s must be positive");
        }
    }
  } else {
    Fail(SealedPath, "missing 'problems'");
  }

  // Public cards against the sealed problems.
  std::set<std::string> OnCards;
  if (const json::Array *Cards = Pub->getArray("cards")) {
    for (const json::Value &CV : *Cards) {
      const json::Object *Card = CV.getAsObject();
      StringRef Op = Card ? Card->getString("operator").value_or("") : "";
      const json::Array *Visible =
          Card ? Card->getArray("visible_problems") : nullptr;
      if (!Visible) {
        Fail(PublicPath, "cards[" + Op + "]: missing visible_problems");
        continue;
      }
      for (const json::Value &VV : *Visible) {
        const json::Object *V = VV.getAsObject();
        std::string Id = V ? V->getString("id").value_or("").str() : "";
        std::string Where =
            "cards[" + Op.str() + "].visible_problems[" + Id + "]";
        OnCards.insert(Id);
        auto It = ById.find(Id);
        if (It == ById.end()) {
          Fail(PublicPath, Where + ": no such problem in " + SealedPath);
          continue;
        }
        const json::Object *S = It->second;
        if (S->getString("operator") != Op)
          Fail(SealedPath, "problems[" + Id + "]: operator '" +
                               S->getString("operator").value_or("") +
                               "' but the card is '" + Op + "'");
        if (S->getString("phase") != V->getString("phase"))
          Fail(SealedPath, "problems[" + Id + "]: phase '" +
                               S->getString("phase").value_or("") +
                               "' but the card says '" +
                               V->getString("phase").value_or("") + "'");
        if (shapeOf(S->get("shape")) != shapeOf(V->get("shape")))
          Fail(SealedPath, "problems[" + Id + "]: shape {" +
                               shapeString(shapeOf(S->get("shape"))) +
                               "} but the card shows {" +
                               shapeString(shapeOf(V->get("shape"))) + "}");
        if (S->getString("visibility") != "public")
          Fail(SealedPath, "problems[" + Id +
                               "]: on a public card but its visibility is '" +
                               S->getString("visibility").value_or("") + "'");
      }
    }
  } else {
    Fail(PublicPath, "missing 'cards'");
  }
  for (const auto &[Id, P] : ById)
    if (P->getString("visibility") == "public" && !OnCards.count(Id))
      Fail(SealedPath,
           "problems[" + Id + "]: public but on no card of " + PublicPath);

  // Weights.
  if (const json::Object *W = Weights->getObject("weights")) {
    double Sum = 0;
    std::vector<std::string> Keys;
    for (const auto &E : *W)
      Keys.push_back(E.first.str());
    llvm::sort(Keys);
    for (const std::string &Id : Keys) {
      auto V = W->getNumber(Id);
      if (!ById.count(Id))
        Fail(WeightsPath, "weights[" + Id + "]: unknown problem id");
      if (!V || !std::isfinite(*V) || *V < 0) {
        Fail(WeightsPath,
             "weights[" + Id + "]: must be a finite non-negative number");
        continue;
      }
      Sum += *V;
    }
    if (std::abs(Sum - 1) > 1e-6) {
      // Nine digits: a sum off by 1e-6 must not read "1.00" (formatv has no
      // %g style; "{0:g}" asserted in assert builds).
      std::string SumText;
      raw_string_ostream(SumText) << format("%.9g", Sum);
      Fail(WeightsPath, "weights sum to " + SumText + ", not 1");
    }
  } else {
    Fail(WeightsPath, "missing 'weights'");
  }
  if (!Errors.empty())
    return createStringError(Errors);
  return Error::success();
}

Error refreshWeights(StringRef PublicDir, StringRef SealedDir,
                     StringRef WeightsFile, StringRef OutDir,
                     raw_ostream *Notes) {
  if (Error E = verify(PublicDir, SealedDir))
    return E;
  std::string SealedPath = joinPath(SealedDir, "sealed.json");
  auto SealedText = readFile(SealedPath);
  if (!SealedText)
    return SealedText.takeError();
  // The problems' (operator, phase, shape) as a suite for the matching.
  Suite S;
  json::Value V = cantFail(json::parse(*SealedText));
  for (const json::Value &PV : *V.getAsObject()->getArray("problems")) {
    const json::Object *PO = PV.getAsObject();
    Problem P;
    P.Id = PO->getString("id").value_or("").str();
    P.Operator = PO->getString("operator").value_or("").str();
    P.Phase = PO->getString("phase").value_or("").str();
    P.DefShape = shapeOf(PO->get("definition_shape"));
    S.Problems.push_back(std::move(P));
  }
  auto W = traceWeights(S, WeightsFile);
  if (!W)
    return W.takeError();
  if (Notes && !W->UnmatchedTrace.empty())
    *Notes << "note: " << W->UnmatchedTrace.size()
           << " trace problem(s) match no suite problem and are left out: "
           << join(W->UnmatchedTrace, "; ") << "\n";
  if (Notes && !W->UnmatchedProblems.empty())
    *Notes << "note: " << W->UnmatchedProblems.size()
           << " suite problem(s) have no trace weight (weight 0)\n";
  if (Error E = makeDir(OutDir))
    return E;
  if (Error E = writeFile(joinPath(OutDir, "sealed.json"), *SealedText))
    return E;
  return writeWeights(OutDir, "sha256:" + sha256Hex(*SealedText), *W);
}

} // namespace atrex::release

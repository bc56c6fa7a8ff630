//===- Sealed.cpp - reading sealed bundles --------------------------------===//
//
// Part of atrex. See include/atrex/Score/Sealed.h and docs/scoring.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Score/Sealed.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <cmath>

using namespace llvm;
using namespace atrex::score;

static Error err(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

std::string atrex::score::sha256Commitment(StringRef Bytes) {
  std::array<uint8_t, 32> H = SHA256::hash(arrayRefFromStringRef(Bytes));
  return "sha256:" + toHex(H, /*LowerCase=*/true);
}

const SuiteProblem *SealedBundle::find(StringRef Id) const {
  for (const SuiteProblem &P : Problems)
    if (P.Id == Id)
      return &P;
  return nullptr;
}

static Expected<std::string> readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buf)
    return err("cannot read '" + Path + "': " + Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

/// Checks `format` and `version` of a bundle file (versions 1 to
/// `MaxVersion`: atrex-sealed 2 adds `t_roofline_nofloor_s` and the latency
/// floor to the rooflines; a version-1 bundle, without a floor, scores as it
/// always did).
static Error checkFormat(const json::Object &O, StringRef Name,
                         StringRef Format, int64_t MaxVersion = 1) {
  std::optional<StringRef> F = O.getString("format");
  if (!F)
    return err("'" + Name + "': missing \"format\" (expected \"" + Format +
               "\")");
  if (*F != Format)
    return err("'" + Name + "': format is \"" + *F + "\", expected \"" +
               Format + "\"");
  std::optional<int64_t> V = atrex::getInteger(O, "version");
  if (!V)
    return err("'" + Name + "': missing integer \"version\"");
  if (*V < 1 || *V > MaxVersion)
    return err("'" + Name + "': unsupported " + Format + " version " +
               Twine(*V) + " (this atrex reads version" +
               (MaxVersion == 1 ? " 1" : "s 1-" + Twine(MaxVersion)) + ")");
  return Error::success();
}

static Expected<Ceilings> parseCeilings(const json::Object &O,
                                        const Twine &Where) {
  Ceilings C;
  std::optional<double> Bw = O.getNumber("hbm_tbps");
  if (!Bw || *Bw <= 0)
    return err(Where + ": missing or non-positive \"hbm_tbps\"");
  C.HbmTbps = *Bw;
  if (const json::Object *Peaks = O.getObject("peak_tflops")) {
    for (StringRef Engine : {"matrix", "vector"}) {
      const json::Object *E = Peaks->getObject(Engine);
      if (!E)
        continue;
      std::vector<Peak> EnginePeaks;
      for (const auto &KV : *E) {
        std::optional<double> T = KV.second.getAsNumber();
        if (!T || *T <= 0)
          return err(Where + ": peak_tflops." + Engine + "." + KV.first.str() +
                     " is not a positive number");
        EnginePeaks.push_back({Engine.str(), KV.first.str(), *T});
      }
      // json::Object iterates in hash order: keep the output stable.
      llvm::sort(EnginePeaks, [](const Peak &A, const Peak &B) {
        return A.Tflops > B.Tflops ||
               (A.Tflops == B.Tflops && A.Dtype < B.Dtype);
      });
      C.Peaks.insert(C.Peaks.end(), EnginePeaks.begin(), EnginePeaks.end());
    }
  }
  return C;
}

static Expected<Hardware> parseHardware(StringRef Key, const json::Value &V,
                                        StringRef Name) {
  const json::Object *O = V.getAsObject();
  std::string Where = ("'" + Name + "': hardware \"" + Key + "\"").str();
  if (!O)
    return err(Where + " is not an object");
  Hardware H;
  H.Name = O->getString("name").value_or(Key).str();
  H.FullName = O->getString("full_name").value_or(H.Name).str();
  const json::Object *D = O->getObject("datasheet");
  if (!D)
    return err(Where + " has no \"datasheet\" ceilings");
  auto DC = parseCeilings(*D, Where + " datasheet");
  if (!DC)
    return DC.takeError();
  H.Datasheet = std::move(*DC);
  if (const json::Object *M = O->getObject("measured")) {
    auto MC = parseCeilings(*M, Where + " measured");
    if (!MC)
      return MC.takeError();
    H.Measured = std::move(*MC);
  }
  return H;
}

static Expected<Roofline> parseRoofline(const json::Object &O,
                                        const Twine &Where) {
  Roofline R;
  auto Num = [&](StringRef Key, double &Out, bool Positive) -> Error {
    std::optional<double> N = O.getNumber(Key);
    if (!N || *N < 0 || (Positive && *N == 0))
      return err(Where + ": \"" + Key + "\" is missing or not a " +
                 (Positive ? "positive" : "non-negative") + " number");
    Out = *N;
    return Error::success();
  };
  if (Error E = Num("t_roofline_s", R.TRooflineS, true))
    return std::move(E);
  if (Error E = Num("t_roofline_datasheet_s", R.TDatasheetS, true))
    return std::move(E);
  if (Error E = Num("intensity", R.Intensity, false))
    return std::move(E);
  if (Error E = Num("flops_total", R.FlopsTotal, false))
    return std::move(E);
  if (Error E = Num("bytes", R.Bytes, true))
    return std::move(E);
  if (const json::Value *F = O.get("t_floor_s"))
    if (F->kind() != json::Value::Null) {
      std::optional<double> N = F->getAsNumber();
      if (!N || *N <= 0)
        return err(Where + ": \"t_floor_s\" is not a positive number or null");
      R.TFloorS = *N;
    }
  if (const json::Value *M = O.get("t_roofline_nofloor_s")) {
    std::optional<double> N = M->getAsNumber();
    if (!N || *N <= 0 || *N > R.TRooflineS)
      return err(Where + ": \"t_roofline_nofloor_s\" is not a positive number "
                         "at most t_roofline_s");
    R.TNoFloorS = *N;
  }
  if (const json::Value *M = O.get("t_roofline_measured_s"))
    if (M->kind() != json::Value::Null) {
      std::optional<double> N = M->getAsNumber();
      if (!N || *N <= 0)
        return err(Where + ": \"t_roofline_measured_s\" is not a positive "
                           "number or null");
      R.TMeasuredS = *N;
    }
  R.Ceiling = O.getString("ceiling")
                  .value_or(R.TMeasuredS ? "measured" : "datasheet")
                  .str();
  if (R.Ceiling != "measured" && R.Ceiling != "datasheet")
    return err(Where + ": \"ceiling\" is \"" + R.Ceiling +
               "\", expected \"measured\" or \"datasheet\"");
  std::optional<StringRef> Regime = O.getString("regime");
  if (!Regime || (*Regime != "memory" && *Regime != "compute"))
    return err(Where + ": \"regime\" must be \"memory\" or \"compute\"");
  R.Regime = Regime->str();
  return R;
}

Expected<SealedBundle> atrex::score::parseSealed(StringRef Name,
                                                 StringRef Text) {
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc)
    return err("'" + Name + "': invalid JSON: " + toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  if (!Root)
    return err("'" + Name + "': not a JSON object");
  if (Error E = checkFormat(*Root, Name, "atrex-sealed", /*MaxVersion=*/2))
    return std::move(E);

  SealedBundle B;
  B.SealedPath = Name.str();
  B.Commitment = sha256Commitment(Text);
  B.Suite = Root->getString("suite").value_or("").str();

  const json::Object *Hw = Root->getObject("hardware");
  if (!Hw || Hw->empty())
    return err("'" + Name + "': no \"hardware\" entries");
  for (const auto &KV : *Hw) {
    auto H = parseHardware(KV.first, KV.second, Name);
    if (!H)
      return H.takeError();
    B.Gpus[KV.first.str()] = std::move(*H);
  }

  const json::Array *Problems = Root->getArray("problems");
  if (!Problems)
    return err("'" + Name + "': no \"problems\" array");
  for (size_t I = 0; I < Problems->size(); ++I) {
    const json::Object *PO = (*Problems)[I].getAsObject();
    std::string Where = formatv("'{0}': problems[{1}]", Name, I).str();
    if (!PO)
      return err(Where + " is not an object");
    SuiteProblem P;
    std::optional<StringRef> Id = PO->getString("id");
    if (!Id || Id->empty())
      return err(Where + " has no \"id\"");
    P.Id = Id->str();
    Where = formatv("'{0}': problem '{1}'", Name, P.Id).str();
    if (B.find(P.Id))
      return err(Where + " appears twice");
    std::optional<StringRef> Op = PO->getString("operator");
    if (!Op || Op->empty())
      return err(Where + " has no \"operator\"");
    P.Operator = Op->str();
    std::optional<StringRef> Phase = PO->getString("phase");
    if (!Phase || (*Phase != "prefill" && *Phase != "decode"))
      return err(Where + ": \"phase\" must be \"prefill\" or \"decode\"");
    P.Phase = Phase->str();
    P.Visibility = PO->getString("visibility").value_or("public").str();
    if (const json::Value *S = PO->get("shape"))
      P.Shape = *S;
    const json::Object *Roof = PO->getObject("roofline");
    if (!Roof)
      return err(Where + " has no \"roofline\" object");
    for (const auto &KV : *Roof) {
      const json::Object *RO = KV.second.getAsObject();
      if (!RO)
        return err(Where + ": roofline \"" + KV.first.str() +
                   "\" is not an object");
      auto R =
          parseRoofline(*RO, Where + ": roofline \"" + KV.first.str() + "\"");
      if (!R)
        return R.takeError();
      P.Rooflines[KV.first.str()] = std::move(*R);
    }
    B.Problems.push_back(std::move(P));
  }
  if (B.Problems.empty())
    return err("'" + Name + "': the suite has no problems");
  return B;
}

Error atrex::score::parseWeights(SealedBundle &B, StringRef Name,
                                 StringRef Text) {
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc)
    return err("'" + Name + "': invalid JSON: " + toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  if (!Root)
    return err("'" + Name + "': not a JSON object");
  if (Error E = checkFormat(*Root, Name, "atrex-sealed-weights"))
    return E;
  B.WeightsPath = Name.str();
  B.WeightsSource = Root->getString("source").value_or("").str();
  std::optional<StringRef> C = Root->getString("commitment");
  if (!C)
    return err("'" + Name + "': missing \"commitment\"");
  B.WeightsCommitment = C->str();
  if (*C != B.Commitment)
    return err("'" + Name + "' is for the sealed bundle " + *C + " but '" +
               B.SealedPath + "' is " + B.Commitment);
  const json::Object *W = Root->getObject("weights");
  if (!W)
    return err("'" + Name + "': missing \"weights\" object");
  std::vector<std::string> Unknown;
  for (const auto &KV : *W) {
    std::optional<double> V = KV.second.getAsNumber();
    if (!V || *V < 0 || !std::isfinite(*V))
      return err("'" + Name + "': weight of '" + KV.first.str() +
                 "' is not a non-negative number");
    if (!B.find(KV.first.str())) {
      Unknown.push_back(KV.first.str());
      continue;
    }
    B.Weights[KV.first.str()] = *V;
  }
  llvm::sort(Unknown);
  for (const std::string &Id : Unknown)
    B.Warnings.push_back(("'" + Name + "' weighs '" + Id +
                          "', which is not a problem of the suite; ignored")
                             .str());
  double Sum = 0;
  for (const SuiteProblem &P : B.Problems) {
    auto It = B.Weights.find(P.Id);
    if (It == B.Weights.end())
      B.Warnings.push_back(("problem '" + P.Id + "' has no weight in '" + Name +
                            "'; it counts with weight 0")
                               .str());
    else
      Sum += It->second;
  }
  if (!(Sum > 0))
    return err("'" + Name + "': the weights of the suite's problems sum to 0");
  return Error::success();
}

Expected<SealedBundle> atrex::score::loadSealedBundle(StringRef Path,
                                                      StringRef WeightsPath) {
  SmallString<256> Sealed(Path), Weights(WeightsPath);
  if (sys::fs::is_directory(Path))
    sys::path::append(Sealed, "sealed.json");
  if (Weights.empty()) {
    Weights = Sealed;
    sys::path::remove_filename(Weights);
    sys::path::append(Weights, "weights.json");
  }
  auto SealedText = readFile(Sealed);
  if (!SealedText)
    return SealedText.takeError();
  auto B = parseSealed(Sealed, *SealedText);
  if (!B)
    return B.takeError();
  auto WeightsText = readFile(Weights);
  if (!WeightsText)
    return WeightsText.takeError();
  if (Error E = parseWeights(*B, Weights, *WeightsText))
    return std::move(E);
  return B;
}

Error atrex::score::verifyPublicCommitment(const SealedBundle &B,
                                           StringRef PublicPath) {
  SmallString<256> Pub(PublicPath);
  if (sys::fs::is_directory(PublicPath))
    sys::path::append(Pub, "public.json");
  auto Text = readFile(Pub);
  if (!Text)
    return Text.takeError();
  Expected<json::Value> Doc = json::parse(*Text);
  if (!Doc)
    return err("'" + Pub + "': invalid JSON: " + toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  if (!Root)
    return err("'" + Pub + "': not a JSON object");
  std::optional<StringRef> C = Root->getString("sealed_commitment");
  if (!C)
    return err("'" + Pub + "': missing \"sealed_commitment\"");
  if (*C != B.Commitment)
    return err("commitment mismatch: '" + Pub + "' commits to " + *C +
               " but '" + B.SealedPath + "' hashes to " + B.Commitment +
               "; refusing to score");
  return Error::success();
}

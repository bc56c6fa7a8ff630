//===- Trail.cpp - the audit trail: write, read, replay, report -----------===//
//
// Part of atrex. See include/atrex/Agent/Trail.h and docs/agent.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Trail.h"
#include "atrex/Agent/Process.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace atrex::agent {

static const StringSet<> &events() {
  static const StringSet<> E = {"start",  "candidate", "evaluation",
                                "accept", "reject",    "dropout",
                                "end",    "retrieval"};
  return E;
}

Expected<std::vector<TrailRecord>> readTrail(StringRef Path) {
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  std::vector<TrailRecord> Records;
  SmallVector<StringRef> Lines;
  StringRef(*Text).split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    if (L.empty())
      continue;
    std::string Where = formatv("{0}:{1}: ", Path, I + 1).str();
    auto V = json::parse(L);
    if (!V)
      return createStringError(Where + "not JSON: " + toString(V.takeError()));
    json::Object *O = V->getAsObject();
    if (!O)
      return createStringError(Where + "not a JSON object");
    if (O->getString("schema") != TrailSchema)
      return createStringError(Where + "not an " + TrailSchema + " record");
    auto Event = O->getString("event");
    if (!Event || !events().contains(*Event))
      return createStringError(Where + "unknown event '" +
                               (Event ? *Event : StringRef("")) + "'");
    if (*Event != "start" && *Event != "end" && !getInteger(*O, "iteration"))
      return createStringError(Where + "'" + *Event +
                               "' record without an integer 'iteration'");
    TrailRecord R;
    R.Line = I + 1;
    R.Event = Event->str();
    R.Data = std::move(*O);
    Records.push_back(std::move(R));
  }
  return Records;
}

Expected<Restored> replayTrail(StringRef Path, ArrayRef<TrailRecord> Records,
                               StringRef RunDir) {
  Restored Out;
  bool HaveStart = false;
  std::map<unsigned, Kernel> Candidates;
  std::map<unsigned, std::string> CandidateErrors;
  std::map<unsigned, Evaluation> Evaluations;
  std::map<unsigned, const json::Object *> Profiles; // --profile's records
  for (const TrailRecord &R : Records) {
    std::string Where = formatv("{0}:{1}: ", Path, R.Line).str();
    auto Fail = [&](const Twine &Why) {
      return createStringError(Where + Why);
    };
    unsigned I =
        static_cast<unsigned>(getInteger(R.Data, "iteration").value_or(0));
    if (R.Event == "start") {
      const json::Object *P = R.Data.getObject("problem");
      if (!P)
        return Fail("start record without 'problem'");
      auto Prob = problemFromJSON(*P);
      if (!Prob)
        return Fail(toString(Prob.takeError()));
      Out.Prob = std::move(*Prob);
      Out.Command = R.Data.getString("command").value_or("").str();
      if (const json::Object *Opts = R.Data.getObject("options"))
        Out.KbIndex = Opts->getString("kb_index").value_or("").str();
      HaveStart = true;
      continue;
    }
    if (!HaveStart)
      return Fail("'" + R.Event + "' record before the first 'start'");
    if (R.Event == "candidate") {
      auto Hash = R.Data.getString("hash");
      if (!Hash) {
        Candidates.erase(I);
        CandidateErrors[I] = R.Data.getString("error").value_or("").str();
        continue;
      }
      SmallString<256> File(RunDir);
      sys::path::append(File, "candidates", *Hash + ".cu");
      auto Source = readFile(File);
      if (!Source)
        return Fail("candidate of iteration " + Twine(I) + ": " +
                    toString(Source.takeError()));
      Kernel K;
      K.Source = std::move(*Source);
      K.Hash = Hash->str();
      K.File = std::string(File);
      Candidates[I] = std::move(K);
      CandidateErrors.erase(I);
    } else if (R.Event == "evaluation") {
      auto E = evaluationFromJSON(R.Data);
      if (!E)
        return Fail(toString(E.takeError()));
      Evaluations[I] = std::move(*E);
      Profiles.erase(I);
      if (const json::Object *P = R.Data.getObject("profile"))
        Profiles[I] = P;
    } else if (R.Event == "accept" || R.Event == "reject") {
      bool Accepted = R.Event == "accept";
      Outcome O;
      O.Accepted = Accepted;
      O.Kind = R.Data.getString("kind").value_or("").str();
      O.Diagnosis = R.Data.getString("diagnosis").value_or("").str();
      if (!Accepted && O.Kind.empty())
        return Fail("reject record without a 'kind'");
      if (!Accepted && O.Kind == failure::kBackend) {
        if (!CandidateErrors.count(I))
          return Fail("backend rejection of iteration " + Twine(I) +
                      " without its candidate record");
        Out.State.recordBackendFailure(I, CandidateErrors[I]);
        continue;
      }
      auto K = Candidates.find(I);
      auto E = Evaluations.find(I);
      if (K == Candidates.end() || E == Evaluations.end())
        return Fail(R.Event + " of iteration " + Twine(I) +
                    " without its candidate and evaluation records");
      if (R.Data.getString("hash") != K->second.Hash)
        return Fail(R.Event + " of iteration " + Twine(I) +
                    ": hash differs from its candidate record's");
      Out.State.recordEvaluated(I, K->second, E->second, O);
      if (auto P = Profiles.find(I); P != Profiles.end()) {
        const json::Object *D = P->second->getObject("diagnosis");
        Out.State.recordProfile(
            I, D ? std::optional<json::Object>(*D) : std::nullopt,
            P->second->getString("error").value_or("").str());
      }
    } else if (R.Event == "dropout") {
      DropoutDue D;
      D.Trigger = R.Data.getString("trigger").value_or("stale").str();
      D.Stale = static_cast<unsigned>(getInteger(R.Data, "stale").value_or(0));
      if (const json::Array *Kinds = R.Data.getArray("kinds"))
        for (const json::Value &K : *Kinds)
          if (auto S = K.getAsString())
            D.Kinds.push_back(S->str());
      Out.State.dropout(I, D);
    }
  }
  if (!HaveStart)
    return createStringError(Path + ": no 'start' record");
  return Out;
}

Expected<TrailWriter> TrailWriter::open(StringRef Path) {
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(Path, EC, sys::fs::OF_Append);
  if (EC)
    return createStringError(EC, "cannot open '" + Path + "': " + EC.message());
  return TrailWriter(Path.str(), std::move(OS));
}

Error TrailWriter::write(StringRef Event, json::Object Data) {
  Data["schema"] = TrailSchema;
  Data["event"] = Event;
  *OS << json::Value(std::move(Data)) << "\n";
  OS->flush();
  if (OS->has_error())
    return createStringError(OS->error(), "cannot write '" + Path +
                                              "': " + OS->error().message());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

namespace {
struct Row {
  unsigned Iteration = 0;
  std::string Hash, Lint = "-", Gate = "-", Verdict = "-", Kind;
  std::optional<double> S, MedianUs;
  bool Accepted = false;
  std::optional<int64_t> TokensIn, TokensOut;
  std::string Note; ///< a dropout line, instead of a row
};
} // namespace

static std::string num(const std::optional<double> &V, const char *Fmt) {
  return V ? formatv(Fmt, *V).str() : "-";
}
static std::string tokens(const Row &R) {
  if (!R.TokensIn && !R.TokensOut)
    return "-";
  auto T = [](const std::optional<int64_t> &V) {
    return V ? std::to_string(*V) : std::string("-");
  };
  return T(R.TokensIn) + "/" + T(R.TokensOut);
}

static std::string html(StringRef S) {
  std::string Out;
  for (char C : S)
    switch (C) {
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '&':
      Out += "&amp;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  return Out;
}

/// The trajectory as one self-contained HTML page: S_i over the iterations
/// (a fraction of T_roofline: 1 is the roofline), the best so far as a step
/// line, dropouts as dashed lines, then the table.
static void printHTML(raw_ostream &OS, StringRef Title, bool Measured,
                      ArrayRef<Row> Rows, const std::optional<Row> &Best) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
     << html(Title) << "</title>\n<style>body{font-family:sans-serif;"
     << "margin:2em}table{border-collapse:collapse}td,th{border:1px solid "
     << "#ccc;padding:2px 8px;text-align:right}td.l{text-align:left}"
     << "tr.note td{background:#fff4d6;text-align:left}"
     << "tr.acc td{background:#e6f4e6}</style></head><body>\n<h2>"
     << html(Title) << "</h2>\n";
  if (!Measured)
    OS << "<p>not measured (--no-gate): no S_i, nothing accepted</p>\n";
  unsigned MaxIter = 0;
  double MaxS = 0;
  for (const Row &R : Rows)
    if (R.Note.empty()) {
      MaxIter = std::max(MaxIter, R.Iteration);
      MaxS = std::max(MaxS, R.S.value_or(0));
    }
  // The plot: x = iteration, y = S_i on [0, 1] (or the largest S_i when a
  // floor-free variant exceeds 1).
  const double W = 720, H = 300, L = 50, B = 30, T = 15, Rm = 15;
  double YMax = std::max(1.0, MaxS);
  auto X = [&](double I) {
    return L + (MaxIter ? I / MaxIter : 0.5) * (W - L - Rm);
  };
  auto Y = [&](double S) { return T + (1 - S / YMax) * (H - T - B); };
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" role=\"img\" aria-label=\"S_i over "
                "iterations\">\n",
                W, H);
  OS << formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                "stroke=\"#333\"/><line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" "
                "y2=\"{1}\" stroke=\"#333\"/>\n",
                L, Y(0), W - Rm, T);
  for (double S : {0.0, 0.25, 0.5, 0.75, 1.0})
    OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"end\">{2:F2}</text>\n",
                  L - 4, Y(S) + 4, S);
  OS << formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                "stroke=\"#c00\" stroke-dasharray=\"2,2\"/><text x=\"{2}\" "
                "y=\"{3}\" font-size=\"11\" fill=\"#c00\" "
                "text-anchor=\"end\">roofline (S_i = 1)</text>\n",
                L, Y(1), W - Rm, Y(1) - 3);
  for (unsigned I = 0; I <= MaxIter; I += std::max(1u, MaxIter / 10))
    OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>\n",
                  X(I), H - B + 14, I);
  OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                "text-anchor=\"middle\">iteration</text>\n",
                (L + W) / 2, H - 2);
  // Dropouts: after iteration I, drawn half-way to the next one.
  unsigned Prev = 0;
  for (const Row &R : Rows) {
    if (R.Note.empty()) {
      Prev = R.Iteration;
      continue;
    }
    if (!StringRef(R.Note).starts_with("dropout"))
      continue;
    OS << formatv("<line class=\"dropout\" x1=\"{0}\" y1=\"{1}\" "
                  "x2=\"{0}\" y2=\"{2}\" stroke=\"#e69500\" "
                  "stroke-dasharray=\"5,3\"><title>{3}</title></line>\n",
                  X(Prev + 0.5), T, Y(0), html(R.Note));
  }
  // The best so far (a step line), then every measured candidate.
  std::string Path;
  double BestS = -1;
  for (const Row &R : Rows)
    if (R.Note.empty() && R.Accepted && R.S) {
      if (BestS >= 0)
        Path += formatv(" L{0:F1},{1:F1}", X(R.Iteration), Y(BestS)).str();
      Path += formatv("{0}{1:F1},{2:F1}", BestS < 0 ? "M" : " L",
                      X(R.Iteration), Y(*R.S))
                  .str();
      BestS = *R.S;
    }
  if (BestS >= 0) {
    Path += formatv(" L{0:F1},{1:F1}", X(MaxIter), Y(BestS)).str();
    OS << "<path class=\"best\" d=\"" << Path
       << "\" fill=\"none\" stroke=\"#2a7\" stroke-width=\"2\"/>\n";
  }
  for (const Row &R : Rows)
    if (R.Note.empty() && R.S)
      OS << formatv("<circle class=\"{0}\" cx=\"{1:F1}\" cy=\"{2:F1}\" "
                    "r=\"4\" fill=\"{3}\" stroke=\"{4}\"><title>iteration "
                    "{5}: S_i {6:F4}, {7}</title></circle>\n",
                    R.Accepted ? "accepted" : "rejected", X(R.Iteration),
                    Y(*R.S), R.Accepted ? "#2a7" : "white",
                    R.Accepted ? "#2a7" : "#888", R.Iteration, *R.S,
                    R.Accepted ? std::string("accepted")
                               : "rejected: " + html(R.Kind));
  OS << "</svg>\n<p>S_i = min(1, T_roofline / T_measured), 0 unless the "
        "gate passed and both verdicts are adopted. Filled: accepted; "
        "hollow: rejected; green line: the best so far; dashed: optimization "
        "dropouts.</p>\n";
  OS << "<table>\n<tr><th>iter</th><th>S_i</th><th>median us</th><th>lint</th>"
        "<th>gate</th><th>verdict</th><th>accepted</th><th>kind</th><th>tokens "
        "in/out</th></tr>\n";
  for (const Row &R : Rows) {
    if (!R.Note.empty()) {
      OS << "<tr class=\"note\"><td colspan=\"9\">" << html(R.Note)
         << "</td></tr>\n";
      continue;
    }
    OS << "<tr" << (R.Accepted ? " class=\"acc\"" : "") << "><td>"
       << R.Iteration << "</td><td>" << num(R.S, "{0:F4}") << "</td><td>"
       << num(R.MedianUs, "{0:F2}") << "</td><td class=\"l\">" << html(R.Lint)
       << "</td><td class=\"l\">" << html(R.Gate) << "</td><td class=\"l\">"
       << html(R.Verdict) << "</td><td>" << (R.Accepted ? "yes" : "no")
       << "</td><td class=\"l\">" << html(R.Kind.empty() ? "-" : R.Kind)
       << "</td><td>" << tokens(R) << "</td></tr>\n";
  }
  OS << "</table>\n<p>";
  if (Best)
    OS << formatv("best: iteration {0}, S_i {1}, median {2} us, {3}",
                  Best->Iteration, num(Best->S, "{0:F4}"),
                  num(Best->MedianUs, "{0:F2}"), html(Best->Hash));
  else
    OS << "best: none accepted";
  OS << "</p>\n</body></html>\n";
}

Error writeReport(StringRef Path, ArrayRef<TrailRecord> Records,
                  StringRef Format, raw_ostream &OS) {
  if (Format != "text" && Format != "md" && Format != "html")
    return createStringError("--format must be text, md or html");
  std::optional<Problem> Prob;
  std::vector<Row> Rows;
  std::map<unsigned, Row> Open;
  unsigned Starts = 0, LastDone = 0;
  std::optional<Row> Best;
  bool Measured = true;
  for (const TrailRecord &R : Records) {
    unsigned I =
        static_cast<unsigned>(getInteger(R.Data, "iteration").value_or(0));
    if (R.Event == "start") {
      ++Starts;
      if (const json::Object *P = R.Data.getObject("problem")) {
        auto PP = problemFromJSON(*P);
        if (!PP)
          return createStringError(
              formatv("{0}:{1}: {2}", Path, R.Line, toString(PP.takeError()))
                  .str());
        Prob = std::move(*PP);
      }
      if (const json::Object *O = R.Data.getObject("options"))
        Measured = O->getBoolean("measured").value_or(true);
      if (Starts > 1) {
        Row N;
        N.Note = formatv("resumed after iteration {0}", LastDone).str();
        Rows.push_back(N);
      }
    } else if (R.Event == "candidate") {
      Row &W = Open[I] = Row();
      W.Iteration = I;
      W.Hash = R.Data.getString("hash").value_or("").str();
      if (auto T = getInteger(R.Data, "tokens_in"))
        W.TokensIn = *T;
      if (auto T = getInteger(R.Data, "tokens_out"))
        W.TokensOut = *T;
    } else if (R.Event == "evaluation") {
      Row &W = Open[I];
      W.Iteration = I;
      if (const json::Object *L = R.Data.getObject("lint"))
        W.Lint = L->getString("verdict").value_or("-").str();
      if (const json::Object *G = R.Data.getObject("gate")) {
        if (G->getBoolean("measured").value_or(false)) {
          W.Gate = G->getString("status").value_or("-").str();
          W.Verdict = G->getString("verdict").value_or("-").str();
          if (auto M = G->getNumber("median_us"))
            W.MedianUs = *M;
        } else {
          W.Gate = "not run";
        }
      }
      if (auto S = R.Data.getNumber("s"))
        W.S = *S;
    } else if (R.Event == "accept" || R.Event == "reject") {
      Row W = Open[I];
      W.Iteration = I;
      W.Accepted = R.Event == "accept";
      LastDone = I;
      W.Kind = R.Data.getString("kind").value_or("").str();
      Open.erase(I);
      if (W.Accepted)
        Best = W;
      Rows.push_back(W);
    } else if (R.Event == "dropout") {
      Row N;
      N.Note = formatv("dropout after iteration {0} ({1}: {2} without "
                       "improvement)",
                       I, R.Data.getString("trigger").value_or("stale"),
                       getInteger(R.Data, "stale").value_or(0))
                   .str();
      Rows.push_back(N);
    }
  }
  if (!Prob)
    return createStringError(Path + ": no 'start' record");
  bool Md = Format == "md";
  std::string Title =
      formatv("atrex agent: {0} {1} ({2}) on {3}, T_roofline {4:F3} us ({5})",
              Prob->Operator, Prob->Id, shapeText(Prob->Shape), Prob->Gpu,
              Prob->TRooflineS * 1e6, Prob->Ceiling)
          .str();
  if (Format == "html") {
    printHTML(OS, Title, Measured, Rows, Best);
    return Error::success();
  }
  OS << (Md ? "## " : "") << Title << "\n\n";
  if (!Measured)
    OS << "not measured (--no-gate): no S_i, nothing "
       << "accepted\n\n";
  const char *Head[] = {"iter",     "S_i",  "median_us",
                        "lint",     "gate", "verdict",
                        "accepted", "kind", "tokens in/out"};
  if (Md) {
    OS << "|";
    for (const char *H : Head)
      OS << " " << H << " |";
    OS << "\n|";
    for (size_t I = 0; I < std::size(Head); ++I)
      OS << "---|";
    OS << "\n";
  } else {
    OS << formatv("{0,4} {1,8} {2,11} {3,-10} {4,-7} {5,-10} {6,-8} {7,-13} "
                  "{8}\n",
                  Head[0], Head[1], Head[2], Head[3], Head[4], Head[5], Head[6],
                  Head[7], Head[8]);
  }
  for (const Row &R : Rows) {
    if (!R.Note.empty()) {
      if (Md)
        OS << "| **" << R.Note << "** |||||||||\n";
      else
        OS << "  -- " << R.Note << " --\n";
      continue;
    }
    std::string S = num(R.S, "{0:F4}"), M = num(R.MedianUs, "{0:F2}");
    std::string Acc = R.Accepted ? "yes" : "no";
    std::string Kind = R.Kind.empty() ? "-" : R.Kind;
    if (Md)
      OS << "| " << R.Iteration << " | " << S << " | " << M << " | " << R.Lint
         << " | " << R.Gate << " | " << R.Verdict << " | " << Acc << " | "
         << Kind << " | " << tokens(R) << " |\n";
    else
      OS << formatv("{0,4} {1,8} {2,11} {3,-10} {4,-7} {5,-10} {6,-8} {7,-13} "
                    "{8}\n",
                    R.Iteration, S, M, R.Lint, R.Gate, R.Verdict, Acc, Kind,
                    tokens(R));
  }
  OS << "\n";
  if (Best)
    OS << formatv("best: iteration {0}, S_i {1}, median {2} us, {3}\n",
                  Best->Iteration, num(Best->S, "{0:F4}"),
                  num(Best->MedianUs, "{0:F2}"), Best->Hash);
  else
    OS << "best: none accepted\n";
  return Error::success();
}

} // namespace atrex::agent

//===- HTML.cpp - the self-contained HTML score report --------------------===//
//
// Part of atrex. One file, no external resources: inline CSS, an inline SVG
// roofline plot (log-log, arithmetic intensity against achieved FLOP/s, the
// GPU's datasheet and measured ceilings, one point per (set, problem)
// coloured by verdict), the leaderboard and per-operator tables, and a small
// script for tooltips and set toggles. The page records script errors in
// `data-atrex-errors` on <html> and sets `data-atrex-ready` on <body> when
// its script has run, for headless checks (docs/reports.md).
//
//===----------------------------------------------------------------------===//

#include "ReportUtil.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Score/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace protocol = atrex::rt::protocol;

using namespace llvm;
using namespace atrex::score;
using namespace atrex::score::rep;

StringRef atrex::score::verdictColor(StringRef Verdict) {
  if (Verdict == protocol::kAdopted)
    return "#1a9641";
  if (Verdict == protocol::kFallback)
    return "#e66101";
  if (Verdict == protocol::kNoKernel)
    return "#5e3c99";
  if (Verdict == protocol::kSuspicious)
    return "#d7191c";
  return "#808080";
}

static const auto &VerdictOrder = protocol::kVerdicts;
static const char *const DatasheetColor = "#9e9e9e";
static const char *const MeasuredColor = "#1f4e79";

static std::string esc(StringRef S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// 1.2e12 -> "1.2 T" (FLOP/s and FLOP/byte labels).
static std::string si(double V) {
  static const struct {
    double Scale;
    const char *Suffix;
  } Units[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  char Buf[48];
  for (const auto &U : Units)
    if (V >= U.Scale) {
      snprintf(Buf, sizeof(Buf), "%.3g %s", V / U.Scale, U.Suffix);
      return Buf;
    }
  snprintf(Buf, sizeof(Buf), "%.3g", V);
  return Buf;
}

static std::string tick(double V) {
  if (V >= 1000 || V < 0.01)
    return si(V);
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

static std::string fmt(double V, int Digits = 1) {
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.*f", Digits, V);
  return Buf;
}

namespace {
/// Maps log10 data coordinates to the SVG plot area.
struct Axes {
  double X0, Y0, W, H;       // plot area in pixels
  double LX0, LX1, LY0, LY1; // log10 ranges
  double x(double V) const {
    return X0 + (std::log10(V) - LX0) / (LX1 - LX0) * W;
  }
  double y(double V) const {
    return Y0 + H - (std::log10(V) - LY0) / (LY1 - LY0) * H;
  }
};

/// A horizontal compute ceiling: one value, the engine/dtype pairs that
/// have it.
struct CeilingLine {
  double FlopS;
  std::string Label;
};
} // namespace

static std::vector<CeilingLine> ceilingLines(const Ceilings &C) {
  std::map<double, std::vector<std::string>, std::greater<double>> ByValue;
  for (const Peak &P : C.Peaks)
    ByValue[P.Tflops].push_back(P.Dtype + " " + P.Engine);
  std::vector<CeilingLine> Out;
  for (const auto &[T, Names] : ByValue)
    Out.push_back({T * 1e12, join(Names, ", ") + " " + fmt(T, 0) + " TF/s"});
  return Out;
}

static std::string marker(size_t SetIndex, double X, double Y,
                          StringRef Color) {
  const double R = 5;
  switch (SetIndex % 4) {
  case 0:
    return formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"{2}\" "
                   "fill=\"{3}\"",
                   X, Y, R, Color)
        .str();
  case 1:
    return formatv("<rect x=\"{0:F1}\" y=\"{1:F1}\" width=\"{2}\" "
                   "height=\"{2}\" fill=\"{3}\"",
                   X - R, Y - R, 2 * R, Color)
        .str();
  case 2:
    return formatv("<polygon points=\"{0:F1},{1:F1} {2:F1},{3:F1} "
                   "{4:F1},{3:F1}\" fill=\"{5}\"",
                   X, Y - R * 1.3, X - R * 1.2, Y + R, X + R * 1.2, Color)
        .str();
  default:
    return formatv("<polygon points=\"{0:F1},{1:F1} {2:F1},{3:F1} "
                   "{0:F1},{4:F1} {5:F1},{3:F1}\" fill=\"{6}\"",
                   X, Y - R * 1.4, X + R * 1.4, Y, Y + R * 1.4, X - R * 1.4,
                   Color)
        .str();
  }
}

static const char *const MarkerNames[] = {"circle", "square", "triangle",
                                          "diamond"};

static void printPlot(raw_ostream &OS, const ScoreReport &R) {
  const Hardware &Hw = R.GpuInfo;
  std::vector<std::pair<const Ceilings *, bool>> Sets = {
      {&Hw.Datasheet, false}};
  if (Hw.Measured)
    Sets.push_back({&*Hw.Measured, true});

  // Data ranges: every problem's intensity, every achieved FLOP/s, the
  // ceilings and their ridge points.
  double XMin = 1e300, XMax = 0, YMin = 1e300, YMax = 0;
  for (const SuiteProblem &P : R.Problems) {
    double I = P.Rooflines.at(R.Gpu).Intensity;
    if (I > 0) {
      XMin = std::min(XMin, I);
      XMax = std::max(XMax, I);
    }
  }
  unsigned Unplotted = 0;
  for (const SetScore &S : R.Sets)
    for (const ProblemScore &P : S.Problems) {
      if (P.AchievedFlops && P.Roof->Intensity > 0) {
        YMin = std::min(YMin, *P.AchievedFlops);
        YMax = std::max(YMax, *P.AchievedFlops);
      } else if (P.Result) {
        ++Unplotted;
      }
    }
  for (auto [C, Measured] : Sets) {
    double Bw = C->HbmTbps * 1e12;
    for (const Peak &P : C->Peaks) {
      YMax = std::max(YMax, P.Tflops * 1e12);
      XMax = std::max(XMax, P.Tflops * 1e12 / Bw);
    }
  }
  if (XMax == 0) {
    XMin = 0.1;
    XMax = 1000;
  }
  XMin = std::min(XMin, XMax / 10);
  double MinBw = Hw.Datasheet.HbmTbps * 1e12;
  if (Hw.Measured)
    MinBw = std::min(MinBw, Hw.Measured->HbmTbps * 1e12);
  YMin = std::min(YMin, MinBw * XMin);
  if (YMax == 0)
    YMax = YMin * 1000;

  const double Width = 1040, Height = 560;
  Axes A{80,
         20,
         640,
         480,
         std::floor(std::log10(XMin)),
         std::ceil(std::log10(XMax * 1.5)),
         std::floor(std::log10(YMin)),
         std::ceil(std::log10(YMax * 1.5))};
  auto inside = [&](double Y) { return Y >= A.Y0 && Y <= A.Y0 + A.H; };

  OS << formatv("<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" "
                "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                "role=\"img\" aria-label=\"roofline plot\">\n",
                Width, Height);
  OS << formatv("<rect id=\"plot-area\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                "height=\"{3}\" fill=\"#ffffff\" stroke=\"#333333\"/>\n",
                A.X0, A.Y0, A.W, A.H);
  OS << formatv("<clipPath id=\"clip\"><rect x=\"{0}\" y=\"{1}\" "
                "width=\"{2}\" height=\"{3}\"/></clipPath>\n",
                A.X0, A.Y0, A.W, A.H);
  // Decade grid and ticks.
  for (double E = A.LX0; E <= A.LX1; ++E) {
    double X = A.x(std::pow(10, E));
    OS << formatv("<line x1=\"{0:F1}\" y1=\"{1}\" x2=\"{0:F1}\" y2=\"{2}\" "
                  "stroke=\"#e6e6e6\"/>"
                  "<text x=\"{0:F1}\" y=\"{3}\" class=\"tick\" "
                  "text-anchor=\"middle\">{4}</text>\n",
                  X, A.Y0, A.Y0 + A.H, A.Y0 + A.H + 16,
                  esc(tick(std::pow(10, E))));
  }
  for (double E = A.LY0; E <= A.LY1; ++E) {
    double Y = A.y(std::pow(10, E));
    OS << formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" y2=\"{1:F1}\" "
                  "stroke=\"#e6e6e6\"/>"
                  "<text x=\"{3}\" y=\"{4:F1}\" class=\"tick\" "
                  "text-anchor=\"end\">{5}</text>\n",
                  A.X0, Y, A.X0 + A.W, A.X0 - 6, Y + 4,
                  esc(si(std::pow(10, E))));
  }
  OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                "class=\"axis\">arithmetic intensity (FLOP/byte)</text>\n",
                A.X0 + A.W / 2, A.Y0 + A.H + 40);
  OS << formatv("<text transform=\"translate(18,{0}) rotate(-90)\" "
                "text-anchor=\"middle\" class=\"axis\">achieved FLOP/s "
                "(FLOPs / T_measured)</text>\n",
                A.Y0 + A.H / 2);

  // Ceilings: memory diagonal up to the highest compute ceiling, each
  // compute ceiling from its ridge point to the right edge.
  OS << "<g clip-path=\"url(#clip)\" class=\"ceilings\">\n";
  double XEnd = std::pow(10, A.LX1), XBegin = std::pow(10, A.LX0);
  std::vector<std::pair<double, std::string>> Labels;
  for (auto [C, Measured] : Sets) {
    StringRef Color = Measured ? MeasuredColor : DatasheetColor;
    StringRef Dash = Measured ? "" : " stroke-dasharray=\"6 4\"";
    StringRef Kind = Measured ? "measured" : "datasheet";
    double Bw = C->HbmTbps * 1e12;
    std::vector<CeilingLine> Lines = ceilingLines(*C);
    double Top = Lines.empty() ? std::pow(10, A.LY1) : Lines.front().FlopS;
    OS << formatv("<line class=\"ceiling\" x1=\"{0:F1}\" y1=\"{1:F1}\" "
                  "x2=\"{2:F1}\" y2=\"{3:F1}\" stroke=\"{4}\" "
                  "stroke-width=\"2\"{5}><title>{6} memory ceiling: {7} "
                  "TB/s</title></line>\n",
                  A.x(XBegin), A.y(Bw * XBegin), A.x(Top / Bw), A.y(Top), Color,
                  Dash, Kind, fmt(C->HbmTbps, 2));
    for (const CeilingLine &L : Lines) {
      double Y = A.y(L.FlopS);
      OS << formatv("<line class=\"ceiling\" x1=\"{0:F1}\" y1=\"{1:F1}\" "
                    "x2=\"{2:F1}\" y2=\"{1:F1}\" stroke=\"{3}\" "
                    "stroke-width=\"1.5\"{4}><title>{5} {6}</title></line>\n",
                    A.x(L.FlopS / Bw), Y, A.x(XEnd), Color, Dash, Kind,
                    esc(L.Label));
      if (inside(Y))
        Labels.push_back({Y, (Kind + ": " + L.Label).str()});
    }
  }
  OS << "</g>\n";
  // Ceiling labels in the right margin, pushed apart so they do not overlap.
  llvm::sort(Labels);
  double Last = -1e9;
  for (auto &[Y, Text] : Labels) {
    double LY = std::max(Y + 4, Last + 12);
    Last = LY;
    bool Measured = StringRef(Text).starts_with("measured");
    OS << formatv("<text x=\"{0}\" y=\"{1:F1}\" class=\"clabel\" "
                  "fill=\"{2}\">{3}</text>\n",
                  A.X0 + A.W + 6, LY, Measured ? MeasuredColor : DatasheetColor,
                  esc(Text));
  }

  // Points.
  OS << "<g clip-path=\"url(#clip)\" class=\"points\">\n";
  for (size_t SI = 0; SI < R.Sets.size(); ++SI) {
    const SetScore &S = R.Sets[SI];
    for (const ProblemScore &P : S.Problems) {
      if (!P.AchievedFlops || P.Roof->Intensity <= 0)
        continue;
      StringRef Verdict = P.Result->Verdict;
      if (P.Suspicious)
        Verdict = protocol::kSuspicious;
      std::string Tip = formatv(
          "{0} / {1} ({2}, {3}): verdict {4}, S = {5}, T_measured {6} us, "
          "T_roofline {7} us, {8} FLOP/s at {9} FLOP/byte{10}",
          S.Name, P.Problem->Id, P.Problem->Operator, P.Problem->Phase, Verdict,
          num(P.S), us(P.TMeasuredS), us(P.Roof->TRooflineS),
          si(*P.AchievedFlops), tick(P.Roof->Intensity),
          P.ZeroDetail.empty() ? "" : "; " + P.ZeroDetail);
      OS << marker(SI, A.x(P.Roof->Intensity), A.y(*P.AchievedFlops),
                   verdictColor(Verdict))
         << formatv(" class=\"pt\" stroke=\"#000000\" stroke-width=\"0.6\" "
                    "data-set=\"{0}\" data-verdict=\"{1}\" data-tip=\"{2}\">"
                    "<title>{2}</title></",
                    SI, Verdict, esc(Tip))
         << (SI % 4 == 0   ? "circle"
             : SI % 4 == 1 ? "rect"
                           : "polygon")
         << ">\n";
    }
  }
  OS << "</g>\n</svg>\n";

  // Legend (HTML, outside the plot area).
  OS << "<div class=\"legend\" id=\"legend\"><span class=\"lt\">verdict:"
        "</span>";
  for (const char *V : VerdictOrder)
    OS << "<span class=\"sw\" style=\"background:" << verdictColor(V)
       << "\"></span>" << V << " ";
  OS << "<br><span class=\"lt\">ceilings:</span><span class=\"ln\" "
        "style=\"border-top:2px dashed "
     << DatasheetColor << "\"></span>datasheet ("
     << fmt(Hw.Datasheet.HbmTbps, 2) << " TB/s)";
  if (Hw.Measured)
    OS << " <span class=\"ln\" style=\"border-top:2px solid " << MeasuredColor
       << "\"></span>measured (" << fmt(Hw.Measured->HbmTbps, 2) << " TB/s)";
  OS << "<br><span class=\"lt\">sets:</span>";
  for (size_t SI = 0; SI < R.Sets.size(); ++SI)
    OS << "<label><input type=\"checkbox\" class=\"set-toggle\" checked "
          "data-set=\""
       << SI << "\"> " << esc(R.Sets[SI].Name) << " (" << MarkerNames[SI % 4]
       << (R.Sets[SI].Baseline ? ", " : "")
       << (R.Sets[SI].Baseline ? BaselineLabel : "") << ")</label> ";
  OS << "</div>\n";
  if (Unplotted)
    OS << "<p class=\"note\">" << Unplotted
       << " result(s) without a time (failed before timing) are not "
          "plotted; problems without a result are listed per set.</p>\n";
}

static void printHTMLTable(raw_ostream &OS, const Table &T, StringRef Id = "") {
  OS << "<table" << (Id.empty() ? "" : " id=\"" + esc(Id) + "\"") << ">\n<tr>";
  for (const std::string &H : T.Header)
    OS << "<th>" << esc(H) << "</th>";
  OS << "</tr>\n";
  for (const auto &Row : T.Rows) {
    OS << "<tr>";
    for (size_t C = 0; C < Row.size(); ++C)
      OS << (T.Numeric[C] ? "<td class=\"n\">" : "<td>") << esc(Row[C])
         << "</td>";
    OS << "</tr>\n";
  }
  OS << "</table>\n";
}

static const char *const Style = R"css(
body { font-family: sans-serif; margin: 16px 24px; color: #222222; background: #ffffff; }
h1 { font-size: 20px; margin: 0 0 6px 0; }
h2 { font-size: 17px; margin: 22px 0 8px 0; }
h3 { font-size: 15px; margin: 16px 0 6px 0; }
.meta { font-size: 13px; color: #444444; margin: 2px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
th, td { border: 1px solid #cccccc; padding: 3px 7px; text-align: left; }
th { background: #f0f0f0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.baseline { background: #fff4e0; }
.tag { border: 1px solid #e66101; color: #a04000; border-radius: 3px; padding: 0 4px; font-size: 12px; }
svg text.tick { font-size: 11px; fill: #444444; }
svg text.axis { font-size: 13px; fill: #222222; }
svg text.clabel { font-size: 10px; }
.legend { font-size: 13px; margin: 4px 0 0 80px; line-height: 1.8; }
.legend .lt { font-weight: bold; margin-right: 6px; }
.legend .sw { display: inline-block; width: 11px; height: 11px; border: 1px solid #000000; margin: 0 4px 0 8px; vertical-align: middle; }
.legend .ln { display: inline-block; width: 26px; height: 0; margin: 0 4px 0 8px; vertical-align: middle; }
.note { font-size: 12px; color: #555555; }
#tip { position: fixed; display: none; background: #ffffe8; border: 1px solid #888888; padding: 4px 6px; font-size: 12px; max-width: 480px; pointer-events: none; }
#atrex-errors { color: #b00000; }
details { margin: 6px 0; }
)css";

static const char *const HeadScript = R"js(
window.atrexErrors = [];
function atrexReportErrors() {
  document.documentElement.setAttribute('data-atrex-errors', String(window.atrexErrors.length));
  var el = document.getElementById('atrex-errors');
  if (el) el.textContent = window.atrexErrors.join('\n');
}
window.addEventListener('error', function (e) {
  window.atrexErrors.push(String(e.message || e.type) + (e.lineno ? ' (line ' + e.lineno + ')' : ''));
  atrexReportErrors();
});
document.addEventListener('DOMContentLoaded', atrexReportErrors);
)js";

static const char *const BodyScript = R"js(
(function () {
  var tip = document.getElementById('tip');
  var points = document.querySelectorAll('#roofline .pt');
  for (var i = 0; i < points.length; i++) {
    points[i].addEventListener('mousemove', function (e) {
      tip.textContent = this.getAttribute('data-tip');
      tip.style.left = (e.clientX + 12) + 'px';
      tip.style.top = (e.clientY + 12) + 'px';
      tip.style.display = 'block';
    });
    points[i].addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  }
  var boxes = document.querySelectorAll('input.set-toggle');
  for (var j = 0; j < boxes.length; j++) {
    boxes[j].addEventListener('change', function () {
      var set = this.getAttribute('data-set');
      var show = this.checked;
      var ps = document.querySelectorAll('#roofline .pt[data-set="' + set + '"]');
      for (var k = 0; k < ps.length; k++) ps[k].style.display = show ? '' : 'none';
    });
  }
  var area = document.getElementById('plot-area').getBoundingClientRect();
  document.body.setAttribute('data-plot-rect', [Math.round(area.left + window.scrollX), Math.round(area.top + window.scrollY), Math.round(area.width), Math.round(area.height)].join(','));
  document.body.setAttribute('data-points', String(points.length));
  atrexReportErrors();
  document.body.setAttribute('data-atrex-ready', '1');
})();
)js";

void atrex::score::printHTML(raw_ostream &OS, const ScoreReport &R) {
  std::string Title =
      "atrex score: " + (R.Suite.empty() ? "-" : R.Suite) + " on " + R.Gpu;
  OS << "<!DOCTYPE html>\n<html lang=\"en\" data-atrex-errors=\"0\">\n<head>\n"
        "<meta charset=\"utf-8\">\n<title>"
     << esc(Title) << "</title>\n<style>" << Style << "</style>\n<script>"
     << HeadScript << "</script>\n</head>\n<body>\n";
  OS << "<h1>" << esc(Title) << "</h1>\n";
  OS << "<p class=\"meta\">" << R.Problems.size() << " problems; GPU "
     << esc(gpuLine(R)) << "</p>\n";
  if (R.Scope == "measured")
    OS << "<p class=\"meta scope\">scope: " << esc(scopeLine(R)) << "</p>\n";
  OS << "<p class=\"meta\">sealed bundle <code>" << esc(R.SealedPath)
     << "</code> " << esc(commitmentLine(R)) << "</p>\n";
  OS << "<p class=\"meta\">weights <code>" << esc(R.WeightsPath) << "</code>"
     << (R.WeightsSource.empty() ? "" : " (" + esc(R.WeightsSource) + ")")
     << "</p>\n";
  OS << "<pre id=\"atrex-errors\"></pre>\n";

  OS << "<h2>Roofline</h2>\n";
  printPlot(OS, R);

  OS << "<h2>Leaderboard</h2>\n";
  Table L = leaderboard(R);
  OS << "<table id=\"leaderboard\">\n<tr>";
  for (const std::string &H : L.Header)
    OS << "<th>" << esc(H) << "</th>";
  OS << "</tr>\n";
  for (size_t I = 0; I < L.Rows.size(); ++I) {
    bool Baseline = R.Sets[I].Baseline;
    OS << (Baseline ? "<tr class=\"baseline\">" : "<tr>");
    for (size_t C = 0; C < L.Rows[I].size(); ++C) {
      OS << (L.Numeric[C] ? "<td class=\"n\">" : "<td>");
      if (C == 1 && Baseline)
        OS << "<span class=\"tag\">" << esc(L.Rows[I][C]) << "</span>";
      else
        OS << esc(L.Rows[I][C]);
      OS << "</td>";
    }
    OS << "</tr>\n";
  }
  OS << "</table>\n";
  OS << "<p class=\"note\">S_agg = sum of w_i S_i with the weights normalised "
        "over the suite (prefill, decode, memory- and compute-bound: "
        "renormalised within the part); adoption: static (atrex-lint), "
        "dynamic (atrex-gate), both. Sets marked "
     << esc(BaselineLabel)
     << " keep their fallback and no-kernel results. Definitions: "
        "docs/scoring.md.</p>\n";

  if (R.Sets.size() > 1) {
    OS << "<h2>Operators across sets</h2>\n";
    printHTMLTable(OS, operatorComparison(R), "operators");
  }
  for (const SetScore &S : R.Sets) {
    OS << "<h2>Set " << esc(S.Name) << " ";
    if (S.Baseline)
      OS << "<span class=\"tag\">" << esc(BaselineLabel) << "</span>";
    else
      OS << "(strict)";
    OS << "</h2>\n<p class=\"meta\">" << S.Results << " of "
       << S.Problems.size() << " problems have results, " << S.Scored
       << " scored above 0, " << S.Suspicious << " suspicious; results "
       << esc(join(S.ResultFiles, ", "));
    if (!S.LintFile.empty())
      OS << "; lint " << esc(S.LintFile);
    if (!S.FilledFrom.empty())
      OS << "; " << S.Filled << " problem(s) without a result take set "
         << esc(S.FilledFrom) << "'s results (--fill)";
    OS << "</p>\n";
    printHTMLTable(OS, regimeTable(S));
    OS << "<h3>Operators</h3>\n";
    printHTMLTable(OS, operatorTable(S));
    OS << "<details><summary>Problems (" << S.Problems.size()
       << ")</summary>\n";
    printHTMLTable(OS, problemTable(S));
    OS << "</details>\n";
    if (!S.Missing.empty())
      OS << "<p class=\"note\">missing (" << S.Missing.size()
         << "): " << esc(join(S.Missing, ", ")) << "</p>\n";
  }
  if (!R.Warnings.empty()) {
    OS << "<h2>Warnings</h2>\n<ul>\n";
    for (const std::string &W : R.Warnings)
      OS << "<li>" << esc(W) << "</li>\n";
    OS << "</ul>\n";
  }
  if (!R.InputErrors.empty()) {
    OS << "<h2>Input errors</h2>\n<p class=\"note\">These lines were not "
          "scored.</p>\n<ul>\n";
    for (const std::string &E : R.InputErrors)
      OS << "<li>" << esc(E) << "</li>\n";
    OS << "</ul>\n";
  }
  OS << "<div id=\"tip\"></div>\n<script>" << BodyScript
     << "</script>\n</body>\n</html>\n";
}

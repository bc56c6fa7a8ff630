//===- GateRun.cpp - The gate parent's decisions about a unit -------------===//
#include "atrex-rt/GateRun.h"

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

namespace atrex::rt {

std::string unitKey(int64_t index, const std::string &submission, const std::string &problem) {
  return std::to_string(index) + "\x1f" + submission + "\x1f" + problem;
}

std::set<std::string> completedUnits(const std::string &path, std::vector<std::string> &warnings) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read '" + path + "'");
  std::set<std::string> done;
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.empty())
      continue;
    Json r;
    try {
      r = Json::parse(line, path + ":" + std::to_string(lineNo));
    } catch (const std::exception &e) {
      // A torn line (a run killed while writing): its unit runs again.
      warnings.push_back(std::string("ignoring ") + e.what());
      continue;
    }
    const Json *sub = r.get("submission"), *prob = r.get("problem");
    if (!sub || !prob || !r.has("unit"))
      throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": not an atrex-gate result");
    if (r.getString("status", "error") == "error")
      continue;
    done.insert(unitKey(r.getInt("unit", -1), sub->getString("name", ""), prob->getString("id", "")));
  }
  return done;
}

bool lastReportLine(const std::string &bytes, Json &report) {
  bool have = false;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    if (nl == std::string::npos)
      break;
    try {
      Json j = Json::parse(bytes.substr(pos, nl - pos), "worker report");
      if (j.isObject()) {
        report = std::move(j);
        have = true;
      }
    } catch (const std::exception &) {
    }
    pos = nl + 1;
  }
  return have;
}

Outcome outcomeOf(const WorkerRun &run) {
  const ChildResult &child = run.child;
  const Json &rep = run.report;
  bool haveReport = run.haveReport, gateTimedOut = run.gateTimedOut;
  Outcome o;
  o.stage = haveReport ? rep.getString("stage", "setup") : "setup";
  if (haveReport && rep.has("status") && child.succeeded()) {
    o.status = rep.getString("status", "error");
    o.reason = rep.getString("reason", "");
  } else if (haveReport && rep.has("status") && child.end == ChildResult::End::Exited) {
    o.status = rep.getString("status", "error");
    o.reason = rep.getString("reason", "") + (rep.has("reason") ? "" : child.reason());
  } else if (child.end == ChildResult::End::SpawnFailed) {
    o.status = "error";
    o.reason = "setup: " + child.reason();
  } else if (gateTimedOut) {
    // Killed while the gate itself (reference, comparisons) was working.
    o.status = "error";
    o.reason = o.stage + ": " + child.reason() +
               " in the gate's own work (reference and checks), not the submission's: "
               "raise settings.problem_s";
  } else {
    o.status = "fail";
    o.reason = o.stage + ": " + child.reason();
  }
  return o;
}

// The time of a passing unit comes from a second run of the worker without
// the Compute Sanitizer subscription, which slows memory-bound kernels by
// 1-4% (bench/results/gate-2026-11-29/run5, run6): the attributed run decides
// the verdict, the clean run gives the time. Its median is taken only within
// `clean_timing_tolerance` of the attributed one, so a submission that
// behaves differently when not observed gains at most that much; never with
// side streams (without launch callbacks the gate cannot see them).
Outcome applyCleanTiming(Json &r, const PlanSettings &settings,
                         const std::function<WorkerRun()> &runClean) {
  Json *perf = r.get("performance");
  const Json *attribution = r.get("attribution");
  if (!perf || !attribution || !attribution->getBool("available", false))
    return {};
  Json clean = Json::object();
  if (perf->getInt("side_stream_reps", 0) > 0 || !perf->getBool("launch_gap_hidden", true)) {
    clean.set("used", false);
    clean.set("why", "the call uses side streams");
    perf->set("clean_run", clean);
    return {};
  }
  WorkerRun run = runClean();
  Outcome out = outcomeOf(run);
  const Json *cperf = run.haveReport ? run.report.get("performance") : nullptr;
  double attributed = perf->getDouble("median_us", 0);
  clean.set("child", run.child.toJson());
  if (out.status != "pass" || !cperf) {
    // The attributed time stands (an overestimate, never an underestimate).
    clean.set("used", false);
    clean.set("why", ("the clean run did not pass: " + out.status + " at " + out.stage + ": " +
                      out.reason).substr(0, 600));
    perf->set("clean_run", clean);
    if (out.status == "fail")
      return out;
    return {};
  }
  double cm = cperf->getDouble("median_us", 0);
  clean.set("median_us", cm);
  clean.set("p10_us", cperf->getDouble("p10_us", 0));
  clean.set("p90_us", cperf->getDouble("p90_us", 0));
  clean.set("reps", cperf->getInt("reps", 0));
  clean.set("mode", cperf->getString("mode", ""));
  double ratio = attributed > 0 ? cm / attributed : 0;
  clean.set("ratio_to_attributed", ratio);
  double tol = settings.cleanTimingTolerance;
  if (ratio < 1 - tol || ratio > 1 + tol) {
    clean.set("used", false);
    char why[160];
    std::snprintf(why, sizeof(why), "the clean median is %.3gx the attributed one, outside 1 +- %.3g",
                  ratio, tol);
    clean.set("why", why);
    perf->set("clean_run", clean);
    return {};
  }
  clean.set("used", true);
  Json att = Json::object();
  for (const char *k : {"median_us", "p10_us", "p90_us", "min_us", "reps", "median_rel_err", "mode"})
    if (const Json *v = perf->get(k))
      att.set(k, *v);
  perf->set("attributed", att);
  for (const char *k : {"median_us", "p10_us", "p90_us", "min_us", "reps", "median_rel_err", "mode"})
    if (const Json *v = cperf->get(k))
      perf->set(k, *v);
  perf->set("clean_run", clean);
  return {};
}

void appendResultLine(const std::string &path, const std::string &line) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot open results file '" + path + "'");
  flock(fd, LOCK_EX);
  std::string l = line + "\n";
  // After a torn last line (a killed run), start on a line of our own.
  char last = '\n';
  off_t size = lseek(fd, 0, SEEK_END);
  if (size > 0 && pread(fd, &last, 1, size - 1) == 1 && last != '\n')
    l = "\n" + l;
  ssize_t n = write(fd, l.data(), l.size());
  flock(fd, LOCK_UN);
  close(fd);
  if (n != static_cast<ssize_t>(l.size()))
    throw std::runtime_error("short write to results file '" + path + "'");
}

} // namespace atrex::rt

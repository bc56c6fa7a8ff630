//===- GateRun.cpp - The gate parent's decisions about a unit -------------===//
#include "atrex-rt/GateRun.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <random>
#include <sys/file.h>
#include <unistd.h>
#include <vector>

namespace atrex::rt {

std::string unitKey(int64_t index, const std::string &submission,
                    const std::string &problem) {
  return std::to_string(index) + "\x1f" + submission + "\x1f" + problem;
}

std::string unitKey(const Unit &unit) {
  return unitKey(static_cast<int64_t>(unit.index), unit.submission->name,
                 unit.problem->id);
}

std::string unitKey(const Json &r) {
  return unitKey(r.getInt("unit", -1),
                 r.get("submission")->getString("name", ""),
                 r.get("problem")->getString("id", ""));
}

ResultFile readResultFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read '" + path + "'");
  ResultFile file;
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.empty())
      continue;
    ResultLine rl;
    rl.line = lineNo;
    rl.text = line;
    try {
      rl.result = Json::parse(line, path + ":" + std::to_string(lineNo));
    } catch (const std::exception &e) {
      // A torn line (a run killed while writing): its unit runs again.
      rl.error = e.what();
      file.torn.push_back(std::move(rl));
      continue;
    }
    const Json &r = rl.result;
    const Json *sub = r.isObject() ? r.get("submission") : nullptr;
    const Json *prob = r.isObject() ? r.get("problem") : nullptr;
    if (!sub || !prob || !r.has("unit") || !sub->isObject() ||
        !prob->isObject())
      throw std::runtime_error(path + ":" + std::to_string(lineNo) +
                               ": not an atrex-gate result");
    file.results.push_back(std::move(rl));
  }
  return file;
}

bool isFinalResult(const Json &r) {
  return r.getString("status", protocol::kError) != protocol::kError;
}

std::set<std::string> completedUnits(const std::string &path,
                                     std::vector<std::string> &warnings) {
  ResultFile file = readResultFile(path);
  for (const ResultLine &t : file.torn)
    warnings.push_back("ignoring " + t.error);
  std::set<std::string> done;
  for (const ResultLine &rl : file.results)
    if (isFinalResult(rl.result))
      done.insert(unitKey(rl.result));
  return done;
}

bool lastReportLine(const std::string &bytes, Json &report,
                    const std::string &key, int *forged) {
  bool have = false;
  size_t pos = 0;
  std::string prefix = key.empty() ? "" : key + " ";
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    if (nl == std::string::npos)
      break;
    std::string line = bytes.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty())
      continue;
    if (!prefix.empty()) {
      if (line.compare(0, prefix.size(), prefix) != 0) {
        if (forged)
          ++*forged;
        continue;
      }
      line.erase(0, prefix.size());
    }
    try {
      Json j = Json::parse(line, "worker report");
      if (j.isObject()) {
        report = std::move(j);
        have = true;
      }
    } catch (const std::exception &) {
    }
  }
  return have;
}

uint64_t sipHash24(uint64_t k0, uint64_t k1, const void *data, size_t size) {
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  const unsigned char *p = static_cast<const unsigned char *>(data);
  size_t full = size / 8 * 8;
  for (size_t i = 0; i < full; i += 8) {
    uint64_t m = 0;
    for (int b = 7; b >= 0; --b)
      m = (m << 8) | p[i + b];
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(size & 0xff) << 56;
  for (size_t i = full; i < size; ++i)
    last |= static_cast<uint64_t>(p[i]) << (8 * (i - full));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i)
    round();
  return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t unitSeedOf(uint64_t runSeed, int64_t index) {
  unsigned char msg[8];
  for (int b = 0; b < 8; ++b)
    msg[b] =
        static_cast<unsigned char>(static_cast<uint64_t>(index) >> (8 * b));
  return sipHash24(runSeed, runSeed ^ 0x9e3779b97f4a7c15ULL, msg, sizeof(msg)) &
         0x7fffffffffffffffULL;
}

std::string reportKey() {
  std::random_device rd;
  std::string k;
  char buf[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(rd()));
    k += buf;
  }
  return k;
}

Outcome outcomeOf(const WorkerRun &run) {
  const ChildResult &child = run.child;
  const Json &rep = run.report;
  bool haveReport = run.haveReport, gateTimedOut = run.gateTimedOut;
  Outcome o;
  o.stage = haveReport ? rep.getString("stage", protocol::kStageSetup)
                       : protocol::kStageSetup;
  if (run.forgedLines > 0) {
    // Whatever the gate's own lines said: writing to its channel is an evasion.
    o.status = protocol::kFail;
    o.reason = o.stage + ": the submission wrote " +
               std::to_string(run.forgedLines) +
               " line(s) to the gate's report channel (file descriptor 3): "
               "report forgery";
  } else if (child.orphansKilled > 0) {
    // Escaping the worker's process group (setsid, double fork) is how work
    // would outlive the unit; the gate killed them.
    o.status = protocol::kFail;
    o.reason = o.stage + ": the submission left " +
               std::to_string(child.orphansKilled) +
               " process(es) running outside the worker's process group "
               "(killed by the gate)";
  } else if (haveReport && rep.has("status") && child.succeeded()) {
    o.status = rep.getString("status", protocol::kError);
    o.reason = rep.getString("reason", "");
  } else if (haveReport && rep.has("status") &&
             child.end == ChildResult::End::Exited) {
    o.status = rep.getString("status", protocol::kError);
    o.reason =
        rep.getString("reason", "") + (rep.has("reason") ? "" : child.reason());
  } else if (child.end == ChildResult::End::SpawnFailed) {
    o.status = protocol::kError;
    o.reason = "setup: " + child.reason();
  } else if (gateTimedOut) {
    // Killed while the gate itself (reference, comparisons) was working.
    o.status = protocol::kError;
    o.reason =
        o.stage + ": " + child.reason() +
        " in the gate's own work (reference and checks), not the submission's: "
        "raise settings.problem_s";
  } else {
    o.status = protocol::kFail;
    o.reason = o.stage + ": " + child.reason();
  }
  return o;
}

BatchReport::BatchReport(std::vector<int64_t> units, std::string key)
    : units_(std::move(units)), key_(std::move(key)), last_(units_.size()),
      have_(units_.size(), false), forged_(units_.size(), 0) {}

bool BatchReport::failed(size_t pos) const {
  if (forged_[pos] > 0)
    return true;
  return pos < finished_ &&
         last_[pos].getString("status", protocol::kError) != protocol::kPass;
}

std::vector<size_t> BatchReport::feed(const std::string &bytes) {
  std::vector<size_t> ended;
  std::string prefix = key_.empty() ? "" : key_ + " ";
  while (read_ < bytes.size()) {
    size_t nl = bytes.find('\n', read_);
    if (nl == std::string::npos)
      break;
    std::string line = bytes.substr(read_, nl - read_);
    read_ = nl + 1;
    if (line.empty() || units_.empty())
      continue;
    size_t pos = std::min(finished_, units_.size() - 1);
    if (!prefix.empty()) {
      if (line.compare(0, prefix.size(), prefix) != 0) {
        ++forged_[pos];
        continue;
      }
      line.erase(0, prefix.size());
    }
    Json j;
    try {
      j = Json::parse(line, "worker report");
    } catch (const std::exception &) {
      continue; // torn by a crash mid-write: not a line of the report
    }
    if (!j.isObject())
      continue;
    if (finished_ == units_.size() ||
        (j.has("unit") && j.getInt("unit", -1) != units_[pos])) {
      ++forged_[pos]; // a line for no unit, or for another than the current one
      continue;
    }
    last_[pos] = j;
    have_[pos] = true;
    if (j.has("status")) {
      ended.push_back(pos);
      ++finished_;
    }
  }
  return ended;
}

std::vector<WorkerRun> decideBatch(const BatchReport &rep,
                                   const ChildResult &child,
                                   const std::vector<UnitMark> &marks,
                                   bool gateTimedOut) {
  std::vector<WorkerRun> out;
  double prevEnd = 0;
  size_t done = rep.finished();
  // A unit that forged lines or left processes behind stops its worker, but
  // the worker may have finished more units before the stop reached it
  // (AtrexGate.BatchResultsEqualTheWorkerPerUnitPath, 1 run in 8 under load):
  // those are not decided here and run again in a fresh worker, as they
  // would after any other unit that stops a batch.
  bool truncated = false;
  for (size_t pos = 0; pos + 1 < done; ++pos)
    if (rep.forged(pos) > 0 ||
        (pos < marks.size() && marks[pos].orphansKilled > 0)) {
      done = pos + 1;
      truncated = true;
      break;
    }
  // A worker exits after a unit that did not pass: its end is that unit's.
  bool endedAfterFailure =
      done > 0 && rep.last(done - 1)->getString("status", protocol::kError) !=
                      protocol::kPass;
  for (size_t pos = 0; pos < done; ++pos) {
    WorkerRun w;
    w.haveReport = rep.last(pos) != nullptr;
    if (w.haveReport)
      w.report = *rep.last(pos);
    w.forgedLines = rep.forged(pos);
    UnitMark m = pos < marks.size()
                     ? marks[pos]
                     : UnitMark{child.wallSeconds, child.peakRssBytes, 0};
    bool last = pos + 1 == done && (done == rep.size() || endedAfterFailure) &&
                !child.stoppedByHook && !truncated;
    if (last) {
      // Every unit finished (or this one failed) and the worker ended by
      // itself: its end (an exit status, a crash at exit, processes left
      // behind) is this unit's.
      w.child = child;
      w.child.wallSeconds = child.wallSeconds - prevEnd;
      w.child.orphansKilled = m.orphansKilled + child.orphansKilled;
      w.gateTimedOut = gateTimedOut;
    } else {
      w.child.end = ChildResult::End::Continued;
      w.child.wallSeconds = m.endSeconds - prevEnd;
      w.child.peakRssBytes = m.peakRssBytes;
      w.child.orphansKilled = m.orphansKilled;
      w.child.privateNetwork = child.privateNetwork;
      w.child.readOnlyView = child.readOnlyView;
      w.child.readOnlyViewError = child.readOnlyViewError;
    }
    prevEnd = m.endSeconds;
    out.push_back(std::move(w));
  }
  if (done < rep.size() && !child.stoppedByHook && !endedAfterFailure &&
      !truncated) {
    // The worker ended by itself inside this unit: its end is this unit's.
    WorkerRun w;
    w.child = child;
    w.child.wallSeconds = child.wallSeconds - prevEnd;
    w.haveReport = rep.last(done) != nullptr;
    if (w.haveReport)
      w.report = *rep.last(done);
    w.forgedLines = rep.forged(done);
    w.gateTimedOut = gateTimedOut;
    out.push_back(std::move(w));
  }
  return out;
}

// The time of a passing unit comes from a second run of the worker without
// the Compute Sanitizer subscription, which slows memory-bound kernels by
// 1-4% (bench/results/gate-2026-11-29/run5, run6): the attributed run decides
// the verdict, the clean run gives the time. Its median is taken only within
// `clean_timing_tolerance` of the attributed one, so a submission that
// behaves differently when not observed gains at most that much; never with
// side streams (without launch callbacks the gate cannot see them).
bool mixedOwnForeign(const Json &attribution) {
  return attribution.getInt("timed_own_launches", 0) > 0 &&
         attribution.getInt("timed_foreign_launches", 0) > 0;
}

// The clean run's kernel durations, matched by name to the attributed run's
// kernels (whose own/foreign status the module hash decided). Names only join
// the two runs; a name seen as own and as foreign, or not seen at all in the
// attributed run, leaves the share open: then the range it could take.
void applyKernelTimes(Json &attribution, const Json *kt) {
  attribution.set("own_time_share", Json());
  if (!kt) {
    attribution.set("own_time_share_why",
                    "the clean run reported no kernel durations");
    return;
  }
  if (const Json *e = kt->get("error")) {
    attribution.set("own_time_share_why",
                    "kernel durations unavailable: " +
                        (e->isString() ? e->asString() : e->dump()));
    return;
  }
  std::map<std::string, int> status; // bit 1: own, bit 2: foreign
  if (const Json *ks = attribution.get("kernels"); ks && ks->isArray())
    for (const Json &k : ks->asArray())
      status[k.getString("name", "")] |= k.getBool("own", false) ? 1 : 2;
  double ownUs = 0, foreignUs = 0, openUs = 0;
  std::vector<std::string> open;
  Json out = Json::array();
  const Json *ks = kt->get("kernels");
  if (ks && ks->isArray())
    for (const Json &k : ks->asArray()) {
      std::string name = k.getString("name", "");
      double us = k.getDouble("total_us", 0);
      auto it = status.find(name);
      int st = it == status.end() ? 0 : it->second;
      Json e = Json::object();
      e.set("name", name);
      e.set("launches", k.getInt("launches", 0));
      e.set("total_us", us);
      if (st == 1) {
        ownUs += us;
        e.set("own", true);
      } else if (st == 2) {
        foreignUs += us;
        e.set("own", false);
      } else {
        openUs += us;
        e.set("own", Json());
        e.set("why", st == 0 ? "not launched in the attributed run"
                             : "name of an own and a foreign kernel");
        open.push_back(name);
      }
      out.push(e);
    }
  attribution.set("kernel_times", out);
  attribution.set("own_time_share_source",
                  "CUPTI kernel durations of " +
                      std::to_string(kt->getInt("calls", 0)) +
                      " untimed calls of the clean run, matched by name to the "
                      "attributed run's kernels");
  double total = ownUs + foreignUs + openUs;
  if (total <= 0) {
    attribution.set("own_time_share_why",
                    "the clean run's calls recorded no kernel time");
    return;
  }
  if (!open.empty()) {
    std::string names;
    for (size_t i = 0; i < open.size() && i < 5; ++i)
      names += (i ? ", " : "") + open[i];
    attribution.set(
        "own_time_share_why",
        std::to_string(open.size()) +
            " kernel(s) of the clean run not matched to one side: " + names);
    Json range = Json::array();
    range.push(ownUs / total);
    range.push((ownUs + openUs) / total);
    attribution.set("own_time_share_range", range);
    return;
  }
  attribution.set("own_time_share", ownUs / total);
}

CleanRunPlan planCleanRun(Json &r, const PlanSettings &settings) {
  CleanRunPlan plan;
  Json *perf = r.get("performance");
  Json *attribution = r.get("attribution");
  if (!perf || !attribution || !attribution->getBool("available", false))
    return plan;
  plan.run = true;
  bool mixed = mixedOwnForeign(*attribution);
  // Side streams (seen by the launch callbacks, destroyed or not): the clean
  // run, which cannot see streams, must measure device-wide (CUPTI spans) and
  // must not capture graphs; its time is then taken whenever it is not
  // faster than the attributed one beyond the tolerance (the attributed events
  // miss work on streams destroyed before the gate could record on them).
  bool side = perf->getInt("side_stream_reps", 0) > 0 ||
              !perf->getBool("launch_gap_hidden", true) ||
              perf->getInt("destroyed_stream_reps", 0) > 0;
  plan.graphs = !side;
  plan.ownShareCalls = mixed ? settings.ownShareCalls : 0;
  if (mixed && plan.ownShareCalls == 0)
    attribution->set("own_time_share_why",
                     "own_share_calls is 0: kernel durations not measured");
  return plan;
}

Outcome applyCleanTiming(
    Json &r, const PlanSettings &settings,
    const std::function<WorkerRun(int ownShareCalls, bool graphs)> &runClean) {
  CleanRunPlan plan = planCleanRun(r, settings);
  if (!plan.run)
    return {};
  return applyCleanRun(r, settings, plan,
                       runClean(plan.ownShareCalls, plan.graphs));
}

Outcome applyCleanRun(Json &r, const PlanSettings &settings,
                      const CleanRunPlan &plan, const WorkerRun &run) {
  Json *perf = r.get("performance");
  Json *attribution = r.get("attribution");
  if (!plan.run || !perf || !attribution)
    return {};
  bool mixed = mixedOwnForeign(*attribution);
  Json clean = Json::object();
  bool side = !plan.graphs;
  bool destroyed = perf->getInt("destroyed_stream_reps", 0) > 0;
  int ownShareCalls = plan.ownShareCalls;
  Outcome out = outcomeOf(run);
  const Json *cperf = run.haveReport ? run.report.get("performance") : nullptr;
  double attributed = perf->getDouble("median_us", 0);
  clean.set("child", run.child.toJson());
  if (out.status != protocol::kPass || !cperf) {
    // The attributed time stands (an overestimate, never an underestimate).
    clean.set("used", false);
    clean.set("why", ("the clean run did not pass: " + out.status + " at " +
                      out.stage + ": " + out.reason)
                         .substr(0, 600));
    perf->set("clean_run", clean);
    if (mixed)
      attribution->set(
          "own_time_share_why",
          "the clean run did not pass: kernel durations not measured");
    if (out.status == protocol::kFail)
      return out;
    return {};
  }
  if (ownShareCalls > 0)
    applyKernelTimes(*attribution, run.report.get("kernel_times"));
  bool deviceWide =
      cperf->getBool("device_wide", false) && cperf->getInt("reps", 0) > 0 &&
      cperf->getInt("device_wide_reps", 0) == cperf->getInt("reps", 0);
  clean.set("device_wide", deviceWide);
  if (side && !deviceWide) {
    std::string noSpan = "the clean run measured no device-wide span (" +
                         cperf->getString("device_wide_error", "no CUPTI") +
                         ")";
    clean.set("used", false);
    clean.set("why",
              ("the call uses side streams and " + noSpan).substr(0, 600));
    perf->set("clean_run", clean);
    if (destroyed)
      return {protocol::kError, protocol::kStagePerformance,
              ("the submission destroyed a stream its timed call launched on, "
               "so only a device-wide span "
               "times it, and " +
               noSpan)
                  .substr(0, 600)};
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
  if (ratio < 1 - tol || (!side && ratio > 1 + tol)) {
    clean.set("used", false);
    char why[200];
    if (side)
      std::snprintf(why, sizeof(why),
                    "the clean (device-wide) median is %.3gx the attributed "
                    "one, below 1 - %.3g",
                    ratio, tol);
    else
      std::snprintf(
          why, sizeof(why),
          "the clean median is %.3gx the attributed one, outside 1 +- %.3g",
          ratio, tol);
    clean.set("why", why);
    perf->set("clean_run", clean);
    return {};
  }
  clean.set("used", true);
  Json att = Json::object();
  for (const char *k : {"median_us", "p10_us", "p90_us", "min_us", "reps",
                        "median_rel_err", "mode"})
    if (const Json *v = perf->get(k))
      att.set(k, *v);
  perf->set("attributed", att);
  for (const char *k :
       {"median_us", "p10_us", "p90_us", "min_us", "reps", "median_rel_err",
        "mode", "span_longer_reps", "device_wide_reps"})
    if (const Json *v = cperf->get(k))
      perf->set(k, *v);
  perf->set("clean_run", clean);
  return {};
}

Json parseMemcheckLog(const std::string &log) {
  Json m = Json::object();
  bool summary = false;
  int64_t errors = 0;
  std::string first;
  const std::string tag = "========= ";
  size_t pos = 0;
  while (pos < log.size()) {
    size_t nl = log.find('\n', pos);
    std::string line =
        log.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? log.size() : nl + 1;
    if (line.compare(0, tag.size(), tag) != 0)
      continue;
    std::string body = line.substr(tag.size());
    if (body.compare(0, 15, "ERROR SUMMARY: ") == 0) {
      summary = true;
      errors = std::strtoll(body.c_str() + 15, nullptr, 10);
      continue;
    }
    if (body.empty() || body == "COMPUTE-SANITIZER")
      continue;
    if (first.empty() && body[0] != ' ') {
      first =
          body; // "Invalid __global__ read of size 4 bytes", "Program hit ..."
    } else if (!first.empty() && first.find(" | ") == std::string::npos &&
               body.rfind("    at ", 0) == 0) {
      size_t b = body.find_first_not_of(' ');
      first += " | " + body.substr(b);
    }
  }
  m.set("summary_found", summary);
  m.set("errors", errors);
  if (!first.empty())
    m.set("first", first.substr(0, 400));
  return m;
}

Outcome applyMemcheck(Json &r, const WorkerRun &run, const std::string &log) {
  Json m = parseMemcheckLog(log);
  m.set("child", run.child.toJson());
  Outcome out = outcomeOf(run);
  Outcome verdict;
  if (!m.getBool("summary_found", false)) {
    m.set("conclusive", false);
    m.set("why", ("no memcheck summary: the run ended " + out.status + " at " +
                  out.stage + ": " + out.reason)
                     .substr(0, 600));
  } else if (m.getInt("errors", 0) > 0) {
    m.set("conclusive", true);
    verdict.status = protocol::kFail;
    verdict.stage = protocol::kStageCorrectness;
    verdict.reason = "memcheck: " + std::to_string(m.getInt("errors", 0)) +
                     " memory error(s) in the correctness trials: " +
                     m.getString("first", "?");
  } else if (out.status != protocol::kPass) {
    // Clean log, but the trials did not pass under memcheck: not the memory
    // checker's finding.
    m.set("conclusive", false);
    m.set("why", ("the correctness trials ended " + out.status + " at " +
                  out.stage + ": " + out.reason)
                     .substr(0, 600));
  } else {
    m.set("conclusive", true);
  }
  r.set("memcheck", m);
  return verdict;
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

bool boundBeforeSubmission(const std::string &fileBefore,
                           const void *addrBefore, const std::string &fileAfter,
                           const void *addrAfter) {
  return addrBefore && addrBefore == addrAfter && !fileBefore.empty() &&
         fileBefore == fileAfter;
}

} // namespace atrex::rt

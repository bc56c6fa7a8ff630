//===- atrex-gate.cpp - Run a gate plan, append JSON Lines results --------===//
//
//   atrex-gate --plan PLAN.json --out RESULTS.jsonl [--shard i/n] [--resume]
//              [--jobs N] [--compile-only] [--cache DIR] [--worker PATH] [--quiet]
//
// --resume skips the units that already have a result line in RESULTS.jsonl
// (same unit index, submission and problem; "error" lines are run again), so
// a run cut by a time limit continues where it stopped.
//
// The parent compiles each submission once (cached by content hash), runs
// every (submission, problem) unit of its shard in a supervised child
// (atrex-gate-worker) and is the only writer of the results file.
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Compile.h"
#include "atrex-rt/Config.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Supervisor.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <algorithm>
#include <random>
#include <sys/file.h>
#include <unistd.h>

using namespace atrex::rt;
namespace fs = std::filesystem;

namespace {
std::string isoNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

uint64_t randomSeed() {
  std::random_device rd;
  return ((static_cast<uint64_t>(rd()) << 32) ^ rd()) & 0x7fffffffffffffffULL;
}

std::string unitKey(int64_t index, const std::string &submission, const std::string &problem) {
  return std::to_string(index) + "\x1f" + submission + "\x1f" + problem;
}

// The units that already have a result (other than "error") in a results
// file; a torn line (a run killed while writing) is ignored with a warning.
std::set<std::string> completedUnits(const std::string &path) {
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
      std::cerr << "atrex-gate: warning: --resume: ignoring " << e.what() << "\n";
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

int readFirstByte(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char c;
  return in.get(c) ? c : -1;
}

struct Outcome {
  std::string status, stage, reason;
};

// A worker run's status, stage and reason from its last report and how it ended.
Outcome outcomeOf(const ChildResult &child, bool haveReport, const Json &rep, bool gateTimedOut) {
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
// side streams (without launch callbacks the gate cannot see them). A clean
// run that fails (wrong output, crash, hang) fails the unit: returned as an
// Outcome with status "fail"; otherwise the status is empty.
template <typename RunClean>
Outcome cleanTiming(Json &r, const PlanSettings &settings, RunClean runClean) {
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
  auto [child, have, gateTimedOut, rep] = runClean();
  Outcome out = outcomeOf(child, have, rep, gateTimedOut);
  const Json *cperf = have ? rep.get("performance") : nullptr;
  double attributed = perf->getDouble("median_us", 0);
  clean.set("child", child.toJson());
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

// Appends one line under an exclusive lock (several gate workers may share a file).
void appendLine(const std::string &path, const std::string &line) {
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

Json settingsJson(const PlanSettings &s) {
  Json j = Json::object();
  j.set("trials", s.trials);
  j.set("warmup_ms", s.warmupMs);
  j.set("min_reps", s.minReps);
  j.set("max_reps", s.maxReps);
  j.set("max_timed_s", s.maxTimedSeconds);
  j.set("target_rel_err", s.targetRelErr);
  j.set("graph_below_us", s.graphBelowUs);
  j.set("recheck", s.recheck);
  j.set("rotate_inputs", s.rotateInputs);
  j.set("gpu", s.gpu);
  j.set("gap_sleep_cycles", s.gapSleepCycles);
  return j;
}
} // namespace

int main(int argc, char **argv) {
  std::string planPath, outPath, shardText = "0/1", cacheDir, worker, jobDir;
  bool quiet = false, resume = false, compileOnly = false;
  unsigned jobsOpt = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "atrex-gate: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--plan")
      planPath = value();
    else if (a == "--out")
      outPath = value();
    else if (a == "--shard")
      shardText = value();
    else if (a == "--cache")
      cacheDir = value();
    else if (a == "--worker")
      worker = value();
    else if (a == "--quiet")
      quiet = true;
    else if (a == "--resume")
      resume = true;
    else if (a == "--compile-only")
      compileOnly = true;
    else if (a == "--jobs") {
      std::string v = value();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 256) {
        std::cerr << "atrex-gate: error: --jobs '" << v << "': expected 1..256\n";
        return 2;
      }
      jobsOpt = static_cast<unsigned>(n);
    } else {
      std::cerr << "usage: atrex-gate --plan PLAN.json --out RESULTS.jsonl [--shard i/n] [--resume] "
                   "[--jobs N] [--compile-only] [--cache DIR] [--worker PATH] [--quiet]\n";
      return 2;
    }
  }
  if (planPath.empty() || outPath.empty()) {
    std::cerr << "atrex-gate: --plan and --out are required\n";
    return 2;
  }
  Plan plan;
  std::vector<Unit> units;
  int shard = 0, shards = 1;
  try {
    plan = loadPlan(planPath);
    std::tie(shard, shards) = parseShard(shardText);
    units = shardUnits(plan, shard, shards);
  } catch (const std::exception &e) {
    std::cerr << "atrex-gate: error: " << e.what() << "\n";
    return 2;
  }
  size_t skipped = 0;
  if (resume && fs::exists(outPath)) {
    std::set<std::string> done;
    try {
      done = completedUnits(outPath);
    } catch (const std::exception &e) {
      std::cerr << "atrex-gate: error: --resume: " << e.what() << "\n";
      return 2;
    }
    std::vector<Unit> left;
    for (const Unit &u : units)
      if (!done.count(unitKey(u.index, u.submission->name, u.problem->id)))
        left.push_back(u);
    skipped = units.size() - left.size();
    units = std::move(left);
  }
  if (worker.empty())
    worker = (fs::path(argv[0]).parent_path() / "atrex-gate-worker").string();
  worker = fs::absolute(worker).string();
  if (!fs::exists(worker)) {
    std::cerr << "atrex-gate: error: worker '" << worker << "' not found (use --worker)\n";
    return 2;
  }
  fs::path outDir = fs::absolute(outPath).parent_path();
  if (cacheDir.empty())
    cacheDir = plan.settings.cacheDir.empty() ? (outDir / ".atrex-gate-cache").string()
                                              : plan.settings.cacheDir;
  cacheDir = fs::absolute(cacheDir).lexically_normal().string();
  fs::create_directories(cacheDir);
  jobDir = (fs::path(cacheDir) / ("jobs." + std::to_string(getpid()))).string();
  fs::create_directories(jobDir);

  uint64_t runSeed = plan.settings.seedSource == "fixed" ? plan.settings.seed : randomSeed();
  std::string runId = isoNow() + "-" + std::to_string(getpid());
  std::map<std::string, CompileResult> compiled;
  auto runStart = std::chrono::steady_clock::now();
  int passed = 0, failed = 0, errors = 0;
  if (!quiet)
    std::cerr << "atrex-gate: " << units.size() << " units in shard " << shard << "/" << shards
              << " of " << planPath
              << (resume ? " (" + std::to_string(skipped) + " already in " + outPath + ")" : "")
              << "\n";

  // Compile every submission of the shard up front, several at a time.
  {
    std::vector<const Submission *> todo;
    for (const Unit &u : units)
      if (std::find(todo.begin(), todo.end(), u.submission) == todo.end())
        todo.push_back(u.submission);
    std::mutex mu;
    size_t next = 0;
    unsigned jobs =
        jobsOpt ? jobsOpt : std::max(1u, std::min(8u, std::thread::hardware_concurrency() / 2));
    if (!quiet)
      std::cerr << "atrex-gate: compiling " << todo.size() << " submissions (" << jobs
                << " at a time)\n";
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < jobs; ++t)
      pool.emplace_back([&] {
        while (true) {
          const Submission *sub;
          {
            std::lock_guard<std::mutex> lock(mu);
            if (next >= todo.size())
              return;
            sub = todo[next++];
          }
          // lang "cuda" and "hip" (HIP's NVIDIA-platform headers, compiled by nvcc).
          CompileResult cr = compileSubmission(*sub, *findOpSpec(sub->op), plan.settings, cacheDir);
          std::lock_guard<std::mutex> lock(mu);
          if (!quiet)
            std::cerr << "atrex-gate: compiled " << sub->name << ": "
                      << (cr.ok ? (cr.cached ? "cached" : "ok") : "FAILED: " + cr.reason) << " ("
                      << cr.cubins.size() << " cubins, " << cr.seconds << " s)\n";
          compiled[sub->name] = cr;
        }
      });
    for (auto &t : pool)
      t.join();
  }
  if (compileOnly) {
    // Fills the cache (e.g. before one gate per GPU runs a shard each); no results file.
    int bad = 0, internal = 0;
    for (const auto &[name, cr] : compiled)
      if (!cr.ok)
        ++(cr.internalError ? internal : bad);
    std::error_code ec;
    fs::remove_all(jobDir, ec);
    if (!quiet)
      std::cerr << "atrex-gate: compiled " << compiled.size() - bad - internal << " of "
                << compiled.size() << " submissions into " << cacheDir << "\n";
    return internal ? 2 : bad ? 1 : 0;
  }
  auto unitsStart = std::chrono::steady_clock::now();

  for (size_t ui = 0; ui < units.size(); ++ui) {
    const Unit &u = units[ui];
    const Submission &sub = *u.submission;
    const Problem &prob = *u.problem;
    const OpSpec &spec = *findOpSpec(sub.op);
    auto t0 = std::chrono::steady_clock::now();
    Json r = Json::object();
    r.set("schema", kResultSchema);
    r.set("run", runId);
    r.set("plan", planPath);
    r.set("unit", static_cast<int64_t>(u.index));
    r.set("shard", shardText);
    Json js = Json::object();
    js.set("name", sub.name);
    js.set("source", sub.source);
    js.set("operator", sub.op);
    js.set("lang", sub.lang);
    r.set("submission", js);
    Json jp = Json::object();
    jp.set("id", prob.id);
    jp.set("operator", prob.op);
    jp.set("shape", shapeToJson(prob.shape));
    if (prob.floorSeconds > 0)
      jp.set("floor_s", prob.floorSeconds);
    if (!prob.extra.isNull())
      jp.set("extra", prob.extra);
    r.set("problem", jp);
    r.set("started_at", isoNow());
    uint64_t unitSeed = (runSeed * 0x9e3779b97f4a7c15ULL + u.index) & 0x7fffffffffffffffULL;
    r.set("seed", static_cast<int64_t>(unitSeed));

    std::string status = "error", stage = "compile", reason, verdict = "unknown";
    // 1. Compile (once per submission; cached by content hash).
    auto it = compiled.find(sub.name);
    if (it == compiled.end())
      it = compiled.emplace(sub.name, compileSubmission(sub, spec, plan.settings, cacheDir)).first;
    const CompileResult &cr = it->second;
    r.set("compile", cr.toJson());
    if (!cr.ok) {
      status = cr.internalError ? "error" : "fail";
      reason = "compile: " + cr.reason;
    } else {
      // 2-4. Correctness, performance, attribution in a supervised child.
      Json job = Json::object();
      job.set("operator", sub.op);
      job.set("shape", shapeToJson(prob.shape));
      job.set("library", fs::absolute(cr.soPath).string());
      Json ownHashes = Json::array();
      for (const Cubin &c : cr.cubins)
        ownHashes.push(hashHex(c.hash));
      job.set("own_fnv1a64", ownHashes);
      job.set("settings", settingsJson(plan.settings));
      std::string jobPath = (fs::path(jobDir) / ("unit" + std::to_string(u.index) + ".json")).string();
      writeFile(jobPath, job.dump(2));
      Limits lim;
      lim.wallSeconds = plan.settings.problemSeconds;
      lim.rssBytes = plan.settings.rssBytes;
      lim.fileSizeBytes = plan.settings.fileSizeBytes;
      lim.addressSpaceBytes = plan.settings.addressSpaceBytes;
      lim.privateNetwork = plan.settings.privateNetwork;
      // The worker's last complete JSON line is its state.
      auto runWorker = [&](const std::map<std::string, std::string> &env, Json &rep) {
        std::error_code ec;
        fs::remove(jobPath + ".phase", ec);
        ChildResult c = runSupervised({worker, "--job", jobPath}, lim, std::to_string(unitSeed) + "\n",
                                      jobDir, env, {"ATREX_GATE_SEED"});
        bool gateTimedOut =
            c.end == ChildResult::End::TimedOut && readFirstByte(jobPath + ".phase") == 'g';
        bool have = false;
        size_t pos = 0;
        while (pos < c.report.size()) {
          size_t nl = c.report.find('\n', pos);
          if (nl == std::string::npos)
            break;
          try {
            rep = Json::parse(c.report.substr(pos, nl - pos), "worker report");
            have = rep.isObject();
          } catch (const std::exception &) {
          }
          pos = nl + 1;
        }
        return std::make_tuple(c, have, gateTimedOut);
      };
      Json rep;
      auto [child, haveReport, gateTimedOut] = runWorker({}, rep);
      r.set("child", child.toJson());
      if (haveReport)
        for (const char *k : {"env", "correctness", "performance", "attribution"})
          if (const Json *v = rep.get(k))
            r.set(k, *v);
      Outcome out = outcomeOf(child, haveReport, rep, gateTimedOut);
      status = out.status;
      stage = out.stage;
      reason = out.reason;
      if (const Json *a = r.get("attribution"))
        verdict = a->getString("verdict", "unknown");
      if (status == "pass" && plan.settings.cleanTiming) {
        Outcome cleanFail = cleanTiming(r, plan.settings, [&] {
          Json crep;
          auto [cchild, chave, cgate] =
              runWorker({{"ATREX_GATE_NO_ATTRIBUTION", "1"}, {"ATREX_GATE_CLEAN_RUN", "1"}}, crep);
          return std::make_tuple(cchild, chave, cgate, crep);
        });
        if (cleanFail.status == "fail") {
          status = "fail";
          stage = cleanFail.stage;
          reason = "clean timing run (no attribution): " + cleanFail.reason;
        }
      }
      if (status == "pass" && prob.floorSeconds > 0) {
        double med = r.get("performance")->getDouble("median_us", 0) * 1e-6;
        if (med < prob.floorSeconds) {
          verdict = "suspicious";
          status = "fail";
          reason = "median time below the impossibility floor";
        }
      }
      if (status == "pass" && !verdict.empty() && verdict != "adopted" && verdict != "unknown") {
        // Correct and timed, but the work was not (all) the submission's own.
        reason = "dynamic verdict " + verdict;
      }
    }
    r.set("status", status);
    r.set("stage", stage);
    r.set("verdict", verdict);
    if (!reason.empty())
      r.set("reason", reason);
    if (!sub.expectedVerdict.empty())
      r.set("expected_verdict_met", sub.expectedVerdict == "fail"
                                        ? status != "pass"
                                        : status == "pass" && sub.expectedVerdict == verdict);
    r.set("duration_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::string invalid = validateResult(r);
    if (!invalid.empty()) {
      r.set("status", "error");
      r.set("reason", "internal: invalid result (" + invalid + "): " + reason);
    }
    try {
      appendLine(outPath, r.dump());
    } catch (const std::exception &e) {
      std::cerr << "atrex-gate: error: " << e.what() << "\n";
      return 2;
    }
    std::string st = r.getString("status", "");
    (st == "pass" ? passed : st == "fail" ? failed : errors)++;
    if (!quiet) {
      char line[512];
      const Json *perf = r.get("performance");
      double med = perf ? perf->getDouble("median_us", -1) : -1;
      std::snprintf(line, sizeof(line), "[%zu/%zu] %s %s: %s, verdict %s%s (%.1f s)", ui + 1,
                    units.size(), sub.name.c_str(), prob.id.c_str(), st.c_str(), verdict.c_str(),
                    med >= 0 ? (", median " + std::to_string(med).substr(0, 8) + " us").c_str() : "",
                    r.getDouble("duration_s", 0));
      std::cerr << line;
      if (st != "pass")
        std::cerr << " -- " << r.getString("reason", "").substr(0, 300);
      std::cerr << "\n";
    }
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
  std::error_code ec;
  fs::remove_all(jobDir, ec);
  double unitsTotal = std::chrono::duration<double>(std::chrono::steady_clock::now() - unitsStart).count();
  if (!quiet)
    std::cerr << "atrex-gate: " << passed << " passed, " << failed << " failed, " << errors
              << " errors in " << total << " s (" << unitsTotal << " s after compilation)\n";
  return errors ? 2 : 0;
}

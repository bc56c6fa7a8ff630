//===- atrex-gate.cpp - Run a gate plan, append JSON Lines results --------===//
//
//   atrex-gate --plan PLAN.json --out RESULTS.jsonl [--shard i/n] [--resume]
//              [--jobs N] [--compile-only] [--cache DIR] [--worker PATH]
//              [--worker-per-unit] [--device-lock FILE] [--quiet]
//
// --resume skips the units that already have a result line in RESULTS.jsonl
// (same unit index, submission and problem; "error" lines are run again), so
// a run cut by a time limit continues where it stopped.
//
// The parent compiles each submission once (cached by content hash), runs
// the (submission, problem) units of its shard in supervised children
// (atrex-gate-worker: one per submission and run kind, a fresh one after a
// unit that did not pass; --worker-per-unit: one per unit) and is the only
// writer of the results file.
//
//===----------------------------------------------------------------------===//
#include "Cli.h"
#include "atrex-rt/Compile.h"
#include "atrex-rt/Config.h"
#include "atrex-rt/GateRun.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Protocol.h"
#include "atrex-rt/Stage.h"
#include "atrex-rt/Supervisor.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
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

} // namespace

// `atrex-gate --check`: can this machine run the gate? The tools the compile
// step needs, then two probes of the worker (the attributed run's Compute
// Sanitizer API and the clean run's CUPTI never share a process). Prints one
// line per item; exit 0 when every required item is there, 1 otherwise.
int runCheck(const std::string &worker) {
  struct Item {
    std::string name, detail;
    bool ok, required;
  };
  std::vector<Item> items;
  auto add = [&](const std::string &name, bool ok, const std::string &detail,
                 bool required = true) {
    items.push_back({name, detail, ok, required});
  };
  add("nvcc", fs::exists(nvccPath()),
      nvccPath() + " (CUDA " ATREX_RT_CUDA_VERSION ")");
  std::string cuobjdump = cuobjdumpPath();
  add("cuobjdump", fs::exists(cuobjdump),
      cuobjdump + (fs::exists(cuobjdump)
                       ? " (extracts the submissions' cubins)"
                       : ": not found (set ATREX_CUOBJDUMP)"));
  add("libtorch", fs::exists(ATREX_RT_TORCH_DIR),
      ATREX_RT_TORCH_VERSION " at " ATREX_RT_TORCH_DIR);
  std::string sanitizerTool = computeSanitizerPath();
  add("memcheck", fs::exists(sanitizerTool),
      sanitizerTool + (fs::exists(sanitizerTool)
                           ? " (settings.memcheck)"
                           : ": not found (settings.memcheck inconclusive)"),
      false);
  PlanSettings defaults;
  std::string hipError;
  std::string hip = resolveHipInclude(defaults, hipError);
  add("hip", hipError.empty(),
      hipError.empty()
          ? "HIP on NVIDIA headers: " + hip
          : "HIP submissions cannot compile: " + hipError.substr(0, 160),
      false);
  bool haveWorker = fs::exists(worker);
  add("worker", haveWorker, worker);
  auto probe = [&](const std::map<std::string, std::string> &env,
                   Json &out) -> std::string {
    Limits lim;
    lim.wallSeconds = 120;
    ChildResult c = runSupervised({worker, "--probe"}, lim, "", "", env);
    Json rep;
    if (!lastReportLine(c.report, rep))
      return "the worker's probe gave no report: " + c.reason() +
             (c.stderrTail.empty() ? ""
                                   : " (" + c.stderrTail.substr(0, 300) + ")");
    out = rep;
    return "";
  };
  Json attributed, clean;
  std::string e1 = haveWorker ? probe({}, attributed) : "no worker";
  std::string e2 = haveWorker
                       ? probe({{"ATREX_GATE_NO_ATTRIBUTION", "1"}}, clean)
                       : "no worker";
  if (!e1.empty()) {
    add("gpu", false, e1);
  } else if (attributed.getBool("cuda", false)) {
    add("gpu", true,
        attributed.getString("gpu", "?") + " (sm_" +
            attributed.getString("sm", "?") + ", " +
            std::to_string(attributed.getInt("gpus", 1)) + " visible, driver " +
            std::to_string(attributed.getInt("cuda_driver", 0)) + ")");
  } else {
    add("gpu", false,
        "no CUDA device visible to the worker: " +
            attributed.getString("cuda_error", "?"));
  }
  if (const Json *a = attributed.get("attribution"))
    add("attribution", a->getBool("ok", false),
        a->getBool("ok", false) ? "Compute Sanitizer API subscribed (" +
                                      a->getString("library", "") + ")"
                                : a->getString("error", "?"));
  else
    add("attribution", false, e1.empty() ? "not probed" : e1);
  if (const Json *n = attributed.get("nvml"))
    add("nvml", n->getBool("ok", false),
        n->getBool("ok", false) ? "SM clocks and throttle reasons recorded"
                                : n->getString("error", "?"),
        false);
  if (const Json *c = clean.get("cupti"))
    add("cupti", c->getBool("ok", false),
        c->getBool("ok", false) ? "own-time share of mixed units measured (" +
                                      c->getString("library", "") + ")"
                                : "own-time share of mixed units stays null: " +
                                      c->getString("error", "?"),
        false);
  else
    add("cupti", false, e2.empty() ? "not probed" : e2, false);
  std::string missing;
  std::cout << "atrex-gate --check: can this machine run the gate?\n";
  for (const Item &it : items) {
    const char *tag = it.ok ? "ok  " : it.required ? "FAIL" : "--  ";
    std::printf("  %s  %-12s %s\n", tag, it.name.c_str(), it.detail.c_str());
    if (!it.ok && it.required)
      missing += (missing.empty() ? "" : ", ") + it.name;
  }
  std::cout << (missing.empty()
                    ? "the gate can run here\n"
                    : "the gate cannot run here: " + missing + "\n");
  std::fflush(stdout);
  return missing.empty() ? 0 : 1;
}

const char *const kUsage =
    "usage: atrex-gate --plan PLAN.json --out "
    "RESULTS.jsonl [--shard i/n] [--resume] [--jobs N]\n"
    "                  [--compile-only] [--cache DIR] "
    "[--worker PATH] [--worker-per-unit] [--device-lock FILE] [--quiet]\n"
    "       atrex-gate --check [--worker PATH]\n";
const char *const kHelp = R"(
Runs a gate plan (atrex-gate-plan/1): compiles every submission once (all of
them in parallel, ahead of the runs), runs the (submission, problem) units of
each submission in a supervised atrex-gate-worker (correctness against the
libtorch reference, timing, attribution of every launched kernel; one worker
for all of a submission's units, a fresh one after a unit that did not pass)
and appends one atrex-gate-result/1 JSON line per unit to RESULTS.jsonl.

  --plan PLAN.json   the plan (settings, submissions, problems)
  --out RESULTS      the JSON Lines results file (appended to, under a lock)
  --shard i/n        run the units with index % n == i (default 0/1)
  --resume           skip the units that already have a result in RESULTS
                     ("error" results run again)
  --jobs N           compile N submissions at a time (default min(8, cores/2))
  --compile-only     compile into the cache and exit (no results)
  --cache DIR        compiled submissions by content hash (default: the plan's
                     cache_dir, else <dir of RESULTS>/.atrex-gate-cache)
  --worker PATH      the worker (default: atrex-gate-worker next to this tool)
  --worker-per-unit  one worker process per unit and run (the path before
                     worker batches; for comparison and debugging). Default:
                     one worker runs all the units of a submission, a fresh
                     one after a unit that did not pass
  --device-lock FILE hold an exclusive lock (flock) on FILE while a worker
                     runs (compiles do not wait): gates sharing one GPU, e.g.
                     several agent loops, measure one at a time (default:
                     $ATREX_GATE_DEVICE_LOCK)
  --quiet            no progress on stderr
  --version          the gate's version, commit, CUDA and torch versions
  --check            say whether this machine can run the gate (nvcc,
                     cuobjdump, libtorch, a GPU, the Compute Sanitizer API;
                     optional: CUPTI, NVML, HIP headers) and exit: 0 when it
                     can, 1 when a required item is missing

Exit status: 0 when every unit has a result (pass or fail), 2 on usage or plan
errors or when a unit ended in the gate's own error. Environment:
ATREX_GATE_NO_ATTRIBUTION=1 (no Sanitizer subscription, e.g. under ncu),
ATREX_GATE_TRACE=1 (the worker's steps on stderr), ATREX_HIP_INCLUDE,
ATREX_CUOBJDUMP, ATREX_CUPTI_LIBRARY (the CUPTI of the own-time share when
no CUPTI is loaded already). Documentation: docs/gate.md.
)";

// SIGTERM (a time limit, a job scheduler's cancel), SIGINT, SIGHUP: the
// workers and compilers running now go with the gate (each runs in a process
// group of its own, which a signal to the gate's group does not reach).
extern "C" void onTerminate(int sig) {
  killRunningChildren();
  _exit(128 + sig);
}

// The worker beside this executable: /proc/self/exe, not argv[0], which a
// caller may set to a bare name (atrex agent ran the gate as "atrex-gate"
// and the worker was looked for in the working directory).
static std::string defaultWorker(const char *argv0) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    self = fs::absolute(argv0);
  return (self.parent_path() / "atrex-gate-worker").string();
}

int main(int argc, char **argv) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP})
    std::signal(sig, onTerminate);
  std::string planPath, outPath, shardText = "0/1", cacheDir, worker, jobDir,
                                 jobsText, deviceLock;
  bool quiet = false, resume = false, compileOnly = false, check = false,
       workerPerUnit = false, version = false;
  unsigned jobsOpt = 0;
  // The options (their reference: kHelp); CLI11 as every runtime tool reads it
  // (Cli.h).
  CLI::App app;
  cli::configure(app);
  app.add_option("--plan", planPath);
  app.add_option("--out", outPath);
  app.add_option("--shard", shardText);
  app.add_option("--cache", cacheDir);
  app.add_option("--worker", worker);
  app.add_option("--jobs", jobsText);
  app.add_option("--device-lock", deviceLock);
  app.add_flag("--quiet", quiet);
  app.add_flag("--resume", resume);
  app.add_flag("--compile-only", compileOnly);
  app.add_flag("--check", check);
  app.add_flag("--worker-per-unit", workerPerUnit);
  app.add_flag("--version", version);
  const std::string usageHint =
      std::string(kUsage) + "(atrex-gate --help for the options)\n";
  cli::Leftover left;
  if (auto rc = cli::parse(app, argc, argv, 1, "atrex-gate",
                           std::string(kUsage) + kHelp, usageHint, left))
    return *rc;
  if (!left.unknown.empty() || left.sawDashDash) {
    std::cerr << "atrex-gate: unknown option '"
              << (left.unknown.empty() ? "--" : left.unknown.front()) << "'\n"
              << usageHint;
    return 2;
  }
  if (version) {
    std::cout << "atrex-gate " ATREX_RT_VERSION " (commit " ATREX_RT_GIT_COMMIT
                 ", CUDA " ATREX_RT_CUDA_VERSION
                 ", torch " ATREX_RT_TORCH_VERSION ")\n";
    return 0;
  }
  if (app.count("--jobs")) {
    char *end = nullptr;
    long n = std::strtol(jobsText.c_str(), &end, 10);
    if (jobsText.empty() || *end || n < 1 || n > 256) {
      std::cerr << "atrex-gate: error: --jobs '" << jobsText
                << "': expected 1..256\n";
      return 2;
    }
    jobsOpt = static_cast<unsigned>(n);
  }
  if (check) {
    if (worker.empty())
      worker = defaultWorker(argv[0]);
    return runCheck(fs::absolute(worker).string());
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
    std::vector<std::string> warnings;
    try {
      done = completedUnits(outPath, warnings);
    } catch (const std::exception &e) {
      std::cerr << "atrex-gate: error: --resume: " << e.what() << "\n";
      return 2;
    }
    for (const std::string &w : warnings)
      std::cerr << "atrex-gate: warning: --resume: " << w << "\n";
    std::vector<Unit> left;
    for (const Unit &u : units)
      if (!done.count(unitKey(u)))
        left.push_back(u);
    skipped = units.size() - left.size();
    units = std::move(left);
  }
  if (worker.empty())
    worker = defaultWorker(argv[0]);
  worker = fs::absolute(worker).string();
  if (!fs::exists(worker)) {
    std::cerr << "atrex-gate: error: worker '" << worker
              << "' not found (use --worker)\n";
    return 2;
  }
  fs::path outDir = fs::absolute(outPath).parent_path();
  if (cacheDir.empty())
    cacheDir = plan.settings.cacheDir.empty()
                   ? (outDir / ".atrex-gate-cache").string()
                   : plan.settings.cacheDir;
  cacheDir = fs::absolute(cacheDir).lexically_normal().string();
  fs::create_directories(cacheDir);
  jobDir = (fs::path(cacheDir) / ("jobs." + std::to_string(getpid()))).string();
  fs::create_directories(jobDir);

  uint64_t runSeed =
      plan.settings.seedSource == "fixed" ? plan.settings.seed : randomSeed();
  std::string runId = isoNow() + "-" + std::to_string(getpid());
  std::map<std::string, CompileResult> compiled;
  auto runStart = std::chrono::steady_clock::now();
  int passed = 0, failed = 0, errors = 0;
  if (!quiet)
    std::cerr << "atrex-gate: " << units.size() << " units in shard " << shard
              << "/" << shards << " of " << planPath
              << (resume ? " (" + std::to_string(skipped) + " already in " +
                               outPath + ")"
                         : "")
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
        jobsOpt
            ? jobsOpt
            : std::max(1u,
                       std::min(8u, std::thread::hardware_concurrency() / 2));
    if (!quiet)
      std::cerr << "atrex-gate: compiling " << todo.size() << " submissions ("
                << jobs << " at a time)\n";
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
          // lang "cuda" and "hip" (HIP's NVIDIA-platform headers, compiled by
          // nvcc).
          CompileResult cr = compileSubmission(*sub, *findOpSpec(sub->op),
                                               plan.settings, cacheDir);
          std::lock_guard<std::mutex> lock(mu);
          if (!quiet)
            std::cerr << "atrex-gate: compiled " << sub->name << ": "
                      << (cr.ok ? (cr.cached ? "cached" : "ok")
                                : "FAILED: " + cr.reason)
                      << " (" << cr.cubins.size() << " cubins, " << cr.seconds
                      << " s)\n";
          compiled[sub->name] = cr;
        }
      });
    for (auto &t : pool)
      t.join();
  }
  if (compileOnly) {
    // Fills the cache (e.g. before one gate per GPU runs a shard each); no
    // results file.
    int bad = 0, internal = 0;
    for (const auto &[name, cr] : compiled)
      if (!cr.ok)
        ++(cr.internalError ? internal : bad);
    std::error_code ec;
    fs::remove_all(jobDir, ec);
    if (!quiet)
      std::cerr << "atrex-gate: compiled " << compiled.size() - bad - internal
                << " of " << compiled.size() << " submissions into " << cacheDir
                << "\n";
    return internal ? 2 : bad ? 1 : 0;
  }
  auto unitsStart = std::chrono::steady_clock::now();

  WorkerRunner workers(plan, worker, jobDir, cacheDir);
  if (deviceLock.empty())
    if (const char *e = std::getenv("ATREX_GATE_DEVICE_LOCK"))
      deviceLock = e;
  workers.setDeviceLock(deviceLock);

  // Units in plan order, grouped by submission (a group is one worker's
  // job); with --worker-per-unit every unit is a group of its own, the path
  // of one worker process per unit and run.
  std::vector<std::vector<size_t>> groups;
  for (size_t ui = 0; ui < units.size(); ++ui)
    if (groups.empty() || workerPerUnit ||
        units[groups.back().back()].submission != units[ui].submission)
      groups.push_back({ui});
    else
      groups.back().push_back(ui);
  size_t reported = 0;
  for (const std::vector<size_t> &group : groups) {
    auto t0 = std::chrono::steady_clock::now();
    const Submission &sub = *units[group.front()].submission;
    const OpSpec &spec = *findOpSpec(sub.op);
    std::vector<UnitState> states(group.size());
    for (size_t gi = 0; gi < group.size(); ++gi) {
      UnitState &st = states[gi];
      const Unit &u = units[group[gi]];
      const Problem &prob = *u.problem;
      st.u = &u;
      Json &r = st.r;
      r = Json::object();
      r.set("schema", kResultSchema);
      r.set("run", runId);
      Json gateInfo = Json::object();
      gateInfo.set("version", ATREX_RT_VERSION);
      gateInfo.set("commit", ATREX_RT_GIT_COMMIT);
      r.set("gate", gateInfo);
      r.set("plan", planPath);
      r.set("unit", static_cast<int64_t>(u.index));
      r.set("shard", shardText);
      Json js = Json::object();
      js.set("name", sub.name);
      js.set("source", sub.source);
      js.set("operator", sub.op);
      js.set("lang", sub.lang);
      if (sub.lang == "python") {
        js.set("format", sub.format);
        js.set("entry", sub.entry);
      }
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
      st.seed = unitSeedOf(runSeed, u.index);
      r.set("seed", static_cast<int64_t>(st.seed));
    }
    // The stages (include/atrex-rt/Stage.h), in order; the compile result
    // is the one made ahead of the runs (cached by content hash).
    auto it = compiled.find(sub.name);
    if (it == compiled.end())
      it = compiled
               .emplace(sub.name,
                        compileSubmission(sub, spec, plan.settings, cacheDir))
               .first;
    const CompileResult &cr = it->second;
    GroupContext ctx{plan, sub, states, workers, cr};
    for (const Stage *stage : gateStages())
      if (stage->enabled(plan.settings))
        stage->run(ctx);
    // The group's wall time: each unit's share of the worker runs, and an
    // equal share of the rest (the parent's own work, workers' exits).
    double groupWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    double workersWall = 0;
    for (const UnitState &st : states)
      workersWall += st.workerWall;
    double rest = std::max(0.0, groupWall - workersWall) /
                  static_cast<double>(states.size());
    for (UnitState &st : states) {
      const Problem &prob = *st.u->problem;
      Json &r = st.r;
      std::string &status = st.status, &verdict = st.verdict,
                  &reason = st.reason;
      if (cr.ok) {
        r.set("side_effects", st.sideEffects);
        r.set("worker_seconds", st.workerSeconds);
        if (status == protocol::kPass && !verdict.empty() &&
            verdict != protocol::kAdopted && verdict != protocol::kUnknown) {
          // Correct and timed, but the work was not (all) the submission's own.
          reason = "dynamic verdict " + verdict;
        }
      }
      r.set("status", status);
      r.set("stage", st.stage);
      r.set("verdict", verdict);
      if (!reason.empty())
        r.set("reason", reason);
      if (!sub.expectedVerdict.empty())
        r.set("expected_verdict_met", sub.expectedVerdict == protocol::kFail
                                          ? status != protocol::kPass
                                          : status == protocol::kPass &&
                                                sub.expectedVerdict == verdict);
      r.set("duration_s",
            states.size() == 1 ? groupWall : st.workerWall + rest);
      std::string invalid = validateResult(r);
      if (!invalid.empty()) {
        r.set("status", protocol::kError);
        r.set("reason",
              "internal: invalid result (" + invalid + "): " + reason);
      }
      try {
        appendResultLine(outPath, r.dump());
      } catch (const std::exception &e) {
        std::cerr << "atrex-gate: error: " << e.what() << "\n";
        return 2;
      }
      std::string stOut = r.getString("status", "");
      (stOut == protocol::kPass   ? passed
       : stOut == protocol::kFail ? failed
                                  : errors)++;
      ++reported;
      if (!quiet) {
        char line[512];
        const Json *perf = r.get("performance");
        double med = perf ? perf->getDouble("median_us", -1) : -1;
        std::snprintf(
            line, sizeof(line), "[%zu/%zu] %s %s: %s, verdict %s%s (%.1f s)",
            reported, units.size(), sub.name.c_str(), prob.id.c_str(),
            stOut.c_str(), verdict.c_str(),
            med >= 0 ? (", median " + std::to_string(med).substr(0, 8) + " us")
                           .c_str()
                     : "",
            r.getDouble("duration_s", 0));
        std::cerr << line;
        if (stOut != protocol::kPass)
          std::cerr << " -- " << r.getString("reason", "").substr(0, 300);
        std::cerr << "\n";
      }
    }
  }
  double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart)
          .count();
  std::error_code ec;
  fs::remove_all(jobDir, ec);
  double unitsTotal = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - unitsStart)
                          .count();
  if (!quiet)
    std::cerr << "atrex-gate: " << passed << " passed, " << failed
              << " failed, " << errors << " errors in " << total << " s ("
              << unitsTotal << " s after compilation)\n";
  return errors ? 2 : 0;
}

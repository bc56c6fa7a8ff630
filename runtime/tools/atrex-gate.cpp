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
#include "atrex-rt/GateRun.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Protocol.h"
#include "atrex-rt/Supervisor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
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

// Per worker run: an empty HOME and TMPDIR of its own.
struct PrivateDirs {
  std::string root, home, tmp;
};
PrivateDirs makePrivateDirs(const std::string &root) {
  PrivateDirs p{root, root + "/home", root + "/tmp"};
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(p.home, ec);
  fs::create_directories(p.tmp, ec);
  return p;
}

// The shared temporary directories' entries (one level) with their times: a
// submission that ignores TMPDIR and writes to /tmp directly shows up there.
using TmpSnapshot = std::map<std::string, fs::file_time_type>;
const char *const kSharedTmp[] = {"/tmp", "/var/tmp", "/dev/shm"};
TmpSnapshot sharedTmpSnapshot() {
  TmpSnapshot s;
  std::error_code ec;
  for (const char *d : kSharedTmp)
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      s[it->path().string()] = fs::last_write_time(it->path(), ec);
  return s;
}

// {files: [{path, bytes}], count, outside_tmp?: [...]}: what the run left in
// its private HOME and TMPDIR (paths relative to them, "home/..." and
// "tmp/..."), and the entries of /tmp, /var/tmp and /dev/shm that appeared or
// changed while it ran, outside `ignore` (the gate's own cache). Other
// processes of the machine can change those too: a record, not a verdict.
Json filesWritten(const PrivateDirs &p, const TmpSnapshot &before, const std::vector<std::string> &ignore) {
  Json out = Json::object(), files = Json::array();
  int64_t count = 0;
  std::error_code ec;
  fs::path root(p.root);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) && !it->is_symlink(ec))
      continue;
    if (++count > 50)
      continue;
    Json f = Json::object();
    f.set("path", fs::relative(it->path(), root, ec).string());
    f.set("bytes", static_cast<int64_t>(it->is_regular_file(ec) ? it->file_size(ec) : 0));
    files.push(f);
  }
  out.set("count", count);
  out.set("files", files);
  Json outside = Json::array();
  for (const auto &[path, when] : sharedTmpSnapshot()) {
    bool skip = false;
    for (const std::string &ig : ignore)
      skip |= path == ig || ig.rfind(path + "/", 0) == 0;
    auto it = before.find(path);
    if (!skip && (it == before.end() || it->second != when) && outside.size() < 50)
      outside.push(path);
  }
  if (outside.size())
    out.set("outside_tmp", outside);
  return out;
}

// compute-sanitizer's guard padding after every allocation (bytes), when the
// tool has the option (asked once: `--help`); 0 otherwise.
int64_t memcheckPaddingBytes(const std::string &tool) {
  static int64_t cached = -1;
  if (cached >= 0)
    return cached;
  Limits lim;
  lim.wallSeconds = 30;
  lim.outputTailBytes = 1 << 20; // the whole help text
  ChildResult c = runSupervised({tool, "--help"}, lim);
  cached = (c.stdoutTail + c.stderrTail).find("--padding") != std::string::npos ? (1 << 20) : 0;
  return cached;
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
  j.set("gpu_mb", s.gpuMb);
  return j;
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
  auto add = [&](const std::string &name, bool ok, const std::string &detail, bool required = true) {
    items.push_back({name, detail, ok, required});
  };
  add("nvcc", fs::exists(nvccPath()), nvccPath() + " (CUDA " ATREX_RT_CUDA_VERSION ")");
  std::string cuobjdump = cuobjdumpPath();
  add("cuobjdump", fs::exists(cuobjdump),
      cuobjdump + (fs::exists(cuobjdump) ? " (extracts the submissions' cubins)"
                                         : ": not found (set ATREX_CUOBJDUMP)"));
  add("libtorch", fs::exists(ATREX_RT_TORCH_DIR), ATREX_RT_TORCH_VERSION " at " ATREX_RT_TORCH_DIR);
  std::string sanitizerTool = computeSanitizerPath();
  add("memcheck", fs::exists(sanitizerTool),
      sanitizerTool + (fs::exists(sanitizerTool) ? " (settings.memcheck)"
                                                 : ": not found (settings.memcheck inconclusive)"),
      false);
  PlanSettings defaults;
  std::string hipError;
  std::string hip = resolveHipInclude(defaults, hipError);
  add("hip", hipError.empty(), hipError.empty() ? "HIP on NVIDIA headers: " + hip
                                                : "HIP submissions cannot compile: " + hipError.substr(0, 160),
      false);
  bool haveWorker = fs::exists(worker);
  add("worker", haveWorker, worker);
  auto probe = [&](const std::map<std::string, std::string> &env, Json &out) -> std::string {
    Limits lim;
    lim.wallSeconds = 120;
    ChildResult c = runSupervised({worker, "--probe"}, lim, "", "", env);
    Json rep;
    if (!lastReportLine(c.report, rep))
      return "the worker's probe gave no report: " + c.reason() +
             (c.stderrTail.empty() ? "" : " (" + c.stderrTail.substr(0, 300) + ")");
    out = rep;
    return "";
  };
  Json attributed, clean;
  std::string e1 = haveWorker ? probe({}, attributed) : "no worker";
  std::string e2 = haveWorker ? probe({{"ATREX_GATE_NO_ATTRIBUTION", "1"}}, clean) : "no worker";
  if (!e1.empty()) {
    add("gpu", false, e1);
  } else if (attributed.getBool("cuda", false)) {
    add("gpu", true,
        attributed.getString("gpu", "?") + " (sm_" + attributed.getString("sm", "?") + ", " +
            std::to_string(attributed.getInt("gpus", 1)) + " visible, driver " +
            std::to_string(attributed.getInt("cuda_driver", 0)) + ")");
  } else {
    add("gpu", false, "no CUDA device visible to the worker: " + attributed.getString("cuda_error", "?"));
  }
  if (const Json *a = attributed.get("attribution"))
    add("attribution", a->getBool("ok", false),
        a->getBool("ok", false) ? "Compute Sanitizer API subscribed (" + a->getString("library", "") + ")"
                                : a->getString("error", "?"));
  else
    add("attribution", false, e1.empty() ? "not probed" : e1);
  if (const Json *n = attributed.get("nvml"))
    add("nvml", n->getBool("ok", false),
        n->getBool("ok", false) ? "SM clocks and throttle reasons recorded" : n->getString("error", "?"), false);
  if (const Json *c = clean.get("cupti"))
    add("cupti", c->getBool("ok", false),
        c->getBool("ok", false) ? "own-time share of mixed units measured (" + c->getString("library", "") + ")"
                                : "own-time share of mixed units stays null: " + c->getString("error", "?"),
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
  std::cout << (missing.empty() ? "the gate can run here\n" : "the gate cannot run here: " + missing + "\n");
  std::fflush(stdout);
  return missing.empty() ? 0 : 1;
}

const char *const kUsage =
    "usage: atrex-gate --plan PLAN.json --out RESULTS.jsonl [--shard i/n] [--resume] [--jobs N]\n"
    "                  [--compile-only] [--cache DIR] [--worker PATH] [--quiet]\n"
    "       atrex-gate --check [--worker PATH]\n";
const char *const kHelp = R"(
Runs a gate plan (atrex-gate-plan/1): compiles every submission once, runs each
(submission, problem) unit in a supervised atrex-gate-worker (correctness
against the libtorch reference, timing, attribution of every launched kernel)
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

int main(int argc, char **argv) {
  std::string planPath, outPath, shardText = "0/1", cacheDir, worker, jobDir;
  bool quiet = false, resume = false, compileOnly = false, check = false;
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
    else if (a == "--check")
      check = true;
    else if (a == "--jobs") {
      std::string v = value();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 256) {
        std::cerr << "atrex-gate: error: --jobs '" << v << "': expected 1..256\n";
        return 2;
      }
      jobsOpt = static_cast<unsigned>(n);
    } else if (a == "--version") {
      std::cout << "atrex-gate " ATREX_RT_VERSION " (commit " ATREX_RT_GIT_COMMIT ", CUDA " ATREX_RT_CUDA_VERSION
                   ", torch " ATREX_RT_TORCH_VERSION ")\n";
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage << kHelp;
      return 0;
    } else {
      std::cerr << "atrex-gate: unknown option '" << a << "'\n" << kUsage
                << "(atrex-gate --help for the options)\n";
      return 2;
    }
  }
  if (check) {
    if (worker.empty())
      worker = (fs::path(argv[0]).parent_path() / "atrex-gate-worker").string();
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
    uint64_t unitSeed = unitSeedOf(runSeed, u.index);
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
      job.set("schema", protocol::kJobSchema);
      job.set("operator", sub.op);
      job.set("shape", shapeToJson(prob.shape));
      job.set("library", fs::absolute(cr.soPath).string());
      Json ownHashes = Json::array();
      for (const Cubin &c : cr.cubins)
        ownHashes.push(hashHex(c.hash));
      job.set("own_fnv1a64", ownHashes);
      job.set("settings", settingsJson(plan.settings));
      Limits lim;
      lim.wallSeconds = plan.settings.problemSeconds;
      lim.rssBytes = plan.settings.rssBytes;
      lim.fileSizeBytes = plan.settings.fileSizeBytes;
      lim.addressSpaceBytes = plan.settings.addressSpaceBytes;
      lim.privateNetwork = plan.settings.privateNetwork;
      lim.killOrphans = true; // units run one at a time: no other child is running now
      Json sideEffects = Json::object(), workerSeconds = Json::object();
      // One worker run: the job document says which (attributed, clean,
      // memcheck) and with what; the worker's last complete JSON line is its
      // state. HOME and TMPDIR are private, empty directories per run; what
      // the run leaves in them is recorded under side_effects.<run>.
      auto runWorker = [&](const std::string &runKind, const Json &options,
                           const std::map<std::string, std::string> &extraEnv = {},
                           const std::vector<std::string> &wrapper = {}, double wallSeconds = 0) {
        std::string base = "unit" + std::to_string(u.index) + "." + runKind;
        std::string jobPath = (fs::path(jobDir) / (base + ".json")).string();
        Json j = job;
        j.set("run", runKind);
        for (const auto &[k, v] : options.asObject())
          j.set(k, v);
        writeFile(jobPath, j.dump(2));
        std::error_code ec;
        fs::remove(jobPath + ".phase", ec);
        PrivateDirs priv = makePrivateDirs((fs::path(jobDir) / (base + ".private")).string());
        std::map<std::string, std::string> env = extraEnv;
        env["HOME"] = priv.home;
        env["TMPDIR"] = priv.tmp;
        // The JIT caches of CUDA and of torch's own kernels (the references)
        // stay the gate's, shared by all runs: an empty one cost every worker
        // run NVRTC compiles. The candidate can write there too (recorded limit).
        env["CUDA_CACHE_PATH"] = (fs::path(cacheDir) / "jit" / "nv").string();
        env["PYTORCH_KERNEL_CACHE_PATH"] = (fs::path(cacheDir) / "jit" / "torch").string();
        WorkerRun run;
        // The seed and this run's report key go on stdin (never argv or the environment).
        std::string key = reportKey();
        std::vector<std::string> argvW = wrapper;
        for (const std::string &a : {worker, std::string("--job"), jobPath})
          argvW.push_back(a);
        Limits l = lim;
        if (wallSeconds > 0)
          l.wallSeconds = wallSeconds;
        auto before = sharedTmpSnapshot();
        run.child = runSupervised(argvW, l, std::to_string(unitSeed) + " " + key + "\n", jobDir, env,
                                  {"ATREX_GATE_SEED"});
        run.haveReport = lastReportLine(run.child.report, run.report, key, &run.forgedLines);
        // The gate's own work is blamed only when the phase file says so with this run's key.
        std::ifstream phase(jobPath + ".phase", std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(phase)), {});
        run.gateTimedOut = run.child.end == ChildResult::End::TimedOut && text == key + " g";
        sideEffects.set(runKind, filesWritten(priv, before, {cacheDir}));
        if (run.haveReport)
          if (const Json *ss = run.report.get("stage_seconds")) {
            Json w = *ss;
            w.set("wall_s", run.child.wallSeconds);
            workerSeconds.set(runKind, w);
          }
        fs::remove_all(priv.root, ec);
        return run;
      };
      WorkerRun run = runWorker(protocol::kRunAttributed, Json::object());
      r.set("child", run.child.toJson());
      if (run.haveReport)
        for (const char *k : {"env", "correctness", "performance", "attribution", "gpu_memory", "integrity"})
          if (const Json *v = run.report.get(k))
            r.set(k, *v);
      Outcome out = outcomeOf(run);
      status = out.status;
      stage = out.stage;
      reason = out.reason;
      if (const Json *a = r.get("attribution"))
        verdict = a->getString("verdict", "unknown");
      // A timer or launch interposer (the worker's integrity check after loading).
      if (const Json *ig = r.get("integrity"); ig && ig->has("suspicious")) {
        verdict = protocol::kSuspicious;
        status = protocol::kFail;
      }
      if (status == "pass" && !plan.settings.cleanTiming) {
        if (Json *a = r.get("attribution"); a && mixedOwnForeign(*a))
          a->set("own_time_share_why", "clean_timing is off: kernel durations not measured");
      }
      if (status == "pass" && plan.settings.cleanTiming) {
        Outcome cleanOut = applyCleanTiming(r, plan.settings, [&](int ownShareCalls, bool graphs) {
          Json o = Json::object();
          o.set("graphs", graphs);
          o.set("device_wide", !graphs); // side streams: CUPTI spans of every activity
          o.set("kernel_time_calls", ownShareCalls);
          return runWorker(protocol::kRunClean, o);
        });
        if (cleanOut.status == "fail") {
          status = "fail";
          stage = cleanOut.stage;
          reason = "clean timing run (no attribution): " + cleanOut.reason;
        } else if (cleanOut.status == "error") {
          status = "error";
          stage = cleanOut.stage;
          reason = cleanOut.reason;
        }
      }
      if (status == "pass" && plan.settings.memcheck) {
        // The correctness trials again, under compute-sanitizer's memcheck (no
        // Sanitizer subscription of our own: the tool is built on the same API).
        std::string tool = computeSanitizerPath();
        std::string log = (fs::path(jobDir) / ("unit" + std::to_string(u.index) + ".memcheck.log")).string();
        std::error_code ec;
        fs::remove(log, ec);
        // Without torch's caching allocator every tensor is its own cudaMalloc, so
        // memcheck sees each tensor's bounds (not those of a 2 MiB segment); with
        // --padding, a read past a tensor's end lands in a guard region instead of
        // the next allocation, which memcheck would take for a valid address.
        std::vector<std::string> wrap = {tool, "--tool", "memcheck", "--log-file", log, "--print-limit", "20"};
        int64_t padding = memcheckPaddingBytes(tool);
        if (padding > 0) {
          wrap.push_back("--padding");
          wrap.push_back(std::to_string(padding));
        }
        WorkerRun mrun = runWorker(protocol::kRunMemcheck, Json::object(),
                                   {{"PYTORCH_NO_CUDA_MEMORY_CACHING", "1"}}, wrap, plan.settings.memcheckSeconds);
        std::ifstream in(log, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        Outcome m = applyMemcheck(r, mrun, text);
        if (Json *mj = r.get("memcheck"))
          mj->set("padding_bytes", padding);
        if (m.status == "fail") {
          status = "fail";
          stage = m.stage;
          reason = m.reason;
        }
      }
      r.set("side_effects", sideEffects);
      r.set("worker_seconds", workerSeconds);
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
      appendResultLine(outPath, r.dump());
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

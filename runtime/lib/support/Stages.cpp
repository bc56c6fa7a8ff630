//===- Stages.cpp - The gate's stages and its worker runs
//------------------===//
//
// Each stage of atrex-gate (include/atrex-rt/Stage.h) is one class here,
// listed once in gateStages(); WorkerRunner runs the worker processes they
// ask for (docs/gate.md, "Stages" and "Worker batches").
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Stage.h"

#include "atrex-rt/Compare.h"
#include "atrex-rt/Config.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Protocol.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace atrex::rt {
namespace fs = std::filesystem;

void UnitState::take(const Outcome &out, const std::string &prefix) {
  status = out.status;
  stage = out.stage;
  reason = prefix + out.reason;
}

namespace {
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
    for (fs::directory_iterator it(d, ec), end; !ec && it != end;
         it.increment(ec))
      s[it->path().string()] = fs::last_write_time(it->path(), ec);
  return s;
}

// The private HOME and TMPDIR's files with their sizes and times.
using PrivateSnapshot =
    std::map<std::string, std::pair<int64_t, fs::file_time_type>>;

// {files: [{path, bytes}], count, outside_tmp?: [...]}: what the run wrote in
// its private HOME and TMPDIR since `privBefore` (paths relative to them,
// "home/..." and "tmp/..."; new files and files whose size or time changed),
// and the entries of /tmp, /var/tmp and /dev/shm that appeared or changed
// since `tmpBefore`, outside `ignore` (the gate's own cache). Both snapshots
// move on to now, so that a worker's next unit records only its own writes.
// Other processes of the machine can change the shared directories too: a
// record, not a verdict.
Json filesWritten(const PrivateDirs &p, TmpSnapshot &tmpBefore,
                  PrivateSnapshot &privBefore,
                  const std::vector<std::string> &ignore) {
  Json out = Json::object(), files = Json::array();
  int64_t count = 0;
  std::error_code ec;
  fs::path root(p.root);
  PrivateSnapshot now;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec) && !it->is_symlink(ec))
      continue;
    std::string rel = fs::relative(it->path(), root, ec).string();
    int64_t bytes =
        static_cast<int64_t>(it->is_regular_file(ec) ? it->file_size(ec) : 0);
    auto when =
        fs::symlink_status(it->path(), ec).type() == fs::file_type::symlink
            ? fs::file_time_type{}
            : fs::last_write_time(it->path(), ec);
    now[rel] = {bytes, when};
    auto was = privBefore.find(rel);
    if (was != privBefore.end() && was->second == now[rel])
      continue;
    if (++count > 50)
      continue;
    Json f = Json::object();
    f.set("path", rel);
    f.set("bytes", bytes);
    files.push(f);
  }
  privBefore = std::move(now);
  out.set("count", count);
  out.set("files", files);
  Json outside = Json::array();
  TmpSnapshot tmpNow = sharedTmpSnapshot();
  for (const auto &[path, when] : tmpNow) {
    bool skip = false;
    for (const std::string &ig : ignore)
      skip |= path == ig || ig.rfind(path + "/", 0) == 0;
    auto it = tmpBefore.find(path);
    if (!skip && (it == tmpBefore.end() || it->second != when) &&
        outside.size() < 50)
      outside.push(path);
  }
  tmpBefore = std::move(tmpNow);
  if (outside.size())
    out.set("outside_tmp", outside);
  return out;
}

// Two records of filesWritten for one unit (its own part and what the worker
// wrote after the unit's last line, before it ended) as one.
Json mergeFilesWritten(const Json &a, const Json &b) {
  Json out = Json::object(), files = Json::array(), outside = Json::array();
  for (const Json *j : {&a, &b}) {
    if (const Json *f = j->get("files"))
      for (const Json &e : f->asArray())
        if (files.size() < 50)
          files.push(e);
    if (const Json *o = j->get("outside_tmp"))
      for (const Json &e : o->asArray())
        if (outside.size() < 50)
          outside.push(e);
  }
  out.set("count", a.getInt("count", 0) + b.getInt("count", 0));
  out.set("files", files);
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
  cached = (c.stdoutTail + c.stderrTail).find("--padding") != std::string::npos
               ? (1 << 20)
               : 0;
  return cached;
}

} // namespace

PythonWorker pythonWorker(const std::string &worker) {
  PythonWorker p;
  fs::path bin = fs::path(worker).parent_path();
  const char *py = std::getenv("ATREX_GATE_PYTHON");
  p.python = py && *py ? py : ATREX_RT_PYTHON;
  p.script = (bin / "atrex_gate_worker.py").string();
  p.core = (bin.parent_path() / "lib" / "libatrex-gate-worker-py.so").string();
  return p;
}

WorkerRunner::WorkerRunner(const Plan &plan, std::string worker,
                           std::string jobDir, std::string cacheDir)
    : plan_(plan), worker_(std::move(worker)), jobDir_(std::move(jobDir)),
      cacheDir_(std::move(cacheDir)) {
  lim_.wallSeconds =
      plan.settings
          .problemSeconds; // per unit: the clock restarts at each unit's end
  lim_.rssBytes = plan.settings.rssBytes;
  lim_.fileSizeBytes = plan.settings.fileSizeBytes;
  lim_.addressSpaceBytes = plan.settings.addressSpaceBytes;
  lim_.privateNetwork = plan.settings.privateNetwork;
  // The read-only view: the worker can write its job directory (its private
  // HOME and TMPDIR, the phase file, memcheck logs) and the shared JIT caches,
  // nothing else (not the compile cache, not /tmp, not the plan's directory).
  lim_.readOnlyView = plan.settings.readOnlyView;
  if (lim_.readOnlyView) {
    std::error_code ec;
    fs::create_directories(fs::path(cacheDir_) / "jit", ec);
    // Device and kernel interfaces stay as they are: CUDA found no device in
    // a view with /dev, /proc and /sys read-only (H200, 2026-12-02c).
    lim_.writablePaths = {jobDir_, (fs::path(cacheDir_) / "jit").string(),
                          "/dev", "/proc", "/sys"};
  }
  lim_.killOrphans =
      true; // worker runs one at a time: no other child is running then
}

std::vector<WorkerRun>
WorkerRunner::run(const std::string &runKind, const CompileResult &cr,
                  const std::vector<BatchItem> &items,
                  const std::map<std::string, std::string> &extraEnv,
                  const std::vector<std::string> &wrapper,
                  double wallSeconds) const {
  std::vector<WorkerRun> out(items.size());
  const Submission &sub = *items.front().st->u->submission;
  size_t next = 0;
  while (next < items.size()) {
    std::string base =
        "unit" + std::to_string(items[next].st->u->index) + "." + runKind;
    std::string jobPath = (fs::path(jobDir_) / (base + ".json")).string();
    Json job = Json::object();
    job.set("schema", protocol::kJobSchema);
    job.set("run", runKind);
    job.set("operator", sub.op);
    job.set("library", fs::absolute(cr.soPath).string());
    Json ownHashes = Json::array();
    for (const Cubin &c : cr.cubins)
      ownHashes.push(hashHex(c.hash));
    job.set("own_fnv1a64", ownHashes);
    job.set("settings", workerSettingsJson(plan_.settings));
    Json jobUnits = Json::array();
    std::vector<int64_t> indices;
    // The seeds and this worker's report key go on stdin (never argv or the
    // environment).
    std::string key = reportKey(), stdinText;
    for (size_t i = next; i < items.size(); ++i) {
      const Unit &u = *items[i].st->u;
      Json e = Json::object();
      e.set("unit", static_cast<int64_t>(u.index));
      e.set("shape", shapeToJson(u.problem->shape));
      for (const auto &[k, v] : items[i].options.asObject())
        e.set(k, v);
      jobUnits.push(e);
      indices.push_back(static_cast<int64_t>(u.index));
      stdinText += std::to_string(items[i].st->seed) + " ";
    }
    stdinText += key + "\n";
    job.set("units", jobUnits);
    writeFile(jobPath, job.dump(2));
    std::error_code ec;
    fs::remove(jobPath + ".phase", ec);
    PrivateDirs priv =
        makePrivateDirs((fs::path(jobDir_) / (base + ".private")).string());
    std::map<std::string, std::string> env = extraEnv;
    env["HOME"] = priv.home;
    env["TMPDIR"] = priv.tmp;
    // The JIT caches of CUDA and of torch's own kernels (the references)
    // stay the gate's, shared by all runs: an empty one cost every worker
    // run NVRTC compiles. The candidate can write there too (recorded limit).
    env["CUDA_CACHE_PATH"] = (fs::path(cacheDir_) / "jit" / "nv").string();
    env["PYTORCH_KERNEL_CACHE_PATH"] =
        (fs::path(cacheDir_) / "jit" / "torch").string();
    std::vector<std::string> argvW = wrapper;
    if (sub.lang == "python") {
      // Python submissions: the same worker as a library in a Python process
      // (runtime/python/atrex_gate_worker.py, include/atrex-rt/PythonHost.h),
      // its Triton and extension caches the gate's like the JIT caches above.
      PythonWorker py = pythonWorker(worker_);
      for (const std::string &a :
           {py.python, py.script, std::string("--core"), py.core,
            std::string("--source"), cr.soPath, std::string("--format"),
            sub.format, std::string("--entry"), sub.entry})
        argvW.push_back(a);
      // One directory per submission: a submission cannot plant a build or
      // a Triton cache entry that another one would load.
      env["TRITON_CACHE_DIR"] =
          (fs::path(cacheDir_) / "jit" / "triton" / cr.key).string();
      env["TORCH_EXTENSIONS_DIR"] =
          (fs::path(cacheDir_) / "jit" / "torch_extensions" / cr.key).string();
      // load_inline builds for the plan's architecture (sm_90 -> 9.0).
      env["TORCH_CUDA_ARCH_LIST"] =
          protocol::torchArchList(plan_.settings.arch);
      env["PYTHONDONTWRITEBYTECODE"] = "1";
      env["PYTHONNOUSERSITE"] = "1";
      env["CUDA_MODULE_LOADING"] = "LAZY";
      argvW.push_back("--job");
      argvW.push_back(jobPath);
    } else {
      for (const std::string &a : {worker_, std::string("--job"), jobPath})
        argvW.push_back(a);
    }
    Limits l = lim_;
    if (wallSeconds > 0)
      l.wallSeconds = wallSeconds;
    BatchReport rep(indices, key);
    std::vector<UnitMark> marks;
    std::vector<Json> effects;
    TmpSnapshot tmpBefore = sharedTmpSnapshot();
    PrivateSnapshot privBefore;
    // At each unit's end (its final line): the processes that left the
    // worker's group are killed and counted for it, and what it wrote is
    // recorded; the watchdog's clock starts again for the next unit.
    auto hook = [&](pid_t child, const ChildResult &sofar) {
      Progress pr;
      for (size_t pos : rep.feed(sofar.report)) {
        UnitMark m;
        m.endSeconds = sofar.wallSeconds;
        m.peakRssBytes = sofar.peakRssBytes;
        // What the unit wrote first: the worker goes on to its next unit
        // meanwhile, and killing escaped processes waits for them to end.
        effects.push_back(
            filesWritten(priv, tmpBefore, privBefore, {cacheDir_}));
        m.orphansKilled = killEscaped(child);
        marks.push_back(m);
        pr.restartClock = true;
        if (rep.forged(pos) > 0 || m.orphansKilled > 0)
          pr.stop = true; // the unit fails: the next gets a fresh worker
      }
      return pr;
    };
    // Gates sharing a GPU (--device-lock) run their workers one at a time;
    // the worker's clock starts once the lock is held.
    int lockFd = -1;
    if (!deviceLock_.empty()) {
      lockFd = open(deviceLock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (lockFd < 0)
        throw std::runtime_error("--device-lock: cannot open '" + deviceLock_ +
                                 "': " + std::strerror(errno));
      while (flock(lockFd, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
    ChildResult child = runSupervised(argvW, l, stdinText, jobDir_, env,
                                      {"ATREX_GATE_SEED"}, hook);
    if (lockFd >= 0)
      close(lockFd); // releases the lock
    rep.feed(child.report);
    // The gate's own work is blamed only when the phase file says so with this
    // run's key.
    std::ifstream phase(jobPath + ".phase", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(phase)), {});
    bool gateTimedOut =
        child.end == ChildResult::End::TimedOut && text == key + " g";
    std::vector<WorkerRun> decided =
        decideBatch(rep, child, marks, gateTimedOut);
    Json tail = filesWritten(priv, tmpBefore, privBefore, {cacheDir_});
    if (decided.empty()) {
      // Cannot happen (a worker ends by itself inside a unit, or is stopped
      // after one ended); never loop on it.
      decided.push_back(WorkerRun{child, false, false, 0, Json()});
      decided.back().child.end = ChildResult::End::SpawnFailed;
      decided.back().child.spawnError =
          "internal: the worker's batch decided no unit";
    }
    for (size_t k = 0; k < decided.size(); ++k) {
      UnitState &st = *items[next + k].st;
      bool last = k + 1 == decided.size();
      // The files written after the last unit end are that unit's only
      // when the worker's end is (not after a unit that stopped the batch
      // while later units, run again elsewhere, had already started).
      bool ownsTail =
          last && decided[k].child.end != ChildResult::End::Continued;
      Json se =
          k < effects.size()
              ? (ownsTail ? mergeFilesWritten(effects[k], tail) : effects[k])
              : tail;
      st.sideEffects.set(runKind, se);
      st.workerWall += decided[k].child.wallSeconds;
      if (decided[k].haveReport)
        if (const Json *ss = decided[k].report.get("stage_seconds")) {
          Json w = *ss;
          w.set("wall_s", decided[k].child.wallSeconds);
          Json b = Json::object();
          b.set("units", static_cast<int64_t>(items.size() - next));
          b.set("position", static_cast<int64_t>(k));
          b.set("worker_wall_s", child.wallSeconds);
          w.set("batch", b);
          st.workerSeconds.set(runKind, w);
        }
      out[next + k] = std::move(decided[k]);
    }
    next += decided.size();
    fs::remove_all(priv.root, ec);
  }
  return out;
}

namespace {

// ---- the stages -----------------------------------------------------------

// The compile result of the submission (compiled once, ahead of the runs,
// cached by content hash) recorded on each unit; a failed compile fails them.
class CompileStage final : public Stage {
public:
  std::string_view name() const override { return protocol::kStageCompile; }
  void run(GroupContext &g) const override {
    for (UnitState &st : g.states) {
      st.r.set("compile", g.compile.toJson());
      if (!g.compile.ok) {
        st.status =
            g.compile.internalError ? protocol::kError : protocol::kFail;
        st.reason = "compile: " + g.compile.reason;
      }
    }
  }
};

// Correctness, performance and attribution: the attributed run (the
// worker's Compute Sanitizer subscription: the dynamic verdict).
class AttributedRunStage final : public Stage {
public:
  std::string_view name() const override { return "attributed-run"; }
  void run(GroupContext &g) const override {
    if (!g.compile.ok)
      return;
    std::vector<BatchItem> items;
    for (UnitState &st : g.states)
      items.push_back({&st, Json::object()});
    std::vector<WorkerRun> runs =
        g.workers.run(protocol::kRunAttributed, g.compile, items);
    for (size_t k = 0; k < items.size(); ++k) {
      UnitState &st = *items[k].st;
      Json &r = st.r;
      const WorkerRun &run = runs[k];
      r.set("child", run.child.toJson());
      if (run.haveReport)
        for (const char *key :
             {"env", "correctness", "performance", "attribution", "gpu_memory",
              "integrity", "python"})
          if (const Json *v = run.report.get(key))
            r.set(key, *v);
      st.take(outcomeOf(run));
      if (const Json *a = r.get("attribution"))
        st.verdict = a->getString("verdict", protocol::kUnknown);
      // A timer or launch interposer (the worker's integrity check after
      // loading).
      if (const Json *ig = r.get("integrity"); ig && ig->has("suspicious")) {
        st.verdict = protocol::kSuspicious;
        st.status = protocol::kFail;
      }
      if (st.passing() && !g.plan.settings.cleanTiming) {
        if (Json *a = r.get("attribution"); a && mixedOwnForeign(*a))
          a->set("own_time_share_why",
                 "clean_timing is off: kernel durations not measured");
      }
    }
  }
};

// The clean timing run of the units that passed (no subscription; CUPTI for
// side streams and the own-time share): one worker for them all
// (docs/gate.md, "Clean timing run").
class CleanTimingStage final : public Stage {
public:
  std::string_view name() const override { return "clean-timing"; }
  bool enabled(const PlanSettings &s) const override { return s.cleanTiming; }
  void run(GroupContext &g) const override {
    std::vector<BatchItem> items;
    for (UnitState &st : g.states) {
      if (!st.passing())
        continue;
      st.clean = planCleanRun(st.r, g.plan.settings);
      if (!st.clean.run)
        continue;
      Json o = Json::object();
      o.set("graphs", st.clean.graphs);
      o.set("device_wide",
            !st.clean.graphs); // side streams: CUPTI spans of every activity
      o.set("kernel_time_calls", st.clean.ownShareCalls);
      items.push_back({&st, o});
    }
    if (items.empty())
      return;
    std::vector<WorkerRun> runs =
        g.workers.run(protocol::kRunClean, g.compile, items);
    for (size_t k = 0; k < items.size(); ++k) {
      UnitState &st = *items[k].st;
      Outcome out = applyCleanRun(st.r, g.plan.settings, st.clean, runs[k]);
      if (out.status == protocol::kFail)
        st.take(out, "clean timing run (no attribution): ");
      else if (out.status == protocol::kError)
        st.take(out);
    }
  }
};

// The correctness trials again, under compute-sanitizer's memcheck (no
// Sanitizer subscription of our own: the tool is built on the same API), one
// worker per unit: the tool's log is the unit's (docs/gate.md, "Memcheck").
class MemcheckStage final : public Stage {
public:
  std::string_view name() const override {
    return protocol::kRunMemcheck;
  } // the memcheck run
  bool enabled(const PlanSettings &s) const override { return s.memcheck; }
  void run(GroupContext &g) const override {
    for (UnitState &st : g.states) {
      if (!st.passing())
        continue;
      std::string tool = computeSanitizerPath();
      std::string log =
          (fs::path(g.workers.jobDir()) /
           ("unit" + std::to_string(st.u->index) + ".memcheck.log"))
              .string();
      std::error_code ec;
      fs::remove(log, ec);
      // Without torch's caching allocator every tensor is its own cudaMalloc,
      // so memcheck sees each tensor's bounds (not those of a 2 MiB segment);
      // with
      // --padding, a read past a tensor's end lands in a guard region instead
      // of the next allocation, which memcheck would take for a valid address.
      std::vector<std::string> wrap = {
          tool, "--tool", "memcheck", "--log-file", log, "--print-limit", "20"};
      int64_t padding = memcheckPaddingBytes(tool);
      if (padding > 0) {
        wrap.push_back("--padding");
        wrap.push_back(std::to_string(padding));
      }
      WorkerRun mrun =
          g.workers
              .run(protocol::kRunMemcheck, g.compile, {{&st, Json::object()}},
                   {{"PYTORCH_NO_CUDA_MEMORY_CACHING", "1"}}, wrap,
                   g.plan.settings.memcheckSeconds)
              .front();
      std::ifstream in(log, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      Outcome m = applyMemcheck(st.r, mrun, text);
      if (Json *mj = st.r.get("memcheck"))
        mj->set("padding_bytes", padding);
      if (m.status == protocol::kFail)
        st.take(m);
    }
  }
};

// A median below the problem's impossibility floor (`floor_s`): no kernel
// can do the work that fast, so the time (or the work) is not what it seems.
class FloorStage final : public Stage {
public:
  std::string_view name() const override { return "floor"; }
  void run(GroupContext &g) const override {
    for (UnitState &st : g.states) {
      const Problem &prob = *st.u->problem;
      if (!st.passing() || prob.floorSeconds <= 0)
        continue;
      const Json *perf = st.r.get("performance");
      double med = perf ? perf->getDouble("median_us", 0) * 1e-6 : 0;
      if (med < prob.floorSeconds) {
        st.verdict = protocol::kSuspicious;
        st.status = protocol::kFail;
        st.reason = "median time below the impossibility floor";
      }
    }
  }
};

// A time measured while the GPU slowed its clocks for heat, a hardware
// slowdown or a power brake is not the kernel's: the unit is the gate's
// error (run it again), not the submission's failure. NVML's reasons as the
// worker sampled them after the timed loop (performance.clocks.after, and
// the clean run's when it has them); the power cap is normal under load.
class ClocksStage final : public Stage {
public:
  std::string_view name() const override { return "clock-check"; }
  bool enabled(const PlanSettings &s) const override { return s.clockCheck; }
  void run(GroupContext &g) const override {
    static const char *const kSlowdowns[] = {"sw_thermal", "hw_thermal",
                                             "hw_slowdown", "hw_power_brake"};
    for (UnitState &st : g.states) {
      if (!st.passing())
        continue;
      const Json *perf = st.r.get("performance");
      std::string found;
      for (const Json *p : {perf, perf ? perf->get("clean_run") : nullptr}) {
        const Json *clocks = p ? p->get("clocks") : nullptr;
        const Json *after = clocks ? clocks->get("after") : nullptr;
        const Json *reasons =
            after ? after->get("clock_event_reasons") : nullptr;
        if (!reasons || !reasons->isArray())
          continue;
        for (const Json &r : reasons->asArray())
          for (const char *s : kSlowdowns)
            if (r.isString() && r.asString() == s &&
                found.find(s) == std::string::npos)
              found += (found.empty() ? "" : ", ") + std::string(s);
      }
      if (!found.empty())
        st.take({protocol::kError, protocol::kStagePerformance,
                 "the GPU slowed its clocks during the timed calls (" + found +
                     "): the time is not the kernel's; run the unit again "
                     "(--resume)"});
    }
  }
};

} // namespace

const std::vector<const Stage *> &gateStages() {
  // One line per stage, in the order they run.
  static const std::vector<const Stage *> stages = {
      new CompileStage(),  new AttributedRunStage(), new CleanTimingStage(),
      new MemcheckStage(), new FloorStage(),         new ClocksStage(),
  };
  return stages;
}

} // namespace atrex::rt

//===- atrex-fleet.cpp - Run a gate plan as a Slurm job array -------------===//
//
//   atrex-fleet submit  --dir RUN [--plan PLAN.json] [--shards N] [--config
//   FILE] [options] atrex-fleet status  --dir RUN atrex-fleet collect --dir RUN
//   [--out FILE] [--partial] [--name NAME] [-- SEALED score options]
//
// `submit` writes two sbatch scripts into RUN: the compile job (atrex-gate
// --compile-only into the shared cache) and a job array with one GPU per
// task, task i running `atrex-gate --shard i/N --resume --out
// RUN/shard-i.jsonl`; the array depends on the compile job. Submitting again
// runs only the shards that still have units without a result. `status`
// reads squeue/sacct and the shards' results; `collect` merges the shards,
// checks that they partition the plan's units and hands the merged results
// to atrex-score. docs/fleet.md.
//
//===----------------------------------------------------------------------===//
#include "Cli.h"
#include "atrex-rt/Fleet.h"
#include "atrex-rt/GateRun.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Supervisor.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

using namespace atrex::rt;
using namespace atrex::rt::fleet;
namespace fs = std::filesystem;

namespace {
const char *const kUsage =
    "usage: atrex-fleet submit  --dir RUN [--plan PLAN.json] [--shards N] "
    "[--config FILE] [options]\n"
    "       atrex-fleet status  --dir RUN\n"
    "       atrex-fleet collect --dir RUN [--out FILE] [--partial] [--name "
    "NAME] [--score-tool PATH]\n"
    "                           [-- SEALED [atrex-score options]]\n";
const char *const kHelp = R"(
Runs a gate plan (atrex-gate-plan/1) on Slurm: one job array task per shard,
one GPU each, after a compile job that fills the shared compile cache.

submit: writes RUN/compile.sbatch and RUN/shards.sbatch and submits them
(sbatch --dependency=afterok:<compile job> --array=<shards>). Task i runs
  atrex-gate --plan PLAN --shard i/N --resume --cache CACHE --out RUN/shard-i.jsonl
The first submission fixes the plan, N, the gate and the cache (RUN/fleet.json);
submitting again (after every job of the run has left the queue) runs only
the shards with units that have no result ("error" results run again).
  --plan PLAN.json       the gate plan (first submission)
  --shards N             array tasks (default: min(units, 16); first submission)
  --config FILE          sbatch settings (atrex-fleet-config/1, docs/fleet.md);
                         the flags below override it
  --partition P  --account A  --time T  --cpus-per-task N  --mem M
                         the array's tasks (time: Slurm's format; default from
                         the plan's problem_s, compile_s and the shard size)
  --gpu-type TYPE        --gres=gpu:TYPE:1 instead of --gres=gpu:1
  --max-parallel K       at most K tasks at once (--array=...%K)
  --sbatch OPT           one more #SBATCH option for the tasks (repeatable)
  --setup LINE           a shell line run before the gate (repeatable:
                         module load cuda, source a venv)
  --compile-partition P  --compile-account A  --compile-time T
  --compile-cpus N  --compile-mem M  --compile-sbatch OPT
                         the compile job (partition and account default to
                         the tasks'; no GPU)
  --job-name NAME        (default atrex-fleet)
  --gate PATH            atrex-gate as the jobs see it (default: next to atrex-fleet)
  --gate-arg ARG         one more atrex-gate argument, one word each
                         (repeatable: --gate-arg --jobs --gate-arg 4)
  --cache DIR            the compile cache, on a file system every node shares
                         (default: the plan's cache_dir, else RUN/cache)
  --dry-run              write the scripts, print the sbatch commands, submit nothing
  --no-submit            write the scripts and the run record, submit nothing
                         (another scheduler runs the shards: status and
                         collect work on RUN; a later submit submits them)

status: per shard, units with a result / units, and the task's state
(squeue, else sacct).

collect: merges RUN/shard-*.jsonl into RUN/results.jsonl (or --out): one line
per unit, in unit order (its last result other than "error", else its last
"error"); torn lines (a task killed while writing) are kept apart in
RUN/torn-lines.txt. Every line must be a unit of its shard of the plan, or
nothing is merged. With units left without a result it stops there (exit 1)
unless --partial. Arguments after "--" go to atrex-score with
--set NAME=RUN/results.jsonl (NAME: --name, default the name of RUN).
  --score-tool PATH      atrex-score (default: next to atrex-fleet, the build
                         tree's build/bin, else PATH)

Exit status: 0 done, 1 units without a result (collect) or results that do
not partition the plan, 2 usage, configuration or Slurm errors; collect with
"--" exits with atrex-score's status. Documentation: docs/fleet.md.
)";

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "atrex-fleet: " << msg << "\n"
            << kUsage << "(atrex-fleet --help for the options)\n";
  std::exit(2);
}

std::string selfDir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

std::string isoNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// One Slurm client command: its exit status and output.
struct Slurm {
  bool ran = false;
  int rc = -1;
  std::string out, err;
  std::string why() const { return err.empty() ? out : err; }
};
Slurm slurm(const std::vector<std::string> &argv) {
  Limits lim;
  lim.wallSeconds = 120;
  lim.outputTailBytes = 4 << 20;
  ChildResult c = runSupervised(argv, lim);
  Slurm s;
  s.ran = c.end != ChildResult::End::SpawnFailed;
  s.rc = c.end == ChildResult::End::Exited ? c.exitCode : -1;
  s.out = c.stdoutTail;
  s.err = s.ran ? c.stderrTail : argv[0] + ": " + c.reason();
  while (!s.err.empty() && (s.err.back() == '\n' || s.err.back() == '\r'))
    s.err.pop_back();
  return s;
}

std::string joinIds(const std::vector<std::string> &ids) {
  std::string s;
  for (const auto &id : ids)
    s += (s.empty() ? "" : ",") + id;
  return s;
}

// Every job of the run's submissions (compile jobs and array jobs).
std::vector<std::string> runJobs(const Run &run) {
  std::vector<std::string> ids;
  for (const Submitted &s : run.submissions)
    for (const std::string &id : {s.compileJob, s.arrayJob})
      if (!id.empty())
        ids.push_back(id);
  return ids;
}

// squeue's states of `ids` (array tasks one per line); `all`: also jobs that
// ended within Slurm's MinJobAge. An id Slurm no longer knows is no error.
std::map<std::string, std::string> queued(const std::vector<std::string> &ids,
                                          bool all, std::string &error) {
  if (ids.empty())
    return {};
  std::vector<std::string> argv = {"squeue", "--noheader", "--array",
                                   "--format=%i|%T", "--jobs=" + joinIds(ids)};
  if (all)
    argv.push_back("--states=all");
  Slurm s = slurm(argv);
  if (s.rc != 0) {
    if (s.ran && s.err.find("Invalid job id") != std::string::npos)
      return {};
    error = "squeue: " + s.why();
    return {};
  }
  return parseJobStates(s.out);
}

struct Flags {
  std::vector<std::pair<std::string, std::string>> items; // in order
  std::set<std::string> bools;
  std::vector<std::string> rest; // after "--"
  const std::string *get(const std::string &name) const {
    const std::string *v = nullptr;
    for (const auto &[k, val] : items)
      if (k == name)
        v = &val;
    return v;
  }
};

// The command's options through CLI11 (tools/Cli.h): every valued option may
// repeat (one value each, kept in the order given: the later one wins where
// one counts, repeatable ones append).
Flags parseFlags(int argc, char **argv, const std::set<std::string> &valued,
                 const std::set<std::string> &boolean, bool allowRest) {
  Flags f;
  CLI::App app;
  cli::configure(app);
  for (const std::string &name : valued)
    cli::repeatable(app.add_option(name));
  for (const std::string &name : boolean)
    app.add_flag(name);
  cli::Leftover left;
  const std::string usageHint =
      std::string(kUsage) + "(atrex-fleet --help for the options)\n";
  if (auto rc = cli::parse(app, argc, argv, 2, "atrex-fleet",
                           std::string(kUsage) + kHelp, usageHint, left))
    std::exit(*rc);
  if (!left.unknown.empty())
    usageError("unknown option '" + left.unknown.front() + "' for " + argv[1]);
  if (left.sawDashDash && !allowRest)
    usageError("unknown option '--' for " + std::string(argv[1]));
  f.rest = left.rest;
  std::map<const CLI::Option *, size_t> seen;
  for (const CLI::Option *opt : app.parse_order()) {
    std::string name = opt->get_name();
    if (boolean.count(name)) {
      f.bools.insert(name);
      continue;
    }
    size_t &i = seen[opt];
    if (i < opt->results().size())
      f.items.emplace_back(name, opt->results()[i++]);
  }
  if (!f.get("--dir"))
    usageError(std::string(argv[1]) + ": --dir RUN is required");
  return f;
}

int64_t intFlag(const std::string &flag, const std::string &v) {
  try {
    size_t end = 0;
    long long n = std::stoll(v, &end);
    if (end == v.size())
      return n;
  } catch (...) {
  }
  throw std::runtime_error(flag + ": '" + v + "' is not an integer");
}

// Flags over the configuration (the configuration file first, whatever the
// order).
Config configOf(const Flags &f) {
  Config c;
  if (const std::string *path = f.get("--config"))
    c = loadConfig(*path, c);
  for (const auto &[k, v] : f.items) {
    if (k == "--partition")
      setName(c.tasks.partition, v, k);
    else if (k == "--account")
      setName(c.tasks.account, v, k);
    else if (k == "--time")
      setTime(c.tasks.time, v, k);
    else if (k == "--cpus-per-task")
      setCount(c.tasks.cpusPerTask, intFlag(k, v), 1, 4096, k);
    else if (k == "--mem")
      setMem(c.tasks.mem, v, k);
    else if (k == "--sbatch")
      addSbatchOption(c.tasks.sbatch, v, k);
    else if (k == "--gpu-type")
      setName(c.gpuType, v, k);
    else if (k == "--max-parallel")
      setCount(c.maxParallel, intFlag(k, v), 0, 1000000, k);
    else if (k == "--setup")
      addLine(c.setup, v, k);
    else if (k == "--job-name")
      setName(c.jobName, v, k);
    else if (k == "--compile-partition")
      setName(c.compile.partition, v, k);
    else if (k == "--compile-account")
      setName(c.compile.account, v, k);
    else if (k == "--compile-time")
      setTime(c.compile.time, v, k);
    else if (k == "--compile-cpus")
      setCount(c.compile.cpusPerTask, intFlag(k, v), 1, 4096, k);
    else if (k == "--compile-mem")
      setMem(c.compile.mem, v, k);
    else if (k == "--compile-sbatch")
      addSbatchOption(c.compile.sbatch, v, k);
    else if (k == "--gate-arg")
      addGateArg(c.gateArgs, v, k);
    else if (k == "--gate")
      c.gate = fs::absolute(v).lexically_normal().string();
    else if (k == "--cache")
      c.cache = fs::absolute(v).lexically_normal().string();
  }
  if (c.compile.partition.empty())
    c.compile.partition = c.tasks.partition;
  if (c.compile.account.empty())
    c.compile.account = c.tasks.account;
  return c;
}

Layout layoutOf(const Flags &f) {
  fs::path p = fs::absolute(*f.get("--dir")).lexically_normal();
  if (p.filename().empty()) // "runs/naive/"
    p = p.parent_path();
  return Layout{p.string()};
}

int submit(const Flags &f) {
  Layout L = layoutOf(f);
  checkRunDir(L.dir);
  Config c = configOf(f);
  Run run;
  bool first = !fs::exists(L.record());
  if (first) {
    const std::string *planArg = f.get("--plan");
    if (!planArg)
      throw std::runtime_error(L.dir + " has no run yet (" + L.record() +
                               "): --plan PLAN.json is required");
    run.plan = fs::absolute(*planArg).lexically_normal().string();
    Plan plan = loadPlan(run.plan);
    run.planHash = planHash(run.plan);
    run.units = static_cast<int64_t>(allUnits(plan).size());
    run.shards = static_cast<int>(std::min<int64_t>(run.units, 16));
    if (const std::string *n = f.get("--shards")) {
      setCount(run.shards, intFlag("--shards", *n), 1, 1000000, "--shards");
      if (run.shards > run.units)
        throw std::runtime_error("--shards " + *n + ": the plan has " +
                                 std::to_string(run.units) + " units");
    }
    run.gate = !c.gate.empty() ? c.gate
                               : (fs::path(selfDir()) / "atrex-gate").string();
    run.cache =
        !c.cache.empty() ? c.cache
        : !plan.settings.cacheDir.empty()
            ? fs::absolute(plan.settings.cacheDir).lexically_normal().string()
            : L.dir + "/cache";
  } else {
    run = loadRun(L.record());
    auto fixed = [&](const char *flag, const std::string &now,
                     const std::string &was) {
      if (now != was)
        throw std::runtime_error(
            std::string(flag) + " " + now + ": " + L.record() +
            " was submitted with " + was +
            " (fixed by the first submission; a new --dir starts a new run)");
    };
    if (const std::string *p = f.get("--plan"))
      fixed("--plan", fs::absolute(*p).lexically_normal().string(), run.plan);
    if (const std::string *n = f.get("--shards"))
      fixed("--shards", *n, std::to_string(run.shards));
    if (!c.gate.empty())
      fixed("--gate", c.gate, run.gate);
    if (!c.cache.empty())
      fixed("--cache", c.cache, run.cache);
  }
  Plan plan = loadRunPlan(run, L.record());

  // A job of the run still queued or running would write the shard files too.
  if (!first) {
    std::string error;
    auto active = queued(runJobs(run), false, error);
    if (!error.empty())
      throw std::runtime_error("cannot tell whether jobs of " + L.dir +
                               " are still queued: " + error);
    if (!active.empty()) {
      std::string list;
      for (const auto &[id, state] : active)
        list += (list.empty() ? "" : ", ") + id + " " + state;
      std::cerr << "atrex-fleet: error: jobs of " << L.dir
                << " are still in the queue (" << list
                << "); wait for them (atrex fleet status --dir " << L.dir
                << ") or scancel them, then submit again\n";
      return 2;
    }
  }

  std::vector<int> todo;
  size_t left = 0;
  for (const ShardProgress &p : progress(plan, run, L)) {
    for (const std::string &w : p.warnings)
      std::cerr << "atrex-fleet: warning: " << w << "\n";
    if (p.done < p.units) {
      todo.push_back(p.shard);
      left += p.units - p.done;
    }
  }
  if (todo.empty()) {
    std::cout << "atrex-fleet: all " << run.units << " units of " << L.dir
              << " have a result; nothing to submit (atrex fleet collect --dir "
              << L.dir << ")\n";
    return 0;
  }
  if (c.tasks.time.empty()) {
    c.tasks.time = defaultTaskTime(plan, run.shards);
    std::cerr << "atrex-fleet: time limit per task " << c.tasks.time
              << " (the largest shard's units at problem_s "
              << plan.settings.problemSeconds
              << " s per worker run, plus compile_s; --time sets it)\n";
  }
  if (c.compile.time.empty())
    c.compile.time = defaultCompileTime(plan, c.compile.cpusPerTask);

  fs::create_directories(L.logs());
  writeFile(L.compileScript(), compileScript(c, run, L));
  writeFile(L.shardScript(), shardScript(c, run, L));
  for (const std::string &p : {L.compileScript(), L.shardScript()})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  std::string array =
      arrayIndices(todo) +
      (c.maxParallel > 0 ? "%" + std::to_string(c.maxParallel) : "");
  std::vector<std::string> compileCmd = {"sbatch", "--parsable",
                                         L.compileScript()};
  auto arrayCmd = [&](const std::string &compileJob) {
    return std::vector<std::string>{"sbatch",
                                    "--parsable",
                                    "--dependency=afterok:" + compileJob,
                                    "--kill-on-invalid-dep=yes",
                                    "--array=" + array,
                                    L.shardScript()};
  };
  if (f.bools.count("--dry-run")) {
    auto show = [](const std::vector<std::string> &argv) {
      std::string s;
      for (const auto &a : argv)
        s += (s.empty() ? "" : " ") + a;
      return s;
    };
    std::cout << show(compileCmd) << "\n"
              << show(arrayCmd("<compile job>")) << "\n";
    std::cerr << "atrex-fleet: dry run: " << todo.size() << " shards (" << left
              << " units without a result), "
              << "scripts in " << L.dir << ", nothing submitted\n";
    return 0;
  }
  if (f.bools.count("--no-submit")) {
    saveRun(run, L.record());
    std::cout << "atrex-fleet: recorded " << L.record() << " (" << run.shards
              << " shards of " << run.plan
              << ") and wrote the scripts; nothing submitted: run the shards "
                 "under another scheduler "
                 "(docs/fleet.md), or atrex fleet submit --dir "
              << L.dir << " later\n";
    return 0;
  }
  Slurm cs = slurm(compileCmd);
  if (cs.rc != 0)
    throw std::runtime_error("sbatch " + L.compileScript() +
                             " failed: " + cs.why());
  Submitted sub;
  sub.submittedAt = isoNow();
  sub.compileJob = parseJobId(cs.out);
  Slurm as = slurm(arrayCmd(sub.compileJob));
  if (as.rc != 0) {
    slurm({"scancel", sub.compileJob});
    throw std::runtime_error("sbatch " + L.shardScript() +
                             " failed (compile job " + sub.compileJob +
                             " cancelled): " + as.why());
  }
  sub.arrayJob = parseJobId(as.out);
  sub.array = array;
  sub.shards = todo;
  run.submissions.push_back(sub);
  saveRun(run, L.record());
  std::cout << "atrex-fleet: submitted compile job " << sub.compileJob
            << " and array job " << sub.arrayJob << " (shards " << array
            << " of " << run.shards << ", " << left << " of " << run.units
            << " units without a result)\n"
            << "  status:  atrex fleet status --dir " << L.dir << "\n"
            << "  results: atrex fleet collect --dir " << L.dir << "\n";
  return 0;
}

int status(const Flags &f) {
  Layout L = layoutOf(f);
  Run run = loadRun(L.record());
  Plan plan = loadRunPlan(run, L.record());
  std::vector<ShardProgress> prog = progress(plan, run, L);
  // The job of each shard: the array task of the last submission that ran it.
  std::map<int, std::string> jobOf;
  for (const Submitted &s : run.submissions)
    for (int i : s.shards)
      jobOf[i] = s.arrayJob + "_" + std::to_string(i);
  std::string compileJob =
      run.submissions.empty() ? "" : run.submissions.back().compileJob;
  std::string squeueError, sacctError;
  std::map<std::string, std::string> states =
      queued(runJobs(run), true, squeueError);
  std::vector<std::string> unknown;
  for (const auto &[i, id] : jobOf)
    if (!states.count(id))
      unknown.push_back(id);
  if (!compileJob.empty() && !states.count(compileJob))
    unknown.push_back(compileJob);
  if (!unknown.empty()) {
    Slurm s = slurm({"sacct", "--noheader", "--parsable2",
                     "--format=JobID,State", "--jobs=" + joinIds(unknown)});
    if (s.rc == 0)
      for (const auto &[id, state] : parseJobStates(s.out))
        states.emplace(id, state);
    else
      sacctError = "sacct: " + s.why();
  }
  auto stateOf = [&](const std::string &id) {
    auto it = states.find(id);
    return it != states.end() ? it->second : std::string("state unknown");
  };
  std::cout << "atrex-fleet: " << L.dir << ": " << run.shards << " shards of "
            << run.plan << " (" << run.units << " units)\n";
  if (!compileJob.empty())
    std::cout << "  compile job " << compileJob << ": " << stateOf(compileJob)
              << "\n";
  size_t done = 0;
  for (const ShardProgress &p : prog) {
    done += p.done;
    std::cout << "  shard " << p.shard << ": " << p.done << "/" << p.units
              << " units";
    if (jobOf.count(p.shard))
      std::cout << ", job " << jobOf[p.shard] << " " << stateOf(jobOf[p.shard]);
    else
      std::cout << ", not submitted";
    std::cout << "\n";
    for (const std::string &w : p.warnings)
      std::cout << "    warning: " << w << "\n";
  }
  for (const std::string &e : {squeueError, sacctError})
    if (!e.empty())
      std::cout << "  (" << e << ")\n";
  std::cout << done << "/" << run.units << " units done";
  if (done == static_cast<size_t>(run.units))
    std::cout << ": atrex fleet collect --dir " << L.dir << " merges them\n";
  else
    std::cout << "; " << run.units - static_cast<int64_t>(done)
              << " without a result (atrex fleet submit --dir " << L.dir
              << " runs them once no job of the run is queued)\n";
  return 0;
}

std::string findScoreTool(const Flags &f) {
  if (const std::string *p = f.get("--score-tool"))
    return *p;
  for (const fs::path &p : {fs::path(selfDir()) / "atrex-score",
                            fs::path(selfDir()) / "../../bin/atrex-score"})
    if (access(p.c_str(), X_OK) == 0)
      return p.lexically_normal().string();
  return "atrex-score"; // from PATH
}

int collect(const Flags &f) {
  Layout L = layoutOf(f);
  Run run = loadRun(L.record());
  Plan plan = loadRunPlan(run, L.record());
  std::string out = f.get("--out") ? *f.get("--out") : L.merged();
  Merge m;
  try {
    m = mergeShards(plan, run.shards, [&](int i) { return L.shardResults(i); });
  } catch (const std::exception &e) {
    std::cerr << "atrex-fleet: error: " << e.what()
              << "\nnothing merged: the shards' results do not partition "
              << run.plan << " into " << run.shards << " shards\n";
    return 1;
  }
  for (const std::string &w : m.warnings)
    std::cerr << "atrex-fleet: warning: " << w << "\n";
  std::string text;
  for (const std::string &line : m.lines)
    text += line + "\n";
  writeFile(out, text);
  std::error_code ec;
  if (!m.torn.empty()) {
    std::string torn;
    for (const std::string &t : m.torn)
      torn += t + "\n";
    writeFile(L.torn(), torn);
  } else {
    fs::remove(L.torn(), ec);
  }
  std::cerr << "atrex-fleet: merged " << m.lines.size() << " of " << run.units
            << " units from " << run.shards << " shards into " << out;
  if (m.superseded)
    std::cerr << " (" << m.superseded
              << " earlier lines of the same units left out)";
  if (!m.torn.empty())
    std::cerr << "; " << m.torn.size() << " torn lines kept apart in "
              << L.torn();
  std::cerr << "\n";
  size_t without = m.missing.size() + m.errorOnly.size();
  if (without) {
    std::vector<Unit> units = allUnits(plan);
    std::string list;
    size_t shown = 0;
    for (const auto *v : {&m.missing, &m.errorOnly})
      for (int64_t i : *v)
        if (shown++ < 8)
          list += std::string(list.empty() ? "" : ", ") + "unit " +
                  std::to_string(i) + " (" + units[i].submission->name + " x " +
                  units[i].problem->id + (v == &m.errorOnly ? ", error" : "") +
                  ")";
    std::cerr << "atrex-fleet: " << without << " units without a result ("
              << m.missing.size() << " never run, " << m.errorOnly.size()
              << " with status error): " << list << (without > 8 ? ", ..." : "")
              << "\n";
    if (!f.bools.count("--partial")) {
      std::cerr << "atrex-fleet: not scored: atrex fleet submit --dir " << L.dir
                << " runs them (--partial merges and scores what there is)\n";
      return 1;
    }
  }
  if (f.rest.empty())
    return 0;
  std::string name =
      f.get("--name") ? *f.get("--name") : fs::path(L.dir).filename().string();
  std::vector<std::string> args = {findScoreTool(f)};
  args.insert(args.end(), f.rest.begin(), f.rest.end());
  args.push_back("--set");
  args.push_back(name + "=" + out);
  std::string shown;
  for (const auto &a : args)
    shown += (shown.empty() ? "" : " ") + a;
  std::cerr << "atrex-fleet: " << shown << "\n";
  std::vector<char *> cargv;
  for (auto &a : args)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  std::cout.flush();
  execvp(cargv[0], cargv.data());
  std::cerr << "atrex-fleet: error: cannot run '" << args[0]
            << "' (--score-tool names atrex-score)\n";
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << kUsage << "(atrex-fleet --help for the options)\n";
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage << kHelp;
    return 0;
  }
  try {
    if (cmd == "submit")
      return submit(parseFlags(argc, argv,
                               {"--dir",
                                "--plan",
                                "--shards",
                                "--config",
                                "--partition",
                                "--account",
                                "--time",
                                "--cpus-per-task",
                                "--mem",
                                "--sbatch",
                                "--gpu-type",
                                "--max-parallel",
                                "--setup",
                                "--job-name",
                                "--compile-partition",
                                "--compile-account",
                                "--compile-time",
                                "--compile-cpus",
                                "--compile-mem",
                                "--compile-sbatch",
                                "--gate",
                                "--gate-arg",
                                "--cache"},
                               {"--dry-run", "--no-submit"}, false));
    if (cmd == "status")
      return status(parseFlags(argc, argv, {"--dir"}, {}, false));
    if (cmd == "collect")
      return collect(parseFlags(argc, argv,
                                {"--dir", "--out", "--name", "--score-tool"},
                                {"--partial"}, true));
  } catch (const std::exception &e) {
    std::cerr << "atrex-fleet: error: " << e.what() << "\n";
    return 2;
  }
  usageError("unknown command '" + cmd + "'");
}

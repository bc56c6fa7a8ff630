//===- Fleet.cpp - Gate plans as Slurm job arrays (atrex-fleet) -----------===//
#include "atrex-rt/Fleet.h"

#include "atrex-rt/Compare.h"
#include "atrex-rt/GateRun.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace atrex::rt::fleet {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void fail(const std::string &where, const std::string &what) {
  throw std::runtime_error(where + ": " + what);
}

bool printableLine(const std::string &s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f)
      return false;
  return true;
}

// Options atrex-fleet writes itself, with what to use instead.
const std::map<std::string, std::string> &reservedOptions() {
  static const std::map<std::string, std::string> r = {
      {"--array",
       "the array's indices are the shards (max_parallel limits how many run)"},
      {"-a",
       "the array's indices are the shards (max_parallel limits how many run)"},
      {"--dependency", "the array depends on the compile job"},
      {"-d", "the array depends on the compile job"},
      {"--kill-on-invalid-dep", "the array depends on the compile job"},
      {"--output", "logs go to RUN/logs"},
      {"-o", "logs go to RUN/logs"},
      {"--error", "logs go to RUN/logs"},
      {"-e", "logs go to RUN/logs"},
      {"--chdir", "jobs run in RUN"},
      {"-D", "jobs run in RUN"},
      {"--gres", "one GPU per task (gpu_type picks its kind)"},
      {"--gpus", "one GPU per task (gpu_type picks its kind)"},
      {"-G", "one GPU per task (gpu_type picks its kind)"},
      {"--gpus-per-task", "one GPU per task (gpu_type picks its kind)"},
      {"--gpus-per-node", "one GPU per task (gpu_type picks its kind)"},
      {"--ntasks", "one gate per job"},
      {"-n", "one gate per job"},
      {"--job-name", "use job_name"},
      {"-J", "use job_name"},
      {"--time", "use time"},
      {"-t", "use time"},
      {"--partition", "use partition"},
      {"-p", "use partition"},
      {"--account", "use account"},
      {"-A", "use account"},
      {"--cpus-per-task", "use cpus_per_task"},
      {"-c", "use cpus_per_task"},
      {"--mem", "use mem"},
      {"--parsable", "atrex fleet reads the job id"},
      {"--wrap", "atrex fleet writes the script"},
  };
  return r;
}

// The kind of every configuration key, checked before any is read, so that
// a value of the wrong kind is named by its key.
enum class Kind { String, Integer, Strings, Object };
const std::map<std::string, Kind> &configKinds() {
  static const std::map<std::string, Kind> k = {
      {"schema", Kind::String},         {"partition", Kind::String},
      {"account", Kind::String},        {"time", Kind::String},
      {"cpus_per_task", Kind::Integer}, {"mem", Kind::String},
      {"sbatch", Kind::Strings},        {"gpu_type", Kind::String},
      {"max_parallel", Kind::Integer},  {"job_name", Kind::String},
      {"setup", Kind::Strings},         {"prefix", Kind::Strings},
      {"gate", Kind::String},           {"gate_args", Kind::Strings},
      {"cache", Kind::String},          {"compile", Kind::Object}};
  return k;
}
const std::vector<std::string> kJobKeys = {
    "partition", "account", "time", "cpus_per_task", "mem", "sbatch"};

void checkKinds(const Json &obj, const std::vector<std::string> &allowed,
                const std::string &path, const std::string &prefix) {
  checkObjectKeys(obj, allowed, path,
                  prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1));
  for (const auto &[key, v] : obj.asObject()) {
    std::string where = path + ": " + prefix + key;
    switch (configKinds().at(key)) {
    case Kind::String:
      if (!v.isString())
        fail(where, "expected a string");
      break;
    case Kind::Integer:
      if (!v.isInt())
        fail(where, "expected an integer");
      break;
    case Kind::Strings:
      if (!v.isArray())
        fail(where, "expected an array of strings");
      for (const Json &e : v.asArray())
        if (!e.isString())
          fail(where, "expected an array of strings");
      break;
    case Kind::Object:
      if (!v.isObject())
        fail(where, "expected an object");
      break;
    }
  }
}

// One job kind's keys of a configuration object (the top level: the tasks;
// "compile": the compile job); their kinds are checked.
void readJobOptions(const Json &j, JobOptions &o, const std::string &path,
                    const std::string &prefix) {
  auto where = [&](const std::string &key) {
    return path + ": " + prefix + key;
  };
  if (const Json *v = j.get("partition"))
    setName(o.partition, v->asString(), where("partition"));
  if (const Json *v = j.get("account"))
    setName(o.account, v->asString(), where("account"));
  if (const Json *v = j.get("time"))
    setTime(o.time, v->asString(), where("time"));
  if (const Json *v = j.get("cpus_per_task"))
    setCount(o.cpusPerTask, v->asInt(), 1, 4096, where("cpus_per_task"));
  if (const Json *v = j.get("mem"))
    setMem(o.mem, v->asString(), where("mem"));
  if (const Json *v = j.get("sbatch"))
    for (const Json &e : v->asArray())
      addSbatchOption(o.sbatch, e.asString(), where("sbatch"));
}

void sbatchLines(std::ostringstream &s, const JobOptions &o) {
  if (!o.partition.empty())
    s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty())
    s << "#SBATCH --account=" << o.account << "\n";
  s << "#SBATCH --time=" << o.time << "\n";
  if (o.cpusPerTask > 0)
    s << "#SBATCH --cpus-per-task=" << o.cpusPerTask << "\n";
  if (!o.mem.empty())
    s << "#SBATCH --mem=" << o.mem << "\n";
  for (const std::string &opt : o.sbatch)
    s << "#SBATCH " << opt << "\n";
}

// The gate's command line, with the configuration's prefix words.
std::string gateCommand(const Config &c, const Run &run) {
  std::string cmd;
  for (const std::string &w : c.prefix)
    cmd += shellQuote(w) + " ";
  cmd += shellQuote(run.gate) + " --plan " + shellQuote(run.plan) +
         " --cache " + shellQuote(run.cache);
  for (const std::string &a : c.gateArgs)
    cmd += " " + shellQuote(a);
  return cmd;
}

std::string setupLines(const Config &c) {
  std::string s;
  for (const std::string &line : c.setup)
    s += line + "\n";
  return s;
}
} // namespace

void setTime(std::string &dst, const std::string &value,
             const std::string &where) {
  static const std::regex re(
      R"(^(UNLIMITED|INFINITE|\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+)$)");
  if (!std::regex_match(value, re))
    fail(where, "'" + value +
                    "' is not a Slurm time (MINUTES, MM:SS, HH:MM:SS, DAYS-HH, "
                    "DAYS-HH:MM or DAYS-HH:MM:SS)");
  dst = value;
}

void setName(std::string &dst, const std::string &value,
             const std::string &where) {
  static const std::regex re(R"(^[A-Za-z0-9_.,:@+=-]+$)");
  if (!std::regex_match(value, re))
    fail(where,
         "'" + value +
             "': expected a name of letters, digits and _.,:@+=- (no spaces)");
  dst = value;
}

void setMem(std::string &dst, const std::string &value,
            const std::string &where) {
  static const std::regex re(R"(^\d+[KMGT]?$)");
  if (!std::regex_match(value, re))
    fail(where,
         "'" + value +
             "': expected a size such as 64G (a number with K, M, G or T)");
  dst = value;
}

void setCount(int &dst, int64_t value, int lo, int hi,
              const std::string &where) {
  if (value < lo || value > hi)
    fail(where, std::to_string(value) + " is out of range (" +
                    std::to_string(lo) + ".." + std::to_string(hi) + ")");
  dst = static_cast<int>(value);
}

void addSbatchOption(std::vector<std::string> &dst, const std::string &value,
                     const std::string &where) {
  if (value.size() < 2 || value[0] != '-' || !printableLine(value))
    fail(where,
         "'" + value +
             "': expected one sbatch option on one line, such as --qos=high");
  std::string name = value.substr(0, value.find_first_of("= "));
  if (name.size() > 2 && name[1] != '-')
    name = name.substr(0, 2); // -c8
  auto it = reservedOptions().find(name);
  if (it != reservedOptions().end())
    fail(where, "'" + value + "': " + name + " is set by atrex fleet (" +
                    it->second + ")");
  dst.push_back(value);
}

void addGateArg(std::vector<std::string> &dst, const std::string &value,
                const std::string &where) {
  if (!printableLine(value))
    fail(where, "expected one argument on one line");
  std::string name = value.substr(0, value.find('='));
  for (const char *own : {"--plan", "--shard", "--resume", "--out", "--cache",
                          "--compile-only", "--check"})
    if (name == own)
      fail(where, "'" + value + "': " + name + " is set by atrex fleet");
  dst.push_back(value);
}

void addLine(std::vector<std::string> &dst, const std::string &value,
             const std::string &where) {
  if (!printableLine(value))
    fail(where, "expected one line of text (no newline or control characters)");
  dst.push_back(value);
}

Config parseConfig(const Json &j, const std::string &path, Config c) {
  auto where = [&](const std::string &k) { return path + ": " + k; };
  std::vector<std::string> top;
  for (const auto &[k, kind] : configKinds())
    top.push_back(k);
  checkKinds(j, top, path, "");
  if (const Json *v = j.get("schema"); v && v->asString() != kConfigSchema)
    fail(where("schema"), "expected '" + std::string(kConfigSchema) +
                              "', got '" + v->asString() + "'");
  readJobOptions(j, c.tasks, path, "");
  if (const Json *v = j.get("gpu_type"))
    setName(c.gpuType, v->asString(), where("gpu_type"));
  if (const Json *v = j.get("max_parallel"))
    setCount(c.maxParallel, v->asInt(), 0, 1000000, where("max_parallel"));
  if (const Json *v = j.get("job_name"))
    setName(c.jobName, v->asString(), where("job_name"));
  if (const Json *v = j.get("setup"))
    for (const Json &e : v->asArray())
      addLine(c.setup, e.asString(), where("setup"));
  if (const Json *v = j.get("prefix"))
    for (const Json &e : v->asArray())
      addLine(c.prefix, e.asString(), where("prefix"));
  if (const Json *v = j.get("gate_args"))
    for (const Json &e : v->asArray())
      addGateArg(c.gateArgs, e.asString(), where("gate_args"));
  for (const char *k : {"gate", "cache"})
    if (const Json *v = j.get(k)) {
      std::string p = v->asString();
      if (p.empty() || !printableLine(p))
        fail(where(k), "expected a path");
      if (fs::path(p).is_relative()) // relative to the configuration file
        p = (fs::absolute(path).parent_path() / p).lexically_normal().string();
      (std::string(k) == "gate" ? c.gate : c.cache) = p;
    }
  if (const Json *v = j.get("compile")) {
    checkKinds(*v, kJobKeys, path, "compile.");
    readJobOptions(*v, c.compile, path, "compile.");
  }
  return c;
}

Config loadConfig(const std::string &path, Config base) {
  Json j;
  try {
    j = parseJsonFile(path);
  } catch (const JsonError &e) {
    throw std::runtime_error(e.what());
  }
  return parseConfig(j, path, std::move(base));
}

void checkRunDir(const std::string &dir) {
  for (unsigned char c : dir)
    if (c <= 0x20 || c == 0x7f ||
        std::string("\"'$`\\%").find(static_cast<char>(c)) != std::string::npos)
      fail("--dir '" + dir + "'", "the run directory stands in #SBATCH lines "
                                  "and the scripts: no spaces, "
                                  "quotes, $, backquotes, backslashes or %");
}

Json Run::toJson() const {
  Json j = Json::object();
  j.set("schema", kRunSchema);
  j.set("plan", plan);
  j.set("plan_fnv1a64", planHash);
  j.set("shards", shards);
  j.set("units", units);
  j.set("gate", gate);
  j.set("cache", cache);
  Json subs = Json::array();
  for (const Submitted &s : submissions) {
    Json js = Json::object();
    js.set("submitted_at", s.submittedAt);
    js.set("compile_job", s.compileJob);
    js.set("array_job", s.arrayJob);
    js.set("array", s.array);
    Json sh = Json::array();
    for (int i : s.shards)
      sh.push(i);
    js.set("shards", sh);
    subs.push(js);
  }
  j.set("submissions", subs);
  return j;
}

Run loadRun(const std::string &path) {
  if (!fs::exists(path)) {
    std::string dir = fs::path(path).parent_path().string();
    throw std::runtime_error("no atrex fleet run in " + dir + " (no " + path +
                             "): atrex fleet submit --dir " + dir +
                             " --plan PLAN.json starts one");
  }
  Run run;
  try {
    Json j = parseJsonFile(path);
    checkObjectKeys(j,
                    {"schema", "plan", "plan_fnv1a64", "shards", "units",
                     "gate", "cache", "submissions"},
                    path, "");
    if (j.getString("schema", "") != kRunSchema)
      fail(path, "not an atrex fleet run record (schema '" +
                     std::string(kRunSchema) + "')");
    run.plan = j.getString("plan", "");
    run.planHash = j.getString("plan_fnv1a64", "");
    run.shards = static_cast<int>(j.getInt("shards", 0));
    run.units = j.getInt("units", 0);
    run.gate = j.getString("gate", "");
    run.cache = j.getString("cache", "");
    if (run.plan.empty() || run.shards <= 0 || run.gate.empty() ||
        run.cache.empty())
      fail(path,
           "incomplete run record (plan, shards, gate and cache are required)");
    if (const Json *subs = j.get("submissions"))
      for (const Json &js : subs->asArray()) {
        Submitted s;
        s.submittedAt = js.getString("submitted_at", "");
        s.compileJob = js.getString("compile_job", "");
        s.arrayJob = js.getString("array_job", "");
        s.array = js.getString("array", "");
        if (const Json *sh = js.get("shards"))
          for (const Json &i : sh->asArray())
            s.shards.push_back(static_cast<int>(i.asInt()));
        run.submissions.push_back(std::move(s));
      }
  } catch (const JsonError &e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return run;
}

void saveRun(const Run &run, const std::string &path) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  writeFile(tmp, run.toJson().dump(2) + "\n");
  fs::rename(tmp, path);
}

std::string planHash(const std::string &path) {
  std::string bytes = readFile(path);
  char buf[17];
  std::snprintf(
      buf, sizeof(buf), "%016llx",
      static_cast<unsigned long long>(fnv1a64(bytes.data(), bytes.size())));
  return buf;
}

Plan loadRunPlan(const Run &run, const std::string &recordPath) {
  Plan plan = loadPlan(run.plan);
  std::string now = planHash(run.plan);
  if (now != run.planHash)
    throw std::runtime_error(
        run.plan + " changed since it was submitted (FNV-1a " + now + ", " +
        recordPath + " has " + run.planHash +
        "): its units would not be those of the shards' results; "
        "submit the new plan with a new --dir");
  if (static_cast<int64_t>(allUnits(plan).size()) != run.units)
    throw std::runtime_error(recordPath + ": the plan has " +
                             std::to_string(allUnits(plan).size()) +
                             " units, the record " + std::to_string(run.units));
  return plan;
}

std::string slurmTime(double seconds) {
  int64_t minutes =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(seconds / 60.0)));
  int64_t days = minutes / (24 * 60), h = minutes / 60 % 24, m = minutes % 60;
  char buf[48];
  if (days > 0)
    std::snprintf(buf, sizeof(buf), "%lld-%02lld:%02lld:00",
                  static_cast<long long>(days), static_cast<long long>(h),
                  static_cast<long long>(m));
  else
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld:00",
                  static_cast<long long>(h), static_cast<long long>(m));
  return buf;
}

std::string defaultTaskTime(const Plan &plan, int shards) {
  const PlanSettings &s = plan.settings;
  double perUnit = s.problemSeconds * (s.cleanTiming ? 2 : 1) +
                   (s.memcheck ? s.memcheckSeconds : 0);
  size_t units = allUnits(plan).size();
  size_t largest = (units + shards - 1) / shards;
  return slurmTime(static_cast<double>(largest) * perUnit + s.compileSeconds);
}

std::string defaultCompileTime(const Plan &plan, int cpus) {
  size_t rounds =
      (plan.submissions.size() + std::max(cpus, 1) - 1) / std::max(cpus, 1);
  return slurmTime(static_cast<double>(rounds) * plan.settings.compileSeconds +
                   300);
}

std::string arrayIndices(const std::vector<int> &shards) {
  std::vector<int> v = shards;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1)
      ++j;
    out += (out.empty() ? "" : ",") + std::to_string(v[i]) +
           (j > i ? "-" + std::to_string(v[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string compileScript(const Config &c, const Run &run,
                          const Layout &layout) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# atrex fleet: the compile job of " << run.plan << "\n"
    << "# (every submission into the shared cache; the shards' array depends "
       "on it). Written by\n"
    << "# atrex-fleet submit, rewritten by every submission (docs/fleet.md).\n"
    << "#SBATCH --job-name=" << c.jobName << "-compile\n"
    << "#SBATCH --ntasks=1\n";
  sbatchLines(s, c.compile);
  s << "#SBATCH --chdir=" << layout.dir << "\n"
    << "#SBATCH --output=" << layout.logs() << "/compile.%j.out\n"
    << "#SBATCH --error=" << layout.logs() << "/compile.%j.err\n"
    << "set -u\n"
    << setupLines(c) << gateCommand(c, run) << " --compile-only"
    << " ${SLURM_CPUS_PER_TASK:+--jobs $SLURM_CPUS_PER_TASK} --out "
    << shellQuote(layout.compileOut()) << "\n"
    << "rc=$?\n"
    << "# 1: a submission did not compile. Its units record that as their "
       "result (status fail,\n"
    << "# stage compile), so the array still runs; 2 (the gate's own error) "
       "holds it back.\n"
    << "[ \"$rc\" = 1 ] && rc=0\n"
    << "exit \"$rc\"\n";
  return s.str();
}

std::string shardScript(const Config &c, const Run &run, const Layout &layout) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# atrex fleet: shard $SLURM_ARRAY_TASK_ID of " << run.shards << " of "
    << run.plan << " per array task,\n"
    << "# one GPU each. Written by atrex-fleet submit, rewritten by every "
       "submission (docs/fleet.md).\n"
    << "#SBATCH --job-name=" << c.jobName << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --gres=gpu:" << (c.gpuType.empty() ? "" : c.gpuType + ":")
    << "1\n";
  sbatchLines(s, c.tasks);
  s << "#SBATCH --chdir=" << layout.dir << "\n"
    << "#SBATCH --output=" << layout.logs() << "/shard-%a.%A.out\n"
    << "#SBATCH --error=" << layout.logs() << "/shard-%a.%A.err\n"
    << "set -u\n"
    << "i=${SLURM_ARRAY_TASK_ID:?atrex fleet: not a Slurm array task}\n"
    << setupLines(c)
    // Double quotes: the run directory has none of the characters they would
    // expand (checkRunDir).
    << "exec " << gateCommand(c, run) << " --shard \"$i/" << run.shards
    << "\" --resume --out \"" << layout.shardResults("$i") << "\"\n";
  return s.str();
}

std::vector<ShardProgress> progress(const Plan &plan, const Run &run,
                                    const Layout &layout) {
  std::vector<ShardProgress> out;
  for (int i = 0; i < run.shards; ++i) {
    ShardProgress p;
    p.shard = i;
    std::vector<Unit> units = shardUnits(plan, i, run.shards);
    p.units = units.size();
    std::string file = layout.shardResults(i);
    if (fs::exists(file)) {
      p.haveFile = true;
      std::set<std::string> done = completedUnits(file, p.warnings);
      for (const Unit &u : units)
        p.done += done.count(unitKey(u));
    }
    out.push_back(std::move(p));
  }
  return out;
}

Merge mergeShards(const Plan &plan, int shards,
                  const std::function<std::string(int)> &fileOf) {
  std::vector<Unit> units = allUnits(plan);
  // Per unit: its last final line, else its last error line; and how many
  // lines.
  std::vector<std::string> finalLine(units.size()), errorLine(units.size());
  std::vector<size_t> lines(units.size(), 0);
  Merge m;
  for (int i = 0; i < shards; ++i) {
    std::string file = fileOf(i);
    if (!fs::exists(file))
      continue;
    ResultFile rf = readResultFile(file);
    for (const ResultLine &t : rf.torn) {
      m.torn.push_back(file + ":" + std::to_string(t.line) + "\t" + t.text);
      m.warnings.push_back("kept apart: " + t.error);
    }
    std::string shardText = std::to_string(i) + "/" + std::to_string(shards);
    for (const ResultLine &rl : rf.results) {
      std::string at = file + ":" + std::to_string(rl.line) + ": ";
      const Json &r = rl.result;
      int64_t index = -1;
      try {
        index = r.getInt("unit", -1);
      } catch (const JsonError &e) {
        throw std::runtime_error(at + "unit: " + e.what());
      }
      if (index < 0 || index >= static_cast<int64_t>(units.size()))
        throw std::runtime_error(at + "unit " + std::to_string(index) +
                                 " is not a unit of " + plan.path + " (" +
                                 std::to_string(units.size()) + " units)");
      if (static_cast<int>(index % shards) != i)
        throw std::runtime_error(at + "unit " + std::to_string(index) +
                                 " belongs to shard " +
                                 std::to_string(index % shards) + "/" +
                                 std::to_string(shards) + ", not " + shardText);
      const Unit &u = units[index];
      if (unitKey(r) != unitKey(u))
        throw std::runtime_error(
            at + "unit " + std::to_string(index) + " is " +
            r.get("submission")->getString("name", "?") + " x " +
            r.get("problem")->getString("id", "?") + " here but " +
            u.submission->name + " x " + u.problem->id + " in " + plan.path);
      if (r.getString("shard", shardText) != shardText)
        throw std::runtime_error(at + "ran as shard " +
                                 r.getString("shard", "") + ", expected " +
                                 shardText);
      ++lines[index];
      (isFinalResult(r) ? finalLine : errorLine)[index] = rl.text;
    }
  }
  for (const Unit &u : units) {
    const std::string &chosen =
        !finalLine[u.index].empty() ? finalLine[u.index] : errorLine[u.index];
    if (chosen.empty()) {
      m.missing.push_back(static_cast<int64_t>(u.index));
      continue;
    }
    if (finalLine[u.index].empty())
      m.errorOnly.push_back(static_cast<int64_t>(u.index));
    m.superseded += lines[u.index] - 1;
    m.lines.push_back(chosen);
  }
  return m;
}

std::map<std::string, std::string> parseJobStates(const std::string &text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t bar = line.find('|');
    if (bar == std::string::npos)
      continue;
    std::string id = line.substr(0, bar), state = line.substr(bar + 1);
    auto trim = [](std::string &s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
    };
    trim(id);
    trim(state);
    state = state.substr(0, state.find_first_of(" |")); // "CANCELLED by 0"
    if (!id.empty() && !state.empty())
      out[id] = state;
  }
  return out;
}

std::string parseJobId(const std::string &text) {
  std::string id = text.substr(0, text.find_first_of(";\n"));
  id.erase(0, id.find_first_not_of(" \t"));
  id.erase(id.find_last_not_of(" \t\r") + 1);
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch printed no job id: '" +
                             text.substr(0, 200) + "'");
  return id;
}

} // namespace atrex::rt::fleet

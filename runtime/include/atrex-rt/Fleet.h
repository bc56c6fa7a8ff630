//===- Fleet.h - Gate plans as Slurm job arrays (atrex-fleet) ---*- C++ -*-===//
//
// What atrex-fleet decides, kept out of the driver so that it is tested
// without Slurm: its configuration (a small JSON file and flags), the run
// directory's files, the two sbatch scripts (the compile job and the job
// array of shards), the progress of each shard, and the merge of the shards'
// results with the check that they partition the plan's units. Units and
// shards are the gate's (Plan.h: allUnits, shardUnits); results files are
// read as --resume reads them (GateRun.h: readResultFile, completedUnits).
// docs/fleet.md describes the command.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_FLEET_H
#define ATREX_RT_FLEET_H

#include "atrex-rt/Json.h"
#include "atrex-rt/Plan.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace atrex::rt::fleet {

inline constexpr const char *kConfigSchema = "atrex-fleet-config/1";
inline constexpr const char *kRunSchema = "atrex-fleet-run/1";

/// sbatch settings of one kind of job: the array's tasks or the compile job.
struct JobOptions {
  std::string partition, account;
  std::string time;    // Slurm's time format; "": derived from the plan
  int cpusPerTask = 0; // 0: Slurm's default
  std::string mem;     // --mem ("64G"); "": Slurm's default
  std::vector<std::string> sbatch; // further options, one #SBATCH line each
};

struct Config {
  JobOptions tasks;    // one GPU each (--gres=gpu:1)
  JobOptions compile;  // no GPU; partition and account default to the tasks'
  std::string gpuType; // --gres=gpu:TYPE:1; "": --gres=gpu:1
  int maxParallel = 0; // --array=...%K; 0: no limit
  std::string jobName = "atrex-fleet";
  std::vector<std::string>
      setup; // shell lines run before the gate (module load, venv)
  std::vector<std::string>
      prefix;       // words run before the gate (apptainer exec --nv IMAGE)
  std::string gate; // atrex-gate as the jobs see it; "": next to atrex-fleet
  std::vector<std::string>
      gateArgs;      // more atrex-gate options (--worker PATH, --jobs N)
  std::string cache; // the shared compile cache; "": the plan's cache_dir, else
                     // RUN/cache
};

/// Reads a configuration file (atrex-fleet-config/1, docs/fleet.md) over
/// `base`; errors name the file and the key ("FILE: time: ...").
Config loadConfig(const std::string &path, Config base = {});
Config parseConfig(const Json &j, const std::string &path, Config base = {});

// Setters shared by the configuration file and the flags: each checks the
// value and throws std::runtime_error "<where>: <what is wrong>" (where is
// "FILE: key" or "--flag").
void setTime(std::string &dst, const std::string &value,
             const std::string &where);
void setName(std::string &dst, const std::string &value,
             const std::string &where);
void setMem(std::string &dst, const std::string &value,
            const std::string &where);
void setCount(int &dst, int64_t value, int lo, int hi,
              const std::string &where);
void addSbatchOption(std::vector<std::string> &dst, const std::string &value,
                     const std::string &where);
void addLine(std::vector<std::string> &dst, const std::string &value,
             const std::string &where);
/// One more atrex-gate argument; not one that atrex fleet sets (--plan,
/// --shard, --resume, --out, --cache, --compile-only, --check).
void addGateArg(std::vector<std::string> &dst, const std::string &value,
                const std::string &where);

/// The files of a run directory, named once.
struct Layout {
  std::string
      dir; // absolute; checked by checkRunDir before scripts are written
  std::string record() const { return dir + "/fleet.json"; }
  std::string shardResults(int shard) const {
    return shardResults(std::to_string(shard));
  }
  /// With a shell word for the index ("$i") in the array task's script.
  std::string shardResults(const std::string &index) const {
    return dir + "/shard-" + index + ".jsonl";
  }
  std::string compileOut() const {
    return dir + "/compile.jsonl";
  } // --out of --compile-only (not written)
  std::string compileScript() const { return dir + "/compile.sbatch"; }
  std::string shardScript() const { return dir + "/shards.sbatch"; }
  std::string logs() const { return dir + "/logs"; }
  std::string merged() const { return dir + "/results.jsonl"; }
  std::string torn() const { return dir + "/torn-lines.txt"; }
};

/// Throws unless `dir` can stand in #SBATCH lines and inside double quotes
/// (no whitespace, quotes, $, backquote, backslash or %).
void checkRunDir(const std::string &dir);

/// One `atrex fleet submit`: its jobs and the shards it ran.
struct Submitted {
  std::string submittedAt, compileJob, arrayJob, array;
  std::vector<int> shards;
};

/// The run record (RUN/fleet.json, atrex-fleet-run/1): what the first
/// submission fixed (plan, its hash, shard count, gate, cache) and every
/// submission's jobs.
struct Run {
  std::string plan, planHash; // absolute path; FNV-1a 64 of its bytes
  int shards = 0;
  int64_t units = 0;
  std::string gate, cache;
  std::vector<Submitted> submissions;
  Json toJson() const;
};
Run loadRun(const std::string &path);
void saveRun(const Run &run, const std::string &path); // write and rename

/// The hash of a plan file's bytes (the run record's plan_fnv1a64).
std::string planHash(const std::string &path);
/// Loads the run's plan and checks that it is the one the run was submitted
/// with (same bytes); throws naming the plan and the run otherwise.
Plan loadRunPlan(const Run &run, const std::string &recordPath);

/// Slurm's time format from seconds, rounded up to the minute ("HH:MM:00",
/// "D-HH:MM:00").
std::string slurmTime(double seconds);
/// Default time limit of a shard's task: its units (the largest shard's
/// count) at their worst case (problem_s per worker run: attributed, clean,
/// memcheck's memcheck_s) plus one compile_s (a task compiles what the cache
/// lacks).
std::string defaultTaskTime(const Plan &plan, int shards);
/// Default time limit of the compile job: compile_s per round of
/// `cpus` parallel compiles, plus 5 minutes.
std::string defaultCompileTime(const Plan &plan, int cpus);
/// Array indices as Slurm's --array list ("0-3,5,7-8").
std::string arrayIndices(const std::vector<int> &shards);

/// The sbatch scripts (shell-quoted, every option an #SBATCH line).
std::string compileScript(const Config &config, const Run &run,
                          const Layout &layout);
std::string shardScript(const Config &config, const Run &run,
                        const Layout &layout);

/// Shard progress from its results file as --resume reads it.
struct ShardProgress {
  int shard = 0;
  size_t units = 0, done = 0; // done: a result other than "error"
  bool haveFile = false;
  std::vector<std::string> warnings; // torn lines
};
std::vector<ShardProgress> progress(const Plan &plan, const Run &run,
                                    const Layout &layout);

/// The shards' results merged: one line per unit (its last result other
/// than "error", else its last "error" line) in unit order, verbatim.
struct Merge {
  std::vector<std::string> lines;
  std::vector<int64_t> missing;   // units without any line
  std::vector<int64_t> errorOnly; // units whose lines all have status "error"
  std::vector<std::string> torn;  // "FILE:LINE\tTEXT": kept apart, not merged
  std::vector<std::string> warnings;
  size_t superseded = 0; // lines of a unit that another line replaced
};
/// Merges the shard files (`fileOf(i)`, absent files are shards without
/// results). Throws, naming the file and line, when a line is not a unit of
/// this shard of the plan: a unit index outside the plan, a unit of another
/// shard, another submission or problem at that index, another `shard`.
Merge mergeShards(const Plan &plan, int shards,
                  const std::function<std::string(int)> &fileOf);

/// Job states from `squeue --format=%i|%T` or `sacct --parsable2
/// --format=JobID,State` lines: id -> first word of the state.
std::map<std::string, std::string> parseJobStates(const std::string &text);
/// The job id of `sbatch --parsable` output ("123" or "123;cluster").
std::string parseJobId(const std::string &text);
/// Single-quoted for sh.
std::string shellQuote(const std::string &s);

} // namespace atrex::rt::fleet

#endif // ATREX_RT_FLEET_H

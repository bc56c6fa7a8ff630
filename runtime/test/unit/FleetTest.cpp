//===- FleetTest.cpp - atrex-fleet: scripts, merge, a one-node Slurm ------===//
//
// AtrexFleet.*: the configuration, the sbatch scripts and the merge of the
// shards, with scripted sbatch/squeue/sacct (no Slurm needed).
// AtrexFleetSlurm.*: a real one-node Slurm (munged, slurmctld and slurmd of
// Debian's slurm-wlm, started by helpers/slurm-local.sh in a temporary
// directory): submission, array tasks, a task cancelled mid-way and resumed
// by resubmission, the merge, and scores equal to a local run of the same
// plan. The GPU is a scripted atrex-gate-worker, as in ToolsTest.cpp. The
// test skips, saying why, when Slurm cannot start here; with
// ATREX_REQUIRE_SLURM=1 (CI, .ci/run) that is a failure instead.
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Fleet.h"
#include "atrex-rt/Json.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace atrex::rt;
namespace fs = std::filesystem;

namespace {
struct Out {
  int status;
  std::string text; // stdout + stderr
};
Out sh(const std::string &cmd) {
  Out o;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    o.text.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}
std::string tmp(const std::string &name) {
  std::string d = fs::path(::testing::TempDir() + "/atrex-fleet-" + name)
                      .lexically_normal()
                      .string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}
std::vector<std::string> linesOf(const std::string &path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(line);
  return out;
}
void executable(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}
bool waitFor(const std::function<bool()> &done, double seconds) {
  auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

const std::string kGate = ATREX_BIN_DIR "/atrex-gate";
const std::string kFleet = ATREX_BIN_DIR "/atrex-fleet";
const std::string kSlurmLocal =
    ATREX_RT_SOURCE_DIR "/test/helpers/slurm-local.sh";
// The sealed bundle of the score tests: six problems p0001..p0006 of three
// operators.
const std::string kBundle = ATREX_RT_SOURCE_DIR "/../test/score/Inputs/bundle";

// A plan of six units (three submissions, the bundle's six problems), a
// scripted nvcc and cuobjdump for the compile step, and a scripted worker
// whose median follows from the shape (every run of a unit reports the same)
// and which fails the correctness of the shapes with 8192, after sleeping
// FAKE_SLEEP seconds. Returns the environment the gate needs.
std::string writePlan(const std::string &d) {
  for (const char *k : {"rms", "gemm", "silu"})
    std::ofstream(d + "/" + k + ".cu") << "// " << k << "\n";
  std::ofstream(d + "/plan.json") << R"({"schema":"atrex-gate-plan/1",
  "settings":{"clean_timing":false,"seed":7,"problem_s":60,"compile_s":60},
  "submissions":[
   {"name":"rms","source":"rms.cu","operator":"rms_norm","problems":[
     {"id":"p0001","shape":{"T":8,"H":4096}},{"id":"p0002","shape":{"T":8192,"H":4096}}]},
   {"name":"gemm","source":"gemm.cu","operator":"gemm_bf16","problems":[
     {"id":"p0003","shape":{"M":8,"N":4096,"K":4096}},{"id":"p0004","shape":{"M":8192,"N":1024,"K":1024}}]},
   {"name":"silu","source":"silu.cu","operator":"silu_and_mul","problems":[
     {"id":"p0005","shape":{"T":8,"D":14336}},{"id":"p0006","shape":{"T":4096,"D":14336}}]}]})";
  executable(d + "/nvcc.sh", "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" "
                             "= -o ] && out=$2; shift; done\n"
                             "echo fake-so > \"$out\"\n");
  executable(d + "/cuobjdump.sh",
             "#!/bin/sh\necho fake-elf > sub.1.sm_90.cubin\n");
  // One worker runs every unit of a submission's job (docs/gate.md, "Worker
  // batches"): one seed per unit on stdin, then the key; a failed unit ends it.
  executable(d + "/worker.sh", R"(#!/bin/sh
read -r line
key=${line##* }
tr -d ' \n' < "$2" | sed 's/{"unit":/\n/g' | sed 1d > "$2.units"
while IFS= read -r u || [ -n "$u" ]; do
unit=${u%%,*}
shape=$(printf '%s' "$u" | sed -n 's/^[0-9]*,"shape":{\([^}]*\)}.*/\1/p')
sleep "${FAKE_SLEEP:-0}"
us=$(( $(printf '%s' "$shape" | cksum | cut -d' ' -f1) % 40 + 10 ))
env='"env":{"gpu":"NVIDIA H200"},"attribution":{"available":true,"verdict":"adopted"}'
case "$shape" in
  *8192*) echo "$key {\"unit\":$unit,\"status\":\"fail\",\"stage\":\"correctness\",\"reason\":\"out: 3 mismatches\",$env}" >&3; exit 0 ;;
  *) echo "$key {\"unit\":$unit,\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":$us,\"p10_us\":$us,\"p90_us\":$us,\"reps\":10,\"mode\":\"eager\"},$env}" >&3 ;;
esac
done < "$2.units"
)");
  return "ATREX_NVCC=" + d + "/nvcc.sh ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh ";
}

// Scripted Slurm clients: sbatch logs its arguments and prints the next job
// id; squeue prints $FAKE_SQUEUE; sacct has no accounting.
std::string fakeSlurm(const std::string &d) {
  fs::create_directories(d + "/bin");
  executable(d + "/bin/sbatch",
             "#!/bin/sh\necho \"$@\" >> " + d +
                 "/sbatch.log\n"
                 "n=$(cat " +
                 d + "/ids 2>/dev/null || echo 100); n=$((n + 1)); echo $n > " +
                 d + "/ids\necho \"$n;cluster\"\n");
  executable(d + "/bin/squeue", "#!/bin/sh\nprintf \"${FAKE_SQUEUE:-}\"\n");
  executable(
      d + "/bin/sacct",
      "#!/bin/sh\necho 'Slurm accounting storage is disabled' >&2\nexit 1\n");
  executable(d + "/bin/scancel",
             "#!/bin/sh\necho \"scancel $@\" >> " + d + "/sbatch.log\n");
  return "PATH=" + d + "/bin:$PATH ";
}

// A JSON score report without what differs between two runs of the same
// units: where a result came from (file, line) and when it started.
Json withoutProvenance(const Json &j) {
  static const std::set<std::string> drop = {"file", "line", "started_at",
                                             "result_files"};
  if (j.isObject()) {
    Json o = Json::object();
    for (const auto &[k, v] : j.asObject())
      if (!drop.count(k))
        o.set(k, withoutProvenance(v));
    return o;
  }
  if (j.isArray()) {
    Json a = Json::array();
    for (const Json &e : j.asArray())
      a.push(withoutProvenance(e));
    return a;
  }
  return j;
}
} // namespace

TEST(AtrexFleet, ConfigAndFlagErrorsNameTheirSource) {
  std::string d = tmp("config");
  std::string env = writePlan(d) + fakeSlurm(d);
  std::string base = env + kFleet + " submit --dry-run --dir " + d +
                     "/run --plan " + d + "/plan.json";
  auto withConfig = [&](const std::string &text) {
    std::ofstream(d + "/c.json") << text;
    return sh(base + " --config " + d + "/c.json");
  };
  struct Case {
    std::string config, message;
  } cases[] = {
      {R"({"partition":"gpu","tme":"1:00:00"})",
       d + "/c.json: unknown key 'tme' (allowed: account, cache, compile, "
           "cpus_per_task, gate, gate_args, gpu_type, "
           "job_name, max_parallel, mem, partition, prefix, sbatch, schema, "
           "setup, time)"},
      {R"({"time":"2h"})", d + "/c.json: time: '2h' is not a Slurm time"},
      {R"({"sbatch":["--array=0-3"]})",
       d + "/c.json: sbatch: '--array=0-3': --array is set by atrex fleet"},
      {R"({"sbatch":"--qos=high"})",
       d + "/c.json: sbatch: expected an array of strings"},
      {R"({"compile":{"time":30}})",
       d + "/c.json: compile.time: expected a string"},
      {R"({"compile":{"cpus_per_task":0}})",
       d + "/c.json: compile.cpus_per_task: 0 is out of range (1..4096)"},
      {R"({"compile":{"gres":"gpu:1"}})",
       d + "/c.json: compile: unknown key 'gres'"},
      {R"({"partition":"gpu queue"})",
       d + "/c.json: partition: 'gpu queue': expected a name"},
      {R"({"gate_args":["--shard","1/2"]})",
       d + "/c.json: gate_args: '--shard': --shard is set by atrex fleet"},
      {R"({"setup":"module load cuda"})",
       d + "/c.json: setup: expected an array of strings"},
      {R"({"max_parallel":"4"})",
       d + "/c.json: max_parallel: expected an integer"},
      {R"({"schema":"atrex-fleet-config/9"})",
       d + "/c.json: schema: expected 'atrex-fleet-config/1'"},
      {R"({"time":)", d + "/c.json:1:"},
  };
  for (const Case &c : cases) {
    Out o = withConfig(c.config);
    EXPECT_EQ(o.status, 2) << c.config << "\n" << o.text;
    EXPECT_NE(o.text.find("atrex-fleet: error: " + c.message),
              std::string::npos)
        << c.config << "\n"
        << o.text;
  }
  Out o = sh(base + " --time 2h");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("error: --time: '2h' is not a Slurm time"),
            std::string::npos)
      << o.text;
  o = sh(base + " --sbatch=--gres=gpu:2");
  EXPECT_NE(o.text.find("error: --sbatch: '--gres=gpu:2': --gres is set by "
                        "atrex fleet (one GPU per task"),
            std::string::npos)
      << o.text;
  o = sh(base + " --shards 7");
  EXPECT_NE(o.text.find("error: --shards 7: the plan has 6 units"),
            std::string::npos)
      << o.text;
  o = sh(env + kFleet + " submit --dir " + d + "/run");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("has no run yet (" + d +
                        "/run/fleet.json): --plan PLAN.json is required"),
            std::string::npos)
      << o.text;
  o = sh(base + " --dir '" + d + "/run $x'");
  EXPECT_NE(o.text.find("error: --dir '" + d +
                        "/run $x': the run directory stands in #SBATCH lines"),
            std::string::npos)
      << o.text;
  o = sh(kFleet + " submit --plan x.json");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("submit: --dir RUN is required"), std::string::npos)
      << o.text;
  // The command line (CLI11, runtime/tools/Cli.h): stray words and "--" where
  // the command takes no rest are unknown options; a missing value names its
  // option.
  o = sh(kFleet + " collect --dir " + d + "/run stray -- x");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-fleet: unknown option 'stray' for collect"),
            std::string::npos)
      << o.text;
  o = sh(kFleet + " status --dir " + d + "/run -- x");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-fleet: unknown option '--' for status"),
            std::string::npos)
      << o.text;
  o = sh(kFleet + " status --dir");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-fleet: --dir: 1 required TEXT missing"),
            std::string::npos)
      << o.text;
  o = sh(kFleet + " --help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.text.find("--gate-arg ARG"), std::string::npos) << o.text;
  o = sh(kFleet + " collect --dir " + d + "/run");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("error: no atrex fleet run in " + d + "/run (no " + d +
                        "/run/fleet.json)"),
            std::string::npos)
      << o.text;
}

// The scripts are the shard contract: one GPU per array task, task i runs
// shard i/N with --resume into RUN/shard-i.jsonl, after the compile job.
TEST(AtrexFleet, ScriptsCarryTheShardContract) {
  std::string d = tmp("scripts");
  std::string env = writePlan(d) + fakeSlurm(d);
  executable(d + "/gate.sh", "#!/bin/sh\necho \"$ATREX_FLEET_PREFIX $*\" > " +
                                 d + "/gate-args\n");
  std::ofstream(d + "/c.json")
      << R"({"schema":"atrex-fleet-config/1","partition":"batch","account":"proj",
    "time":"0:30:00","gpu_type":"h200","cpus_per_task":8,"mem":"64G","sbatch":["--qos=high"],"max_parallel":2,
    "setup":["module load cuda/13.0"],"prefix":["env","ATREX_FLEET_PREFIX=in-container"],
    "gate":"gate.sh","gate_args":["--jobs","2"],"compile":{"partition":"cpu","cpus_per_task":4}})";
  Out o = sh(env + kFleet + " submit --dry-run --dir " + d + "/run --plan " +
             d + "/plan.json --shards 3 --config " + d +
             "/c.json --partition gpu --sbatch=--constraint=h200");
  ASSERT_EQ(o.status, 0) << o.text;
  std::string run = d + "/run";
  EXPECT_NE(o.text.find("sbatch --parsable " + run +
                        "/compile.sbatch\n"
                        "sbatch --parsable --dependency=afterok:<compile job> "
                        "--kill-on-invalid-dep=yes "
                        "--array=0-2%2 " +
                        run + "/shards.sbatch\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("dry run: 3 shards (6 units without a result)"),
            std::string::npos)
      << o.text;
  EXPECT_FALSE(
      fs::exists(run + "/fleet.json")); // nothing submitted, nothing recorded
  // --no-submit records the run for another scheduler; status works on it.
  o = sh(env + kFleet + " submit --no-submit --dir " + d + "/run3 --plan " + d +
         "/plan.json --shards 2");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("nothing submitted"), std::string::npos) << o.text;
  EXPECT_FALSE(fs::exists(d + "/sbatch.log"));
  o = sh(env + kFleet + " status --dir " + d + "/run3");
  EXPECT_NE(o.text.find("shard 1: 0/3 units, not submitted\n"),
            std::string::npos)
      << o.text;
  std::string shards = slurp(run + "/shards.sbatch");
  for (const std::string &line : std::vector<std::string>{
           "#SBATCH --gres=gpu:h200:1\n", "#SBATCH --partition=gpu\n",
           "#SBATCH --account=proj\n", "#SBATCH --time=0:30:00\n",
           "#SBATCH --cpus-per-task=8\n", "#SBATCH --mem=64G\n",
           "#SBATCH --qos=high\n", "#SBATCH --constraint=h200\n",
           "#SBATCH --output=" + run + "/logs/shard-%a.%A.out\n",
           "#SBATCH --error=" + run + "/logs/shard-%a.%A.err\n",
           "#SBATCH --chdir=" + run + "\n", "module load cuda/13.0\n",
           "exec 'env' 'ATREX_FLEET_PREFIX=in-container' '" + d +
               "/gate.sh' --plan '" + d + "/plan.json' --cache '" + run +
               "/cache' '--jobs' '2' --shard \"$i/3\" --resume --out \"" + run +
               "/shard-$i.jsonl\"\n"})
    EXPECT_NE(shards.find(line), std::string::npos) << line << "\n" << shards;
  std::string compile = slurp(run + "/compile.sbatch");
  EXPECT_NE(compile.find("#SBATCH --partition=cpu\n#SBATCH --account=proj\n"),
            std::string::npos)
      << compile;
  EXPECT_NE(compile.find("#SBATCH --cpus-per-task=4\n"), std::string::npos)
      << compile;
  EXPECT_NE(compile.find(" --compile-only ${SLURM_CPUS_PER_TASK:+--jobs "
                         "$SLURM_CPUS_PER_TASK} --out"),
            std::string::npos)
      << compile;
  EXPECT_EQ(compile.find("--gres"), std::string::npos) << compile;
  EXPECT_EQ(compile.find("--qos"), std::string::npos)
      << compile; // the tasks' options only
  // What task 1 runs, through the prefix and the quoting.
  o = sh("SLURM_ARRAY_TASK_ID=1 bash " + run + "/shards.sbatch");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(slurp(d + "/gate-args"),
            "in-container --plan " + d + "/plan.json --cache " + run +
                "/cache --jobs 2 --shard 1/3 --resume --out " + run +
                "/shard-1.jsonl\n");
  o = sh("bash " + run + "/shards.sbatch");
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.text.find("not a Slurm array task"), std::string::npos) << o.text;
  // The compile job passes on a submission that did not compile (its units
  // record it) and holds the array back on the gate's own error.
  for (auto [rc, want] : {std::pair{1, 0}, {2, 2}, {0, 0}}) {
    executable(d + "/gate.sh", "#!/bin/sh\nexit " + std::to_string(rc) + "\n");
    EXPECT_EQ(sh("bash " + run + "/compile.sbatch").status, want) << rc;
  }
  // Default time limits from the plan: two units per shard at problem_s 60 (no
  // clean run) plus compile_s 60 = 3 minutes.
  o = sh(env + kFleet + " submit --dry-run --dir " + d + "/run2 --plan " + d +
         "/plan.json --shards 3");
  EXPECT_NE(o.text.find("time limit per task 00:03:00"), std::string::npos)
      << o.text;
  EXPECT_NE(slurp(d + "/run2/shards.sbatch")
                .find("#SBATCH --gres=gpu:1\n#SBATCH --time=00:03:00\n"),
            std::string::npos);
}

// The merge takes the shards as the gate wrote them, checks that they
// partition the plan's units, keeps torn lines apart, and a resubmission
// asks only for the shards with units left.
TEST(AtrexFleet, CollectMergesShardsThatPartitionThePlan) {
  std::string d = tmp("collect");
  std::string env = writePlan(d) + fakeSlurm(d);
  std::string run = d + "/run";
  std::string fleet = env + kFleet;
  Out o = sh(fleet + " submit --dir " + run + " --plan " + d +
             "/plan.json --shards 3 --time 10 --gate-arg --worker "
             "--gate-arg " +
             d + "/worker.sh");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("submitted compile job 101 and array job 102 (shards "
                        "0-2 of 3, 6 of 6 units"),
            std::string::npos)
      << o.text;
  EXPECT_EQ(slurp(d + "/sbatch.log"),
            "--parsable " + run +
                "/compile.sbatch\n--parsable --dependency=afterok:101 "
                "--kill-on-invalid-dep=yes --array=0-2 " +
                run + "/shards.sbatch\n");
  Json record = parseJsonFile(run + "/fleet.json");
  EXPECT_EQ(record.getString("schema", ""), fleet::kRunSchema);
  EXPECT_EQ(record.getInt("shards", 0), 3);
  EXPECT_EQ(record.getString("plan_fnv1a64", ""),
            fleet::planHash(d + "/plan.json"));
  // Tasks 0 and 2 ran (here, by hand, as the array's tasks would).
  auto task = [&](int i) {
    return sh(env + kGate + " --quiet --plan " + d + "/plan.json --cache " +
              run + "/cache --worker " + d + "/worker.sh --shard " +
              std::to_string(i) + "/3 --resume --out " + run + "/shard-" +
              std::to_string(i) + ".jsonl");
  };
  ASSERT_EQ(task(0).status, 0);
  ASSERT_EQ(task(2).status, 0);
  o = sh(fleet + " status --dir " + run);
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("shard 0: 2/2 units, job 102_0 state unknown\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("shard 1: 0/2 units, job 102_1 state unknown\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("(sacct: Slurm accounting storage is disabled)"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("4/6 units done; 2 without a result"),
            std::string::npos)
      << o.text;
  o = sh(env + "FAKE_SQUEUE='102_1|RUNNING\n' " + kFleet + " status --dir " +
         run);
  EXPECT_NE(o.text.find("shard 1: 0/2 units, job 102_1 RUNNING\n"),
            std::string::npos)
      << o.text;
  // Units 1 and 4 (shard 1) have no result: merged, not scored.
  o = sh(fleet + " collect --dir " + run + " -- " + kBundle);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("2 units without a result (2 never run, 0 with status "
                        "error): unit 1 (rms x p0002), "
                        "unit 4 (silu x p0005)"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("not scored"), std::string::npos) << o.text;
  EXPECT_EQ(linesOf(run + "/results.jsonl").size(), 4u);
  EXPECT_EQ(sh(fleet + " collect --partial --dir " + run).status, 0);
  // A resubmission while a task runs is refused; after it, only shard 1 is
  // asked for.
  o = sh(env + "FAKE_SQUEUE='102_1|RUNNING\n' " + kFleet + " submit --dir " +
         run);
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("are still in the queue (102_1 RUNNING)"),
            std::string::npos)
      << o.text;
  o = sh(fleet + " submit --dir " + run + " --shards 4");
  EXPECT_NE(
      o.text.find("--shards 4: " + run + "/fleet.json was submitted with 3"),
      std::string::npos)
      << o.text;
  fs::remove(d + "/sbatch.log");
  o = sh(fleet + " submit --dir " + run +
         " --time 10 --gate-arg --worker --gate-arg " + d + "/worker.sh");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("(shards 1 of 3, 2 of 6 units without a result)"),
            std::string::npos)
      << o.text;
  EXPECT_NE(
      slurp(d + "/sbatch.log")
          .find(
              "--dependency=afterok:103 --kill-on-invalid-dep=yes --array=1 "),
      std::string::npos);
  ASSERT_EQ(task(1).status, 0);
  // A task killed while writing leaves a torn line: kept apart, not merged.
  std::ofstream(run + "/shard-1.jsonl", std::ios::app)
      << R"({"schema":"atrex-gate-result/1","unit":4,"sub)";
  o = sh(fleet + " collect --dir " + run);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("merged 6 of 6 units from 3 shards into " + run +
                        "/results.jsonl; 1 torn lines kept apart"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("warning: kept apart: " + run + "/shard-1.jsonl:3:"),
            std::string::npos)
      << o.text;
  EXPECT_EQ(slurp(run + "/torn-lines.txt"),
            run + "/shard-1.jsonl:3\t" +
                R"({"schema":"atrex-gate-result/1","unit":4,"sub)" + "\n");
  // One line per unit in unit order, the same results as one local run.
  ASSERT_EQ(sh(env + kGate + " --quiet --plan " + d + "/plan.json --cache " +
               run + "/cache --worker " + d + "/worker.sh --out " + d +
               "/local.jsonl")
                .status,
            0);
  std::vector<std::string> merged = linesOf(run + "/results.jsonl"),
                           local = linesOf(d + "/local.jsonl");
  ASSERT_EQ(merged.size(), 6u);
  ASSERT_EQ(local.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    Json m = Json::parse(merged[i]), l = Json::parse(local[i]);
    EXPECT_EQ(m.getInt("unit", -1), static_cast<int64_t>(i));
    EXPECT_EQ(m.getString("shard", ""), std::to_string(i % 3) + "/3");
    for (const char *k : {"submission", "problem", "status", "stage", "verdict",
                          "reason", "performance"})
      EXPECT_EQ(m.get(k) ? m.get(k)->dump() : "-",
                l.get(k) ? l.get(k)->dump() : "-")
          << i << " " << k;
  }
  o = sh(fleet + " submit --dir " + run);
  EXPECT_NE(o.text.find("all 6 units of " + run +
                        " have a result; nothing to submit"),
            std::string::npos)
      << o.text;

  // Lines that are not units of their shard of the plan: nothing is merged.
  std::string shard1; // its two results, without the torn line
  for (const std::string &line : linesOf(run + "/shard-1.jsonl"))
    if (line.back() == '}')
      shard1 += line + "\n";
  auto collectWith = [&](const std::string &extraLine) {
    std::ofstream(run + "/shard-1.jsonl") << shard1 << extraLine << "\n";
    return sh(fleet + " collect --dir " + run);
  };
  Json unit0 = Json::parse(merged[0]);
  o = collectWith(unit0.dump());
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(
      o.text.find("error: " + run +
                  "/shard-1.jsonl:3: unit 0 belongs to shard 0/3, not 1/3"),
      std::string::npos)
      << o.text;
  EXPECT_NE(
      o.text.find("nothing merged: the shards' results do not partition " + d +
                  "/plan.json into 3 shards"),
      std::string::npos)
      << o.text;
  Json other = Json::parse(merged[1]);
  other.get("problem")->set("id", "p0009");
  o = collectWith(other.dump());
  EXPECT_NE(
      o.text.find(
          "shard-1.jsonl:3: unit 1 is rms x p0009 here but rms x p0002 in " +
          d + "/plan.json"),
      std::string::npos)
      << o.text;
  other = Json::parse(merged[1]);
  other.set("unit", 7);
  o = collectWith(other.dump());
  EXPECT_NE(o.text.find("shard-1.jsonl:3: unit 7 is not a unit of " + d +
                        "/plan.json (6 units)"),
            std::string::npos)
      << o.text;
  other = Json::parse(merged[1]);
  other.set("shard", "1/2");
  o = collectWith(other.dump());
  EXPECT_NE(o.text.find("shard-1.jsonl:3: ran as shard 1/2, expected 1/3"),
            std::string::npos)
      << o.text;
  // A later "error" line of a unit does not replace its result; an earlier one
  // is replaced.
  other = Json::parse(merged[1]);
  other.set("status", "error");
  other.set("reason", "setup: the gate's fault");
  o = collectWith(other.dump());
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("(1 earlier lines of the same units left out)"),
            std::string::npos)
      << o.text;
  EXPECT_EQ(linesOf(run + "/results.jsonl")[1], merged[1]);
  EXPECT_FALSE(fs::exists(
      run + "/torn-lines.txt")); // the torn line is gone from shard 1 now
  // A plan that changed since the submission is refused.
  std::ofstream(run + "/shard-1.jsonl") << shard1;
  std::ofstream(d + "/plan.json", std::ios::app) << "\n";
  o = sh(fleet + " collect --dir " + run);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find(d + "/plan.json changed since it was submitted"),
            std::string::npos)
      << o.text;
}

TEST(AtrexFleet, HelpersOfTheScripts) {
  EXPECT_EQ(fleet::arrayIndices({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(fleet::arrayIndices({4}), "4");
  EXPECT_EQ(fleet::slurmTime(1), "00:01:00");
  EXPECT_EQ(fleet::slurmTime(3600 * 25 + 61), "1-01:02:00");
  EXPECT_EQ(fleet::shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(fleet::parseJobId("123;cluster\n"), "123");
  EXPECT_THROW(fleet::parseJobId("sbatch: error: Batch job submission failed"),
               std::runtime_error);
  auto states = fleet::parseJobStates(
      "12|COMPLETED\n13_1|CANCELLED by 0\n13_[2-3]|PENDING\njunk\n");
  EXPECT_EQ(states.size(), 3u);
  EXPECT_EQ(states["13_1"], "CANCELLED");
}

// A one-node Slurm of Debian's slurm-wlm in a temporary directory.
class AtrexFleetSlurm : public ::testing::Test {
protected:
  std::string slurmDir, env;
  bool started = false;
  void SetUp() override {
    char tmpl[] = "/tmp/atrex-slurm-XXXXXX"; // short: the munge socket's path
                                             // has a length limit
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    slurmDir = tmpl;
    Out o = sh(kSlurmLocal + " start " + slurmDir);
    if (o.status != 0) {
      const char *require = std::getenv("ATREX_REQUIRE_SLURM");
      if (require && std::string(require) == "1")
        FAIL() << "Slurm did not start (ATREX_REQUIRE_SLURM=1): " << kSlurmLocal
               << "\n"
               << o.text;
      std::cerr << "skipped: Slurm did not start here (" << kSlurmLocal
                << "):\n"
                << o.text;
      GTEST_SKIP() << "Slurm did not start here: " << o.text;
    }
    started = true;
    env = "SLURM_CONF=" + slurmDir + "/etc/slurm.conf ";
  }
  void TearDown() override {
    if (started)
      sh(kSlurmLocal + " stop " + slurmDir);
    std::error_code ec;
    fs::remove_all(slurmDir, ec);
  }
  bool queueEmpty() {
    return sh(env + "squeue --noheader --format=%i").text.empty();
  }
};

// Submission, array tasks, a task cancelled mid-way and resumed by the
// resubmission, the merge, and scores equal to a local run of the plan.
TEST_F(AtrexFleetSlurm, KilledTaskResumesAndScoresMatchALocalRun) {
  std::string d = tmp("slurm");
  std::string gateEnv = writePlan(d);
  std::string run = d + "/run";
  // Each unit takes 3 s in the scripted worker: task 1 is cancelled during its
  // second unit.
  std::string fleet = env + gateEnv + "FAKE_SLEEP=3 " + kFleet;
  std::string opts =
      " --time 5 --gate-arg --worker --gate-arg " + d + "/worker.sh";
  Out o = sh(fleet + " submit --dir " + run + " --plan " + d +
             "/plan.json --shards 3" + opts);
  ASSERT_EQ(o.status, 0) << o.text;
  Json record = parseJsonFile(run + "/fleet.json");
  ASSERT_EQ(record.get("submissions")->size(), 1u);
  std::string array =
      record.get("submissions")->asArray()[0].getString("array_job", "");
  std::string compileJob =
      record.get("submissions")->asArray()[0].getString("compile_job", "");
  ASSERT_FALSE(array.empty()) << o.text;

  ASSERT_TRUE(
      waitFor([&] { return linesOf(run + "/shard-1.jsonl").size() >= 1; }, 60))
      << sh(fleet + " status --dir " + run).text << sh(env + "squeue").text
      << slurp(slurmDir + "/log/slurmctld.log");
  // The compile job ran first and the array's tasks after it, one shard each.
  EXPECT_NE(slurp(run + "/logs/compile." + compileJob + ".err")
                .find("compiled 3 of 3 submissions"),
            std::string::npos);
  o = sh(env + "scancel " + array + "_1");
  ASSERT_EQ(o.status, 0) << o.text;
  ASSERT_TRUE(waitFor([&] { return queueEmpty(); }, 60))
      << sh(env + "squeue").text;
  o = sh(fleet + " status --dir " + run);
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("compile job " + compileJob + ": COMPLETED\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("shard 0: 2/2 units, job " + array + "_0 COMPLETED\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("shard 1: 1/2 units, job " + array + "_1 CANCELLED\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("shard 2: 2/2 units, job " + array + "_2 COMPLETED\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("5/6 units done; 1 without a result"),
            std::string::npos)
      << o.text;
  for (int i : {0, 2})
    for (const std::string &line :
         linesOf(run + "/shard-" + std::to_string(i) + ".jsonl"))
      EXPECT_EQ(Json::parse(line).getString("shard", ""),
                std::to_string(i) + "/3");
  // Not merged while a unit is missing.
  EXPECT_EQ(sh(fleet + " collect --dir " + run).status, 1);
  // scancel rarely lands inside the gate's single write of a line; a torn
  // line as a kill inside it leaves (the gate's own resume test does the same).
  std::ofstream(run + "/shard-1.jsonl", std::ios::app)
      << R"({"schema":"atrex-gate-result/1","unit":4,"subm)";

  // Resubmission: only shard 1, and in it only the unit without a result.
  o = sh(fleet + " submit --dir " + run + opts);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("(shards 1 of 3, 1 of 6 units without a result)"),
            std::string::npos)
      << o.text;
  record = parseJsonFile(run + "/fleet.json");
  ASSERT_EQ(record.get("submissions")->size(), 2u);
  std::string array2 =
      record.get("submissions")->asArray()[1].getString("array_job", "");
  ASSERT_TRUE(waitFor([&] { return queueEmpty(); }, 60))
      << sh(env + "squeue").text;
  std::string log = slurp(run + "/logs/shard-1." + array2 + ".err");
  EXPECT_NE(log.find("1 units in shard 1/3 of " + d +
                     "/plan.json (1 already in " + run + "/shard-1.jsonl)"),
            std::string::npos)
      << log;
  EXPECT_NE(
      log.find("warning: --resume: ignoring " + run + "/shard-1.jsonl:2:"),
      std::string::npos)
      << log;
  o = sh(fleet + " status --dir " + run);
  EXPECT_NE(o.text.find("shard 1: 2/2 units, job " + array2 + "_1 COMPLETED\n"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("6/6 units done"), std::string::npos) << o.text;
  o = sh(fleet + " submit --dir " + run + opts);
  EXPECT_NE(o.text.find("nothing to submit"), std::string::npos) << o.text;

  // The same plan run locally, in one process.
  ASSERT_EQ(sh(gateEnv + kGate + " --quiet --plan " + d +
               "/plan.json --cache " + d + "/local-cache --worker " + d +
               "/worker.sh --out " + d + "/local.jsonl")
                .status,
            0);
  std::string score = fs::path(ATREX_BIN_DIR "/../../bin/atrex-score")
                          .lexically_normal()
                          .string();
  if (!fs::exists(score)) {
    std::cerr << "skipped: the score comparison needs " << score
              << " (the analysis side's build)\n";
    GTEST_SKIP() << "Slurm part passed; no " << score
                 << " for the score comparison";
  }
  o = sh(fleet + " collect --dir " + run + " --name fleet -- " + kBundle +
         " --format json -o " + d + "/fleet.json");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("merged 6 of 6 units from 3 shards into " + run +
                        "/results.jsonl; 1 torn lines"),
            std::string::npos)
      << o.text;
  EXPECT_NE(
      o.text.find("1 torn lines kept apart in " + run + "/torn-lines.txt"),
      std::string::npos)
      << o.text;
  o = sh(score + " " + kBundle + " --set fleet=" + d +
         "/local.jsonl --format json -o " + d + "/local.json");
  ASSERT_EQ(o.status, 0) << o.text;
  Json fleetScore = parseJsonFile(d + "/fleet.json"),
       localScore = parseJsonFile(d + "/local.json");
  EXPECT_EQ(withoutProvenance(fleetScore), withoutProvenance(localScore))
      << fleetScore.dump(1) << "\n---\n"
      << localScore.dump(1);
  double sAgg = fleetScore.get("sets")->asArray()[0].getDouble("s_agg", -1);
  EXPECT_GT(sAgg, 0.1);
  EXPECT_EQ(sAgg, localScore.get("sets")->asArray()[0].getDouble("s_agg", -2));
  std::cerr << "S_agg fleet " << sAgg << ", local "
            << localScore.get("sets")->asArray()[0].getDouble("s_agg", -2)
            << "\n";
}

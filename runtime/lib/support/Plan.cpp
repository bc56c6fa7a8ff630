//===- Plan.cpp - Gate plans and result records ---------------------------===//
#include "atrex-rt/Plan.h"
#include "atrex-rt/Protocol.h"

#include <climits>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <set>
#include <type_traits>
#include <variant>

namespace atrex::rt {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void planError(const std::string &path, const std::string &where,
                            const std::string &msg) {
  throw std::runtime_error(path + ": " + where + (where.empty() ? "" : ": ") +
                           msg);
}
} // namespace

// ---- settings: one table -----------------------------------------------
// Every key of a plan's "settings", its field, and whether the worker gets it
// in the job document (workerSettingsJson): the key list the plan is checked
// against, the typed parse and the worker's settings all come from here.
// Cross-field checks and ranges follow in parsePlan; `seed` is parsed there.
namespace {
using Field = std::variant<std::monostate, std::string PlanSettings::*,
                           double PlanSettings::*, int PlanSettings::*,
                           int64_t PlanSettings::*, bool PlanSettings::*>;
struct Setting {
  const char *key;
  Field field;
  bool mib = false;    // a size in MiB in the plan, bytes in the field
  bool worker = false; // sent to the worker in the job document
};
const Setting kSettings[] = {
    {"arch", &PlanSettings::arch},
    {"compile_s", &PlanSettings::compileSeconds},
    {"problem_s", &PlanSettings::problemSeconds},
    {"rss_mb", &PlanSettings::rssBytes, true},
    {"file_mb", &PlanSettings::fileSizeBytes, true},
    {"address_space_mb", &PlanSettings::addressSpaceBytes, true},
    {"private_network", &PlanSettings::privateNetwork},
    {"read_only_view", &PlanSettings::readOnlyView},
    {"ghost_replay", &PlanSettings::ghostReplay, false, true},
    {"trials", &PlanSettings::trials, false, true},
    {"warmup_ms", &PlanSettings::warmupMs, false, true},
    {"min_reps", &PlanSettings::minReps, false, true},
    {"max_reps", &PlanSettings::maxReps, false, true},
    {"max_timed_s", &PlanSettings::maxTimedSeconds, false, true},
    {"target_rel_err", &PlanSettings::targetRelErr, false, true},
    {"graph_below_us", &PlanSettings::graphBelowUs, false, true},
    {"recheck", &PlanSettings::recheck, false, true},
    {"rotate_inputs", &PlanSettings::rotateInputs, false, true},
    {"seed", std::monostate{}},
    {"gpu", &PlanSettings::gpu, false, true},
    {"gap_sleep_cycles", &PlanSettings::gapSleepCycles, false, true},
    {"clean_timing", &PlanSettings::cleanTiming},
    {"clean_timing_tolerance", &PlanSettings::cleanTimingTolerance},
    {"own_share_calls", &PlanSettings::ownShareCalls},
    {"gpu_mb", &PlanSettings::gpuMb, false, true},
    {"clock_check", &PlanSettings::clockCheck},
    {"memcheck", &PlanSettings::memcheck},
    {"memcheck_s", &PlanSettings::memcheckSeconds},
    {"cache_dir", &PlanSettings::cacheDir},
    {"hip_include", &PlanSettings::hipInclude},
};

// Reads every key present in `js` into `s` (absent keys keep their defaults).
void readSettings(const Json &js, PlanSettings &s, const std::string &path) {
  for (const Setting &d : kSettings) {
    if (!js.has(d.key))
      continue;
    std::visit(
        [&](auto field) {
          using F = decltype(field);
          if constexpr (std::is_same_v<F, std::string PlanSettings::*>)
            s.*field = js.getString(d.key, s.*field);
          else if constexpr (std::is_same_v<F, double PlanSettings::*>)
            s.*field = js.getDouble(d.key, s.*field);
          else if constexpr (std::is_same_v<F, int PlanSettings::*>)
            s.*field = static_cast<int>(js.getInt(d.key, s.*field));
          else if constexpr (std::is_same_v<F, bool PlanSettings::*>)
            s.*field = js.getBool(d.key, s.*field);
          else if constexpr (std::is_same_v<F, int64_t PlanSettings::*>) {
            int64_t v = js.getInt(d.key, d.mib ? (s.*field >> 20) : s.*field);
            if (d.mib) {
              // Sizes in MiB, as bytes: 0 .. 2^43 - 1 MiB (the bytes fit in
              // int64_t).
              if (v < 0 || v > (INT64_MAX >> 20))
                planError(path, std::string("settings.") + d.key,
                          "expected a size in MiB from 0 to " +
                              std::to_string(INT64_MAX >> 20));
              v <<= 20;
            }
            s.*field = v;
          }
        },
        d.field);
  }
}
} // namespace

std::vector<std::string> settingKeys() {
  std::vector<std::string> keys;
  for (const Setting &d : kSettings)
    keys.push_back(d.key);
  return keys;
}

Json workerSettingsJson(const PlanSettings &s) {
  Json j = Json::object();
  for (const Setting &d : kSettings) {
    if (!d.worker)
      continue;
    std::visit(
        [&](auto field) {
          if constexpr (!std::is_same_v<decltype(field), std::monostate>)
            j.set(d.key, s.*field);
        },
        d.field);
  }
  return j;
}

Plan parsePlan(const Json &j, const std::string &path) {
  Plan plan;
  plan.path = path;
  plan.dir = fs::path(path).parent_path().string();
  try {
    checkObjectKeys(j, {"schema", "settings", "submissions"}, path, "");
    std::string schema = j.getString("schema", kPlanSchema);
    if (schema != kPlanSchema)
      planError(path, "schema",
                "expected '" + std::string(kPlanSchema) + "', got '" + schema +
                    "'");
    PlanSettings &s = plan.settings;
    if (const Json *js = j.get("settings")) {
      checkObjectKeys(*js, settingKeys(), path, "settings");
      readSettings(*js, s, path);
      if (!protocol::isCudaArch(s.arch))
        planError(path, "settings.arch",
                  "expected a CUDA compile target sm_XY, sm_XYa or sm_XYf, "
                  "got '" +
                      s.arch + "'");
      if (s.trials < 3)
        planError(path, "settings.trials",
                  "at least 3 correctness trials are required");
      if (s.minReps < 3 || s.maxReps < s.minReps)
        planError(path, "settings", "need 3 <= min_reps <= max_reps");
      if (s.gapSleepCycles < 0 || s.gapSleepCycles > 100000000)
        planError(path, "settings.gap_sleep_cycles",
                  "expected 0..100000000 clock cycles");
      if (!(s.cleanTimingTolerance >= 0 && s.cleanTimingTolerance <= 1))
        planError(path, "settings.clean_timing_tolerance",
                  "expected a fraction in [0, 1]");
      if (s.ownShareCalls < 0 || s.ownShareCalls > 1000)
        planError(path, "settings.own_share_calls", "expected 0..1000 calls");
      if (s.gpuMb < 0 || s.gpuMb > (1LL << 30))
        planError(path, "settings.gpu_mb",
                  "expected 0 (no cap) or a size in MiB");
      if (!(s.memcheckSeconds > 0))
        planError(path, "settings.memcheck_s",
                  "expected a positive number of seconds");
      // HIP include directory (relative to the plan's directory); default:
      // env/build.
      if (!s.hipInclude.empty() && fs::path(s.hipInclude).is_relative())
        s.hipInclude =
            (fs::path(plan.dir) / s.hipInclude).lexically_normal().string();
      if (const Json *seed = js->get("seed")) {
        if (seed->isString() && seed->asString() == "random") {
          s.seedSource = "random";
        } else if (seed->isInt() && seed->asInt() >= 0) {
          s.seedSource = "fixed";
          s.seed = static_cast<uint64_t>(seed->asInt());
        } else {
          planError(path, "settings.seed",
                    "must be \"random\" or a non-negative integer");
        }
      }
    }
    const Json *subs = j.get("submissions");
    if (!subs || !subs->isArray() || subs->size() == 0)
      planError(path, "submissions", "must be a non-empty array");
    std::set<std::string> names;
    for (size_t i = 0; i < subs->size(); ++i) {
      const Json &js = subs->asArray()[i];
      std::string where = "submissions[" + std::to_string(i) + "]";
      checkObjectKeys(js,
                      {"name", "source", "operator", "lang", "expected_verdict",
                       "nvcc_flags", "format", "entry", "problems"},
                      path, where);
      Submission sub;
      sub.source = js.getString("source", "");
      if (sub.source.empty())
        planError(path, where, "missing 'source'");
      if (fs::path(sub.source).is_relative())
        sub.source =
            (fs::path(plan.dir) / sub.source).lexically_normal().string();
      sub.name = js.getString("name", fs::path(sub.source).stem().string());
      if (!names.insert(sub.name).second)
        planError(path, where, "duplicate submission name '" + sub.name + "'");
      sub.op = js.getString("operator", "");
      const OpSpec *spec = findOpSpec(sub.op);
      if (!spec)
        planError(path, where,
                  "unknown operator '" + sub.op +
                      "' (known: " + knownOpNames() + ")");
      sub.lang = js.getString("lang", "cuda");
      if (sub.lang != "cuda" && sub.lang != "hip" && sub.lang != "python")
        planError(path, where, "lang must be 'cuda', 'hip' or 'python'");
      if (sub.lang == "python") {
        sub.format = js.getString("format", "kernelbench");
        if (sub.format == "kernelbench")
          sub.entry = "ModelNew";
        else if (sub.format == "gpumode")
          sub.entry = "custom_kernel";
        else if (sub.format == "entry")
          sub.entry = sub.op;
        else
          planError(path, where + ".format",
                    "'" + sub.format +
                        "' is not a Python submission format (kernelbench, "
                        "gpumode or entry)");
        sub.entry = js.getString("entry", sub.entry);
        if (sub.entry.empty())
          planError(path, where + ".entry", "must not be empty");
        if (js.get("nvcc_flags"))
          planError(path, where + ".nvcc_flags",
                    "is for C++ submissions (a Python submission passes its "
                    "flags to load_inline)");
      } else if (js.get("format") || js.get("entry")) {
        planError(path, where,
                  "'format' and 'entry' are for lang 'python' submissions");
      }
      sub.expectedVerdict = js.getString("expected_verdict", "");
      if (const Json *f = js.get("nvcc_flags")) {
        // A relative include directory (-I<dir>, -isystem<dir>, or the flag
        // and the directory as two entries) resolves against the plan's
        // directory, as `source` does, and is made absolute: nvcc runs in
        // the gate's cache directory, where a path relative to the working
        // directory of the gate names nothing (the H200 run of 2026-12-04).
        auto absolute = [&](const std::string &dir) {
          return fs::path(dir).is_relative()
                     ? fs::absolute(fs::path(plan.dir) / dir)
                           .lexically_normal()
                           .string()
                     : dir;
        };
        bool dirNext = false;
        for (const Json &flag : f->asArray()) {
          std::string fl = flag.asString();
          if (dirNext) {
            fl = absolute(fl);
            dirNext = false;
          } else if (fl == "-I" || fl == "-isystem") {
            dirNext = true;
          } else {
            for (const char *opt : {"-isystem", "-I"}) {
              size_t n = std::char_traits<char>::length(opt);
              if (fl.size() > n && fl.compare(0, n, opt) == 0) {
                fl = opt + absolute(fl.substr(n));
                break;
              }
            }
          }
          sub.extraFlags.push_back(fl);
        }
      }
      const Json *probs = js.get("problems");
      if (!probs || !probs->isArray() || probs->size() == 0)
        planError(path, where + ".problems", "must be a non-empty array");
      for (size_t p = 0; p < probs->size(); ++p) {
        const Json &jp = probs->asArray()[p];
        std::string pw = where + ".problems[" + std::to_string(p) + "]";
        checkObjectKeys(jp, {"id", "shape", "floor_s", "extra"}, path, pw);
        Problem prob;
        prob.op = sub.op;
        const Json *shape = jp.get("shape");
        if (!shape)
          planError(path, pw, "missing 'shape'");
        try {
          prob.shape = shapeFromJson(*spec, *shape);
        } catch (const std::exception &e) {
          planError(path, pw, e.what());
        }
        prob.id =
            jp.getString("id", sub.op + "/" + shapeMapToString(prob.shape));
        prob.floorSeconds = jp.getDouble("floor_s", 0);
        if (const Json *x = jp.get("extra"))
          prob.extra = *x;
        sub.problems.push_back(std::move(prob));
      }
      plan.submissions.push_back(std::move(sub));
    }
  } catch (const JsonError &e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return plan;
}

Plan loadPlan(const std::string &path) {
  return parsePlan(parseJsonFile(path), path);
}

std::vector<Unit> allUnits(const Plan &plan) {
  std::vector<Unit> units;
  for (const auto &s : plan.submissions)
    for (const auto &p : s.problems)
      units.push_back(Unit{units.size(), &s, &p});
  return units;
}

std::vector<Unit> shardUnits(const Plan &plan, int shard, int count) {
  if (count <= 0 || shard < 0 || shard >= count)
    throw std::runtime_error("shard " + std::to_string(shard) + "/" +
                             std::to_string(count) + " is out of range");
  std::vector<Unit> out;
  for (const Unit &u : allUnits(plan))
    if (static_cast<int>(u.index % count) == shard)
      out.push_back(u);
  return out;
}

std::pair<int, int> parseShard(const std::string &text) {
  auto slash = text.find('/');
  try {
    if (slash == std::string::npos)
      throw 0;
    size_t a = 0, b = 0;
    int i = std::stoi(text.substr(0, slash), &a);
    int n = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1 || n <= 0 || i < 0 || i >= n)
      throw 0;
    return {i, n};
  } catch (...) {
    throw std::runtime_error("--shard '" + text +
                             "': expected i/n with 0 <= i < n");
  }
}

namespace {
std::string checkResult(const Json &r) {
  if (!r.isObject())
    return "a result must be an object";
  if (r.getString("schema", "") != kResultSchema)
    return std::string("'schema' must be '") + kResultSchema + "'";
  for (const char *k :
       {"unit", "submission", "problem", "status", "stage", "verdict"})
    if (!r.has(k))
      return std::string("missing key '") + k + "'";
  static const std::set<std::string> statuses(std::begin(protocol::kStatuses),
                                              std::end(protocol::kStatuses));
  if (!statuses.count(r.getString("status", "")))
    return "status must be pass, fail or error";
  static const std::set<std::string> stages(std::begin(protocol::kStages),
                                            std::end(protocol::kStages));
  if (!stages.count(r.getString("stage", "")))
    return "unknown stage '" + r.getString("stage", "") + "'";
  static const std::set<std::string> verdicts(std::begin(protocol::kVerdicts),
                                              std::end(protocol::kVerdicts));
  if (!verdicts.count(r.getString("verdict", "")))
    return "unknown verdict '" + r.getString("verdict", "") + "'";
  if (r.getString("status", "") != protocol::kPass &&
      r.getString("reason", "").empty())
    return "a failed result needs a 'reason'";
  if (r.getString("status", "") == protocol::kPass) {
    const Json *perf = r.get("performance");
    if (!perf || !perf->has("median_us"))
      return "a passing result needs performance.median_us";
  }
  return "";
}
} // namespace

std::string validateResult(const Json &r) {
  // A key of the wrong type ("status": 1) is what is wrong, not an exception.
  try {
    return checkResult(r);
  } catch (const JsonError &e) {
    return e.what();
  }
}

} // namespace atrex::rt

//===- HipTest.cpp - HIP submissions on NVIDIA: patch, command, examples --===//
//
// HIP submissions compile with nvcc through HIP's NVIDIA-platform headers,
// patched for CUDA 13 (runtime/hip/patch_hip_nvidia.py; the build's copy is
// ATREX_RT_HIP_INCLUDE). Tests that need those headers or nvcc skip themselves
// with the reason when either is absent (scripts/install-deps.sh installs
// libamdhip64-dev).
//===----------------------------------------------------------------------===//
#include "atrex-rt/Compile.h"
#include "atrex-rt/Config.h"
#include "atrex-rt/Plan.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <sys/wait.h>

using namespace atrex::rt;
namespace fs = std::filesystem;

namespace {
const std::string kRuntimeDir = ATREX_RT_SOURCE_DIR;    // runtime/
const std::string kRepoDir = ATREX_RT_SOURCE_DIR "/.."; // the repository
const std::string kPatchScript = kRuntimeDir + "/hip/patch-hip-nvidia.sh";
const std::string kPatched = ATREX_RT_HIP_INCLUDE; // "" without HIP headers
const std::string kHipSource =
    ATREX_RT_HIP_SOURCE_INCLUDE; // where CMake looked for hip/

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
  std::string d = fs::path(::testing::TempDir() + "/atrex-hip-" + name)
                      .lexically_normal()
                      .string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string whyNoHip() {
  if (kPatched.empty())
    return "no HIP NVIDIA-platform headers at " + kHipSource +
           "/hip/nvidia_detail when the runtime was configured (Debian "
           "libamdhip64-dev, "
           "installed by scripts/install-deps.sh), so the build made no "
           "patched copy";
  if (!fs::exists(kPatched + "/hip/ATREX_PATCHED"))
    return "the patched copy " + kPatched +
           " was not built (target atrex-hip-include)";
  return "";
}
std::string whyNoNvcc() {
  return fs::exists(ATREX_RT_NVCC) ? ""
                                   : std::string("no nvcc at ") + ATREX_RT_NVCC;
}
// nvcc as in hip-on-cuda13.txt: one translation unit, object only.
Out nvccHip(const std::string &src, const std::string &include,
            const std::string &obj) {
  std::string cmd =
      std::string(ATREX_RT_NVCC) +
      " -x cu -D__HIP_PLATFORM_NVIDIA__ -c -gencode arch=compute_90,code=sm_90";
  if (!include.empty() && fs::path(include) != "/usr/include")
    cmd += " -isystem " + include;
  return sh(cmd + " -o " + obj + " " + src);
}
size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}
} // namespace

#define REQUIRE_HIP_AND_NVCC()                                                 \
  do {                                                                         \
    if (std::string w = whyNoHip(); !w.empty())                                \
      GTEST_SKIP() << w;                                                       \
    if (std::string w = whyNoNvcc(); !w.empty())                               \
      GTEST_SKIP() << w;                                                       \
  } while (0)

// ---- the patch
// -----------------------------------------------------------------------------
TEST(HipPatch, BuildCopyRecordsItsSource) {
  if (std::string w = whyNoHip(); !w.empty())
    GTEST_SKIP() << w;
  std::ifstream in(kPatched + "/hip/ATREX_PATCHED");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("patch: atrex-hip-nvidia-cuda13/1"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "source_sha256: "
          "f835740af0ed8bd8d9d010dc9ef94e517c474c718b4b8c8cf215b7f38ce074c2"),
      std::string::npos)
      << text;
  std::ifstream h(kPatched + "/hip/nvidia_detail/nvidia_hip_runtime_api.h");
  std::string header((std::istreambuf_iterator<char>(h)),
                     std::istreambuf_iterator<char>());
  // Every edit is marked, and the original text stays under the guard's #else.
  EXPECT_EQ(count(header, "/* atrex: atrex-hip-nvidia-cuda13/1 */"), 19u);
  EXPECT_NE(header.find("cudaMemPrefetchAsync(dev_ptr, count, device, stream)"),
            std::string::npos);
}

TEST(HipPatch, RefusesAnotherHeaderAndForeignOutput) {
  if (std::string w = whyNoHip(); !w.empty())
    GTEST_SKIP() << w;
  std::string d = tmp("refuse");
  fs::create_directories(d + "/src");
  fs::copy(kHipSource + "/hip", d + "/src/hip",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  // The unmodified source patches.
  Out o = sh(kPatchScript + " " + d + "/src " + d + "/ok");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(fs::exists(d + "/ok/hip/ATREX_PATCHED"));
  // Again into the same directory (its own output): fine.
  EXPECT_EQ(sh(kPatchScript + " " + d + "/src " + d + "/ok").status, 0);
  // A directory it did not write: refused, untouched.
  fs::create_directories(d + "/foreign/hip");
  std::ofstream(d + "/foreign/hip/mine.h") << "x\n";
  o = sh(kPatchScript + " " + d + "/src " + d + "/foreign");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("was not written by this script"), std::string::npos)
      << o.text;
  EXPECT_TRUE(fs::exists(d + "/foreign/hip/mine.h"));
  // One changed byte in the header: refused, naming both hashes.
  fs::permissions(d + "/src/hip/nvidia_detail/nvidia_hip_runtime_api.h",
                  fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(d + "/src/hip/nvidia_detail/nvidia_hip_runtime_api.h",
                std::ios::app)
      << "//\n";
  o = sh(kPatchScript + " " + d + "/src " + d + "/bad");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("is not the header this patch was written for"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("f835740af0ed8bd8"), std::string::npos) << o.text;
  EXPECT_FALSE(fs::exists(d + "/bad/hip"));
  // No hip/ at all.
  o = sh(kPatchScript + " " + d + "/nothing " + d + "/bad");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("no hip/hip_runtime.h under"), std::string::npos)
      << o.text;
}

// The 10-line kernel of bench/results/gate-2026-11-29/hip-on-cuda13.txt: 45
// errors in nvidia_hip_runtime_api.h unpatched, none patched.
TEST(HipPatch, OriginalTenLineKernel) {
  REQUIRE_HIP_AND_NVCC();
  std::string d = tmp("ten-lines");
  std::string src = kRuntimeDir + "/hip/check/hip-on-cuda13.hip";
  Out o = nvccHip(src, kHipSource, d + "/unpatched.o");
  EXPECT_NE(o.status, 0)
      << "the unpatched headers compiled: is the patch still needed?\n"
      << o.text;
  EXPECT_GT(count(o.text, "nvidia_hip_runtime_api.h("), 10u) << o.text;
  o = nvccHip(src, kPatched, d + "/patched.o");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text.find("error"), std::string::npos) << o.text;
  EXPECT_TRUE(fs::exists(d + "/patched.o"));
}

// Calls every wrapper the patch edits, so the edited code paths compile, not
// only the declarations.
TEST(HipPatch, EveryPatchedWrapperCompiles) {
  REQUIRE_HIP_AND_NVCC();
  std::string d = tmp("wrappers");
  Out o = nvccHip(kRuntimeDir + "/hip/check/patched-wrappers.hip", kPatched,
                  d + "/w.o");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text.find("error"), std::string::npos) << o.text;
}

// ---- the gate's compile step
// -------------------------------------------------------------
TEST(HipGate, NvccCommandCompilesAsCudaWithTheHipPlatform) {
  Submission sub;
  sub.lang = "hip";
  sub.extraFlags = {"-lineinfo"};
  PlanSettings s;
  auto cmd = nvccCommand(sub, s, "b.cu", "o.so", "/opt/hip-patched");
  auto at = [&](const std::string &f) {
    return std::find(cmd.begin(), cmd.end(), f) - cmd.begin();
  };
  ASSERT_LT(at("-x"), static_cast<long>(cmd.size()));
  EXPECT_EQ(cmd[at("-x") + 1], "cu");
  EXPECT_LT(at("-D__HIP_PLATFORM_NVIDIA__"), static_cast<long>(cmd.size()));
  EXPECT_EQ(cmd[at("/opt/hip-patched") - 1], "-isystem");
  EXPECT_LT(at("arch=compute_90,code=sm_90"), static_cast<long>(cmd.size()));
  EXPECT_LT(at("-ltorch_cuda"), static_cast<long>(cmd.size()));
  EXPECT_LT(at("-lineinfo"), static_cast<long>(cmd.size()));
  EXPECT_EQ(cmd.back(), "b.cu");
  // CUDA submissions: unchanged.
  sub.lang = "cuda";
  cmd = nvccCommand(sub, s, "b.cu", "o.so", "/opt/hip-patched");
  EXPECT_EQ(std::find(cmd.begin(), cmd.end(), "-D__HIP_PLATFORM_NVIDIA__"),
            cmd.end());
  EXPECT_EQ(std::find(cmd.begin(), cmd.end(), "/opt/hip-patched"), cmd.end());
}

TEST(HipGate, IncludeDirectoryPrecedenceAndMissingHeaders) {
  std::string d = tmp("resolve");
  for (const char *dir : {"/plan", "/env"}) {
    fs::create_directories(d + dir + "/hip/nvidia_detail");
    std::ofstream(d + dir + "/hip/hip_runtime.h") << "\n";
    std::ofstream(d + dir + "/hip/nvidia_detail/nvidia_hip_runtime_api.h")
        << "\n";
  }
  PlanSettings s;
  std::string err;
  ::setenv("ATREX_HIP_INCLUDE", (d + "/env").c_str(), 1);
  EXPECT_EQ(resolveHipInclude(s, err), d + "/env") << err;
  s.hipInclude = d + "/plan";
  EXPECT_EQ(resolveHipInclude(s, err), d + "/plan") << err;
  ::unsetenv("ATREX_HIP_INCLUDE");
  s.hipInclude.clear();
  err.clear();
  EXPECT_EQ(resolveHipInclude(s, err),
            kPatched.empty() ? ""
                             : fs::path(kPatched).lexically_normal().string());
  if (kPatched.empty())
    EXPECT_NE(err.find("HIP headers not available"), std::string::npos) << err;

  // A directory without the NVIDIA headers: the unit fails at compile as the
  // gate's error (status error), naming the missing file.
  fs::remove(d + "/plan/hip/nvidia_detail/nvidia_hip_runtime_api.h");
  s.hipInclude = d + "/plan";
  err.clear();
  EXPECT_EQ(resolveHipInclude(s, err), "");
  EXPECT_NE(
      err.find(d +
               "/plan/hip/nvidia_detail/nvidia_hip_runtime_api.h' is missing"),
      std::string::npos)
      << err;
  EXPECT_NE(err.find("plan setting hip_include"), std::string::npos) << err;
  std::ofstream(d + "/sub.hip") << "// empty\n";
  Submission sub;
  sub.source = d + "/sub.hip";
  sub.lang = "hip";
  sub.op = "rms_norm";
  CompileResult r =
      compileSubmission(sub, *findOpSpec("rms_norm"), s, d + "/cache");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.internalError);
  EXPECT_NE(r.reason.find("nvidia_hip_runtime_api.h' is missing"),
            std::string::npos)
      << r.reason;
}

TEST(HipGate, CacheKeyCoversTheHipIncludeTree) {
  std::string d = tmp("key");
  for (const char *dir : {"/a", "/b"}) {
    fs::create_directories(d + dir + "/hip/nvidia_detail");
    std::ofstream(d + dir + "/hip/hip_runtime.h") << "// runtime\n";
    std::ofstream(d + dir + "/hip/nvidia_detail/nvidia_hip_runtime_api.h")
        << "// api\n";
  }
  Submission sub;
  sub.lang = "hip";
  sub.op = "rms_norm";
  const OpSpec &spec = *findOpSpec("rms_norm");
  PlanSettings s;
  std::string k1 = compileCacheKey(sub, spec, s, "src", d + "/a");
  EXPECT_EQ(k1, compileCacheKey(sub, spec, s, "src", d + "/a"));
  EXPECT_NE(
      k1, compileCacheKey(sub, spec, s, "src", d + "/b")); // another directory
  std::ofstream(d + "/a/hip/nvidia_detail/nvidia_hip_runtime_api.h",
                std::ios::app)
      << "// v2\n";
  EXPECT_NE(k1, compileCacheKey(sub, spec, s, "src",
                                d + "/a")); // same path, new content
  sub.lang = "cuda";
  EXPECT_NE(k1, compileCacheKey(sub, spec, s, "src", ""));
}

TEST(HipGate, PlanSettingHipIncludeIsRelativeToThePlan) {
  Plan p = parsePlan(
      Json::parse(
          R"({"schema":"atrex-gate-plan/1","settings":{"hip_include":"inc"},
    "submissions":[{"source":"k.hip","lang":"hip","operator":"rms_norm",
                    "problems":[{"shape":{"T":1,"H":8}}]}]})"),
      "/x/y/plan.json");
  EXPECT_EQ(p.settings.hipInclude, "/x/y/inc");
  EXPECT_EQ(p.submissions[0].lang, "hip");
  EXPECT_EQ(p.submissions[0].source, "/x/y/k.hip");
}

// The HIP examples of examples/gate/plan-hip.json, compiled by the gate's own
// compile step (nvccCommand: the exact nvcc command, against libtorch). Without
// cuobjdump (this machine's Debian CUDA lacks it) the step stops after nvcc
// succeeded; that still counts.
TEST(HipGate, ExamplesCompileWithTheGatesCommand) {
  REQUIRE_HIP_AND_NVCC();
  Plan plan = loadPlan(kRepoDir + "/examples/gate/plan-hip.json");
  std::string cache = tmp("examples");
  std::vector<const Submission *> hip;
  for (const Submission &s : plan.submissions)
    if (s.lang == "hip")
      hip.push_back(&s);
  ASSERT_GE(hip.size(), 2u);
  // The plan's compile_s is for the GPU machine; a loaded two-core CI machine
  // needs longer.
  PlanSettings settings = plan.settings;
  settings.compileSeconds = std::max(settings.compileSeconds, 1800.0);
  std::vector<std::future<CompileResult>> jobs;
  for (const Submission *s : hip)
    jobs.push_back(std::async(std::launch::async, [&, s] {
      return compileSubmission(*s, *findOpSpec(s->op), settings, cache);
    }));
  bool haveCuobjdump =
      fs::exists(std::string(ATREX_RT_CUDA_BIN_DIR) + "/cuobjdump");
  for (size_t i = 0; i < hip.size(); ++i) {
    CompileResult r = jobs[i].get();
    SCOPED_TRACE(hip[i]->source);
    EXPECT_NE(
        r.command.find(" -x cu -D__HIP_PLATFORM_NVIDIA__ -isystem " + kPatched),
        std::string::npos)
        << r.command;
    if (haveCuobjdump) {
      EXPECT_TRUE(r.ok) << r.reason << "\n" << r.logTail;
      EXPECT_FALSE(r.cubins.empty());
    } else {
      // nvcc succeeded; only the cubin extraction could not run.
      EXPECT_TRUE(r.ok || r.reason.rfind("cuobjdump", 0) == 0)
          << r.reason << "\n"
          << r.logTail;
    }
  }
}

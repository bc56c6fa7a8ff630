//===- atrex-gate-worker.cpp - Run one problem of a gate plan -------------===//
//
// Child process of atrex-gate: loads the compiled submission once, then runs
// the correctness and performance stages of each unit of its job (the
// problems of one submission, in order; docs/gate.md, "Worker batches"),
// attributes every launch, and writes its report as JSON lines on file
// descriptor 3 (each line the cumulative report of the current unit, with
// its "unit"; a line with "status" ends that unit; the parent keeps the last
// complete line of each unit and writes the results). After a unit that does
// not pass, the worker exits: the parent runs the rest in a fresh worker. The
// secret seeds (one per unit) arrive on stdin, never in argv or the
// environment.
//
//   atrex-gate-worker --job JOB.json < "seed1 ... seedN [key]"
//
//===----------------------------------------------------------------------===//
#include "Cli.h"
#include "atrex-rt/Attribution.h"
#include "atrex-rt/Compile.h"
#include "atrex-rt/Config.h"
#include "atrex-rt/GateRun.h"
#include "atrex-rt/KernelTimes.h"
#include "atrex-rt/Measurement.h"
#include "atrex-rt/Ops.h"
#include "atrex-rt/Protocol.h"
#include "atrex-rt/PythonHost.h"

#include <ATen/DLConvertor.h>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <link.h>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace atrex::rt;

namespace {

Json gReport = Json::object();

// Python submissions: the host's callbacks (PythonHost.h); null for C++.
const AtrexPyHost *gHost = nullptr;
// The report's "python" record, as the host describes it now.
void notePython() {
  if (!gHost || !gHost->describe)
    return;
  const char *text = gHost->describe();
  if (!text)
    return;
  try {
    gReport.set("python", Json::parse(text, "the Python host's record"));
  } catch (const std::exception &e) {
    gReport.set("python", Json(std::string("unreadable: ") + e.what()));
  }
}

// Where the worker's seconds go (report `stage_seconds`): from the unit's
// start (the first unit of a worker: the process start) to the end of each
// stage (setup: CUDA, torch and the submission loaded, for later units the
// unit's own setup), and, in the first unit, `cuda_ready` and
// `library_loaded` on the way.
auto gStart = std::chrono::steady_clock::now();
Json gStageSeconds = Json::object();
void stageEnds(const std::string &stage) {
  gStageSeconds.set(stage, std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - gStart)
                               .count());
  gReport.set("stage_seconds", gStageSeconds);
}
FILE *gReportOut = nullptr;

// Whose work the process is doing, in one byte of <job>.phase: 'c' from a
// candidate call (or load) until the gate's next check, 'g' while the gate
// computes references and compares. When the watchdog kills the process, the
// parent reads it to tell a hang of the candidate from the gate's own work
// outrunning problem_s (then the unit is the gate's `error`, not a `fail`).
int gPhaseFd = -1;
char gPhase = 'g';
// The phase file holds "<report key> <phase>" (just the phase without a key):
// a candidate that overwrites it cannot make its own hang read as the gate's.
std::string gPhaseText = "g";
void markPhase(char phase) {
  gPhase = phase;
  gPhaseText.back() = phase;
  if (gPhaseFd >= 0 && pwrite(gPhaseFd, gPhaseText.data(), gPhaseText.size(),
                              0) != static_cast<ssize_t>(gPhaseText.size())) {
  }
}

// GPU memory through torch's caching allocator (the gate's tensors and the
// candidate's): peaks and the `gpu_mb` limit, if any. Set once CUDA is up.
bool gCudaReady = false;
int64_t gGpuLimitMb = 0;
Json gpuMemory() {
  Json m = Json::object();
  try {
    auto st = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    constexpr size_t kAll =
        static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    m.set("peak_allocated_mib",
          static_cast<double>(st.allocated_bytes[kAll].peak) / (1 << 20));
    m.set("peak_reserved_mib",
          static_cast<double>(st.reserved_bytes[kAll].peak) / (1 << 20));
    m.set("num_ooms", static_cast<int64_t>(st.num_ooms));
  } catch (const std::exception &e) {
    m.set("error", std::string(e.what()).substr(0, 200));
  }
  if (gGpuLimitMb > 0)
    m.set("limit_mib", gGpuLimitMb);
  return m;
}

// The report key from the parent (stdin, after the seed): every line the gate
// writes starts with it, so lines the candidate writes to fd 3 are told apart.
std::string gReportKey;

void emit() {
  std::string line =
      (gReportKey.empty() ? "" : gReportKey + " ") + gReport.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), gReportOut);
  std::fflush(gReportOut);
}

// The current unit's final line (the one with "status").
void endUnit(const std::string &status, const std::string &stage,
             const std::string &reason) {
  stageEnds(stage == protocol::kStageDone ? protocol::kStagePerformance
                                          : stage);
  gReport.set("status", status);
  gReport.set("stage", stage);
  if (!reason.empty())
    gReport.set("reason", reason);
  if (gCudaReady)
    gReport.set("gpu_memory", gpuMemory());
  notePython();
  emit();
}

// Ends the current unit and the process: after a unit that did not pass, the
// parent gives the units left to a fresh worker (whatever the failure left
// behind in this process — a sticky CUDA error, a corrupted heap — stays here).
[[noreturn]] void finish(const std::string &status, const std::string &stage,
                         const std::string &reason) {
  endUnit(status, stage, reason);
  std::fflush(nullptr);
  _exit(status == protocol::kError ? 2 : 0);
}

std::string cudaErrorText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

// After a candidate call (or load): every CUDA error from here to the device
// being idle is the submission's, whether its call left one pending (a failed
// API call it ignored, e.g. on a stream it had destroyed) or its kernels
// failed; it is read and cleared here, so it never surfaces in the gate's
// next step (issue 15: a leftover error was blamed on the gate's next torch
// launch, or read as the submission throwing).
void checkCandidateCuda(const std::string &stage, const std::string &what) {
  cudaError_t pending = cudaGetLastError();
  cudaError_t e = cudaDeviceSynchronize();
  if (pending != cudaSuccess)
    finish(protocol::kFail, stage,
           "CUDA error left pending by the submission's call " + what + ": " +
               cudaErrorText(pending));
  if (e != cudaSuccess)
    finish(protocol::kFail, stage,
           "CUDA error in the submission's work " + what + ": " +
               cudaErrorText(e));
}

// The error a candidate call left pending, without waiting for its work.
void checkPending(const std::string &stage, const std::string &what) {
  if (cudaError_t pending = cudaGetLastError(); pending != cudaSuccess)
    finish(protocol::kFail, stage,
           "CUDA error left pending by the submission's call " + what + ": " +
               cudaErrorText(pending));
}

// One of the gate's own CUDA steps (events, flush, reset): an error here is the
// gate's, named by its step. (A candidate's errors were collected right after
// its call, so none is pending here.)
void gateCuda(cudaError_t e, const std::string &stage,
              const std::string &step) {
  if (e != cudaSuccess)
    finish(protocol::kError, stage,
           "the gate's own step '" + step + "' failed: " + cudaErrorText(e));
}

uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x & 0x7fffffffffffffffULL;
}

// ---- NVML (dlopen'ed; optional) -------------------------------------------
struct Nvml {
  using InitFn = int (*)();
  using HandleByPciFn = int (*)(const char *, void **);
  using ClockFn = int (*)(void *, int, unsigned *);
  using ReasonsFn = int (*)(void *, unsigned long long *);
  using TempFn = int (*)(void *, int, unsigned *);
  void *dev = nullptr;
  ClockFn clock = nullptr, maxClock = nullptr;
  ReasonsFn reasons = nullptr;
  TempFn temp = nullptr;
  std::string error;

  void init(int cudaDevice) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "libnvidia-ml.so.1 not found";
      return;
    }
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
    auto byPci = reinterpret_cast<HandleByPciFn>(
        dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    maxClock =
        reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
    reasons = reinterpret_cast<ReasonsFn>(
        dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons)
      reasons = reinterpret_cast<ReasonsFn>(
          dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    temp = reinterpret_cast<TempFn>(dlsym(lib, "nvmlDeviceGetTemperature"));
    char bus[64];
    if (!init || !byPci || init() != 0 ||
        cudaDeviceGetPCIBusId(bus, sizeof(bus), cudaDevice) != cudaSuccess ||
        byPci(bus, &dev) != 0) {
      error = "NVML initialisation failed";
      dev = nullptr;
    }
  }
  Json sample() const {
    Json j = Json::object();
    if (!dev) {
      j.set("error", error);
      return j;
    }
    unsigned v = 0;
    if (clock && clock(dev, /*NVML_CLOCK_SM=*/1, &v) == 0)
      j.set("sm_mhz", static_cast<int64_t>(v));
    if (clock && clock(dev, /*NVML_CLOCK_MEM=*/2, &v) == 0)
      j.set("mem_mhz", static_cast<int64_t>(v));
    if (maxClock && maxClock(dev, 1, &v) == 0)
      j.set("sm_max_mhz", static_cast<int64_t>(v));
    if (temp && temp(dev, /*NVML_TEMPERATURE_GPU=*/0, &v) == 0)
      j.set("temp_c", static_cast<int64_t>(v));
    unsigned long long r = 0;
    if (reasons && reasons(dev, &r) == 0) {
      static const std::pair<unsigned long long, const char *> names[] = {
          {0x1, "gpu_idle"},        {0x2, "applications_clocks"},
          {0x4, "sw_power_cap"},    {0x8, "hw_slowdown"},
          {0x10, "sync_boost"},     {0x20, "sw_thermal"},
          {0x40, "hw_thermal"},     {0x80, "hw_power_brake"},
          {0x100, "display_clocks"}};
      Json arr = Json::array();
      for (const auto &[bit, name] : names)
        if (r & bit)
          arr.push(name);
      j.set("clock_event_reasons", arr);
    }
    return j;
  }
};

// ---- one call of the candidate --------------------------------------------
struct Args {
  TensorMap tensors; // every tensor argument (inputs, in/out, outputs)
  std::vector<double> doubles;
  std::vector<int64_t> ints;
  std::vector<uint8_t> bools;
  std::vector<void *> ptrs;
};

using EntryFn = int (*)(void *const *, char *, size_t);

struct Worker {
  const OpSpec *spec = nullptr;
  ShapeMap shape;
  EntryFn entry = nullptr;
  at::Device device{at::kCUDA, 0};
  Json settings;

  // Binds the argument pointers in signature order.
  void bind(Args &a, const TensorMap &scalars) {
    a.ptrs.clear();
    a.doubles.clear();
    a.ints.clear();
    a.bools.clear();
    a.doubles.reserve(spec->args.size());
    a.ints.reserve(spec->args.size());
    a.bools.reserve(spec->args.size());
    for (const ArgSpec &arg : spec->args) {
      switch (arg.kind) {
      case ArgKind::Tensor:
      case ArgKind::OutTensor:
      case ArgKind::InOutTensor:
        a.ptrs.push_back(&a.tensors.at(arg.name));
        break;
      case ArgKind::Double:
        a.doubles.push_back(scalars.at(arg.name).item<double>());
        a.ptrs.push_back(&a.doubles.back());
        break;
      case ArgKind::Int:
        a.ints.push_back(scalars.at(arg.name).item<int64_t>());
        a.ptrs.push_back(&a.ints.back());
        break;
      case ArgKind::Bool:
        a.bools.push_back(scalars.at(arg.name).item<bool>());
        a.ptrs.push_back(&a.bools.back());
        break;
      }
    }
  }

  // Returns "" or the entry's C++ exception text.
  std::string call(Args &a, attr::Region region) {
    char err[1024] = {0};
    gateCuda(cudaGetLastError(),
             gReport.getString("stage", protocol::kStageSetup),
             "no CUDA error pending before the call");
    markPhase('c');
    attr::beginCall();
    attr::setRegion(region);
    int rc = entry(a.ptrs.data(), err, sizeof(err));
    attr::setRegion(attr::Region::Gate);
    if (rc != 0)
      return std::string("the entry threw: ") + err;
    return "";
  }

  static bool isScalar(const ArgSpec &arg) {
    return arg.kind == ArgKind::Double || arg.kind == ArgKind::Int ||
           arg.kind == ArgKind::Bool;
  }

  // Fresh generated inputs + newly allocated poisoned outputs.
  Args makeArgs(const TensorMap &inputs) {
    Args a;
    for (const ArgSpec &arg : spec->args) {
      if (isScalar(arg))
        continue;
      if (arg.kind == ArgKind::OutTensor)
        a.tensors[arg.name] = allocateOutput(arg, shape, device);
      else
        a.tensors[arg.name] = inputs.at(arg.name).clone();
    }
    poison(a);
    return a;
  }

  void poison(Args &a) {
    for (const ArgSpec &arg : spec->args) {
      if (arg.kind != ArgKind::OutTensor)
        continue;
      at::Tensor &t = a.tensors.at(arg.name);
      if (at::isFloatingType(t.scalar_type()))
        t.fill_(std::numeric_limits<double>::quiet_NaN());
      else
        t.fill_(-2147483000); // sentinel no valid index or count takes
    }
  }

  // Copies new contents into the existing buffers of `a`.
  void refill(Args &a, const TensorMap &inputs) {
    for (const ArgSpec &arg : spec->args)
      if (arg.kind == ArgKind::Tensor || arg.kind == ArgKind::InOutTensor)
        a.tensors.at(arg.name).copy_(inputs.at(arg.name));
    poison(a);
  }

  // Compares the candidate's outputs with the reference computed from `before`.
  Json check(const Args &a, const TensorMap &before, bool &ok) {
    // The candidate's work ends when the device is idle; the rest is the
    // gate's.
    checkCandidateCuda(gReport.getString("stage", protocol::kStageCorrectness),
                       "(before its outputs were checked)");
    markPhase('g');
    Json j = Json::object();
    // Inputs that are not in/out must be bitwise unchanged.
    Json changed = Json::array();
    for (const ArgSpec &arg : spec->args) {
      if (arg.kind != ArgKind::Tensor)
        continue;
      const at::Tensor &now = a.tensors.at(arg.name),
                       &was = before.at(arg.name);
      if (!at::equal(now.contiguous().view(at::kByte),
                     was.contiguous().view(at::kByte)))
        changed.push(arg.name);
    }
    if (changed.size()) {
      ok = false;
      j.set("inputs_modified", changed);
    }
    TensorMap ref = computeReference(*spec, shape, before);
    Json outs = Json::object();
    for (const ArgSpec &arg : spec->args) {
      if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
        continue;
      std::string name = OpSpec::outputName(arg);
      CompareResult cr =
          compareTensors(a.tensors.at(arg.name), ref.at(name), arg.tol);
      if (!cr.ok)
        ok = false;
      outs.set(name, cr.toJson());
    }
    j.set("outputs", outs);
    return j;
  }

  TensorMap snapshot(const Args &a, const TensorMap &scalars) {
    TensorMap m = scalars;
    for (const ArgSpec &arg : spec->args)
      if (arg.kind == ArgKind::Tensor || arg.kind == ArgKind::InOutTensor)
        m[arg.name] = a.tensors.at(arg.name).clone();
    return m;
  }
};

TensorMap scalarsOf(const OpSpec &spec, const TensorMap &inputs) {
  TensorMap s;
  for (const ArgSpec &arg : spec.args)
    if (Worker::isScalar(arg))
      s[arg.name] = inputs.at(arg.name);
  return s;
}

// ---- Python submissions: the entry that calls the host ----------------------
// The card's destination-passing call (Args::ptrs, as the C++ binding gets it)
// made through the host (PythonHost.h): tensors go over as DLPack (shared
// storage; each TensorImpl once, the host keeps its tensor until forget());
// outputs a returning format gives back replace the gate's buffers, after a
// check of their shape, dtype and device.
const OpSpec *gPySpec = nullptr;
std::set<uint64_t> gPyExported;
// Host seconds of each call (the Python call overhead, docs/gate.md).
std::vector<double> gPyCallSeconds;

void forgetPythonTensors() {
  if (gHost && gHost->forget)
    gHost->forget();
  gPyExported.clear();
}

std::string describeTensor(const at::Tensor &t) {
  std::ostringstream os;
  os << t.sizes() << " " << t.scalar_type() << " on " << t.device();
  return os.str();
}

int pythonEntry(void *const *ptrs, char *err, size_t errSize) {
  auto t0 = std::chrono::steady_clock::now();
  const OpSpec &spec = *gPySpec;
  const bool returns = gHost->returnsOutputs != 0;
  const size_t n = spec.args.size();
  std::vector<int32_t> kinds(n);
  std::vector<void *> dl(n, nullptr);
  std::vector<uint64_t> keys(n, 0);
  std::vector<double> reals(n, 0);
  std::vector<int64_t> ints(n, 0);
  std::vector<at::Tensor *> outSlots;
  std::vector<ArgKind> outKinds;
  for (size_t i = 0; i < n; ++i) {
    const ArgSpec &arg = spec.args[i];
    switch (arg.kind) {
    case ArgKind::Tensor:
    case ArgKind::OutTensor:
    case ArgKind::InOutTensor: {
      at::Tensor *t = static_cast<at::Tensor *>(ptrs[i]);
      kinds[i] = arg.kind == ArgKind::Tensor      ? ATREX_PY_TENSOR
                 : arg.kind == ArgKind::OutTensor ? ATREX_PY_OUT
                                                  : ATREX_PY_INOUT;
      if (returns && arg.kind != ArgKind::Tensor) {
        outSlots.push_back(t);
        outKinds.push_back(arg.kind);
      }
      if (returns && arg.kind == ArgKind::OutTensor)
        break; // the format allocates its outputs
      keys[i] = reinterpret_cast<uint64_t>(t->unsafeGetTensorImpl());
      if (gPyExported.insert(keys[i]).second)
        dl[i] = at::toDLPack(*t);
      break;
    }
    case ArgKind::Double:
      kinds[i] = ATREX_PY_DOUBLE;
      reals[i] = *static_cast<const double *>(ptrs[i]);
      break;
    case ArgKind::Int:
      kinds[i] = ATREX_PY_INT;
      ints[i] = *static_cast<const int64_t *>(ptrs[i]);
      break;
    case ArgKind::Bool:
      kinds[i] = ATREX_PY_BOOL;
      ints[i] = *static_cast<const uint8_t *>(ptrs[i]);
      break;
    }
  }
  std::vector<void *> rets(outSlots.size(), nullptr);
  int rc = gHost->call(static_cast<int32_t>(n), kinds.data(), dl.data(),
                       keys.data(), reals.data(), ints.data(), rets.data(),
                       static_cast<int32_t>(rets.size()), err, errSize);
  gPyCallSeconds.push_back(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count());
  auto fail = [&](const std::string &what) {
    std::snprintf(err, errSize, "%s", what.c_str());
    for (void *r : rets)
      if (r) {
        auto *m = static_cast<DLManagedTensor *>(r);
        if (m->deleter)
          m->deleter(m);
      }
    return 1;
  };
  if (rc != 0) {
    for (void *&r : rets)
      r = nullptr; // the host did not hand them over
    return rc;
  }
  for (size_t j = 0; j < outSlots.size(); ++j) {
    if (!rets[j]) {
      if (outKinds[j] == ArgKind::InOutTensor)
        continue; // updated in place
      return fail("returned no tensor for output " + std::to_string(j));
    }
    at::Tensor r = at::fromDLPack(static_cast<DLManagedTensor *>(rets[j]));
    rets[j] = nullptr;
    const at::Tensor &want = *outSlots[j];
    if (r.sizes() != want.sizes() || r.scalar_type() != want.scalar_type() ||
        r.device() != want.device())
      return fail("returned output " + std::to_string(j) + " is " +
                  describeTensor(r) + ", the card's is " +
                  describeTensor(want));
    *outSlots[j] = r;
  }
  if (gPyExported.size() > 512)
    forgetPythonTensors();
  return 0;
}

// ---- timer and launch interposers ------------------------------------------
// The worker's timers and launches must stay CUDA's own. The submission is
// loaded RTLD_LOCAL, so its exports cannot take over the worker's bindings,
// but a library can still promote itself (dlopen(self, RTLD_GLOBAL)) or come
// with an LD_PRELOAD; and one that exports driver-API timers (which nvcc's
// static runtime never defines) is trying to (issue 15).
struct SymbolBinding {
  std::string name;
  bool driver = false;
  void *addr = nullptr;
  std::string file; // the object that defines it ("" when unresolved)
};
const char *const kRuntimeTimerSymbols[] = {
    "cudaEventElapsedTime", "cudaEventRecord",       "cudaEventSynchronize",
    "cudaEventQuery",       "cudaStreamSynchronize", "cudaDeviceSynchronize",
    "cudaLaunchKernel",     "cudaLaunchKernelExC",   "cudaGraphLaunch"};
const char *const kDriverTimerSymbols[] = {
    "cuEventElapsedTime",     "cuEventElapsedTime_v2", "cuEventRecord",
    "cuEventRecordWithFlags", "cuEventSynchronize",    "cuEventQuery",
    "cuStreamSynchronize",    "cuCtxSynchronize",      "cuLaunchKernel",
    "cuLaunchKernelEx",       "cuGraphLaunch"};

std::string definingFile(void *addr) {
  Dl_info dl{};
  if (!addr || !dladdr(addr, &dl) || !dl.dli_fname)
    return "";
  return dl.dli_fname;
}

// What each symbol resolves to: in the global scope (what the worker's own
// calls bind to) when `handle` is null, else in the library's lookup scope.
std::vector<SymbolBinding> timerBindings(void *handle) {
  std::vector<SymbolBinding> out;
  auto add = [&](const char *name, bool driver) {
    SymbolBinding b;
    b.name = name;
    b.driver = driver;
    b.addr = dlsym(handle ? handle : RTLD_DEFAULT, name);
    b.file = definingFile(b.addr);
    out.push_back(b);
  };
  for (const char *n : kRuntimeTimerSymbols)
    add(n, false);
  for (const char *n : kDriverTimerSymbols)
    add(n, true);
  return out;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool sameFile(const std::string &a, const std::string &b) {
  char ra[PATH_MAX], rb[PATH_MAX];
  if (a.empty() || b.empty() || !realpath(a.c_str(), ra) ||
      !realpath(b.c_str(), rb))
    return false;
  return std::strcmp(ra, rb) == 0;
}

// Returns "" or why the submission is suspicious; fills `integrity`.
std::string checkInterposers(const std::vector<SymbolBinding> &before,
                             void *handle, const std::string &so,
                             Json &integrity) {
  std::vector<SymbolBinding> after = timerBindings(nullptr),
                             inLib = timerBindings(handle);
  // nvcc links the CUDA runtime statically by default: then the library
  // defines every runtime symbol, cudaGetDeviceCount as well as the timers.
  bool staticCudart =
      sameFile(definingFile(dlsym(handle, "cudaGetDeviceCount")), so);
  std::string why;
  Json resolved = Json::object(), defined = Json::array();
  std::set<std::string> injected;
  for (size_t i = 0; i < after.size(); ++i) {
    const SymbolBinding &b = before[i], &a = after[i];
    // Defined by the submission's own library, whether or not the name
    // resolves in the global scope: the driver's symbols do not (libcuda is
    // dlopen'ed by the CUDA runtime, RTLD_LOCAL), which hid the driver-API
    // interposer of rms_norm_timer_interposer.cu on its first H200 run
    // (2026-12-02b).
    if (sameFile(inLib[i].file, so)) {
      defined.push(a.name);
      if (why.empty() && (a.driver || !staticCudart))
        why = "the submission library defines " + a.name +
              (a.driver
                   ? " (a driver-API timer or launch function: an interposer)"
                   : " without the CUDA runtime linked in (an interposer)");
    }
    if (!a.addr)
      continue; // not in the global scope (driver symbols) or not in this CUDA
                // version
    std::string base = baseName(a.file);
    resolved.set(a.name, base);
    bool cudaLib =
        base.rfind("libcuda.so", 0) == 0 || base.rfind("libcudart.so", 0) == 0;
    if (why.empty() && a.addr != b.addr) {
      why = "loading the submission changed what " + a.name +
            " resolves to for the gate (" +
            (b.file.empty() ? "unresolved" : b.file) + " -> " + a.file + ")";
    } else if (!cudaLib &&
               boundBeforeSubmission(b.file, b.addr, a.file, a.addr)) {
      // Bound before the submission's library was loaded and left as it was:
      // the worker's environment did it (a profiler the operator attached:
      // Nsight Compute's injection binds cuEventElapsedTime; every unit under
      // ncu was suspicious before this, H200 2026-12-02c), not the submission,
      // whose code had not run yet. Recorded, not held against it.
      injected.insert(a.file);
    } else if (why.empty() && !cudaLib) {
      why = a.name + " resolves to " + a.file +
            " for the gate, not to CUDA's own library";
    }
  }
  Json t = Json::object();
  t.set("gate_resolves_to", resolved);
  t.set("defined_by_submission", defined);
  t.set("static_cudart", staticCudart);
  if (!injected.empty()) {
    Json inj = Json::array();
    for (const std::string &f : injected)
      inj.push(f);
    t.set("injected_by_environment", inj);
    // What the environment named, for the record (ncu's injection is not
    // always the file CUDA_INJECTION64_PATH names: H200 2026-12-02d).
    Json env = Json::object();
    for (const char *v : {"CUDA_INJECTION64_PATH", "LD_PRELOAD"})
      if (const char *val = std::getenv(v))
        env.set(v, std::string(val));
    t.set("environment", env);
  }
  integrity.set("timer_symbols", t);
  if (!why.empty())
    integrity.set("suspicious", why);
  return why;
}

// A crash in the candidate (or here) ends the process; leave a backtrace on
// stderr so the parent's "last stderr line" and stderr_tail say where.
void crashHandler(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  const char msg[] = "atrex-gate-worker: fatal signal; backtrace:\n";
  if (write(2, msg, sizeof(msg) - 1) < 0) {
  }
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

// A switch in the environment: set, non-empty and not "0".
bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && *v != '0';
}

bool gTrace = false;
void trace(const std::string &what) {
  if (gTrace)
    std::cerr << "atrex-gate-worker: " << what << std::endl;
}

} // namespace

int workerMain(int argc, char **argv);

// The entry's exceptions are caught by the generated binding and reported as
// the candidate's; what reaches here was thrown by the gate's own work (or,
// in phase 'c', by the candidate's library outside the entry, e.g. its
// static initialisers).
static int runWorker(int argc, char **argv) {
  try {
    return workerMain(argc, argv);
  } catch (const std::exception &e) {
    std::string what = std::string(e.what()).substr(0, 800);
    std::string stage = gReport.getString("stage", protocol::kStageSetup);
    if (gPhase == 'c')
      finish(protocol::kFail, stage,
             "the submission threw outside its entry: " + what);
    std::string hint;
    if (dynamic_cast<const c10::OutOfMemoryError *>(&e))
      hint = gGpuLimitMb > 0
                 ? " (the gate's own tensors exceed settings.gpu_mb; raise it)"
                 : " (the gate's own tensors do not fit on this GPU)";
    finish(protocol::kError, stage,
           "the gate's own work failed: " + what + hint);
  }
}

#if ATREX_WORKER_PYTHON_HOST
extern "C" __attribute__((visibility("default"))) int
atrex_worker_python_main(int argc, char **argv, const AtrexPyHost *host) {
  if (!host || host->abi != ATREX_PY_HOST_ABI) {
    std::cerr << "atrex-gate-worker: the Python host's interface version "
              << (host ? host->abi : -1) << " is not this worker's "
              << ATREX_PY_HOST_ABI << "\n";
    return 2;
  }
  gHost = host;
  return runWorker(argc, argv);
}

extern "C" __attribute__((visibility("default"))) int
atrex_worker_own_image(const void *data, size_t size, uint64_t *hash) {
  if (!data || !size)
    return 1;
  uint64_t h = fnv1a64(data, size);
  attr::addOwnHash(h);
  if (hash)
    *hash = h;
  return 0;
}

extern "C" __attribute__((visibility("default"))) int
atrex_worker_own_library(const char *path, char *err, size_t errSize) {
  std::string error;
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/atrex-cubins-" +
                    std::to_string(fnv1a64(path, std::strlen(path)));
  std::vector<Cubin> cubins = extractCubins(path, dir, error);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!error.empty() || cubins.empty()) {
    std::snprintf(
        err, errSize, "%s",
        (error.empty() ? std::string("no cubin in ") + path : error).c_str());
    return 1;
  }
  for (const Cubin &c : cubins)
    attr::addOwnHash(c.hash);
  return 0;
}
#else
int main(int argc, char **argv) { return runWorker(argc, argv); }
#endif

// `atrex-gate --check`: what this process can use, as one JSON line. With
// ATREX_GATE_NO_ATTRIBUTION=1 it tries CUPTI (the clean run's tool) instead
// of the Sanitizer API (the two never share a process).
int probe() {
  Json p = Json::object();
  p.set("torch", ATREX_RT_TORCH_VERSION);
  Json attribution = Json::object();
  if (envFlag("ATREX_GATE_NO_ATTRIBUTION")) {
    Json cupti = Json::object();
    std::string err;
    bool ok = ktimes::start(ATREX_RT_CUPTI_LIB, err) && ktimes::resume(err) &&
              ktimes::pause(err);
    cupti.set("ok", ok);
    if (!ok)
      cupti.set("error", err);
    cupti.set("library", ATREX_RT_CUPTI_LIB);
    p.set("cupti", cupti);
  } else {
    std::string err;
    bool ok = attr::start({}, ATREX_RT_SANITIZER_LIB, err);
    attribution.set("ok", ok);
    if (!ok)
      attribution.set("error", err);
    attribution.set("library", ATREX_RT_SANITIZER_LIB);
    p.set("attribution", attribution);
  }
  bool cuda = at::hasCUDA();
  p.set("cuda", cuda);
  if (cuda) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    int count = 0;
    cudaGetDeviceCount(&count);
    p.set("gpu", prop.name);
    p.set("gpus", count);
    p.set("sm", std::to_string(prop.major) + std::to_string(prop.minor));
    p.set("cuda_driver", driver);
    p.set("cuda_runtime", runtime);
    Nvml nvml;
    nvml.init(0);
    Json n = Json::object();
    n.set("ok", nvml.error.empty());
    if (!nvml.error.empty())
      n.set("error", nvml.error);
    p.set("nvml", n);
  } else {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    p.set("cuda_error", std::string(cudaGetErrorName(e)) + " (" +
                            cudaGetErrorString(e) + ")");
  }
  std::string line = p.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), gReportOut);
  std::fflush(gReportOut);
  return 0;
}

// What stays the same for every unit of a worker's job: the run kind, the
// attribution subscription, the device and the loaded submission.
struct Process {
  std::string run;
  bool attributed = false, cleanRun = false, correctnessOnly = false;
  bool deviceWideForced = false; // ATREX_GATE_DEVICE_WIDE=1
  Json attribution;              // {available, error?}
  Json env, integrity;
  cudaDeviceProp prop{};
  Nvml nvml;
  // The L2 flush buffer (zeroed once; its size depends on the L2 alone), kept
  // for every unit: allocating and zeroing 256 MiB per unit cost time.
  at::Tensor flush, flushSink;
  // What the persisting-L2 limit reads after the gate sets it to 0 (-1: not
  // read yet).
  int64_t persistingFloor = -1;
  int64_t persistingBeforeReset = 0; // what it held before that first reset
};

// One unit of the job: {unit, shape, graphs?, device_wide?,
// kernel_time_calls?}.
struct UnitJob {
  int64_t unit = -1;
  ShapeMap shape;
  bool graphsAllowed = false;
  bool deviceWide = false;
  int64_t kernelTimeCalls = 0;
  uint64_t seed = 0;
};

void runUnit(Worker &w, Process &p, const UnitJob &u);

int workerMain(int argc, char **argv) {
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
    signal(sig, crashHandler);
  gTrace = std::getenv("ATREX_GATE_TRACE") != nullptr;
  gReportOut = fdopen(3, "w");
  if (!gReportOut)
    gReportOut = stdout;
  std::string jobPath;
  bool probeOnly = false;
  // CLI11 as every runtime tool reads it (tools/Cli.h). The gate starts the
  // worker; its options are docs/gate.md's ("Worker runs").
  const char *const usage =
      "usage: atrex-gate-worker --job JOB.json < \"SEED... [KEY]\"\n"
      "       atrex-gate-worker --probe\n";
  CLI::App app;
  cli::configure(app);
  app.add_option("--job", jobPath);
  app.add_flag("--probe", probeOnly);
  cli::Leftover left;
  if (auto rc = cli::parse(app, argc, argv, 1, "atrex-gate-worker", usage,
                           usage, left, std::cerr))
    return *rc == 0 ? 2 : *rc; // --help: the usage, exit 2 as before
  if (!left.unknown.empty() || left.sawDashDash) {
    std::cerr << usage;
    return 2;
  }
  if (probeOnly)
    return probe();
  if (jobPath.empty())
    finish(protocol::kError, protocol::kStageSetup, "no --job given");
  gPhaseFd = open((jobPath + ".phase").c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  markPhase('g');
  // stdin: one seed per unit of the job, in job order, then the report key
  // (32 hex digits; absent when run by hand: echo SEED | atrex-gate-worker
  // ...). All of it is read first, so that even errors in the job document
  // reach the parent keyed, and the candidate, loaded later, finds nothing
  // left to read.
  std::vector<std::string> stdinWords;
  for (std::string word; std::cin >> word;)
    stdinWords.push_back(word);
  if (!stdinWords.empty() && stdinWords.back().size() == 32) {
    gReportKey = stdinWords.back();
    stdinWords.pop_back();
    gPhaseText = gReportKey + " g";
    markPhase('g');
  }

  // The job document (docs/gate.md, "Worker runs"): what this run is for and
  // the units it runs, never the environment. Errors in it are the gate's
  // and are reported for the job's first unit (the current one).
  Json job;
  std::set<uint64_t> own;
  std::vector<UnitJob> units;
  Worker w;
  auto bad = [&](const std::string &what) {
    finish(protocol::kError, protocol::kStageSetup,
           "job '" + jobPath + "': " + what);
  };
  try {
    job = parseJsonFile(jobPath);
  } catch (const std::exception &e) {
    finish(protocol::kError, protocol::kStageSetup, e.what());
  }
  if (const Json *u = job.isObject() ? job.get("units") : nullptr;
      u && u->isArray() && u->size() > 0 && u->asArray()[0].isObject() &&
      u->asArray()[0].get("unit") && u->asArray()[0].get("unit")->isNumber())
    gReport.set("unit", u->asArray()[0].getInt("unit", -1));
  if (!job.isObject() || job.getString("schema", "") != protocol::kJobSchema)
    bad(std::string("not an ") + protocol::kJobSchema + " document");
  try {
    for (const Json &h : job.get("own_fnv1a64")->asArray())
      own.insert(std::stoull(h.asString(), nullptr, 16));
    w.spec = findOpSpec(job.getString("operator", ""));
    if (!w.spec)
      bad("unknown operator '" + job.getString("operator", "") + "'");
    const Json *ul = job.get("units");
    if (!ul || !ul->isArray() || ul->size() == 0)
      bad("'units' must be a non-empty array");
    for (size_t i = 0; i < ul->size(); ++i) {
      const Json &e = ul->asArray()[i];
      std::string where = "units[" + std::to_string(i) + "]: ";
      if (!e.isObject() || !e.get("unit") || !e.get("unit")->isNumber() ||
          !e.get("shape"))
        bad(where + "needs 'unit' (a number) and 'shape'");
      UnitJob uj;
      uj.unit = e.getInt("unit", -1);
      try {
        uj.shape = shapeFromJson(*w.spec, *e.get("shape"));
      } catch (const std::exception &ex) {
        bad(where + ex.what());
      }
      uj.graphsAllowed = e.getBool("graphs", false);
      uj.deviceWide = e.getBool("device_wide", false);
      uj.kernelTimeCalls = e.getInt("kernel_time_calls", 0);
      units.push_back(uj);
    }
    if (!job.get("settings") || !job.get("settings")->isObject())
      bad("'settings' must be an object");
    w.settings = *job.get("settings");
  } catch (const JsonError &e) {
    bad(e.what());
  }
  if (stdinWords.size() != units.size())
    finish(protocol::kError, protocol::kStageSetup,
           "stdin holds " + std::to_string(stdinWords.size()) +
               " seed(s) for the job's " + std::to_string(units.size()) +
               " unit(s) (one seed per unit, then the report key)");
  for (size_t i = 0; i < units.size(); ++i) {
    char *end = nullptr;
    errno = 0;
    units[i].seed = std::strtoull(stdinWords[i].c_str(), &end, 10);
    if (stdinWords[i].empty() || *end || errno)
      finish(protocol::kError, protocol::kStageSetup,
             "stdin: seed " + std::to_string(i) + " '" +
                 stdinWords[i].substr(0, 40) + "' is not a number");
  }
  // The attributed run (the verdict), the clean timing run (the time; may
  // replay graphs when the attributed run saw no side streams; CUPTI kernel
  // times for the own-time share) or the memcheck run (the correctness
  // trials only).
  Process p;
  p.run = job.getString("run", protocol::kRunAttributed);
  if (p.run != protocol::kRunAttributed && p.run != protocol::kRunClean &&
      p.run != protocol::kRunMemcheck)
    bad("unknown run '" + p.run + "'");
  p.cleanRun = p.run == protocol::kRunClean;
  p.correctnessOnly = p.run == protocol::kRunMemcheck;
  // CUPTI device-wide spans in the clean run: asked for per unit by the parent
  // when the attributed run saw side streams (ATREX_GATE_DEVICE_WIDE=1 forces
  // them, for measuring their cost: silu_and_mul read 8% slower with them on
  // the H200).
  p.deviceWideForced = envFlag("ATREX_GATE_DEVICE_WIDE");
  gReport.set("run", p.run);
  // Attribution first: before the first CUDA call of the process.
  std::string attrError;
  if (p.run != protocol::kRunAttributed)
    attrError = "not subscribed in the " + p.run + " run";
  else if (envFlag("ATREX_GATE_NO_ATTRIBUTION")) // by hand, e.g. under ncu
    attrError = "disabled by ATREX_GATE_NO_ATTRIBUTION";
  else
    p.attributed = attr::start(own, ATREX_RT_SANITIZER_LIB, attrError);
  attr::setGateThread();
  p.attribution = Json::object();
  p.attribution.set("available", p.attributed);
  if (!p.attributed)
    p.attribution.set("error", attrError);

  // Environment.
  if (!at::hasCUDA())
    finish(protocol::kError, protocol::kStageSetup,
           "no CUDA device visible to the worker");
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  cudaGetDeviceProperties(&p.prop, 0);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  p.nvml.init(0);
  p.env = Json::object();
  p.env.set("gpu", p.prop.name);
  p.env.set("sm_count", p.prop.multiProcessorCount);
  p.env.set("l2_bytes", p.prop.l2CacheSize);
  p.env.set("cuda_driver", driver);
  p.env.set("cuda_runtime", runtime);
  p.env.set("torch", ATREX_RT_TORCH_VERSION);
  p.env.set("nvml", p.nvml.sample());
  gReport.set("env", p.env);
  gReport.set("attribution", p.attribution);
  std::string wantGpu = w.settings.getString("gpu", "");
  if (!wantGpu.empty() &&
      std::string(p.prop.name).find(wantGpu) == std::string::npos)
    finish(protocol::kError, protocol::kStageSetup,
           "plan expects GPU '" + wantGpu + "', found '" + p.prop.name + "'");
  // The caching allocator initialises lazily, and neither its memory fraction
  // nor its statistics exist before that (found on the H200: "Allocator not
  // initialized for device"): one small allocation first.
  (void)at::empty({1}, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA));
  gCudaReady = true;
  // `gpu_mb`: a cap on what torch's caching allocator may hold for this
  // process (gate and candidate together); an allocation past it raises
  // torch's out-of-memory error. cudaMalloc called directly is not capped.
  gGpuLimitMb = w.settings.getInt("gpu_mb", 0);
  if (gGpuLimitMb > 0) {
    double fraction = static_cast<double>(gGpuLimitMb) * (1 << 20) /
                      static_cast<double>(p.prop.totalGlobalMem);
    c10::cuda::CUDACachingAllocator::setMemoryFraction(std::min(1.0, fraction),
                                                       0);
  }
  stageEnds("cuda_ready");

  // Load the submission.
  std::string so = job.getString("library", "");
  std::vector<SymbolBinding> bindingsBefore = timerBindings(nullptr);
  void *handle = nullptr;
  if (gHost) {
    // A Python submission: the host imports it (its load_inline builds run
    // here); the timer bindings are compared in the process's global scope.
    char err[4096] = {0};
    markPhase('c');
    int rc = gHost->load(err, sizeof(err));
    markPhase('g');
    notePython();
    if (rc != 0)
      finish(protocol::kFail, protocol::kStageSetup,
             std::string("cannot load the submission: ") + err);
    handle = dlopen(nullptr, RTLD_NOW);
  } else {
    markPhase('c'); // its static initialisers run here
    handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    markPhase('g');
    if (!handle)
      finish(protocol::kFail, protocol::kStageSetup,
             std::string("cannot load the submission: ") + dlerror());
  }
  checkCandidateCuda(protocol::kStageSetup, "(its library's initialisers)");
  {
    p.integrity = Json::object();
    std::string suspicious =
        checkInterposers(bindingsBefore, handle, so, p.integrity);
    gReport.set("integrity", p.integrity);
    if (!suspicious.empty())
      finish(protocol::kFail, protocol::kStageSetup,
             "integrity: " + suspicious);
  }
  if (gHost) {
    gPySpec = w.spec;
    w.entry = pythonEntry;
  } else {
    w.entry = reinterpret_cast<EntryFn>(dlsym(handle, "atrex_entry_v1"));
  }
  if (!w.entry)
    finish(protocol::kFail, protocol::kStageSetup,
           "the submission library has no atrex_entry_v1 (binding missing)");
  stageEnds("library_loaded");

  // All gate and candidate work is issued on one non-default stream, current
  // for the whole run, so that launches on any other stream stand out.
  c10::cuda::CUDAStream mainStream = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard mainGuard(mainStream);

  for (size_t i = 0; i < units.size(); ++i) {
    if (i > 0) {
      // A fresh report for the next unit; what the previous one allocated goes
      // back to the device, its launches are forgotten (modules stay loaded).
      gStart = std::chrono::steady_clock::now();
      gStageSeconds = Json::object();
      gReport = Json::object();
      gReport.set("run", p.run);
      gReport.set("unit", units[i].unit);
      Json env = p.env;
      env.set("nvml", p.nvml.sample());
      gReport.set("env", env);
      gReport.set("attribution", p.attribution);
      gReport.set("integrity", p.integrity);
      // Work the candidate left running (a thread of its own) is its own.
      markPhase('c');
      checkCandidateCuda(protocol::kStageSetup,
                         "(work left running after the previous unit)");
      markPhase('g');
      forgetPythonTensors();
      gPyCallSeconds.clear();
      c10::cuda::CUDACachingAllocator::emptyCache();
      c10::cuda::CUDACachingAllocator::resetPeakStats(0);
      c10::cuda::CUDACachingAllocator::resetAccumulatedStats(0);
      attr::resetCounts();
    }
    gReport.set("unit", units[i].unit);
    w.shape = units[i].shape;
    runUnit(w, p, units[i]);
  }
  std::fflush(nullptr);
  _exit(0);
}

// ---- ghost replay -----------------------------------------------------------
// After the correctness trials of a unit whose calls launched own kernels and
// nothing foreign: one more call on fresh inputs with every own kernel ending
// at block entry (attr::suppressOwnKernels). Outputs that still match the
// reference came from elsewhere (host compute copied in, a cached or
// precomputed result, a copy engine): the unit is suspicious. Recorded under
// integrity.ghost_replay either way.
void ghostReplay(Worker &w, uint64_t seed) {
  Json g = Json::object();
  // Into the report's integrity record; `suspicious` there too when given.
  auto record = [&](const std::string &suspicious = "") {
    Json integrity =
        gReport.has("integrity") ? *gReport.get("integrity") : Json::object();
    integrity.set("ghost_replay", g);
    if (!suspicious.empty())
      integrity.set("suspicious", suspicious);
    gReport.set("integrity", integrity);
  };
  attr::Summary s = attr::summary();
  int64_t outElems = 0;
  for (const ArgSpec &arg : w.spec->args)
    if (arg.kind == ArgKind::OutTensor || arg.kind == ArgKind::InOutTensor) {
      int64_t n = 1;
      for (auto d : arg.shape(w.shape))
        n *= d;
      outElems += n;
    }
  if (s.ownLaunches == 0 || s.foreignLaunches > 0 || outElems == 0) {
    g.set("ran", false);
    g.set("why", s.ownLaunches == 0 ? "no own kernel was launched"
                 : s.foreignLaunches
                     ? "foreign kernels were launched (the unit is not adopted)"
                     : "the outputs are empty");
    record();
    return;
  }
  TensorMap in = generateInputs(*w.spec, w.shape, mix(seed, 7), w.device);
  Args a = w.makeArgs(in);
  TensorMap scalars = scalarsOf(*w.spec, in);
  w.bind(a, scalars);
  TensorMap before = w.snapshot(a, scalars);
  gateCuda(cudaDeviceSynchronize(), "correctness", "inputs of the ghost call");
  std::string why;
  if (!attr::suppressOwnKernels(ATREX_RT_GHOST_PATCH, why)) {
    g.set("ran", false);
    g.set("why", why);
    record();
    return;
  }
  std::string err = w.call(a, attr::Region::Correctness);
  cudaError_t se = cudaDeviceSynchronize();
  int64_t suppressed = attr::ownLaunchesSuppressed();
  std::string restoreError;
  bool restored = attr::restoreOwnKernels(restoreError);
  if (se != cudaSuccess)
    cudaGetLastError();
  g.set("ran", true);
  g.set("own_launches_suppressed", suppressed);
  if (!restored) {
    g.set("restore_error", restoreError);
    record();
    finish(protocol::kError, protocol::kStageCorrectness,
           "internal: the ghost-replay patch could not be removed: " +
               restoreError);
  }
  if (!err.empty() || se != cudaSuccess) {
    // The call failed without its kernels: its outputs did not come from
    // elsewhere.
    g.set("call_error", !err.empty() ? err.substr(0, 300) : cudaErrorText(se));
    g.set("output_matched_reference", false);
    record();
    return;
  }
  bool ok = true;
  Json cj = w.check(a, before, ok);
  g.set("output_matched_reference", ok);
  if (ok) {
    std::string reason =
        "ghost replay: with its " + std::to_string(suppressed) +
        " own kernel launch(es) suppressed the call still produced the "
        "reference output "
        "(the output comes from elsewhere: host compute, a cache or a copy)";
    g.set("suspicious", reason);
    record(reason);
    finish(protocol::kFail, protocol::kStageCorrectness,
           "integrity: " + reason);
  }
  record();
}

void runUnit(Worker &w, Process &p, const UnitJob &u) {
  const uint64_t seed = u.seed;
  const bool attributed = p.attributed, cleanRun = p.cleanRun,
             correctnessOnly = p.correctnessOnly;
  const bool graphsAllowed = u.graphsAllowed;
  const int64_t kernelTimeCalls = u.kernelTimeCalls;
  const bool deviceWideWanted = u.deviceWide || p.deviceWideForced;
  const Json &attribution = p.attribution;
  const cudaDeviceProp &prop = p.prop;
  Nvml &nvml = p.nvml;
  // ---- correctness --------------------------------------------------------
  stageEnds(protocol::kStageSetup);
  gReport.set("stage", "correctness");
  emit();
  int trials = static_cast<int>(w.settings.getInt("trials", 4));
  Json trialsJson = Json::array();
  bool allOk = true;
  std::string firstFailure;
  {
    trace("generate");
    TensorMap inA = generateInputs(*w.spec, w.shape, mix(seed, 1), w.device);
    trace("generated");
    Args prev;
    // Every trial's buffers stay alive to the end of the stage, so that "new
    // buffers" really are at new addresses.
    std::vector<Args> keep;
    keep.reserve(trials + 1);
    for (int t = 0; t < trials; ++t) {
      std::string kind;
      Args a;
      TensorMap in;
      if (t == 0) {
        kind = "fresh";
        in = inA;
        a = w.makeArgs(in);
      } else if (t == 1) {
        kind = "fresh-second-call";
        in = generateInputs(*w.spec, w.shape, mix(seed, 2), w.device);
        a = w.makeArgs(in);
      } else if (t == 2) {
        kind = "same-buffers-new-contents";
        in = generateInputs(*w.spec, w.shape, mix(seed, 3), w.device);
        a = std::move(prev);
        w.refill(a, in);
      } else if (t == 3) {
        kind = "new-buffers-old-contents";
        in = inA;
        a = w.makeArgs(in);
      } else {
        kind = "fresh";
        in = generateInputs(*w.spec, w.shape, mix(seed, 10 + t), w.device);
        a = w.makeArgs(in);
      }
      trace("trial " + std::to_string(t) + " " + kind + ": bind");
      // Scalars derived from the inputs (max_seqlen of cu_seqlens, ...) come
      // from this trial's inputs: a stale max_seqlen from another draw made
      // honest kernels read past the longest sequence (regression test:
      // GpuGate.ScalarsFollowEachTrialsInputs).
      TensorMap scalars = scalarsOf(*w.spec, in);
      w.bind(a, scalars);
      TensorMap before = w.snapshot(a, scalars);
      trace("trial " + std::to_string(t) + ": call");
      gateCuda(cudaDeviceSynchronize(), "correctness",
               "inputs of trial " + std::to_string(t));
      std::string err = w.call(a, attr::Region::Correctness);
      if (!err.empty())
        finish(protocol::kFail, protocol::kStageCorrectness,
               "trial " + std::to_string(t) + " (" + kind + "): " + err);
      checkCandidateCuda("correctness",
                         "in trial " + std::to_string(t) + " (" + kind + ")");
      trace("trial " + std::to_string(t) + ": check");
      bool ok = true;
      Json tj = w.check(a, before, ok);
      tj.set("trial", t);
      tj.set("kind", kind);
      tj.set("ok", ok);
      trialsJson.push(tj);
      if (!ok && allOk) {
        allOk = false;
        firstFailure =
            "trial " + std::to_string(t) + " (" + kind + ") failed: ";
        if (tj.has("inputs_modified"))
          firstFailure +=
              "inputs modified: " + tj.get("inputs_modified")->dump();
        else
          for (const auto &kv : tj.get("outputs")->asObject())
            if (!kv.second.getBool("ok", true)) {
              firstFailure +=
                  kv.first + ": " + kv.second.getString("reason", "");
              break;
            }
      }
      keep.push_back(std::move(prev));
      prev = std::move(a);
    }
  }
  Json corr = Json::object();
  corr.set("ok", allOk);
  corr.set("trials", trialsJson);
  gReport.set("correctness", corr);
  auto attributionNow = [&]() {
    Json aj = attribution;
    if (!attributed)
      return aj;
    attr::Summary s = attr::summary();
    Json r = attr::report();
    for (const auto &kv : r.asObject())
      aj.set(kv.first, kv.second);
    aj.set("own_launches", s.ownLaunches);
    aj.set("foreign_launches", s.foreignLaunches);
    aj.set("timed_own_launches", s.timedOwn);
    aj.set("timed_foreign_launches", s.timedForeign);
    Json fk = Json::array();
    for (const auto &n : s.foreignKernels)
      fk.push(n);
    aj.set("foreign_kernels", fk);
    // Same precedence as atrex-lint: delegation (any foreign kernel in a
    // region the candidate controls) is `fallback` whether or not an own
    // kernel ran too; `no-kernel` is left for calls that launched no kernel
    // of any kind (host compute, copies, cached outputs).
    aj.set("verdict", attr::verdictOf(s));
    // GPU-time share: exact when one side is empty; otherwise null here (the
    // Sanitizer API gives no kernel durations) and measured by the parent's
    // clean timing run with CUPTI (ATREX_GATE_KERNEL_TIMES, below).
    if (s.timedForeign == 0 && s.timedOwn > 0)
      aj.set("own_time_share", 1.0);
    else if (s.timedOwn == 0 && s.timedForeign > 0)
      aj.set("own_time_share", 0.0);
    else
      aj.set("own_time_share", Json());
    if (s.timedOwn + s.timedForeign > 0)
      aj.set("own_launch_share_timed",
             static_cast<double>(s.timedOwn) /
                 static_cast<double>(s.timedOwn + s.timedForeign));
    return aj;
  };
  gReport.set("attribution", attributionNow());
  if (!allOk)
    finish(protocol::kFail, protocol::kStageCorrectness, firstFailure);
  if (attributed && !correctnessOnly &&
      w.settings.getBool("ghost_replay", true))
    ghostReplay(w, seed);
  // The memcheck run (parent, settings.memcheck) needs the trials only.
  if (correctnessOnly) {
    endUnit(protocol::kPass, protocol::kStageCorrectness, "");
    return;
  }

  // ---- performance --------------------------------------------------------
  stageEnds(protocol::kStageCorrectness);
  gReport.set("stage", "performance");
  emit();
  Json perf = Json::object();
  {
    // Rotated input sets covering several times the L2.
    int64_t setBytes = 0;
    TensorMap probe =
        generateInputs(*w.spec, w.shape, mix(seed, 100), w.device);
    for (const ArgSpec &arg : w.spec->args)
      if (!Worker::isScalar(arg)) {
        auto dims = arg.shape(w.shape);
        int64_t n = 1;
        for (auto d : dims)
          n *= d;
        setBytes += n * static_cast<int64_t>(dtypeSize(arg.dtype));
      }
    int64_t l2 = prop.l2CacheSize;
    int rotations = static_cast<int>(std::clamp<int64_t>(
        (3 * l2 + setBytes - 1) / std::max<int64_t>(setBytes, 1), 2, 16));
    if (!w.settings.getBool("rotate_inputs", true))
      rotations = 1;
    while (rotations > 2 && rotations * setBytes > (20LL << 30))
      --rotations;
    std::vector<Args> sets(rotations);
    std::vector<TensorMap> setInputs(rotations), setScalars(rotations);
    for (int r = 0; r < rotations; ++r) {
      setInputs[r] = r == 0 ? probe
                            : generateInputs(*w.spec, w.shape,
                                             mix(seed, 100 + r), w.device);
      setScalars[r] = scalarsOf(*w.spec, setInputs[r]);
      sets[r] = w.makeArgs(setInputs[r]);
      w.bind(sets[r], setScalars[r]);
    }
    // The L2 flush *reads* a buffer four times the L2 (zeroed once): L2 is
    // left holding clean lines. Writing it before every call (zero_) left up
    // to a full L2 of dirty lines whose write-back landed in the timed kernel
    // (about 60 MB, ~14 us at 4.3 TB/s; run 1 read 6-13 us over ncu).
    if (!p.flush.defined()) {
      p.flush = at::zeros(
          {static_cast<int64_t>(std::max<int64_t>(4 * l2, 256LL << 20) / 4)},
          at::TensorOptions().dtype(at::kInt).device(w.device));
      p.flushSink =
          at::empty({}, at::TensorOptions().dtype(at::kLong).device(w.device));
    }
    at::Tensor &flush = p.flush, &flushSink = p.flushSink;
    auto stream = at::cuda::getCurrentCUDAStream();
    const std::string stage = protocol::kStagePerformance;
    cudaEvent_t evStart, evEnd;
    gateCuda(cudaEventCreate(&evStart), stage, "create the start event");
    gateCuda(cudaEventCreate(&evEnd), stage, "create the end event");
    std::vector<cudaEvent_t> extraEvents;

    // Device-wide spans (CUPTI; never with the Sanitizer subscription): every
    // kernel, copy and set a timed call starts, on any stream, counts, so the
    // time does not depend on which streams the submission used or whether
    // they still exist (issue 15).
    std::string cuptiError;
    bool deviceWide = false;
    std::string sleepName; // the gate's gap-sleep kernel, as CUPTI names it
    if (attributed) {
      cuptiError =
          "not with the Compute Sanitizer subscription (attributed run)";
    } else if (!deviceWideWanted) {
      cuptiError = "not asked for (the attributed run saw no side streams)";
    } else if (ktimes::start(ATREX_RT_CUPTI_LIB, cuptiError) &&
               ktimes::resume(cuptiError)) {
      at::cuda::sleep(1000);
      gateCuda(cudaDeviceSynchronize(), stage, "gap-sleep calibration");
      std::vector<Activity> acts;
      deviceWide = ktimes::takeActivities(acts, cuptiError);
      for (const Activity &a : acts)
        if (a.kind == Activity::Kind::Kernel)
          sleepName = a.name;
      if (deviceWide && sleepName.empty()) {
        deviceWide = false;
        cuptiError =
            "CUPTI recorded no kernel for the gate's calibration sleep";
      }
      if (!deviceWide)
        ktimes::pause(cuptiError);
    }
    perf.set("device_wide", deviceWide);
    if (!deviceWide)
      perf.set("device_wide_error", cuptiError.substr(0, 300));

    // Persisting L2: a carve-out (cudaLimitPersistingL2CacheSize) or an access
    // policy window on the gate's stream, set by the submission, would keep its
    // data in L2 across the flush. Both are reset before every timed call and
    // recorded when found. On the H200 (2026-12-02b) every unit of the first
    // run reported 11796480 bytes "found", honest ones too: the limit held that
    // before the gate's first reset (whether from the context's start or set
    // during the correctness trials is not known), and read back 0 after it.
    // So each worker resets it once before its first timed loop, keeps what it
    // held then apart (`persisting_limit_before_first_reset_bytes`, not counted
    // as found), and counts as found only a limit above what the reset leaves
    // (`persisting_limit_floor_bytes`).
    int64_t persistingLimitSeen = 0, policyWindowSeen = 0;
    if (p.persistingFloor < 0) {
      size_t before = 0, floor = 0;
      if (cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize) ==
          cudaSuccess)
        p.persistingBeforeReset = static_cast<int64_t>(before);
      cudaGetLastError();
      gateCuda(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), stage,
               "reset the persisting-L2 limit");
      p.persistingFloor =
          cudaDeviceGetLimit(&floor, cudaLimitPersistingL2CacheSize) ==
                  cudaSuccess
              ? static_cast<int64_t>(floor)
              : 0;
      cudaGetLastError();
    }
    auto resetPersistingL2 = [&] {
      size_t limit = 0;
      if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) ==
              cudaSuccess &&
          static_cast<int64_t>(limit) > p.persistingFloor) {
        persistingLimitSeen =
            std::max<int64_t>(persistingLimitSeen, static_cast<int64_t>(limit));
        gateCuda(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), stage,
                 "reset the persisting-L2 limit");
      }
      cudaStreamAttrValue v{};
      if (cudaStreamGetAttribute(stream.stream(),
                                 cudaStreamAttributeAccessPolicyWindow,
                                 &v) == cudaSuccess &&
          v.accessPolicyWindow.num_bytes > 0) {
        policyWindowSeen = std::max<int64_t>(
            policyWindowSeen,
            static_cast<int64_t>(v.accessPolicyWindow.num_bytes));
        cudaStreamAttrValue none{};
        gateCuda(cudaStreamSetAttribute(stream.stream(),
                                        cudaStreamAttributeAccessPolicyWindow,
                                        &none),
                 stage, "clear the access policy window");
      }
      gateCuda(cudaCtxResetPersistingL2Cache(), stage,
               "cudaCtxResetPersistingL2Cache");
      cudaGetLastError(); // the queries above leave nothing behind
    };

    // Warm-up by time (eager), estimating the per-call time.
    double warmupMs = w.settings.getDouble("warmup_ms", 100);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<double> warm;
    gPyCallSeconds.clear();
    for (int i = 0;; ++i) {
      Args &a = sets[i % rotations];
      gateCuda(cudaEventRecord(evStart, stream), stage, "warm-up start event");
      std::string err = w.call(a, attr::Region::Correctness);
      if (!err.empty())
        finish(protocol::kFail, protocol::kStagePerformance, "warm-up: " + err);
      checkPending(stage, "during warm-up");
      gateCuda(cudaEventRecord(evEnd, stream), stage, "warm-up end event");
      checkCandidateCuda(stage, "during warm-up");
      float ms = 0;
      gateCuda(cudaEventElapsedTime(&ms, evStart, evEnd), stage,
               "warm-up elapsed time");
      warm.push_back(ms * 1000.0);
      double el = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
      if (i >= 2 && el >= warmupMs)
        break;
    }
    if (deviceWide) {
      std::vector<Activity> drop;
      deviceWide = ktimes::takeActivities(drop, cuptiError);
    }
    double warmMedianUs = percentile(warm, 0.5);
    // Hide the host-side launch gap: a short device-side sleep ahead of the
    // start event keeps the GPU busy while the call is enqueued, so the start
    // event fires just before the call's first kernel. Not with side streams:
    // their work need not wait for the sleep and could start before the start
    // event, so there the gap stays in (an overestimate, never an
    // underestimate). Side streams are seen by the launch callbacks (attributed
    // run) or by CUPTI (clean run: activities of the probe call on more than
    // one stream).
    attr::beginCall();
    uint64_t probeStart = deviceWide ? ktimes::timestamp() : 0;
    std::string probeErr = w.call(sets[0], attr::Region::Correctness);
    if (!probeErr.empty())
      finish(protocol::kFail, protocol::kStagePerformance,
             "side-stream probe: " + probeErr);
    checkCandidateCuda(stage, "in the side-stream probe");
    bool sideStreams = attr::destroyedSinceBeginCall() > 0;
    for (void *s : attr::streamsSinceBeginCall())
      if (s != static_cast<void *>(stream.stream()))
        sideStreams = true;
    if (deviceWide) {
      std::vector<Activity> acts;
      if ((deviceWide = ktimes::takeActivities(acts, cuptiError)))
        sideStreams |=
            spanOf(acts, probeStart, ktimes::timestamp(), "").streams > 1;
    }
    bool hideGap = !sideStreams;
    int64_t gapSleep = w.settings.getInt("gap_sleep_cycles", 100000);
    double pyHostMedianUs = 0;
    std::vector<double> pyWarmupSeconds = gPyCallSeconds;
    if (gHost && !gPyCallSeconds.empty()) {
      std::vector<double> hostUs;
      for (double sec : gPyCallSeconds)
        hostUs.push_back(sec * 1e6);
      pyHostMedianUs = percentile(hostUs, 0.5);
    }
    if (gHost && pyHostMedianUs > 0 && gapSleep > 0) {
      // A Python call spends tens of microseconds on the host before its first
      // kernel is enqueued (argument conversion, the Python code, Triton's
      // launcher): the sleep must outlast that, or the host overhead is timed
      // as kernel time. 1.5x the warm-up calls' host median plus 10 us, at
      // the SM clock (the host overhead is reported on its own:
      // python_host_call).
      int khz = 0;
      if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) !=
              cudaSuccess ||
          khz <= 0)
        khz = 2000000;
      double us = 1.5 * pyHostMedianUs + 10.0;
      gapSleep =
          std::max<int64_t>(gapSleep, static_cast<int64_t>(us * khz / 1000.0));
    }
    perf.set("launch_gap_hidden", hideGap && gapSleep > 0);
    perf.set("gap_sleep_cycles", hideGap ? gapSleep : 0);
    perf.set("warmup_calls", static_cast<int64_t>(warm.size()));
    perf.set("rotations", rotations);
    perf.set("set_bytes", setBytes);

    // CUDA graph path for tiny calls: removes the host-side gap between the
    // start event and the first kernel.
    std::vector<std::unique_ptr<at::cuda::CUDAGraph>> graphs;
    std::string mode = "eager";
    // Only when no side stream was seen (with attribution active, or in the
    // clean timing run when the attributed run saw none: the job's "graphs"):
    // work on a stream outside the capture would run once at capture time and
    // leave an empty graph behind.
    bool sideStreamsRuledOut = attributed || (cleanRun && graphsAllowed);
    perf.set("clean_timing_run", cleanRun);
    if (!sideStreamsRuledOut || sideStreams)
      perf.set("graph_skipped", !sideStreamsRuledOut
                                    ? "no attribution to rule out side streams"
                                    : "the call uses side streams");
    else if (std::max(0.0, warmMedianUs - pyHostMedianUs) <
             w.settings.getDouble("graph_below_us", 10)) {
      // (Python: the warm-up's event time less its host median, an estimate
      // of the device time that the host overhead of the call would hide.)
      try {
        auto capStream = at::cuda::getStreamFromPool();
        {
          c10::cuda::CUDAStreamGuard guard(capStream);
          for (int r = 0; r < rotations; ++r) {
            auto g = std::make_unique<at::cuda::CUDAGraph>();
            g->capture_begin();
            std::string err = w.call(sets[r], attr::Region::Correctness);
            g->capture_end();
            if (!err.empty())
              throw std::runtime_error(err);
            graphs.push_back(std::move(g));
          }
        }
        cudaDeviceSynchronize();
        mode = "graph";
      } catch (const std::exception &e) {
        graphs.clear();
        cudaDeviceSynchronize();
        cudaGetLastError();
        perf.set("graph_error", std::string(e.what()).substr(0, 500));
      }
      checkCandidateCuda(stage, "in graph capture");
      if (deviceWide) {
        std::vector<Activity> drop;
        deviceWide = ktimes::takeActivities(drop, cuptiError);
      }
    }
    perf.set("mode", mode);

    // Which timed reps are re-checked (chosen with the secret seed).
    int maxReps = static_cast<int>(w.settings.getInt("max_reps", 500));
    int minReps = static_cast<int>(w.settings.getInt("min_reps", 10));
    int recheck = static_cast<int>(w.settings.getInt("recheck", 3));
    std::mt19937_64 rng(mix(seed, 7));
    std::set<int> recheckReps;
    while (static_cast<int>(recheckReps.size()) < std::min(recheck, minReps))
      recheckReps.insert(static_cast<int>(rng() % minReps));
    Measurement meas(minReps, maxReps,
                     w.settings.getDouble("target_rel_err", 0.01),
                     w.settings.getDouble("max_timed_s", 2));
    Json clocksBefore = nvml.sample();
    int rechecked = 0, recheckFailed = 0;
    int64_t destroyedStreamReps = 0;
    std::string recheckReason;
    auto tTimed = std::chrono::steady_clock::now();
    gPyCallSeconds.clear();
    for (int rep = 0; rep < maxReps; ++rep) {
      int r = rep % rotations;
      Args &a = sets[r];
      bool doCheck = recheckReps.count(rep) != 0;
      TensorMap before;
      if (doCheck) {
        // Restore in/out tensors to the set's inputs, poison outputs.
        w.refill(a, setInputs[r]);
        before = w.snapshot(a, setScalars[r]);
      }
      at::sum_out(flushSink, flush);
      resetPersistingL2();
      gateCuda(cudaDeviceSynchronize(), stage, "L2 flush before a timed call");
      uint64_t windowStart = deviceWide ? ktimes::timestamp() : 0;
      auto h0 = std::chrono::steady_clock::now();
      if (hideGap && gapSleep > 0)
        at::cuda::sleep(gapSleep); // 100000 cycles: about 50 us at 2 GHz
      gateCuda(cudaEventRecord(evStart, stream), stage,
               "start event of a timed call");
      std::string err;
      if (mode == "graph") {
        attr::beginCall();
        attr::setRegion(attr::Region::Timed);
        markPhase('c');
        graphs[r]->replay();
        attr::setRegion(attr::Region::Gate);
      } else {
        err = w.call(a, attr::Region::Timed);
      }
      if (!err.empty())
        finish(protocol::kFail, protocol::kStagePerformance,
               "timed call: " + err);
      // An error the call left pending is the submission's (read before the
      // gate's own next CUDA call could pick it up).
      checkPending(stage, "in a timed call");
      gateCuda(cudaEventRecord(evEnd, stream), stage,
               "end event of a timed call");
      // An event on every other stream the call was seen to launch on and that
      // still exists (the launch callbacks forget destroyed streams).
      std::vector<void *> streams = attr::streamsSinceBeginCall();
      int64_t destroyed = attr::destroyedSinceBeginCall();
      size_t used = 0;
      for (void *s : streams) {
        if (s == static_cast<void *>(stream.stream()))
          continue;
        if (used == extraEvents.size()) {
          cudaEvent_t e;
          gateCuda(cudaEventCreate(&e), stage, "create a side-stream event");
          extraEvents.push_back(e);
        }
        gateCuda(
            cudaEventRecord(extraEvents[used++], static_cast<cudaStream_t>(s)),
            stage, "end event on a side stream of the call");
      }
      cudaError_t se = cudaDeviceSynchronize();
      auto h1 = std::chrono::steady_clock::now();
      uint64_t windowEnd = deviceWide ? ktimes::timestamp() : 0;
      if (se != cudaSuccess)
        finish(protocol::kFail, stage,
               "CUDA error in the submission's timed call: " +
                   cudaErrorText(se));
      Sample smp;
      float ms = 0;
      gateCuda(cudaEventElapsedTime(&ms, evStart, evEnd), stage,
               "elapsed time of a timed call");
      smp.mainUs = smp.eventUs = ms * 1000.0;
      for (size_t i = 0; i < used; ++i) {
        float m2 = 0;
        gateCuda(cudaEventElapsedTime(&m2, evStart, extraEvents[i]), stage,
                 "elapsed time on a side stream");
        smp.eventUs = std::max(smp.eventUs, m2 * 1000.0);
      }
      smp.sideStreams = used > 0 || destroyed > 0;
      destroyedStreamReps += destroyed > 0;
      smp.wallUs = std::chrono::duration<double, std::micro>(h1 - h0).count();
      if (attributed) {
        smp.kernels = attr::kernelsSinceBeginCall();
        smp.kernelsKnown = true;
      }
      if (deviceWide) {
        std::vector<Activity> acts;
        if ((deviceWide = ktimes::takeActivities(acts, cuptiError))) {
          Span sp = spanOf(acts, windowStart, windowEnd,
                           hideGap && gapSleep > 0 ? sleepName : "");
          smp.spanUs = sp.us;
          smp.sideStreams |= sp.streams > 1;
          smp.kernels = std::move(sp.kernels);
          smp.kernelsKnown = true;
        }
      }
      meas.add(std::move(smp));
      if (doCheck) {
        bool ok = true;
        Json cj = w.check(a, before, ok);
        ++rechecked;
        if (!ok) {
          ++recheckFailed;
          if (recheckReason.empty())
            recheckReason = "timed rep " + std::to_string(rep) + ": " +
                            cj.dump().substr(0, 800);
        }
      }
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - tTimed)
                           .count();
      if (meas.done(elapsed))
        break;
    }
    if (deviceWide)
      ktimes::pause(cuptiError);
    else if (!cuptiError.empty() && !attributed)
      perf.set("device_wide_error", cuptiError.substr(0, 300));
    Json clocksAfter = nvml.sample();
    meas.writeTo(perf);
    const char *hostFrom = "timed calls";
    if (gHost && gPyCallSeconds.empty() && !pyWarmupSeconds.empty()) {
      // Graph replays make no Python call: the host side of the eager
      // warm-up calls instead.
      gPyCallSeconds = pyWarmupSeconds;
      hostFrom = "warm-up calls (the timed calls were graph replays)";
    }
    if (gHost && !gPyCallSeconds.empty()) {
      // The host side of each eager timed call (argument conversion, the
      // Python call, the submission's own Python code): what a Python caller
      // pays per call on top of the kernels (docs/gate.md).
      std::vector<double> us;
      for (double sec : gPyCallSeconds)
        us.push_back(sec * 1e6);
      Json hc = Json::object();
      hc.set("calls", static_cast<int64_t>(us.size()));
      hc.set("from", std::string(hostFrom));
      hc.set("median_us", percentile(us, 0.5));
      hc.set("p90_us", percentile(us, 0.9));
      perf.set("python_host_call", hc);
    }
    perf.set("destroyed_stream_reps", destroyedStreamReps);
    perf.set("rechecked", rechecked);
    perf.set("recheck_failed", recheckFailed);
    Json clocks = Json::object();
    clocks.set("before", clocksBefore);
    clocks.set("after", clocksAfter);
    perf.set("clocks", clocks);
    {
      Json integrity =
          gReport.has("integrity") ? *gReport.get("integrity") : Json::object();
      Json l2 = Json::object();
      l2.set("reset_before_every_timed_call", true);
      l2.set("persisting_limit_bytes_found", persistingLimitSeen);
      l2.set("persisting_limit_floor_bytes", p.persistingFloor);
      l2.set("persisting_limit_before_first_reset_bytes",
             p.persistingBeforeReset);
      l2.set("access_policy_window_bytes_found", policyWindowSeen);
      integrity.set("persisting_l2", l2);
      if (const Json *ks = perf.get("kernel_set"))
        integrity.set("kernel_set", *ks);
      gReport.set("integrity", integrity);
    }
    // Per-kernel GPU durations for the own-time share (the parent asks for them
    // in the clean run of a unit whose attributed run launched own and foreign
    // kernels): CUPTI records only the candidate's calls (off during the gate's
    // L2 flush), on the rotated sets, after the timed loop.
    int ktCalls = static_cast<int>(kernelTimeCalls);
    if (ktCalls > 0 && !attributed) {
      Json kt = Json::object();
      std::string kerr;
      std::vector<Activity> drop;
      bool ok = ktimes::start(ATREX_RT_CUPTI_LIB, kerr) &&
                ktimes::takeActivities(drop, kerr);
      int done = 0;
      for (int i = 0; ok && i < ktCalls; ++i) {
        at::sum_out(flushSink, flush);
        cudaDeviceSynchronize();
        if (!(ok = ktimes::resume(kerr)))
          break;
        std::string err = w.call(sets[i % rotations], attr::Region::Timed);
        cudaError_t se = cudaDeviceSynchronize();
        ok = ktimes::pause(kerr) && ok;
        if (!err.empty())
          finish(protocol::kFail, protocol::kStagePerformance,
                 "call for kernel durations: " + err);
        if (se != cudaSuccess)
          finish(protocol::kFail, protocol::kStagePerformance,
                 std::string("CUDA error in a call for kernel durations: ") +
                     cudaGetErrorString(se));
        ++done;
      }
      std::vector<KernelTime> times;
      std::vector<Activity> acts;
      if (ok && (ok = ktimes::takeActivities(acts, kerr)))
        times = sumKernels(acts);
      kt.set("calls", done);
      if (!ok) {
        kt.set("error", kerr);
      } else {
        Json ks = Json::array();
        for (const KernelTime &t : times) {
          Json k = Json::object();
          k.set("name", t.name);
          k.set("launches", t.launches);
          k.set("total_us", t.totalUs);
          ks.push(k);
        }
        kt.set("kernels", ks);
      }
      gReport.set("kernel_times", kt);
    }
    gReport.set("performance", perf);
    gReport.set("attribution", attributionNow());
    for (cudaEvent_t e : extraEvents)
      cudaEventDestroy(e);
    cudaEventDestroy(evStart);
    cudaEventDestroy(evEnd);
    if (recheckFailed)
      finish(protocol::kFail, protocol::kStagePerformance,
             "outputs of a timed call were wrong: " + recheckReason);
  }
  endUnit(protocol::kPass, protocol::kStageDone, "");
}

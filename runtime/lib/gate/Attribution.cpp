//===- Attribution.cpp - Attribute every kernel launch to its module ------===//
//
// The only translation unit that includes sanitizer.h (it cannot share one
// with cupti.h; CUPTI runs only in the clean timing run, KernelTimes.cpp,
// never in a process that subscribed to the Sanitizer API).
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Attribution.h"

#include "atrex-rt/Compare.h"
#include "atrex-rt/Config.h"

#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <map>
#include <mutex>
#include <thread>

#if ATREX_HAVE_SANITIZER
#include <sanitizer.h>
#endif

namespace atrex::rt::attr {

namespace {
struct ModuleInfo {
  uint64_t hash = 0;
  size_t size = 0;
  bool own = false;
  std::string library; // file the image lives in (dladdr), "" for heap images
  std::string
      loader; // shared object whose code loaded a heap image (call stack)
};
struct KernelKey {
  std::string name;
  uint64_t moduleHash;
  bool own;
  int region;
  bool operator<(const KernelKey &o) const {
    return std::tie(name, moduleHash, own, region) <
           std::tie(o.name, o.moduleHash, o.own, o.region);
  }
};

std::mutex mu;
std::set<uint64_t> ownSet;
std::map<void *, ModuleInfo> modules;
std::map<KernelKey, int64_t> launches;
std::set<void *> callStreams;
int64_t callDestroyed = 0;
std::vector<std::string> callKernels;
int64_t gateLaunchCount = 0;
std::atomic<int> region{0};
std::thread::id gateThread;
bool isActive = false;
void *sanitizerLib = nullptr;
// The ghost call (suppressOwnKernels .. restoreOwnKernels).
std::atomic<bool> ghostOn{false};
int64_t ghostOwnLaunches = 0;
std::vector<void *> ghostPatched;
bool ghostPatchesLoaded = false;

const char *regionName(int r) {
  switch (r) {
  case 0:
    return "gate";
  case 1:
    return "correctness";
  case 2:
    return "timed";
  default:
    return "?";
  }
}

#if ATREX_HAVE_SANITIZER
using SubscribeFn = SanitizerResult (*)(Sanitizer_SubscriberHandle *,
                                        Sanitizer_CallbackFunc, void *);
using EnableDomainFn = SanitizerResult (*)(uint32_t, Sanitizer_SubscriberHandle,
                                           Sanitizer_CallbackDomain);

/// The shared object that asked the driver for this module: the first frame of
/// the loading call stack outside the CUDA driver and runtime, the Sanitizer
/// library and this executable (with lazy loading, the library whose launch
/// loaded the module; cuBLASLt and libtorch keep their images on the heap, so
/// dladdr on the image itself names nothing).
std::string loadingLibrary() {
  void *frames[64];
  int n = backtrace(frames, 64);
  Dl_info self{};
  dladdr(reinterpret_cast<void *>(&loadingLibrary), &self);
  for (int i = 1; i < n; ++i) {
    Dl_info dl{};
    if (!dladdr(frames[i], &dl) || !dl.dli_fname)
      continue;
    if (self.dli_fname && std::strcmp(dl.dli_fname, self.dli_fname) == 0)
      continue;
    const char *base = std::strrchr(dl.dli_fname, '/');
    base = base ? base + 1 : dl.dli_fname;
    static const char *skip[] = {"libcuda.so", "libcudart",  "libsanitizer",
                                 "libc.so",    "libpthread", "ld-linux",
                                 "libgcc_s",   "libstdc++"};
    bool skipped = false;
    for (const char *p : skip)
      skipped |= std::strncmp(base, p, std::strlen(p)) == 0;
    if (!skipped && *base)
      return dl.dli_fname;
  }
  return "";
}

template <typename Fn> Fn sanitizerFn(const char *name) {
  return sanitizerLib ? reinterpret_cast<Fn>(dlsym(sanitizerLib, name))
                      : nullptr;
}
/// Installs the ghost patch at block entry of one module. "" or why not.
std::string patchForGhost(CUmodule module) {
  auto patchInstructions = sanitizerFn<decltype(&::sanitizerPatchInstructions)>(
      "sanitizerPatchInstructions");
  auto patchModule =
      sanitizerFn<decltype(&::sanitizerPatchModule)>("sanitizerPatchModule");
  if (!patchInstructions || !patchModule)
    return "libsanitizer-public.so lacks "
           "sanitizerPatchInstructions/sanitizerPatchModule";
  if (patchInstructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, module,
                        "atrexGhostBlockEnter") != SANITIZER_SUCCESS)
    return "sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BLOCK_ENTER) "
           "failed";
  if (patchModule(module) != SANITIZER_SUCCESS)
    return "sanitizerPatchModule failed";
  return "";
}

void onModuleLoaded(const Sanitizer_ResourceModuleData *md) {
  ModuleInfo info;
  info.size = md->cubinSize;
  if (md->pCubin && md->cubinSize)
    info.hash = fnv1a64(md->pCubin, md->cubinSize);
  {
    // Own hashes can be added while the process runs (Python submissions:
    // addOwnHash before their first launch).
    std::lock_guard<std::mutex> lock(mu);
    info.own = ownSet.count(info.hash) != 0;
  }
  Dl_info dl;
  if (md->pCubin && dladdr(md->pCubin, &dl) && dl.dli_fname)
    info.library = dl.dli_fname;
  if (info.library.empty() && !info.own)
    info.loader = loadingLibrary();
  // An own module loaded during the ghost call is suppressed too.
  bool patched =
      info.own && ghostOn.load() && patchForGhost(md->module).empty();
  std::lock_guard<std::mutex> lock(mu);
  modules[reinterpret_cast<void *>(md->module)] = info;
  if (patched)
    ghostPatched.push_back(reinterpret_cast<void *>(md->module));
}

void onLaunch(void *module, const char *functionName, void *stream) {
  bool fromGate = std::this_thread::get_id() == gateThread;
  int r = region.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu);
  if (fromGate && r == 0) {
    ++gateLaunchCount;
    return;
  }
  // Candidate work from a thread of its own outside a call counts as
  // correctness-region work.
  if (r == 0)
    r = 1;
  auto it = modules.find(module);
  KernelKey key{functionName ? functionName : "?",
                it == modules.end() ? 0 : it->second.hash,
                it != modules.end() && it->second.own, r};
  if (ghostOn.load(std::memory_order_relaxed) && key.own)
    ++ghostOwnLaunches;
  ++launches[key];
  callStreams.insert(stream);
  callKernels.push_back(key.name);
}

// A stream the current call launched on is being destroyed: forget it, so
// that the gate never records an event on a dead handle; the call's time then
// needs the clean run's device-wide span (docs/gate.md, "Performance").
void onStreamDestroy(void *stream) {
  std::lock_guard<std::mutex> lock(mu);
  if (callStreams.erase(stream))
    ++callDestroyed;
}

void callback(void *, Sanitizer_CallbackDomain domain,
              Sanitizer_CallbackId cbid, const void *cbdata) {
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
      cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
    onModuleLoaded(static_cast<const Sanitizer_ResourceModuleData *>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
             cbid == SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
    onStreamDestroy(reinterpret_cast<void *>(
        static_cast<const Sanitizer_ResourceStreamData *>(cbdata)->stream));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH &&
             cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
    auto *ld = static_cast<const Sanitizer_LaunchData *>(cbdata);
    onLaunch(reinterpret_cast<void *>(ld->module), ld->functionName,
             reinterpret_cast<void *>(ld->stream));
  } else if (domain == SANITIZER_CB_DOMAIN_GRAPHS &&
             cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
    auto *gd = static_cast<const Sanitizer_GraphNodeLaunchData *>(cbdata);
    if (gd->nodeType == CU_GRAPH_NODE_TYPE_KERNEL && !gd->isGraphUpload)
      onLaunch(reinterpret_cast<void *>(gd->launchData.module),
               gd->launchData.functionName,
               reinterpret_cast<void *>(gd->launchData.stream));
  }
}
#endif
} // namespace

bool start(const std::set<uint64_t> &own, const std::string &libraryPath,
           std::string &error) {
#if ATREX_HAVE_SANITIZER
  ownSet = own;
  gateThread = std::this_thread::get_id();
  void *lib = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    error = std::string("cannot load the Compute Sanitizer API: ") + dlerror();
    return false;
  }
  auto subscribe =
      reinterpret_cast<SubscribeFn>(dlsym(lib, "sanitizerSubscribe"));
  auto enable =
      reinterpret_cast<EnableDomainFn>(dlsym(lib, "sanitizerEnableDomain"));
  if (!subscribe || !enable) {
    error =
        "libsanitizer-public.so lacks sanitizerSubscribe/sanitizerEnableDomain";
    return false;
  }
  Sanitizer_SubscriberHandle handle;
  if (subscribe(&handle, callback, nullptr) != SANITIZER_SUCCESS) {
    error =
        "sanitizerSubscribe failed (is another profiler or CUPTI attached?)";
    return false;
  }
  for (auto d : {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_LAUNCH,
                 SANITIZER_CB_DOMAIN_GRAPHS})
    if (enable(1, handle, d) != SANITIZER_SUCCESS) {
      error = "sanitizerEnableDomain failed for domain " +
              std::to_string(static_cast<int>(d));
      return false;
    }
  sanitizerLib = lib;
  isActive = true;
  return true;
#else
  (void)own;
  (void)libraryPath;
  error =
      "built without sanitizer.h (ATREX_SANITIZER_INCLUDE_DIR): no attribution";
  return false;
#endif
}

bool active() { return isActive; }
void addOwnHash(uint64_t hash) {
#if ATREX_HAVE_SANITIZER
  std::lock_guard<std::mutex> lock(mu);
  ownSet.insert(hash);
#else
  (void)hash;
#endif
}
void setGateThread() { gateThread = std::this_thread::get_id(); }
void setRegion(Region r) { region.store(static_cast<int>(r)); }

void beginCall() {
  std::lock_guard<std::mutex> lock(mu);
  callStreams.clear();
  callDestroyed = 0;
  callKernels.clear();
}
int64_t destroyedSinceBeginCall() {
  std::lock_guard<std::mutex> lock(mu);
  return callDestroyed;
}
std::vector<std::string> kernelsSinceBeginCall() {
  std::lock_guard<std::mutex> lock(mu);
  return callKernels;
}
std::vector<void *> streamsSinceBeginCall() {
  std::lock_guard<std::mutex> lock(mu);
  return std::vector<void *>(callStreams.begin(), callStreams.end());
}

void resetCounts() {
  std::lock_guard<std::mutex> lock(mu);
  launches.clear();
  gateLaunchCount = 0;
  callStreams.clear();
  callDestroyed = 0;
  callKernels.clear();
}

Summary summary() {
  std::lock_guard<std::mutex> lock(mu);
  Summary s;
  s.gateLaunches = gateLaunchCount;
  std::set<std::string> foreign;
  for (const auto &[key, count] : launches) {
    (key.own ? s.ownLaunches : s.foreignLaunches) += count;
    if (key.region == 2)
      (key.own ? s.timedOwn : s.timedForeign) += count;
    if (!key.own) {
      std::string where = "heap image, module " + hashHex(key.moduleHash);
      for (const auto &[mod, info] : modules)
        if (info.hash == key.moduleHash) {
          if (!info.library.empty())
            where = info.library;
          else if (!info.loader.empty())
            where = "heap image loaded by " + info.loader + ", module " +
                    hashHex(key.moduleHash);
        }
      if (key.moduleHash == 0)
        where = "unknown module";
      foreign.insert(key.name + " [" + where + "]");
    }
  }
  s.foreignKernels.assign(foreign.begin(), foreign.end());
  return s;
}

Json report() {
  std::lock_guard<std::mutex> lock(mu);
  Json j = Json::object();
  Json kernels = Json::array();
  for (const auto &[key, count] : launches) {
    Json k = Json::object();
    k.set("name", key.name);
    k.set("module_fnv1a64", hashHex(key.moduleHash));
    k.set("own", key.own);
    k.set("region", regionName(key.region));
    k.set("launches", count);
    for (const auto &[mod, info] : modules)
      if (info.hash == key.moduleHash) {
        k.set("image",
              info.library.empty() ? Json("heap") : Json(info.library));
        if (!info.loader.empty())
          k.set("loaded_by", info.loader);
        break;
      }
    kernels.push(k);
  }
  j.set("kernels", kernels);
  int64_t ownModules = 0;
  for (const auto &[mod, info] : modules)
    ownModules += info.own;
  j.set("modules_loaded", static_cast<int64_t>(modules.size()));
  j.set("own_modules_loaded", ownModules);
  j.set("gate_launches", gateLaunchCount);
  return j;
}

bool suppressOwnKernels(const std::string &patchFatbin, std::string &error) {
#if ATREX_HAVE_SANITIZER
  if (!isActive) {
    error = "no Compute Sanitizer subscription (attribution is off)";
    return false;
  }
  if (patchFatbin.empty()) {
    error = "built without the ghost patch";
    return false;
  }
  if (!ghostPatchesLoaded) {
    auto addPatches = sanitizerFn<decltype(&::sanitizerAddPatchesFromFile)>(
        "sanitizerAddPatchesFromFile");
    if (!addPatches) {
      error = "libsanitizer-public.so lacks sanitizerAddPatchesFromFile";
      return false;
    }
    if (addPatches(patchFatbin.c_str(), nullptr) != SANITIZER_SUCCESS) {
      error = "sanitizerAddPatchesFromFile(" + patchFatbin +
              ") failed (no code for this GPU?)";
      return false;
    }
    ghostPatchesLoaded = true;
  }
  std::vector<void *> own;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto &[mod, info] : modules)
      if (info.own)
        own.push_back(mod);
    ghostOwnLaunches = 0;
    ghostPatched.clear();
  }
  if (own.empty()) {
    error = "no module of the submission's own is loaded";
    return false;
  }
  ghostOn = true;
  for (void *m : own) {
    std::string why = patchForGhost(static_cast<CUmodule>(m));
    if (!why.empty()) {
      std::string ignored;
      restoreOwnKernels(ignored);
      error = why;
      return false;
    }
    std::lock_guard<std::mutex> lock(mu);
    ghostPatched.push_back(m);
  }
  return true;
#else
  (void)patchFatbin;
  error = "built without sanitizer.h: no ghost-replay check";
  return false;
#endif
}

bool restoreOwnKernels(std::string &error) {
#if ATREX_HAVE_SANITIZER
  ghostOn = false;
  std::vector<void *> patched;
  {
    std::lock_guard<std::mutex> lock(mu);
    patched.swap(ghostPatched);
  }
  auto unpatch = sanitizerFn<decltype(&::sanitizerUnpatchModule)>(
      "sanitizerUnpatchModule");
  if (!unpatch) {
    error = "libsanitizer-public.so lacks sanitizerUnpatchModule";
    return patched.empty();
  }
  bool ok = true;
  for (void *m : patched)
    if (unpatch(static_cast<CUmodule>(m)) != SANITIZER_SUCCESS) {
      ok = false;
      error = "sanitizerUnpatchModule failed";
    }
  return ok;
#else
  (void)error;
  return true;
#endif
}

int64_t ownLaunchesSuppressed() {
  std::lock_guard<std::mutex> lock(mu);
  return ghostOwnLaunches;
}

} // namespace atrex::rt::attr

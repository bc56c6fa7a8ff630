//===- Attribution.h - Attribute every kernel launch to its module -*- C++
//-*-===//
//
// Uses the Compute Sanitizer API (see DESIGN.md, "Attribution: what was
// measured on the H200"): the module-load callback hashes the cubin handed to
// the driver (FNV-1a 64); the launch callbacks (plain launches and graph
// kernel nodes) name the module of each launch. A kernel is *own* only when
// its module's hash is in the set the compile step extracted; names never
// decide. The sanitizer library is dlopen'ed, so this builds everywhere but
// attributes only where libsanitizer-public.so exists.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_ATTRIBUTION_H
#define ATREX_RT_ATTRIBUTION_H

#include "atrex-rt/Json.h"
#include "atrex-rt/Protocol.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace atrex::rt::attr {

enum class Region { Gate = 0, Correctness = 1, Timed = 2 };

// Must run before the first CUDA call of the process. Returns false with
// `error` set when the sanitizer library or its subscription is unavailable.
bool start(const std::set<uint64_t> &ownHashes, const std::string &libraryPath,
           std::string &error);
bool active();
/// One more module hash counts as own from now on (modules loaded earlier keep
/// what they were): Python submissions, whose kernels are compiled at run time
/// (Triton, load_inline), register each before its module is loaded.
void addOwnHash(uint64_t hash);

// The calling thread is the gate's: its launches in Region::Gate are the
// harness's own work (reference, poisoning, L2 flush) and are not attributed.
// Launches from any other thread are the candidate's, whatever the region.
void setGateThread();
void setRegion(Region region);

// Streams that candidate launches used since the last beginCall(), less the
// ones destroyed since (recording an event on a destroyed stream crashed the
// worker: issue 15), and how many of those were destroyed.
void beginCall();
std::vector<void *> streamsSinceBeginCall();
int64_t destroyedSinceBeginCall();
// Names of the kernels the candidate launched since the last beginCall().
std::vector<std::string> kernelsSinceBeginCall();

struct Summary {
  int64_t ownLaunches = 0;     // candidate launches from own modules
  int64_t foreignLaunches = 0; // candidate launches from other modules
  int64_t timedOwn = 0, timedForeign = 0;
  int64_t gateLaunches = 0;
  std::vector<std::string> foreignKernels; // "name [library or module hash]"
};
Summary summary();
/// Forgets the launches counted so far (a worker's next unit starts from
/// none); the modules loaded, and which are own, are kept.
void resetCounts();
/// The dynamic verdict of a summary, with atrex-lint's precedence: any foreign
/// launch in a region the candidate controls is `fallback` (own kernels or
/// not); `no-kernel` when nothing was launched at all; else `adopted`.
inline std::string verdictOf(const Summary &s) {
  if (s.foreignLaunches > 0)
    return protocol::kFallback;
  if (s.ownLaunches == 0)
    return protocol::kNoKernel;
  return protocol::kAdopted;
}
/// The ghost-replay check (docs/gate.md, "Integrity checks"): from
/// suppressOwnKernels to restoreOwnKernels, every kernel of the submission's
/// own modules (those loaded, and any own module loaded meanwhile) ends each
/// thread at block entry, before any of its code runs (a Compute Sanitizer
/// patch from `patchFatbin`, ATREX_RT_GHOST_PATCH). Returns false with
/// `error` set when that cannot be done (no subscription, no patch for this
/// GPU, no own module loaded); then nothing is suppressed.
bool suppressOwnKernels(const std::string &patchFatbin, std::string &error);
/// Removes the patch from every module it was installed in.
bool restoreOwnKernels(std::string &error);
/// Own launches counted since the last suppressOwnKernels.
int64_t ownLaunchesSuppressed();
// Everything: modules loaded, and per kernel (name, module hash, own, region)
// counts.
Json report();

} // namespace atrex::rt::attr

#endif // ATREX_RT_ATTRIBUTION_H

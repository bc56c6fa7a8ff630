//===- Kineto.h - GPU kernels of a PyTorch profiler trace -------*- C++ -*-===//
//
// Part of atrex. Loads a Kineto chrome-trace (torch.profiler with
// record_shapes=True) through the streaming reader, keeping only compact
// records (interned names and shapes, integer times in ns), then joins each
// GPU kernel to the CPU op that launched it and to the user annotations that
// enclose it:
//   kernel.args.correlation == cuda_runtime.args.correlation (or an ac2g
//   flow pair when the kernel has no correlation), the runtime call's
//   "External id" names the innermost CPU op; without one, the innermost op
//   enclosing the call on its thread; the op's ancestors are the ops and
//   annotations enclosing it on that thread. gpu_user_annotation ranges
//   enclose kernels on the same device and stream.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TRACE_KINETO_H
#define ATREX_TRACE_KINETO_H

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
namespace json {
class Array;
class Value;
} // namespace json
} // namespace llvm

namespace atrex {
namespace trace {

struct EventFields;
struct EventPlan;
struct BlockResult;
class FastBlockReader;

/// How Trace::load reads Kineto JSON.
struct LoadOptions {
  /// Parse runs of usual events in the reader's buffer, in parallel over
  /// parts of it (false: one event at a time, the reference path).
  bool FastPath = true;
  /// Threads for the fast path: 0 for every core (llvm::hardware_concurrency).
  unsigned Threads = 0;
  /// Read requests, and the window the fast path parses in (bytes).
  size_t ChunkSize = 1 << 20;
  size_t WindowSize = 16 << 20;
  /// The smallest part of the window a thread parses (bytes).
  size_t MinPartSize = 256 << 10;
};

/// Records keyed by an integer id: appended while a trace is read, sorted
/// once (the last record of a key wins), then looked up by binary search.
/// A deque grows without copying or doubling its storage. Kineto's ids
/// (correlation, External id) mostly come in increasing order and close to
/// consecutive: the sort is skipped when the records are in order already,
/// and a lookup starts where the key would be if the keys were evenly spread.
template <typename V> class SortedTable {
  std::deque<std::pair<int64_t, V>> Items;

public:
  void add(int64_t Key, const V &Value) { Items.emplace_back(Key, Value); }
  void finalize() {
    auto Less = [](const auto &L, const auto &R) { return L.first < R.first; };
    if (!std::is_sorted(Items.begin(), Items.end(), Less))
      std::stable_sort(Items.begin(), Items.end(), Less);
    // Keep the last record of each key.
    auto Out = Items.begin();
    for (auto It = Items.begin(); It != Items.end(); ++It) {
      auto Next = std::next(It);
      if (Next != Items.end() && Next->first == It->first)
        continue;
      *Out++ = std::move(*It);
    }
    Items.erase(Out, Items.end());
    Items.shrink_to_fit();
  }
  const V *find(int64_t Key) const {
    size_t N = Items.size();
    if (N == 0 || Key < Items.front().first || Key > Items.back().first)
      return nullptr;
    // The interpolated position, then a galloping search from it to the
    // bracket that holds the key, then a binary search within it.
    uint64_t Span =
        uint64_t(Items.back().first) - uint64_t(Items.front().first);
    uint64_t Off = uint64_t(Key) - uint64_t(Items.front().first);
    size_t Guess =
        Span == 0 ? 0
                  : std::min<size_t>(N - 1, size_t(double(Off) / double(Span) *
                                                   double(N - 1)));
    size_t Lo, Hi; // the key is in [Lo, Hi)
    if (Items[Guess].first == Key)
      return &Items[Guess].second;
    if (Items[Guess].first < Key) {
      size_t Step = 1;
      Lo = Guess + 1;
      while (Lo + Step < N && Items[Lo + Step - 1].first < Key) {
        Lo += Step;
        Step *= 2;
      }
      Hi = std::min(N, Lo + Step);
    } else {
      size_t Step = 1;
      Hi = Guess;
      while (Hi > Step && Items[Hi - Step].first > Key) {
        Hi -= Step;
        Step *= 2;
      }
      Lo = Hi > Step ? Hi - Step : 0;
    }
    auto It =
        std::lower_bound(Items.begin() + Lo, Items.begin() + Hi, Key,
                         [](const auto &P, int64_t K) { return P.first < K; });
    return It != Items.begin() + Hi && It->first == Key ? &It->second : nullptr;
  }
  V *find(int64_t Key) {
    return const_cast<V *>(static_cast<const SortedTable *>(this)->find(Key));
  }
  size_t size() const { return Items.size(); }
  auto begin() { return Items.begin(); }
  auto end() { return Items.end(); }
};

/// The shapes and types recorded for a CPU op (record_shapes=True). A
/// non-tensor argument has an empty dims list (and, for a tensor list, the
/// element shapes are not kept: `IsList` is set).
struct OpInputs {
  std::vector<std::vector<int64_t>> Dims;
  std::vector<bool> IsList;
  std::vector<std::string> Types;
};

/// A CPU-side range: an operator (cpu_op) or a user annotation.
struct CpuRange {
  llvm::StringRef Name;
  int64_t Ts = 0, End = 0; // ns
  uint64_t Pid = 0, Tid = 0;
  int64_t ExternalId = -1;
  /// Index into Trace::inputs(), or -1 when the op has no recorded shapes.
  int32_t Inputs = -1;
  /// A cpu_op event (record_param_comms is both an op and an annotation).
  bool IsOp = true;
  bool IsAnnotation = false;
  /// Index of the innermost range that encloses this one on its thread, -1.
  int32_t Parent = -1;
};

/// A GPU kernel joined to its launch.
struct KernelView {
  llvm::StringRef Name;
  int64_t Ts = 0, Dur = 0; // ns
  uint64_t Device = 0, Stream = 0;
  int64_t Correlation = -1;
  /// CPU ranges from the innermost launching op outwards (ops and CPU
  /// annotations). Empty when the launch could not be found.
  llvm::SmallVector<const CpuRange *, 8> Stack;
  /// Annotation names, innermost first: GPU annotations around the kernel,
  /// then CPU annotations around the launch.
  llvm::SmallVector<llvm::StringRef, 4> Annotations;
};

struct TraceStats {
  uint64_t Bytes = 0, Events = 0, Kernels = 0, CpuOps = 0, Annotations = 0;
  uint64_t Launches = 0, Unlaunched = 0; // kernels without a launching op
};

/// Saves strings once each, like llvm::UniqueStringSaver, and also takes a
/// string with its hash computed elsewhere (on the threads that parse).
class NameSaver {
  llvm::StringSaver Saver;
  llvm::DenseSet<llvm::CachedHashStringRef> Unique;

public:
  explicit NameSaver(llvm::BumpPtrAllocator &Alloc) : Saver(Alloc) {}
  /// A copy of \p S, the same one for equal strings (null-terminated).
  llvm::StringRef save(llvm::StringRef S) {
    return save(llvm::CachedHashStringRef(S));
  }
  llvm::StringRef save(llvm::CachedHashStringRef S) {
    auto It = Unique.find(S);
    if (It != Unique.end())
      return It->val();
    llvm::CachedHashStringRef Saved(Saver.save(S.val()), S.hash());
    Unique.insert(Saved);
    return Saved.val();
  }
  /// The strings saved so far, in no particular order.
  size_t size() const { return Unique.size(); }
  auto begin() const { return Unique.begin(); }
  auto end() const { return Unique.end(); }
};

/// The JSON text of an op's "Input Dims" and "Input type", with its hash:
/// the key under which the fast path interns the shapes it has not parsed.
struct RawInputsKey {
  llvm::StringRef Dims, Types;
  uint32_t Hash = 0;
};
struct RawInputsKeyInfo {
  static RawInputsKey getEmptyKey() {
    return {llvm::DenseMapInfo<llvm::StringRef>::getEmptyKey(), "", 0};
  }
  static RawInputsKey getTombstoneKey() {
    return {llvm::DenseMapInfo<llvm::StringRef>::getTombstoneKey(), "", 1};
  }
  static unsigned getHashValue(const RawInputsKey &K) { return K.Hash; }
  static bool isEqual(const RawInputsKey &L, const RawInputsKey &R) {
    return L.Hash == R.Hash &&
           llvm::DenseMapInfo<llvm::StringRef>::isEqual(L.Dims, R.Dims) &&
           L.Types == R.Types;
  }
};

class Trace {
public:
  /// Streams and indexes the trace at \p Path: Kineto JSON, or an Nsight
  /// Systems SQLite export (recognised by its header).
  static llvm::Expected<std::unique_ptr<Trace>> load(llvm::StringRef Path);
  static llvm::Expected<std::unique_ptr<Trace>> load(llvm::StringRef Path,
                                                     const LoadOptions &Opts);
  /// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`):
  /// CUDA kernels and runtime calls joined by correlation id, NVTX ranges as
  /// ops (torch's emit_nvtx ranges, "name, seq = N, ..., sizes = [...]")
  /// or annotations. An error when atrex was built without SQLite.
  static llvm::Expected<std::unique_ptr<Trace>>
  loadNsysSqlite(llvm::StringRef Path);
  /// Whether loadNsysSqlite is available.
  static bool hasNsysSupport();
  /// Whether gzip-compressed traces are read (built with zlib).
  static bool hasGzipSupport();
  /// The same over an in-memory document (tests).
  static llvm::Expected<std::unique_ptr<Trace>>
  loadFromBuffer(llvm::StringRef Name, llvm::StringRef Buffer);
  /// The same with options (their ChunkSize and WindowSize included).
  static llvm::Expected<std::unique_ptr<Trace>>
  loadFromBuffer(llvm::StringRef Name, llvm::StringRef Buffer,
                 const LoadOptions &Opts);

  /// Calls \p F for every GPU kernel, in the order of the file.
  void forEachKernel(llvm::function_ref<void(const KernelView &)> F) const;
  /// The same for the kernels [From, To) of that order.
  void forEachKernel(llvm::function_ref<void(const KernelView &)> F,
                     size_t From, size_t To) const;
  size_t numKernels() const { return Kernels.size(); }

  const OpInputs &inputs(int32_t I) const { return InputTable[I]; }
  /// Every CPU range (ops and annotations) in the order of the file;
  /// CpuRange::Parent indexes this sequence.
  const std::deque<CpuRange> &ranges() const { return Ranges; }
  const TraceStats &stats() const { return Stats; }
  llvm::StringRef path() const { return Path; }

  /// For each of ranges(): whether it is in the launch stack of a kernel.
  std::vector<bool> launchingRanges() const;

  /// GPU busy time (ns): the union of kernel intervals per device, summed.
  int64_t busyTime() const;

  /// cpu_op events with these names are annotations as well as ops.
  static bool isAnnotationOp(llvm::StringRef Name);

private:
  friend class FastBlockReader;
  struct Kernel {
    llvm::StringRef Name;
    int64_t Ts, Dur;
    uint64_t Device, Stream;
    int64_t Correlation, ExternalId;
    int32_t GpuAnnotation = -1; // innermost enclosing GPU annotation
    int32_t Range = -1;         // rangeOf(), set by link()
  };
  struct Launch {
    int64_t Ts;
    uint64_t Pid, Tid;
    int64_t ExternalId;
    int32_t Range = -1; // innermost enclosing CPU range
  };
  struct GpuRange {
    llvm::StringRef Name;
    int64_t Ts, End;
    uint64_t Device, Stream;
    int32_t Parent = -1;
  };

  std::string Path;
  llvm::BumpPtrAllocator Alloc;
  NameSaver Strings{Alloc};
  /// Interned shapes: parsed ones by their text (internInputs), the fast
  /// path's by the JSON text of their dims and types.
  llvm::StringMap<int32_t> InputIndex;
  llvm::DenseMap<RawInputsKey, int32_t, RawInputsKeyInfo> RawInputIndex;
  std::vector<OpInputs> InputTable;
  std::deque<CpuRange> Ranges;
  std::deque<Kernel> Kernels;
  std::deque<GpuRange> GpuRanges;
  SortedTable<Launch> Launches;   // by correlation
  SortedTable<int32_t> OpByExtId; // External id -> range
  /// ac2g flows: id -> start position; (device, stream, ts) -> id.
  SortedTable<Launch> FlowStarts;
  llvm::DenseMap<std::tuple<uint64_t, uint64_t, int64_t>, int64_t> FlowEnds;
  llvm::StringMap<uint64_t> StringIds;
  llvm::DenseSet<int64_t> RecentLaunches;
  std::string KeyBuffer;
  TraceStats Stats;

  llvm::Error addEvent(llvm::StringRef Text, uint64_t Offset);
  /// Threads link() may use.
  unsigned LinkThreads = 1;
  /// Streams the Kineto JSON document at the path \p Name (or in \p Buffer
  /// when given) into this trace.
  llvm::Error read(llvm::StringRef Name, const llvm::StringRef *Buffer,
                   const LoadOptions &Opts);
  llvm::Error addFields(const EventFields &F, uint64_t Offset);
  /// addFields with the event's plan decided already (planEvent).
  llvm::Error addPlanned(const EventFields &F, const EventPlan &Plan,
                         uint64_t Offset);
  int32_t internInputs(const llvm::json::Array &Dims,
                       const llvm::json::Array *Types);
  llvm::Expected<int32_t> internRawInputs(llvm::StringRef DimsText,
                                          llvm::StringRef TypesText,
                                          uint32_t Hash);
  /// A pid or tid: an integer, a string's id, 0 when absent; std::nullopt
  /// for a number outside the 64-bit integers.
  std::optional<uint64_t> idOf(const llvm::json::Value *V);
  void link();
  /// The innermost CPU range of a kernel's launch, -1 when none (what
  /// link() stores in Kernel::Range).
  int32_t rangeOf(const Kernel &K) const;
  void countUnlaunched();
};

} // namespace trace
} // namespace atrex

#endif // ATREX_TRACE_KINETO_H

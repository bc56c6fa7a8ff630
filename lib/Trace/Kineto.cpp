//===- Kineto.cpp - GPU kernels of a PyTorch profiler trace ---------------===//

#include "atrex/Trace/Kineto.h"
#include "atrex/Trace/JSONStream.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace atrex {
namespace trace {

bool Trace::isAnnotationOp(StringRef Name) {
  return Name == "record_param_comms";
}

static int64_t toNs(double Us) { return static_cast<int64_t>(std::llround(Us * 1000.0)); }

static int64_t intArg(const json::Object *Args, StringRef Key) {
  if (!Args)
    return -1;
  if (auto I = Args->getInteger(Key))
    return *I;
  if (auto D = Args->getNumber(Key))
    return static_cast<int64_t>(*D);
  return -1;
}

uint64_t Trace::idOf(const json::Value *V) {
  if (!V)
    return 0;
  if (auto I = V->getAsInteger())
    return static_cast<uint64_t>(*I);
  if (auto D = V->getAsNumber())
    return static_cast<uint64_t>(*D);
  if (auto S = V->getAsString()) {
    // Strings (for example "Spans" or "stream 7") get ids above any pid.
    auto It = StringIds.try_emplace(*S, (uint64_t(1) << 62) + StringIds.size());
    return It.first->second;
  }
  return 0;
}

int32_t Trace::internInputs(const json::Array &Dims, const json::Array *Types) {
  // The interning key: dims and types as text, without copying them.
  std::string &Key = KeyBuffer;
  Key.clear();
  for (const json::Value &D : Dims) {
    Key += '[';
    if (const json::Array *A = D.getAsArray())
      for (const json::Value &E : *A) {
        if (auto I = E.getAsInteger())
          Key += std::to_string(*I);
        else
          Key += 'L';
        Key += ',';
      }
    Key += ']';
  }
  if (Types)
    for (const json::Value &T : *Types) {
      Key += '|';
      Key += T.getAsString().value_or("");
    }
  auto It = InputIndex.try_emplace(Key, int32_t(InputTable.size()));
  if (It.second) {
    OpInputs In;
    for (const json::Value &D : Dims) {
      std::vector<int64_t> Shape;
      bool IsList = false;
      if (const json::Array *A = D.getAsArray()) {
        for (const json::Value &E : *A) {
          if (auto I = E.getAsInteger())
            Shape.push_back(*I);
          else {
            IsList = true;
            Shape.clear();
            break;
          }
        }
      }
      In.Dims.push_back(std::move(Shape));
      In.IsList.push_back(IsList);
    }
    if (Types)
      for (const json::Value &T : *Types)
        In.Types.push_back(T.getAsString().value_or("").str());
    InputTable.push_back(std::move(In));
  }
  return It.first->second;
}

Error Trace::addEvent(StringRef Text, uint64_t Offset) {
  ++Stats.Events;
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) + ": " + Msg);
  };
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    // llvm::json says "[line:col, byte=N]: message" within the event; report
    // the byte in the file.
    std::string Msg = toString(V.takeError());
    StringRef M(Msg);
    size_t At = M.find("byte="), End = M.find("]: ");
    uint64_t Inner;
    if (At != StringRef::npos && End != StringRef::npos && End > At &&
        !M.slice(At + 5, End).getAsInteger(10, Inner))
      return createStringError(inconvertibleErrorCode(),
                               Path + ": byte " + Twine(Offset + Inner) +
                                   ": malformed event (starting at byte " +
                                   Twine(Offset) +
                                   "): " + M.substr(End + 3));
    return Fail("malformed event: " + Msg);
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return Fail("an element of \"traceEvents\" is not an object");
  std::optional<StringRef> Ph = O->getString("ph");
  if (!Ph)
    return Error::success(); // not a trace event atrex uses
  StringRef Cat = O->getString("cat").value_or("");
  StringRef Name = O->getString("name").value_or("");
  std::optional<double> Ts = O->getNumber("ts");

  if (*Ph == "s" || *Ph == "f") {
    if (Cat != "ac2g")
      return Error::success();
    int64_t Id = -1;
    if (const json::Value *IdV = O->get("id"))
      if (auto I = IdV->getAsInteger())
        Id = *I;
    if (!Ts || Id < 0)
      return Fail("ac2g flow event without ts or id");
    uint64_t Pid = idOf(O->get("pid")), Tid = idOf(O->get("tid"));
    // A flow only adds information for a kernel without a correlation
    // argument. Kineto writes each flow end right after its runtime call or
    // kernel, so the redundant ones (most) are not kept.
    if (*Ph == "s") {
      if (!RecentLaunches.count(Id))
        FlowStarts.add(Id, Launch{toNs(*Ts), Pid, Tid, -1});
    } else {
      int64_t At = toNs(*Ts);
      bool Redundant = false;
      for (size_t I = Kernels.size(), N = 0; I > 0 && N < 8; --I, ++N) {
        const Kernel &K = Kernels[I - 1];
        if (K.Correlation == Id && K.Device == Pid && K.Stream == Tid &&
            K.Ts == At)
          Redundant = true;
      }
      if (!Redundant)
        FlowEnds[{Pid, Tid, At}] = Id;
    }
    return Error::success();
  }
  if (*Ph != "X")
    return Error::success();

  enum class Kind { Kernel, Runtime, CpuOp, Annotation, GpuAnnotation, Other };
  Kind K = StringSwitch<Kind>(Cat.lower())
               .Case("kernel", Kind::Kernel)
               .Cases({"cuda_runtime", "cuda_driver", "hip_runtime"},
                      Kind::Runtime)
               .Case("cpu_op", Kind::CpuOp)
               .Case("user_annotation", Kind::Annotation)
               .Case("gpu_user_annotation", Kind::GpuAnnotation)
               .Default(Kind::Other);
  if (K == Kind::Other)
    return Error::success();
  std::optional<double> Dur = O->getNumber("dur");
  if (!Ts || !Dur)
    return Fail("'" + Name + "' (" + Cat + ") has no numeric ts or dur");
  if (*Dur < 0)
    return Fail("'" + Name + "' has a negative duration");
  const json::Object *Args = O->getObject("args");
  uint64_t Pid = idOf(O->get("pid")), Tid = idOf(O->get("tid"));
  int64_t Begin = toNs(*Ts), End = toNs(*Ts + *Dur);

  switch (K) {
  case Kind::Kernel:
    ++Stats.Kernels;
    Kernels.push_back(Kernel{Strings.save(Name), Begin, End - Begin, Pid, Tid,
                             intArg(Args, "correlation"),
                             intArg(Args, "External id")});
    break;
  case Kind::Runtime: {
    int64_t Corr = intArg(Args, "correlation");
    if (Corr >= 0) {
      ++Stats.Launches;
      Launches.add(Corr, Launch{Begin, Pid, Tid, intArg(Args, "External id")});
      // The last launches, to recognise redundant flow starts.
      if (RecentLaunches.size() >= 64)
        RecentLaunches.clear();
      RecentLaunches.insert(Corr);
    }
    break;
  }
  case Kind::CpuOp:
  case Kind::Annotation: {
    CpuRange R;
    R.Name = Strings.save(Name);
    R.Ts = Begin;
    R.End = End;
    R.Pid = Pid;
    R.Tid = Tid;
    R.ExternalId = intArg(Args, "External id");
    R.IsOp = K == Kind::CpuOp;
    R.IsAnnotation = K == Kind::Annotation || isAnnotationOp(Name);
    (K == Kind::CpuOp ? Stats.CpuOps : Stats.Annotations)++;
    const json::Array *Dims = Args ? Args->getArray("Input Dims") : nullptr;
    if (K == Kind::CpuOp && Dims) {
      R.Inputs = internInputs(*Dims, Args->getArray("Input type"));
    }
    if (R.ExternalId >= 0 && K == Kind::CpuOp)
      OpByExtId.add(R.ExternalId, int32_t(Ranges.size()));
    Ranges.push_back(R);
    break;
  }
  case Kind::GpuAnnotation:
    ++Stats.Annotations;
    GpuRanges.push_back(GpuRange{Strings.save(Name), Begin, End, Pid, Tid});
    break;
  case Kind::Other:
    break;
  }
  return Error::success();
}

namespace {
/// A position on a timeline: (group, group, time).
using TimeKey = std::tuple<uint64_t, uint64_t, int64_t>;

/// Nesting sweep over one kind of timeline (threads or streams): ranges
/// and points, each sorted by their key (ranges longest first at equal
/// starts), merged; OnRange(index, parent) and OnPoint(index, innermost)
/// receive the innermost range that encloses each item, or -1.
template <typename RangeKey, typename RangeEnd, typename PointKey,
          typename RangeFn, typename PointFn>
void sweep(size_t NRanges, size_t NPoints, RangeKey RK, RangeEnd End,
           PointKey PK, RangeFn OnRange, PointFn OnPoint) {
  std::vector<uint32_t> R(NRanges), P(NPoints);
  for (size_t I = 0; I < NRanges; ++I)
    R[I] = I;
  for (size_t I = 0; I < NPoints; ++I)
    P[I] = I;
  llvm::sort(R, [&](uint32_t A, uint32_t B) {
    return std::make_tuple(RK(A), -End(A), A) <
           std::make_tuple(RK(B), -End(B), B);
  });
  llvm::sort(P, [&](uint32_t A, uint32_t B) {
    return std::make_pair(PK(A), A) < std::make_pair(PK(B), B);
  });
  std::vector<uint32_t> Stack;
  uint64_t G1 = ~0ull, G2 = ~0ull;
  size_t I = 0, J = 0;
  while (I < R.size() || J < P.size()) {
    bool TakeRange = J == P.size() || (I < R.size() && RK(R[I]) <= PK(P[J]));
    TimeKey K = TakeRange ? RK(R[I]) : PK(P[J]);
    if (std::get<0>(K) != G1 || std::get<1>(K) != G2) {
      Stack.clear();
      G1 = std::get<0>(K);
      G2 = std::get<1>(K);
    }
    int64_t Ts = std::get<2>(K);
    if (TakeRange) {
      while (!Stack.empty() && End(Stack.back()) <= Ts)
        Stack.pop_back();
      OnRange(R[I], Stack.empty() ? -1 : int32_t(Stack.back()));
      Stack.push_back(R[I]);
      ++I;
    } else {
      while (!Stack.empty() && End(Stack.back()) < Ts)
        Stack.pop_back();
      OnPoint(P[J], Stack.empty() ? -1 : int32_t(Stack.back()));
      ++J;
    }
  }
}
} // namespace

void Trace::link() {
  Launches.finalize();
  FlowStarts.finalize();
  OpByExtId.finalize();
  RecentLaunches.clear();

  // CPU ranges and launches (runtime calls and flow starts) on each thread.
  std::vector<Launch *> Points;
  Points.reserve(Launches.size() + FlowStarts.size());
  for (auto &L : Launches)
    Points.push_back(&L.second);
  for (auto &L : FlowStarts)
    Points.push_back(&L.second);
  sweep(
      Ranges.size(), Points.size(),
      [&](uint32_t I) { return TimeKey(Ranges[I].Pid, Ranges[I].Tid, Ranges[I].Ts); },
      [&](uint32_t I) { return Ranges[I].End; },
      [&](uint32_t I) {
        return TimeKey(Points[I]->Pid, Points[I]->Tid, Points[I]->Ts);
      },
      [&](uint32_t I, int32_t P) { Ranges[I].Parent = P; },
      [&](uint32_t I, int32_t P) {
        Launch &L = *Points[I];
        const int32_t *Op =
            L.ExternalId >= 0 ? OpByExtId.find(L.ExternalId) : nullptr;
        L.Range = Op ? *Op : P;
      });
  std::vector<Launch *>().swap(Points);

  // GPU annotations and kernels on each stream.
  sweep(
      GpuRanges.size(), Kernels.size(),
      [&](uint32_t I) {
        return TimeKey(GpuRanges[I].Device, GpuRanges[I].Stream, GpuRanges[I].Ts);
      },
      [&](uint32_t I) { return GpuRanges[I].End; },
      [&](uint32_t I) {
        return TimeKey(Kernels[I].Device, Kernels[I].Stream, Kernels[I].Ts);
      },
      [&](uint32_t I, int32_t P) { GpuRanges[I].Parent = P; },
      [&](uint32_t I, int32_t P) { Kernels[I].GpuAnnotation = P; });
}

void Trace::forEachKernel(function_ref<void(const KernelView &)> F) const {
  KernelView V;
  for (const Kernel &K : Kernels) {
    V.Name = K.Name;
    V.Ts = K.Ts;
    V.Dur = K.Dur;
    V.Device = K.Device;
    V.Stream = K.Stream;
    V.Correlation = K.Correlation;
    V.Stack.clear();
    V.Annotations.clear();
    int64_t Corr = K.Correlation;
    if (Corr < 0) {
      auto Flow = FlowEnds.find({K.Device, K.Stream, K.Ts});
      if (Flow != FlowEnds.end())
        Corr = Flow->second;
    }
    int32_t Range = -1;
    const Launch *L = nullptr;
    if (Corr >= 0) {
      L = Launches.find(Corr);
      if (!L)
        L = FlowStarts.find(Corr);
    }
    if (L)
      Range = L->Range;
    else if (K.ExternalId >= 0) {
      if (const int32_t *Op = OpByExtId.find(K.ExternalId))
        Range = *Op;
    }
    for (int32_t G = K.GpuAnnotation; G >= 0; G = GpuRanges[G].Parent)
      V.Annotations.push_back(GpuRanges[G].Name);
    for (int32_t R = Range; R >= 0; R = Ranges[R].Parent) {
      V.Stack.push_back(&Ranges[R]);
      if (Ranges[R].IsAnnotation)
        V.Annotations.push_back(Ranges[R].Name);
    }
    F(V);
  }
}

int64_t Trace::busyTime() const {
  std::vector<std::tuple<uint64_t, int64_t, int64_t>> Iv;
  Iv.reserve(Kernels.size());
  for (const Kernel &K : Kernels)
    Iv.emplace_back(K.Device, K.Ts, K.Ts + K.Dur);
  llvm::sort(Iv);
  int64_t Total = 0, CurEnd = INT64_MIN, CurBegin = 0;
  uint64_t Dev = ~0ull;
  for (auto &[D, B, E] : Iv) {
    if (D != Dev || B > CurEnd) {
      if (CurEnd != INT64_MIN)
        Total += CurEnd - CurBegin;
      Dev = D;
      CurBegin = B;
      CurEnd = E;
    } else
      CurEnd = std::max(CurEnd, E);
  }
  if (CurEnd != INT64_MIN)
    Total += CurEnd - CurBegin;
  return Total;
}

Expected<std::unique_ptr<Trace>> Trace::load(StringRef Path) {
  // Nsight Systems exports are SQLite databases.
  {
    auto FD = sys::fs::openNativeFileForRead(Path);
    if (!FD)
      return createStringError(inconvertibleErrorCode(),
                               "cannot open trace '" + Path +
                                   "': " + toString(FD.takeError()));
    char Magic[16] = {};
    auto N = sys::fs::readNativeFile(*FD, MutableArrayRef<char>(Magic, 16));
    sys::fs::closeFile(*FD);
    if (!N)
      return createStringError(inconvertibleErrorCode(),
                               "cannot read trace '" + Path +
                                   "': " + toString(N.takeError()));
    if (*N == 16 && StringRef(Magic, 16) == StringRef("SQLite format 3\0", 16))
      return loadNsysSqlite(Path);
  }
  auto T = std::make_unique<Trace>();
  T->Path = Path.str();
  if (Error E = streamTraceEvents(
          Path,
          [&](StringRef Text, uint64_t Off) { return T->addEvent(Text, Off); },
          &T->Stats.Bytes))
    return std::move(E);
  T->link();
  T->forEachKernel([&](const KernelView &K) {
    if (K.Stack.empty())
      ++T->Stats.Unlaunched;
  });
  return std::move(T);
}

Expected<std::unique_ptr<Trace>> Trace::loadFromBuffer(StringRef Name,
                                                       StringRef Buffer) {
  auto T = std::make_unique<Trace>();
  T->Path = Name.str();
  T->Stats.Bytes = Buffer.size();
  if (Error E = streamTraceEventsFromBuffer(
          Name, Buffer,
          [&](StringRef Text, uint64_t Off) { return T->addEvent(Text, Off); },
          4096))
    return std::move(E);
  T->link();
  T->forEachKernel([&](const KernelView &K) {
    if (K.Stack.empty())
      ++T->Stats.Unlaunched;
  });
  return std::move(T);
}

} // namespace trace
} // namespace atrex

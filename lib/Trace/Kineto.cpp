//===- Kineto.cpp - GPU kernels of a PyTorch profiler trace ---------------===//

#include "atrex/Trace/Kineto.h"
#include "atrex/Support/JSON.h"
#include "atrex/Trace/JSONStream.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace llvm;

namespace atrex {
namespace trace {

bool Trace::isAnnotationOp(StringRef Name) {
  return Name == "record_param_comms";
}

/// \p D truncated to an integer, or std::nullopt when that is no int64_t
/// (NaN, infinities, 1e300): such a conversion would be undefined.
static std::optional<int64_t> truncToInt64(double D) {
  if (!(D >= -0x1p63 && D < 0x1p63))
    return std::nullopt;
  return static_cast<int64_t>(D);
}

/// A time in microseconds as nanoseconds, or std::nullopt when it is not
/// finite or so large that differences of two such times could overflow.
static std::optional<int64_t> toNs(double Us) {
  double Ns = Us * 1000.0;
  if (!(std::fabs(Ns) < 0x1p62))
    return std::nullopt;
  return static_cast<int64_t>(std::llround(Ns));
}

/// An integer argument (-1 when absent or not a number), or std::nullopt
/// for a number outside int64_t.
static std::optional<int64_t> intArg(const json::Object *Args, StringRef Key) {
  if (!Args)
    return -1;
  if (auto I = atrex::getInteger(*Args, Key))
    return *I;
  if (auto D = Args->getNumber(Key))
    return truncToInt64(*D);
  return -1;
}

std::optional<uint64_t> Trace::idOf(const json::Value *V) {
  if (!V)
    return 0;
  if (auto I = atrex::getInteger(*V))
    return static_cast<uint64_t>(*I);
  if (auto D = V->getAsNumber()) {
    if (auto I = truncToInt64(*D))
      return static_cast<uint64_t>(*I);
    return std::nullopt;
  }
  if (auto S = V->getAsString()) {
    // Strings (for example "Spans" or "stream 7") get ids above any pid.
    auto It = StringIds.try_emplace(*S, (uint64_t(1) << 62) + StringIds.size());
    return It.first->second;
  }
  return 0;
}

static OpInputs buildInputs(const json::Array &Dims, const json::Array *Types) {
  OpInputs In;
  for (const json::Value &D : Dims) {
    std::vector<int64_t> Shape;
    bool IsList = false;
    if (const json::Array *A = D.getAsArray()) {
      for (const json::Value &E : *A) {
        if (auto I = atrex::getInteger(E))
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
  return In;
}

int32_t Trace::internInputs(const json::Array &Dims, const json::Array *Types) {
  // The interning key: dims and types as text, without copying them.
  std::string &Key = KeyBuffer;
  Key.clear();
  for (const json::Value &D : Dims) {
    Key += '[';
    if (const json::Array *A = D.getAsArray())
      for (const json::Value &E : *A) {
        if (auto I = atrex::getInteger(E))
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
  if (It.second)
    InputTable.push_back(buildInputs(Dims, Types));
  return It.first->second;
}

Expected<int32_t> Trace::internRawInputs(StringRef DimsText,
                                         StringRef TypesText) {
  std::string &Key = KeyBuffer;
  Key.assign("raw:");
  Key.append(DimsText.begin(), DimsText.end());
  Key += '\n';
  Key.append(TypesText.begin(), TypesText.end());
  auto It = InputIndex.find(Key);
  if (It != InputIndex.end())
    return It->second;
  int32_t Index = int32_t(InputTable.size());
  InputIndex[Key] = Index;
  Expected<json::Value> Dims = json::parse(DimsText);
  if (!Dims)
    return Dims.takeError();
  std::optional<json::Value> Types;
  if (!TypesText.empty()) {
    Expected<json::Value> T = json::parse(TypesText);
    if (!T)
      return T.takeError();
    Types = std::move(*T);
  }
  static const json::Array Empty;
  const json::Array *D = Dims->getAsArray();
  InputTable.push_back(
      buildInputs(D ? *D : Empty, Types ? Types->getAsArray() : nullptr));
  return Index;
}

/// The fields of one trace event that atrex uses.
struct EventFields {
  StringRef Ph, Cat, Name;
  std::optional<double> Ts, Dur;
  int64_t Id = -1;
  uint64_t Pid = 0, Tid = 0;
  int64_t Correlation = -1, ExternalId = -1;
  /// When pid / tid was a string: the index of that string among the
  /// strings the fast parser interned for this event, in their order.
  int8_t PidSlot = -1, TidSlot = -1;
  // Input dims and types: parsed (general path) or their JSON text (fast).
  const json::Array *Dims = nullptr, *Types = nullptr;
  StringRef DimsText, TypesText;
};

namespace {
/// A parser of the common shape of Kineto events that avoids building a
/// JSON tree. It gives up (returns false) on anything unusual: escapes in
/// keys or needed strings, unexpected value types; the caller then parses
/// the event with llvm::json, which also words the errors.
class FastEvent {
  const char *P, *E;
  unsigned NumInterned = 0;

  void ws() {
    while (P < E && (*P == ' ' || *P == '\n' || *P == '\r' || *P == '\t'))
      ++P;
  }
  bool lit(char C) {
    ws();
    if (P < E && *P == C) {
      ++P;
      return true;
    }
    return false;
  }
  bool str(StringRef &Out) {
    ws();
    if (P >= E || *P != '"')
      return false;
    const char *S = ++P;
    while (P < E && *P != '"') {
      if (*P == '\\' || static_cast<unsigned char>(*P) < 0x20)
        return false;
      ++P;
    }
    if (P >= E)
      return false;
    Out = StringRef(S, P - S);
    ++P;
    return true;
  }
  /// The usual numbers of a trace, "-?D+" (up to 18 digits) and "-?D+.D+"
  /// (up to 19 digits, at most 2^53 without the point): the same values as
  /// std::from_chars below gives (such a digit string is a double exactly,
  /// and dividing it by an exact power of ten rounds correctly: Clinger's
  /// fast path); false for anything else.
  static bool fastNum(const char *S, const char *End, double &D, int64_t &I,
                      bool &IsInt) {
    bool Neg = *S == '-';
    const char *Q = S + Neg;
    uint64_t M = 0;
    const char *DigitsFrom = Q;
    while (Q < End && isDigit(*Q))
      M = M * 10 + unsigned(*Q++ - '0');
    size_t IntDigits = Q - DigitsFrom;
    if (IntDigits == 0 || IntDigits > 18)
      return false;
    if (Q == End) {
      I = Neg ? -int64_t(M) : int64_t(M);
      IsInt = true;
      D = double(I);
      return true;
    }
    if (*Q != '.')
      return false;
    const char *FracFrom = ++Q;
    while (Q < End && isDigit(*Q))
      M = M * 10 + unsigned(*Q++ - '0');
    size_t FracDigits = Q - FracFrom;
    if (Q != End || FracDigits == 0 || IntDigits + FracDigits > 19 ||
        M > (uint64_t(1) << 53))
      return false;
    static const double Pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                   1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                   1e14, 1e15, 1e16, 1e17, 1e18, 1e19};
    D = double(M) / Pow10[FracDigits];
    if (Neg)
      D = -D;
    IsInt = false;
    I = static_cast<int64_t>(D); // |D| <= 2^53: defined
    return true;
  }
  /// A number; IsInt when it has no fraction or exponent.
  bool num(double &D, int64_t &I, bool &IsInt) {
    ws();
    const char *S = P;
    while (P < E && (isDigit(*P) || *P == '-' || *P == '+' || *P == '.' ||
                     *P == 'e' || *P == 'E'))
      ++P;
    if (P == S)
      return false;
    if (fastNum(S, P, D, I, IsInt))
      return true;
    auto R = std::from_chars(S, P, I);
    if (R.ec == std::errc() && R.ptr == P) {
      IsInt = true;
      D = double(I);
      return true;
    }
    auto RD = std::from_chars(S, P, D);
    if (RD.ec != std::errc() || RD.ptr != P)
      return false;
    // A number outside int64_t: left to the full parser, which reports it.
    std::optional<int64_t> Truncated = truncToInt64(D);
    if (!Truncated)
      return false;
    IsInt = false;
    I = *Truncated;
    return true;
  }
  bool skip(unsigned Depth = 0) {
    ws();
    if (P >= E || Depth > 64)
      return false;
    char C = *P;
    if (C == '"') {
      for (++P; P < E && *P != '"'; ++P) {
        if (static_cast<unsigned char>(*P) < 0x20)
          return false;
        // An escape the stream reader accepts (it rejects the others).
        if (*P == '\\' && (++P == E || !StringRef("\"\\/bfnrtu").contains(*P)))
          return false;
      }
      if (P >= E)
        return false;
      ++P;
      return true;
    }
    if (C == '{' || C == '[') {
      char Close = C == '{' ? '}' : ']';
      ++P;
      if (lit(Close))
        return true;
      for (;;) {
        if (C == '{') {
          if (!skip(Depth + 1) || !lit(':'))
            return false;
        }
        if (!skip(Depth + 1))
          return false;
        if (lit(Close))
          return true;
        if (!lit(','))
          return false;
      }
    }
    if (isDigit(C) || C == '-') {
      double D;
      int64_t I;
      bool IsInt;
      return num(D, I, IsInt);
    }
    for (StringRef L : {"true", "false", "null"})
      if (StringRef(P, E - P).starts_with(L)) {
        P += L.size();
        return true;
      }
    return false;
  }
  /// A value's extent, for dims and types kept as text.
  bool raw(StringRef &Out) {
    ws();
    const char *S = P;
    if (!skip())
      return false;
    Out = StringRef(S, P - S);
    return true;
  }
  /// pid / tid: an integer, or a string given an id by Intern.
  template <typename InternFn>
  bool id(uint64_t &Out, int8_t &Slot, InternFn Intern) {
    ws();
    if (P < E && *P == '"') {
      StringRef S;
      if (!str(S))
        return false;
      Out = Intern(S);
      Slot = static_cast<int8_t>(std::min(NumInterned++, 127u));
      return true;
    }
    Slot = -1;
    double D;
    int64_t I;
    bool IsInt;
    if (!num(D, I, IsInt))
      return false;
    Out = static_cast<uint64_t>(I);
    return true;
  }
  template <typename Fn> bool object(Fn Field) {
    if (!lit('{'))
      return false;
    if (lit('}'))
      return true;
    for (;;) {
      StringRef Key;
      if (!str(Key) || !lit(':') || !Field(Key))
        return false;
      if (lit('}'))
        return true;
      if (!lit(','))
        return false;
    }
  }

public:
  explicit FastEvent(StringRef Text) : P(Text.begin()), E(Text.end()) {}
  /// Parses the event at \p Begin, which may be followed by more text up to
  /// \p End (parsePrefix).
  FastEvent(const char *Begin, const char *End) : P(Begin), E(End) {}

  /// The whole text is one event.
  template <typename InternFn> bool parse(EventFields &F, InternFn Intern) {
    if (!parsePrefix(F, Intern))
      return false;
    ws();
    return P == E;
  }
  /// Where the parse stopped: right after the event when it succeeded.
  const char *pos() const { return P; }
  /// Whether a failed parse ran into the end of the text (the event may be
  /// whole with more text).
  bool atEnd() const { return P >= E; }

  /// One event at the start of the text (what follows it is not looked at).
  template <typename InternFn>
  bool parsePrefix(EventFields &F, InternFn Intern) {
    auto Number = [&](std::optional<double> &Out) {
      ws();
      if (P < E && (isDigit(*P) || *P == '-')) {
        double D;
        int64_t I;
        bool IsInt;
        if (!num(D, I, IsInt))
          return false;
        Out = D;
        return true;
      }
      return skip(); // not a number: treated as missing
    };
    auto Integer = [&](int64_t &Out) {
      ws();
      if (P < E && (isDigit(*P) || *P == '-')) {
        double D;
        bool IsInt;
        return num(D, Out, IsInt);
      }
      return skip();
    };
    auto Args = [&] {
      ws();
      if (P >= E || *P != '{')
        return skip();
      return object([&](StringRef Key) {
        if (Key == "External id")
          return Integer(F.ExternalId);
        if (Key == "correlation")
          return Integer(F.Correlation);
        if (Key == "Input Dims")
          return raw(F.DimsText);
        if (Key == "Input type")
          return raw(F.TypesText);
        return skip();
      });
    };
    bool Ok = object([&](StringRef Key) {
      if (Key == "ph")
        return str(F.Ph);
      if (Key == "cat")
        return str(F.Cat);
      if (Key == "name")
        return str(F.Name);
      if (Key == "ts")
        return Number(F.Ts);
      if (Key == "dur")
        return Number(F.Dur);
      if (Key == "pid")
        return id(F.Pid, F.PidSlot, Intern);
      if (Key == "tid")
        return id(F.Tid, F.TidSlot, Intern);
      if (Key == "id")
        return Integer(F.Id);
      if (Key == "args")
        return Args();
      return skip();
    });
    return Ok;
  }
};
} // namespace

Error Trace::addEvent(StringRef Text, uint64_t Offset) {
  ++Stats.Events;
  EventFields F;
  auto Intern = [&](StringRef S) {
    auto It = StringIds.try_emplace(S, (uint64_t(1) << 62) + StringIds.size());
    return It.first->second;
  };
  if (FastEvent(Text).parse(F, Intern))
    return addFields(F, Offset);

  F = EventFields();
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
                                   Twine(Offset) + "): " + M.substr(End + 3));
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) +
                                 ": malformed event: " + Msg);
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) +
                                 ": an element of \"traceEvents\" is not an "
                                 "object");
  F.Ph = O->getString("ph").value_or("");
  F.Cat = O->getString("cat").value_or("");
  F.Name = O->getString("name").value_or("");
  F.Ts = O->getNumber("ts");
  F.Dur = O->getNumber("dur");
  if (const json::Value *IdV = O->get("id"))
    if (auto I = atrex::getInteger(*IdV))
      F.Id = *I;
  auto OutOfRange = [&](StringRef Key) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) + ": \"" + Key +
                                 "\" is a number outside the 64-bit integers");
  };
  std::optional<uint64_t> Pid = idOf(O->get("pid")), Tid = idOf(O->get("tid"));
  if (!Pid || !Tid)
    return OutOfRange(Pid ? "tid" : "pid");
  F.Pid = *Pid;
  F.Tid = *Tid;
  const json::Object *Args = O->getObject("args");
  std::optional<int64_t> Correlation = intArg(Args, "correlation"),
                         ExternalId = intArg(Args, "External id");
  if (!Correlation || !ExternalId)
    return OutOfRange(Correlation ? "External id" : "correlation");
  F.Correlation = *Correlation;
  F.ExternalId = *ExternalId;
  if (Args) {
    F.Dims = Args->getArray("Input Dims");
    F.Types = Args->getArray("Input type");
  }
  return addFields(F, Offset);
}

Error Trace::addFields(const EventFields &F, uint64_t Offset) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) + ": " + Msg);
  };
  if (F.Ph.empty())
    return Error::success(); // not a trace event atrex uses
  StringRef Cat = F.Cat, Name = F.Name;
  const std::optional<double> &Ts = F.Ts;
  uint64_t Pid = F.Pid, Tid = F.Tid;

  if (F.Ph == "s" || F.Ph == "f") {
    if (Cat != "ac2g")
      return Error::success();
    int64_t Id = F.Id;
    if (!Ts || Id < 0)
      return Fail("ac2g flow event without ts or id");
    // A flow only adds information for a kernel without a correlation
    // argument. Kineto writes each flow end right after its runtime call or
    // kernel, so the redundant ones (most) are not kept.
    std::optional<int64_t> TsNs = toNs(*Ts);
    if (!TsNs)
      return Fail("ac2g flow event with a ts out of range");
    if (F.Ph == "s") {
      if (!RecentLaunches.count(Id))
        FlowStarts.add(Id, Launch{*TsNs, Pid, Tid, -1});
    } else {
      int64_t At = *TsNs;
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
  if (F.Ph != "X")
    return Error::success();

  enum class Kind { Kernel, Runtime, CpuOp, Annotation, GpuAnnotation, Other };
  Kind K = Kind::Other;
  if (Cat.equals_insensitive("kernel"))
    K = Kind::Kernel;
  else if (Cat.equals_insensitive("cuda_runtime") ||
           Cat.equals_insensitive("cuda_driver") ||
           Cat.equals_insensitive("hip_runtime"))
    K = Kind::Runtime;
  else if (Cat.equals_insensitive("cpu_op"))
    K = Kind::CpuOp;
  else if (Cat.equals_insensitive("user_annotation"))
    K = Kind::Annotation;
  else if (Cat.equals_insensitive("gpu_user_annotation"))
    K = Kind::GpuAnnotation;
  if (K == Kind::Other)
    return Error::success();
  const std::optional<double> &Dur = F.Dur;
  if (!Ts || !Dur)
    return Fail("'" + Name + "' (" + Cat + ") has no numeric ts or dur");
  if (*Dur < 0)
    return Fail("'" + Name + "' has a negative duration");
  std::optional<int64_t> BeginNs = toNs(*Ts), EndNs = toNs(*Ts + *Dur);
  if (!BeginNs || !EndNs)
    return Fail("'" + Name + "' has a ts or dur out of range");
  int64_t Begin = *BeginNs, End = *EndNs;

  switch (K) {
  case Kind::Kernel:
    ++Stats.Kernels;
    Kernels.push_back(Kernel{Strings.save(Name), Begin, End - Begin, Pid, Tid,
                             F.Correlation, F.ExternalId});
    break;
  case Kind::Runtime: {
    int64_t Corr = F.Correlation;
    if (Corr >= 0) {
      ++Stats.Launches;
      Launches.add(Corr, Launch{Begin, Pid, Tid, F.ExternalId});
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
    R.ExternalId = F.ExternalId;
    R.IsOp = K == Kind::CpuOp;
    R.IsAnnotation = K == Kind::Annotation || isAnnotationOp(Name);
    (K == Kind::CpuOp ? Stats.CpuOps : Stats.Annotations)++;
    if (K == Kind::CpuOp && F.Dims) {
      R.Inputs = internInputs(*F.Dims, F.Types);
    } else if (K == Kind::CpuOp && !F.DimsText.empty()) {
      auto In = internRawInputs(F.DimsText, F.TypesText);
      if (!In)
        return Fail("malformed \"Input Dims\" of '" + Name +
                    "': " + toString(In.takeError()));
      R.Inputs = *In;
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
  // The keys are copied next to the indices, so that the sorts compare
  // contiguous records.
  struct Item {
    TimeKey Key;
    int64_t End;
    uint32_t Index;
  };
  std::vector<Item> R(NRanges), P(NPoints);
  for (size_t I = 0; I < NRanges; ++I)
    R[I] = Item{RK(I), End(I), uint32_t(I)};
  for (size_t I = 0; I < NPoints; ++I)
    P[I] = Item{PK(I), 0, uint32_t(I)};
  llvm::sort(R, [&](const Item &A, const Item &B) {
    // Ends descending without negating them (INT64_MIN has no negation).
    return std::tie(A.Key, B.End, A.Index) < std::tie(B.Key, A.End, B.Index);
  });
  llvm::sort(P, [&](const Item &A, const Item &B) {
    return std::tie(A.Key, A.Index) < std::tie(B.Key, B.Index);
  });
  std::vector<uint32_t> Stack;
  uint64_t G1 = ~0ull, G2 = ~0ull;
  size_t I = 0, J = 0;
  while (I < R.size() || J < P.size()) {
    bool TakeRange = J == P.size() || (I < R.size() && R[I].Key <= P[J].Key);
    TimeKey K = TakeRange ? R[I].Key : P[J].Key;
    if (std::get<0>(K) != G1 || std::get<1>(K) != G2) {
      Stack.clear();
      G1 = std::get<0>(K);
      G2 = std::get<1>(K);
    }
    int64_t Ts = std::get<2>(K);
    if (TakeRange) {
      while (!Stack.empty() && End(Stack.back()) <= Ts)
        Stack.pop_back();
      OnRange(R[I].Index, Stack.empty() ? -1 : int32_t(Stack.back()));
      Stack.push_back(R[I].Index);
      ++I;
    } else {
      while (!Stack.empty() && End(Stack.back()) < Ts)
        Stack.pop_back();
      OnPoint(P[J].Index, Stack.empty() ? -1 : int32_t(Stack.back()));
      ++J;
    }
  }
}
} // namespace

void Trace::link() {
  // GPU annotations and kernels on each stream (on a second thread when
  // the trace is large: it touches none of what the CPU side does).
  auto GpuSweep = [this] {
    sweep(
        GpuRanges.size(), Kernels.size(),
        [&](uint32_t I) {
          return TimeKey(GpuRanges[I].Device, GpuRanges[I].Stream,
                         GpuRanges[I].Ts);
        },
        [&](uint32_t I) { return GpuRanges[I].End; },
        [&](uint32_t I) {
          return TimeKey(Kernels[I].Device, Kernels[I].Stream, Kernels[I].Ts);
        },
        [&](uint32_t I, int32_t P) { GpuRanges[I].Parent = P; },
        [&](uint32_t I, int32_t P) { Kernels[I].GpuAnnotation = P; });
  };
  bool Parallel = LinkThreads > 1 && Kernels.size() >= (1u << 16);
  std::thread GpuThread;
  if (Parallel)
    GpuThread = std::thread(GpuSweep);

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
      [&](uint32_t I) {
        return TimeKey(Ranges[I].Pid, Ranges[I].Tid, Ranges[I].Ts);
      },
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

  if (Parallel)
    GpuThread.join();
  else
    GpuSweep();
  // Each kernel's launching range: lookups only, in two halves when large.
  auto SetRanges = [this](size_t From, size_t To) {
    for (size_t I = From; I < To; ++I)
      Kernels[I].Range = rangeOf(Kernels[I]);
  };
  size_t Half = Parallel ? Kernels.size() / 2 : Kernels.size();
  std::thread Second;
  if (Parallel)
    Second = std::thread(SetRanges, Half, Kernels.size());
  SetRanges(0, Half);
  if (Parallel)
    Second.join();
}

int32_t Trace::rangeOf(const Kernel &K) const {
  int64_t Corr = K.Correlation;
  if (Corr < 0) {
    auto Flow = FlowEnds.find({K.Device, K.Stream, K.Ts});
    if (Flow != FlowEnds.end())
      Corr = Flow->second;
  }
  const Launch *L = nullptr;
  if (Corr >= 0) {
    L = Launches.find(Corr);
    if (!L)
      L = FlowStarts.find(Corr);
  }
  if (L)
    return L->Range;
  if (K.ExternalId >= 0)
    if (const int32_t *Op = OpByExtId.find(K.ExternalId))
      return *Op;
  return -1;
}

std::vector<bool> Trace::launchingRanges() const {
  std::vector<bool> Out(Ranges.size());
  for (const Kernel &K : Kernels)
    for (int32_t R = K.Range; R >= 0 && !Out[R]; R = Ranges[R].Parent)
      Out[R] = true;
  return Out;
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
    int32_t Range = K.Range;
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

} // namespace trace
} // namespace atrex

namespace atrex {
namespace trace {
namespace {
/// An event the fast path parsed, waiting to be added in file order.
struct FastRecord {
  EventFields F;
  uint64_t Offset = 0;
  /// The strings of string pids / tids, in the order they appear.
  StringRef Strs[2];
  unsigned NumStrs = 0;
};

/// A part of the window parsed by one thread: events from Begin (a known
/// event start for the first part, a guessed one for the others) while
/// they start before Limit.
struct FastPart {
  size_t Begin = 0, Limit = 0;
  std::vector<FastRecord> Recs;
  /// The end of the last event parsed (Begin when none); the start of the
  /// event after it when the part stopped at Limit.
  size_t LastEnd = 0, NextStart = 0;
  enum StopKind { AtLimit, Other, Incomplete } Stop = Other;
};
} // namespace

/// The fast path of Trace::read: the block callback of the stream reader.
/// It splits the window at guessed event boundaries ("}", ",", "{" with
/// white space), parses the parts with FastEvent on a thread pool (each
/// part's records stay in its own vector) and adds the records to the trace
/// in file order on the calling thread. A part counts only when the part
/// before it ended exactly where it begins, so a wrong guess (a "}, {"
/// inside a string) costs time, never a different result; events FastEvent
/// does not take are left to the reader's one-event path, which is what
/// every event went through before.
class FastBlockReader {
public:
  FastBlockReader(Trace &T, const LoadOptions &Opts) : T(T), Opts(Opts) {
    unsigned N =
        llvm::hardware_concurrency(Opts.Threads).compute_thread_count();
    Threads = std::max(1u, N);
    if (Threads > 1)
      Pool = std::make_unique<DefaultThreadPool>(
          llvm::hardware_concurrency(Threads - 1));
  }

  Expected<BlockResult> run(StringRef Text, uint64_t Offset);

private:
  Trace &T;
  LoadOptions Opts;
  unsigned Threads = 1;
  std::unique_ptr<DefaultThreadPool> Pool;
  std::vector<FastPart> Parts;
  size_t NumParts = 0;
  // Scheduling of one window: the next part to claim, the parts done.
  std::atomic<size_t> NextPart{0};
  std::unique_ptr<std::atomic<bool>[]> Done;
  size_t DoneSize = 0;
  std::mutex M;
  std::condition_variable CV;

  void parsePart(FastPart &P, StringRef Text, uint64_t Offset);
  /// Claims and parses parts until none is left.
  void work(StringRef Text, uint64_t Offset, bool Once);
  Error merge(FastPart &P);
};

static bool isWs(char C) {
  return C == ' ' || C == '\n' || C == '\r' || C == '\t';
}

/// Past the separator of two events at \p Q (white space, a comma, white
/// space): the offset of the next event's '{', or npos.
static size_t nextEventAfter(const char *B, size_t Q, size_t Size) {
  while (Q < Size && isWs(B[Q]))
    ++Q;
  if (Q >= Size || B[Q] != ',')
    return StringRef::npos;
  ++Q;
  while (Q < Size && isWs(B[Q]))
    ++Q;
  return Q < Size && B[Q] == '{' ? Q : StringRef::npos;
}

void FastBlockReader::parsePart(FastPart &Part, StringRef Text,
                                uint64_t Offset) {
  const char *Base = Text.data(), *End = Text.end();
  size_t Size = Text.size(), P = Part.Begin;
  Part.Recs.clear();
  Part.LastEnd = Part.Begin;
  Part.Stop = FastPart::Other;
  for (;;) {
    if (P >= Part.Limit) {
      Part.Stop = FastPart::AtLimit;
      Part.NextStart = P;
      return;
    }
    Part.Recs.emplace_back();
    FastRecord &R = Part.Recs.back();
    R.Offset = Offset + P;
    bool Overflow = false;
    auto Intern = [&](StringRef S) -> uint64_t {
      if (R.NumStrs == 2)
        Overflow = true;
      else
        R.Strs[R.NumStrs++] = S;
      return 0;
    };
    FastEvent FE(Base + P, End);
    if (!FE.parsePrefix(R.F, Intern) || Overflow) {
      Part.Recs.pop_back();
      if (FE.atEnd())
        Part.Stop = FastPart::Incomplete;
      return;
    }
    size_t Q = FE.pos() - Base;
    Part.LastEnd = Q;
    // The separator: white space, a comma, white space, the next object.
    Q = nextEventAfter(Base, Q, Size);
    if (Q == StringRef::npos)
      return;
    P = Q;
  }
}

void FastBlockReader::work(StringRef Text, uint64_t Offset, bool Once) {
  for (;;) {
    size_t K = NextPart.fetch_add(1);
    if (K >= NumParts)
      return;
    parsePart(Parts[K], Text, Offset);
    {
      std::lock_guard<std::mutex> Lock(M);
      Done[K].store(true);
    }
    CV.notify_all();
    if (Once)
      return;
  }
}

Error FastBlockReader::merge(FastPart &Part) {
  for (FastRecord &R : Part.Recs) {
    ++T.Stats.Events;
    EventFields &F = R.F;
    // Strings get their ids in the order the one-event path gives them.
    uint64_t Ids[2] = {0, 0};
    for (unsigned I = 0; I < R.NumStrs; ++I) {
      auto It = T.StringIds.try_emplace(R.Strs[I], (uint64_t(1) << 62) +
                                                       T.StringIds.size());
      Ids[I] = It.first->second;
    }
    if (F.PidSlot >= 0)
      F.Pid = Ids[F.PidSlot];
    if (F.TidSlot >= 0)
      F.Tid = Ids[F.TidSlot];
    if (Error E = T.addFields(F, R.Offset))
      return E;
  }
  return Error::success();
}

Expected<BlockResult> FastBlockReader::run(StringRef Text, uint64_t Offset) {
  // Parts: the first at the start, the others at guessed event boundaries
  // near equal divisions of the window.
  size_t Size = Text.size();
  size_t N =
      Threads == 1
          ? 1
          : std::clamp<size_t>(Size / std::max<size_t>(Opts.MinPartSize, 1), 1,
                               size_t(Threads) * 4);
  std::vector<size_t> Begins{0};
  for (size_t K = 1; K < N; ++K) {
    size_t From = std::max(K * (Size / N), Begins.back() + 1);
    size_t To = std::min(Size, (K + 1) * (Size / N));
    size_t At = StringRef::npos;
    for (size_t I = From; I < To; ++I) {
      I = Text.find('}', I);
      if (I == StringRef::npos || I >= To)
        break;
      size_t J = nextEventAfter(Text.data(), I + 1, Size);
      if (J != StringRef::npos) {
        At = J;
        break;
      }
    }
    if (At != StringRef::npos)
      Begins.push_back(At);
  }
  N = NumParts = Begins.size();
  if (Parts.size() < N)
    Parts.resize(N); // parts keep their vectors' storage between windows
  for (size_t K = 0; K < N; ++K) {
    Parts[K].Begin = Begins[K];
    Parts[K].Limit = K + 1 < N ? Begins[K + 1] : Size;
  }
  if (DoneSize < N) {
    Done.reset(new std::atomic<bool>[N]);
    DoneSize = N;
  }
  for (size_t K = 0; K < N; ++K)
    Done[K].store(false);
  NextPart.store(0);

  // Helpers parse parts in order; this thread merges each part as soon as
  // it is parsed, and parses unclaimed parts while it waits.
  std::shared_ptr<ThreadPoolTaskGroup> Group;
  if (Pool && N > 1) {
    Group = std::make_shared<ThreadPoolTaskGroup>(*Pool);
    for (unsigned I = 1, E = std::min<size_t>(Threads, N); I < E; ++I)
      Group->async([this, Text, Offset] { work(Text, Offset, false); });
  }
  auto Finish = [&] {
    NextPart.store(N); // no part is claimed any more
    if (Group)
      Group->wait();
  };
  BlockResult Result;
  for (size_t K = 0; K < N; ++K) {
    while (!Done[K].load()) {
      if (NextPart.load() < N) {
        work(Text, Offset, /*Once=*/true);
        continue;
      }
      std::unique_lock<std::mutex> Lock(M);
      CV.wait(Lock, [&] { return Done[K].load(); });
    }
    FastPart &P = Parts[K];
    if (K > 0) {
      const FastPart &Prev = Parts[K - 1];
      if (Prev.Stop != FastPart::AtLimit || Prev.NextStart != P.Begin)
        break; // a wrong guess
    }
    if (Error E = merge(P)) {
      Finish();
      return std::move(E);
    }
    if (!P.Recs.empty())
      Result.Consumed = P.LastEnd;
    if (P.Stop != FastPart::AtLimit) {
      Result.Incomplete = P.Stop == FastPart::Incomplete;
      break;
    }
  }
  Finish();
  return Result;
}

void Trace::countUnlaunched() {
  for (const Kernel &K : Kernels)
    if (K.Range < 0)
      ++Stats.Unlaunched;
}

Error Trace::read(StringRef Name, const StringRef *Buffer,
                  const LoadOptions &Opts) {
  auto OnEvent = [&](StringRef Text, uint64_t Off) {
    return addEvent(Text, Off);
  };
  if (!Opts.FastPath) {
    if (Buffer)
      return streamTraceEventsFromBuffer(Name, *Buffer, OnEvent,
                                         Opts.ChunkSize);
    return streamTraceEvents(Name, OnEvent, &Stats.Bytes, Opts.ChunkSize);
  }
  LinkThreads = llvm::hardware_concurrency(Opts.Threads).compute_thread_count();
  FastBlockReader Reader(*this, Opts);
  auto OnBlock = [&](StringRef Text, uint64_t Off) {
    return Reader.run(Text, Off);
  };
  if (Buffer)
    return streamTraceEventsFromBuffer(Name, *Buffer, OnEvent, OnBlock,
                                       Opts.ChunkSize, Opts.WindowSize);
  return streamTraceEvents(Name, OnEvent, OnBlock, &Stats.Bytes, Opts.ChunkSize,
                           Opts.WindowSize);
}

Expected<std::unique_ptr<Trace>> Trace::load(StringRef Path) {
  return load(Path, LoadOptions());
}

Expected<std::unique_ptr<Trace>> Trace::load(StringRef Path,
                                             const LoadOptions &Opts) {
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
  if (Error E = T->read(Path, nullptr, Opts))
    return std::move(E);
  T->link();
  T->countUnlaunched();
  return std::move(T);
}

bool Trace::hasGzipSupport() { return gzipSupported(); }

Expected<std::unique_ptr<Trace>> Trace::loadFromBuffer(StringRef Name,
                                                       StringRef Buffer) {
  LoadOptions Opts;
  Opts.ChunkSize = 4096;
  Opts.WindowSize = 16384;
  return loadFromBuffer(Name, Buffer, Opts);
}

Expected<std::unique_ptr<Trace>>
Trace::loadFromBuffer(StringRef Name, StringRef Buffer,
                      const LoadOptions &Opts) {
  auto T = std::make_unique<Trace>();
  T->Path = Name.str();
  T->Stats.Bytes = Buffer.size();
  if (Error E = T->read(Name, &Buffer, Opts))
    return std::move(E);
  T->link();
  T->countUnlaunched();
  return std::move(T);
}

} // namespace trace
} // namespace atrex

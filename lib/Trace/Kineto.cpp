//===- Kineto.cpp - GPU kernels of a PyTorch profiler trace ---------------===//

#include "atrex/Trace/Kineto.h"
#include "atrex/Support/JSON.h"
#include "atrex/Trace/JSONStream.h"

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
                                         StringRef TypesText, uint32_t Hash) {
  RawInputsKey Key{DimsText, TypesText, Hash};
  auto It = RawInputIndex.find(Key);
  if (It != RawInputIndex.end())
    return It->second;
  int32_t Index = int32_t(InputTable.size());
  StringSaver Saver(Alloc);
  RawInputIndex[RawInputsKey{Saver.save(DimsText), Saver.save(TypesText),
                             Hash}] = Index;
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
/// The bytes that end the plain run of a JSON string: '"', '\\' and the
/// control characters.
static bool endsStringRun(char C) {
  return C == '"' || C == '\\' || static_cast<unsigned char>(C) < 0x20;
}

/// The first byte at or after \p P (before \p E) that ends the plain run of
/// a string (endsStringRun), or \p E: sixteen bytes at a time where SSE2 is
/// there.
LLVM_ATTRIBUTE_ALWAYS_INLINE static const char *stringRunEnd(const char *P,
                                                             const char *E) {
#if defined(__SSE2__)
  const __m128i Quote = _mm_set1_epi8('"'), Backslash = _mm_set1_epi8('\\'),
                Max = _mm_set1_epi8(0x1f);
  for (; E - P >= 16; P += 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    // Control characters: bytes whose unsigned minimum with 0x1f is themselves.
    __m128i Hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(V, Quote), _mm_cmpeq_epi8(V, Backslash)),
        _mm_cmpeq_epi8(_mm_min_epu8(V, Max), V));
    if (int Mask = _mm_movemask_epi8(Hit))
      return P + llvm::countr_zero(unsigned(Mask));
  }
#endif
  while (P < E && !endsStringRun(*P))
    ++P;
  return P;
}

/// The characters of a number token (as FastEvent::num delimits it).
static bool isNumberChar(char C) {
  return isDigit(C) || C == '-' || C == '+' || C == '.' || C == 'e' || C == 'E';
}

/// Reads the decimal digits at \p Q (before \p E) into \p M (M * 10 + each
/// digit, modulo 2^64) and returns where they end.
LLVM_ATTRIBUTE_ALWAYS_INLINE static const char *
readDigits(const char *Q, const char *E, uint64_t &M) {
  while (Q < E && isDigit(*Q))
    M = M * 10 + unsigned(*Q++ - '0');
  return Q;
}

/// Whether \p Key is the string literal \p Lit.
template <size_t N>
LLVM_ATTRIBUTE_ALWAYS_INLINE static bool keyIs(StringRef Key,
                                               const char (&Lit)[N]) {
  constexpr size_t L = N - 1;
  static_assert(L >= 1 && L <= 16, "keys of 1 to 16 bytes");
  if (Key.size() != L)
    return false;
  const char *K = Key.data();
  if constexpr (L >= 8) {
    // Two overlapping words.
    uint64_t A, B, C, D;
    std::memcpy(&A, K, 8);
    std::memcpy(&B, Lit, 8);
    std::memcpy(&C, K + L - 8, 8);
    std::memcpy(&D, Lit + L - 8, 8);
    return A == B && C == D;
  } else {
    for (size_t I = 0; I < L; ++I)
      if (K[I] != Lit[I])
        return false;
    return true;
  }
}

/// A parser of the common shape of Kineto events that avoids building a
/// JSON tree. It gives up (returns false) on anything unusual: escapes in
/// keys or needed strings, unexpected value types; the caller then parses
/// the event with llvm::json, which also words the errors.
class FastEvent {
  const char *P, *E;
  unsigned NumInterned = 0;

  LLVM_ATTRIBUTE_ALWAYS_INLINE void ws() {
    // Every byte that is not white space and can come next is above ' '.
    while (P < E && static_cast<unsigned char>(*P) <= ' ' &&
           (*P == ' ' || *P == '\n' || *P == '\r' || *P == '\t'))
      ++P;
  }
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool lit(char C) {
    ws();
    if (P < E && *P == C) {
      ++P;
      return true;
    }
    return false;
  }
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool str(StringRef &Out) {
    ws();
    if (P >= E || *P != '"')
      return false;
    const char *S = ++P;
    P = stringRunEnd(P, E);
    if (P >= E || *P != '"')
      return false; // an escape, a control character or the end
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
  /// A number; IsInt when it has no fraction or exponent. The token is the
  /// longest run of number characters (isNumberChar).
  bool num(double &D, int64_t &I, bool &IsInt) {
    ws();
    const char *S = P;
    // The usual token, "-?D+" or "-?D+.D+", read in one pass: what fastNum
    // gives for it once its end is known.
    {
      const char *Q = S;
      bool Neg = Q < E && *Q == '-';
      Q += Neg;
      const char *DigitsFrom = Q;
      uint64_t M = 0;
      Q = readDigits(Q, E, M);
      size_t IntDigits = Q - DigitsFrom;
      if (IntDigits >= 1 && IntDigits <= 18) {
        if (Q == E || !isNumberChar(*Q)) {
          I = Neg ? -int64_t(M) : int64_t(M);
          IsInt = true;
          D = double(I);
          P = Q;
          return true;
        }
        if (*Q == '.') {
          const char *FracFrom = ++Q;
          Q = readDigits(Q, E, M);
          size_t FracDigits = Q - FracFrom;
          if ((Q == E || !isNumberChar(*Q)) && FracDigits != 0 &&
              IntDigits + FracDigits <= 19 && M <= (uint64_t(1) << 53)) {
            static const double Pow10[] = {
                1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19};
            D = double(M) / Pow10[FracDigits];
            if (Neg)
              D = -D;
            IsInt = false;
            I = static_cast<int64_t>(D); // |D| <= 2^53: defined
            P = Q;
            return true;
          }
        }
      }
    }
    while (P < E && isNumberChar(*P))
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
  /// A number that is skipped: what num accepts, without its value. A
  /// "-?D+" or "-?D+.D+" token of up to 15 digits is one (below 2^53);
  /// anything else is left to num.
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool skipNum() {
    ws();
    const char *Q = P;
    Q += Q < E && *Q == '-';
    const char *DigitsFrom = Q;
    while (Q < E && isDigit(*Q))
      ++Q;
    size_t IntDigits = Q - DigitsFrom;
    if (IntDigits >= 1 && IntDigits <= 18) {
      if (Q == E || !isNumberChar(*Q)) {
        P = Q;
        return true;
      }
      if (*Q == '.') {
        const char *FracFrom = ++Q;
        while (Q < E && isDigit(*Q))
          ++Q;
        size_t FracDigits = Q - FracFrom;
        if ((Q == E || !isNumberChar(*Q)) && FracDigits != 0 &&
            IntDigits + FracDigits <= 15) {
          P = Q;
          return true;
        }
      }
    }
    double D;
    int64_t I;
    bool IsInt;
    return num(D, I, IsInt);
  }
  /// A string that is skipped: escapes the stream reader accepts (it
  /// rejects the others), no control characters.
  bool skipString() {
    ++P; // the opening quote
    for (;;) {
      P = stringRunEnd(P, E);
      if (P >= E || static_cast<unsigned char>(*P) < 0x20)
        return false;
      if (*P == '"') {
        ++P;
        return true;
      }
      // A backslash.
      if (++P == E || !StringRef("\"\\/bfnrtu").contains(*P))
        return false;
      ++P;
    }
  }
  bool skip(unsigned Depth = 0) {
    ws();
    if (P >= E || Depth > 64)
      return false;
    char C = *P;
    if (C == '"')
      return skipString();
    if (C == '{' || C == '[') {
      char Close = C == '{' ? '}' : ']';
      ++P;
      if (lit(Close))
        return true;
      for (;;) {
        if (C == '{') {
          // A key is a string, as the stream reader requires.
          ws();
          if (P >= E || *P != '"' || !skipString() || !lit(':'))
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
    if (isDigit(C) || C == '-')
      return skipNum();
    for (StringRef L : {"true", "false", "null"})
      if (StringRef(P, E - P).starts_with(L)) {
        P += L.size();
        return true;
      }
    return false;
  }
  /// skip(), with a number (the usual value) skipped in place.
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool skipValue() {
    ws();
    if (P < E && (isDigit(*P) || *P == '-'))
      return skipNum();
    return skip();
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
        switch (Key.size()) {
        case 11:
          if (keyIs(Key, "External id"))
            return Integer(F.ExternalId);
          if (keyIs(Key, "correlation"))
            return Integer(F.Correlation);
          break;
        case 10:
          if (keyIs(Key, "Input Dims"))
            return raw(F.DimsText);
          if (keyIs(Key, "Input type"))
            return raw(F.TypesText);
          break;
        }
        return skipValue();
      });
    };
    bool Ok = object([&](StringRef Key) {
      switch (Key.size()) {
      case 2:
        if (keyIs(Key, "ph"))
          return str(F.Ph);
        if (keyIs(Key, "ts"))
          return Number(F.Ts);
        if (keyIs(Key, "id"))
          return Integer(F.Id);
        break;
      case 3:
        if (keyIs(Key, "cat"))
          return str(F.Cat);
        if (keyIs(Key, "dur"))
          return Number(F.Dur);
        if (keyIs(Key, "pid"))
          return id(F.Pid, F.PidSlot, Intern);
        if (keyIs(Key, "tid"))
          return id(F.Tid, F.TidSlot, Intern);
        break;
      case 4:
        if (keyIs(Key, "name"))
          return str(F.Name);
        if (keyIs(Key, "args"))
          return Args();
        break;
      }
      return skipValue();
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

/// What an event adds to a trace, decided from its fields alone, with the
/// hashes of the strings the trace interns for it: the fast path decides
/// it on the threads that parse, and Trace::addPlanned then only updates
/// the trace (in file order).
struct EventPlan {
  enum Action : uint8_t {
    Ignore,
    FlowStart,
    FlowEnd,
    Kernel,
    Runtime,
    CpuOp,
    Annotation,
    GpuAnnotation,
    // Errors.
    FlowWithoutTsOrId,
    FlowTsOutOfRange,
    NoTsOrDur,
    NegativeDur,
    TsOrDurOutOfRange,
  } A = Ignore;
  int64_t Begin = 0, End = 0; // ns; a flow's ts is Begin
  /// Name's hash (kernels, CPU ranges, GPU annotations).
  uint32_t NameHash = 0;
  /// The hash of DimsText and TypesText (ops with dims kept as text).
  uint32_t InputsHash = 0;
  /// Found by the fast path among what the trace had interned before the
  /// window: Name's saved copy (null: not found), the shapes' index (-1).
  const char *SavedName = nullptr;
  int32_t Inputs = -1;
};

static uint32_t rawInputsHash(StringRef Dims, StringRef Types) {
  uint64_t H = xxh3_64bits(Dims) ^ (xxh3_64bits(Types) * 0x9e3779b97f4a7c15ull);
  return uint32_t(H ^ (H >> 32));
}

static EventPlan planEvent(const EventFields &F) {
  EventPlan P;
  if (F.Ph.empty())
    return P; // not a trace event atrex uses
  StringRef Cat = F.Cat;
  const std::optional<double> &Ts = F.Ts;
  if (F.Ph == "s" || F.Ph == "f") {
    if (Cat != "ac2g")
      return P;
    if (!Ts || F.Id < 0) {
      P.A = EventPlan::FlowWithoutTsOrId;
      return P;
    }
    std::optional<int64_t> TsNs = toNs(*Ts);
    if (!TsNs) {
      P.A = EventPlan::FlowTsOutOfRange;
      return P;
    }
    P.A = F.Ph == "s" ? EventPlan::FlowStart : EventPlan::FlowEnd;
    P.Begin = *TsNs;
    return P;
  }
  if (F.Ph != "X")
    return P;

  // Category names ignoring case (ASCII), lengths compared first.
  auto Is = [&](StringRef Lower) {
    if (Cat.size() != Lower.size())
      return false;
    for (size_t I = 0; I < Lower.size(); ++I)
      if (toLower(Cat[I]) != Lower[I])
        return false;
    return true;
  };
  EventPlan::Action K = EventPlan::Ignore;
  if (Is("kernel"))
    K = EventPlan::Kernel;
  else if (Is("cuda_runtime") || Is("cuda_driver") || Is("hip_runtime"))
    K = EventPlan::Runtime;
  else if (Is("cpu_op"))
    K = EventPlan::CpuOp;
  else if (Is("user_annotation"))
    K = EventPlan::Annotation;
  else if (Is("gpu_user_annotation"))
    K = EventPlan::GpuAnnotation;
  if (K == EventPlan::Ignore)
    return P;
  const std::optional<double> &Dur = F.Dur;
  if (!Ts || !Dur) {
    P.A = EventPlan::NoTsOrDur;
    return P;
  }
  if (*Dur < 0) {
    P.A = EventPlan::NegativeDur;
    return P;
  }
  std::optional<int64_t> BeginNs = toNs(*Ts), EndNs = toNs(*Ts + *Dur);
  if (!BeginNs || !EndNs) {
    P.A = EventPlan::TsOrDurOutOfRange;
    return P;
  }
  P.A = K;
  P.Begin = *BeginNs;
  P.End = *EndNs;
  if (K != EventPlan::Runtime)
    P.NameHash = CachedHashStringRef(F.Name).hash();
  if (K == EventPlan::CpuOp && !F.Dims && !F.DimsText.empty())
    P.InputsHash = rawInputsHash(F.DimsText, F.TypesText);
  return P;
}

Error Trace::addFields(const EventFields &F, uint64_t Offset) {
  return addPlanned(F, planEvent(F), Offset);
}

Error Trace::addPlanned(const EventFields &F, const EventPlan &Plan,
                        uint64_t Offset) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": byte " + Twine(Offset) + ": " + Msg);
  };
  StringRef Cat = F.Cat, Name = F.Name;
  uint64_t Pid = F.Pid, Tid = F.Tid;
  int64_t Begin = Plan.Begin, End = Plan.End;
  auto SaveName = [&] {
    if (Plan.SavedName)
      return StringRef(Plan.SavedName, Name.size());
    return Strings.save(CachedHashStringRef(Name, Plan.NameHash));
  };

  switch (Plan.A) {
  case EventPlan::Ignore:
    break;
  case EventPlan::FlowWithoutTsOrId:
    return Fail("ac2g flow event without ts or id");
  case EventPlan::FlowTsOutOfRange:
    return Fail("ac2g flow event with a ts out of range");
  case EventPlan::NoTsOrDur:
    return Fail("'" + Name + "' (" + Cat + ") has no numeric ts or dur");
  case EventPlan::NegativeDur:
    return Fail("'" + Name + "' has a negative duration");
  case EventPlan::TsOrDurOutOfRange:
    return Fail("'" + Name + "' has a ts or dur out of range");
  // A flow only adds information for a kernel without a correlation
  // argument. Kineto writes each flow end right after its runtime call or
  // kernel, so the redundant ones (most) are not kept.
  case EventPlan::FlowStart:
    if (!RecentLaunches.count(F.Id))
      FlowStarts.add(F.Id, Launch{Begin, Pid, Tid, -1});
    break;
  case EventPlan::FlowEnd: {
    int64_t Id = F.Id, At = Begin;
    bool Redundant = false;
    for (size_t I = Kernels.size(), N = 0; I > 0 && N < 8; --I, ++N) {
      const Kernel &K = Kernels[I - 1];
      if (K.Correlation == Id && K.Device == Pid && K.Stream == Tid &&
          K.Ts == At)
        Redundant = true;
    }
    if (!Redundant)
      FlowEnds[{Pid, Tid, At}] = Id;
    break;
  }
  case EventPlan::Kernel:
    ++Stats.Kernels;
    Kernels.push_back(Kernel{SaveName(), Begin, End - Begin, Pid, Tid,
                             F.Correlation, F.ExternalId});
    break;
  case EventPlan::Runtime: {
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
  case EventPlan::CpuOp:
  case EventPlan::Annotation: {
    bool IsOp = Plan.A == EventPlan::CpuOp;
    CpuRange R;
    R.Name = SaveName();
    R.Ts = Begin;
    R.End = End;
    R.Pid = Pid;
    R.Tid = Tid;
    R.ExternalId = F.ExternalId;
    R.IsOp = IsOp;
    R.IsAnnotation = !IsOp || isAnnotationOp(Name);
    (IsOp ? Stats.CpuOps : Stats.Annotations)++;
    if (IsOp && F.Dims) {
      R.Inputs = internInputs(*F.Dims, F.Types);
    } else if (IsOp && Plan.Inputs >= 0) {
      R.Inputs = Plan.Inputs;
    } else if (IsOp && !F.DimsText.empty()) {
      auto In = internRawInputs(F.DimsText, F.TypesText, Plan.InputsHash);
      if (!In)
        return Fail("malformed \"Input Dims\" of '" + Name +
                    "': " + toString(In.takeError()));
      R.Inputs = *In;
    }
    if (R.ExternalId >= 0 && IsOp)
      OpByExtId.add(R.ExternalId, int32_t(Ranges.size()));
    Ranges.push_back(R);
    break;
  }
  case EventPlan::GpuAnnotation:
    ++Stats.Annotations;
    GpuRanges.push_back(GpuRange{SaveName(), Begin, End, Pid, Tid});
    break;
  }
  return Error::success();
}

namespace {
/// A thread (pid, tid) or a stream (device, stream): a timeline.
using Timeline = std::pair<uint64_t, uint64_t>;

/// Items of one kind on their timelines: the timelines in order, where the
/// items of each start in Items (one more entry: the end), and the items.
template <typename Item> struct ByTimeline {
  std::vector<Timeline> Lines;
  std::vector<size_t> Start;
  std::vector<Item> Items;
};

/// The items Make(0..N-1) grouped by their timelines LineOf(0..N-1) (in
/// order) and sorted by \p Less within each. A trace lists each thread's or
/// stream's events mostly in time order, so the items are placed by
/// timeline and each timeline's items are sorted only when they are not in
/// order already: the same result as sorting them all by (timeline, Less),
/// in linear time for the usual trace.
template <typename Item, typename LineFn, typename MakeFn, typename LessFn>
ByTimeline<Item> sortedByTimeline(size_t N, LineFn LineOf, MakeFn Make,
                                  LessFn Less) {
  ByTimeline<Item> Out;
  // The timelines in order of first appearance, with their sizes.
  std::vector<Timeline> Lines;
  std::vector<size_t> Count;
  llvm::DenseMap<Timeline, uint32_t> LineIndex;
  Timeline Last(0, 0);
  uint32_t LastOrdinal = ~0u;
  auto OrdinalOf = [&](size_t I) {
    Timeline L = LineOf(I);
    if (LastOrdinal == ~0u || L != Last) {
      auto [At, New] = LineIndex.try_emplace(L, uint32_t(Lines.size()));
      if (New) {
        Lines.push_back(L);
        Count.push_back(0);
      }
      Last = L;
      LastOrdinal = At->second;
    }
    return LastOrdinal;
  };
  for (size_t I = 0; I < N; ++I)
    ++Count[OrdinalOf(I)];
  // The timelines in order and where the items of each start.
  std::vector<uint32_t> Order(Lines.size());
  for (uint32_t L = 0; L < Order.size(); ++L)
    Order[L] = L;
  llvm::sort(Order,
             [&](uint32_t A, uint32_t B) { return Lines[A] < Lines[B]; });
  std::vector<size_t> Next(Lines.size());
  Out.Start.resize(Lines.size() + 1);
  for (size_t K = 0, At = 0; K < Order.size(); ++K) {
    Out.Lines.push_back(Lines[Order[K]]);
    Next[Order[K]] = At;
    Out.Start[K] = At;
    At += Count[Order[K]];
  }
  Out.Start[Order.size()] = N;
  Out.Items.resize(N);
  for (size_t I = 0; I < N; ++I)
    Out.Items[Next[OrdinalOf(I)]++] = Make(I);
  for (size_t K = 0; K < Order.size(); ++K) {
    auto From = Out.Items.begin() + Out.Start[K],
         To = Out.Items.begin() + Out.Start[K + 1];
    if (!std::is_sorted(From, To, Less))
      llvm::sort(From, To, Less);
  }
  return Out;
}

/// Nesting sweep over one kind of timeline (threads or streams): ranges
/// and points, each sorted by (timeline, time) (ranges longest first at
/// equal starts), merged; OnRange(index, parent) and OnPoint(index,
/// innermost) receive the innermost range that encloses each item, or -1.
/// RangeLine / PointLine give an item's timeline, RangeTs / PointTs its time.
template <typename RangeLine, typename RangeTs, typename RangeEnd,
          typename PointLine, typename PointTs, typename RangeFn,
          typename PointFn>
void sweep(size_t NRanges, size_t NPoints, RangeLine RL, RangeTs RT,
           RangeEnd End, PointLine PL, PointTs PT, RangeFn OnRange,
           PointFn OnPoint) {
  // The times are copied next to the indices, so that the sorts compare
  // contiguous records.
  struct RangeItem {
    int64_t Ts, End;
    uint32_t Index;
  };
  struct PointItem {
    int64_t Ts;
    uint32_t Index;
  };
  ByTimeline<RangeItem> R = sortedByTimeline<RangeItem>(
      NRanges, RL,
      [&](size_t I) { return RangeItem{RT(I), End(I), uint32_t(I)}; },
      [&](const RangeItem &A, const RangeItem &B) {
        // Ends descending without negating them (INT64_MIN has no negation).
        return std::tie(A.Ts, B.End, A.Index) < std::tie(B.Ts, A.End, B.Index);
      });
  ByTimeline<PointItem> P = sortedByTimeline<PointItem>(
      NPoints, PL, [&](size_t I) { return PointItem{PT(I), uint32_t(I)}; },
      [&](const PointItem &A, const PointItem &B) {
        return std::tie(A.Ts, A.Index) < std::tie(B.Ts, B.Index);
      });
  std::vector<uint32_t> Stack;
  size_t LR = 0, LP = 0; // the next timeline of each
  while (LR < R.Lines.size() || LP < P.Lines.size()) {
    // The next timeline, and its ranges [I, IE) and points [J, JE).
    bool HasR = LR < R.Lines.size(), HasP = LP < P.Lines.size();
    Timeline Line = !HasP || (HasR && R.Lines[LR] < P.Lines[LP]) ? R.Lines[LR]
                                                                 : P.Lines[LP];
    size_t I = 0, IE = 0, J = 0, JE = 0;
    if (HasR && R.Lines[LR] == Line) {
      I = R.Start[LR];
      IE = R.Start[++LR];
    }
    if (HasP && P.Lines[LP] == Line) {
      J = P.Start[LP];
      JE = P.Start[++LP];
    }
    Stack.clear();
    while (I < IE || J < JE) {
      if (J == JE || (I < IE && R.Items[I].Ts <= P.Items[J].Ts)) {
        int64_t Ts = R.Items[I].Ts;
        while (!Stack.empty() && End(Stack.back()) <= Ts)
          Stack.pop_back();
        OnRange(R.Items[I].Index, Stack.empty() ? -1 : int32_t(Stack.back()));
        Stack.push_back(R.Items[I].Index);
        ++I;
      } else {
        int64_t Ts = P.Items[J].Ts;
        while (!Stack.empty() && End(Stack.back()) < Ts)
          Stack.pop_back();
        OnPoint(P.Items[J].Index, Stack.empty() ? -1 : int32_t(Stack.back()));
        ++J;
      }
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
        [&](size_t I) {
          return Timeline(GpuRanges[I].Device, GpuRanges[I].Stream);
        },
        [&](size_t I) { return GpuRanges[I].Ts; },
        [&](size_t I) { return GpuRanges[I].End; },
        [&](size_t I) {
          return Timeline(Kernels[I].Device, Kernels[I].Stream);
        },
        [&](size_t I) { return Kernels[I].Ts; },
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
      [&](size_t I) { return Timeline(Ranges[I].Pid, Ranges[I].Tid); },
      [&](size_t I) { return Ranges[I].Ts; },
      [&](size_t I) { return Ranges[I].End; },
      [&](size_t I) { return Timeline(Points[I]->Pid, Points[I]->Tid); },
      [&](size_t I) { return Points[I]->Ts; },
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
  forEachKernel(F, 0, Kernels.size());
}

void Trace::forEachKernel(function_ref<void(const KernelView &)> F, size_t From,
                          size_t To) const {
  KernelView V;
  for (size_t I = From; I < To; ++I) {
    const Kernel &K = Kernels[I];
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
  // The union of the intervals in (device, begin, end) order: the kernels
  // themselves when they are in that order already (the usual trace), else a
  // sorted copy.
  auto Union = [](auto &&Intervals) {
    int64_t Total = 0, CurEnd = INT64_MIN, CurBegin = 0;
    uint64_t Dev = ~0ull;
    for (auto [D, B, E] : Intervals) {
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
  };
  auto Interval = [](const Kernel &K) {
    return std::tuple<uint64_t, int64_t, int64_t>(K.Device, K.Ts, K.Ts + K.Dur);
  };
  if (std::is_sorted(Kernels.begin(), Kernels.end(),
                     [&](const Kernel &L, const Kernel &R) {
                       return Interval(L) < Interval(R);
                     }))
    return Union(llvm::map_range(Kernels, Interval));
  std::vector<std::tuple<uint64_t, int64_t, int64_t>> Iv;
  Iv.reserve(Kernels.size());
  for (const Kernel &K : Kernels)
    Iv.push_back(Interval(K));
  llvm::sort(Iv);
  return Union(Iv);
}

} // namespace trace
} // namespace atrex

namespace atrex {
namespace trace {
namespace {
/// An event the fast path parsed and planned, waiting to be added in file
/// order: what addPlanned uses of it, its strings as positions in the window
/// (which stays in place until the records are added).
struct FastRecord {
  uint64_t Pid, Tid;
  int64_t Id, Correlation, ExternalId;
  int64_t Begin, End; // ns
  uint32_t At;        // where the event starts in the window
  uint32_t NameAt, NameLen, DimsAt, DimsLen, TypesAt, TypesLen;
  uint32_t NameHash, InputsHash;
  /// Resolved on the parsing thread (EventPlan::SavedName, ::Inputs).
  const char *SavedName;
  int32_t Inputs;
  /// The strings of string pids / tids, in the order they appear.
  uint32_t StrAt[2], StrLen[2];
  EventPlan::Action A;
  int8_t PidSlot, TidSlot;
  uint8_t NumStrs;
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

/// A read-only copy of what a trace has interned (names, the shapes of raw
/// inputs), taken between windows, in which the threads that parse look up
/// an event's strings: the calling thread then adds a record without
/// touching its text again. Open addressing on the strings' hashes.
class InternedSnapshot {
  struct NameSlot {
    const char *Data = nullptr;
    uint32_t Size = 0, Hash = 0;
  };
  struct InputsSlot {
    RawInputsKey Key;
    int32_t Index = -1;
  };
  std::vector<NameSlot> Names;
  std::vector<InputsSlot> Inputs;
  size_t NumNames = ~size_t(0), NumInputs = ~size_t(0);

  template <typename Slot> static std::vector<Slot> table(size_t N) {
    return std::vector<Slot>(llvm::PowerOf2Ceil(std::max<size_t>(N * 2, 16)));
  }

public:
  /// Copies what \p Strings and \p RawInputs hold when it has grown.
  void update(const NameSaver &Strings,
              const llvm::DenseMap<RawInputsKey, int32_t, RawInputsKeyInfo>
                  &RawInputs) {
    if (Strings.size() != NumNames) {
      NumNames = Strings.size();
      Names = table<NameSlot>(NumNames);
      size_t Mask = Names.size() - 1;
      for (const CachedHashStringRef &S : Strings) {
        size_t I = S.hash() & Mask;
        while (Names[I].Data)
          I = (I + 1) & Mask;
        Names[I] = NameSlot{S.val().data(), uint32_t(S.size()), S.hash()};
      }
    }
    if (RawInputs.size() != NumInputs) {
      NumInputs = RawInputs.size();
      Inputs = table<InputsSlot>(NumInputs);
      size_t Mask = Inputs.size() - 1;
      for (const auto &[Key, Index] : RawInputs) {
        size_t I = Key.Hash & Mask;
        while (Inputs[I].Index >= 0)
          I = (I + 1) & Mask;
        Inputs[I] = InputsSlot{Key, Index};
      }
    }
  }
  /// The saved copy of \p S (with hash \p Hash), or null.
  const char *name(StringRef S, uint32_t Hash) const {
    size_t Mask = Names.size() - 1;
    for (size_t I = Hash & Mask; Names[I].Data; I = (I + 1) & Mask)
      if (Names[I].Hash == Hash && Names[I].Size == S.size() &&
          std::memcmp(Names[I].Data, S.data(), S.size()) == 0)
        return Names[I].Data;
    return nullptr;
  }
  /// The index of the shapes with this dims and types text, or -1.
  int32_t inputs(StringRef Dims, StringRef Types, uint32_t Hash) const {
    size_t Mask = Inputs.size() - 1;
    for (size_t I = Hash & Mask; Inputs[I].Index >= 0; I = (I + 1) & Mask)
      if (Inputs[I].Key.Hash == Hash && Inputs[I].Key.Dims == Dims &&
          Inputs[I].Key.Types == Types)
        return Inputs[I].Index;
    return -1;
  }
};

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
  InternedSnapshot Interned;

  void parsePart(FastPart &P, StringRef Text, uint64_t Offset);
  /// Claims and parses parts until none is left.
  void work(StringRef Text, uint64_t Offset, bool Once);
  Error merge(FastPart &P, StringRef Text, uint64_t Offset);
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
    EventFields F;
    StringRef Strs[2];
    unsigned NumStrs = 0;
    bool Overflow = false;
    auto Intern = [&](StringRef S) -> uint64_t {
      if (NumStrs == 2)
        Overflow = true;
      else
        Strs[NumStrs++] = S;
      return 0;
    };
    FastEvent FE(Base + P, End);
    if (!FE.parsePrefix(F, Intern) || Overflow) {
      if (FE.atEnd())
        Part.Stop = FastPart::Incomplete;
      return;
    }
    EventPlan Plan = planEvent(F);
    // An event that is an error is left to the one-event path, which words
    // the error.
    if (Plan.A >= EventPlan::FlowWithoutTsOrId)
      return;
    auto Pos = [&](StringRef S) { return uint32_t(S.data() - Base); };
    FastRecord &R = Part.Recs.emplace_back();
    R.Pid = F.Pid;
    R.Tid = F.Tid;
    R.Id = F.Id;
    R.Correlation = F.Correlation;
    R.ExternalId = F.ExternalId;
    R.Begin = Plan.Begin;
    R.End = Plan.End;
    R.At = uint32_t(P);
    R.NameAt = Pos(F.Name);
    R.NameLen = uint32_t(F.Name.size());
    R.DimsAt = F.DimsText.empty() ? 0 : Pos(F.DimsText);
    R.DimsLen = uint32_t(F.DimsText.size());
    R.TypesAt = F.TypesText.empty() ? 0 : Pos(F.TypesText);
    R.TypesLen = uint32_t(F.TypesText.size());
    R.NameHash = Plan.NameHash;
    R.InputsHash = Plan.InputsHash;
    bool Named = Plan.A == EventPlan::Kernel || Plan.A == EventPlan::CpuOp ||
                 Plan.A == EventPlan::Annotation ||
                 Plan.A == EventPlan::GpuAnnotation;
    R.SavedName = Named ? Interned.name(F.Name, Plan.NameHash) : nullptr;
    R.Inputs = Plan.A == EventPlan::CpuOp && !F.DimsText.empty()
                   ? Interned.inputs(F.DimsText, F.TypesText, Plan.InputsHash)
                   : -1;
    for (unsigned I = 0; I < NumStrs; ++I) {
      R.StrAt[I] = Pos(Strs[I]);
      R.StrLen[I] = uint32_t(Strs[I].size());
    }
    R.A = Plan.A;
    R.PidSlot = F.PidSlot;
    R.TidSlot = F.TidSlot;
    R.NumStrs = uint8_t(NumStrs);
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

Error FastBlockReader::merge(FastPart &Part, StringRef Text, uint64_t Offset) {
  const char *Base = Text.data();
  auto Str = [&](uint32_t At, uint32_t Len) {
    return Len ? StringRef(Base + At, Len) : StringRef();
  };
  for (const FastRecord &R : Part.Recs) {
    ++T.Stats.Events;
    EventFields F;
    F.Name = Str(R.NameAt, R.NameLen);
    F.Pid = R.Pid;
    F.Tid = R.Tid;
    F.Id = R.Id;
    F.Correlation = R.Correlation;
    F.ExternalId = R.ExternalId;
    F.DimsText = Str(R.DimsAt, R.DimsLen);
    F.TypesText = Str(R.TypesAt, R.TypesLen);
    // Strings get their ids in the order the one-event path gives them.
    uint64_t Ids[2] = {0, 0};
    for (unsigned I = 0; I < R.NumStrs; ++I) {
      auto It =
          T.StringIds.try_emplace(Str(R.StrAt[I], R.StrLen[I]),
                                  (uint64_t(1) << 62) + T.StringIds.size());
      Ids[I] = It.first->second;
    }
    if (R.PidSlot >= 0)
      F.Pid = Ids[R.PidSlot];
    if (R.TidSlot >= 0)
      F.Tid = Ids[R.TidSlot];
    EventPlan Plan;
    Plan.A = R.A;
    Plan.Begin = R.Begin;
    Plan.End = R.End;
    Plan.NameHash = R.NameHash;
    Plan.InputsHash = R.InputsHash;
    Plan.SavedName = R.SavedName;
    Plan.Inputs = R.Inputs;
    if (Error E = T.addPlanned(F, Plan, Offset + R.At))
      return E;
  }
  return Error::success();
}

Expected<BlockResult> FastBlockReader::run(StringRef Text, uint64_t Offset) {
  // Records keep positions in the window in 32 bits.
  Text = Text.take_front(std::min<size_t>(Text.size(), UINT32_MAX));
  // No part is being parsed: what the trace has interned can be copied.
  Interned.update(T.Strings, T.RawInputIndex);
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
    if (Error E = merge(P, Text, Offset)) {
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

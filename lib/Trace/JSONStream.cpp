//===- JSONStream.cpp - streaming reader of a chrome-trace JSON file ------===//
//
// A small pull scanner over fixed-size chunks: it validates the structure of
// the document (objects, arrays, strings with escapes, scalar tokens) and
// captures only the elements of the top-level "traceEvents" array. Scalar
// tokens are checked for their character class here; their exact syntax is
// checked when the captured event is parsed by llvm::json.
//
// With a block callback (the Kineto reader's fast path), the buffer is a
// window of several chunks: at the start of an event the window is topped up
// and handed to the callback, which consumes a run of whole events in place;
// an event it leaves is captured and handed to the event callback as before.
// The source is always read in requests of one chunk, whatever the window,
// so that a read error (a corrupt gzip member) surfaces at the same byte and
// only when the scanner reaches it, exactly as without the callback.
//
//===----------------------------------------------------------------------===//

#include "atrex/Trace/JSONStream.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#if ATREX_HAVE_ZLIB
#include <zlib.h>
#endif

using namespace llvm;

namespace atrex {
namespace trace {

namespace {

/// Where the bytes come from: a file read in chunks or a memory buffer.
class Source {
public:
  virtual ~Source() = default;
  /// Fills \p Buf with up to \p Max bytes; returns the count, 0 at the end.
  virtual Expected<size_t> read(char *Buf, size_t Max) = 0;
};

class FileSource : public Source {
  sys::fs::file_t FD;

public:
  explicit FileSource(sys::fs::file_t FD) : FD(FD) {}
  ~FileSource() override { sys::fs::closeFile(FD); }
  Expected<size_t> read(char *Buf, size_t Max) override {
    return sys::fs::readNativeFile(FD, MutableArrayRef<char>(Buf, Max));
  }
};

#if ATREX_HAVE_ZLIB
/// A gzip file (Kineto and torch.profiler write `.json.gz`), inflated as it
/// is read: memory stays one input chunk plus zlib's window. Concatenated
/// gzip members are read one after another, as gzip(1) does.
class GzipSource : public Source {
  sys::fs::file_t FD;
  std::string Path;
  z_stream Z{};
  std::vector<char> In = std::vector<char>(1 << 20);
  bool InputEof = false, MemberDone = false, Ok = false;
  uint64_t CompressedRead = 0;

public:
  GzipSource(sys::fs::file_t FD, StringRef Path) : FD(FD), Path(Path.str()) {
    Ok = inflateInit2(&Z, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipSource() override {
    if (Ok)
      inflateEnd(&Z);
    sys::fs::closeFile(FD);
  }
  Expected<size_t> read(char *Buf, size_t Max) override {
    if (!Ok)
      return createStringError(inconvertibleErrorCode(),
                               "zlib: cannot initialise the inflater");
    Z.next_out = reinterpret_cast<Bytef *>(Buf);
    Z.avail_out = static_cast<uInt>(std::min<size_t>(Max, 1u << 30));
    while (Z.avail_out > 0) {
      if (Z.avail_in == 0 && !InputEof) {
        auto N = sys::fs::readNativeFile(FD, MutableArrayRef<char>(In));
        if (!N)
          return N.takeError();
        if (*N == 0)
          InputEof = true;
        CompressedRead += *N;
        Z.next_in = reinterpret_cast<Bytef *>(In.data());
        Z.avail_in = static_cast<uInt>(*N);
      }
      if (MemberDone) {
        if (Z.avail_in == 0 && InputEof)
          break; // the end of the last member
        if (inflateReset(&Z) != Z_OK)
          return createStringError(inconvertibleErrorCode(),
                                   "zlib: inflateReset failed");
        MemberDone = false;
      }
      if (Z.avail_in == 0 && InputEof && Z.avail_out < Max)
        break; // hand over what was inflated; the error comes with the next
               // read
      if (Z.avail_in == 0 && InputEof)
        return createStringError(
            inconvertibleErrorCode(),
            "gzip stream ends early (after " + std::to_string(CompressedRead) +
                " compressed bytes): truncated '" + Path + "'?");
      int RC = inflate(&Z, Z_NO_FLUSH);
      if (RC == Z_STREAM_END)
        MemberDone = true;
      else if (RC != Z_OK && RC != Z_BUF_ERROR)
        return createStringError(
            inconvertibleErrorCode(),
            std::string("corrupt gzip data in '") + Path +
                "': " + (Z.msg ? Z.msg : "zlib error " + std::to_string(RC)));
    }
    return Max - Z.avail_out;
  }
};
#endif

class BufferSource : public Source {
  StringRef Rest;

public:
  explicit BufferSource(StringRef B) : Rest(B) {}
  Expected<size_t> read(char *Buf, size_t Max) override {
    size_t N = std::min(Max, Rest.size());
    std::memcpy(Buf, Rest.data(), N);
    Rest = Rest.drop_front(N);
    return N;
  }
};

class Scanner {
public:
  Scanner(StringRef Name, Source &Src, size_t ChunkSize,
          BlockCallback Block = nullptr, size_t WindowSize = 0)
      : Name(Name.str()), Src(Src), Chunk(std::max<size_t>(ChunkSize, 16)),
        Buf(Block ? std::max<size_t>(WindowSize / Chunk, 2) * Chunk : Chunk),
        Block(Block) {}
  ~Scanner() {
    if (Pending)
      consumeError(std::move(*Pending));
  }

  Error run(EventCallback Callback);
  uint64_t consumed() const { return Base + Pos; }

private:
  std::string Name;
  Source &Src;
  size_t Chunk; // the size of every read request
  std::vector<char> Buf;
  BlockCallback Block;
  size_t Len = 0, Pos = 0;
  uint64_t Base = 0; // file offset of Buf[0]
  bool Eof = false;
  // A read error met while topping up the window, reported when the scanner
  // reaches the bytes it would have read (as fill() would have).
  std::optional<Error> Pending;
  // Capture of the current event: text before Buf[CaptureFrom] is in
  // Captured already.
  bool Capturing = false;
  size_t CaptureFrom = 0;
  std::string Captured;
  uint64_t EventStart = 0;

  uint64_t offset() const { return Base + Pos; }

  Error error(uint64_t Off, const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": byte " + Twine(Off) + ": " + Msg);
  }
  Error truncated(const Twine &Where) {
    std::string In;
    if (Capturing)
      In = " in the event starting at byte " + std::to_string(EventStart);
    return error(offset(), "unexpected end of file " + Where + In +
                               " (truncated trace?)");
  }

  /// Makes Buf[Pos] valid; false at the end of the input.
  Expected<bool> fill() {
    if (Pos < Len)
      return true;
    if (Eof)
      return false;
    if (Capturing) {
      Captured.append(Buf.data() + CaptureFrom, Len - CaptureFrom);
      CaptureFrom = 0;
    }
    Base += Len;
    Pos = Len = 0;
    if (Pending) {
      Error E = std::move(*Pending);
      Pending.reset();
      return error(Base, "read error: " + toString(std::move(E)));
    }
    auto N = Src.read(Buf.data(), Chunk);
    if (!N)
      return error(Base, "read error: " + toString(N.takeError()));
    if (*N == 0) {
      Eof = true;
      return false;
    }
    Len = *N;
    return true;
  }

  /// Skips white space; returns the next character without consuming it, or
  /// -1 at the end of the input.
  Expected<int> peek() {
    for (;;) {
      auto More = fill();
      if (!More)
        return More.takeError();
      if (!*More)
        return -1;
      while (Pos < Len) {
        char C = Buf[Pos];
        if (C != ' ' && C != '\n' && C != '\r' && C != '\t')
          return static_cast<unsigned char>(C);
        ++Pos;
      }
    }
  }

  /// Moves the unread bytes to the front of the window and reads chunks
  /// after them while whole chunks fit (only between events).
  void topUp() {
    if (Pos > 0) {
      std::memmove(Buf.data(), Buf.data() + Pos, Len - Pos);
      Base += Pos;
      Len -= Pos;
      Pos = 0;
    }
    while (!Eof && !Pending && Buf.size() - Len >= Chunk) {
      auto N = Src.read(Buf.data() + Len, Chunk);
      if (!N) {
        Pending = N.takeError();
        break;
      }
      if (*N == 0)
        Eof = true;
      Len += *N;
    }
  }
  bool canGrow() const {
    return Pos > 0 || (!Eof && !Pending && Buf.size() - Len >= Chunk);
  }
  /// Offers the window to the block callback at the start of an event;
  /// true when it consumed events (Pos is then right after the last one).
  Expected<bool> runBlock() {
    if (canGrow() && Len - Pos < Buf.size() / 2)
      topUp();
    for (bool Retried = false;; Retried = true) {
      auto R = Block(StringRef(Buf.data() + Pos, Len - Pos), offset());
      if (!R)
        return R.takeError();
      if (R->Consumed > 0) {
        Pos += std::min(R->Consumed, Len - Pos);
        return true;
      }
      if (!R->Incomplete || Retried || !canGrow())
        return false;
      topUp();
    }
  }

  Error expect(char C, const Twine &Where) {
    auto Next = peek();
    if (!Next)
      return Next.takeError();
    if (*Next < 0)
      return truncated(Where);
    if (*Next != C)
      return error(offset(), "expected '" + Twine(C) + "' " + Where +
                                 ", found '" + Twine(char(*Next)) + "'");
    ++Pos;
    return Error::success();
  }

  Error scanString(std::string *Out);
  Error scanScalar();
  Error scanValue(unsigned Depth);
};

Error Scanner::scanString(std::string *Out) {
  uint64_t Start = offset();
  ++Pos; // the opening quote
  for (;;) {
    auto More = fill();
    if (!More)
      return More.takeError();
    if (!*More)
      return error(offset(), "unexpected end of file in the string starting "
                             "at byte " +
                                 Twine(Start) + " (truncated trace?)");
    size_t I = Pos;
    while (I < Len && Buf[I] != '"' && Buf[I] != '\\' &&
           static_cast<unsigned char>(Buf[I]) >= 0x20)
      ++I;
    if (Out)
      Out->append(Buf.data() + Pos, I - Pos);
    Pos = I;
    if (Pos == Len)
      continue;
    char C = Buf[Pos];
    if (C == '"') {
      ++Pos;
      return Error::success();
    }
    if (C != '\\')
      return error(offset(), "control character in a string");
    ++Pos;
    auto Esc = fill();
    if (!Esc)
      return Esc.takeError();
    if (!*Esc)
      return truncated("in a string escape");
    char E = Buf[Pos++];
    if (!StringRef("\"\\/bfnrtu").contains(E))
      return error(offset() - 2, "invalid escape '\\" + Twine(E) + "'");
    if (Out)
      Out->push_back(E == 'n' ? '\n' : E == 't' ? '\t' : E);
  }
}

Error Scanner::scanScalar() {
  uint64_t Start = offset();
  size_t N = 0;
  for (;;) {
    auto More = fill();
    if (!More)
      return More.takeError();
    if (!*More)
      break;
    char C = Buf[Pos];
    if (!(isAlnum(C) || C == '-' || C == '+' || C == '.'))
      break;
    ++Pos;
    ++N;
  }
  if (N == 0)
    return error(Start, "expected a JSON value");
  return Error::success();
}

Error Scanner::scanValue(unsigned Depth) {
  if (Depth > 256)
    return error(offset(), "nesting deeper than 256 levels");
  auto Next = peek();
  if (!Next)
    return Next.takeError();
  if (*Next < 0)
    return truncated("where a value was expected");
  if (*Next == '"')
    return scanString(nullptr);
  if (*Next == '{' || *Next == '[') {
    char Close = *Next == '{' ? '}' : ']';
    bool IsObject = *Next == '{';
    uint64_t Open = offset();
    ++Pos;
    auto First = peek();
    if (!First)
      return First.takeError();
    if (*First == Close) {
      ++Pos;
      return Error::success();
    }
    for (;;) {
      if (IsObject) {
        auto K = peek();
        if (!K)
          return K.takeError();
        if (*K < 0)
          return truncated("in the object starting at byte " + Twine(Open));
        if (*K != '"')
          return error(offset(), "expected a string key");
        if (Error E = scanString(nullptr))
          return E;
        if (Error E = expect(':', "after an object key"))
          return E;
      }
      if (Error E = scanValue(Depth + 1))
        return E;
      auto Sep = peek();
      if (!Sep)
        return Sep.takeError();
      if (*Sep < 0)
        return truncated(Twine("in the ") + (IsObject ? "object" : "array") +
                         " starting at byte " + Twine(Open));
      ++Pos;
      if (*Sep == Close)
        return Error::success();
      if (*Sep != ',')
        return error(offset() - 1, "expected ',' or '" + Twine(Close) +
                                       "', found '" + Twine(char(*Sep)) + "'");
    }
  }
  return scanScalar();
}

Error Scanner::run(EventCallback Callback) {
  if (Error E = expect('{', "at the start of the trace"))
    return E;
  bool SawEvents = false;
  auto First = peek();
  if (!First)
    return First.takeError();
  bool Empty = *First == '}';
  if (Empty)
    ++Pos;
  while (!Empty) {
    auto K = peek();
    if (!K)
      return K.takeError();
    if (*K < 0)
      return truncated("in the top-level object");
    if (*K != '"')
      return error(offset(), "expected a string key in the top-level object");
    std::string Key;
    if (Error E = scanString(&Key))
      return E;
    if (Error E = expect(':', "after a top-level key"))
      return E;
    if (Key != "traceEvents") {
      if (Error E = scanValue(1))
        return E;
    } else {
      SawEvents = true;
      if (Error E = expect('[', "to open \"traceEvents\""))
        return E;
      auto N = peek();
      if (!N)
        return N.takeError();
      bool Done = *N == ']';
      if (Done)
        ++Pos;
      while (!Done) {
        auto V = peek();
        if (!V)
          return V.takeError();
        if (*V < 0)
          return truncated("in \"traceEvents\"");
        bool Handled = false;
        if (Block && *V == '{') {
          auto Done = runBlock();
          if (!Done)
            return Done.takeError();
          Handled = *Done;
        }
        if (!Handled) {
          uint64_t Start = offset();
          Capturing = true;
          EventStart = Start;
          CaptureFrom = Pos;
          Captured.clear();
          if (Error E = scanValue(2))
            return E;
          Captured.append(Buf.data() + CaptureFrom, Pos - CaptureFrom);
          Capturing = false;
          if (Error E = Callback(Captured, Start))
            return E;
        }
        auto Sep = peek();
        if (!Sep)
          return Sep.takeError();
        if (*Sep < 0)
          return truncated("in \"traceEvents\"");
        ++Pos;
        if (*Sep == ']')
          Done = true;
        else if (*Sep != ',')
          return error(offset() - 1, "expected ',' or ']' after an event, "
                                     "found '" +
                                         Twine(char(*Sep)) + "'");
      }
    }
    auto Sep = peek();
    if (!Sep)
      return Sep.takeError();
    if (*Sep < 0)
      return truncated("in the top-level object");
    ++Pos;
    if (*Sep == '}')
      break;
    if (*Sep != ',')
      return error(offset() - 1, "expected ',' or '}' in the top-level object");
  }
  auto Rest = peek();
  if (!Rest)
    return Rest.takeError();
  if (*Rest >= 0)
    return error(offset(), "unexpected data after the top-level object");
  if (!SawEvents)
    return error(offset(), "no \"traceEvents\" array in the trace");
  return Error::success();
}

} // namespace

bool gzipSupported() {
#if ATREX_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

Error streamTraceEvents(StringRef Path, EventCallback Callback,
                        uint64_t *BytesRead, size_t ChunkSize) {
  return streamTraceEvents(Path, Callback, nullptr, BytesRead, ChunkSize, 0);
}

Error streamTraceEvents(StringRef Path, EventCallback Callback,
                        BlockCallback Block, uint64_t *BytesRead,
                        size_t ChunkSize, size_t WindowSize) {
  auto FD = sys::fs::openNativeFileForRead(Path);
  if (!FD)
    return createStringError(inconvertibleErrorCode(),
                             "cannot open trace '" + Path +
                                 "': " + toString(FD.takeError()));
  // gzip (magic 1f 8b): inflated on the fly; byte offsets in messages are
  // then offsets into the decompressed text.
  unsigned char Magic[2] = {0, 0};
  auto M = sys::fs::readNativeFileSlice(
      *FD, MutableArrayRef<char>(reinterpret_cast<char *>(Magic), 2), 0);
  bool Gzip = M && *M == 2 && Magic[0] == 0x1f && Magic[1] == 0x8b;
  if (!M)
    consumeError(M.takeError());
  std::unique_ptr<Source> Src;
  std::string Name = Path.str();
  if (Gzip) {
#if ATREX_HAVE_ZLIB
    Src = std::make_unique<GzipSource>(*FD, Path);
    Name += " (decompressed)";
#else
    sys::fs::closeFile(*FD);
    return createStringError(inconvertibleErrorCode(),
                             "'" + Path +
                                 "' is gzip-compressed and this atrex-trace "
                                 "was built without zlib: decompress it first");
#endif
  } else {
    Src = std::make_unique<FileSource>(*FD);
  }
  Scanner S(Name, *Src, ChunkSize, Block, WindowSize);
  Error E = S.run(Callback);
  if (BytesRead)
    *BytesRead = S.consumed();
  return E;
}

Error streamTraceEventsFromBuffer(StringRef Name, StringRef Buffer,
                                  EventCallback Callback, size_t ChunkSize) {
  return streamTraceEventsFromBuffer(Name, Buffer, Callback, nullptr, ChunkSize,
                                     0);
}

Error streamTraceEventsFromBuffer(StringRef Name, StringRef Buffer,
                                  EventCallback Callback, BlockCallback Block,
                                  size_t ChunkSize, size_t WindowSize) {
  BufferSource Src(Buffer);
  Scanner S(Name, Src, ChunkSize, Block, WindowSize);
  return S.run(Callback);
}

} // namespace trace
} // namespace atrex

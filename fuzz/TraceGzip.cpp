//===- TraceGzip.cpp - fuzz the gzip-compressed Kineto reader -------------===//
//
// Part of atrex. The first byte picks how the rest becomes a `.json.gz`
// file: bit 0 writes the bytes as they are (corrupt streams); otherwise
// they are compressed with zlib, as one member or (bit 1) two concatenated
// members, and (bit 2) truncated by up to 31 bytes (bits 3-7). The file is
// then streamed with small chunks and loaded as atrex-trace does.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Trace/JSONStream.h"
#include "atrex/Trace/Kineto.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <zlib.h>

using namespace atrex::trace;

/// One gzip member of \p In.
static std::string gzipMember(std::string_view In) {
  z_stream Z{};
  if (deflateInit2(&Z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    __builtin_trap();
  std::string Out(deflateBound(&Z, In.size()) + 32, '\0');
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In.data()));
  Z.avail_in = In.size();
  Z.next_out = reinterpret_cast<Bytef *>(Out.data());
  Z.avail_out = Out.size();
  if (deflate(&Z, Z_FINISH) != Z_STREAM_END)
    __builtin_trap();
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  return Out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  uint8_t Mode = Data[0];
  std::string_view Payload(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  std::string File;
  if (Mode & 1) {
    File = std::string(Payload);
  } else if (Mode & 2) {
    size_t Half = Payload.size() / 2;
    File =
        gzipMember(Payload.substr(0, Half)) + gzipMember(Payload.substr(Half));
  } else {
    File = gzipMember(Payload);
  }
  if (Mode & 4)
    File.resize(File.size() - std::min<size_t>(File.size(), Mode >> 3));
  std::string Path = atrex::fuzz::writeScratch("trace.json.gz", File);

  llvm::Error E = streamTraceEvents(
      Path,
      [](llvm::StringRef Text, uint64_t) -> llvm::Error {
        if (Text.empty())
          __builtin_trap();
        return llvm::Error::success();
      },
      nullptr, 16);
  llvm::consumeError(std::move(E));

  auto T = Trace::load(Path);
  if (!T) {
    llvm::consumeError(T.takeError());
    return 0;
  }
  (*T)->forEachKernel([](const KernelView &) {});
  (void)(*T)->busyTime();
  return 0;
}

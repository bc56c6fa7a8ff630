//===- TraceKineto.cpp - fuzz the Kineto JSON stream reader ---------------===//
//
// Part of atrex. The input is a Kineto trace (plain JSON). It is streamed
// once event by event with a small chunk size (events split across chunk
// boundaries) and then loaded and indexed as atrex-trace does.
//
//===----------------------------------------------------------------------===//

#include "atrex/Trace/JSONStream.h"
#include "atrex/Trace/Kineto.h"
#include "llvm/Support/Error.h"

#include <cstdint>

using namespace atrex::trace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  size_t Chunk = 1 + Data[0] % 64;
  llvm::StringRef Buffer(reinterpret_cast<const char *>(Data) + 1, Size - 1);

  uint64_t Events = 0;
  llvm::Error E = streamTraceEventsFromBuffer(
      "fuzz.json", Buffer,
      [&](llvm::StringRef Text, uint64_t Offset) -> llvm::Error {
        // An event is the document's bytes at its offset, whatever the
        // chunk boundaries.
        if (Text.empty() || Offset > Buffer.size() ||
            Buffer.substr(Offset, Text.size()) != Text)
          __builtin_trap();
        ++Events;
        return llvm::Error::success();
      },
      Chunk);
  llvm::consumeError(std::move(E));

  auto T = Trace::loadFromBuffer("fuzz.json", Buffer);
  if (!T) {
    llvm::consumeError(T.takeError());
    return 0;
  }
  uint64_t Stacks = 0;
  (*T)->forEachKernel([&](const KernelView &K) {
    Stacks += K.Stack.size() + K.Annotations.size();
    for (const CpuRange *R : K.Stack)
      if (R->Inputs >= 0)
        Stacks += (*T)->inputs(R->Inputs).Dims.size();
  });
  (void)(*T)->busyTime();
  return 0;
}

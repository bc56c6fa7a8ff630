//===- JSONStream.h - streaming chrome-trace JSON reader --------*- C++ -*-===//
//
// Part of atrex. Reads a chrome-trace JSON document ({"traceEvents": [...],
// ...}) in fixed-size chunks and hands each element of the top-level
// "traceEvents" array to a callback as raw text, with its byte offset. Every
// other top-level value is skipped without being kept. Memory is bounded by
// the chunk size plus the largest single event. An optional block callback
// handles runs of whole events directly in the reader's buffer (the fast
// path of the Kineto reader, parallel over parts of the buffer).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TRACE_JSONSTREAM_H
#define ATREX_TRACE_JSONSTREAM_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace atrex {
namespace trace {

/// Called for each element of "traceEvents": its JSON text and the byte
/// offset of its first character in the file.
using EventCallback =
    llvm::function_ref<llvm::Error(llvm::StringRef Text, uint64_t Offset)>;

/// Whether this build reads gzip-compressed traces (zlib found).
bool gzipSupported();

/// What a BlockCallback did with a block of "traceEvents" text.
struct BlockResult {
  /// Bytes consumed from the start of the block: whole elements and the
  /// separators between them, ending right after an element; 0 when the
  /// element at the start is left to the EventCallback.
  size_t Consumed = 0;
  /// The block ended inside the element after the consumed ones: it may be
  /// handled when more of the file is in the block.
  bool Incomplete = false;
};

/// An optional fast path over many elements at once. \p Text starts with an
/// element of "traceEvents" (at byte \p Offset of the file) and holds as much
/// of the file as the reader's buffer does (it may end within an element).
/// Elements the callback does not consume are captured one at a time and
/// handed to the EventCallback, so the callback only needs to handle the
/// usual shape of an element: the reader still checks the structure of the
/// document, and words every error, in exactly the same way. A callback must
/// only consume elements that the reader would accept as they are.
using BlockCallback = llvm::function_ref<llvm::Expected<BlockResult>(
    llvm::StringRef Text, uint64_t Offset)>;

/// Streams the events of the chrome-trace JSON file at \p Path. Errors name
/// the file and the byte offset (malformed or truncated input, a missing
/// "traceEvents" array, I/O failures). \p BytesRead, when given, receives
/// the number of bytes consumed. A gzip file (magic 1f 8b) is inflated while
/// it streams; offsets and \p BytesRead then count decompressed bytes.
llvm::Error streamTraceEvents(llvm::StringRef Path, EventCallback Callback,
                              uint64_t *BytesRead = nullptr,
                              size_t ChunkSize = 1 << 20);

/// The same with a fast path (BlockCallback) for runs of elements: the
/// reader's buffer is then a window of \p WindowSize bytes (whole chunks, at
/// least two) that it tops up between events.
llvm::Error streamTraceEvents(llvm::StringRef Path, EventCallback Callback,
                              BlockCallback Block, uint64_t *BytesRead,
                              size_t ChunkSize, size_t WindowSize);

/// The same over an in-memory document; \p Name is used in errors.
llvm::Error streamTraceEventsFromBuffer(llvm::StringRef Name,
                                        llvm::StringRef Buffer,
                                        EventCallback Callback,
                                        size_t ChunkSize = 1 << 20);
llvm::Error streamTraceEventsFromBuffer(llvm::StringRef Name,
                                        llvm::StringRef Buffer,
                                        EventCallback Callback,
                                        BlockCallback Block, size_t ChunkSize,
                                        size_t WindowSize);

} // namespace trace
} // namespace atrex

#endif // ATREX_TRACE_JSONSTREAM_H

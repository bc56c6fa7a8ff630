//===- JSONStream.h - streaming chrome-trace JSON reader --------*- C++ -*-===//
//
// Part of atrex. Reads a chrome-trace JSON document ({"traceEvents": [...],
// ...}) in fixed-size chunks and hands each element of the top-level
// "traceEvents" array to a callback as raw text, with its byte offset. Every
// other top-level value is skipped without being kept. Memory is bounded by
// the chunk size plus the largest single event.
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

/// Streams the events of the chrome-trace JSON file at \p Path. Errors name
/// the file and the byte offset (malformed or truncated input, a missing
/// "traceEvents" array, I/O failures). \p BytesRead, when given, receives
/// the number of bytes consumed. A gzip file (magic 1f 8b) is inflated while
/// it streams; offsets and \p BytesRead then count decompressed bytes.
/// Whether this build reads gzip-compressed traces (zlib found).
bool gzipSupported();

llvm::Error streamTraceEvents(llvm::StringRef Path, EventCallback Callback,
                              uint64_t *BytesRead = nullptr,
                              size_t ChunkSize = 1 << 20);

/// The same over an in-memory document; \p Name is used in errors.
llvm::Error streamTraceEventsFromBuffer(llvm::StringRef Name,
                                        llvm::StringRef Buffer,
                                        EventCallback Callback,
                                        size_t ChunkSize = 1 << 20);

} // namespace trace
} // namespace atrex

#endif // ATREX_TRACE_JSONSTREAM_H

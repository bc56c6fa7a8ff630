//===- Trail.h - the audit trail (atrex-agent-trail/1) ----------*- C++ -*-===//
//
// Part of atrex. One JSON object per line: start, retrieval, candidate,
// evaluation, accept, reject, dropout, end (schema in docs/agent.md). Written
// as the loop goes (each line flushed), read back by --resume and by `atrex
// agent report`.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_TRAIL_H
#define ATREX_AGENT_TRAIL_H

#include "atrex/Agent/Loop.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace atrex::agent {

inline constexpr const char *TrailSchema = "atrex-agent-trail/1";

struct TrailRecord {
  unsigned Line = 0;
  std::string Event;
  llvm::json::Object Data;
};

/// Reads a trail; a line that is not a record of this schema is an error
/// naming the file and the line.
llvm::Expected<std::vector<TrailRecord>> readTrail(llvm::StringRef Path);

/// What --resume restores from a trail.
struct Restored {
  Problem Prob;
  std::string Command; ///< the last start record's
  std::string KbIndex; ///< the last start record's options.kb_index
  LoopState State;
};
/// Replays \p Records (the best, the history, the counters, dropouts).
/// Errors name \p Path and the line.
llvm::Expected<Restored> replayTrail(llvm::StringRef Path,
                                     llvm::ArrayRef<TrailRecord> Records,
                                     llvm::StringRef RunDir);

/// Appends records to the trail, one flushed line each.
class TrailWriter {
public:
  static llvm::Expected<TrailWriter> open(llvm::StringRef Path);
  llvm::Error write(llvm::StringRef Event, llvm::json::Object Data);
  TrailWriter(TrailWriter &&) = default;

private:
  TrailWriter(std::string Path, std::unique_ptr<llvm::raw_fd_ostream> OS)
      : Path(std::move(Path)), OS(std::move(OS)) {}
  std::string Path;
  std::unique_ptr<llvm::raw_fd_ostream> OS;
};

/// The trajectory of a trail: "text", "md" or "html" (a page with the plot
/// of S_i over the iterations, dropouts marked).
llvm::Error writeReport(llvm::StringRef Path,
                        llvm::ArrayRef<TrailRecord> Records,
                        llvm::StringRef Format, llvm::raw_ostream &OS);

} // namespace atrex::agent

#endif // ATREX_AGENT_TRAIL_H

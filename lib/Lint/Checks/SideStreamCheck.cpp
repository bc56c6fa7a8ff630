//===- SideStreamCheck.cpp - atrex-evasion-side-stream --------------------===//
//
// Streams created (or taken from a pool) by reachable code that nothing
// reachable joins back: work queued there escapes timers that only watch the
// caller's stream. Streams are followed by the variable that holds them:
// a stream is joined by synchronising that variable's stream, by recording
// an event on it that another stream waits for (or the host synchronises),
// or by a device-wide synchronisation. Direction matters: a side stream made
// to wait on an event of the caller's stream has not been joined, and
// destroying a stream does not wait for its work. When the stream's variable
// is unknown, any join counts.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"
#include <set>

using namespace llvm;
using namespace atrex::lint;

namespace {
bool isDeviceJoin(StringRef N) {
  return N.contains("DeviceSynchronize") || N == "cuCtxSynchronize" ||
         N.ends_with("device_synchronize");
}
bool isEventRecord(StringRef N) {
  return N.starts_with("cudaEventRecord") || N.starts_with("hipEventRecord") ||
         N.starts_with("cuEventRecord") || N.ends_with("CUDAEvent::record");
}
bool isEventWait(StringRef N) {
  return N.ends_with("StreamWaitEvent") || N.ends_with("EventSynchronize") ||
         N.ends_with("CUDAEvent::block") ||
         N.ends_with("CUDAEvent::synchronize");
}
std::string arg(const Site &S, size_t I) {
  return I < S.ArgVars.size() ? S.ArgVars[I] : std::string();
}

class SideStreamCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionSideStream; }
  void run(CheckContext &Ctx) override {
    std::vector<const ReachedSite *> Creates;
    std::set<std::string> Joined;
    std::vector<std::pair<std::string, std::string>> Waited;   // event, waiter
    std::vector<std::pair<std::string, std::string>> Recorded; // event, stream
    bool DeviceJoin = false, AnyJoin = false;
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Dead || S.Kind == SiteKind::Launch || Ctx.target(S))
        continue;
      StringRef N = S.Name;
      if (Ctx.P.isStreamCreate(N)) {
        Creates.push_back(&RS);
        continue;
      }
      if (isEventRecord(N)) {
        Recorded.push_back({arg(S, 0), arg(S, 1)});
        continue;
      }
      if (!Ctx.P.isStreamJoin(N))
        continue;
      AnyJoin = true;
      if (isDeviceJoin(N))
        DeviceJoin = true;
      else if (N.ends_with("StreamWaitEvent"))
        Waited.push_back({arg(S, 1), arg(S, 0)}); // (stream, event)
      else if (N.ends_with("CUDAEvent::block"))
        Waited.push_back({arg(S, 0), arg(S, 1)}); // event.block(stream)
      else if (isEventWait(N))
        Waited.push_back({arg(S, 0), "<host>"}); // event synchronize
      else
        Joined.insert(arg(S, 0)); // synchronize/destroy of the stream
    }
    // An event recorded on a stream joins that stream back when something
    // else (another stream, the host) waits for it.
    for (const auto &[Event, Stream] : Recorded)
      for (const auto &[WEvent, Waiter] : Waited)
        if (!Event.empty() && Event == WEvent && Waiter != Stream)
          Joined.insert(Stream);
    Joined.erase("");
    if (DeviceJoin)
      return;
    for (const ReachedSite *RS : Creates) {
      const Site &S = *RS->S;
      // cudaStreamCreate*(&s, ...) names the stream in its first argument;
      // a pool returns it (auto s = getStreamFromPool()).
      std::string Id = arg(S, 0).empty() ? S.ResultVar : arg(S, 0);
      if (Id.empty() ? AnyJoin : Joined.count(Id) != 0)
        continue;
      Finding F;
      F.Check = checks::EvasionSideStream.str();
      F.Pos = S.Pos;
      F.Symbol = S.Name;
      F.Library = "side stream";
      F.CallPath = Ctx.pathTo(RS->Holder);
      F.Message = "stream created by '" + S.Name +
                  "' is never joined back (no synchronize of it, nor an event "
                  "recorded on it that another stream or the host waits for, "
                  "is reachable): its work can escape the timer";
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createSideStreamCheck() {
  return std::make_unique<SideStreamCheck>();
}

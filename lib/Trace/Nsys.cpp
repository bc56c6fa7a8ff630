//===- Nsys.cpp - GPU kernels of an Nsight Systems SQLite export ----------===//
//
// `nsys export --type sqlite` writes one table per activity kind. atrex reads
//   CUPTI_ACTIVITY_KIND_KERNEL  (start, end, deviceId, streamId,
//                                correlationId, demangledName -> StringIds)
//   CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId)
//   NVTX_EVENTS                 push/pop and start/end ranges (eventType 59,
//                                60) with their text on globalTid
// Times are in ns. NVTX ranges written by torch.autograd.profiler.emit_nvtx
// ("aten::mm, seq = 3, op_id = 7, sizes = [[4, 4096], [4096, 4096]], ...")
// are ops with input dims and no types; other ranges are annotations.
//
//===----------------------------------------------------------------------===//

#include "atrex/Trace/Kineto.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/JSON.h"

#ifdef ATREX_HAVE_SQLITE
#include <sqlite3.h>
#endif

using namespace llvm;

namespace atrex {
namespace trace {

#ifdef ATREX_HAVE_SQLITE

bool Trace::hasNsysSupport() { return true; }

namespace {
/// A prepared statement, finalized on scope exit.
class Statement {
  sqlite3_stmt *S = nullptr;

public:
  Statement(sqlite3 *DB, const char *Sql, int &RC) {
    RC = sqlite3_prepare_v2(DB, Sql, -1, &S, nullptr);
  }
  ~Statement() { sqlite3_finalize(S); }
  sqlite3_stmt *get() { return S; }
};

StringRef text(sqlite3_stmt *S, int Col) {
  const unsigned char *T = sqlite3_column_text(S, Col);
  return T ? StringRef(reinterpret_cast<const char *>(T),
                       sqlite3_column_bytes(S, Col))
           : StringRef();
}
} // namespace

Expected<std::unique_ptr<Trace>> Trace::loadNsysSqlite(StringRef Path) {
  auto T = std::make_unique<Trace>();
  T->Path = Path.str();
  sqlite3 *DB = nullptr;
  std::string PathStr = Path.str();
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": nsys export: " + Msg);
  };
  if (sqlite3_open_v2(PathStr.c_str(), &DB, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    std::string Msg = DB ? sqlite3_errmsg(DB) : "out of memory";
    sqlite3_close(DB);
    return Fail(Msg);
  }
  llvm::scope_exit Close([&] { sqlite3_close(DB); });

  auto HasTable = [&](const char *Name) {
    int RC;
    Statement S(DB, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                RC);
    if (RC != SQLITE_OK)
      return false;
    sqlite3_bind_text(S.get(), 1, Name, -1, SQLITE_STATIC);
    return sqlite3_step(S.get()) == SQLITE_ROW;
  };
  // Runs Sql and calls Row for each result row.
  auto Query = [&](const char *Sql,
                   function_ref<Error(sqlite3_stmt *)> Row) -> Error {
    int RC;
    Statement S(DB, Sql, RC);
    if (RC != SQLITE_OK)
      return Fail(Twine(sqlite3_errmsg(DB)) + " in '" + Sql + "'");
    while ((RC = sqlite3_step(S.get())) == SQLITE_ROW)
      if (Error E = Row(S.get()))
        return E;
    if (RC != SQLITE_DONE)
      return Fail(Twine(sqlite3_errmsg(DB)) + " in '" + Sql + "'");
    return Error::success();
  };

  if (!HasTable("CUPTI_ACTIVITY_KIND_KERNEL"))
    return Fail("no CUPTI_ACTIVITY_KIND_KERNEL table (was CUDA tracing on, "
                "and did the run launch kernels?)");
  if (Error E = Query(
          "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, "
          "s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
          "LEFT JOIN StringIds AS s ON s.id = k.demangledName",
          [&](sqlite3_stmt *S) -> Error {
            int64_t Start = sqlite3_column_int64(S, 0),
                    End = sqlite3_column_int64(S, 1);
            if (End < Start)
              return Fail("kernel with end before start (correlation " +
                          Twine(sqlite3_column_int64(S, 4)) + ")");
            ++T->Stats.Kernels;
            ++T->Stats.Events;
            T->Kernels.push_back(Kernel{T->Strings.save(text(S, 5)), Start,
                                        End - Start,
                                        uint64_t(sqlite3_column_int64(S, 2)),
                                        uint64_t(sqlite3_column_int64(S, 3)),
                                        sqlite3_column_int64(S, 4), -1});
            return Error::success();
          }))
    return std::move(E);

  if (HasTable("CUPTI_ACTIVITY_KIND_RUNTIME"))
    if (Error E = Query("SELECT start, globalTid, correlationId FROM "
                        "CUPTI_ACTIVITY_KIND_RUNTIME",
                        [&](sqlite3_stmt *S) -> Error {
                          ++T->Stats.Launches;
                          ++T->Stats.Events;
                          T->Launches.add(
                              sqlite3_column_int64(S, 2),
                              Launch{sqlite3_column_int64(S, 0), 0,
                                     uint64_t(sqlite3_column_int64(S, 1)), -1});
                          return Error::success();
                        }))
      return std::move(E);

  if (HasTable("NVTX_EVENTS")) {
    const char *Sql =
        HasTable("StringIds")
            ? "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value) "
              "FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS s ON s.id = "
              "n.textId WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL"
            : "SELECT start, end, globalTid, text FROM NVTX_EVENTS WHERE "
              "eventType IN (59, 60) AND end IS NOT NULL";
    if (Error E = Query(Sql, [&](sqlite3_stmt *S) -> Error {
          ++T->Stats.Events;
          CpuRange R;
          R.Ts = sqlite3_column_int64(S, 0);
          R.End = sqlite3_column_int64(S, 1);
          R.Tid = uint64_t(sqlite3_column_int64(S, 2));
          StringRef Text = text(S, 3);
          // emit_nvtx: "name, seq = N, op_id = M, sizes = [[...], ...], ...".
          size_t Comma = Text.find(", ");
          bool IsOp =
              Comma != StringRef::npos &&
              (Text.contains(", seq = ") || Text.contains(", sizes = ") ||
               Text.contains(", op_id = "));
          StringRef Name = IsOp ? Text.take_front(Comma) : Text;
          R.Name = T->Strings.save(Name);
          R.IsOp = IsOp;
          R.IsAnnotation = !IsOp || isAnnotationOp(Name);
          (IsOp ? T->Stats.CpuOps : T->Stats.Annotations)++;
          size_t At = Text.find("sizes = [");
          if (IsOp && At != StringRef::npos) {
            StringRef Rest = Text.substr(At + 8);
            int Depth = 0;
            size_t End = 0;
            for (; End < Rest.size(); ++End) {
              Depth += Rest[End] == '[' ? 1 : Rest[End] == ']' ? -1 : 0;
              if (Depth == 0)
                break;
            }
            if (End < Rest.size()) {
              auto Dims = json::parse(Rest.take_front(End + 1));
              if (!Dims)
                return Fail("NVTX range '" + Name +
                            "': bad sizes: " + toString(Dims.takeError()));
              if (const json::Array *A = Dims->getAsArray())
                R.Inputs = T->internInputs(*A, nullptr);
            }
          }
          T->Ranges.push_back(R);
          return Error::success();
        }))
      return std::move(E);
  }
  T->link();
  T->forEachKernel([&](const KernelView &K) {
    if (K.Stack.empty())
      ++T->Stats.Unlaunched;
  });
  return std::move(T);
}

#else

bool Trace::hasNsysSupport() { return false; }

Expected<std::unique_ptr<Trace>> Trace::loadNsysSqlite(StringRef Path) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ": an Nsight Systems SQLite export, but "
                                  "atrex was built without SQLite "
                                  "(libsqlite3-dev)");
}

#endif

} // namespace trace
} // namespace atrex

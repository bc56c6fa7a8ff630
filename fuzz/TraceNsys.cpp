//===- TraceNsys.cpp - fuzz the Nsight Systems SQLite reader --------------===//
//
// Part of atrex. The input is an SQL script (the seeds create the tables of
// an `nsys export --type sqlite` file and fill them): it is run on an empty
// database, and the database is then loaded as atrex-trace loads an nsys
// export. The script may not attach other files or change pragmas, and is
// stopped after a bounded amount of work, so that what is fuzzed is the
// reader, not SQLite.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Trace/Kineto.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <sqlite3.h>
#include <string>

using namespace atrex::trace;

static int authorize(void *, int Action, const char *, const char *,
                     const char *, const char *) {
  switch (Action) {
  case SQLITE_ATTACH:
  case SQLITE_DETACH:
  case SQLITE_PRAGMA:
    return SQLITE_DENY;
  default:
    return SQLITE_OK;
  }
}

static int stopAfter(void *Count) {
  return ++*static_cast<int *>(Count) > 2000; // x 1000 VM steps
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Script(reinterpret_cast<const char *>(Data), Size);
  std::string Path = atrex::fuzz::scratchDir() + "/trace.sqlite";
  std::remove(Path.c_str());

  sqlite3 *DB = nullptr;
  if (sqlite3_open_v2(Path.c_str(), &DB,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK)
    __builtin_trap();
  sqlite3_db_config(DB, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  // A scratch file: no journal, no fsync.
  sqlite3_exec(DB, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", nullptr,
               nullptr, nullptr);
  sqlite3_limit(DB, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_set_authorizer(DB, authorize, nullptr);
  int Steps = 0;
  sqlite3_progress_handler(DB, 1000, stopAfter, &Steps);
  sqlite3_exec(DB, Script.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(DB);

  auto T = Trace::load(Path);
  if (!T) {
    llvm::consumeError(T.takeError());
    return 0;
  }
  (*T)->forEachKernel([](const KernelView &) {});
  (void)(*T)->busyTime();
  return 0;
}

"""Writes a small Nsight Systems SQLite export (the tables and columns that
atrex-trace reads, as `nsys export --type sqlite` names them).
    python3 make_nsys.py OUT.sqlite"""
import os
import sqlite3
import sys

out = sys.argv[1]
if os.path.exists(out):
    os.remove(out)
db = sqlite3.connect(out)
c = db.cursor()
c.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, gridX INTEGER, blockX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
""")
strings = ["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "gemm", "cudaLaunchKernel_v7000",
           "rms_norm_kernel<c10::BFloat16>", "rms_norm_kernel", "decode_step"]
c.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(strings, 1)))
TID = 281474976710657
# NVTX: an annotation (text through StringIds), emit_nvtx op ranges.
c.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (?, ?, ?, ?, ?, ?)", [
    (1000, 90000, 59, None, TID, 6),
    (2000, 40000, 59, "aten::linear, seq = 2, op_id = 6, sizes = [[8, 4096], [4096, 4096], []], input_op_ids = [(1,0), (2,0)]", TID, None),
    (3000, 30000, 59, "aten::mm, seq = 3, op_id = 7, sizes = [[8, 4096], [4096, 4096]], input_op_ids = [(6,0)]", TID, None),
    (50000, 60000, 59, "_C::rms_norm, seq = 4, op_id = 8", TID, None),
    (95000, None, 34, "a mark", TID, None),
])
c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId, nameId) VALUES (?, ?, ?, ?, ?)", [
    (10000, 12000, TID, 101, 3),
    (52000, 53000, TID, 102, 3),
])
c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName, shortName) VALUES (?, ?, ?, ?, ?, ?, ?)", [
    (100000, 150000, 0, 7, 101, 1, 2),
    (150000, 170000, 0, 7, 102, 4, 5),
    (200000, 210000, 0, 7, 999, 1, 2),
])
db.commit()
db.close()

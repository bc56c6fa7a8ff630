
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
INSERT INTO StringIds VALUES (1,'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n'),(2,'gemm'),(3,'cudaLaunchKernel_v7000'),(4,'rms_norm_kernel<c10::BFloat16>'),(5,'rms_norm_kernel'),(6,'decode_step');
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (1000, 90000, 59, NULL, 281474976710657, 6);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (2000, 40000, 59, 'aten::linear, seq = 2, op_id = 6, sizes = [[8, 4096], [4096, 4096], []], input_op_ids = [(1,0), (2,0)]', 281474976710657, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (3000, 30000, 59, 'aten::mm, seq = 3, op_id = 7, sizes = [[8, 4096], [4096, 4096]], input_op_ids = [(6,0)]', 281474976710657, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (50000, 60000, 59, '_C::rms_norm, seq = 4, op_id = 8', 281474976710657, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (95000, NULL, 34, 'a mark', 281474976710657, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId, nameId) VALUES (10000, 12000, 281474976710657, 101, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId, nameId) VALUES (52000, 53000, 281474976710657, 102, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName, shortName) VALUES (100000, 150000, 0, 7, 101, 1, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName, shortName) VALUES (150000, 170000, 0, 7, 102, 4, 5);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName, shortName) VALUES (200000, 210000, 0, 7, 999, 1, 2);

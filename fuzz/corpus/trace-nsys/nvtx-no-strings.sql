CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName);
CREATE TABLE NVTX_EVENTS (start, end, eventType, text, globalTid);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 5, 'x');
INSERT INTO NVTX_EVENTS VALUES (1, 300, 59, 'aten::mm, seq = 1, sizes = [[2, 3], [3, 4]]', 9);
INSERT INTO NVTX_EVENTS VALUES (2, 299, 60, 'aten::bmm, op_id = 2, sizes = [[[1]]', 9);

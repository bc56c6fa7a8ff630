// Calls every wrapper that runtime/hip/patch_hip_nvidia.py edits (and includes the other
// public HIP headers), so that a compile check covers the patched code paths, not only
// the declarations. Compiled, never run.
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_fp16.h>
#include <hip/hip_complex.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_vector_types.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // hipGetTextureAlignmentOffset

__global__ void scale(float *o, const float *x, int n) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i < n)
    o[i] = x[i] * 2.f;
}

int exercise(void *p, size_t n, int device, hipStream_t s) {
  int bad = 0;
  bad += hipMemAdvise(p, n, hipMemAdviseSetPreferredLocation, device) != hipSuccess;
  bad += hipMemAdvise(p, n, hipMemAdviseSetPreferredLocation, hipCpuDeviceId) != hipSuccess;
  bad += hipMemPrefetchAsync(p, n, device, s) != hipSuccess;
  hipDeviceProp_t prop;
  bad += hipGetDeviceProperties(&prop, device) != hipSuccess;
  bad += prop.clockRate <= 0 || prop.memoryClockRate <= 0;
  int chosen = 0;
  bad += hipChooseDevice(&chosen, &prop) != hipSuccess;
  int v = -1;
  bad += hipDeviceGetAttribute(&v, hipDeviceAttributeCooperativeMultiDeviceLaunch, device) !=
         hipSuccess;
  bad += hipDeviceGetAttribute(&v, hipDeviceAttributeClockRate, device) != hipSuccess;
  hipCtx_t ctx;
  bad += hipCtxCreate(&ctx, 0, device) != hipSuccess;
  bad += hipLaunchCooperativeKernelMultiDevice(nullptr, 0, 0) != hipErrorNotSupported;
  size_t off = 0;
  bad += hipGetTextureAlignmentOffset(&off, nullptr) != hipErrorNotSupported;
  hipGraph_t g;
  bad += hipGraphCreate(&g, 0) != hipSuccess;
  hipGraphNode_t a, b, nodes[2];
  bad += hipGraphAddEmptyNode(&a, g, nullptr, 0) != hipSuccess;
  bad += hipGraphAddEmptyNode(&b, g, nullptr, 0) != hipSuccess;
  bad += hipGraphAddDependencies(g, &a, &b, 1) != hipSuccess;
  size_t count = 2;
  hipGraphNode_t from[2], to[2];
  bad += hipGraphGetEdges(g, from, to, &count) != hipSuccess;
  count = 2;
  bad += hipGraphNodeGetDependencies(b, nodes, &count) != hipSuccess;
  count = 2;
  bad += hipGraphNodeGetDependentNodes(a, nodes, &count) != hipSuccess;
  bad += hipGraphRemoveDependencies(g, &a, &b, 1) != hipSuccess;
  hipStreamCaptureStatus st;
  unsigned long long id = 0;
  const hipGraphNode_t *deps = nullptr;
  size_t ndeps = 0;
  bad += hipStreamGetCaptureInfo_v2(s, &st, &id, nullptr, &deps, &ndeps) != hipSuccess;
  bad += hipStreamUpdateCaptureDependencies(s, nodes, 0, 0) != hipSuccess;
  hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, s, static_cast<float *>(p),
                     static_cast<const float *>(p), 0);
  bad += hipGetLastError() != hipSuccess;
  return bad;
}

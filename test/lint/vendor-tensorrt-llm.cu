// TensorRT-LLM's kernel sources as a library (the default policy's
// `tensorrt-llm` rule, tensorrt_llm::*): a submission whose own kernels only
// route tokens and hands the expert GEMMs to TensorRT-LLM's runner delegates
// them; a file that defines the namespace itself (TensorRT-LLM's own tree)
// is its own code.
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc 2>&1 | FileCheck %s
// RUN: atrex-lint --no-snippets %S/Inputs/trtllm-own-namespace.cu 2>&1 | FileCheck %s --check-prefix=OWN
#include <cuda_runtime.h>
#include <faketrtllm/fp8_blockscale_gemm.h>

__global__ void count_experts(const int *ids, int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[ids[i]], 1);
}

void moe(void *out, const void *x, const void *w, const int64_t *offsets, const int *ids,
         int *counts, int n, int e, float *sa, float *sb, cudaStream_t s) {
  count_experts<<<(n + 255) / 256, 256, 0, s>>>(ids, counts, n);
  tensorrt_llm::kernels::fp8_blockscale_gemm::CutlassFp8BlockScaleGemmRunner<char, char, short> r;
  r.moeGemm(out, x, w, offsets, e, 4096, 7168, s, sa, sb);
}
// CHECK: vendor-tensorrt-llm.cu:[[@LINE-2]]:3: warning: call to 'tensorrt_llm::kernels::fp8_blockscale_gemm::CutlassFp8BlockScaleGemmRunner{{.*}}moeGemm' delegates compute to TensorRT-LLM [atrex-delegation-vendor]
// CHECK: verdict: fallback (fallback: TensorRT-LLM (tensorrt_llm::kernels::fp8_blockscale_gemm::CutlassFp8BlockScaleGemmRunner
// OWN-NOT: warning
// OWN: verdict: adopted

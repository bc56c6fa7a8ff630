// The wmma API inside an own kernel is the DSL.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void tile_gemm(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
void entry(const half *a, const half *b, float *c) {
  tile_gemm<<<1, 32>>>(a, b, c);
}

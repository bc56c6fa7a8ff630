// Inline PTX (including mma.sync) inside an own kernel.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
__device__ __forceinline__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}
__global__ void mma_kernel(const unsigned *a, const unsigned *b, float *c) {
  float d[4] = {0, 0, 0, 0};
  unsigned ra[4] = {a[0], a[1], a[2], a[3]}, rb[2] = {b[0], b[1]};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]),
                 "r"(rb[1]));
  c[lane_id()] = d[0] + d[1] + d[2] + d[3];
}
void entry(const unsigned *a, const unsigned *b, float *c) {
  mma_kernel<<<1, 32>>>(a, b, c);
}

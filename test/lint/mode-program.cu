// A stand-alone program (entry `main`, like cuda-samples' vectorAdd): exiting,
// printing, reading files and the environment, threads are normal there.
// Only delegation and hidden code count. --mode=submission judges the same
// code as a harness entry.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --mode=submission %s 2>&1 | FileCheck %s --check-prefix=SUB
// RUN: atrex-lint --format=json %s | FileCheck %s --check-prefix=JSON
// CHECK-NOT: warning:
// CHECK-NOT: error:
// CHECK: note: analysed as a program: it defines 'main': a stand-alone program, judged from 'main'
// CHECK: verdict: adopted (adopted: 1 own kernel launched from 'main', no delegation)
// SUB: warning: call to 'getenv' {{.*}}[atrex-evasion-file-env]
// SUB: error: construction of 'std::thread::thread' {{.*}}[atrex-evasion-process]
// SUB: note: analysed as a submission: set with --mode=submission
// SUB: verdict: suspicious
// JSON: "mode": "program",
// JSON: "mode_reason": "it defines 'main'
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_runtime.h>

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static int parseSize(int argc, char **argv) {
  const char *env = getenv("N");
  return argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 1 << 20;
}

int main(int argc, char **argv) {
  int n = parseSize(argc, argv);
  float *a, *b, *c;
  if (cudaMalloc(&a, n * sizeof(float)) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    exit(EXIT_FAILURE);
  }
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  FILE *log = fopen("timing.txt", "w");
  std::thread watcher([] {});
  watcher.join();
  vectorAdd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaDeviceSynchronize();
  fprintf(log, "done\n");
  fclose(log);
  printf("Test PASSED\n");
  return 0;
}

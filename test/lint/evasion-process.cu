// Starting processes or threads from the entry.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cstdio>
#include <cstdlib>
#include <thread>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: error: call to 'system' starts a process or thread outside the harness's control [atrex-evasion-process]
  system("nvidia-smi -lgc 2000");
  // CHECK: :[[@LINE+1]]:13: error: call to 'popen' starts a process or thread
  FILE *p = popen("cat /proc/self/environ", "r");
  // CHECK: :[[@LINE+1]]:15: error: construction of 'std::thread::thread' starts a process or thread
  std::thread t([a] { (void)a; });
  t.detach();
  (void)p;
}
// CHECK: verdict: suspicious

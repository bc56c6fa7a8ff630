// Starting processes or threads from the entry.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>
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
  // A session of its own: what outlives the harness's process group.
  // CHECK: :[[@LINE+1]]:3: error: call to 'setsid' starts a process or thread
  setsid();
  (void)p;
}
// CHECK: verdict: suspicious

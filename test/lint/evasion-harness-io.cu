// Writing to raw file descriptors (the harness's report channel) and ending
// the process from the entry: report forgery and skipping the harness's own
// checks (examples/gate/silu_and_mul_forge_report.cu).
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// RUN: atrex-lint --mode=submission --no-snippets %S/Inputs/harness-io-negative.cu 2>&1 | FileCheck %S/Inputs/harness-io-negative.cu --check-prefix=NEG
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  k<<<1, 1>>>(a);
  const char *fake = "{\"status\":\"pass\"}\n";
  // CHECK: :[[@LINE+1]]:7: error: call to 'write' writes to a raw file descriptor or ends the process, past the harness [atrex-evasion-harness-io]
  if (write(3, fake, strlen(fake)) < 0) {
  }
  // CHECK: :[[@LINE+1]]:13: error: call to 'fdopen' writes to a raw file descriptor
  FILE *f = fdopen(3, "w");
  // CHECK: :[[@LINE+1]]:3: error: call to 'dup2' writes to a raw file descriptor
  dup2(1, 3);
  (void)f;
  // CHECK: :[[@LINE+1]]:3: error: call to '_exit' writes to a raw file descriptor or ends the process
  _exit(0);
}
// CHECK: verdict: suspicious

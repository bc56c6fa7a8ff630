// The --atrex-lint pass loaded into upstream mlir-opt as a pass plugin.
// RUN: mlir-opt --load-pass-plugin=%atrex_plugin --pass-pipeline="builtin.module(atrex-lint)" %s -o /dev/null 2>&1 | FileCheck %s
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func private @cudnnSoftmaxForward(i64) -> i32
  func.func @entry(%h: i64) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    // CHECK: atrex-lint-plugin.mlir:[[@LINE+1]]:10: warning: call to 'cudnnSoftmaxForward' delegates compute to cuDNN [atrex-delegation-vendor]
    %r = func.call @cudnnSoftmaxForward(%h) : (i64) -> i32
    return
  }
}
// CHECK: remark: atrex verdict: fallback (fallback: cuDNN (cudnnSoftmaxForward))

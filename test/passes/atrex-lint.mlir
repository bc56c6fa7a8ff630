// --atrex-lint on MLIR GPU modules: the same checks and verdicts as
// atrex-lint on sources.
// RUN: split-file %s %t
// RUN: atrex-opt --atrex-lint %t/adopted.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ADOPTED
// RUN: atrex-opt --atrex-lint %t/vendor.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=VENDOR
// RUN: atrex-opt --atrex-lint %t/torch.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TORCH
// RUN: atrex-opt --atrex-lint %t/nokernel.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// RUN: atrex-opt --atrex-lint %t/indirect.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDIRECT
// RUN: atrex-opt --atrex-lint %t/inline.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=INLINE
// RUN: atrex-opt --atrex-lint %t/device.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: atrex-opt --atrex-lint="json=-" %t/vendor.mlir -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: atrex-opt --atrex-lint="policy=%S/../lint/Inputs/policy/allow-cublas.yaml" %t/vendor.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: atrex-opt --atrex-lint="entry=other" %t/adopted.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not atrex-opt --atrex-lint="policy=%t/missing.yaml" %t/adopted.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// RUN: atrex-opt --atrex-lint %t/adopted.mlir 2>/dev/null | FileCheck %s --check-prefix=ATTR

//--- adopted.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @entry(%x: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?xf32>)
    return
  }
  func.func @other(%x: memref<?xf32>) {
    return
  }
}
// ADOPTED-NOT: warning
// ADOPTED: remark: atrex verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
// ENTRY: warning: kernel 'scale' is defined but never launched from the entry [atrex-kernel-unlaunched]
// ENTRY: remark: atrex verdict: no-kernel
// ATTR: module attributes {atrex.verdict = "adopted"

//--- vendor.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bias(%x: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func private @cublasGemmEx(i64) -> i32
  func.func private @gemm(%h: i64) {
    %r = func.call @cublasGemmEx(%h) : (i64) -> i32
    return
  }
  func.func @linear(%x: memref<?xf32>, %h: i64) {
    %c1 = arith.constant 1 : index
    func.call @gemm(%h) : (i64) -> ()
    gpu.launch_func @kernels::@bias blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?xf32>)
    return
  }
}
// VENDOR: vendor.mlir:9:10: warning: call to 'cublasGemmEx' delegates compute to cuBLAS [atrex-delegation-vendor] (reached from entry 'linear' -> 'gemm')
// VENDOR: remark: atrex verdict: fallback (fallback: cuBLAS (cublasGemmEx))
// JSON: "verdict": "fallback"
// POLICY-NOT: warning
// POLICY: remark: atrex verdict: adopted
// BADPOLICY: error: atrex-policy: cannot read policy file

//--- torch.mlir
// A DSL that lowered to the llvm dialect and calls ATen by its mangled name.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  llvm.func @_ZN2at6matmulERKNS_6TensorES2_(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
  llvm.func @forward(%a: !llvm.ptr, %b: !llvm.ptr) -> !llvm.ptr {
    %r = llvm.call @_ZN2at6matmulERKNS_6TensorES2_(%a, %b) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
    llvm.return %r : !llvm.ptr
  }
}
// TORCH: warning: kernel 'k' is defined but never launched from the entry
// TORCH: torch.mlir:10:10: warning: call to 'at::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
// TORCH: remark: atrex verdict: fallback (fallback: PyTorch/ATen (at::matmul); no-kernel

//--- nokernel.mlir
module {
  func.func @entry(%x: memref<4xf32>) {
    return
  }
}
// NOKERNEL: warning: no kernel is defined{{.*}}[atrex-no-kernel]
// NOKERNEL: remark: atrex verdict: no-kernel

//--- indirect.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  llvm.func @entry(%fp: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    llvm.call %fp() : !llvm.ptr, () -> ()
    llvm.return
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
// INDIRECT: indirect.mlir:9:5: warning: call through a function value '<value>' whose target cannot be resolved [atrex-evasion-indirect-call]
// INDIRECT: remark: atrex verdict: suspicious

//--- inline.mlir
// An inline gpu.launch region is an own kernel launched in place.
module {
  func.func @entry(%x: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    return
  }
}
// INLINE-NOT: warning
// INLINE: remark: atrex verdict: adopted (adopted: 1 own kernel launched

//--- device.mlir
// A device-only module: kernels exist, their launches are host-side.
gpu.module @kernels {
  gpu.func @k() kernel {
    gpu.return
  }
}
// DEVICE-NOT: warning
// DEVICE: remark: atrex verdict: adopted (adopted: 1 own kernel(s) defined in device code

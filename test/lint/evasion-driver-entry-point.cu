// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: atrex-lint --no-snippets %s -- -DONLY_TMA 2>&1 | FileCheck %s --check-prefix=TMA
// TMA-NOT: warning
// TMA-NOT: error
// TMA: verdict: adopted
//
// A driver function fetched by its literal name is that function: building a
// TMA descriptor through cudaGetDriverEntryPoint("cuTensorMapEncodeTiled")
// hides nothing. Fetching cuModuleLoadData (loading a binary) or a name
// computed at run time does.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2.0f;
}

// The pointer's type names the driver function (cudaTypedefs.h): a call
// through it is a call to cuTensorMapEncodeTiled.
static PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault,
                          &q);
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

#ifndef ONLY_TMA
// CHECK-NOT: cuTensorMapEncodeTiled
// CHECK-NOT: atrex-evasion-indirect-call
// CHECK: evasion-driver-entry-point.cu:{{[0-9]+}}:3: error: call to 'cudaGetDriverEntryPoint' resolves code at run time, behind the analysis (symbol "cuModuleLoadData") [atrex-evasion-dynamic-load]
// CHECK: evasion-driver-entry-point.cu:{{[0-9]+}}:3: error: call to 'cudaGetDriverEntryPoint' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
// CHECK: evasion-driver-entry-point.cu:{{[0-9]+}}:3: error: call to 'cuModuleLoadData' loads a GPU image the submission did not compile (through a pointer of type 'PFN_cuModuleLoadData') [atrex-evasion-module-load]
void loaders(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPoint("cuModuleLoadData", &fn, cudaEnableDefault, &q);
  // A name computed at run time: whatever it is, the analysis cannot see it.
  std::string n(name);
  n += "Data";
  cudaGetDriverEntryPoint(n.c_str(), &fn, cudaEnableDefault, &q);
  // The same typed pointer calling the module loader is module loading.
  CUmodule m;
  reinterpret_cast<PFN_cuModuleLoadData_v2000>(fn)(&m, name);
}
#endif

torch::Tensor entry(torch::Tensor x, bool load) {
  CUtensorMap map;
  cuuint64_t dims[1] = {(cuuint64_t)x.numel()};
  cuuint64_t strides[1] = {4};
  cuuint32_t box[1] = {64}, elem[1] = {1};
  encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, x.data_ptr(), dims,
            strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
#ifndef ONLY_TMA
  if (load)
    loaders("cuModuleLoad");
#endif
  scale<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), x.numel());
  return x;
}
// CHECK-NOT: atrex-evasion-indirect-call
// CHECK: verdict: suspicious (suspicious: atrex-evasion-dynamic-load (cudaGetDriverEntryPoint); suspicious: atrex-evasion-module-load (cuModuleLoadData))

// A TVM-FFI binding (FlashInfer's csrc/ style): TensorView arguments and a
// kernel launched with <<<>>>; nothing in the project ships tvm/ffi/.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

using tvm::ffi::TensorView;

__global__ void scale_kernel(const float *x, float *y, float a, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

void scale(TensorView x, TensorView y, double a) {
  long n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(static_cast<const float *>(x.data_ptr()),
                                         static_cast<float *>(y.data_ptr()),
                                         (float)a, n);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, scale);

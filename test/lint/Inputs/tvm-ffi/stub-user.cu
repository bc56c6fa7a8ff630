#include <tvm/ffi/container_stub.h>
__global__ void k(float *y) { y[threadIdx.x] = 0; }
void zero(tvm::ffi::TensorView y) { k<<<1, 32>>>(static_cast<float *>(y.data_ptr())); }

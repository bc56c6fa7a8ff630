// The same through PyTorch's stream pool and CUDAEvent: the side stream
// waits on the caller's, the caller never waits on the side stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
__global__ void k(float *x) { x[0] = 0; }
torch::Tensor forward(torch::Tensor x) {
  auto caller = at::cuda::getCurrentCUDAStream();
  // CHECK: :[[@LINE+1]]:15: warning: stream created by 'c10::cuda::getStreamFromPool' is never joined back
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(caller);
  ready.block(side);
  k<<<1, 1, 0, side.stream()>>>(x.data_ptr<float>());
  return x;
}
// CHECK: verdict: suspicious

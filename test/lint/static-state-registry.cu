// State that keeps long-lived objects (a registry of layers created by a
// create_ function and looked up by id, plans, library handles, streams) is a
// note: what a container or an owning pointer holds decides, and an object of
// a class with behaviour (not trivially copyable) without tensors is no
// output. A type-erased holder (shared_ptr<void>) is judged by what the unit
// stores in it. Containers of data pointers, numbers and plain values, and
// type-erased holders given a buffer, can still cache outputs.
// RUN: atrex-lint --mode=submission --no-snippets --entry=create_layer,forward_layer,plan_forward,handle_forward %s 2>&1 | FileCheck %s --check-prefix=REG
// RUN: not atrex-lint --mode=submission --no-snippets --entry=buffer_forward %s 2>&1 | FileCheck %s --check-prefix=BUF
// RUN: not atrex-lint --mode=submission --no-snippets --entry=values_forward %s 2>&1 | FileCheck %s --check-prefix=VAL
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

__global__ void k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2 * x[i];
}

// A layer: owns device buffers (workspace, saved activations) and a stream.
template <typename T> class Layer {
public:
  explicit Layer(int n) : n_(n) { cudaMalloc(&work_, n * sizeof(T)); }
  ~Layer() { cudaFree(work_); }
  void forward(T *y, const T *x) { k<<<(n_ + 255) / 256, 256>>>(y, x, n_); }

private:
  int n_;
  T *work_ = nullptr;
};

// REG: :[[@LINE+1]]:55: note: global 'layers' of type 'std::unordered_map<int, std::shared_ptr<void> >' keeps state between calls of the entry [atrex-evasion-static-state]
static std::unordered_map<int, std::shared_ptr<void>> layers;

int create_layer(int id, int n) {
  auto layer = std::make_shared<Layer<float>>(n);
  layers[id] = layer;
  return 0;
}

void forward_layer(int id, float *y, const float *x) {
  std::shared_ptr<Layer<float>> layer =
      std::static_pointer_cast<Layer<float>>(layers[id]);
  layer->forward(y, x);
}

struct Plan {
  explicit Plan(int n) : n(n) {}
  virtual ~Plan() = default;
  virtual void run(float *y, const float *x) { k<<<(n + 255) / 256, 256>>>(y, x, n); }
  int n;
};

void plan_forward(float *y, const float *x, int n) {
  // REG: :[[@LINE+1]]:47: note: static local 'plans' of type 'std::map<int, std::unique_ptr<Plan> >' keeps state between calls of the entry [atrex-evasion-static-state]
  static std::map<int, std::unique_ptr<Plan>> plans;
  auto &p = plans[n];
  if (!p)
    p = std::make_unique<Plan>(n);
  p->run(y, x);
}

void handle_forward(float *y, const float *x, int n, int device) {
  // REG: :[[@LINE+1]]:50: note: static local 'handles' of type 'std::unordered_map<int, cublasHandle_t>' keeps state
  static std::unordered_map<int, cublasHandle_t> handles;
  // REG: :[[@LINE+1]]:36: note: static local 'streams' of type 'std::vector<cudaStream_t>' keeps state
  static std::vector<cudaStream_t> streams;
  if (!handles.count(device))
    cublasCreate(&handles[device]);
  k<<<(n + 255) / 256, 256>>>(y, x, n);
}
// REG-NOT: can cache outputs
// REG: verdict: adopted

// A type-erased holder given a device buffer keeps data: it can cache outputs.
// BUF: :[[@LINE+1]]:65: warning: global 'buffers' of type 'std::unordered_map<const float *, std::shared_ptr<void> >' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
static std::unordered_map<const float *, std::shared_ptr<void>> buffers;

void buffer_forward(float *y, const float *x, int n) {
  if (!buffers.count(x)) {
    void *p = nullptr;
    cudaMalloc(&p, n * sizeof(float));
    buffers[x] = std::shared_ptr<void>(p, cudaFree);
    k<<<(n + 255) / 256, 256>>>(static_cast<float *>(p), x, n);
  }
  cudaMemcpy(y, buffers[x].get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
}
// BUF: verdict: suspicious

struct Pair {
  float a, b;
};

void values_forward(float *y, const float *x, int n) {
  // VAL: :[[@LINE+1]]:44: warning: static local 'host' of type 'std::map<int, std::vector<float> >' keeps state between calls of the entry and can cache outputs
  static std::map<int, std::vector<float>> host;
  // VAL: :[[@LINE+1]]:40: warning: static local 'pairs' of type 'std::unordered_map<int, Pair>' keeps state between calls of the entry and can cache outputs
  static std::unordered_map<int, Pair> pairs;
  // VAL: :[[@LINE+1]]:48: warning: static local 'owned' of type 'std::map<int, std::shared_ptr<float> >' keeps state between calls of the entry and can cache outputs
  static std::map<int, std::shared_ptr<float>> owned;
  // VAL: :[[@LINE+1]]:32: warning: static local 'kept' of type 'std::shared_ptr<void>' keeps state between calls of the entry and can cache outputs
  static std::shared_ptr<void> kept;
  k<<<(n + 255) / 256, 256>>>(y, x, n);
}
// VAL: verdict: suspicious

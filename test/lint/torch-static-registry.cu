// A torch extension's state: a cache of tensors keyed by input, replayed
// with copy_, stays suspicious; so does a registry
// whose objects hold tensors. A registry of layer objects that hold only
// their own device buffers and handles is a note.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets --entry=cached_forward %s 2>&1 | FileCheck %s --check-prefix=CACHE
// RUN: not atrex-lint --no-snippets --entry=holder_forward %s 2>&1 | FileCheck %s --check-prefix=HOLD
// RUN: atrex-lint --no-snippets --entry=layer_forward %s 2>&1 | FileCheck %s --check-prefix=LAYER
#include <torch/extension.h>
#include <map>
#include <memory>
#include <unordered_map>

__global__ void k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2 * x[i];
}

// CACHE: :[[@LINE+1]]:56: warning: global 'cache' of type 'std::unordered_map<const void *, torch::Tensor>' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
static std::unordered_map<const void *, torch::Tensor> cache;

torch::Tensor cached_forward(torch::Tensor x) {
  auto out = torch::empty_like(x);
  auto it = cache.find(x.data_ptr());
  if (it != cache.end()) {
    out.copy_(cache[x.data_ptr()]);
    return out;
  }
  k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
  cache[x.data_ptr()] = out.clone();
  return out;
}
// CACHE: verdict: suspicious (suspicious: atrex-evasion-static-state (cache)

struct Holder {
  explicit Holder(torch::Tensor t) : kept(std::move(t)) {}
  ~Holder() {}
  torch::Tensor kept;
};

torch::Tensor holder_forward(torch::Tensor x) {
  // HOLD: :[[@LINE+1]]:50: warning: static local 'held' of type 'std::map<long, std::unique_ptr<Holder> >' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
  static std::map<long, std::unique_ptr<Holder>> held;
  auto out = torch::empty_like(x);
  k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
  held[x.numel()] = std::make_unique<Holder>(out);
  return out;
}
// HOLD: verdict: suspicious

class Layer {
public:
  explicit Layer(long n) : n_(n) { cudaMalloc(&work_, n * sizeof(float)); }
  ~Layer() { cudaFree(work_); }
  void forward(const float *x, float *y) { k<<<(n_ + 255) / 256, 256>>>(x, y, n_); }

private:
  long n_;
  float *work_ = nullptr;
};

torch::Tensor layer_forward(int64_t id, torch::Tensor x) {
  // LAYER: :[[@LINE+1]]:61: note: static local 'layers' of type 'std::unordered_map<int64_t, std::shared_ptr<void> >' keeps state between calls of the entry [atrex-evasion-static-state]
  static std::unordered_map<int64_t, std::shared_ptr<void>> layers;
  if (!layers.count(id))
    layers[id] = std::make_shared<Layer>(x.numel());
  auto out = torch::empty_like(x);
  std::static_pointer_cast<Layer>(layers[id])->forward(x.data_ptr<float>(), out.data_ptr<float>());
  return out;
}
// LAYER-NOT: can cache outputs
// LAYER: verdict: adopted

#include <thrust/device_vector.h>
#include <thrust/reduce.h>
int main() {
  thrust::device_vector<float> d(256, 1.0f);
  // CHECK: warning: call to 'thrust::reduce' delegates compute to Thrust [atrex-delegation-vendor]
  float s = thrust::reduce(d.begin(), d.end());
  return s > 0 ? 0 : 1;
}
// CHECK: verdict: fallback

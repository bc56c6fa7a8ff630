// Host-only helpers of a HIP program: HIP's runtime only through the
// project's own headers (matrix.h -> hip_utils.h).
#include "matrix.h"
#include <vector>
void fill(float *d, int n) {
  std::vector<float> h(n, 1.0f);
  HIP_CHECK(hipMemcpy(d, h.data(), n * sizeof(float), hipMemcpyHostToDevice));
}

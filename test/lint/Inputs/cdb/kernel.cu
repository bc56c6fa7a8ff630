#include "cfg.h"
__global__ void k(float *x) { x[0] = 0; }
void entry(float *x) {
  if (USE_FAST)
    k<<<1, 1>>>(x);
}

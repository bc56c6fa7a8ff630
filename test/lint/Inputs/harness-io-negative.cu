// Console output and stream writes are not the harness's channels: adopted.
#include <cstdio>
#include <iostream>
#include <sstream>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  k<<<1, 1>>>(a);
  printf("launched\n");
  fprintf(stderr, "debug\n");
  std::cout << "ok" << std::endl;
  std::ostringstream os;
  os.write("ab", 2);
  fflush(stdout);
}
// NEG: verdict: adopted

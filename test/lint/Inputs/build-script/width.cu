// WIDTH comes from the Makefile (-DWIDTH=4).
__global__ void fill(float *p) { p[threadIdx.x] = WIDTH; }
int main() {
  float *d;
  cudaMalloc(&d, WIDTH * sizeof(float));
  fill<<<1, WIDTH>>>(d);
}

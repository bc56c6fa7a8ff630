// atrex-template: broken
// atrex-param: X 1 2
// atrex-default: X=3
__global__ void k() {}

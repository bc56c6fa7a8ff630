// atrex-template: tiny
// atrex-summary: a tiny rowsum template
// atrex-order: 1
// atrex-param: BLOCK 128 256
// atrex-default: BLOCK=128
#include <ATen/ATen.h>

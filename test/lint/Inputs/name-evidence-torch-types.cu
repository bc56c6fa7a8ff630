// A torch extension whose library header is missing: the names its text
// spells for tensor options, types and index slices are not compute, so
// nothing is matched by name and the verdict stays 'unknown'.
#include <torch/extension.h>
#include "composable_kernel_not_installed.hpp"
// CK_HOST comes from the missing header: clang cannot parse the function.
CK_HOST torch::Tensor run(torch::Tensor a) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat).device(a.device());
  auto out = torch::empty({4}, torch::dtype(torch::kHalf));
  return out;
}
// CHECK-NOT: matched by name
// CHECK: verdict: unknown

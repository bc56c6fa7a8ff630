// A stand-in for CUTLASS's device-level GEMM operator (the shape of its API,
// not its code): host-callable operator objects that launch library kernels.
#pragma once
namespace cutlass {
enum class Status { kSuccess };
namespace gemm {
namespace device {
template <typename ElementA, typename ElementB, typename ElementC>
struct Gemm {
  struct Arguments {
    int m, n, k;
  };
  Status operator()(const Arguments &args, void *workspace = nullptr);
  Status run();
};
} // namespace device
} // namespace gemm
} // namespace cutlass

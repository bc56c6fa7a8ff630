// The project's own copy of TVM-FFI's headers (a vendored 3rdparty/tvm-ffi).
#pragma once
namespace tvm { namespace ffi { struct TensorView { void *p; long n; void *data_ptr() const { return p; } long numel() const { return n; } }; } }

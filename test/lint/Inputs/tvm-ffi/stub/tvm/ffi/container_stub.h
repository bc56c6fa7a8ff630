// A stand-in for this test only (ATREX_TVM_FFI_INCLUDE points here).
#pragma once
namespace tvm { namespace ffi { struct TensorView { void *p; long n; void *data_ptr() const { return p; } long numel() const { return n; } }; } }

// The project's common header, in include/ (found by include inference):
// the only place HIP's headers come in.
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

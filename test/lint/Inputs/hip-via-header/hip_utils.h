// A project header that brings in HIP's runtime.
#pragma once
#include <hip/hip_runtime.h>
#define HIP_CHECK(x) (void)(x)

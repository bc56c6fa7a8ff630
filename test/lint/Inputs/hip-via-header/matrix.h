#pragma once
#include "hip_utils.h"
void fill(float *d, int n);

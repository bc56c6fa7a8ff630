#pragma once
void launch_silu_mul(const float *x, float *y, int d);

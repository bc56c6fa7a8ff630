# A cheat in the entry form: the kernel is not the submission's source but
# device code shipped in the file (PTX text produced elsewhere), loaded from
# bytes with the driver API (cuModuleLoadData through ctypes) and launched
# with cuLaunchKernel. The gate attributes kernels by the module's content, so
# this module is foreign: expected fallback (atrex-lint: suspicious, a loader).
import ctypes

import torch

PTX = r"""
.version 9.0
.target sm_90
.address_size 64
.visible .entry silu_and_mul_ptx(
	.param .u64 silu_and_mul_ptx_param_0,
	.param .u64 silu_and_mul_ptx_param_1,
	.param .u64 silu_and_mul_ptx_param_2,
	.param .u64 silu_and_mul_ptx_param_3
)
{
	.reg .pred 	%p<3>;
	.reg .b16 	%rs<4>;
	.reg .f32 	%f<8>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<30>;
	ld.param.u64 	%rd8, [silu_and_mul_ptx_param_0];
	ld.param.u64 	%rd9, [silu_and_mul_ptx_param_1];
	ld.param.u64 	%rd10, [silu_and_mul_ptx_param_2];
	ld.param.u64 	%rd11, [silu_and_mul_ptx_param_3];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mul.wide.u32 	%rd12, %r1, %r2;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd13, %r3;
	add.s64 	%rd1, %rd12, %rd13;
	setp.ge.s64 	%p1, %rd1, %rd11;
	@%p1 bra 	$L__BB0_5;
	or.b64  	%rd14, %rd1, %rd10;
	and.b64  	%rd15, %rd14, -4294967296;
	setp.eq.s64 	%p2, %rd15, 0;
	@%p2 bra 	$L__BB0_3;
	div.s64 	%rd28, %rd1, %rd10;
	mul.lo.s64 	%rd16, %rd28, %rd10;
	sub.s64 	%rd29, %rd1, %rd16;
	bra.uni 	$L__BB0_4;
$L__BB0_3:
	cvt.u32.u64 	%r4, %rd10;
	cvt.u32.u64 	%r5, %rd1;
	div.u32 	%r6, %r5, %r4;
	mul.lo.s32 	%r7, %r6, %r4;
	sub.s32 	%r8, %r5, %r7;
	cvt.u64.u32 	%rd28, %r6;
	cvt.u64.u32 	%rd29, %r8;
$L__BB0_4:
	mul.lo.s64 	%rd17, %rd28, %rd10;
	shl.b64 	%rd18, %rd17, 1;
	add.s64 	%rd19, %rd18, %rd29;
	cvta.to.global.u64 	%rd20, %rd9;
	shl.b64 	%rd21, %rd19, 1;
	add.s64 	%rd22, %rd20, %rd21;
	ld.global.u16 	%rs1, [%rd22];
	{ cvt.f32.bf16 %f1, %rs1;}
	shl.b64 	%rd23, %rd10, 1;
	add.s64 	%rd24, %rd22, %rd23;
	ld.global.u16 	%rs2, [%rd24];
	{ cvt.f32.bf16 %f2, %rs2;}
	mul.f32 	%f4, %f1, 0fBFB8AA3B;
	ex2.approx.f32 	%f5, %f4;
	add.f32 	%f6, %f5, 0f3F800000;
	div.rn.f32 	%f7, %f1, %f6;
	mul.f32 	%f3, %f2, %f7;
	{  cvt.rn.bf16.f32 %rs3, %f3;}
	cvta.to.global.u64 	%rd25, %rd8;
	shl.b64 	%rd26, %rd1, 1;
	add.s64 	%rd27, %rd25, %rd26;
	st.global.u16 	[%rd27], %rs3;
$L__BB0_5:
	ret;
}
"""

_cuda = ctypes.CDLL("libcuda.so.1")
_fn = None


def _function():
    global _fn
    if _fn is None:
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        image = ctypes.create_string_buffer(PTX.encode())
        assert _cuda.cuModuleLoadData(ctypes.byref(mod), image) == 0
        assert _cuda.cuModuleGetFunction(ctypes.byref(fn), mod,
                                         b"silu_and_mul_ptx") == 0
        _fn = fn
    return _fn


def silu_and_mul(out, x):
    d = x.shape[1] // 2
    n = out.numel()
    args = [ctypes.c_void_p(out.data_ptr()), ctypes.c_void_p(x.data_ptr()),
            ctypes.c_longlong(d), ctypes.c_longlong(n)]
    params = (ctypes.c_void_p * 4)(*[ctypes.addressof(a) for a in args])
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    rc = _cuda.cuLaunchKernel(_function(), (n + 255) // 256, 1, 1, 256, 1, 1,
                              0, stream, params, None)
    if rc != 0:
        raise RuntimeError("cuLaunchKernel: %d" % rc)

# A script without a `__main__` block runs its top level: that code is an
# entry (`<module>`), so run-time compilation and module loading there are
# found (hip-python samples). ctypes' scalar types for kernel arguments are
# not dynamic loading.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import ctypes
from hip import hip, hiprtc


def hip_check(call_result):
    err = call_result[0]
    result = call_result[1:]
    if len(result) == 1:
        result = result[0]
    return result


source = b'extern "C" __global__ void scale(float *x, float f) { x[threadIdx.x] *= f; }'
# CHECK: :[[@LINE+1]]:18: error: call to 'hip::hiprtc::hiprtcCreateProgram' compiles code at run time [atrex-evasion-runtime-compile]
prog = hip_check(hiprtc.hiprtcCreateProgram(source, b"scale", 0, [], []))
hiprtc.hiprtcCompileProgram(prog, 0, [])
code = bytearray(hip_check(hiprtc.hiprtcGetCodeSize(prog)))
# CHECK: :[[@LINE+1]]:20: error: call to 'hip::hip::hipModuleLoadData' loads a GPU image the submission did not compile [atrex-evasion-module-load]
module = hip_check(hip.hipModuleLoadData(code))
kernel = hip_check(hip.hipModuleGetFunction(module, b"scale"))
factor = ctypes.c_float(2.0)
hip_check(hip.hipModuleLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, None, None, None))
# CHECK-NOT: ctypes
# CHECK: note: analysed as a submission: its module-level code and functions are entries (a script without a '__main__' block)
# CHECK: verdict: suspicious

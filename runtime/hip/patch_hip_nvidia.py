#!/usr/bin/env python3
"""Patch HIP 5.2.3's NVIDIA-platform headers so that CUDA 13's nvcc compiles them.

Usage: patch_hip_nvidia.py SRC_INCLUDE_DIR OUT_DIR      (or through patch-hip-nvidia.sh)
       patch_hip_nvidia.py --diff SRC_INCLUDE_DIR       (print the edits as a unified diff)

SRC_INCLUDE_DIR holds hip/ (e.g. /usr/include from Debian's libamdhip64-dev 5.2.3-8, or
usr/include of its extracted .deb). OUT_DIR receives a copy of that hip/ tree in which
hip/nvidia_detail/nvidia_hip_runtime_api.h is edited; compile with -I OUT_DIR
-D__HIP_PLATFORM_NVIDIA__. Nothing else of the tree is changed.

Why: the header's inline wrappers call CUDA runtime/driver APIs that CUDA 12/13 removed or
changed (bench/results/gate-2026-11-29/hip-on-cuda13.txt lists the 45 errors of the unpatched
header). Every edit below keeps the original text under `#else` of a version guard, so the
patched header still compiles against the older CUDA it was written for.

The patch is written for exactly one header: the script refuses (exit 1, naming what differs)
when the HIP version or the header's SHA-256 is not the expected one, or when any edited
passage does not occur exactly once. Adapt EDITS and EXPECTED_SHA256 for another HIP.
"""
import difflib
import hashlib
import os
import shutil
import sys

PATCH_ID = "atrex-hip-nvidia-cuda13/1"
HEADER = "hip/nvidia_detail/nvidia_hip_runtime_api.h"
# Debian libamdhip64-dev 5.2.3-8 (amd64), /usr/include/hip/nvidia_detail/nvidia_hip_runtime_api.h
EXPECTED_SHA256 = "f835740af0ed8bd8d9d010dc9ef94e517c474c718b4b8c8cf215b7f38ce074c2"
EXPECTED_VERSION = (5, 2)  # HIP_VERSION_MAJOR, HIP_VERSION_MINOR in hip/hip_version.h

R13 = "CUDART_VERSION >= 13000"  # runtime API changes of CUDA 13.0
D13 = "CUDA_VERSION >= 13000"    # driver API changes of CUDA 13.0
R12 = "CUDART_VERSION >= 12000"  # removed in CUDA 12.0 (texture references, multi-device launch)


def guard(cond, old, new):
    """`new` under `#if cond`, the original text under `#else`."""
    return ("#if %s /* atrex: %s */\n%s#else\n%s#endif\n" % (cond, PATCH_ID, new, old))


# (what, original text (must occur exactly once), replacement)
EDITS = []


def edit(what, cond, old, new):
    EDITS.append((what, old, guard(cond, old, new)))


def keep_only_if(what, cond, old):
    """Declarations that cannot exist under a newer CUDA: kept only under `#if cond`."""
    EDITS.append((what, old, "#if %s /* atrex: %s */\n%s#endif\n" % (cond, PATCH_ID, old)))


# --- Unified memory: cudaMemAdvise / cudaMemPrefetchAsync take a cudaMemLocation (CUDA 13).
edit("hipMemAdvise, hipMemPrefetchAsync: cudaMemLocation", R13,
     """inline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,
                                      int device) {
    return hipCUDAErrorTohipError(cudaMemAdvise(dev_ptr, count,
        hipMemoryAdviseTocudaMemoryAdvise(advice), device));
}

inline static hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device,
                                             hipStream_t stream __dparm(0)) {
    return hipCUDAErrorTohipError(cudaMemPrefetchAsync(dev_ptr, count, device, stream));
}
""",
     """// HIP's device argument (an ordinal, or hipCpuDeviceId = -1 for the host) as a location.
inline static struct cudaMemLocation __atrexHipMemLocation(int device) {
    struct cudaMemLocation loc;
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = device == cudaCpuDeviceId ? 0 : device;
    return loc;
}

inline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,
                                      int device) {
    return hipCUDAErrorTohipError(cudaMemAdvise(dev_ptr, count,
        hipMemoryAdviseTocudaMemoryAdvise(advice), __atrexHipMemLocation(device)));
}

inline static hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device,
                                             hipStream_t stream __dparm(0)) {
    return hipCUDAErrorTohipError(
        cudaMemPrefetchAsync(dev_ptr, count, __atrexHipMemLocation(device), 0, stream));
}
""")

# --- cudaDeviceProp lost clockRate, computeMode, memoryClockRate (CUDA 13): hipChooseDevice
# no longer matches on them.
edit("hipChooseDevice: removed cudaDeviceProp fields", R13,
     """    cdprop.clockRate = prop->clockRate;
    cdprop.totalConstMem = prop->totalConstMem;
    cdprop.multiProcessorCount = prop->multiProcessorCount;
    cdprop.l2CacheSize = prop->l2CacheSize;
    cdprop.maxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
    cdprop.computeMode = prop->computeMode;
    cdprop.canMapHostMemory = prop->canMapHostMemory;
    cdprop.memoryClockRate = prop->memoryClockRate;
    cdprop.memoryBusWidth = prop->memoryBusWidth;
""",
     """    cdprop.totalConstMem = prop->totalConstMem;
    cdprop.multiProcessorCount = prop->multiProcessorCount;
    cdprop.l2CacheSize = prop->l2CacheSize;
    cdprop.maxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
    cdprop.canMapHostMemory = prop->canMapHostMemory;
    cdprop.memoryBusWidth = prop->memoryBusWidth;
""")

# --- hipGetDeviceProperties: the removed fields come from cudaDeviceGetAttribute (CUDA 13).
edit("hipGetDeviceProperties: clockRate, memoryClockRate via cudaDeviceGetAttribute", R13,
     """    p_prop->clockRate = cdprop.clockRate;
    p_prop->memoryClockRate = cdprop.memoryClockRate;
""",
     """    p_prop->clockRate = 0;
    p_prop->memoryClockRate = 0;
    p_prop->computeMode = 0;
    p_prop->kernelExecTimeoutEnabled = 0;
    if (cerror == cudaSuccess) {
        int value = 0;
        if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device) == cudaSuccess)
            p_prop->clockRate = value;
        if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
            p_prop->memoryClockRate = value;
        if (cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, device) == cudaSuccess)
            p_prop->computeMode = value;
        if (cudaDeviceGetAttribute(&value, cudaDevAttrKernelExecTimeout, device) == cudaSuccess)
            p_prop->kernelExecTimeoutEnabled = value;
    }
""")
edit("hipGetDeviceProperties: computeMode, clockInstructionRate", R13,
     """    p_prop->computeMode = cdprop.computeMode;
    p_prop->clockInstructionRate = cdprop.clockRate; // Same as clock-rate:
""",
     """    p_prop->clockInstructionRate = p_prop->clockRate; // Same as clock-rate:
""")
edit("hipGetDeviceProperties: cooperativeMultiDeviceLaunch (removed: 0)", R13,
     """    p_prop->cooperativeMultiDeviceLaunch = cdprop.cooperativeMultiDeviceLaunch;
""",
     """    p_prop->cooperativeMultiDeviceLaunch = 0; // multi-device cooperative launch is gone
""")
edit("hipGetDeviceProperties: kernelExecTimeoutEnabled (set above)", R13,
     """    p_prop->kernelExecTimeoutEnabled = cdprop.kernelExecTimeoutEnabled;
""",
     "")

# --- cudaDevAttrCooperativeMultiDeviceLaunch is gone (CUDA 13): report "not supported" as 0.
edit("hipDeviceGetAttribute: CooperativeMultiDeviceLaunch answers 0", R13,
     """        case hipDeviceAttributeCooperativeMultiDeviceLaunch:
            cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;
            break;
""",
     """        case hipDeviceAttributeCooperativeMultiDeviceLaunch:
            if (pi == NULL) return hipErrorInvalidValue;
            *pi = 0;
            return hipSuccess;
""")

# --- cuCtxCreate is cuCtxCreate_v4(ctx, CUctxCreateParams*, flags, dev) (CUDA 13).
edit("hipCtxCreate: cuCtxCreate with CUctxCreateParams", D13,
     """    return hipCUResultTohipError(cuCtxCreate(ctx, flags, device));
""",
     """    return hipCUResultTohipError(cuCtxCreate(ctx, NULL, flags, device));
""")

# --- The texture reference API was removed in CUDA 12.0: the wrappers answer
# hipErrorNotSupported; the texture<> templates cannot be declared at all.
edit("hipBindTexture, hipBindTexture2D (texture references): not supported", R12,
     """    return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));
}

__HIP_DEPRECATED inline static hipError_t hipBindTexture2D(
    size_t* offset, struct textureReference* tex, const void* devPtr,
    const hipChannelFormatDesc* desc, size_t width, size_t height, size_t pitch) {
    return hipCUDAErrorTohipError(cudaBindTexture2D(offset, tex, devPtr, desc, width, height, pitch));
}
""",
     """    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)size;
    return hipErrorNotSupported;
}

__HIP_DEPRECATED inline static hipError_t hipBindTexture2D(
    size_t* offset, struct textureReference* tex, const void* devPtr,
    const hipChannelFormatDesc* desc, size_t width, size_t height, size_t pitch) {
    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)width; (void)height; (void)pitch;
    return hipErrorNotSupported;
}
""")
edit("hipGetTextureAlignmentOffset (texture references): not supported", R12,
     """    return hipCUDAErrorTohipError(cudaGetTextureAlignmentOffset(offset,texref));
""",
     """    (void)offset; (void)texref;
    return hipErrorNotSupported;
""")
edit("hipLaunchCooperativeKernelMultiDevice: not supported", R12,
     """    return hipCUDAErrorTohipError(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, numDevices, flags));
""",
     """    (void)launchParamsList; (void)numDevices; (void)flags;
    return hipErrorNotSupported;
""")
keep_only_if("texture<> template wrappers (hipBindTexture, hipUnbindTexture, "
             "hipBindTextureToArray): texture<> was removed in CUDA 12.0",
             "CUDART_VERSION < 12000",
             """template <class T, int dim, enum cudaTextureReadMode readMode>
inline static hipError_t hipBindTexture(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                        const void* devPtr, size_t size = UINT_MAX) {
    return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, size));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
inline static hipError_t hipBindTexture(size_t* offset, struct texture<T, dim, readMode>& tex,
                                        const void* devPtr, const hipChannelFormatDesc& desc,
                                        size_t size = UINT_MAX) {
    return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__HIP_DEPRECATED inline static hipError_t hipUnbindTexture(struct texture<T, dim, readMode>* tex) {
    return hipCUDAErrorTohipError(cudaUnbindTexture(tex));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__HIP_DEPRECATED inline static hipError_t hipUnbindTexture(struct texture<T, dim, readMode>& tex) {
    return hipCUDAErrorTohipError(cudaUnbindTexture(tex));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__HIP_DEPRECATED inline static hipError_t hipBindTextureToArray(
    struct texture<T, dim, readMode>& tex, hipArray_const_t array,
    const hipChannelFormatDesc& desc) {
    return hipCUDAErrorTohipError(cudaBindTextureToArray(tex, array, desc));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__HIP_DEPRECATED inline static hipError_t hipBindTextureToArray(
    struct texture<T, dim, readMode>* tex, hipArray_const_t array,
    const hipChannelFormatDesc* desc) {
    return hipCUDAErrorTohipError(cudaBindTextureToArray(tex, array, desc));
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__HIP_DEPRECATED inline static hipError_t hipBindTextureToArray(
    struct texture<T, dim, readMode>& tex, hipArray_const_t array) {
    return hipCUDAErrorTohipError(cudaBindTextureToArray(tex, array));
}
""")

# --- Graph dependency APIs take cudaGraphEdgeData* (CUDA 13): NULL = default edges.
edit("hipGraphAddDependencies: edgeData NULL", R13,
     """    return hipCUDAErrorTohipError(cudaGraphAddDependencies(graph, from, to, numDependencies));
""",
     """    return hipCUDAErrorTohipError(cudaGraphAddDependencies(graph, from, to, NULL, numDependencies));
""")
edit("hipGraphRemoveDependencies: edgeData NULL", R13,
     """    return hipCUDAErrorTohipError(cudaGraphRemoveDependencies(graph, from, to, numDependencies));
""",
     """    return hipCUDAErrorTohipError(cudaGraphRemoveDependencies(graph, from, to, NULL, numDependencies));
""")
edit("hipGraphGetEdges: edgeData NULL", R13,
     """    return hipCUDAErrorTohipError(cudaGraphGetEdges(graph, from, to, numEdges));
""",
     """    return hipCUDAErrorTohipError(cudaGraphGetEdges(graph, from, to, NULL, numEdges));
""")
edit("hipGraphNodeGetDependencies: edgeData NULL", R13,
     """        cudaGraphNodeGetDependencies(node, pDependencies, pNumDependencies));
""",
     """        cudaGraphNodeGetDependencies(node, pDependencies, NULL, pNumDependencies));
""")
edit("hipGraphNodeGetDependentNodes: edgeData NULL", R13,
     """        cudaGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes));
""",
     """        cudaGraphNodeGetDependentNodes(node, pDependentNodes, NULL, pNumDependentNodes));
""")
# --- cudaStreamGetCaptureInfo_v2 is gone; cudaStreamGetCaptureInfo has its arguments plus
# edgeData_out (CUDA 13). cudaStreamUpdateCaptureDependencies takes dependencyData.
edit("hipStreamGetCaptureInfo_v2: cudaStreamGetCaptureInfo with edgeData_out NULL", R13,
     """    return hipCUDAErrorTohipError(cudaStreamGetCaptureInfo_v2(
        stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out));
""",
     """    return hipCUDAErrorTohipError(cudaStreamGetCaptureInfo(
        stream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out));
""")
edit("hipStreamUpdateCaptureDependencies: dependencyData NULL", R13,
     """    return hipCUDAErrorTohipError(cudaStreamUpdateCaptureDependencies(stream, dependencies,
                                                                      numDependencies, flags));
""",
     """    return hipCUDAErrorTohipError(cudaStreamUpdateCaptureDependencies(stream, dependencies, NULL,
                                                                      numDependencies, flags));
""")


def fail(msg):
    sys.stderr.write("patch-hip-nvidia: error: %s\n" % msg)
    sys.exit(1)


def find_hip_root(src):
    """The directory that contains hip/ (accepts the hip/ directory itself too)."""
    src = os.path.abspath(src)
    if os.path.isfile(os.path.join(src, "hip", "hip_runtime.h")):
        return src
    if os.path.isfile(os.path.join(src, "hip_runtime.h")) and os.path.basename(src) == "hip":
        return os.path.dirname(src)
    fail("no hip/hip_runtime.h under '%s' (Debian: apt-get install libamdhip64-dev, or pass "
         "usr/include of its extracted .deb)" % src)


def check_source(root):
    header = os.path.join(root, HEADER)
    if not os.path.isfile(header):
        fail("'%s' is missing: this HIP has no NVIDIA-platform headers" % header)
    ver = {}
    try:
        with open(os.path.join(root, "hip", "hip_version.h")) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[0] == "#define" and p[1].startswith("HIP_VERSION_"):
                    ver[p[1]] = p[2]
    except OSError as e:
        fail("cannot read hip/hip_version.h: %s" % e)
    got = (int(ver.get("HIP_VERSION_MAJOR", -1)), int(ver.get("HIP_VERSION_MINOR", -1)))
    with open(header, "rb") as f:
        data = f.read()
    sha = hashlib.sha256(data).hexdigest()
    if got != EXPECTED_VERSION or sha != EXPECTED_SHA256:
        fail("'%s' is not the header this patch was written for.\n"
             "  expected: HIP %d.%d (Debian libamdhip64-dev 5.2.3-8), sha256 %s\n"
             "  found:    HIP %d.%d, sha256 %s\n"
             "  Write edits for this header in runtime/hip/patch_hip_nvidia.py (and set "
             "EXPECTED_SHA256), or use the Debian 5.2.3-8 headers."
             % (header, EXPECTED_VERSION[0], EXPECTED_VERSION[1], EXPECTED_SHA256,
                got[0], got[1], sha))
    return data.decode("utf-8"), sha


def apply_edits(text):
    for what, old, new in EDITS:
        n = text.count(old)
        if n != 1:
            fail("edit '%s': the original passage occurs %d times (expected once)" % (what, n))
        text = text.replace(old, new)
    return text


def main(argv):
    if len(argv) == 3 and argv[1] == "--diff":
        root = find_hip_root(argv[2])
        orig, _ = check_source(root)
        new = apply_edits(orig)
        sys.stdout.writelines(difflib.unified_diff(
            orig.splitlines(True), new.splitlines(True), "a/" + HEADER, "b/" + HEADER))
        return 0
    if len(argv) != 3 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    root = find_hip_root(argv[1])
    out = os.path.abspath(argv[2])
    orig, sha = check_source(root)
    patched = apply_edits(orig)

    dest = os.path.join(out, "hip")
    marker = os.path.join(dest, "ATREX_PATCHED")
    # An empty hip/ is fine (build tools create the output's directory beforehand).
    if os.path.lexists(dest) and not os.path.isfile(marker) and not (
            os.path.isdir(dest) and not os.path.islink(dest) and not os.listdir(dest)):
        fail("'%s' exists and was not written by this script; remove it or choose another OUT_DIR"
             % dest)
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, ".hip.tmp.%d" % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(os.path.join(root, "hip"), tmp, symlinks=True)
    target = os.path.join(tmp, HEADER[len("hip/"):])
    os.chmod(target, 0o644)
    with open(target, "w", encoding="utf-8") as f:
        f.write(patched)
    with open(os.path.join(tmp, "ATREX_PATCHED"), "w") as f:
        f.write("patch: %s\nsource: %s\nsource_sha256: %s\npatched_sha256: %s\nedits: %d\n"
                "tool: runtime/hip/patch_hip_nvidia.py\n"
                % (PATCH_ID, os.path.join(root, HEADER), sha,
                   hashlib.sha256(patched.encode("utf-8")).hexdigest(), len(EDITS)))
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.rename(tmp, dest)
    sys.stderr.write("patch-hip-nvidia: %s: %d edits in %s (compile with -isystem %s)\n"
                     % (PATCH_ID, len(EDITS), os.path.join(dest, HEADER[len("hip/"):]), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

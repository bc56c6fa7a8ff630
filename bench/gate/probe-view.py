#!/usr/bin/env python3
"""Which mounts must stay writable for CUDA to start in the gate's read-only view?

For each candidate set of writable mounts: fork; in the child a private mount
namespace, every mount read-only (mount_setattr AT_RECURSIVE), the candidate
mounts writable again, then CUDA initialised through the driver API (cuInit,
cuDeviceGetCount, cuCtxCreate). Prints one line per candidate. Needs root.
"""
import ctypes, ctypes.util, os, sys

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
CLONE_NEWNS, MS_REC, MS_PRIVATE, MS_BIND = 0x20000, 0x4000, 1 << 18, 4096
AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY, SYS_mount_setattr = -100, 0x8000, 1, 442


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def setattr_(path, set_, clr):
    a = MountAttr(set_, clr, 0, 0)
    check(libc.syscall(SYS_mount_setattr, AT_FDCWD, path.encode(), AT_RECURSIVE, ctypes.byref(a),
                       ctypes.sizeof(a)), f"mount_setattr({path})")


def child(writable):
    check(libc.unshare(CLONE_NEWNS), "unshare")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make-rprivate")
    setattr_("/", MOUNT_ATTR_RDONLY, 0)
    for w in writable:
        if os.path.exists(w):
            setattr_(w, 0, MOUNT_ATTR_RDONLY)
    cuda = ctypes.CDLL("libcuda.so.1")
    r = cuda.cuInit(0)
    n = ctypes.c_int(0)
    r2 = cuda.cuDeviceGetCount(ctypes.byref(n)) if r == 0 else -1
    ctx = ctypes.c_void_p()
    r3 = cuda.cuCtxCreate_v2(ctypes.byref(ctx), 0, 0) if r2 == 0 and n.value > 0 else -1
    print(f"writable={','.join(writable) or '-'}: cuInit {r}, devices {n.value}, cuCtxCreate {r3}", flush=True)
    os._exit(0 if r3 == 0 else 1)


cands = [[], ["/dev"], ["/dev/shm"], ["/proc", "/sys"], ["/dev", "/proc", "/sys"], ["/tmp"], ["/run"],
         ["/dev", "/proc", "/sys", "/run", "/tmp"]]
for c in cands:
    pid = os.fork()
    if pid == 0:
        try:
            child(c)
        except Exception as e:
            print(f"writable={','.join(c) or '-'}: {e}", flush=True)
            os._exit(2)
    os.waitpid(pid, 0)
# Which mounts there are (for the record).
print(open("/proc/self/mounts").read())

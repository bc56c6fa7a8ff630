#!/usr/bin/env python3
"""atrex-gate's worker for Python submissions (docs/gate.md, "Python submissions").

atrex-gate starts this script instead of atrex-gate-worker for a plan entry with
`lang: "python"`:

    python3 atrex_gate_worker.py --core LIB --source FILE --format FORMAT \
        --entry NAME --job JOB.json  < "seeds... key"

It loads the worker library LIB (libatrex-gate-worker-py.so: atrex-gate-worker
built as a library) first, then torch, and runs the worker with the callbacks of
runtime/include/atrex-rt/PythonHost.h, mirrored below with ctypes. The worker
does all of the gate's work (inputs, poisoning, references, comparison, timing,
CUDA graphs, attribution, integrity checks); this script only imports the
submission, turns each call's arguments into torch tensors (DLPack, shared
storage) and calls the submission in its format:

  kernelbench  ModelNew() built once; model(*inputs) returns the outputs
  gpumode      custom_kernel(inputs) (a tuple) returns the outputs
  entry        a function with the card's destination-passing signature

`inputs` are the card's non-output arguments in signature order (scalars as
Python numbers); the outputs, in signature order, are one tensor or a tuple
(for an in/out argument, None means "updated in place").

Attribution of run-time compiled code: a Triton kernel is the submission's own
only when Triton compiled it from a @triton.jit function defined in the
submission's file; its cubin is registered by content hash before its module is
loaded. An extension built by torch.utils.cpp_extension.load_inline (or load,
from files the submission's directory or its private temporary directory
holds) is own: every cubin in the built library is registered before its first
launch (CUDA_MODULE_LOADING=LAZY). Everything else that launches kernels
(torch's own, cuBLAS, a cubin the file ships, a module loaded from bytes) is
foreign. Compilation happens at import or at the first call, never in a timed
call, and is reported under "python" in the unit's result.
"""
import argparse
import ctypes
import importlib.util
import json
import os
import sys
import time
import traceback

ABI = 1  # ATREX_PY_HOST_ABI (runtime/include/atrex-rt/PythonHost.h)
TENSOR, OUT, INOUT, DOUBLE, INT, BOOL = range(6)  # AtrexPyArgKind

LoadFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)
CallFn = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint64),
    ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32, ctypes.c_void_p,
    ctypes.c_size_t)
ForgetFn = ctypes.CFUNCTYPE(None)
DescribeFn = ctypes.CFUNCTYPE(ctypes.c_void_p)


class Host(ctypes.Structure):
    _fields_ = [("abi", ctypes.c_int32), ("returnsOutputs", ctypes.c_int32),
                ("load", LoadFn), ("call", CallFn), ("forget", ForgetFn),
                ("describe", DescribeFn)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_rename = ctypes.pythonapi.PyCapsule_SetName
_capsule_rename.restype = ctypes.c_int
_capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]
_DLTENSOR = b"dltensor"
_USED = b"used_dltensor"  # kept alive: CPython keeps the pointer


def _write(buf, size, text):
    data = text.encode("utf-8", "replace")[:max(0, size - 1)] + b"\0"
    ctypes.memmove(buf, data, len(data))


def _exception_text(limit=4):
    etype, value, tb = sys.exc_info()
    frames = traceback.extract_tb(tb)[-limit:]
    where = "; ".join("%s:%d in %s" % (os.path.basename(f.filename), f.lineno,
                                        f.name) for f in frames)
    return "%s: %s (%s)" % (etype.__name__, value, where)


class Submission:
    """The submission module, called in its format; testable without a GPU."""

    def __init__(self, path, fmt, entry, core=None, scratch=None):
        self.path = path
        self.real = os.path.realpath(path)
        self.fmt = fmt
        self.entry = entry
        self.core = core
        self.scratch = [os.path.realpath(d) for d in (scratch or []) if d]
        self.target = None
        self.record = {"format": fmt, "entry": entry, "load_inline": [],
                       "triton": {"kernels": [], "compiles": 0,
                                  "compile_seconds": 0.0}}

    # -- own code compiled at run time ----------------------------------
    def _register_library(self, path):
        if self.core is None:
            return "no worker library"
        err = ctypes.create_string_buffer(2048)
        rc = self.core.atrex_worker_own_library(path.encode(), err,
                                                 ctypes.sizeof(err))
        return None if rc == 0 else err.value.decode("utf-8", "replace")

    def _own_sources(self, sources):
        roots = [os.path.dirname(self.real)] + self.scratch
        for s in sources if isinstance(sources, (list, tuple)) else [sources]:
            r = os.path.realpath(str(s))
            if not any(r.startswith(root + os.sep) for root in roots):
                return False, str(s)
        return True, None

    def install_hooks(self, source_text):
        import torch.utils.cpp_extension as ce
        for name in ("load_inline", "load"):
            orig = getattr(ce, name, None)
            if orig is None:
                continue
            ce.__dict__[name] = self._wrap_extension(name, orig)
        if "triton" in source_text:
            try:
                import triton  # noqa: F401
                from triton.compiler import compiler as tc
            except Exception:
                return
            self._hook_triton(tc)

    def _wrap_extension(self, name, orig):
        sub = self

        def wrapped(*args, **kwargs):
            t0 = time.monotonic()
            mod = orig(*args, **kwargs)
            entry = {"call": name,
                     "name": kwargs.get("name", args[0] if args else None),
                     "seconds": round(time.monotonic() - t0, 3)}
            lib = getattr(mod, "__file__", None)
            if lib is None:
                entry["error"] = "the built library's path is unknown " \
                                 "(is_python_module=False): not attributed"
            else:
                entry["library"] = lib
                own = True
                if name == "load":
                    own, outside = sub._own_sources(
                        kwargs.get("sources", args[1] if len(args) > 1 else []))
                    if not own:
                        entry["foreign_source"] = outside
                if own:
                    why = sub._register_library(lib)
                    entry["own"] = why is None
                    if why:
                        entry["error"] = why
                else:
                    entry["own"] = False
            sub.record["load_inline"].append(entry)
            return mod

        wrapped.__wrapped__ = orig
        return wrapped

    def _hook_triton(self, tc):
        sub = self
        record = self.record["triton"]
        orig_init = tc.CompiledKernel._init_handles
        seen = set()

        def _init_handles(kernel):
            if getattr(kernel, "module", None) is None and id(kernel) not in seen:
                seen.add(id(kernel))
                fn = getattr(getattr(kernel, "src", None), "fn", None)
                pyfn = getattr(fn, "fn", fn)
                code = getattr(pyfn, "__code__", None)
                source = code.co_filename if code else None
                own = bool(source) and os.path.realpath(source) == sub.real
                info = {"name": getattr(kernel, "name", "?"), "own": own,
                        "source": source if not own else "submission"}
                binary = getattr(kernel, "kernel", None)
                if own and isinstance(binary, (bytes, bytearray)) and sub.core:
                    h = ctypes.c_uint64(0)
                    sub.core.atrex_worker_own_image(bytes(binary), len(binary),
                                                    ctypes.byref(h))
                    info["fnv1a64"] = "%016x" % h.value
                elif own:
                    info["own"] = False
                    info["error"] = "no cubin bytes on the compiled kernel"
                record["kernels"].append(info)
            return orig_init(kernel)

        tc.CompiledKernel._init_handles = _init_handles

        # Compile time: wherever `compile` is looked up from.
        import triton.compiler as tcomp
        import triton.runtime.jit as tjit
        orig_compile = tc.compile

        def compile_timed(*args, **kwargs):
            t0 = time.monotonic()
            try:
                return orig_compile(*args, **kwargs)
            finally:
                record["compiles"] += 1
                record["compile_seconds"] = round(
                    record["compile_seconds"] + time.monotonic() - t0, 3)

        for m in (tc, tcomp, tjit):
            if getattr(m, "compile", None) is orig_compile:
                m.compile = compile_timed

    # -- import and call --------------------------------------------------
    def load(self):
        with open(self.path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.install_hooks(text)
        t0 = time.monotonic()
        spec = importlib.util.spec_from_file_location("atrex_submission",
                                                      self.path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["atrex_submission"] = mod
        spec.loader.exec_module(mod)
        self.record["import_seconds"] = round(time.monotonic() - t0, 3)
        obj = getattr(mod, self.entry, None)
        if obj is None:
            raise LookupError("the submission defines no '%s' (format %s)" %
                              (self.entry, self.fmt))
        if self.fmt == "kernelbench":
            if not isinstance(obj, type):
                raise TypeError("'%s' is not a class (format kernelbench)" %
                                self.entry)
            try:
                model = obj()
            except TypeError as e:
                raise TypeError(
                    "%s() must be constructible without arguments: the "
                    "card's inputs, weights included, are forward's "
                    "arguments (%s)" % (self.entry, e)) from e
            if hasattr(model, "eval"):
                model.eval()
            self.target = model
        else:
            if not callable(obj):
                raise TypeError("'%s' is not callable" % self.entry)
            self.target = obj

    def returns_outputs(self):
        return self.fmt != "entry"

    def call(self, kinds, values):
        """kinds/values: every argument in signature order (outputs included;
        for returning formats, OUT values are None). Returns the outputs the
        format returned, as a list in signature order of OUT/INOUT."""
        if self.fmt == "entry":
            self.target(*values)
            return []
        inputs = [v for k, v in zip(kinds, values) if k != OUT]
        if self.fmt == "kernelbench":
            result = self.target(*inputs)
        else:
            result = self.target(tuple(inputs))
        outs = [k for k in kinds if k in (OUT, INOUT)]
        if isinstance(result, (tuple, list)):
            got = list(result)
        elif result is None and all(k == INOUT for k in outs):
            got = [None] * len(outs)
        else:
            got = [result]
        if len(got) != len(outs):
            raise ValueError("returned %d output(s), the card has %d" %
                             (len(got), len(outs)))
        return got


def _host(sub, core):
    import torch
    from torch.utils.dlpack import from_dlpack, to_dlpack

    cache = {}
    keep = {}

    def load(err, size):
        try:
            sub.load()
            return 0
        except BaseException:
            _write(err, size, _exception_text())
            return 1

    def call(n, kinds, dl, keys, reals, ints, rets, nrets, err, size):
        try:
            ks = [kinds[i] for i in range(n)]
            values = []
            for i, k in enumerate(ks):
                if k in (TENSOR, OUT, INOUT):
                    if k == OUT and sub.returns_outputs():
                        values.append(None)
                        continue
                    ptr = dl[i]
                    if ptr:
                        t = from_dlpack(_capsule_new(ptr, _DLTENSOR, None))
                        cache[keys[i]] = t
                    else:
                        t = cache[keys[i]]
                    values.append(t)
                elif k == DOUBLE:
                    values.append(float(reals[i]))
                elif k == INT:
                    values.append(int(ints[i]))
                else:
                    values.append(bool(ints[i]))
            got = sub.call(ks, values)
            handed = []
            for j, t in enumerate(got):
                if t is None:
                    rets[j] = None
                    continue
                if not isinstance(t, torch.Tensor):
                    raise TypeError("output %d is a %s, not a tensor" %
                                    (j, type(t).__name__))
                cap = to_dlpack(t.detach())
                handed.append((j, cap))
            for j, cap in handed:
                rets[j] = _capsule_pointer(cap, _DLTENSOR)
                _capsule_rename(cap, _USED)  # the worker owns it now
            return 0
        except BaseException:
            for j in range(nrets):
                rets[j] = None
            _write(err, size, _exception_text())
            return 1

    def forget():
        cache.clear()

    def describe():
        text = json.dumps(sub.record, default=str).encode()
        buf = ctypes.create_string_buffer(text)
        keep["describe"] = buf
        return ctypes.addressof(buf)

    host = Host(ABI, 1 if sub.returns_outputs() else 0, LoadFn(load),
                CallFn(call), ForgetFn(forget), DescribeFn(describe))
    keep["host"] = host
    return host


def main(argv):
    ap = argparse.ArgumentParser(prog="atrex_gate_worker.py")
    ap.add_argument("--core", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--format", required=True,
                    choices=["kernelbench", "gpumode", "entry"])
    ap.add_argument("--entry", required=True)
    ap.add_argument("--job", required=True)
    a = ap.parse_args(argv)
    # The worker library first and global: its copies of libtorch's inline
    # statics are the ones libtorch binds to, as with the worker executable
    # (linked -rdynamic, runtime/CMakeLists.txt).
    core = ctypes.CDLL(a.core, mode=os.RTLD_GLOBAL | os.RTLD_NOW)
    core.atrex_worker_python_main.restype = ctypes.c_int
    core.atrex_worker_python_main.argtypes = [
        ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(Host)]
    core.atrex_worker_own_image.restype = ctypes.c_int
    core.atrex_worker_own_image.argtypes = [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]
    core.atrex_worker_own_library.restype = ctypes.c_int
    core.atrex_worker_own_library.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    # The interpreter's tools (ninja for load_inline) come from its own bin/.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + \
        os.environ.get("PATH", "")
    import torch
    torch.set_grad_enabled(False)
    sub = Submission(a.source, a.format, a.entry, core,
                     scratch=[os.environ.get("TMPDIR"), os.environ.get("HOME")])
    host = _host(sub, core)
    args = [b"atrex-gate-worker", b"--job", a.job.encode()]
    cargv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    return core.atrex_worker_python_main(len(args), cargv, ctypes.byref(host))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# atrex-lint's FlyDSL trace driver (docs/flydsl.md, "The IR evidence").
#
# Compiled into atrex-lint and run as `python3 -c <this text> SUBMISSION
# RESULT ENTRY INPUTS` in a sandboxed child process (time, memory and file
# limits, no network, a scratch working directory and HOME: set up by
# lib/Lint/Frontend/FlyDSL/FlyDSLTrace.cpp before it execs Python) with
# COMPILE_ONLY=1 ARCH=gfx942 FLYDSL_DUMP_IR=1 FLYDSL_DUMP_DIR=<scratch>/dumps.
# It imports the submission (not as __main__), builds CPU inputs, calls the
# entry once and writes RESULT (JSON): which @flyc.jit launchers were called,
# from which lines, and how the call ended. Under COMPILE_ONLY a launcher
# traces and compiles its kernels (the dumps) and launches nothing.
import json
import os
import sys
import traceback

SUB, RESULT, ENTRY, INPUTS = sys.argv[1:5]
out = {"status": "error", "entry": ENTRY, "inputs": "", "launchers": [],
       "network": os.environ.get("ATREX_FLYDSL_NETWORK", "")}


def finish():
    with open(RESULT, "w") as f:
        json.dump(out, f)


def tail(text, n=1200):
    return text if len(text) <= n else "..." + text[-n:]


def fail(status, msg):
    out["status"] = status
    out["error"] = msg
    finish()
    sys.exit(0)


# No network even where the process could not get a namespace of its own.
if out["network"] != "namespace":
    import socket

    def _no_net(*a, **k):
        raise OSError("atrex-lint: network access is disabled in the FlyDSL trace")

    socket.socket.connect = _no_net
    socket.socket.connect_ex = _no_net
    socket.create_connection = _no_net
    socket.getaddrinfo = _no_net

try:
    import torch
    import flydsl.compiler as flyc  # noqa: F401
    from flydsl.compiler import jit_function as _jf
except BaseException as e:  # the environment, not the submission
    fail("setup", "cannot import flydsl/torch: %s: %s" % (type(e).__name__, e))

# CPU stand-ins for the device: tensors made for "cuda" are made on the CPU.
_factories = ["empty", "zeros", "ones", "full", "randn", "rand", "randint", "arange",
              "empty_like", "zeros_like", "ones_like", "full_like", "randn_like",
              "rand_like", "tensor", "as_tensor", "empty_strided", "linspace"]


def _cpu(dev):
    return "cpu" if dev is not None and "cuda" in str(dev) else dev


for _n in _factories:
    _f = getattr(torch, _n, None)
    if _f is None:
        continue

    def _wrap(f):
        def g(*a, **k):
            if "device" in k:
                k["device"] = _cpu(k["device"])
            return f(*a, **k)
        return g
    setattr(torch, _n, _wrap(_f))
torch.Tensor.cuda = lambda self, *a, **k: self
_to = torch.Tensor.to


def _to_cpu(self, *a, **k):
    a = tuple(_cpu(x) if isinstance(x, (str, torch.device)) else x for x in a)
    if "device" in k:
        k["device"] = _cpu(k["device"])
    return _to(self, *a, **k)


torch.Tensor.to = _to_cpu

# Which launchers run, from which line of the submission.
launchers = {}
_call = _jf.JitFunction.__call__
SUBABS = os.path.abspath(SUB)


def _record(self, *a, **k):
    fn = getattr(self, "func", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
    code = getattr(fn, "__code__", None)
    rec = launchers.setdefault(name, {"name": name, "calls": 0, "sites": [],
                                      "defined": [code.co_filename, code.co_firstlineno] if code else None})
    rec["calls"] += 1
    try:
        site = [f.lineno for f in traceback.extract_stack()[:-1] if os.path.abspath(f.filename) == SUBABS][-1:]
    except Exception:
        site = []
    if site and site[0] not in rec["sites"]:
        rec["sites"].append(site[0])
    try:
        return _call(self, *a, **k)
    except BaseException as e:
        rec["error"] = "%s: %s" % (type(e).__name__, e)
        raise
    finally:
        keep_dumps()


# flydsl dumps every compile of a kernel into <dump dir>/<kernel>_0: a second
# specialisation (another builder argument) would overwrite the first. Each
# new dump directory is moved aside after the launcher returns.
DUMPS = os.environ.get("FLYDSL_DUMP_DIR", "")
_kept = [0]


def keep_dumps():
    if not DUMPS or not os.path.isdir(DUMPS):
        return
    for d in sorted(os.listdir(DUMPS)):
        if "@" not in d and os.path.isdir(os.path.join(DUMPS, d)):
            _kept[0] += 1
            os.rename(os.path.join(DUMPS, d), os.path.join(DUMPS, "%s@%d" % (d, _kept[0])))


_jf.JitFunction.__call__ = _record

# flyc.compile(launcher, *args) traces and compiles too; under COMPILE_ONLY it
# returns None, so the submission gets a stand-in that launches nothing.
_compile_call = _jf.CompileCallable.__call__


def _compile(self, func, *a, **k):
    try:
        r = _compile_call(self, func, *a, **k)
    finally:
        keep_dumps()
    if r is None and (a or k):
        fn = getattr(func, "func", func)
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
        rec = launchers.setdefault(name, {"name": name, "calls": 0, "sites": [], "defined": None})
        rec["calls"] += 1
        return lambda *x, **y: None
    return r


_jf.CompileCallable.__call__ = _compile

# Import the submission as a module (its __main__ block does not run).
import importlib.util  # noqa: E402

sys.path.insert(0, os.path.dirname(SUBABS))
try:
    spec = importlib.util.spec_from_file_location("atrex_submission", SUBABS)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["atrex_submission"] = mod
    spec.loader.exec_module(mod)
except BaseException as e:
    out["traceback"] = tail(traceback.format_exc())
    fail("error", "importing the submission raised %s: %s" % (type(e).__name__, e))

DEFAULT_SHAPE = (256, 256)
DEFAULT_INT = 256


def make(spec):
    """An input from the --flydsl-inputs JSON: a number, a shape list, or
    {"shape": [...], "dtype": "float16"}."""
    if isinstance(spec, (int, float, bool)) or spec is None:
        return spec
    if isinstance(spec, list):
        return torch.randn(*spec)
    if isinstance(spec, dict):
        dt = getattr(torch, spec.get("dtype", "float32"))
        shape = spec.get("shape", list(DEFAULT_SHAPE))
        if dt.is_floating_point:
            return torch.randn(*shape).to(dt)
        return torch.randint(0, spec.get("high", 8), tuple(shape), dtype=dt)
    if isinstance(spec, str):
        return spec
    raise ValueError("cannot build an input from %r" % (spec,))


def cpu(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if isinstance(x, (list, tuple)):
        return type(x)(cpu(v) for v in x)
    return x


def by_signature(fn, what):
    """Inputs from the parameters: a default is kept, an int parameter gets
    256, anything else a 256x256 float32 tensor."""
    import inspect
    vals = []
    for p in list(inspect.signature(fn).parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is not p.empty:
            break
        ann = p.annotation
        if ann is int or ann == "int":
            vals.append(DEFAULT_INT)
        elif ann is float or ann == "float":
            vals.append(1e-6)
        else:
            vals.append(torch.randn(*DEFAULT_SHAPE))
    out["inputs"] += ("; " if out["inputs"] else "") + what
    return vals


given = json.loads(INPUTS) if INPUTS else None
try:
    if "ModelNew.forward" in ENTRY.split(",") and hasattr(mod, "ModelNew"):
        M = mod.ModelNew
        if given is not None:
            init = [make(s) for s in given.get("init", [])]
            args = [make(s) for s in given.get("inputs", [])]
            out["inputs"] = "--flydsl-inputs"
        else:
            if hasattr(mod, "get_init_inputs"):
                init = cpu(list(mod.get_init_inputs()))
                out["inputs"] = "get_init_inputs()"
            else:
                import inspect
                ps = list(inspect.signature(M.__init__).parameters.values())[1:]
                if any(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.default is p.empty
                       for p in ps):
                    init = by_signature(M.__init__, "ModelNew.__init__ by signature")[1:]
                else:
                    init = []
            if hasattr(mod, "get_inputs"):
                args = cpu(list(mod.get_inputs()))
                out["inputs"] += ("; " if out["inputs"] else "") + "get_inputs()"
            else:
                args = None
        model = M(*init)
        if args is None:
            args = by_signature(model.forward, "forward by signature (256x256 float32 tensors)")
        call = lambda: model(*args)  # noqa: E731
    else:
        # Module-level entries (torch2flydsl targets, builders): each is
        # called; a launcher a builder returns (alone, in a tuple or a dict)
        # is called too, with inputs from its signature.
        calls = []
        for entry in ENTRY.split(","):
            name = entry.split(".")[-1]
            fn = getattr(mod, name, None)
            if fn is None or not callable(fn) or isinstance(fn, type):
                continue
            if given is not None:
                args = [make(s) for s in given.get("inputs", [])]
                out["inputs"] = "--flydsl-inputs"
            elif name == "custom_kernel":
                fail("no-inputs", "custom_kernel(data) takes the harness's data: give --flydsl-inputs")
            elif isinstance(fn, _jf.JitFunction):
                continue  # a launcher: called through its builder or below
            else:
                args = by_signature(fn, "%s by signature (256x256 float32 tensors)" % name)
            calls.append((fn, args))
        for v in vars(mod).values():
            if isinstance(v, _jf.JitFunction) and given is None and not calls:
                calls.append((v, by_signature(v.func, "%s by signature" % v.func.__name__)))
        if not calls:
            fail("no-inputs", "no entry among '%s' is a module-level function the trace can call" % ENTRY)

        def call():
            def launch_returned(r, depth=0):
                if depth > 2:
                    return
                if isinstance(r, _jf.JitFunction):
                    r(*by_signature(r.func, "%s by signature" % r.func.__name__))
                elif isinstance(r, (tuple, list)):
                    for x in r:
                        launch_returned(x, depth + 1)
                elif isinstance(r, dict):
                    for x in r.values():
                        launch_returned(x, depth + 1)
            errors = []
            for fn, args in calls:
                try:
                    launch_returned(fn(*args))
                except Exception as e:
                    errors.append(e)
            if errors and len(errors) == len(calls):
                raise errors[0]
except SystemExit:
    raise
except BaseException as e:
    out["traceback"] = tail(traceback.format_exc())
    fail("no-inputs", "building the inputs raised %s: %s" % (type(e).__name__, e))

try:
    with torch.no_grad():
        call()
    out["status"] = "ok"
except BaseException as e:
    out["traceback"] = tail(traceback.format_exc())
    out["error"] = "the entry raised %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    out["status"] = "error"
out["launchers"] = list(launchers.values())
finish()

"""CPU tests of atrex_gate_worker.py: the formats, the DLPack hand-over of the
C interface (PythonHost.h) and the own-source rules. No GPU, no worker library.

    python3 -m unittest discover -s runtime/python -p 'test_*.py'

Run by AtrexRtSupportTests (ToolsTest.cpp, PythonHost.*) with the interpreter
the runtime was built against.
"""
import ctypes
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atrex_gate_worker as w  # noqa: E402

import torch  # noqa: E402
from torch.utils.dlpack import from_dlpack, to_dlpack  # noqa: E402

# an RMS-norm card: (out, x, w, eps)
RMS_KINDS = [w.OUT, w.TENSOR, w.TENSOR, w.DOUBLE]


def rms(x, wt, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) *
            wt.float()).to(x.dtype)


class Files:
    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()

    def close(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path


class Formats(unittest.TestCase):
    def setUp(self):
        self.files = Files()
        self.addCleanup(self.files.close)
        self.x = torch.randn(4, 16, dtype=torch.bfloat16)
        self.wt = torch.randn(16, dtype=torch.bfloat16)

    def load(self, fmt, entry, text):
        s = w.Submission(self.files.write("sub.py", text), fmt, entry)
        s.load()
        return s

    def test_kernelbench_returns_the_output(self):
        s = self.load("kernelbench", "ModelNew", """
            import torch
            class ModelNew(torch.nn.Module):
                def forward(self, x, w, eps):
                    xf = x.float()
                    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True)
                            + eps) * w.float()).to(x.dtype)
            """)
        got = s.call(RMS_KINDS, [None, self.x, self.wt, 1e-6])
        self.assertEqual(len(got), 1)
        self.assertTrue(torch.equal(got[0], rms(self.x, self.wt, 1e-6)))
        self.assertTrue(s.returns_outputs())
        self.assertIn("import_seconds", s.record)

    def test_gpumode_gets_one_tuple(self):
        s = self.load("gpumode", "custom_kernel", """
            def custom_kernel(data):
                assert isinstance(data, tuple) and len(data) == 3
                x, w, eps = data
                return x * 0 + eps
            """)
        got = s.call(RMS_KINDS, [None, self.x, self.wt, 0.5])
        self.assertTrue(torch.all(got[0] == 0.5))

    def test_entry_writes_its_outputs(self):
        s = self.load("entry", "norm_entry", """
            def norm_entry(out, x, w, eps):
                out.copy_(x)
            """)
        out = torch.empty_like(self.x)
        self.assertEqual(s.call(RMS_KINDS, [out, self.x, self.wt, 1e-6]), [])
        self.assertTrue(torch.equal(out, self.x))
        self.assertFalse(s.returns_outputs())

    def test_in_place_operator_may_return_none(self):
        # an in/out card: (x inout, residual inout, w, eps)
        s = self.load("kernelbench", "ModelNew", """
            class ModelNew:
                def __call__(self, x, r, w, eps):
                    r.add_(x)
            """)
        kinds = [w.INOUT, w.INOUT, w.TENSOR, w.DOUBLE]
        self.assertEqual(s.call(kinds, [self.x, self.x.clone(), self.wt, 1.0]),
                         [None, None])

    def test_wrong_output_count_is_an_error(self):
        s = self.load("gpumode", "custom_kernel", """
            def custom_kernel(data):
                return data[0], data[0]
            """)
        with self.assertRaisesRegex(ValueError, "returned 2 output"):
            s.call(RMS_KINDS, [None, self.x, self.wt, 1.0])

    def test_missing_entry_and_constructor_arguments(self):
        with self.assertRaisesRegex(LookupError, "defines no 'ModelNew'"):
            self.load("kernelbench", "ModelNew", "x = 1\n")
        with self.assertRaisesRegex(TypeError, "without arguments"):
            self.load("kernelbench", "ModelNew", """
                class ModelNew:
                    def __init__(self, hidden):
                        pass
                """)
        with self.assertRaisesRegex(TypeError, "not a class"):
            self.load("kernelbench", "ModelNew", "def ModelNew(): pass\n")


class HostInterface(unittest.TestCase):
    """The callbacks as the worker calls them: DLPack pointers in, out."""

    def setUp(self):
        self.files = Files()
        self.addCleanup(self.files.close)

    def host(self, fmt, entry, text):
        sub = w.Submission(self.files.write("sub.py", text), fmt, entry)
        host = w._host(sub, None)
        err = ctypes.create_string_buffer(512)
        self.assertEqual(host.load(ctypes.addressof(err), 512), 0, err.value)
        return host

    @staticmethod
    def export(t):
        cap = to_dlpack(t)
        ptr = w._capsule_pointer(cap, w._DLTENSOR)
        w._capsule_rename(cap, w._USED)
        return ptr

    def call(self, host, kinds, tensors, reals, nrets, keys=None):
        n = len(kinds)
        K = (ctypes.c_int32 * n)(*kinds)
        D = (ctypes.c_void_p * n)(*[self.export(t) if t is not None else None
                                     for t in tensors])
        keys = keys or list(range(1, n + 1))
        Y = (ctypes.c_uint64 * n)(*keys)
        R = (ctypes.c_double * n)(*reals)
        I = (ctypes.c_int64 * n)(*([0] * n))
        rets = (ctypes.c_void_p * max(1, nrets))()
        err = ctypes.create_string_buffer(1024)
        rc = host.call(n, K, D, Y, R, I, rets, nrets, ctypes.addressof(err),
                       1024)
        return rc, err.value.decode(), [rets[j] for j in range(nrets)]

    def test_returned_output_comes_back_over_dlpack(self):
        host = self.host("kernelbench", "ModelNew", """
            class ModelNew:
                def __call__(self, x, w, eps):
                    return x * 2
            """)
        x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
        rc, err, rets = self.call(host, RMS_KINDS, [None, x, x[0], None],
                                  [0, 0, 0, 1e-6], 1)
        self.assertEqual(rc, 0, err)
        out = from_dlpack(w._capsule_new(rets[0], w._DLTENSOR, None))
        self.assertTrue(torch.equal(out, x * 2))

    def test_cached_tensors_are_the_same_storage(self):
        host = self.host("entry", "norm_entry", """
            seen = []
            def norm_entry(out, x, w, eps):
                seen.append(x.data_ptr())
                out.fill_(eps)
            """)
        out = torch.zeros(2, 4)
        x = torch.ones(2, 4)
        rc, err, _ = self.call(host, RMS_KINDS, [out, x, x[0], None],
                               [0, 0, 0, 3.0], 0)
        self.assertEqual(rc, 0, err)
        self.assertTrue(torch.all(out == 3.0))  # shared storage
        # Second call: no new DLPack tensors, the keys name the cached ones.
        rc, err, _ = self.call(host, RMS_KINDS, [None, None, None, None],
                               [0, 0, 0, 5.0], 0)
        self.assertEqual(rc, 0, err)
        self.assertTrue(torch.all(out == 5.0))
        host.forget()
        rc, err, _ = self.call(host, RMS_KINDS, [None, None, None, None],
                               [0, 0, 0, 5.0], 0)
        self.assertEqual(rc, 1)
        self.assertIn("KeyError", err)

    def test_exceptions_are_reported_not_raised(self):
        host = self.host("gpumode", "custom_kernel", """
            def custom_kernel(data):
                raise RuntimeError("boom in the submission")
            """)
        x = torch.ones(2, 4)
        rc, err, rets = self.call(host, RMS_KINDS, [None, x, x[0], None],
                                  [0, 0, 0, 1.0], 1)
        self.assertEqual(rc, 1)
        self.assertIn("RuntimeError: boom in the submission", err)
        self.assertIn("sub.py", err)
        self.assertEqual(rets, [None])

    def test_non_tensor_output_is_an_error(self):
        host = self.host("gpumode", "custom_kernel", """
            def custom_kernel(data):
                return 3
            """)
        x = torch.ones(2, 4)
        rc, err, _ = self.call(host, RMS_KINDS, [None, x, x[0], None],
                               [0, 0, 0, 1.0], 1)
        self.assertEqual(rc, 1)
        self.assertIn("not a tensor", err)

    def test_load_error_names_the_problem(self):
        sub = w.Submission(self.files.write("bad.py", "def broken(:\n"),
                           "gpumode", "custom_kernel")
        host = w._host(sub, None)
        err = ctypes.create_string_buffer(512)
        self.assertEqual(host.load(ctypes.addressof(err), 512), 1)
        self.assertIn("SyntaxError", err.value.decode())


class OwnSources(unittest.TestCase):
    def test_load_sources_must_be_the_submissions(self):
        files = Files()
        self.addCleanup(files.close)
        path = files.write("sub.py", "x = 1\n")
        scratch_dir = tempfile.TemporaryDirectory()
        self.addCleanup(scratch_dir.cleanup)
        scratch = scratch_dir.name
        s = w.Submission(path, "kernelbench", "ModelNew", scratch=[scratch])
        self.assertEqual(s._own_sources([os.path.join(files.dir.name, "k.cu")]),
                         (True, None))
        self.assertEqual(s._own_sources(os.path.join(scratch, "gen.cu")),
                         (True, None))
        own, outside = s._own_sources(["/usr/include/some/library.cu"])
        self.assertFalse(own)
        self.assertEqual(outside, "/usr/include/some/library.cu")
        # A path that only starts like the submission's directory.
        self.assertFalse(s._own_sources([files.dir.name + "-other/k.cu"])[0])


if __name__ == "__main__":
    unittest.main()

# -*- Python -*-
# lit configuration of atrex's FileCheck tests (tools and passes).
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "atrex"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".cu", ".hip", ".cpp", ".mlir", ".test", ".ll"]
config.excludes = ["Inputs", "Unit", "unittests", "CMakeLists.txt", "main.cpp",
                   "lit.cfg.py", "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.atrex_obj_root, "test")

llvm_config.use_default_substitutions()
# atrex's tools, then LLVM 22's (before any other LLVM on the system PATH).
llvm_config.with_environment(
    "PATH", [config.atrex_tools_dir, config.llvm_tools_dir], append_path=True)
# One PCH cache for the whole run, inside the build tree.
config.environment["ATREX_CACHE_DIR"] = os.path.join(config.atrex_obj_root,
                                                     "atrex-cache")
for var in ("CUDA_PATH", "CUDA_HOME", "ROCM_PATH", "HOME", "ATREX_PYTHON",
            "ATREX_TORCH_INCLUDE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%atrex_src", config.atrex_src_root))
config.substitutions.append(("%atrex_bin", config.atrex_obj_root))
config.substitutions.append(("%atrex_python", config.python_executable))

config.environment["ATREX_PYTHON"] = config.python_executable

# Features from the toolchain atrex-lint detects.
lint = os.path.join(config.atrex_tools_dir, "atrex-lint")
if os.path.exists(lint):
    out = subprocess.run([lint, "--print-toolchain"], capture_output=True,
                         text=True, env=config.environment).stdout
    facts = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    if "(not found)" not in facts.get("cuda", "(not found)"):
        config.available_features.add("cuda")
    if "(not found)" not in facts.get("torch-include", "(not found)"):
        config.available_features.add("torch")
    if "(not found)" not in facts.get("hip-include", "(not found)"):
        config.available_features.add("hip")
    if "(not found)" not in facts.get("cutlass-include", "(not found)"):
        config.available_features.add("cutlass")
    if "(not found)" not in facts.get("tvm-ffi-include", "(not found)"):
        config.available_features.add("tvm-ffi")
    cuda = facts.get("cuda", "")
    if "(not found)" not in cuda and cuda:
        config.substitutions.append(("%cuda_path", cuda))
        config.substitutions.append((
            "%clang_cuda_host",
            os.path.join(config.llvm_tools_dir, "clang++") +
            f" -x cuda --cuda-host-only --cuda-path={cuda}"
            f" -isystem {cuda}/include/cccl -Wno-unknown-cuda-version"))
config.substitutions.append(
    ("%atrex_ir_plugin",
     os.path.join(config.atrex_obj_root, "lib", "AtrexIR.so")))
config.substitutions.append(
    ("%atrex_clang_plugin",
     os.path.join(config.atrex_obj_root, "lib", "AtrexClang.so")))

# FlyDSL's IR evidence (atrex-lint --flydsl-compile, docs/flydsl.md) traces
# FlyDSL files where flydsl and an lld 22 are installed. Tests that do not ask
# for it get the static reading only, whatever is installed; those that trace
# (test/lint/flydsl: REQUIRES: flydsl) are UNSUPPORTED without it.
config.environment["ATREX_FLYDSL_COMPILE"] = "off"
lld22 = any(os.access(p, os.X_OK) for p in
            ("/usr/lib/llvm-22/bin/ld.lld", "/usr/bin/ld.lld-22"))
if lld22 and subprocess.run([config.python_executable, "-c", "import flydsl"],
                            capture_output=True).returncode == 0:
    config.available_features.add("flydsl")
else:
    lit_config.note("flydsl or lld-22 not installed: the live FlyDSL trace "
                    "tests are skipped (ATREX_WITH_FLYDSL=1 "
                    "scripts/install-deps.sh installs both)")

# A GPU is present only where nvidia-smi lists one.
smi = shutil.which("nvidia-smi")
if smi and subprocess.run([smi, "-L"], capture_output=True).returncode == 0:
    config.available_features.add("cuda-gpu")

# Headless Chromium (Debian `chromium`, scripts/install-deps.sh) renders the
# HTML score report in test/score; without it those tests are UNSUPPORTED.
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))
else:
    lit_config.note("chromium not found: the HTML report tests are skipped "
                    "(scripts/install-deps.sh installs it)")

# atrex-ref (the runtime's, a separate CMake project): in this build tree's
# runtime/, the source tree's build/runtime/ or on PATH. Tests that compare
# with it (the suite's entry-point snapshot) need the feature 'atrex-ref'.
for ref in (os.path.join(config.atrex_obj_root, "runtime", "bin", "atrex-ref"),
            os.path.join(config.atrex_src_root, "build", "runtime", "bin",
                         "atrex-ref"),
            shutil.which("atrex-ref")):
    if ref and os.path.exists(ref):
        config.available_features.add("atrex-ref")
        config.substitutions.append(("%atrex_ref", ref))
        break

# atrex-fleet (the runtime's) where the umbrella `atrex` finds it: the
# runtime built beside this build (build/runtime/bin next to build/bin).
fleet = os.path.join(config.atrex_obj_root, "runtime", "bin", "atrex-fleet")
if os.path.exists(fleet):
    config.available_features.add("atrex-fleet")

# atrex-gate (the runtime's) for the agent loop's tests (test/agent), run
# with a scripted worker: this build tree's runtime/, or ATREX_GATE.
for gate in (os.path.join(config.atrex_obj_root, "runtime", "bin", "atrex-gate"),
             os.environ.get("ATREX_GATE", "")):
    if gate and os.path.exists(gate):
        config.available_features.add("atrex-gate")
        config.substitutions.append(("%atrex_gate", gate))
        break

# Nsight Compute, where `atrex agent run --profile` would find one
# ($CUDA_PATH/bin, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH): the tests of a
# missing ncu (test/agent/profile-no-ncu.test) are UNSUPPORTED there.
ncu_dirs = [os.path.join(os.environ[v], "bin") for v in ("CUDA_PATH", "CUDA_HOME")
            if os.environ.get(v)] + ["/usr/local/cuda/bin"]
if (any(os.access(os.path.join(d, "ncu"), os.X_OK) for d in ncu_dirs) or
        shutil.which("ncu", path=config.environment.get("PATH"))):
    config.available_features.add("ncu")

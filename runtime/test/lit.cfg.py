# lit configuration for the atrex runtime's unit tests (GoogleTest format,
# like LLVM's unittests). Run: lit build/runtime/test
import os
import shutil
import subprocess

import lit.formats

config.name = "atrex-runtime"
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.test_source_root = config.atrex_rt_unit_dir
config.test_exec_root = config.atrex_rt_unit_dir

# Feature cuda-gpu: a CUDA GPU is visible. GPU tests skip themselves without
# one (GTEST_SKIP), and lit counts them as skipped.
def have_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except Exception:
        return False

if have_gpu():
    config.available_features.add("cuda-gpu")
else:
    lit_config.note("no CUDA GPU: the GPU tests will be reported as skipped")

# The one-node Slurm test (AtrexRtFleetTests, AtrexFleetSlurm.*) starts
# munged, slurmctld and slurmd itself (helpers/slurm-local.sh) and skips,
# saying why, where they cannot start; ATREX_REQUIRE_SLURM=1 (CI) makes that
# a failure.
slurm_tools = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"]
slurm_path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
missing = [t for t in slurm_tools if not shutil.which(t, path=slurm_path)]
if missing:
    lit_config.note("no " + ", ".join(missing) + " (Debian slurm-wlm, munge: scripts/install-deps.sh): "
                    "the one-node Slurm test will be reported as skipped")
elif os.geteuid() != 0:
    lit_config.note("not root: the one-node Slurm test (slurmd runs jobs as their users) will be "
                    "reported as skipped")

for var in ["HOME", "TMPDIR", "PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "ATREX_REQUIRE_SLURM"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Reading the environment through `in os.environ` or `os.environ[...]` (a
# read, a write, `from os import environ`) is an environment access as
# `os.environ.get` is: evasion in a submission.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# A program may read its environment.
# RUN: not atrex-lint --no-snippets --mode=program --entry=custom_kernel %s 2>&1 | FileCheck %s --check-prefix=PROGRAM
import os
from os import environ

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    # CHECK: gm-env-membership.py:[[@LINE+1]]:24: warning: call to 'os::environ::__contains__' accesses files or the environment [atrex-evasion-file-env]
    if "BENCH_SEED" in os.environ:
        # CHECK: gm-env-membership.py:[[@LINE+1]]:20: warning: call to 'os::environ::__getitem__' accesses files or the environment [atrex-evasion-file-env]
        seed = int(os.environ["BENCH_SEED"])
        # CHECK: gm-env-membership.py:[[@LINE+1]]:9: warning: call to 'os::environ::__setitem__' accesses files or the environment [atrex-evasion-file-env]
        environ["BENCH_SEED"] = str(seed + 1)
    # CHECK: gm-env-membership.py:[[@LINE+1]]:28: warning: call to 'os::environ::__contains__' accesses files or the environment [atrex-evasion-file-env]
    if "DEBUG_DUMP" not in environ:
        return data
    return data
# CHECK: verdict: suspicious
# PROGRAM-NOT: os::environ
# PROGRAM: verdict: no-kernel

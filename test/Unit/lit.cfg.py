# -*- Python -*-
# lit runs atrex's GoogleTest binaries (build/unittests/*/*Tests).
import os
import lit.formats

config.name = "atrex-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.atrex_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

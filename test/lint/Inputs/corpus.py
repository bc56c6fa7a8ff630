"""The shared lint corpus: the CUDA cases of test/lint that need neither
PyTorch headers nor extra flags (used by the plugin and IR comparisons)."""
import glob
import os


def corpus_files(corpus, compilable=False):
    files = []
    for f in sorted(glob.glob(os.path.join(corpus, "*.cu"))):
        text = open(f).read()
        if ("torch" in text or " -- " in text or "--entry" in text or
                "--mode=program" in text or "--mode=library" in text or
                "--policy=" in text):
            continue  # needs torch headers or extra flags
        if "REQUIRES: cutlass" in text:
            continue  # needs the include directory atrex-lint finds itself
        if "atrex_cuda_prelude" in text:
            continue  # relies on atrex-lint's CUDA prelude (nvcc's host
            # math and version macros), which a plain clang compile lacks
        if compilable and os.path.basename(f).startswith("bad-"):
            continue  # does not compile
        files.append(f)
    return files

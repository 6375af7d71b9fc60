"""Builds the silu_mul_ext torch extension from the sources astra-opt
rewrote with the plans in plans/ (docs/build-integration.md, "torch
extensions").

    ASTRA_OPT=/opt/astra-opt/bin/astra-opt pip install --no-build-isolation .
    # or: python3 setup.py build_ext --inplace
"""
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, include_paths

from astra_plans import HERE, apply_plans, torch_args

# The rewritten sources, written in the build tree; the checkout is not
# touched. astra-opt parses them with this torch's headers.
OUT_DIR = os.path.join(HERE, "build", "astra-opt")
sources = apply_plans(OUT_DIR, torch_args(include_paths()))

setup(
    name="silu_mul_ext",
    ext_modules=[
        CUDAExtension(
            "silu_mul_ext",
            sources,
            # The original's directory: its quoted #includes still resolve.
            include_dirs=[HERE],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)

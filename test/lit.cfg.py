# lit configuration for astra-opt. Run through ctest (one ctest test per
# suite directory) or directly: lit -sv build/test/<Suite>.
import os
import shutil
import subprocess

import lit.formats

if not hasattr(config, "astra_obj_root"):
    site = lit_config.params.get("astra_site_config") or os.environ.get("ASTRA_LIT_SITE_CONFIG")
    if not site:
        lit_config.fatal("run through ctest, or pass --param astra_site_config="
                         "<build>/test/lit.site.cfg.py")
    exec(open(site).read())

config.name = "astra-opt"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cu", ".test", ".json"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.astra_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.astra_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ("CUDA_HOME", "CUDA_PATH", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%astra-opt", os.path.join(config.astra_tools_dir, "astra-opt")))
config.substitutions.append(("%astra-session-bench", os.path.join(config.astra_tools_dir, "astra-session-bench")))
config.substitutions.append(("%astra_obj_root", config.astra_obj_root))
config.substitutions.append(("%kernels", os.path.join(config.astra_src_root, "kernels")))
config.substitutions.append(("%examples", os.path.join(config.astra_src_root, "examples")))
config.substitutions.append(("%bench", os.path.join(config.astra_src_root, "bench")))
# find_package(AstraOpt) of the astra-opt under test (build or installed tree).
config.substitutions.append(("%astra_cmake_dir", os.path.normpath(
    os.path.join(config.astra_tools_dir, "..", "lib", "cmake", "AstraOpt"))))
config.substitutions.append(("%cuda_path", config.cuda_path))
# The fuzz target, when this build configured it (ASTRA_FUZZ_TESTS): then
# test/Fuzz runs it, and fails if it is missing.
if getattr(config, "astra_fuzz", ""):
    config.available_features.add("fuzzer")
    config.substitutions.append(("%astra-fuzz", config.astra_fuzz))

# Features: what this machine can do.
if config.cuda_path and os.path.exists(os.path.join(config.cuda_path, "include", "cuda_runtime.h")):
    config.available_features.add("cuda-headers")
if config.cuda_path and os.path.exists(
        os.path.join(config.cuda_path, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")
if shutil.which("ptxas") or (config.cuda_path and os.path.exists(
        os.path.join(config.cuda_path, "bin", "ptxas"))):
    config.available_features.add("ptxas")
if shutil.which("nvcc") or (config.cuda_path and os.access(
        os.path.join(config.cuda_path, "bin", "nvcc"), os.X_OK)):
    config.available_features.add("nvcc")
# CMake projects (test/Build): cmake and ninja; cmake --install needs the
# build tree (a GPU machine runs the tests from an installed one).
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake-ninja")
if os.path.exists(os.path.join(config.astra_obj_root, "CMakeCache.txt")):
    config.available_features.add("build-tree")

# Real third-party headers for the tests that use them (never committed):
# --param flashinfer_include=<dir> or ASTRA_FLASHINFER_INCLUDE=<dir>, the
# directory that holds flashinfer/vec_dtypes.cuh.
flashinfer_include = (lit_config.params.get("flashinfer_include")
                      or os.environ.get("ASTRA_FLASHINFER_INCLUDE"))
if flashinfer_include and os.path.exists(
        os.path.join(flashinfer_include, "flashinfer", "vec_dtypes.cuh")):
    config.available_features.add("flashinfer")
    config.substitutions.append(("%flashinfer_include",
                                 os.path.abspath(flashinfer_include)))

# The LLM agent's HTTP client loads libcurl at run time.
import ctypes.util
if ctypes.util.find_library("curl"):
    config.available_features.add("libcurl")


def cuda_device_count():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return 0
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
        if out.returncode != 0:
            return 0
        return sum(1 for l in out.stdout.splitlines() if l.startswith("GPU "))
    except Exception:
        return 0


gpu_count = cuda_device_count()
if gpu_count >= 1:
    config.available_features.add("cuda-device")
# --gpus tests: one worker per GPU.
if gpu_count >= 2:
    config.available_features.add("cuda-devices-2")


# torch extensions (test/Frontend/torch-*, test/Kernels/torch-ext-*): torch's
# headers from Debian's libtorch-dev (scripts/build.sh installs it), or from a
# Python torch. %torch_args names their include directories for astra-opt.
def find_torch_include_dirs():
    api = "/usr/include/torch/csrc/api/include"
    if os.path.exists("/usr/include/torch/extension.h") and os.path.isdir(api):
        # /usr/include itself is searched already; naming it -isystem would
        # break libstdc++'s #include_next. torch/extension.h includes Python.h
        # (python3-dev, a dependency of libtorch-dev).
        import glob
        return [api] + sorted(os.path.dirname(h) for h in
                              glob.glob("/usr/include/python3*/Python.h"))[-1:]
    py = shutil.which("python3")
    if not py:
        return []
    try:
        out = subprocess.run(
            [py, "-c", "import sysconfig, torch.utils.cpp_extension as e; "
             "print('\\n'.join(e.include_paths() + "
             "[sysconfig.get_paths()['include']]))"],
            capture_output=True, text=True, timeout=120)
    except Exception:
        return []
    return out.stdout.split() if out.returncode == 0 else []


torch_dirs = find_torch_include_dirs()
if torch_dirs:
    config.available_features.add("torch-headers")
config.substitutions.append(("%torch_args", " ".join(
    "--extra-arg=-isystem" + d for d in torch_dirs)))
# A Python torch, for building an extension with setup.py.
if shutil.which("python3") and subprocess.run(
        [shutil.which("python3"), "-c", "import torch"],
        capture_output=True).returncode == 0:
    config.available_features.add("torch-python")

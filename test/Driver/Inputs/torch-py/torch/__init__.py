# A stand-in for the torch package: what astra-opt --torch asks of it.
class _C:
    _GLIBCXX_USE_CXX11_ABI = False
    _PYBIND11_COMPILER_TYPE = "_gcc"
    _PYBIND11_STDLIB = "_libstdcpp"
    _PYBIND11_BUILD_ABI = "_cxxabi1011"

// Force-included by test/Driver/torch-option.test after the command line's
// defines: the stand-in torch was "built" with the old C++ ABI.
#if !defined(_GLIBCXX_USE_CXX11_ABI) || _GLIBCXX_USE_CXX11_ABI != 0
#error "--torch did not pass torch's _GLIBCXX_USE_CXX11_ABI=0"
#endif

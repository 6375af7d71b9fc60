// The project's shared header includes torch; the kernel file only this one.
#include <torch/extension.h>

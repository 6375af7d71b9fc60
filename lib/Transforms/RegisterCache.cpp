#include "Rewrites.h"
namespace astra {
std::unique_ptr<Rewrite> createRegisterCache() { return nullptr; }
}

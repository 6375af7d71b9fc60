//===- ErrorText.h - An error's text, to wrap in another message -*- C++
//-*-===//
#ifndef ASTRA_SUPPORT_ERRORTEXT_H
#define ASTRA_SUPPORT_ERRORTEXT_H

#include "llvm/Support/Error.h"
#include <string>

namespace astra {

/// The text of \p E without the "error: " that AstraError::log adds (a
/// location stays in front): for a message that wraps it in one of its own.
std::string errorText(llvm::Error E);

} // namespace astra

#endif // ASTRA_SUPPORT_ERRORTEXT_H

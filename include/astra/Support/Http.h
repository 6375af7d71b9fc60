//===- Http.h - A small HTTP client for JSON APIs ---------------*- C++ -*-===//
//
// POSTs a body to a URL with libcurl and returns the status and body. Time-
// outs, retries with exponential back-off on 429 and 5xx (honouring
// Retry-After) and on transport failures, and messages that say what went
// wrong. libcurl is loaded at run time (dlopen) the first time a request is
// made, so astra-opt itself does not depend on it: a machine without libcurl
// runs everything else, and a request there fails with a clear error.
//
// Headers given here (e.g. `Authorization: Bearer ...`) are never logged or
// put in an error message.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_HTTP_H
#define ASTRA_SUPPORT_HTTP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace astra {

struct HttpRequest {
  std::string Url;
  std::vector<std::string> Headers; ///< "Name: value"
  std::string Body;
  double TimeoutSeconds = 300;       ///< the whole transfer
  double ConnectTimeoutSeconds = 15; ///< connecting only
  /// When set and true, the transfer (and any back-off wait) stops: Ctrl-C.
  const std::atomic<bool> *Cancel = nullptr;
};

struct HttpResponse {
  long Status = 0;
  std::string Body;
  /// The Retry-After header, in seconds, when the server sent one.
  std::optional<double> RetryAfter;
};

struct RetryPolicy {
  unsigned MaxAttempts = 5;  ///< including the first
  double InitialBackoff = 2; ///< seconds; doubled after each retry
  double MaxBackoff = 60;    ///< cap on one wait (Retry-After included)
  /// Waits (tests replace it to keep time); default: sleeps.
  std::function<void(double Seconds)> Sleep;
  /// Told about each retry ("HTTP 429; retrying in 2 s (attempt 2 of 5)").
  std::function<void(llvm::StringRef)> Log;
};

/// One POST. An HTTP status of any kind is a response; a transport failure
/// (DNS, connection refused, time-out, libcurl missing) is an error.
llvm::Expected<HttpResponse> httpPost(const HttpRequest &R);

/// Whether a status is worth retrying: 408, 409, 429 and 5xx.
bool isRetryableStatus(long Status);

/// httpPost, retried on transport failures and retryable statuses up to
/// \p P.MaxAttempts times with exponential back-off (Retry-After when given,
/// capped at MaxBackoff). Returns the last response (which may still be a
/// 429 or 5xx) or the last transport error.
llvm::Expected<HttpResponse> httpPostWithRetries(const HttpRequest &R,
                                                 const RetryPolicy &P);

/// Retry-After as seconds: a number of seconds or an HTTP date (relative
/// to \p Now, seconds since the epoch). std::nullopt when unparseable.
std::optional<double> parseRetryAfter(llvm::StringRef Value, double Now);

/// Whether libcurl can be loaded (for `--print-paths` and tests).
bool isHttpAvailable();

} // namespace astra

#endif // ASTRA_SUPPORT_HTTP_H

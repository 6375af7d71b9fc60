//===- Http.cpp - A small HTTP client for JSON APIs -----------------------===//
//
// libcurl's easy interface, loaded with dlopen (see Http.h for why). Only the
// handful of functions used here are looked up.
//
//===----------------------------------------------------------------------===//
#include "astra/Support/Http.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <chrono>
#include <curl/curl.h>
#include <dlfcn.h>
#include <mutex>
#include <thread>
#include <time.h>

using namespace llvm;

namespace astra {

namespace {
struct CurlApi {
  CURLcode (*GlobalInit)(long);
  CURL *(*EasyInit)();
  CURLcode (*EasySetopt)(CURL *, CURLoption, ...);
  CURLcode (*EasyPerform)(CURL *);
  CURLcode (*EasyGetinfo)(CURL *, CURLINFO, ...);
  void (*EasyCleanup)(CURL *);
  const char *(*EasyStrerror)(CURLcode);
  curl_slist *(*SlistAppend)(curl_slist *, const char *);
  void (*SlistFreeAll)(curl_slist *);
  std::string LoadError; ///< empty when loaded
};

/// Loads libcurl once per process.
const CurlApi &curl() {
  static CurlApi Api;
  static std::once_flag Once;
  std::call_once(Once, [] {
    void *H = nullptr;
    for (const char *Name : {"libcurl.so.4", "libcurl-gnutls.so.4",
                             "libcurl-nss.so.4", "libcurl.so"})
      if ((H = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!H) {
      Api.LoadError = "libcurl is not installed (looked for libcurl.so.4; "
                      "on Debian/Ubuntu: apt-get install libcurl4)";
      return;
    }
    bool Ok = true;
    auto Get = [&](auto &Fn, const char *Sym) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(
          dlsym(H, Sym));
      Ok &= Fn != nullptr;
    };
    Get(Api.GlobalInit, "curl_global_init");
    Get(Api.EasyInit, "curl_easy_init");
    Get(Api.EasySetopt, "curl_easy_setopt");
    Get(Api.EasyPerform, "curl_easy_perform");
    Get(Api.EasyGetinfo, "curl_easy_getinfo");
    Get(Api.EasyCleanup, "curl_easy_cleanup");
    Get(Api.EasyStrerror, "curl_easy_strerror");
    Get(Api.SlistAppend, "curl_slist_append");
    Get(Api.SlistFreeAll, "curl_slist_free_all");
    if (!Ok) {
      Api.LoadError = "the libcurl found lacks functions astra-opt needs";
      return;
    }
    if (Api.GlobalInit(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      Api.LoadError = "libcurl failed to initialise";
  });
  return Api;
}

size_t appendBody(char *Data, size_t Size, size_t N, void *Out) {
  static_cast<std::string *>(Out)->append(Data, Size * N);
  return Size * N;
}

struct HeaderSink {
  std::optional<std::string> RetryAfter;
};
size_t readHeader(char *Data, size_t Size, size_t N, void *Out) {
  StringRef Line(Data, Size * N);
  auto [Name, Value] = Line.split(':');
  // A new status line (after a redirect or 100-continue) starts over.
  if (Name.starts_with("HTTP/"))
    static_cast<HeaderSink *>(Out)->RetryAfter.reset();
  else if (Name.trim().equals_insensitive("retry-after"))
    static_cast<HeaderSink *>(Out)->RetryAfter = Value.trim().str();
  return Size * N;
}

int checkCancel(void *Cancel, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool> *>(Cancel)->load() ? 1 : 0;
}

bool cancelled(const HttpRequest &R) { return R.Cancel && R.Cancel->load(); }

double nowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
} // namespace

bool isHttpAvailable() { return curl().LoadError.empty(); }

bool isRetryableStatus(long Status) {
  return Status == 408 || Status == 409 || Status == 429 ||
         (Status >= 500 && Status <= 599);
}

std::optional<double> parseRetryAfter(StringRef Value, double Now) {
  Value = Value.trim();
  double Seconds;
  if (!Value.getAsDouble(Seconds))
    return Seconds < 0 ? 0 : Seconds;
  // An HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
  struct tm T = {};
  std::string S = Value.str();
  const char *End = strptime(S.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &T);
  if (!End || *End)
    return std::nullopt;
  double At = double(timegm(&T));
  return std::max(0.0, At - Now);
}

Expected<HttpResponse> httpPost(const HttpRequest &R) {
  const CurlApi &C = curl();
  if (!C.LoadError.empty())
    return createStringError(inconvertibleErrorCode(), C.LoadError);
  CURL *H = C.EasyInit();
  if (!H)
    return createStringError(inconvertibleErrorCode(),
                             "libcurl could not create a handle");
  curl_slist *Headers = nullptr;
  for (const std::string &Hd : R.Headers)
    Headers = C.SlistAppend(Headers, Hd.c_str());
  HttpResponse Resp;
  HeaderSink Sink;
  char ErrBuf[CURL_ERROR_SIZE] = {0};
  C.EasySetopt(H, CURLOPT_URL, R.Url.c_str());
  C.EasySetopt(H, CURLOPT_POST, 1L);
  C.EasySetopt(H, CURLOPT_POSTFIELDS, R.Body.data());
  C.EasySetopt(H, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(R.Body.size()));
  C.EasySetopt(H, CURLOPT_HTTPHEADER, Headers);
  C.EasySetopt(H, CURLOPT_WRITEFUNCTION, appendBody);
  C.EasySetopt(H, CURLOPT_WRITEDATA, &Resp.Body);
  C.EasySetopt(H, CURLOPT_HEADERFUNCTION, readHeader);
  C.EasySetopt(H, CURLOPT_HEADERDATA, &Sink);
  C.EasySetopt(H, CURLOPT_TIMEOUT_MS, long(R.TimeoutSeconds * 1000));
  C.EasySetopt(H, CURLOPT_CONNECTTIMEOUT_MS,
               long(R.ConnectTimeoutSeconds * 1000));
  C.EasySetopt(H, CURLOPT_NOSIGNAL, 1L); // threads, and our SIGINT handler
  C.EasySetopt(H, CURLOPT_ERRORBUFFER, ErrBuf);
  if (R.Cancel) {
    C.EasySetopt(H, CURLOPT_XFERINFOFUNCTION, checkCancel);
    C.EasySetopt(H, CURLOPT_XFERINFODATA, R.Cancel);
    C.EasySetopt(H, CURLOPT_NOPROGRESS, 0L);
  }
  CURLcode Code = C.EasyPerform(H);
  if (Code == CURLE_OK)
    C.EasyGetinfo(H, CURLINFO_RESPONSE_CODE, &Resp.Status);
  C.EasyCleanup(H);
  C.SlistFreeAll(Headers);
  if (Code != CURLE_OK) {
    std::string Why = ErrBuf[0] ? ErrBuf : C.EasyStrerror(Code);
    if (Code == CURLE_OPERATION_TIMEDOUT)
      Why = formatv("no reply within {0} s ({1})", R.TimeoutSeconds, Why);
    else if (Code == CURLE_ABORTED_BY_CALLBACK)
      Why = "interrupted";
    return createStringError(inconvertibleErrorCode(),
                             "POST " + R.Url + ": " + Why);
  }
  if (Sink.RetryAfter)
    Resp.RetryAfter = parseRetryAfter(*Sink.RetryAfter, nowSeconds());
  return std::move(Resp);
}

Expected<HttpResponse> httpPostWithRetries(const HttpRequest &R,
                                           const RetryPolicy &P) {
  double Backoff = P.InitialBackoff;
  for (unsigned Attempt = 1;; ++Attempt) {
    Expected<HttpResponse> Resp = httpPost(R);
    std::string Why;
    std::optional<double> Asked;
    if (!Resp) {
      if (!isHttpAvailable())
        return Resp.takeError();
      Why = toString(Resp.takeError());
    } else if (isRetryableStatus(Resp->Status)) {
      Why = formatv("HTTP {0}", Resp->Status).str();
      Asked = Resp->RetryAfter;
    } else {
      return Resp;
    }
    if (Attempt >= P.MaxAttempts || cancelled(R)) {
      if (Resp)
        return Resp;
      return createStringError(
          inconvertibleErrorCode(),
          formatv("{0} (gave up after {1} attempts)", Why, Attempt).str());
    }
    double Wait = std::min(Asked.value_or(Backoff), P.MaxBackoff);
    if (P.Log)
      P.Log(formatv("{0}; retrying in {1:F1} s (attempt {2} of {3})", Why, Wait,
                    Attempt + 1, P.MaxAttempts)
                .str());
    if (P.Sleep)
      P.Sleep(Wait);
    else // in slices, so that Ctrl-C is not kept waiting
      for (double Left = Wait; Left > 0 && !cancelled(R); Left -= 0.1)
        std::this_thread::sleep_for(
            std::chrono::duration<double>(std::min(Left, 0.1)));
    Backoff = std::min(Backoff * 2, P.MaxBackoff);
  }
}

} // namespace astra

// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly.
// Each wrapper fixes the type of the third argument so that the compiler passes
// exactly what curl expects for that kind of option.
#ifndef ROUNDUP_CCURL_SHIM_H
#define ROUNDUP_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*roundup_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode roundup_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_setopt_callback(CURL *handle, CURLoption option, roundup_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode roundup_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode roundup_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif

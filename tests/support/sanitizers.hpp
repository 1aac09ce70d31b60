#pragma once
// Whether this test program runs under a sanitizer, for the tests that skip or scale their bounds:
// GCC defines __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; clang (the asan preset's compiler) only
// answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define PACFLOW_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PACFLOW_UNDER_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define PACFLOW_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PACFLOW_UNDER_TSAN 1
#endif
#endif

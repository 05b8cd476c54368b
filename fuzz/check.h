// What the fuzz targets assert: a property that must hold for every input they accept.
#pragma once

#include <cstdio>
#include <cstdlib>

// Stops the fuzzer with the failed property, so libFuzzer saves the input that broke it.
#define FUZZ_CHECK(condition)                                                                     \
    do {                                                                                          \
        if (!(condition)) {                                                                       \
            std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                         \
        }                                                                                         \
    } while (0)

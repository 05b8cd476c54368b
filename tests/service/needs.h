// What a test does when a tool or privilege it needs is missing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace sparring::testing {

// Returns whether the tests run in CI (CI=true), where deploy/setup.sh's test job has
// installed every tool a test needs, so that a missing one is a failure, not a skip.
inline bool in_ci() {
    const char* ci = std::getenv("CI");
    return ci && std::string_view(ci) == "true";
}

}  // namespace sparring::testing

// Skips the current test for a missing tool or privilege, saying why; under CI=true fails it
// instead (docs/operations.md, "Tests that need a tool").
#define SPARRING_SKIP_WITHOUT(reason)                                                \
    do {                                                                             \
        if (::sparring::testing::in_ci())                                            \
            GTEST_FAIL() << reason                                                   \
                         << " (CI=true: `deploy/setup.sh test` installs every tool " \
                            "a test needs, so a skip would hide a missing step)";    \
        GTEST_SKIP() << reason;                                                      \
    } while (false)

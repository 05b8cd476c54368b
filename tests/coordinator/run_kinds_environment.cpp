// The table of run kinds for the tests of a program that check storage, conversions, specs or
// a run's figures without building a Core: the table a Core would install (the composition
// root's, kinds/registry.h). Compiled into each such test program (a CoreFixture's Core installs
// the same).
#include <gtest/gtest.h>

#include "coordinator/kinds/registry.h"

namespace sparring::coordinator::testing {
namespace {

class RunKindsEnvironment : public ::testing::Environment {
  public:
    void SetUp() override { use_run_kinds(all_run_kinds()); }
};

const ::testing::Environment* const run_kinds_environment =
    ::testing::AddGlobalTestEnvironment(new RunKindsEnvironment);

}  // namespace
}  // namespace sparring::coordinator::testing

// --cpu-affinity (issue 52, part D): CPU lists and core types resolved against the cores the
// worker may use, and refused with a clear error.
#include <gtest/gtest.h>

#include "common/flags.h"
#include "worker/cpu_affinity.h"

namespace sparring::worker {
namespace {

std::vector<int> range(int first, int last) {
    std::vector<int> out;
    for (int i = first; i <= last; ++i) out.push_back(i);
    return out;
}

std::string error_of(std::string_view value, const std::vector<int>& allowed,
                     const std::vector<v1::CoreType>& types = {}) {
    try {
        affinity_cores(value, allowed, types);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(CpuAffinity, ListsAreParsedSortedAndWithoutRepeats) {
    EXPECT_EQ(parse_cpu_list("0-3,8-9"), (std::vector<int>{0, 1, 2, 3, 8, 9}));
    EXPECT_EQ(parse_cpu_list("5,1,1-2"), (std::vector<int>{1, 2, 5}));
    EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 9, 11}), "0-3,8-9,11");
    EXPECT_EQ(cpu_list_text(parse_cpu_list("0-7,16-23")), "0-7,16-23");
    for (const char* bad : {"", "1,", "a", "3-1", "1-", "-1", "99999", "1.5"})
        EXPECT_THROW(parse_cpu_list(bad), UsageError) << bad;
}

TEST(CpuAffinity, ListedCpusMustBeTheWorkersOwn) {
    const std::vector<int> allowed = range(0, 15);
    EXPECT_EQ(affinity_cores("0-7", allowed, {}), range(0, 7));
    EXPECT_EQ(error_of("8-16", allowed),
              "--cpu-affinity: CPU 16 is not one this worker may use (0-15)");
}

TEST(CpuAffinity, ACoreTypeOfAHybridCpuNamesItsCores) {
    std::vector<v1::CoreType> types(2);
    types[0].set_name("performance");
    for (int cpu = 0; cpu < 8; ++cpu) types[0].add_cpu_ids(uint32_t(cpu));
    types[1].set_name("efficiency");
    for (int cpu = 8; cpu < 16; ++cpu) types[1].add_cpu_ids(uint32_t(cpu));
    EXPECT_EQ(affinity_cores("performance", range(0, 15), types), range(0, 7));
    EXPECT_EQ(affinity_cores("Efficiency", range(0, 15), types), range(8, 15));
    // Only those the worker may use (a taskset of its own).
    EXPECT_EQ(affinity_cores("efficiency", range(4, 11), types), range(8, 11));
    EXPECT_EQ(error_of("efficiency", range(0, 7), types),
              "--cpu-affinity: none of the efficiency cores is one this worker may use (0-7)");
    EXPECT_EQ(error_of("big", range(0, 15), types),
              "--cpu-affinity: 'big' is neither a CPU list (0-7,16-23) nor a core type of this "
              "CPU (performance, efficiency)");
    EXPECT_NE(error_of("performance", range(0, 15)).find("this CPU reports no core types"),
              std::string::npos);
}

}  // namespace
}  // namespace sparring::worker

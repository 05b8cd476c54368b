// Parameter sets as JSON: any bytes are refused with a message or give a set within every
// parameter's bounds, whose to_json() reads back as the same set.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/params.h"
#include "fuzz/check.h"

using namespace sparring;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    const ParamSet base;
    const auto params = ParamSet::from_json(text, base, &error);
    if (!params) {
        FUZZ_CHECK(!error.empty());
        return 0;
    }
    const auto specs = param_registry();
    for (std::size_t i = 0; i < specs.size(); ++i)
        FUZZ_CHECK((*params)[i] >= specs[i].min && (*params)[i] <= specs[i].max);
    const auto again =
        ParamSet::from_json(params->to_json(), ParamSet::preset("seed").value(), &error);
    FUZZ_CHECK(again && *again == *params);
    return 0;
}

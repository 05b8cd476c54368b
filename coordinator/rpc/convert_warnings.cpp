#include "coordinator/rpc/convert_warnings.h"

#include <string>

#include "common/printable.h"
#include "match/output_checks.h"

namespace sparring::coordinator {

absl::Status output_warnings_from_proto(const v1::Game& in, uint32_t pair,
                                        std::vector<GameOutputWarning>* out) {
    const auto invalid = [pair](const std::string& why) {
        return absl::InvalidArgumentError("pair " + std::to_string(pair) +
                                          ": a game's output warning " + why);
    };
    std::vector<GameOutputWarning> warnings;
    for (const v1::OutputWarning& w : in.output_warnings()) {
        if (!v1::OutputCheck_IsValid(w.check()) || w.check() == v1::OUTPUT_CHECK_UNSPECIFIED)
            return invalid("has an unknown check " + std::to_string(int(w.check())));
        const auto check = match::OutputCheck(int(w.check()) - 1);
        const std::string name(match::output_check_name(check));
        for (const GameOutputWarning& seen : warnings)
            if (seen.check == check && seen.test_version == w.test_version())
                return invalid(name + " is there twice for the " +
                               (w.test_version() ? "test" : "base") + " version");
        if (w.count() < 1 || w.count() > uint32_t(match::kMaxOutputCount))
            return invalid(name + " counts " + std::to_string(w.count()) + " lines (1 to " +
                           std::to_string(match::kMaxOutputCount) + ")");
        if (w.example().size() > match::kMaxOutputExampleBytes ||
            w.go().size() > match::kMaxOutputExampleBytes)
            return invalid(name + " has an example or go command over " +
                           std::to_string(match::kMaxOutputExampleBytes) + " bytes");
        warnings.push_back({w.test_version(), check, int64_t(w.count()), valid_utf8(w.example()),
                            valid_utf8(w.go())});
    }
    *out = std::move(warnings);
    return absl::OkStatus();
}

void output_warnings_to_proto(const Run& run, const std::vector<OutputWarningCount>& in,
                              v1::RunStatus* out) {
    for (const OutputWarningCount& w : in) {
        v1::OutputWarningCount* o = out->add_output_warnings();
        const std::string& version = w.test_version ? run.spec.test_version : run.spec.base_version;
        o->set_version(version);
        o->set_test_version(w.test_version);
        o->set_check(v1::OutputCheck(int(w.check) + 1));
        o->set_games(uint64_t(w.games));
        o->set_count(uint64_t(w.count));
        o->set_example_game(w.example_game);
        o->set_example(w.example);
        o->set_go(w.go);
        o->set_line(match::output_warning_line(version, w.check, w.go, uint64_t(w.games)));
    }
}

}  // namespace sparring::coordinator

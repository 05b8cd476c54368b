#include "worker/tune_play.h"

#include <exception>
#include <mutex>
#include <thread>

#include "match/uci_options.h"

namespace sparring::worker {

namespace {

// Returns a player with the base player's parameters changed to the given values: the
// built-in engine's parameters, or a UCI engine's spin options (sent with setoption after the
// version's own options, each replacing the version's value of it).
std::optional<match::PlayerSpec> perturbed(const match::PlayerSpec& base, const v1::TuneLease& tune,
                                           const google::protobuf::RepeatedField<int32_t>& values,
                                           const std::string& suffix, std::string* error) {
    match::PlayerSpec spec = base;
    spec.name += suffix;
    if (values.size() != tune.names_size()) {
        *error = "a tuning pair has " + std::to_string(values.size()) + " values for " +
                 std::to_string(tune.names_size()) + " parameters";
        return std::nullopt;
    }
    if (auto* builtin = std::get_if<match::BuiltinSpec>(&spec.engine)) {
        for (int i = 0; i < values.size(); ++i)
            if (!builtin->params.set(tune.names(i), values[i], error)) return std::nullopt;
        return spec;
    }
    auto& options = std::get<match::UciSpec>(spec.engine).options;
    for (int i = 0; i < values.size(); ++i) {
        const std::string name = match::canonical_option_name(tune.names(i));
        std::erase_if(options, [&](const auto& option) {
            return match::canonical_option_name(option.first) == name;
        });
        options.emplace_back(tune.names(i), std::to_string(values[i]));
    }
    if (const std::string why = match::check_uci_options(options); !why.empty()) {
        *error = why;
        return std::nullopt;
    }
    return spec;
}

}  // namespace

std::optional<std::vector<match::MatchConfig>> tune_configs(const v1::Lease& lease,
                                                            const match::MatchConfig& base,
                                                            std::string* error) {
    const v1::TuneLease& tune = lease.tune();
    if (tune.pairs_size() != lease.openings_size()) {
        *error = "the tuning lease has " + std::to_string(tune.pairs_size()) +
                 " perturbations for " + std::to_string(lease.openings_size()) + " pairs";
        return std::nullopt;
    }
    std::vector<match::MatchConfig> configs;
    for (const v1::TunePair& pair : tune.pairs()) {
        auto plus = perturbed(base.first, tune, pair.plus(), "+", error);
        auto minus = perturbed(base.first, tune, pair.minus(), "-", error);
        if (!plus || !minus) return std::nullopt;
        match::MatchConfig config = base;
        config.first = std::move(*plus);
        config.second = std::move(*minus);
        config.concurrency = 1;
        configs.push_back(std::move(config));
    }
    return configs;
}

void play_tune_pairs(const std::vector<match::MatchConfig>& configs,
                     const std::vector<match::PairJob>& jobs, int concurrency,
                     const std::function<void(const match::PairResult&)>& on_pair_done,
                     const std::atomic<bool>& stop) {
    std::atomic<size_t> next{0};
    std::mutex mutex;  // guards failure
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    auto play = [&] {
        try {
            // Each thread keeps its two engines from pair to pair: a pair's values reach
            // them with setoption (UCI) or as parameters (built-in), not as new processes.
            std::unique_ptr<match::Player> plus, minus;
            for (size_t i = next++; i < jobs.size() && !stop && !failed; i = next++) {
                const match::MatchConfig& config = configs[i];
                std::string why;
                if (!plus || !plus->reconfigure(config.first, &why))
                    plus = match::make_player(config.first);
                if (!minus || !minus->reconfigure(config.second, &why))
                    minus = match::make_player(config.second);
                std::optional<match::PairResult> pair =
                    match::MatchRunner(config).play_pair(*plus, *minus, jobs[i], stop);
                if (!pair) break;
                if (on_pair_done) on_pair_done(*pair);
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> threads;
    const size_t count = std::min<size_t>(size_t(std::max(concurrency, 1)), jobs.size());
    for (size_t t = 0; t < count; ++t) threads.emplace_back(play);
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace sparring::worker

#include "worker/match_setup.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "common/printable.h"
#include "engine/params.h"
#include "match/adjudication.h"
#include "match/uci_options.h"
#include "proto/opening.h"
#include "proto/time_control.h"
#include "worker/engine_builds.h"
#include "worker/fault_evidence.h"

namespace sparring::worker {

namespace {

constexpr int64_t kDefaultHashMb = 16;
constexpr int64_t kMaxHashMb = int64_t(1) << 30;  // keeps the limit's arithmetic in range

// Returns the UCI options a version sends (nullptr for the built-in engine).
const google::protobuf::Map<std::string, std::string>* uci_options_of(const v1::Version& version) {
    if (version.has_uploaded()) return &version.uploaded().options();
    if (version.has_uci()) return &version.uci().options();
    return nullptr;
}

// Returns the runner player of a version; external engines confined by limits.
std::optional<match::PlayerSpec> player_spec(const v1::Version& version, const EngineLimits& limits,
                                             const EnginePaths& engines, std::string* error) {
    match::PlayerSpec spec;
    spec.name = version.name();
    if (const auto* options = uci_options_of(version)) {
        std::optional<match::UciSpec> engine = confined_engine(version, limits, engines, error);
        if (!engine) return std::nullopt;
        match::UciSpec& uci = *engine;
        for (const auto& [name, value] : *options) uci.options.emplace_back(name, value);
        // The coordinator checked them when the version was added; a version stored before a
        // check, or a coordinator that skips one, must not reach the engine either.
        std::string why = match::check_uci_options(uci.options);
        if (why.empty()) why = match::check_submitted_uci_options(uci.options);
        if (!why.empty()) {
            *error = "version '" + version.name() + "': " + why;
            return std::nullopt;
        }
        spec.engine = std::move(uci);
        spec.build = build_of(version);
        return spec;
    }
    std::string why;
    const auto params = ParamSet::from_json(version.builtin().params_json(), ParamSet(), &why);
    if (!params) {
        *error = "version '" + version.name() + "': " + why;
        return std::nullopt;
    }
    match::BuiltinSpec builtin;
    builtin.params = *params;
    const std::optional<int> hash_mb = builtin_hash_mb(version, error);
    if (!hash_mb) return std::nullopt;
    if (*hash_mb > 0) builtin.hash_mb = *hash_mb;
    spec.engine = std::move(builtin);
    return spec;
}

// Returns the runner time control of a lease (a lease without one: nodes=0, refused by the
// runner like any bad limit).
TimeControl time_control(const v1::TimeControl& in) {
    if (std::optional<TimeControl> tc = time_control_from_proto(in)) return *tc;
    TimeControl none;
    none.nodes = in.nodes();
    return none;
}

// Returns the report outcome of a game with half points (0, 1, 2) for the test version.
v1::GameOutcome outcome(int half_points) {
    return half_points == 2   ? v1::GAME_OUTCOME_WIN
           : half_points == 1 ? v1::GAME_OUTCOME_DRAW
                              : v1::GAME_OUTCOME_LOSS;
}

}  // namespace

match::ChildOptions engine_confinement(const v1::Version& version, const std::string& command,
                                       const EngineLimits& limits) {
    match::ChildOptions options;
    if (limits.memory_headroom_mb > 0)
        options.memory_limit_mb = reserved_memory_mb(version) + limits.memory_headroom_mb;
    options.max_processes = limits.max_processes;
    options.max_file_mb = limits.max_file_mb;
    if (limits.groups) {
        options.groups = limits.groups.get();
        options.group_limits = {options.memory_limit_mb, limits.max_processes, 1};
    }
    if (!limits.sandbox) return options;
    if (version.has_uploaded()) {
        options.sandbox = limits.sandbox.get();
        // The whole cached directory (an archive's other files: networks, books), not the
        // cache beside it.
        const std::string files = "/" + version.uploaded().sha256() + "/files";
        const size_t at = command.rfind(files + "/");
        options.read_only.push_back(at == std::string::npos
                                        ? std::string(command.substr(0, command.rfind('/')))
                                        : command.substr(0, at + files.size()));
    } else if (limits.sandbox_installed) {
        options.sandbox = limits.sandbox.get();  // its own file visible
    }
    return options;
}

std::optional<match::UciSpec> confined_engine(const v1::Version& version,
                                              const EngineLimits& limits,
                                              const EnginePaths& engines, std::string* error) {
    match::UciSpec uci;
    if (version.has_uploaded()) {
        const auto path = engines.find(version.uploaded().sha256());
        if (path == engines.end()) {
            *error = "version '" + version.name() + "': its engine file is not fetched";
            return std::nullopt;
        }
        uci.command = path->second;
        uci.args.assign(version.uploaded().args().begin(), version.uploaded().args().end());
    } else {
        uci.command = version.uci().command();
    }
    uci.confinement = engine_confinement(version, uci.command, limits);
    uci.confinement.cpu_limit_seconds = limits.cpu_seconds;
    return uci;
}

std::optional<int> builtin_hash_mb(const v1::Version& version, std::string* error) {
    // The worker's own bound, whatever the lease says (the coordinator checks the same).
    if (version.builtin().hash_mb() > uint32_t(match::kMaxUciHashMb)) {
        *error = "version '" + version.name() + "': hash " +
                 std::to_string(version.builtin().hash_mb()) + " MiB is over " +
                 std::to_string(match::kMaxUciHashMb) + " MiB";
        return std::nullopt;
    }
    return int(version.builtin().hash_mb());
}

int64_t reserved_memory_mb(const v1::Version& version) {
    const auto* options = uci_options_of(version);
    if (!options)
        return version.builtin().hash_mb() > 0 ? int64_t(version.builtin().hash_mb())
                                               : kDefaultHashMb;
    // Any spelling the engine reads as Hash; the largest, should a version hold two.
    const std::vector<std::string> values = match::uci_option_values(*options, "Hash");
    if (values.empty()) return kDefaultHashMb;
    int64_t largest = 0;
    for (const std::string& text : values) {
        int64_t mb = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mb);
        if (ec == std::errc::result_out_of_range) return kMaxHashMb;
        if (ec != std::errc() || end != text.data() + text.size()) mb = kDefaultHashMb;
        largest = std::max(largest, std::clamp<int64_t>(mb, 0, kMaxHashMb));
    }
    return largest;
}

int games_at_once(const v1::Lease& lease, int concurrency) {
    return concurrency / int(std::clamp<uint32_t>(lease.threads(), 1, 1024));
}

std::string memory_refusal(const v1::Lease& lease, int cores, int64_t memory_mb) {
    const int concurrency = games_at_once(lease, cores);
    const int64_t per_game = reserved_memory_mb(lease.test()) + reserved_memory_mb(lease.base());
    int64_t needed = 0;
    if (__builtin_mul_overflow(per_game, int64_t(std::max(concurrency, 1)), &needed))
        needed = INT64_MAX;
    if (needed <= memory_mb) return "";
    return "its engines' hash tables need " + std::to_string(needed) + " MiB (" +
           std::to_string(per_game) + " a game, " + std::to_string(concurrency) +
           " at a time), over this worker's " + std::to_string(memory_mb) + " MiB (--memory-mb)";
}

std::optional<match::MatchConfig> match_config(const v1::Lease& lease, int concurrency,
                                               const std::string& site, std::string* error,
                                               const EngineLimits& limits,
                                               const EnginePaths& engines) {
    const int threads = int(std::clamp<uint32_t>(lease.threads(), 1, 1024));
    const int games = games_at_once(lease, concurrency);
    if (games < 1) {
        *error = "a game of the run needs " + std::to_string(threads) +
                 " cores and this worker has " + std::to_string(concurrency) + " (--concurrency)";
        return std::nullopt;
    }
    auto test = player_spec(lease.test(), limits, engines, error);
    auto base = player_spec(lease.base(), limits, engines, error);
    if (!test || !base) return std::nullopt;
    // The run's threads, 1 included, replace a UCI engine's own Threads option in any
    // spelling (a version stored before the coordinator refused one may still hold it): the
    // scheduler counts these cores. Its CPU time limit grows with them. The built-in engine
    // searches with one thread.
    for (match::PlayerSpec* player : {&*test, &*base})
        if (auto* uci = std::get_if<match::UciSpec>(&player->engine)) {
            std::erase_if(uci->options, [](const auto& option) {
                return match::canonical_option_name(option.first) ==
                       match::canonical_option_name("Threads");
            });
            uci->options.emplace_back("Threads", std::to_string(threads));
            uci->confinement.cpu_limit_seconds *= threads;
            if (uci->confinement.groups) uci->confinement.group_limits.cores = threads;
        }
    match::MatchConfig config;
    config.first = std::move(*test);
    config.second = std::move(*base);
    config.time_control = time_control(lease.time_control());
    // The run's adjudication, as the coordinator resolved it ("" for a rule that is off).
    const v1::Adjudication& rules = lease.adjudication();
    if (!rules.draw().empty()) {
        config.adjudication.draw = match::parse_draw_rule(rules.draw(), error);
        if (!config.adjudication.draw) return std::nullopt;
    }
    if (!rules.resign().empty()) {
        config.adjudication.resign = match::parse_resign_rule(rules.resign(), error);
        if (!config.adjudication.resign) return std::nullopt;
    }
    config.adjudication.max_plies = int(std::min<uint32_t>(rules.max_plies(), 100000));
    config.concurrency = games;
    // Each game at once on the cores the lease counts for it, where the machine has them.
    config.cpu_sets = match::split_cores(limits.cores, games, threads);
    config.pgn.record = true;
    config.pgn.event = "Sparring run " + std::to_string(lease.run_id());
    config.pgn.site = site;
    return config;
}

std::vector<match::PairJob> pair_jobs(const v1::Lease& lease) {
    std::vector<match::PairJob> jobs;
    for (int i = 0; i < lease.openings_size(); ++i) {
        const v1::Opening& o = lease.openings(i);
        jobs.push_back({lease.first_pair() + uint64_t(i), opening_from_proto(o)});
    }
    return jobs;
}

v1::GameEnding game_ending(match::Termination termination) {
    switch (termination) {
        case match::Termination::Checkmate:
        case match::Termination::Stalemate:
        case match::Termination::ThreefoldRepetition:
        case match::Termination::FiftyMoves:
        case match::Termination::InsufficientMaterial:
            return v1::GAME_ENDING_RULES;
        case match::Termination::DrawAdjudication:
        case match::Termination::ResignAdjudication:
        case match::Termination::MaxPlies:
            return v1::GAME_ENDING_ADJUDICATION;
        case match::Termination::TimeForfeit:
            return v1::GAME_ENDING_TIME_LOSS;
        case match::Termination::Crash:
            return v1::GAME_ENDING_CRASH;
        case match::Termination::Stalled:
            return v1::GAME_ENDING_STALL;
        case match::Termination::IllegalMove:
            return v1::GAME_ENDING_ILLEGAL_MOVE;
    }
    return v1::GAME_ENDING_UNSPECIFIED;
}

// Adds a game's engine-output warnings to its message; game g of a pair has the test version
// white when g is 0.
void output_warnings_to_proto(const match::GameResult& game, int g, v1::Game* out) {
    for (Color c : {WHITE, BLACK})
        for (const match::OutputWarning& w : game.output_warnings[c]) {
            v1::OutputWarning* o = out->add_output_warnings();
            o->set_check(v1::OutputCheck(int(w.check) + 1));
            o->set_test_version((c == WHITE) == (g == 0));
            o->set_count(uint32_t(w.count));
            o->set_example(w.example);
            o->set_go(w.go);
        }
}

void pair_to_proto(const match::PairResult& pair, uint64_t first_pair, v1::GamePair* out) {
    out->set_index(uint32_t(pair.index - first_pair));
    v1::Game* games[2] = {out->mutable_first(), out->mutable_second()};
    for (int g = 0; g < 2; ++g) {
        games[g]->set_outcome(outcome(pair.first_half_points(g)));
        games[g]->set_test_white(g == 0);
        games[g]->set_pgn(valid_utf8(pair.games[size_t(g)].pgn));
        games[g]->set_ending(game_ending(pair.games[size_t(g)].termination));
        fault_evidence_to_proto(pair.games[size_t(g)], games[g]);
        output_warnings_to_proto(pair.games[size_t(g)], g, games[g]);
    }
}

}  // namespace sparring::worker

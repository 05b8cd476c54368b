#include "coordinator/domain/validation.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "common/engine_archive.h"
#include "common/printable.h"
#include "common/sha256.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/version_builds.h"
#include "coordinator/domain/worker_controls.h"
#include "coordinator/domain/worker_identity.h"
#include "engine/board.h"
#include "engine/notation.h"
#include "engine/params.h"
#include "match/uci_options.h"

namespace sparring::coordinator {

namespace {

constexpr size_t kMaxOpenings = 1'000'000;

// Returns whether a name uses only letters, digits, '.', '_', '-' and '+'.
bool is_plain_name(std::string_view name) {
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
               c == '+';
    });
}

// Returns whether an option name, lowercased, contains the text.
bool name_contains(std::string_view name, std::string_view text) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find(text) != std::string::npos;
}

// Checks an external engine's UCI options: each becomes one line on the engine's stdin
// (`setoption name N value V`), so none may hold a line break or split that line.
absl::Status check_uci_options(const Version& v) {
    if (v.uci_options.size() > kMaxUciOptions)
        return invalid("a UCI version takes at most " + std::to_string(kMaxUciOptions) +
                       " options, got " + std::to_string(v.uci_options.size()));
    for (const auto& [name, value] : v.uci_options) {
        const std::string which = "UCI option " + excerpt(name);
        if (name.empty() || name.size() > kMaxUciOptionNameBytes)
            return invalid("UCI option names must be 1-" + std::to_string(kMaxUciOptionNameBytes) +
                           " bytes, got " + std::to_string(name.size()));
        if (value.size() > kMaxUciOptionValueBytes)
            return invalid(which + ": the value is over " +
                           std::to_string(kMaxUciOptionValueBytes) + " bytes");
        if (has_control(name) || has_control(value))
            return invalid(which +
                           ": names and values may not hold control characters "
                           "(line breaks would reach the engine as commands)");
        if (name.front() == ' ' || name.back() == ' ' || name_contains(name, " value "))
            return invalid(which + ": a name may not start or end with a space or hold ' value '");
    }
    // What engines read as one name is one option to these checks, as it is to the workers'.
    const match::UciOptions options(v.uci_options.begin(), v.uci_options.end());
    if (std::string why = match::check_uci_options(options); !why.empty()) return invalid(why);
    if (std::string why = match::check_submitted_uci_options(options); !why.empty())
        return invalid(why);
    // The scheduler counts a game's cores from the run's threads, and workers send engines
    // exactly that many: a version's own Threads would be a second, uncounted setting.
    for (const auto& [name, value] : options)
        if (match::canonical_option_name(name) == match::canonical_option_name("Threads"))
            return invalid("UCI option '" + excerpt(name) +
                           "': a run gives its engines their threads (submit --threads N, 1 by "
                           "default); a version may not set them");
    return absl::OkStatus();
}

// Checks a UCI version's engine command and options.
absl::Status check_uci(const Version& v) {
    if (v.uci_command.size() > kMaxUciCommandBytes)
        return invalid("UCI command is over 1024 bytes");
    if (has_control(v.uci_command)) return invalid("UCI command holds a control character");
    return check_uci_options(v);
}

}  // namespace

absl::Status check_opening(const Opening& o, size_t number) {
    const std::string which = "opening " + std::to_string(number) + " of the book";
    if (o.fen.empty()) return invalid(which + " has no FEN");
    // The book is stored one opening a line, its FEN and moves split by a tab.
    if (has_control(o.fen) || std::any_of(o.moves.begin(), o.moves.end(),
                                          [](const std::string& m) { return has_control(m); }))
        return invalid(which + ": its FEN or moves hold a control character ('" + excerpt(o.fen) +
                       "')");
    if (o.fen.size() > kMaxFenBytes)
        return invalid(which + ": its FEN is " + std::to_string(o.fen.size()) +
                       " bytes, over the limit of " + std::to_string(kMaxFenBytes));
    if (o.moves.size() > kMaxOpeningMoves)
        return invalid(which + " has " + std::to_string(o.moves.size()) + " moves, over " +
                       std::to_string(kMaxOpeningMoves));
    Board board;
    std::string error;
    if (!board.set_fen(o.fen, &error))
        return invalid(which + ": bad FEN '" + excerpt(o.fen) + "': " + error);
    for (size_t i = 0; i < o.moves.size(); ++i) {
        const Move move = o.moves[i].size() <= 5 ? parse_uci(board, o.moves[i]) : Move::none();
        if (move == Move::none())
            return invalid(which + ": move " + std::to_string(i + 1) + " '" + excerpt(o.moves[i]) +
                           "' is not legal in " + board.fen());
        board.do_move(move);
    }
    return absl::OkStatus();
}

// Checks that a time control's limit is set and sensible.
absl::Status check_time_control(const TimeControl& tc) {
    switch (tc.kind) {
        case TimeControl::Kind::Nodes:
            if (tc.nodes < 1 || tc.nodes > 1'000'000'000)
                return invalid("time control: nodes per move must be in 1..1000000000");
            break;
        case TimeControl::Kind::Depth:
            if (tc.depth < 1 || tc.depth > 64)
                return invalid("time control: depth must be in 1..64");
            break;
        case TimeControl::Kind::MoveTime:
            if (tc.movetime_ms < 1 || tc.movetime_ms > 3'600'000)
                return invalid("time control: movetime must be in 1..3600000 ms");
            break;
        case TimeControl::Kind::Clock:
            if (tc.base_ms < 1 || tc.base_ms > 86'400'000 || tc.inc_ms < 0 || tc.inc_ms > 3'600'000)
                return invalid("time control: a clock needs a base time above 0 (e.g. 10+0.1)");
            break;
    }
    return absl::OkStatus();
}

// Checks what a training run shares with every run; it plays no games, so it has no time
// control, games or book (its settings are checked against its data by resolve_train).
absl::Status check_train_run(RunSpec& spec) {
    if (spec.games != 0 || !spec.book.openings.empty())
        return invalid("a training run plays no games: give it no games and no book");
    return check_run_settings(spec);
}

absl::Status check_run_settings(RunSpec& spec) {
    if (absl::Status status = check_priority(spec.priority, Role::Admin); !status.ok())
        return status;
    if (spec.throughput == 0) spec.throughput = 100;
    if (absl::Status status = check_throughput(spec.throughput); !status.ok()) return status;
    return check_description(spec.description);
}

absl::Status check_games(uint64_t games) {
    if (games == 0 || games % 2 != 0 || games > uint64_t(kMaxGames))
        return invalid(
            "games must be a positive even number up to 1000000000 (games come in pairs), got " +
            std::to_string(games));
    return absl::OkStatus();
}

absl::Status check_verify_games(uint64_t games) {
    if (games == 0 || games % 2 != 0 || games > uint64_t(kMaxGames))
        return invalid("verification games must be a positive even number");
    return absl::OkStatus();
}

absl::Status check_throughput(int64_t throughput) {
    if (throughput < kMinThroughput || throughput > kMaxThroughput)
        return invalid("throughput must be in " + std::to_string(kMinThroughput) + ".." +
                       std::to_string(kMaxThroughput) + " percent");
    return absl::OkStatus();
}

absl::Status check_priority(int64_t priority, Role role, const PriorityRange& users) {
    const bool admin = role == Role::Admin;
    const int min = admin ? kMinPriority : users.min;
    const int max = admin ? kMaxPriority : users.max;
    if (priority >= min && priority <= max) return absl::OkStatus();
    std::string message = "priority must be in " + std::to_string(min) + ".." +
                          std::to_string(max) + ", not " + std::to_string(priority);
    if (!admin) {
        // Whether the range is the default or the operator's, and what is beyond it.
        message += " (the users' range";
        if (users.min != PriorityRange{}.min || users.max != PriorityRange{}.max)
            message += ", set by the coordinator's --user-priority-min/--user-priority-max";
        if (priority > max && priority <= kMaxPriority)
            message += "; above " + std::to_string(max) + ": an admin's token";
        else if (priority < min && priority >= kMinPriority)
            message += "; below " + std::to_string(min) + ": an admin's token";
        message += ")";
    }
    return invalid(message);
}

absl::Status check_description(const std::string& description) {
    if (description.size() > 4096) return invalid("run description is over 4096 bytes");
    if (has_control(description, "\n\t"))
        return invalid(
            "run description holds a control character, a bidirectional override or a line "
            "separator (only line breaks and tabs)");
    return absl::OkStatus();
}

absl::Status check_name(std::string_view what, std::string_view name, size_t max_bytes) {
    const std::string subject(what);
    if (name.empty() || name.size() > max_bytes)
        return invalid(subject + " must be 1-" + std::to_string(max_bytes) + " bytes, got " +
                       std::to_string(name.size()));
    if (!is_valid_utf8(name) || has_control(name))
        return invalid(subject + " '" + excerpt(name) +
                       "' holds a control character or broken UTF-8");
    if (has_invisible(name))
        return invalid(subject + " '" + excerpt(name) +
                       "' holds an invisible character (a zero-width or format character, or a "
                       "space other than ' ') that would make it look like another name");
    if (name.front() == ' ' || name.back() == ' ')
        return invalid(subject + " '" + excerpt(name) + "' starts or ends with a space");
    return absl::OkStatus();
}

absl::Status check_lookup_name(std::string_view name) {
    if (name.size() > kMaxVersionNameBytes)
        return invalid("a version name is at most " + std::to_string(kMaxVersionNameBytes) +
                       " bytes; this one has " + std::to_string(name.size()));
    return absl::OkStatus();
}

absl::Status check_uploaded_engine(const Version& v) {
    if (!is_sha256_hex(v.engine_sha256))
        return invalid("an uploaded version names its engine file by a hex SHA-256 (64 digits)");
    if (!v.engine_entry.empty()) {
        if (const std::string why = unsafe_relative_path(v.engine_entry); !why.empty())
            return invalid("--entry '" + v.engine_entry + "': " + why);
    }
    if (absl::Status builds = check_engine_builds(v); !builds.ok()) return builds;
    if (v.engine_args.size() > 64) return invalid("an engine takes at most 64 arguments");
    for (const std::string& arg : v.engine_args) {
        if (arg.size() > 1024) return invalid("an engine argument is over 1024 bytes");
        if (has_control(arg)) return invalid("an engine argument holds a control character");
    }
    return check_uci_options(v);
}

absl::Status check_version(Version& v) {
    if (v.name.empty() || v.name.size() > kMaxVersionNameBytes || !is_plain_name(v.name))
        return invalid("version name '" + excerpt(v.name) +
                       "' must be 1-64 letters, digits or . _ - + (e.g. knight-290)");
    if (v.description.size() > 4096) return invalid("version description is over 4096 bytes");
    if (has_control(v.description, "\n\t"))
        return invalid(
            "version description holds a control character, a bidirectional override or a line "
            "separator");
    if (v.reference_nps != 0 &&
        (v.reference_nps < kMinReferenceNps || v.reference_nps > kMaxReferenceNps))
        return invalid("the reference speed must be in " + std::to_string(kMinReferenceNps) + ".." +
                       std::to_string(kMaxReferenceNps) + " nodes per second, got " +
                       std::to_string(v.reference_nps));
    if (!v.options.empty()) {
        if (v.kind == Version::Kind::Builtin)
            return invalid(
                "the built-in engine's options are its parameters: a built-in version records "
                "no engine options");
        if (const std::string why = match::check_engine_options(v.options); !why.empty())
            return invalid("engine options: " + why);
    }
    if (v.kind == Version::Kind::Uploaded) return check_uploaded_engine(v);
    if (v.kind == Version::Kind::Uci) {
        if (v.uci_command.empty()) return invalid("a UCI version needs the engine's command");
        return check_uci(v);
    }
    if (v.preset.empty()) v.preset = "default";
    std::optional<ParamSet> params = ParamSet::preset(v.preset);
    if (!params) {
        std::string names;
        for (std::string_view name : ParamSet::preset_names())
            names += (names.empty() ? "" : ", ") + std::string(name);
        return invalid("unknown preset '" + v.preset + "' (presets: " + names + ")");
    }
    for (const auto& [name, value] : v.overrides) {
        std::string error;
        if (!params->set(name, value, &error)) return invalid("override " + name + ": " + error);
    }
    if (v.hash_mb < 0 || v.hash_mb > 65536) return invalid("hash must be in 0..65536 MiB");
    if (v.bench == 0)
        return invalid("a built-in version needs its bench signature (`sparring-engine bench`)");
    v.params_json = params->to_json();
    return absl::OkStatus();
}

RunSpec follow_up_run_spec(const RunSpec& first, const FollowUpSpec& follow_up) {
    RunSpec next = first;
    next.follow_up.reset();
    next.origin_run_id = 0;
    next.time_control = follow_up.time_control;
    if (follow_up.sprt) next.sprt = *follow_up.sprt;
    if (follow_up.games > 0) next.games = follow_up.games;
    // A clock's reference speed goes with a clock; a follow-up at a clock without one takes
    // the test version's or the coordinator's when it is submitted.
    if (next.time_control.kind != TimeControl::Kind::Clock) next.reference_nps = 0;
    return next;
}

absl::Status check_run_spec(RunSpec& spec) {
    if (spec.test_version.empty() || spec.base_version.empty())
        return invalid("a run needs a test version and a base version");
    const RunKindModule& kind = run_kind(spec.kind);
    if (spec.follow_up) {
        if (!kind.decided_by_sprt())
            return invalid("a follow-up goes with a regression (SPRT) run, not a " +
                           std::string(kind.label()) + " run");
        const std::string& on = spec.follow_up->on_result;
        if (on != "H1" && on != "H0" && on != "any")
            return invalid("a follow-up starts on H1, H0 or any, not '" + excerpt(on) + "'");
        RunSpec next = follow_up_run_spec(spec, *spec.follow_up);
        if (absl::Status status = check_run_spec(next); !status.ok())
            return invalid("the follow-up: " + std::string(status.message()));
    }
    if (spec.threads < 1 || spec.threads > kMaxThreads)
        return invalid("threads must be in 1.." + std::to_string(kMaxThreads) + ", got " +
                       std::to_string(spec.threads));
    if (spec.reference_nps != 0) {
        if (spec.time_control.kind != TimeControl::Kind::Clock)
            return invalid("a reference speed scales a clock; the run's time control is " +
                           spec.time_control.to_string() +
                           ", which plays the same search on every machine: give no reference nps");
        if (spec.reference_nps < kMinReferenceNps || spec.reference_nps > kMaxReferenceNps)
            return invalid("the reference speed must be in " + std::to_string(kMinReferenceNps) +
                           ".." + std::to_string(kMaxReferenceNps) + " nodes per second, got " +
                           std::to_string(spec.reference_nps));
    }
    if (spec.threads > 1 && !kind.takes_threads())
        return invalid("a " + std::string(kind.label()) +
                       " run plays the built-in engine, which searches with one thread: it "
                       "takes no threads");
    return kind.check_spec(spec);
}

absl::Status check_game_run(RunSpec& spec) {
    if (absl::Status tc = check_time_control(spec.time_control); !tc.ok()) return tc;
    if (absl::Status games = check_games(spec.games); !games.ok()) return games;
    if (spec.book.openings.empty())
        return invalid("the run has no openings: give a book (EPD or PGN file)");
    if (spec.book.openings.size() > kMaxOpenings)
        return invalid("the book has over 1000000 openings");
    for (size_t i = 0; i < spec.book.openings.size(); ++i)
        if (absl::Status status = check_opening(spec.book.openings[i], i + 1); !status.ok())
            return status;
    if (spec.pairs_per_thread < 0 || spec.pairs_per_thread > 256)
        return invalid("pairs per thread must be in 0..256");
    return check_run_settings(spec);
}

absl::Status check_no_tune(const RunSpec& spec) {
    if (!spec.tune.params.empty() || spec.tune.verify)
        return invalid("only tuning runs take parameters to tune and a verification");
    return absl::OkStatus();
}

absl::Status check_sprt(const stats::SprtParams& sprt, std::string_view what) {
    if (std::string error = stats::validate(sprt); !error.empty())
        return invalid(std::string(what) + ": " + error);
    if (sprt.alpha >= 0.5 || sprt.beta >= 0.5)
        return invalid(std::string(what) +
                       ": alpha and beta are error rates and must be below 0.5");
    return absl::OkStatus();
}

absl::Status check_worker(const Worker& w) {
    if (absl::Status name = check_name("worker name", w.name, kMaxWorkerNameBytes); !name.ok())
        return name;
    if (w.concurrency < 1 || w.concurrency > 1024)
        return invalid("worker concurrency must be in 1..1024");
    if (w.cores < 1 || w.cores > 65536) return invalid("worker cores must be in 1..65536");
    if (w.memory_mb < 0 || w.memory_mb > kMaxMemoryMb)
        return invalid("worker memory must be in 0.." + std::to_string(kMaxMemoryMb) + " MiB");
    if (w.uci_engines.size() > 64) return invalid("a worker may offer at most 64 UCI engines");
    for (const std::string& engine : w.uci_engines)
        if (engine.size() > kMaxUciCommandBytes || has_control(engine))
            return invalid(
                "a worker's UCI engine command is over 1024 bytes or holds a control "
                "character");
    if (w.build.size() > 256) return invalid("worker build string is over 256 bytes");
    if (has_control(w.build)) return invalid("worker build string holds a control character");
    if (absl::Status controls = check_worker_controls(w.controls); !controls.ok()) return controls;
    if (absl::Status identity = check_worker_identity(w.identity); !identity.ok()) return identity;
    return absl::OkStatus();
}

}  // namespace sparring::coordinator

// Checks of what users and workers send, with messages that say what to fix.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/run_limits.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Returns an INVALID_ARGUMENT status with the message: what every check below answers.
inline absl::Status invalid(const std::string& message) {
    return absl::InvalidArgumentError(message);
}

// Checks a new version and, for the built-in engine, resolves its parameter set into
// version.params_json; INVALID_ARGUMENT explains the first problem.
absl::Status check_version(Version& version);
// Checks an uploaded version's file name, entry, arguments and options (the file itself is
// looked up by the caller); INVALID_ARGUMENT explains the first problem.
absl::Status check_uploaded_engine(const Version& version);
// Checks a run specification (by its kind's module) and fills in defaults (throughput, SPRT
// model); the versions themselves are looked up by the caller. INVALID_ARGUMENT explains the
// first problem.
absl::Status check_run_spec(RunSpec& spec);
// Returns the spec of the run a follow-up starts: the first run's (book included, as given),
// at the follow-up's time control, with its SPRT bounds and games where it sets them, and no
// follow-up of its own.
RunSpec follow_up_run_spec(const RunSpec& first, const FollowUpSpec& follow_up);
// Checks what every run of game pairs needs: time control, games, book and shares.
absl::Status check_game_run(RunSpec& spec);
// Checks what a training run shares with every run; it plays no games, so it has no time
// control, games or book.
absl::Status check_train_run(RunSpec& spec);
// Checks that a spec other than a tuning run's names nothing to tune.
absl::Status check_no_tune(const RunSpec& spec);
// Checks SPRT settings, named `what` in the message ("SPRT", "verification SPRT"): bounds
// and model as stats::validate has them, and error rates below 0.5.
absl::Status check_sprt(const stats::SprtParams& sprt, std::string_view what = "SPRT");
// Checks a run's games: a positive even number (games come in pairs) up to kMaxGames.
absl::Status check_games(uint64_t games);
// Checks the games of a run's verification (a tuning's, a chain's): as check_games.
absl::Status check_verify_games(uint64_t games);
// Checks a run's throughput: 1..10000 percent.
absl::Status check_throughput(int64_t throughput);
// Checks what every run shares, of any kind: priority (the range every stored run holds to),
// throughput (100 when not given) and description.
absl::Status check_run_settings(RunSpec& spec);
// Checks that a time control's limit is set and sensible.
absl::Status check_time_control(const TimeControl& tc);
// Checks an opening as the engine reads it: a FEN within the size limit that parses, and
// moves legal in turn; number names it in the message (1-based).
absl::Status check_opening(const Opening& opening, size_t number);
// Checks a run's priority as set by a caller of the role: within users (the operator's range,
// by default kMinPriority..kMaxUserPriority) for a user, kMinPriority..kMaxPriority for an
// admin (the bound every stored run holds to).
absl::Status check_priority(int64_t priority, Role role, const PriorityRange& users = {});
// Checks a run's description: size, and no control characters but line breaks and tabs.
absl::Status check_description(const std::string& description);
// Checks a name a user or a worker is known by (a token's, a worker's): 1 to max_bytes bytes of
// UTF-8 without control characters or anything invisible (format characters such as zero-width
// spaces, spaces other than ' ': has_invisible) and without a space at either end, so two names
// that look alike are equal; INVALID_ARGUMENT names `what` and the problem.
absl::Status check_name(std::string_view what, std::string_view name, size_t max_bytes);
// Checks a version name given to look one up: INVALID_ARGUMENT when it is too long to exist.
absl::Status check_lookup_name(std::string_view name);
// Checks a worker's self-description; INVALID_ARGUMENT explains the first problem.
absl::Status check_worker(const Worker& worker);

}  // namespace sparring::coordinator

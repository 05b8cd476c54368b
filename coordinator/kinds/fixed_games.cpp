// Fixed-games runs: exactly the given number of games between the test and base versions,
// reported as Elo with its interval. Every default of a run kind applies.
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

namespace {

class FixedGamesKind final : public RunKindModule {
  public:
    RunKind kind() const override { return RunKind::FixedGames; }
    std::string_view name() const override { return "fixed_games"; }
    std::string_view label() const override { return "fixed games"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_FIXED_GAMES; }

    // Its games, exactly.
    std::optional<BookGames> book_games(const Run& run) const override {
        const uint64_t games = run.spec.games;
        return BookGames{std::to_string(games) + " games", games / 2};
    }
};

}  // namespace

const RunKindModule& fixed_games_kind() {
    static const FixedGamesKind kind;
    return kind;
}

}  // namespace sparring::coordinator

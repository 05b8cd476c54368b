// Regression runs: the test version against the base version until the SPRT decides or the
// maximum number of games is reached.
#include <map>
#include <mutex>

#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/storage.h"
#include "coordinator/domain/validation.h"
#include "stats/sequential.h"

namespace sparring::coordinator {

namespace {

class RegressionKind final : public RunKindModule {
  public:
    RunKind kind() const override { return RunKind::Regression; }
    std::string_view name() const override { return "regression"; }
    std::string_view label() const override { return "regression (SPRT)"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_REGRESSION; }

    // Checks the run's games and its SPRT.
    absl::Status check_spec(RunSpec& spec) const override {
        if (absl::Status status = RunKindModule::check_spec(spec); !status.ok()) return status;
        return check_sprt(spec.sprt);
    }

    bool decided_by_sprt() const override { return true; }

    // Its most games: an SPRT that decides within the book's openings replays nothing.
    std::optional<BookGames> book_games(const Run& run) const override {
        const uint64_t games = run.spec.games;
        return BookGames{"up to " + std::to_string(games) + " games", games / 2};
    }

    // Recomputes the SPRT from the pentanomial counts.
    void refresh_statistics(Run& run) const override {
        run.sprt = stats::sprt(run.counts.penta, run.spec.sprt);
    }

    // Ends the run when the SPRT accepts a hypothesis or its games run out: the LLR past a
    // bound, as stats::sprt decides (also for a run read back, whose state is not stored).
    std::optional<std::string> verdict(const Run& run) const override {
        const SprtOutcome outcome = run.sprt_outcome();
        if (outcome == SprtOutcome::H1) return "H1 accepted";
        if (outcome == SprtOutcome::H0) return "H0 accepted";
        if (uint64_t(run.counts.pairs) >= run.pairs_total()) return "maximum games reached";
        return std::nullopt;
    }

    // Starts the run's follow-up when its outcome is the one the follow-up waits for.
    KindEffects on_finished(Storage& storage, const Run& run) const override {
        KindEffects effects;
        const std::optional<FollowUpSpec> follow_up = storage.find_follow_up(run.id);
        if (!follow_up || !follow_up->starts_on(run.sprt_outcome())) return effects;
        RunSpec first = run.spec;
        first.book = storage.load_book(run.id);
        effects.start_run = follow_up_run_spec(first, *follow_up);
        effects.start_link = {run.id, 0, RunLinkReason::FollowUp};
        // Checked when the run was submitted; a version gone since is all that is left.
        effects.failure = {run.id, false, "follow-up not started"};
        return effects;
    }

    // Writes the SPRT settings, and for a run that ended by itself the median-unbiased Elo.
    void status_to_proto(const Run& in, v1::RunStatus* out) const override {
        sprt_to_proto(in.spec.sprt, out->mutable_spec()->mutable_sprt());
        if (in.state != RunState::Finished || in.counts.pairs == 0) return;
        const SprtOutcome outcome = in.sprt_outcome();
        const stats::SprtEnd end = outcome == SprtOutcome::H1   ? stats::SprtEnd::AcceptH1
                                   : outcome == SprtOutcome::H0 ? stats::SprtEnd::AcceptH0
                                                                : stats::SprtEnd::Truncated;
        if (end == stats::SprtEnd::Truncated && uint64_t(in.counts.pairs) < in.pairs_total())
            return;
        const stats::UnbiasedElo e = unbiased_elo(in, end);
        out->set_elo_unbiased(e.elo);
        out->set_elo_unbiased_low(e.elo_low);
        out->set_elo_unbiased_high(e.elo_high);
    }

  private:
    // Returns the median-unbiased Elo of an ended run, computed once per run and count (a few
    // milliseconds each) and kept for the statuses that follow.
    static stats::UnbiasedElo unbiased_elo(const Run& run, stats::SprtEnd end) {
        static std::mutex mutex;
        static std::map<int64_t, std::pair<int64_t, stats::UnbiasedElo>> computed;
        {
            const std::lock_guard lock(mutex);
            const auto it = computed.find(run.id);
            if (it != computed.end() && it->second.first == run.counts.pairs)
                return it->second.second;
        }
        const stats::UnbiasedElo e =
            stats::median_unbiased_elo(run.counts.penta, run.spec.sprt, end);
        const std::lock_guard lock(mutex);
        if (computed.size() >= 4096) computed.clear();
        computed[run.id] = {run.counts.pairs, e};
        return e;
    }
};

}  // namespace

const RunKindModule& regression_kind() {
    static const RegressionKind kind;
    return kind;
}

}  // namespace sparring::coordinator

#include "engine/engine.h"

#include <algorithm>

#include "engine/evaluate.h"
#include "engine/history.h"
#include "engine/search.h"
#include "engine/tt.h"

namespace sparring {

struct Engine::Impl {
    explicit Impl(const Options& options)
        : params(options.params),
          evaluator(std::make_unique<Evaluator>(options.params)),
          pawn_cache(std::make_unique<PawnCache>()),
          tt(options.hash_mb),
          history(std::make_unique<SearchHistory>()) {
        history->clear();
    }

    ParamSet params;
    std::unique_ptr<Evaluator> evaluator;
    std::unique_ptr<PawnCache> pawn_cache;  // holds terms computed with evaluator's params
    TranspositionTable tt;
    std::unique_ptr<SearchHistory> history;
    bool history_used = false;  // a search has run since the history was last cleared
    Board board;
    std::atomic<bool> stop{false};
};

Engine::Engine() : Engine(Options{}) {}

Engine::Engine(Options options) : impl_(std::make_unique<Impl>(options)) {}

Engine::~Engine() = default;

void Engine::set_params(const ParamSet& params) {
    impl_->params = params;
    impl_->evaluator = std::make_unique<Evaluator>(params);
    impl_->pawn_cache = std::make_unique<PawnCache>();  // its terms used the old parameters
}

const ParamSet& Engine::params() const {
    return impl_->params;
}

// Resizes the table; at its current size only clears it, which leaves the same empty table
// without reallocating it and faulting its pages in again (a GUI may send Hash every game).
void Engine::set_hash_mb(int megabytes) {
    if (std::max(1, megabytes) == impl_->tt.megabytes())
        impl_->tt.clear();
    else
        impl_->tt.resize(megabytes);
}

int Engine::hash_mb() const {
    return impl_->tt.megabytes();
}

// Clears the table and, when a search has written to it since, the 2 MiB history: a UCI
// session or a match may start many games in a row before the first search.
void Engine::new_game() {
    impl_->tt.clear();
    if (!impl_->history_used) return;
    impl_->history->clear();
    impl_->history_used = false;
}

void Engine::set_position(const Board& board) {
    impl_->board = board;
}

SearchResult Engine::search(const SearchLimits& limits,
                            const std::function<void(const SearchInfo&)>& on_info) {
    impl_->stop.store(false);
    impl_->history_used = true;
    Board board = impl_->board;
    board.set_psq_table(&impl_->evaluator->psq_table());
    auto searcher =
        std::make_unique<Searcher>(board, *impl_->evaluator, *impl_->pawn_cache, impl_->tt,
                                   *impl_->history, limits, impl_->stop, on_info);
    return searcher->run();
}

void Engine::stop() {
    impl_->stop.store(true);
}

}  // namespace sparring

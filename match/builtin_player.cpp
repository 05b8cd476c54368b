#include "match/builtin_player.h"

#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring::match {

namespace {

// Returns the engine options a built-in spec asks for.
Engine::Options engine_options(const PlayerSpec& spec) {
    const auto& builtin = std::get<BuiltinSpec>(spec.engine);
    return Engine::Options{builtin.hash_mb, builtin.params};
}

}  // namespace

// Creates the engine with the spec's parameters and hash size.
BuiltinPlayer::BuiltinPlayer(PlayerSpec spec)
    : spec_(std::move(spec)), engine_(engine_options(spec_)) {}

// Clears the engine's hash table and histories; it cannot fail.
bool BuiltinPlayer::new_game(std::string*) {
    engine_.new_game();
    return true;
}

bool BuiltinPlayer::reconfigure(const PlayerSpec& spec, std::string* error) {
    const auto* builtin = std::get_if<BuiltinSpec>(&spec.engine);
    if (!builtin || builtin->hash_mb != std::get<BuiltinSpec>(spec_.engine).hash_mb) {
        if (error) *error = "not the same built-in engine";
        return false;
    }
    engine_.set_params(builtin->params);
    spec_.name = spec.name;
    spec_.time_margin_ms = spec.time_margin_ms;
    std::get<BuiltinSpec>(spec_.engine).params = builtin->params;
    return true;
}

// Searches the position and checks that the move is legal.
MoveReply BuiltinPlayer::play(const GamePosition& position, const SearchLimits& limits, int) {
    engine_.set_position(position.board);
    SearchResult result = engine_.search(limits);
    MoveReply reply;
    reply.move = result.best_move;
    reply.text = to_uci(result.best_move);
    reply.depth = result.depth;
    reply.nodes = result.nodes;
    reply.score = EngineScore{result.score, result.mate};
    if (!MoveList<>(position.board).contains(result.best_move)) {
        reply.status = MoveReply::Status::IllegalMove;
        reply.error = "illegal move '" + reply.text + "'";
    }
    return reply;
}

}  // namespace sparring::match

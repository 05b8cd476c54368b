#include "match/player.h"

#include "match/builtin_player.h"
#include "match/uci_player.h"

namespace sparring::match {

// Picks the player class by the kind of engine.
std::unique_ptr<Player> make_player(const PlayerSpec& spec) {
    if (std::holds_alternative<BuiltinSpec>(spec.engine))
        return std::make_unique<BuiltinPlayer>(spec);
    return std::make_unique<UciPlayer>(spec);
}

}  // namespace sparring::match

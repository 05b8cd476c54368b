#include "proto/text.h"

#include "common/numbers.h"
#include "proto/time_control.h"

namespace sparring {

std::string follow_up_text(const v1::FollowUp& f) {
    std::string text = "on " + (f.on_result().empty() ? std::string("H1") : f.on_result()) + ": " +
                       time_control_text(f.time_control());
    if (f.has_sprt())
        text += ", SPRT [" + fixed(f.sprt().elo0(), 2) + ", " + fixed(f.sprt().elo1(), 2) + "]";
    if (f.games() > 0) text += ", " + std::to_string(f.games()) + " games";
    return text;
}

}  // namespace sparring

#include "cli/commands.h"

#include <vector>

namespace sparring::cli {

std::span<const Command> commands() {
    static const std::vector<Command> table = {
        stats_command(),     match_command(),        book_command(),   train_command(),
        positions_command(), versions_command(),     submit_command(), runs_command(),
        show_command(),      stop_command(),         modify_command(), workers_command(),
        export_command(),    tune_history_command(), purge_command(),  notify_command(),
        faults_command(),    repro_command(),        resume_command(),
    };
    return table;
}

}  // namespace sparring::cli

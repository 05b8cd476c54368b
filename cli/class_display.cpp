#include "cli/class_display.h"

#include <iostream>

#include "cli/run_display.h"
#include "common/numbers.h"

namespace sparring::cli {

void add_class_finding_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    for (const v1::ClassFinding& f : run.class_findings())
        rows.push_back({"class finding", f.text() + " - for the owner to judge, not purged"});
}

std::string class_elo_text(const v1::ClassResult& c) {
    return signed_fixed(c.elo(), 1) + " \u00b1 " + fixed((c.elo_high() - c.elo_low()) / 2, 1);
}

void print_classes(const v1::RunStatus& run) {
    const bool known = run.classes_size() > 1 ||
                       (run.classes_size() == 1 && run.classes(0).cpu_class() != "unknown");
    if (!known) return;
    std::cout << "\nCPU classes (each worker is tested against the rest of its class):\n";
    std::vector<std::vector<std::string>> rows = {
        {"CLASS", "WORKERS", "GAMES", "W/D/L", "ELO (95%)", "TIME LOSSES"}};
    for (const v1::ClassResult& c : run.classes())
        rows.push_back({c.cpu_class(), std::to_string(c.workers()), std::to_string(c.games()),
                        std::to_string(c.wins()) + "/" + std::to_string(c.draws()) + "/" +
                            std::to_string(c.losses()),
                        class_elo_text(c), std::to_string(c.time_losses())});
    print_table(rows);
}

}  // namespace sparring::cli

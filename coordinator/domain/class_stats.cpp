#include "coordinator/domain/class_stats.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "common/numbers.h"
#include "stats/homogeneity.h"
#include "stats/score_difference.h"

namespace sparring::coordinator {

namespace {

// A class's totals: its pairs, time losses and faults.
struct ClassTotals {
    Counts counts;
    int64_t time_losses = 0;
    int64_t faults = 0;
};

// Returns the smallest p of a worker's tests: its results' fit, its time losses, its faults.
double smallest_p(const WorkerFit& w) {
    return std::min({w.fit.p_value, w.time_loss_p, w.fault_p});
}

// Returns "+12.0 ± 4.1": a class's Elo and the half width of its 95% interval.
std::string elo_text(const stats::EloEstimate& e) {
    return signed_fixed(e.elo, 1) + " \u00b1 " + fixed((e.elo_high - e.elo_low) / 2, 1);
}

// Returns a share of games as a percentage with one decimal ("8.1%").
std::string percent(int64_t part, int64_t games) {
    return fixed(games > 0 ? 100.0 * double(part) / double(games) : 0, 1) + "%";
}

}  // namespace

std::string class_name(std::string_view cpu_class) {
    return std::string(cpu_class.empty() ? kUnknownClass : cpu_class);
}

void fit_within_classes(std::vector<WorkerFit>& fits, double threshold) {
    // A worker that reported no machine has no class to be kept with: it is tested against the
    // whole run, as before classes (a forger that says nothing of its machine is not alone).
    const auto group = [](const WorkerFit& w) {
        return w.cpu_class.empty() || w.cpu_class == kUnknownClass ? std::string() : w.cpu_class;
    };
    std::map<std::string, ClassTotals> totals;  // by class; "": the whole run
    for (const WorkerFit& w : fits) {
        ClassTotals& run = totals[std::string()];
        run.counts.add(w.counts);
        run.time_losses += w.time_losses;
        run.faults += w.faults;
        if (group(w).empty()) continue;
        ClassTotals& t = totals[group(w)];
        t.counts.add(w.counts);
        t.time_losses += w.time_losses;
        t.faults += w.faults;
    }
    for (WorkerFit& w : fits) {
        const ClassTotals& t = totals[group(w)];
        Counts rest = t.counts;
        rest.subtract(w.counts);
        w.class_rest_pairs = rest.pairs;
        w.fit = stats::homogeneity(w.counts.penta, rest.penta);
        if (rest.pairs == 0) {
            // Alone in its class: nothing of its kind to be tested against.
            w.time_loss_p = 1;
            w.fault_p = 1;
        } else {
            w.time_loss_p = stats::excess_loss_p(w.time_losses, 2 * w.counts.pairs,
                                                 t.time_losses - w.time_losses, 2 * rest.pairs);
            w.fault_p = stats::excess_loss_p(w.faults, 2 * w.counts.pairs, t.faults - w.faults,
                                             2 * rest.pairs);
        }
        w.quarantined = false;
    }
    if (!(threshold > 0)) return;
    // The suspects of each class, least plausible first, quarantined while together they hold
    // fewer than half the class's pairs.
    std::vector<WorkerFit*> suspects;
    for (WorkerFit& w : fits)
        if (smallest_p(w) < threshold && 2 * w.counts.pairs < w.counts.pairs + w.class_rest_pairs)
            suspects.push_back(&w);
    std::sort(suspects.begin(), suspects.end(), [](const WorkerFit* a, const WorkerFit* b) {
        return std::make_tuple(smallest_p(*a), a->worker_id) <
               std::make_tuple(smallest_p(*b), b->worker_id);
    });
    std::map<std::string, int64_t> quarantined_pairs;  // per class; "": the classless
    for (WorkerFit* w : suspects) {
        const std::string name = group(*w);
        int64_t& taken = quarantined_pairs[name];
        // (The classless are each tested against the whole run, with no class to keep whole.)
        if (!name.empty() && 2 * (taken + w->counts.pairs) >= totals[name].counts.pairs) continue;
        taken += w->counts.pairs;
        w->quarantined = true;
    }
}

std::vector<ClassResult> class_results(const std::vector<WorkerFit>& fits) {
    std::map<std::string, ClassResult> by_name;
    for (const WorkerFit& w : fits) {
        const std::string name = class_name(w.cpu_class);
        ClassResult& c = by_name[name];
        c.cpu_class = name;
        c.workers += 1;
        c.counts.add(w.counts);
        c.time_losses += w.time_losses;
        c.faults += w.faults;
    }
    std::vector<ClassResult> classes;
    for (auto& entry : by_name) {
        entry.second.elo = stats::estimate(entry.second.counts.penta);
        classes.push_back(std::move(entry.second));
    }
    std::stable_sort(
        classes.begin(), classes.end(),
        [](const ClassResult& a, const ClassResult& b) { return a.counts.pairs > b.counts.pairs; });
    return classes;
}

std::vector<ClassFinding> class_findings(const std::vector<ClassResult>& classes,
                                         double threshold) {
    std::vector<ClassFinding> findings;
    if (classes.size() < 2) return findings;
    int64_t run_pairs = 0;
    for (const ClassResult& c : classes) run_pairs += c.counts.pairs;
    for (const ClassResult& c : classes) {
        // A class of half the run's pairs or more is what the others differ from, not a
        // finding of its own (with two classes, the smaller one is the finding, once).
        if (&c == &classes.front() && 2 * c.counts.pairs >= run_pairs) continue;
        ClassFinding f;
        f.group = c;
        for (const ClassResult& other : classes) {
            if (&other == &c) continue;
            f.rest.workers += other.workers;
            f.rest.counts.add(other.counts);
            f.rest.time_losses += other.time_losses;
            f.rest.faults += other.faults;
        }
        f.rest.elo = stats::estimate(f.rest.counts.penta);
        f.elo_p = stats::score_difference(c.counts.penta, f.rest.counts.penta).p_value;
        if (c.counts.pairs >= stats::kMinDifferencePairs &&
            f.rest.counts.pairs >= stats::kMinDifferencePairs)
            f.time_loss_p = stats::excess_loss_p(c.time_losses, 2 * c.counts.pairs,
                                                 f.rest.time_losses, 2 * f.rest.counts.pairs);
        const bool elo = f.elo_p < threshold;
        const bool time = f.time_loss_p < threshold;
        if (!elo && !time) continue;
        f.text = c.cpu_class + ": ";
        if (elo)
            f.text += elo_text(c.elo) + " Elo, the rest " + elo_text(f.rest.elo) + " (p " +
                      p_value_text(f.elo_p) + ")";
        if (elo && time) f.text += "; ";
        if (time)
            f.text += percent(c.time_losses, 2 * c.counts.pairs) +
                      " of its games lost on time, the rest " +
                      percent(f.rest.time_losses, 2 * f.rest.counts.pairs) + " (p " +
                      p_value_text(f.time_loss_p) + ")";
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace sparring::coordinator

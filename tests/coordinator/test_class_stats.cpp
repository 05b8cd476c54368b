// CPU classes in a run's statistics (issue 52, item 2): the two-class simulation of fishtest
// #2582 — a class of machines that genuinely plays the versions differently is quarantined
// whole by the old rule (each worker against the rest of the run) and by the new rule (each
// worker against the rest of its class) never, while a single bad worker inside a class is still
// caught; the class is a finding instead. Also the time-loss test within classes, the cap that
// keeps a class from being quarantined whole, and stats::score_difference.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "coordinator/domain/class_stats.h"
#include "coordinator/domain/core.h"
#include "stats/homogeneity.h"
#include "stats/score_difference.h"

namespace sparring::coordinator {
namespace {

constexpr double kQuarantineP = 1e-4;  // a sane --quarantine-p (docs/service.md)

// Returns `pairs` game pairs drawn with probabilities (in per mille) of LL, LD, DD+WL, WD, WW.
Counts draw_pairs(std::mt19937_64& rng, int64_t pairs, const std::array<int, 5>& per_mille) {
    Counts c;
    for (int64_t i = 0; i < pairs; ++i) {
        int64_t roll = int64_t(rng() % 1000);
        size_t k = 0;
        while (k + 1 < per_mille.size() && roll >= per_mille[k]) roll -= per_mille[k++];
        c.penta.counts[k] += 1;
    }
    c.pairs = pairs;
    // Game results of a pair: LL 0-2, LD 0-1-1, DD+WL as two draws, WD 1-1-0, WW 2-0.
    const auto& p = c.penta.counts;
    c.wins = 2 * p[4] + p[3];
    c.draws = p[1] + 2 * p[2] + p[3];
    c.losses = 2 * p[0] + p[1];
    return c;
}

WorkerFit worker(int64_t id, std::string cpu_class, Counts counts, int64_t time_losses = 0) {
    WorkerFit w;
    w.worker_id = id;
    w.name = "w" + std::to_string(id);
    w.cpu_class = std::move(cpu_class);
    w.counts = counts;
    w.time_losses = time_losses;
    w.faults = time_losses;
    return w;
}

Counts total_of(const std::vector<WorkerFit>& fits) {
    Counts run;
    for (const WorkerFit& w : fits) run.add(w.counts);
    return run;
}

// The rule before issue 52 (coordinator/domain/purge.cpp): each worker against the rest of the
// whole run, quarantined below the threshold with fewer than half the run's pairs.
bool old_rule_quarantines(const WorkerFit& w, const std::vector<WorkerFit>& fits) {
    const Counts run = total_of(fits);
    int64_t time_losses = 0;
    for (const WorkerFit& f : fits) time_losses += f.time_losses;
    const double fit_p = worker_homogeneity(w.counts, run).p_value;
    const double time_p =
        stats::excess_loss_p(w.time_losses, 2 * w.counts.pairs, time_losses - w.time_losses,
                             2 * (run.pairs - w.counts.pairs));
    return (fit_p < kQuarantineP || time_p < kQuarantineP) && 2 * w.counts.pairs < run.pairs;
}

// Elo 0: LL 5%, LD 20%, DD+WL 50%, WD 20%, WW 5%.
constexpr std::array<int, 5> kEven = {50, 200, 500, 200, 50};
// About +50 Elo: the test version's search pays off on this CPU (its wider vector unit).
constexpr std::array<int, 5> kStronger = {20, 120, 500, 260, 100};
// A broken worker: far more won pairs than its machine's class gives anyone.
constexpr std::array<int, 5> kBroken = {10, 50, 350, 290, 300};

TEST(ClassStatsTest, OldRuleQuarantinesAClassThatPlaysDifferentlyTheNewRuleOnlyTheBadWorker) {
    std::mt19937_64 rng(52);
    std::vector<WorkerFit> fits;
    for (int64_t id = 1; id <= 4; ++id)
        fits.push_back(worker(id, "zen4-avx2", draw_pairs(rng, 1500, kEven)));
    for (int64_t id = 5; id <= 7; ++id)
        fits.push_back(worker(id, "zen5-avx512", draw_pairs(rng, 1500, kStronger)));
    // One bad worker among the zen4 machines, with fewer pairs than the others.
    fits.push_back(worker(8, "zen4-avx2", draw_pairs(rng, 150, kBroken)));

    // The old rule takes the whole zen5 class for bad workers, and the bad one (the zen4
    // machines, tested against a rest that is partly zen5, may look off too).
    for (const WorkerFit& w : fits)
        if (w.cpu_class == "zen5-avx512" || w.worker_id == 8) {
            EXPECT_TRUE(old_rule_quarantines(w, fits))
                << w.name << " p " << worker_homogeneity(w.counts, total_of(fits)).p_value;
        }

    fit_within_classes(fits, kQuarantineP);
    for (const WorkerFit& w : fits) {
        EXPECT_EQ(w.quarantined, w.worker_id == 8) << w.name << " p " << w.fit.p_value;
        if (w.cpu_class == "zen5-avx512") {
            EXPECT_GT(w.fit.p_value, 1e-3) << w.name << ": like the rest of its class";
            EXPECT_EQ(w.class_rest_pairs, 3000);
        }
    }
    EXPECT_LT(fits.back().fit.p_value, 1e-6);
    EXPECT_GT(fits.back().fit.residual, 0) << "more won pairs than its class";
    EXPECT_EQ(fits.back().class_rest_pairs, 6000);

    // The class is a finding for the owner, with its Elo against the rest's.
    const std::vector<ClassResult> classes = class_results(fits);
    ASSERT_EQ(classes.size(), 2u);
    EXPECT_EQ(classes[0].cpu_class, "zen4-avx2") << "most games first";
    EXPECT_EQ(classes[0].workers, 5);
    EXPECT_EQ(classes[0].counts.pairs, 6150);
    EXPECT_EQ(classes[1].cpu_class, "zen5-avx512");
    EXPECT_EQ(classes[1].workers, 3);
    EXPECT_EQ(classes[1].counts.pairs, 4500);
    EXPECT_GT(classes[1].elo.elo, 35);
    EXPECT_LT(classes[1].elo.elo, 65);
    const std::vector<ClassFinding> findings = class_findings(classes);
    ASSERT_EQ(findings.size(), 1u) << "the larger class is what the smaller one differs from";
    const ClassFinding* zen5 = &findings[0];
    EXPECT_EQ(zen5->group.cpu_class, "zen5-avx512");
    EXPECT_LT(zen5->elo_p, 1e-6);
    EXPECT_EQ(zen5->rest.counts.pairs, 6150);
    EXPECT_EQ(zen5->text.rfind("zen5-avx512: +", 0), 0u) << zen5->text;
    EXPECT_NE(zen5->text.find(" Elo, the rest "), std::string::npos) << zen5->text;
    EXPECT_EQ(zen5->text.find("on time"), std::string::npos) << "no time losses: " << zen5->text;
}

TEST(ClassStatsTest, TimeLossesAreTestedAgainstTheWorkersOwnClass) {
    // Slow machines lose on time more often, all of them alike: the class is a finding; one
    // overloaded machine among the fast ones is quarantined.
    std::mt19937_64 rng(7);
    std::vector<WorkerFit> fits;
    for (int64_t id = 1; id <= 4; ++id)
        fits.push_back(worker(id, "skylake-avx2", draw_pairs(rng, 400, kEven), 4));
    for (int64_t id = 5; id <= 7; ++id)
        fits.push_back(worker(id, "cortex-a72", draw_pairs(rng, 400, kEven), 40));
    fits.push_back(worker(8, "skylake-avx2", draw_pairs(rng, 300, kEven), 36));

    for (const WorkerFit& w : fits)
        EXPECT_EQ(old_rule_quarantines(w, fits), w.cpu_class == "cortex-a72" || w.worker_id == 8)
            << w.name;
    fit_within_classes(fits, kQuarantineP);
    for (const WorkerFit& w : fits) {
        EXPECT_EQ(w.quarantined, w.worker_id == 8) << w.name << " time p " << w.time_loss_p;
        if (w.cpu_class == "cortex-a72") {
            EXPECT_GT(w.time_loss_p, 0.01) << w.name;
        }
    }
    EXPECT_LT(fits.back().time_loss_p, 1e-6);

    const std::vector<ClassFinding> findings = class_findings(class_results(fits));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].group.cpu_class, "cortex-a72");
    EXPECT_EQ(findings[0].group.time_losses, 120);
    EXPECT_LT(findings[0].time_loss_p, 1e-10);
    EXPECT_GT(findings[0].elo_p, 1e-3) << "the same Elo";
    EXPECT_EQ(findings[0].text.rfind("cortex-a72: 5.0% of its games lost on time, the rest ", 0),
              0u)
        << findings[0].text;
}

TEST(ClassStatsTest, AClassIsNeverQuarantinedWhole) {
    std::mt19937_64 rng(3);
    // Alone in its class: nothing to test it against, however it plays.
    std::vector<WorkerFit> fits = {worker(1, "zen4-avx2", draw_pairs(rng, 400, kEven)),
                                   worker(2, "zen4-avx2", draw_pairs(rng, 400, kEven)),
                                   worker(3, "zen4-avx2", draw_pairs(rng, 400, kEven)),
                                   worker(4, "graviton3", draw_pairs(rng, 100, kBroken), 30)};
    EXPECT_TRUE(old_rule_quarantines(fits[3], fits));
    fit_within_classes(fits, kQuarantineP);
    EXPECT_FALSE(fits[3].quarantined);
    EXPECT_EQ(fits[3].fit.df, 0);
    EXPECT_EQ(fits[3].fit.p_value, 1);
    EXPECT_EQ(fits[3].time_loss_p, 1);
    EXPECT_EQ(fits[3].class_rest_pairs, 0);
    const std::vector<ClassFinding> findings = class_findings(class_results(fits));
    ASSERT_EQ(findings.size(), 1u) << "it is a finding instead";
    EXPECT_EQ(findings[0].group.cpu_class, "graviton3");

    // Two workers of a class that disagree: each holds half of it, neither is the suspect.
    fits = {worker(1, "zen4-avx2", draw_pairs(rng, 400, kEven)),
            worker(2, "zen4-avx2", draw_pairs(rng, 400, kBroken))};
    fit_within_classes(fits, kQuarantineP);
    EXPECT_LT(fits[0].fit.p_value, kQuarantineP);
    EXPECT_FALSE(fits[0].quarantined);
    EXPECT_FALSE(fits[1].quarantined);

    // Three workers of a class that all disagree with each other, each below the threshold and
    // with a third of its pairs: the least plausible one is quarantined, not the others (the
    // quarantined hold fewer than half the class's pairs together).
    fits = {worker(1, "zen4-avx2", draw_pairs(rng, 400, {400, 300, 200, 50, 50})),
            worker(2, "zen4-avx2", draw_pairs(rng, 400, kEven)),
            worker(3, "zen4-avx2", draw_pairs(rng, 400, {50, 50, 200, 300, 400}))};
    fit_within_classes(fits, kQuarantineP);
    int quarantined = 0;
    for (const WorkerFit& w : fits) {
        EXPECT_LT(w.fit.p_value, kQuarantineP) << w.name;
        quarantined += w.quarantined;
    }
    EXPECT_EQ(quarantined, 1);

    // Off (threshold 0): nobody.
    fits.push_back(worker(4, "zen4-avx2", draw_pairs(rng, 100, kBroken)));
    fit_within_classes(fits, 0);
    for (const WorkerFit& w : fits) EXPECT_FALSE(w.quarantined) << w.name;
}

TEST(ClassStatsTest, WorkersWithoutAClassAreOneClassUnknownAndOneClassHasNoFinding) {
    EXPECT_EQ(class_name(""), "unknown");
    EXPECT_EQ(class_name("zen5-avx512"), "zen5-avx512");
    std::mt19937_64 rng(11);
    std::vector<WorkerFit> fits = {worker(1, "", draw_pairs(rng, 300, kEven)),
                                   worker(2, "", draw_pairs(rng, 300, kStronger)),
                                   worker(3, "", draw_pairs(rng, 300, kEven))};
    fit_within_classes(fits, kQuarantineP);
    for (const WorkerFit& w : fits) EXPECT_EQ(w.class_rest_pairs, 600) << w.name;
    const std::vector<ClassResult> classes = class_results(fits);
    ASSERT_EQ(classes.size(), 1u);
    EXPECT_EQ(classes[0].cpu_class, "unknown");
    EXPECT_EQ(classes[0].workers, 3);
    EXPECT_EQ(classes[0].counts.pairs, 900);
    EXPECT_TRUE(class_findings(classes).empty()) << "no rest to differ from";
    EXPECT_TRUE(class_findings({}).empty());
}

// A worker that reports no machine is tested against the whole run, as before classes: a
// forger that leaves out its identity is not alone in a class of its own, out of the test.
TEST(ClassStatsTest, AWorkerWithoutAClassIsTestedAgainstTheWholeRun) {
    std::mt19937_64 rng(5);
    std::vector<WorkerFit> fits = {worker(1, "zen5-avx512", draw_pairs(rng, 600, kEven)),
                                   worker(2, "", draw_pairs(rng, 200, kBroken))};
    fit_within_classes(fits, kQuarantineP);
    EXPECT_EQ(fits[1].class_rest_pairs, 600);
    EXPECT_TRUE(fits[1].quarantined) << fits[1].fit.p_value;
    // The honest worker alone in its class is not tested (it holds most of the run anyway).
    EXPECT_EQ(fits[0].class_rest_pairs, 0);
    EXPECT_FALSE(fits[0].quarantined);
    // With a class, the same worker is alone in it and kept: a finding for the owner instead.
    fits[1].cpu_class = "skylake-avx2";
    fit_within_classes(fits, kQuarantineP);
    EXPECT_FALSE(fits[1].quarantined);
    EXPECT_EQ(class_findings(class_results(fits)).size(), 1u);
}

TEST(ClassStatsTest, AlikeClassesAreRarelyAFinding) {
    // Two classes of the same Elo, 200 simulated runs of 2 x 3 workers: a finding at p 0.001
    // per class and test comes up in about 1 run of 250 (a few runs at most).
    std::mt19937_64 rng(2582);
    int runs_with_findings = 0;
    for (int run = 0; run < 200; ++run) {
        std::vector<WorkerFit> fits;
        for (int64_t id = 1; id <= 6; ++id)
            fits.push_back(
                worker(id, id <= 3 ? "zen4-avx2" : "zen5-avx512", draw_pairs(rng, 200, kEven)));
        runs_with_findings += !class_findings(class_results(fits)).empty();
    }
    EXPECT_LE(runs_with_findings, 5);
}

TEST(ScoreDifferenceTest, TellsGroupsThatScoreDifferentlyAndNeedsPairs) {
    const stats::Pentanomial even{{50, 200, 500, 200, 50}};
    const stats::Pentanomial stronger{{20, 120, 500, 260, 100}};
    EXPECT_DOUBLE_EQ(stats::score_difference(even, even).p_value, 1);
    const stats::ScoreDifference d = stats::score_difference(stronger, even);
    EXPECT_GT(d.z, 5);
    EXPECT_LT(d.p_value, 1e-6);
    EXPECT_NEAR(stats::score_difference(even, stronger).z, -d.z, 1e-12) << "symmetric";
    // By hand: means 0.575 and 0.5, variances 0.048125 and 0.05 per pair, 1000 pairs each.
    EXPECT_NEAR(d.z, 0.075 / std::sqrt((0.048125 + 0.05) / 1000), 1e-9);
    const stats::Pentanomial few{{0, 0, 0, 0, stats::kMinDifferencePairs - 1}};
    EXPECT_EQ(stats::score_difference(few, even).p_value, 1);
    EXPECT_EQ(stats::score_difference(even, few).p_value, 1);
    EXPECT_THROW(stats::score_difference(stats::Pentanomial{{-1, 0, 0, 0, 40}}, even),
                 std::invalid_argument);
}

}  // namespace
}  // namespace sparring::coordinator

// SqliteStorage, SPSA tuning: run parameters and values, the trajectory, and the values each
// lease drew its perturbations from.
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

void SqliteStorage::insert_tune(const TuneState& t) {
    const auto real_if = [&t](double value) {
        return t.verify ? std::optional<double>(value) : std::nullopt;
    };
    db_.prepare(
           "INSERT INTO spsa_runs (run_id, seed, pairs_applied, verify, verify_games, elo0, "
           "elo1, alpha, beta, model, average, averaged_pairs, verify_fixed, verify_seed) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(t.run_id, t.seed, t.pairs_applied, t.verify, t.verify_games, real_if(t.sprt.elo0),
              real_if(t.sprt.elo1), real_if(t.sprt.alpha), real_if(t.sprt.beta),
              t.verify ? std::optional<std::string>(std::string(stats::model_name(t.sprt.model)))
                       : std::nullopt,
              t.average, t.averaged_pairs, t.verify_fixed, t.verify_seed)
        .run();
    for (size_t i = 0; i < t.params.size(); ++i) {
        const spsa::Param& p = t.params[i];
        db_.prepare(
               "INSERT INTO spsa_params (run_id, idx, name, start, min, max, c_end, r_end, value, "
               "average_sum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .bind(t.run_id, uint64_t(i), p.name, p.start, p.min, p.max, p.c_end, p.r_end,
                  t.theta[i], i < t.average_sum.size() ? t.average_sum[i] : 0.0)
            .run();
    }
}

std::optional<TuneState> SqliteStorage::find_tune(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT seed, pairs_applied, verify, verify_games, elo0, elo1, alpha, beta, model, "
        "tuned_version, verify_run_id, average, averaged_pairs, verify_fixed, verify_seed, "
        "pairs_faulty FROM spsa_runs WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    TuneState t;
    t.run_id = run_id;
    t.seed = uint64_t(s.int64(0));
    t.pairs_applied = s.int64(1);
    t.verify = s.int64(2) != 0;
    t.verify_games = uint64_t(s.int64(3));
    if (!s.is_null(4)) {
        t.sprt.elo0 = s.real(4);
        t.sprt.elo1 = s.real(5);
        t.sprt.alpha = s.real(6);
        t.sprt.beta = s.real(7);
        stats::parse_model(s.text(8), &t.sprt.model);
    }
    t.tuned_version = s.text(9);
    t.verify_run_id = s.int64(10);
    t.average = s.real(11);
    t.averaged_pairs = s.int64(12);
    t.verify_fixed = s.int64(13) != 0;
    if (!s.is_null(14)) t.verify_seed = uint64_t(s.int64(14));
    t.pairs_faulty = s.int64(15);
    s.reset();
    Statement& p = db_.prepare(
        "SELECT name, start, min, max, c_end, r_end, value, average_sum FROM spsa_params "
        "WHERE run_id = ? ORDER BY idx");
    p.bind(run_id);
    while (p.step()) {
        t.params.push_back({p.text(0), p.real(1), p.real(2), p.real(3), p.real(4), p.real(5)});
        t.theta.push_back(p.real(6));
        t.average_sum.push_back(p.real(7));
    }
    return t;
}

void SqliteStorage::update_tune(const TuneState& t) {
    db_.prepare(
           "UPDATE spsa_runs SET pairs_applied = ?, tuned_version = ?, verify_run_id = ?, "
           "averaged_pairs = ?, pairs_faulty = ? WHERE run_id = ?")
        .bind(t.pairs_applied, t.tuned_version, t.verify_run_id, t.averaged_pairs, t.pairs_faulty,
              t.run_id)
        .run();
    for (size_t i = 0; i < t.theta.size(); ++i)
        db_.prepare(
               "UPDATE spsa_params SET value = ?, average_sum = ? WHERE run_id = ? AND idx = ?")
            .bind(t.theta[i], i < t.average_sum.size() ? t.average_sum[i] : 0.0, t.run_id,
                  uint64_t(i))
            .run();
}

void SqliteStorage::insert_tune_point(int64_t run_id, const TunePoint& point) {
    for (size_t i = 0; i < point.values.size(); ++i)
        db_.prepare(
               "INSERT INTO spsa_history (run_id, pairs, idx, value, recorded_ms) "
               "VALUES (?, ?, ?, ?, ?)")
            .bind(run_id, point.pairs, uint64_t(i), point.values[i], point.recorded_ms)
            .run();
}

std::vector<TunePoint> SqliteStorage::list_tune_points(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT pairs, recorded_ms, value FROM spsa_history WHERE run_id = ? "
        "ORDER BY pairs, idx");
    s.bind(run_id);
    std::vector<TunePoint> points;
    while (s.step()) {
        if (points.empty() || points.back().pairs != s.int64(0))
            points.push_back({s.int64(0), s.int64(1), {}});
        points.back().values.push_back(s.real(2));
    }
    return points;
}

void SqliteStorage::insert_lease_theta(int64_t lease_id, const std::vector<double>& theta) {
    db_.prepare("INSERT INTO spsa_batches (batch_id, theta) VALUES (?, ?)")
        .bind(lease_id, json_column(theta))
        .run();
}

std::optional<std::vector<double>> SqliteStorage::find_lease_theta(int64_t lease_id) {
    Statement& s = db_.prepare("SELECT theta FROM spsa_batches WHERE batch_id = ?");
    s.bind(lease_id);
    if (!s.step()) return std::nullopt;
    std::vector<double> theta =
        read_json_column<std::vector<double>>(s.text(0), "spsa_batches.theta");
    s.reset();
    return theta;
}

}  // namespace sparring::coordinator

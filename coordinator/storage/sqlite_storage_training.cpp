// SqliteStorage, self-play training: generation runs and their labelled positions, training
// runs with their loss curves, and chains of generations.
#include "coordinator/domain/text.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

void SqliteStorage::insert_generate(const GenerateState& g) {
    db_.prepare(
           "INSERT INTO generate_runs (run_id, seed, random_plies, filters, max_plies, "
           "positions) VALUES (?, ?, ?, ?, ?, ?)")
        .bind(g.run_id, g.seed, g.random_plies, g.filters, g.max_plies, g.positions)
        .run();
}

std::optional<GenerateState> SqliteStorage::find_generate(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT seed, random_plies, filters, max_plies, positions FROM generate_runs "
        "WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    GenerateState g;
    g.run_id = run_id;
    g.seed = uint64_t(s.int64(0));
    g.random_plies = int(s.int64(1));
    g.filters = s.text(2);
    g.max_plies = int(s.int64(3));
    g.positions = uint64_t(s.int64(4));
    s.reset();
    return g;
}

void SqliteStorage::insert_positions(int64_t run_id, const StoredPositions& p) {
    db_.prepare("INSERT INTO training_positions (run_id, game, count, data) VALUES (?, ?, ?, ?)")
        .bind(run_id, p.game, p.count, Blob{p.data})
        .run();
    db_.prepare("UPDATE generate_runs SET positions = positions + ? WHERE run_id = ?")
        .bind(p.count, run_id)
        .run();
}

std::vector<StoredPositions> SqliteStorage::list_positions(int64_t run_id, uint64_t start_game,
                                                           int max_games) {
    Statement& s = db_.prepare(
        "SELECT game, count, data FROM training_positions WHERE run_id = ? AND game >= ? "
        "ORDER BY game LIMIT ?");
    s.bind(run_id, start_game, max_games);
    std::vector<StoredPositions> games;
    while (s.step()) games.push_back({uint64_t(s.int64(0)), uint32_t(s.int64(1)), s.blob(2)});
    return games;
}

void SqliteStorage::insert_train(const TrainState& t) {
    const TrainSpec& spec = t.spec;
    db_.prepare(
           "INSERT INTO train_runs (run_id, data_runs, epochs, learning_rate, l2, k, batch_size, "
           "select_params, threads, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(t.run_id, json_column(spec.data_runs), spec.epochs, spec.learning_rate.value_or(1.0),
              spec.l2.value_or(0.0), spec.k, spec.batch_size, spec.select, spec.threads, spec.seed)
        .run();
}

std::optional<TrainState> SqliteStorage::find_train(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT data_runs, epochs, learning_rate, l2, k, batch_size, select_params, threads, "
        "seed, epoch, positions, k_used, initial_loss, final_loss, params, bench FROM train_runs "
        "WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    TrainState t;
    t.run_id = run_id;
    const std::string data_runs = s.text(0);
    t.spec.epochs = int(s.int64(1));
    t.spec.learning_rate = s.real(2);
    t.spec.l2 = s.real(3);
    if (!s.is_null(4)) t.spec.k = s.real(4);
    t.spec.batch_size = uint64_t(s.int64(5));
    t.spec.select = s.text(6);
    t.spec.threads = int(s.int64(7));
    t.spec.seed = uint64_t(s.int64(8));
    t.epoch = int(s.int64(9));
    t.positions = uint64_t(s.int64(10));
    t.k = s.real(11);
    t.initial_loss = s.real(12);
    t.final_loss = s.real(13);
    t.params_json = s.text(14);
    t.bench = uint64_t(s.int64(15));
    s.reset();
    t.spec.data_runs = read_json_column<std::vector<int64_t>>(data_runs, "train_runs.data_runs");
    Statement& l = db_.prepare("SELECT loss FROM train_loss WHERE run_id = ? ORDER BY epoch");
    l.bind(run_id);
    while (l.step()) t.loss_curve.push_back(l.real(0));
    return t;
}

void SqliteStorage::update_train(const TrainState& t) {
    db_.prepare(
           "UPDATE train_runs SET epoch = ?, positions = ?, k_used = ?, initial_loss = ?, "
           "final_loss = ?, params = ?, bench = ? WHERE run_id = ?")
        .bind(t.epoch, t.positions, t.k, t.initial_loss, t.final_loss, t.params_json, t.bench,
              t.run_id)
        .run();
}

void SqliteStorage::insert_train_loss(int64_t run_id, int epoch, double loss) {
    db_.prepare("INSERT OR REPLACE INTO train_loss (run_id, epoch, loss) VALUES (?, ?, ?)")
        .bind(run_id, epoch, loss)
        .run();
}

void SqliteStorage::delete_train_loss(int64_t run_id) {
    db_.prepare("DELETE FROM train_loss WHERE run_id = ?").bind(run_id).run();
}

void SqliteStorage::insert_chain(const ChainState& c) {
    db_.prepare(
           "INSERT INTO chain_runs (run_id, generations, verify_games, name) VALUES (?, ?, ?, ?)")
        .bind(c.run_id, c.spec.generations, c.spec.verify_games, c.spec.name)
        .run();
}

std::optional<ChainState> SqliteStorage::find_chain(int64_t run_id) {
    Statement& s =
        db_.prepare("SELECT generations, verify_games, name FROM chain_runs WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    ChainState c;
    c.run_id = run_id;
    c.spec.generations = int(s.int64(0));
    c.spec.verify_games = uint64_t(s.int64(1));
    c.spec.name = s.text(2);
    s.reset();
    Statement& g = db_.prepare(
        "SELECT generation, version, generate_run_id, train_run_id, verify_run_id, "
        "trained_version FROM chain_generations WHERE run_id = ? ORDER BY generation");
    g.bind(run_id);
    while (g.step()) {
        ChainGeneration generation;
        generation.generation = int(g.int64(0));
        generation.version = g.text(1);
        generation.generate_run_id = g.int64(2);
        generation.train_run_id = g.int64(3);
        generation.verify_run_id = g.int64(4);
        generation.trained_version = g.text(5);
        c.generations.push_back(std::move(generation));
    }
    return c;
}

void SqliteStorage::save_chain_generation(int64_t run_id, const ChainGeneration& g) {
    db_.prepare(
           "INSERT OR REPLACE INTO chain_generations (run_id, generation, version, "
           "generate_run_id, train_run_id, verify_run_id, trained_version) "
           "VALUES (?, ?, ?, ?, ?, ?, ?)")
        .bind(run_id, g.generation, g.version, g.generate_run_id, g.train_run_id, g.verify_run_id,
              g.trained_version)
        .run();
}

}  // namespace sparring::coordinator

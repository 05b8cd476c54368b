// The stores of the run kinds, owned by the domain: each kind reads and writes only its own
// (kinds/ receive them narrowed from the whole Storage, see run_kind.h), and reads the runs,
// versions and books they refer to. SqliteStorage implements them all as part of Storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/run_store.h"
#include "coordinator/domain/types.h"
#include "coordinator/domain/version_store.h"

namespace sparring::coordinator {

// What every kind may read: runs, versions and a run's book.
class KindReads : public virtual RunReads, public virtual VersionReads {};

// Tuning runs: parameters, values, trajectory and the values each lease drew from.
class TuneStore : public virtual KindReads {
  public:
    // Records a tuning run's parameters, values and verification settings.
    virtual void insert_tune(const TuneState& state) = 0;
    // Returns a tuning run's state; nullopt for a run that tunes nothing.
    virtual std::optional<TuneState> find_tune(int64_t run_id) = 0;
    // Writes a tuning run's values, pairs applied, tuned version and verification run.
    virtual void update_tune(const TuneState& state) = 0;
    virtual void insert_tune_point(int64_t run_id, const TunePoint& point) = 0;
    // Returns a tuning run's recorded points, in order of pairs.
    virtual std::vector<TunePoint> list_tune_points(int64_t run_id) = 0;
    // Records the values a tuning lease draws its perturbations from.
    virtual void insert_lease_theta(int64_t lease_id, const std::vector<double>& theta) = 0;
    virtual std::optional<std::vector<double>> find_lease_theta(int64_t lease_id) = 0;
};

// Generation runs: settings and the labelled positions of their games.
class GenerateStore : public virtual KindReads {
  public:
    // Records a generation run's settings.
    virtual void insert_generate(const GenerateState& state) = 0;
    // Returns a generation run's settings and positions stored; nullopt for other runs.
    virtual std::optional<GenerateState> find_generate(int64_t run_id) = 0;
    // Stores one game's labelled positions and adds them to its run's count.
    virtual void insert_positions(int64_t run_id, const StoredPositions& positions) = 0;
    // Records the key of an import of positions (ImportPositionsRequest.import_key).
    virtual void insert_import_key(int64_t run_id, std::string_view key) = 0;
    // Returns the active import run recorded with a key, if any.
    virtual std::optional<int64_t> find_active_import(std::string_view key) = 0;
    // Returns how many games (imports: chunks) of a run have stored positions.
    virtual uint64_t count_position_games(int64_t run_id) = 0;
    // Returns the positions of up to max_games of a run's games from start_game on, in order.
    virtual std::vector<StoredPositions> list_positions(int64_t run_id, uint64_t start_game,
                                                        int max_games) = 0;
};

// Training runs: settings, progress, loss curve and result.
class TrainStore : public virtual KindReads {
  public:
    // Records a training run's settings.
    virtual void insert_train(const TrainState& state) = 0;
    // Returns a training run with its loss curve; nullopt for other runs.
    virtual std::optional<TrainState> find_train(int64_t run_id) = 0;
    // Writes a training run's progress and result (not its loss curve).
    virtual void update_train(const TrainState& state) = 0;
    // Records the loss after an epoch; the first epoch of a restarted training clears them.
    virtual void insert_train_loss(int64_t run_id, int epoch, double loss) = 0;
    virtual void delete_train_loss(int64_t run_id) = 0;
};

// Chains: their generations; a chain keeps its generation and training settings as a
// generation and a training run would, so its store holds theirs too.
class ChainStore : public virtual GenerateStore, public virtual TrainStore {
  public:
    // Records a chain's settings (its generations are saved one by one).
    virtual void insert_chain(const ChainState& state) = 0;
    // Returns a chain with its generations; nullopt for other runs.
    virtual std::optional<ChainState> find_chain(int64_t run_id) = 0;
    // Inserts or replaces a generation of a chain.
    virtual void save_chain_generation(int64_t run_id, const ChainGeneration& generation) = 0;
};

}  // namespace sparring::coordinator

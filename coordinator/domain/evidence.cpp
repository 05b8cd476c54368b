#include "coordinator/domain/evidence.h"

namespace sparring::coordinator {

void keep_evidence(EvidenceStore& store, const Run& run, uint64_t game, const GameRecord& record) {
    if (!record.evidence || !is_fault(record.ending)) return;
    // The engine at fault lost the game: the test version when the test's outcome is a loss.
    const int64_t version_id = record.outcome == Outcome::Loss ? run.test_id : run.base_id;
    const bool full =
        store.count_full_evidence(run.id, version_id, record.ending) < kEvidencePerKind;
    store.insert_evidence(run.id, game, version_id, record.ending, *record.evidence, full);
}

}  // namespace sparring::coordinator

// The coordinator's storage port, owned by the domain: the transactions and the store of each
// aggregate the core and the kinds read and write (their headers beside this one).
// SqliteStorage implements it; each instance is one connection used by one thread.
#pragma once

#include <functional>
#include <memory>

#include "coordinator/domain/evidence.h"
#include "coordinator/domain/fault_store.h"
#include "coordinator/domain/game_export.h"
#include "coordinator/domain/kind_stores.h"
#include "coordinator/domain/outbox.h"
#include "coordinator/domain/run_store.h"
#include "coordinator/domain/storage_error.h"
#include "coordinator/domain/token_store.h"
#include "coordinator/domain/transaction_port.h"
#include "coordinator/domain/types.h"
#include "coordinator/domain/version_store.h"
#include "coordinator/domain/work_stores.h"

namespace sparring::coordinator {

// The whole port: the core's stores and every kind's (a kind receives only its own, a helper
// that needs one store takes that one).
class Storage : public TransactionPort,
                public TokenStore,
                public VersionStore,
                public RunStore,
                public WorkerStore,
                public LeaseStore,
                public ReportStore,
                public PurgeStore,
                public Outbox,
                public TuneStore,
                public ChainStore,
                public FaultStore,
                public EvidenceStore,
                public GameExportStore {};

// Opens a new connection to the storage: one per thread that uses it. The composition root
// (coordinator/server.cpp, main.cpp) makes the one factory and hands it to whoever needs storage.
using OpenStorage = std::function<std::unique_ptr<Storage>()>;

}  // namespace sparring::coordinator

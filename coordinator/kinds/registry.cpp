// The one table of run kinds: a new kind is a module file and a line here.
#include "coordinator/kinds/registry.h"

namespace sparring::coordinator {

const RunKindModule& regression_kind();
const RunKindModule& fixed_games_kind();
const RunKindModule& tune_kind();
const RunKindModule& generate_kind();
const RunKindModule& train_kind();
const RunKindModule& chain_kind();

RunKindTable all_run_kinds() {
    return {
        &regression_kind(), &fixed_games_kind(), &tune_kind(),
        &generate_kind(),   &train_kind(),       &chain_kind(),
    };
}

}  // namespace sparring::coordinator

// Proto conversions the self-play kinds share: a chain reads and writes the generation and
// training settings of its steps as generation and training runs do.
#pragma once

#include "coordinator/domain/types.h"
#include "sparring/v1/common.pb.h"

namespace sparring::coordinator {

// Reads generation settings (generate.cpp).
GenerateSpec generate_spec_from_proto(const v1::GenerateSpec& in);
// Writes a run's resolved generation settings and the positions it stored (generate.cpp).
void generate_status_to_proto(const GenerateState& in, v1::RunStatus* out);
// Reads training settings (train.cpp).
TrainSpec train_spec_from_proto(const v1::TrainSpec& in);
// Writes resolved training settings (train.cpp).
void train_spec_to_proto(const TrainSpec& in, v1::TrainSpec* out);

}  // namespace sparring::coordinator

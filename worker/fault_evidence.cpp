#include "worker/fault_evidence.h"

#include "common/printable.h"
#include "match/transcript.h"

namespace sparring::worker {

void fault_evidence_to_proto(const match::GameResult& game, v1::Game* out) {
    if (!game.evidence) return;
    const match::FaultEvidence& in = *game.evidence;
    v1::FaultEvidence* evidence = out->mutable_evidence();
    evidence->set_reason(valid_utf8(game.reason));
    evidence->set_command(valid_utf8(in.command));
    for (const std::string& arg : in.args) evidence->add_args(valid_utf8(arg));
    for (const auto& [name, value] : in.options) {
        v1::FaultEvidence::Option* option = evidence->add_options();
        option->set_name(valid_utf8(name));
        option->set_value(valid_utf8(value));
    }
    evidence->set_position(valid_utf8(in.position));
    evidence->set_go(valid_utf8(in.go));
    evidence->set_transcript_z(match::compress_evidence(in.transcript));
    evidence->set_transcript_complete(in.transcript_complete);
    evidence->set_stderr_z(match::compress_evidence(in.stderr_tail));
    evidence->set_stderr_bytes(in.stderr_bytes);
}

}  // namespace sparring::worker

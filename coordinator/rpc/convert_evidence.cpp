#include "coordinator/rpc/convert_evidence.h"

#include <algorithm>
#include <utility>

#include "common/printable.h"
#include "coordinator/domain/text.h"
#include "match/transcript.h"
#include "proto/time_control.h"

namespace sparring::coordinator {

namespace {

// Returns the text of an evidence stream inflated within max_bytes; an error naming it if the
// stream is too large, damaged or inflates past the bound.
absl::StatusOr<std::string> inflated(const std::string& stream, std::size_t max_bytes,
                                     const std::string& what) {
    if (stream.empty()) return std::string();
    if (stream.size() > kMaxEvidenceStreamBytes)
        return absl::InvalidArgumentError(what + " is over " +
                                          std::to_string(kMaxEvidenceStreamBytes) + " bytes");
    std::optional<std::string> text = match::inflate_evidence(stream, max_bytes);
    if (!text)
        return absl::InvalidArgumentError(what + " is not a zlib stream of at most " +
                                          std::to_string(max_bytes) + " bytes");
    return valid_utf8(*text);
}

}  // namespace

absl::StatusOr<GameEvidence> evidence_from_proto(const v1::FaultEvidence& in, GameEnding ending,
                                                 uint32_t pair) {
    const std::string where = "pair " + std::to_string(pair) + ": a game's fault evidence ";
    if (!is_fault(ending))
        return absl::InvalidArgumentError(where + "comes with a game not lost by a fault");
    const auto too_long = [&](const std::string& text) {
        return text.size() > kMaxEvidenceLineBytes;
    };
    if (too_long(in.reason()) || too_long(in.command()) || too_long(in.position()) ||
        too_long(in.go()))
        return absl::InvalidArgumentError(where + "has a text over " +
                                          std::to_string(kMaxEvidenceLineBytes) + " bytes");
    if (std::size_t(in.args_size() + in.options_size()) > kMaxEvidenceOptions)
        return absl::InvalidArgumentError(
            where + "has over " + std::to_string(kMaxEvidenceOptions) + " arguments and options");
    GameEvidence e;
    e.reason = valid_utf8(in.reason());
    e.command = valid_utf8(in.command());
    for (const std::string& arg : in.args()) {
        if (too_long(arg)) return absl::InvalidArgumentError(where + "has an overlong argument");
        e.args.push_back(valid_utf8(arg));
    }
    for (const v1::FaultEvidence::Option& option : in.options()) {
        if (too_long(option.name()) || too_long(option.value()))
            return absl::InvalidArgumentError(where + "has an overlong option");
        e.options.emplace_back(valid_utf8(option.name()), valid_utf8(option.value()));
    }
    e.position = valid_utf8(in.position());
    e.go = valid_utf8(in.go());
    absl::StatusOr<std::string> transcript =
        inflated(in.transcript_z(), kMaxTranscriptBytes, where + "transcript");
    if (!transcript.ok()) return transcript.status();
    e.transcript = std::move(*transcript);
    e.transcript_complete = in.transcript_complete();
    absl::StatusOr<std::string> stderr_tail =
        inflated(in.stderr_z(), kMaxStderrBytes, where + "stderr");
    if (!stderr_tail.ok()) return stderr_tail.status();
    e.stderr_tail = std::move(*stderr_tail);
    e.stderr_bytes = in.stderr_bytes();
    return e;
}

namespace {

// Fills what a faulty game's row lists.
void listed_to_proto(int64_t run_id, const FaultyGame& in, v1::FaultyGame* out) {
    out->set_run_id(run_id);
    out->set_game(in.game);
    out->set_worker_id(in.worker_id);
    out->set_worker_name(in.worker_name);
    out->set_version(in.version);
    out->set_fault(v1::GameEnding(int(in.fault)));
    out->set_reason(in.reason);
    out->set_has_evidence(in.has_evidence);
}

// Returns a version's engine in words: "uci COMMAND", "uploaded SHA256 (ENTRY ARGS)", "built-in".
std::string engine_of(const Version& v) {
    switch (v.kind) {
        case Version::Kind::Uci:
            return "uci " + v.uci_command;
        case Version::Kind::Uploaded: {
            std::string text = "uploaded " + v.engine_sha256;
            if (!v.engine_entry.empty()) text += " (archive, runs " + v.engine_entry + ")";
            for (const std::string& arg : v.engine_args) text += " " + arg;
            return text;
        }
        case Version::Kind::Builtin:
            break;
    }
    return "built-in";
}

}  // namespace

absl::Status faults_to_proto(Storage& storage, int64_t run_id, uint32_t max_games,
                             v1::ListFaultsResponse* out) {
    if (!storage.find_run(run_id))
        return absl::NotFoundError("run " + std::to_string(run_id) + " not found");
    const int limit = max_games == 0 ? 200 : int(std::min<uint32_t>(max_games, 10'000));
    for (const FaultyGame& f : storage.list_faulty_games(run_id, limit))
        listed_to_proto(run_id, f, out->add_games());
    uint64_t total = 0;
    for (const FaultKindCount& c : storage.faulty_game_counts(run_id)) {
        v1::FaultKindCount* count = out->add_counts();
        count->set_version(c.version);
        count->set_fault(v1::GameEnding(int(c.fault)));
        count->set_games(uint64_t(c.games));
        count->set_with_evidence(uint64_t(c.with_evidence));
        total += uint64_t(c.games);
    }
    out->set_total(total);
    out->set_evidence_bound(uint32_t(kEvidencePerKind));
    return absl::OkStatus();
}

absl::Status fault_to_proto(Storage& storage, int64_t run_id, uint64_t game, v1::FaultyGame* out) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run) return absl::NotFoundError("run " + std::to_string(run_id) + " not found");
    const std::optional<FaultyGame> f = storage.find_faulty_game(run_id, game);
    if (!f)
        return absl::NotFoundError("game " + std::to_string(game) + " of run " +
                                   std::to_string(run_id) +
                                   " was not lost by a fault (`sparring faults " +
                                   std::to_string(run_id) + "` lists those that were)");
    listed_to_proto(run_id, *f, out);
    if (const std::optional<Version> version = storage.find_version(f->version_id)) {
        out->set_engine(engine_of(*version));
        // What a replay may start comes from the version, never from the worker's evidence.
        if (version->kind == Version::Kind::Uci) out->set_replay_command(version->uci_command);
    }
    out->set_threads(uint32_t(std::max(1, run->spec.threads)));
    time_control_to_proto(run->spec.time_control, out->mutable_time_control());
    if (!f->evidence) return absl::OkStatus();
    const GameEvidence& e = *f->evidence;
    out->set_reason(e.reason);
    out->set_command(e.command);
    for (const std::string& arg : e.args) out->add_args(arg);
    for (const auto& [name, value] : e.options) {
        v1::FaultEvidence::Option* option = out->add_options();
        option->set_name(name);
        option->set_value(value);
    }
    out->set_position(e.position);
    out->set_go(e.go);
    out->set_transcript(e.transcript);
    out->set_transcript_complete(e.transcript_complete);
    out->set_stderr_tail(e.stderr_tail);
    out->set_stderr_bytes(e.stderr_bytes);
    return absl::OkStatus();
}

}  // namespace sparring::coordinator

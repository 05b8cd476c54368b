#include "cli/run_kinds.h"

#include <algorithm>
#include <array>
#include <iostream>

#include "cli/run_display.h"
#include "cli/spec_flags.h"
#include "cli/training_remote.h"
#include "cli/tune.h"

namespace sparring::cli {

namespace {

// Refuses SPRT flags for a kind without an SPRT; why says where they go instead.
void refuse_sprt(const SubmitFlags& args, const char* why) {
    if (has_sprt_flags(args)) throw UsageError(why);
}

// Returns "A vs B, 100 openings": what `submit` started for a run of two versions.
std::string versus_submitted(const v1::RunStatus& run, const v1::RunSpec& spec) {
    return spec.test_version() + " vs " + spec.base_version() + ", " +
           std::to_string(run.book_size()) + " openings";
}

// Returns the cells of a run of games between two versions, with the LLR or not.
RunsCells versus_cells(const v1::RunStatus& run, bool llr) {
    return {time_control_text(run.spec().time_control()),
            fixed(run.elo(), 1) + " +-" + fixed((run.elo_high() - run.elo_low()) / 2, 1),
            llr ? fixed(run.llr(), 2) + " [" + fixed(run.llr_lower(), 2) + "," +
                      fixed(run.llr_upper(), 2) + "]"
                : "-"};
}

// Returns the progress of a run of games between two versions, with the LLR or not.
std::string versus_progress(const v1::RunStatus& run, bool llr) {
    std::string line = "run " + std::to_string(run.id()) + " " + run.spec().test_version() +
                       " vs " + run.spec().base_version() + ": games " +
                       std::to_string(run.games()) + "/" + std::to_string(run.spec().games()) +
                       "  Elo " + fixed(run.elo(), 1) + " +-" +
                       fixed((run.elo_high() - run.elo_low()) / 2, 1);
    if (llr)
        line += "  LLR " + fixed(run.llr(), 2) + " (" + fixed(run.llr_lower(), 2) + ", " +
                fixed(run.llr_upper(), 2) + ")";
    return line;
}

// Returns the cells of a run that plays self-play games without an Elo.
RunsCells self_play_cells(const v1::RunStatus& run) {
    return {time_control_text(run.spec().time_control()), "-", "-"};
}

const CliRunKind kRegression = {
    .proto_kind = v1::RUN_KIND_REGRESSION,
    .name = "sprt",
    .kind_flag = "regression",
    .submit_word = "",
    .versions_from_flags = false,
    .read_spec =
        [](const SubmitFlags& args, v1::RunSpec& spec) {
            spec.set_kind(v1::RUN_KIND_REGRESSION);
            spec.set_games(uint64_t(read_games(args, 20000)));
            read_sprt(args, spec.mutable_sprt());
        },
    .takes_time_control = true,
    .takes_book = true,
    .submitted = versus_submitted,
    .show =
        [](const v1::RunStatus& run, RemoteClient& client) {
            print_game_run(run, {"regression (SPRT)", true, true, false});
            print_tune(run, client);
        },
    .runs_cells = [](const v1::RunStatus& run) { return versus_cells(run, true); },
    .progress = [](const v1::RunStatus& run) { return versus_progress(run, true); },
};

const CliRunKind kFixedGames = {
    .proto_kind = v1::RUN_KIND_FIXED_GAMES,
    .name = "fixed",
    .kind_flag = "fixed",
    .submit_word = "",
    .versions_from_flags = false,
    .read_spec =
        [](const SubmitFlags& args, v1::RunSpec& spec) {
            spec.set_kind(v1::RUN_KIND_FIXED_GAMES);
            spec.set_games(uint64_t(read_games(args, 1000)));
            refuse_sprt(args, "SPRT flags need --kind regression, or submit tune with --verify");
        },
    .takes_time_control = true,
    .takes_book = true,
    .submitted = versus_submitted,
    .show =
        [](const v1::RunStatus& run, RemoteClient& client) {
            print_game_run(run, {"fixed games", false, false, false});
            print_tune(run, client);
        },
    .runs_cells = [](const v1::RunStatus& run) { return versus_cells(run, false); },
    .progress = [](const v1::RunStatus& run) { return versus_progress(run, false); },
};

const CliRunKind kTune = {
    .proto_kind = v1::RUN_KIND_TUNE,
    .name = "tune",
    .kind_flag = "",
    .submit_word = "tune",
    .versions_from_flags = false,
    .read_spec =
        [](const SubmitFlags& args, v1::RunSpec& spec) {
            spec.set_kind(v1::RUN_KIND_TUNE);
            spec.set_games(uint64_t(read_games(args, 1000)));
            read_tune_spec(args, spec.mutable_tune());
            if (args.verify)
                read_sprt(args, spec.mutable_sprt());
            else
                refuse_sprt(args,
                            "SPRT flags need --kind regression, or submit tune with --verify");
        },
    .takes_time_control = true,
    .takes_book = true,
    .submitted =
        [](const v1::RunStatus& run, const v1::RunSpec& spec) {
            return "SPSA tuning of " + spec.base_version() + ", " +
                   std::to_string(run.tune().params_size()) + " parameters, " +
                   std::to_string(spec.games()) + " games";
        },
    .show =
        [](const v1::RunStatus& run, RemoteClient& client) {
            print_game_run(run, {"tune (SPSA)", false, false, true});
            print_tune(run, client);
        },
    .runs_cells = [](const v1::RunStatus& run) { return versus_cells(run, false); },
    .progress =
        [](const v1::RunStatus& run) {
            return "run " + std::to_string(run.id()) + " tuning: pairs " +
                   std::to_string(run.tune().pairs_applied()) + "/" +
                   std::to_string(run.spec().games() / 2) + " |" + values_line(run.tune());
        },
};

const CliRunKind kGenerate = {
    .proto_kind = v1::RUN_KIND_GENERATE,
    .name = "generate",
    .kind_flag = "",
    .submit_word = "generate",
    .versions_from_flags = true,
    .read_spec =
        [](const SubmitFlags& args, v1::RunSpec& spec) {
            spec.set_kind(v1::RUN_KIND_GENERATE);
            read_generate_spec(args, &spec);
            refuse_sprt(args, "SPRT flags go with the verifications of a chain (--generations)");
        },
    .takes_time_control = false,
    .takes_book = true,
    .submitted =
        [](const v1::RunStatus&, const v1::RunSpec& spec) {
            return "self-play data generation with " + spec.base_version();
        },
    .show = [](const v1::RunStatus& run,
               RemoteClient&) { print_training_run(run, add_generate_rows); },
    .runs_cells = self_play_cells,
    .progress =
        [](const v1::RunStatus& run) {
            return "run " + std::to_string(run.id()) + " generating: games " +
                   std::to_string(run.games()) + "/" + std::to_string(run.spec().games()) + ", " +
                   std::to_string(run.generate().positions()) + " positions";
        },
};

// `submit train` makes a training run with --data and a chain with --generations.
const CliRunKind kTrain = {
    .proto_kind = v1::RUN_KIND_TRAIN,
    .name = "train",
    .kind_flag = "",
    .submit_word = "train",
    .versions_from_flags = true,
    .read_spec =
        [](const SubmitFlags& args, v1::RunSpec& spec) {
            read_train_spec(args, &spec);
            spec.set_kind(spec.has_chain() ? v1::RUN_KIND_CHAIN : v1::RUN_KIND_TRAIN);
            if (spec.has_chain())
                read_sprt(args, spec.mutable_sprt());
            else
                refuse_sprt(args,
                            "SPRT flags go with the verifications of a chain (--generations)");
        },
    .takes_time_control = false,
    .takes_book = false,
    .submitted = [](const v1::RunStatus&,
                    const v1::RunSpec& spec) { return "training of " + spec.base_version(); },
    .show = [](const v1::RunStatus& run,
               RemoteClient&) { print_training_run(run, add_train_rows); },
    .runs_cells =
        [](const v1::RunStatus&) {
            return RunsCells{"-", "-", "-"};
        },
    .progress =
        [](const v1::RunStatus& run) {
            const v1::TrainStatus& t = run.train();
            return "run " + std::to_string(run.id()) + " training: epoch " +
                   std::to_string(t.epoch()) + "/" + std::to_string(run.spec().train().epochs()) +
                   ", loss " +
                   (t.loss_curve_size() > 0 ? fixed(t.loss_curve(t.loss_curve_size() - 1), 7)
                                            : "-");
        },
};

const CliRunKind kChain = {
    .proto_kind = v1::RUN_KIND_CHAIN,
    .name = "chain",
    .kind_flag = "",
    .submit_word = "",
    .versions_from_flags = false,
    .read_spec = nullptr,
    .takes_time_control = false,
    .takes_book = true,
    .submitted =
        [](const v1::RunStatus&, const v1::RunSpec& spec) {
            const uint32_t generations = spec.chain().generations();
            return std::to_string(generations) +
                   (generations == 1 ? " generation" : " generations") +
                   " of generate, train, verify from " + spec.base_version();
        },
    .show =
        [](const v1::RunStatus& run, RemoteClient&) {
            print_training_run(run, add_chain_rows);
            std::cout << "\n";
            print_generations(run.chain());
        },
    .runs_cells = self_play_cells,
    .progress =
        [](const v1::RunStatus& run) {
            return "run " + std::to_string(run.id()) + " chain: generation " +
                   std::to_string(run.chain().generations_size()) + "/" +
                   std::to_string(run.spec().chain().generations());
        },
};

// Every kind the CLI knows.
constexpr std::array<const CliRunKind*, 6> kKinds = {&kRegression, &kFixedGames, &kTune,
                                                     &kGenerate,   &kTrain,      &kChain};

}  // namespace

const CliRunKind& cli_run_kind(v1::RunKind kind) {
    for (const CliRunKind* k : kKinds)
        if (k->proto_kind == kind) return *k;
    return kFixedGames;
}

const CliRunKind* cli_run_kind_by_word(std::string_view word) {
    for (const CliRunKind* k : kKinds)
        if (!word.empty() && k->submit_word == word) return k;
    return nullptr;
}

const CliRunKind* cli_run_kind_by_flag(std::string_view kind_flag) {
    for (const CliRunKind* k : kKinds)
        if (!kind_flag.empty() && k->kind_flag == kind_flag) return k;
    return nullptr;
}

}  // namespace sparring::cli

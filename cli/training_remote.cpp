#include "cli/training_remote.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>

#include "cli/run_display.h"
#include "cli/training_flags.h"
#include "cli/tune.h"
#include "common/printable.h"
#include "common/sha256.h"
#include "training/param_selection.h"
#include "training/position_filter.h"
#include "training/position_io.h"
#include "training/position_record.h"

namespace sparring::cli {

namespace {

constexpr int64_t kMaxSeed = std::numeric_limits<int64_t>::max();

// Returns the hex SHA-256 of an import's version, chunk size and encoded chunks: the same
// positions imported the same way give the same key, so a rerun after an interruption
// continues the import's run instead of starting another.
std::string import_key(const std::string& version, size_t chunk_size, size_t count,
                       const std::function<std::string(size_t start)>& chunk_of) {
    Sha256 digest;
    digest.update(version + "\n" + std::to_string(chunk_size) + "\n");
    for (size_t start = 0; start < count; start += chunk_size) digest.update(chunk_of(start));
    return digest.hex();
}

// Returns a number in its shortest form: "1", "1e-07".
std::string general(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// Writes the --version flag as the run's test and base version.
void read_version(const SubmitFlags& args, v1::RunSpec* out) {
    if (!args.version) throw UsageError("--version is required: the version to play");
    out->set_test_version(*args.version);
    out->set_base_version(*args.version);
}

// Writes --games, --nodes and the generation flags; the run seed is --seed or 1.
void read_generation_flags(const SubmitFlags& args, v1::RunSpec* out) {
    if (!args.games) throw UsageError("--games is required: self-play games to play");
    const int64_t games = *args.games;
    if (games % 2) throw UsageError("--games must be even: games come in pairs");
    out->set_games(uint64_t(games));
    out->mutable_time_control()->set_nodes(uint64_t(args.nodes));
    v1::GenerateSpec* g = out->mutable_generate();
    g->set_seed(uint64_t(args.seed.value_or(1)));
    if (given(args.random_plies_option)) g->set_random_plies(uint32_t(args.random_plies));
    std::string error;
    const std::string& filters = args.filter;
    if (!training::parse_filter_options(filters, &error)) throw UsageError("--filter: " + error);
    g->set_filters(filters);
}

// Writes the Texel flags (--epochs, --lr, --l2, --k, --batch, --select, --threads).
void read_texel_flags(const SubmitFlags& args, v1::TrainSpec* out) {
    out->set_epochs(uint32_t(args.epochs));
    if (args.lr) {
        if (*args.lr <= 0) throw UsageError("--lr must be positive");
        out->set_learning_rate(*args.lr);
    }
    if (args.l2) {
        if (*args.l2 < 0) throw UsageError("--l2 must not be negative");
        out->set_l2(*args.l2);
    }
    if (args.k != "auto") {
        const double k = real_value("k", args.k);
        if (k <= 0) throw UsageError("--k must be positive or auto");
        out->set_k(k);
    }
    out->set_batch_size(uint64_t(args.batch));
    std::string error;
    const std::string& select = args.select;
    if (!training::parse_param_selection(select, &error)) throw UsageError("--select: " + error);
    out->set_select(select);
    out->set_threads(uint32_t(args.threads));
}

// Returns the loss curve in a few points: every epoch up to 10, else about 10 evenly spaced.
std::string loss_points(const v1::TrainStatus& train) {
    const int n = train.loss_curve_size();
    const int step = std::max(1, n / 10);
    std::string text;
    for (int e = 0; e < n; e += step)
        text += (text.empty() ? "" : ", ") + std::to_string(e + 1) + ": " +
                fixed(train.loss_curve(e), 6);
    if (n > 0 && (n - 1) % step != 0)
        text += ", " + std::to_string(n) + ": " + fixed(train.loss_curve(n - 1), 6);
    return text;
}

}  // namespace

void add_generate_rows(const v1::RunStatus& run, Rows& rows) {
    const v1::GenerateSpec& g = run.generate().spec();
    if (run.spec().games() == 0) {
        rows.push_back({"kind", "generate (imported positions)"});
        rows.push_back({"version", run.spec().test_version()});
        rows.push_back({"source", run.spec().book().source()});
        rows.push_back({"positions", std::to_string(run.generate().positions()) + " stored"});
        return;
    }
    rows.push_back({"kind", "generate (self-play training data)"});
    rows.push_back({"version", run.spec().test_version()});
    rows.push_back({"nodes", std::to_string(run.spec().time_control().nodes()) + " a move"});
    rows.push_back({"openings", run.spec().book().source() + " (" +
                                    std::to_string(run.book_size()) + " openings) + " +
                                    std::to_string(g.random_plies()) + " random plies, seed " +
                                    std::to_string(g.seed())});
    rows.push_back({"filters", g.filters()});
    rows.push_back(
        {"games", std::to_string(run.games()) + " of " + std::to_string(run.spec().games())});
    rows.push_back({"W/D/L (white)", std::to_string(run.wins()) + " / " +
                                         std::to_string(run.draws()) + " / " +
                                         std::to_string(run.losses())});
    rows.push_back({"positions", std::to_string(run.generate().positions()) + " stored"});
    rows.push_back({"in progress", std::to_string(run.pairs_leased()) + " pairs on " +
                                       std::to_string(run.active_workers()) + " workers"});
}

void add_train_rows(const v1::RunStatus& run, Rows& rows) {
    const v1::TrainSpec& spec = run.spec().train();
    const v1::TrainStatus& t = run.train();
    std::string data;
    for (int64_t id : spec.data_runs()) data += (data.empty() ? "run " : ", ") + std::to_string(id);
    rows.push_back({"kind", "train (Texel, on the coordinator)"});
    rows.push_back({"base", run.spec().base_version()});
    rows.push_back({"data", data + " (" + std::to_string(t.positions()) + " positions)"});
    rows.push_back({"settings", "epochs " + std::to_string(spec.epochs()) + ", lr " +
                                    general(spec.learning_rate()) + ", l2 " + general(spec.l2()) +
                                    ", batch " + std::to_string(spec.batch_size()) + ", select " +
                                    spec.select() + ", threads " + std::to_string(spec.threads())});
    rows.push_back({"K", t.epoch() > 0 || t.k() > 0 ? fixed(t.k(), 4) : "-"});
    rows.push_back({"epoch", std::to_string(t.epoch()) + " of " + std::to_string(spec.epochs())});
    std::string loss = fixed(t.initial_loss(), 7);
    if (t.loss_curve_size() > 0) loss += " -> " + fixed(t.loss_curve(t.loss_curve_size() - 1), 7);
    rows.push_back({"loss", loss});
    if (!t.params_json().empty())
        rows.push_back({"final loss", fixed(t.final_loss(), 7) +
                                          " (rounded parameters; `sparring versions add NAME "
                                          "--from-run " +
                                          std::to_string(run.id()) + "`)"});
    if (t.loss_curve_size() > 0) rows.push_back({"loss curve", loss_points(t)});
}

void add_chain_rows(const v1::RunStatus& run, Rows& rows) {
    const v1::ChainSpec& c = run.spec().chain();
    rows.push_back({"kind", "chain (generate -> train -> verify)"});
    rows.push_back({"version", run.spec().test_version() + " (first generation)"});
    rows.push_back({"generations", std::to_string(run.chain().generations_size()) + " of " +
                                       std::to_string(c.generations())});
    rows.push_back({"each", std::to_string(run.spec().games()) + " games at " +
                                std::to_string(run.spec().time_control().nodes()) + " nodes, " +
                                std::to_string(run.spec().train().epochs()) +
                                " epochs, verification up to " + std::to_string(c.verify_games()) +
                                " games"});
}

void print_generations(const v1::ChainStatus& chain) {
    std::vector<std::vector<std::string>> table = {{"GEN", "VERSION", "GENERATE", "POSITIONS",
                                                    "TRAIN", "FINAL LOSS", "TRAINED", "VERIFY",
                                                    "GAMES", "ELO [95%]", "RESULT"}};
    const auto id = [](int64_t run) { return run ? std::to_string(run) : std::string("-"); };
    for (const v1::ChainGeneration& g : chain.generations())
        table.push_back({std::to_string(g.generation()), g.version(), id(g.generate_run_id()),
                         std::to_string(g.positions()), id(g.train_run_id()),
                         g.final_loss() > 0 ? fixed(g.final_loss(), 7) : "-",
                         g.trained_version().empty() ? "-" : g.trained_version(),
                         id(g.verify_run_id()), std::to_string(g.verify_games()),
                         g.verify_run_id() ? fixed(g.elo(), 1) + " [" + fixed(g.elo_low(), 1) +
                                                 ", " + fixed(g.elo_high(), 1) + "]"
                                           : "-",
                         g.verify_result().empty() ? (g.verify_run_id() ? "playing" : "-")
                                                   : g.verify_result()});
    print_table(table);
}

namespace {

// Returns the positions of one export page; throws std::runtime_error for a bad page.
std::vector<training::LabelledPosition> page_positions(const v1::ExportPositionsResponse& page) {
    std::vector<training::LabelledPosition> positions;
    std::string error;
    if (!training::decode_positions(page.positions(), page.count(), &positions, &error))
        throw std::runtime_error("the coordinator sent malformed positions: " + error);
    return positions;
}

}  // namespace

void read_generate_spec(const SubmitFlags& args, v1::RunSpec* out) {
    read_version(args, out);
    read_generation_flags(args, out);
}

void read_train_spec(const SubmitFlags& args, v1::RunSpec* out) {
    read_version(args, out);
    read_texel_flags(args, out->mutable_train());
    if (given(args.generations_option) == given(args.data_option))
        throw UsageError(
            "give --data RUN[,RUN...] (one training run on generation runs' "
            "positions) or --generations G (a chain of generate, train, verify)");
    if (given(args.data_option)) {
        for (int64_t id : args.data) {
            if (id < 1) throw UsageError("--data: run ids are positive");
            out->mutable_train()->add_data_runs(id);
        }
        out->mutable_train()->set_seed(uint64_t(args.seed.value_or(1)));
        return;
    }
    read_generation_flags(args, out);
    v1::ChainSpec* chain = out->mutable_chain();
    chain->set_generations(uint32_t(args.generations));
    // submit tune reads --verify-games too, with its own message: checked here, not on parsing.
    const int64_t verify = args.verify_games.value_or(2000);
    if (verify < 2 || verify > 1'000'000'000)
        throw UsageError("--verify-games must be from 2 to 1000000000");
    if (verify % 2) throw UsageError("--verify-games must be even");
    chain->set_verify_games(uint64_t(verify));
    chain->set_name(valid_utf8(args.name.value_or("")));
}

void print_training_run(const v1::RunStatus& run,
                        void (*add_kind_rows)(const v1::RunStatus& run, Rows& rows)) {
    Rows rows = {{"run", std::to_string(run.id())}};
    add_kind_rows(run, rows);
    rows.insert(rows.begin() + 2, {"state", state_text(run)});
    if (run.chain_run_id()) rows.push_back({"chain", "run " + std::to_string(run.chain_run_id())});
    if (!run.spec().description().empty())
        rows.push_back({"description", run.spec().description()});
    rows.push_back({"created", utc(run.created_unix_ms())});
    rows.push_back({"finished", utc(run.finished_unix_ms())});
    for (auto& row : rows) row[0] += ":";
    print_table(rows);
}

ExportFlags::ExportFlags(CLI::App& app) {
    add_flag(app, "out", out, "FILE",
             "write the PGN (positions: the positions) to FILE instead of stdout");
    run_option =
        in_range(add_flag(app, "run", run, "RUN", "positions: the generation run"), 1, kMaxSeed);
    format_option =
        add_flag(app, "format", format, "F",
                 "positions: fen ('FEN [1.0]'), epd ('c9 \"1-0\";') or fen-score", "epd");
    selection.declare(app);
    remote.declare(app);
    add_arguments(app, arguments);
}

int export_positions(const ExportFlags& args) {
    if (args.arguments.size() != 1) throw UsageError("export positions takes no other argument");
    if (!args.run) throw UsageError("--run is required: the generation run");
    if (!args.out) throw UsageError("--out is required: the file to write");
    const std::string& name = args.format;
    const auto format = training::parse_position_format(name);
    if (!format) throw UsageError("--format: '" + name + "' is not fen, epd or fen-score");
    v1::ExportPositionsRequest request;
    request.set_run_id(*args.run);
    RemoteClient client(args.remote);
    const std::string& path = *args.out;
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    uint64_t written = 0;
    uint64_t games = 0;
    try {
        for (;;) {
            v1::ExportPositionsResponse page;
            client.call(&v1::UserService::Stub::ExportPositions, request, &page);
            std::string error;
            if (!training::write_positions(out, page_positions(page), *format, &error))
                throw std::runtime_error(path + ": " + error);
            written += page.count();
            games += page.games();
            if (page.done() || page.games() == 0) break;
            request.set_start_game(page.next_start_game());
        }
        out.flush();
        if (!out) throw std::runtime_error("writing " + path + " failed");
    } catch (...) {
        out.close();
        std::filesystem::remove(path);
        throw;
    }
    std::cerr << written << " positions of " << games << " games written to " << path << " ("
              << training::format_name(*format) << ")\n";
    return 0;
}

int import_positions(const PositionsFlags& args) {
    // 50,000 positions are 1.8 MB a call, under gRPC's 4 MiB limit.
    const size_t chunk_size = size_t(args.chunk_positions);
    if (args.arguments.size() != 2)
        throw UsageError("positions import takes the files to read: FILE[,FILE...]");
    const std::string files = args.arguments[1];
    const PositionInput input =
        position_input_flags(args.filter, "all", args.skip_plies, args.threads);
    const std::vector<training::LabelledPosition> positions = read_position_files(files, input);
    if (positions.empty()) throw std::runtime_error("no positions to import in " + files);
    const auto chunk_of = [&](size_t start) {
        return training::encode_positions(
            std::span(positions).subspan(start, std::min(chunk_size, positions.size() - start)));
    };
    RemoteClient client(args.remote);
    v1::ImportPositionsRequest request;
    request.set_version(args.version);
    request.set_source(valid_utf8(args.name.value_or(files)));
    request.set_import_key(import_key(request.version(), chunk_size, positions.size(), chunk_of));
    v1::ImportPositionsResponse response;
    for (size_t start = 0; start < positions.size(); start += chunk_size) {
        const size_t count = std::min(chunk_size, positions.size() - start);
        request.set_positions(chunk_of(start));
        request.set_count(uint32_t(count));
        request.set_done(start + count == positions.size());
        try {
            client.call(&v1::UserService::Stub::ImportPositions, request, &response);
        } catch (const std::runtime_error& e) {
            if (request.run_id() == 0) throw;
            // The chunks stored so far stay in the run, which stays active until it is
            // finished or stopped: say which run that is, how to go on and how to end it.
            const std::string run = std::to_string(request.run_id());
            throw std::runtime_error(std::string(e.what()) + "; run " + run + " keeps the first " +
                                     std::to_string(start) +
                                     " positions of this import and stays active (the same "
                                     "command continues it; `sparring stop " +
                                     run + "` ends it)");
        }
        if (request.run_id() == 0 && response.next_chunk() > 1) {
            std::cerr << "continuing the import in run " << response.run_id() << ": "
                      << response.positions() << " positions were stored before\n";
            start = size_t(response.next_chunk() - 1) * chunk_size;
            request.set_chunk(response.next_chunk() - 1);
        }
        request.set_run_id(response.run_id());
        request.set_chunk(request.chunk() + 1);
    }
    std::cout << "run " << response.run_id() << ": " << response.positions()
              << " positions imported ('sparring submit train --data " << response.run_id()
              << " ...' trains on them)\n";
    return 0;
}

}  // namespace sparring::cli

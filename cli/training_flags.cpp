#include "cli/training_flags.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "match/pgn.h"
#include "training/game_positions.h"
#include "training/position_io.h"

namespace sparring::cli {

namespace {

// Appends the positions of the games of a PGN file to *positions.
training::FilterCounts read_pgn_file(const std::string& path, const PositionInput& input,
                                     std::vector<training::LabelledPosition>* positions) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    match::PgnReader reader(in, path);
    match::PgnGame game;
    std::string error;
    training::FilterCounts counts;
    for (match::PgnReader::Status status;
         (status = reader.next(&game, &error)) != match::PgnReader::Status::End;) {
        if (status == match::PgnReader::Status::Error) throw std::runtime_error(error);
        const auto found =
            training::pgn_game_positions(game, input.skip_plies, input.filters, &counts);
        positions->insert(positions->end(), found.begin(), found.end());
    }
    return counts;
}

// Appends the positions of a file of labelled lines to *positions, filtered.
training::FilterCounts read_text_file(const std::string& path, const PositionInput& input,
                                      std::vector<training::LabelledPosition>* positions) {
    std::vector<training::LabelledPosition> read;
    std::string error;
    if (!training::load_positions(path, &read, &error)) throw std::runtime_error(error);
    const training::FilterCounts counts =
        training::filter_positions(&read, input.filters, input.threads);
    positions->insert(positions->end(), read.begin(), read.end());
    return counts;
}

}  // namespace

ParamSet base_params(const std::optional<std::string>& params, const std::string& preset,
                     bool preset_given) {
    if (params && preset_given) throw UsageError("give at most one of --params and --preset");
    if (params) {
        const std::string& path = *params;
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot open parameter file '" + path + "'");
        std::stringstream text;
        text << in.rdbuf();
        std::string error;
        const auto read = ParamSet::from_json(text.str(), ParamSet(), &error);
        if (!read) throw std::runtime_error("parameter file '" + path + "': " + error);
        return *read;
    }
    const auto named = ParamSet::preset(preset);
    if (!named) throw UsageError("--preset: unknown preset '" + preset + "'");
    return *named;
}

int threads_flag(std::optional<int64_t> threads) {
    const auto hardware =
        static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t count = threads.value_or(hardware);
    if (count < 1 || count > 1024) throw UsageError("--threads must be from 1 to 1024");
    return static_cast<int>(count);
}

PositionInput position_input_flags(const std::optional<std::string>& filter,
                                   std::string_view fallback_filter,
                                   std::optional<int64_t> skip_plies,
                                   std::optional<int64_t> threads) {
    PositionInput input;
    std::string error;
    const auto filters =
        training::parse_filter_options(filter ? *filter : std::string(fallback_filter), &error);
    if (!filters) throw UsageError("--filter: " + error);
    input.filters = *filters;
    const std::int64_t skip = skip_plies.value_or(input.skip_plies);
    if (skip < 0 || skip > 1000) throw UsageError("--skip-plies must be from 0 to 1000");
    input.skip_plies = static_cast<int>(skip);
    input.threads = threads_flag(threads);
    return input;
}

std::vector<training::LabelledPosition> read_position_files(std::string_view list,
                                                            const PositionInput& input) {
    std::vector<training::LabelledPosition> positions;
    for (std::size_t start = 0;;) {
        const std::size_t comma = list.find(',', start);
        const std::string path(list.substr(start, comma - start));
        if (path.empty()) throw UsageError("empty file name in '" + std::string(list) + "'");
        const training::FilterCounts counts = path.ends_with(".pgn")
                                                  ? read_pgn_file(path, input, &positions)
                                                  : read_text_file(path, input, &positions);
        std::cerr << path << ": " << counts.kept << " positions";
        if (counts.in_check + counts.tactical + counts.mate_scores)
            std::cerr << " (dropped " << counts.in_check << " in check, " << counts.tactical
                      << " tactical, " << counts.mate_scores << " with mate scores)";
        std::cerr << "\n";
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return positions;
}

}  // namespace sparring::cli

#include "training/training_set.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/eval_trace.h"
#include "training/parallel.h"

namespace sparring::training {

namespace {

constexpr std::size_t TRACE_CHUNK = 2048;

}  // namespace

TrainingSet::TrainingSet(std::span<const LabelledPosition> positions, int threads) {
    const std::size_t n = positions.size();
    begin_.assign(n + 1, 0);
    mg_count_.resize(n);
    phase_.resize(n);
    side_.resize(n);
    result_.resize(n);
    std::vector<std::vector<Coefficient>> chunks(chunk_count(n, TRACE_CHUNK));
    for_each_chunk(
        n, TRACE_CHUNK, threads, [&](std::size_t chunk, std::size_t first, std::size_t last) {
            Board board;
            std::vector<Coefficient>& out = chunks[chunk];
            for (std::size_t i = first; i < last; ++i) {
                std::string error;
                if (!unpack_position(positions[i].position, &board, &error))
                    throw std::invalid_argument("position " + std::to_string(i + 1) + ": " + error);
                const EvalTrace trace = trace_evaluation(board);
                const std::size_t start = out.size();
                for (std::size_t p = 0; p < trace.mg.size(); ++p)
                    if (trace.mg[p])
                        out.push_back({static_cast<std::uint16_t>(p),
                                       static_cast<std::int16_t>(trace.mg[p])});
                mg_count_[i] = static_cast<std::uint16_t>(out.size() - start);
                for (std::size_t p = 0; p < trace.eg.size(); ++p)
                    if (trace.eg[p])
                        out.push_back({static_cast<std::uint16_t>(p),
                                       static_cast<std::int16_t>(trace.eg[p])});
                begin_[i + 1] = out.size() - start;
                phase_[i] = static_cast<std::uint8_t>(trace.phase);
                side_[i] = trace.side_to_move;
                result_[i] = positions[i].result;
            }
        });
    for (std::size_t i = 0; i < n; ++i) begin_[i + 1] += begin_[i];
    coefficients_.reserve(begin_[n]);
    for (const auto& chunk : chunks)
        coefficients_.insert(coefficients_.end(), chunk.begin(), chunk.end());
}

int TrainingSet::evaluate(std::size_t i, const ParamSet& params) const {
    const Coefficient* c = coefficients_.data() + begin_[i];
    const Coefficient* eg_start = c + mg_count_[i];
    const Coefficient* end = coefficients_.data() + begin_[i + 1];
    int mg = 0, eg = 0;
    for (; c != eg_start; ++c) mg += c->count * params[c->param];
    for (; c != end; ++c) eg += c->count * params[c->param];
    return blend_phases(mg, eg, phase_[i], side_[i]);
}

double TrainingSet::white_eval(std::size_t i, std::span<const double> values) const {
    const Coefficient* c = coefficients_.data() + begin_[i];
    const Coefficient* eg_start = c + mg_count_[i];
    const Coefficient* end = coefficients_.data() + begin_[i + 1];
    double mg = 0, eg = 0;
    for (; c != eg_start; ++c) mg += c->count * values[c->param];
    for (; c != end; ++c) eg += c->count * values[c->param];
    const double blended = (mg * phase_[i] + eg * (PHASE_MAX - phase_[i])) / PHASE_MAX;
    return std::clamp(blended, double(-EVAL_LIMIT), double(EVAL_LIMIT));
}

void TrainingSet::add_gradient(std::size_t i, double scale, std::span<double> gradient) const {
    const Coefficient* c = coefficients_.data() + begin_[i];
    const Coefficient* eg_start = c + mg_count_[i];
    const Coefficient* end = coefficients_.data() + begin_[i + 1];
    const double mg_scale = scale * phase_[i] / PHASE_MAX;
    const double eg_scale = scale * (PHASE_MAX - phase_[i]) / PHASE_MAX;
    for (; c != eg_start; ++c) gradient[c->param] += mg_scale * c->count;
    for (; c != end; ++c) gradient[c->param] += eg_scale * c->count;
}

}  // namespace sparring::training

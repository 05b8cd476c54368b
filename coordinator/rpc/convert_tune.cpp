// Conversions of tuning runs between the sparring.v1 messages and the domain records: the
// tuning spec, a run's tuning status, a lease's perturbations and the trajectory.
#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {

namespace {

// Writes a resolved parameter.
void param_to_proto(const spsa::Param& in, v1::TuneParam* out) {
    out->set_name(in.name);
    out->set_start(in.start);
    out->set_min(in.min);
    out->set_max(in.max);
    out->set_c_end(in.c_end);
    out->set_r_end(in.r_end);
}

}  // namespace

TuneSpec tune_spec_from_proto(const v1::TuneSpec& in) {
    TuneSpec spec;
    for (const v1::TuneParam& p : in.params()) {
        TuneParamRequest request;
        request.name = p.name();
        if (p.has_start()) request.start = p.start();
        if (p.has_min()) request.min = p.min();
        if (p.has_max()) request.max = p.max();
        if (p.has_c_end()) request.c_end = p.c_end();
        if (p.has_r_end()) request.r_end = p.r_end();
        spec.params.push_back(std::move(request));
    }
    spec.verify = in.verify();
    spec.verify_games = in.verify_games();
    return spec;
}

void tune_to_proto(const Run& in, v1::RunStatus* out) {
    out->set_verifies_run_id(in.verifies_run_id);
    if (!in.tune) return;
    const TuneState& state = *in.tune;
    v1::RunSpec* spec = out->mutable_spec();
    spec->mutable_tune()->set_verify(state.verify);
    spec->mutable_tune()->set_verify_games(state.verify_games);
    if (state.verify) {
        v1::Sprt* sprt = spec->mutable_sprt();
        sprt->set_elo0(state.sprt.elo0);
        sprt->set_elo1(state.sprt.elo1);
        sprt->set_alpha(state.sprt.alpha);
        sprt->set_beta(state.sprt.beta);
        sprt->set_model(state.sprt.model == stats::Model::Logistic ? v1::SPRT_MODEL_LOGISTIC
                                                                   : v1::SPRT_MODEL_NORMALIZED);
    }
    v1::TuneStatus* tune = out->mutable_tune();
    for (size_t i = 0; i < state.params.size(); ++i) {
        param_to_proto(state.params[i], tune->add_params());
        param_to_proto(state.params[i], spec->mutable_tune()->add_params());
        tune->add_values(state.theta[i]);
    }
    tune->set_pairs_applied(uint64_t(state.pairs_applied));
    tune->set_tuned_version(state.tuned_version);
    tune->set_verify_run_id(state.verify_run_id);
}

void tune_lease_to_proto(const LeaseGrant& in, v1::Lease* out) {
    if (in.tune_steps.empty()) return;
    v1::TuneLease* tune = out->mutable_tune();
    for (const std::string& name : in.tune_names) tune->add_names(name);
    for (const spsa::Step& step : in.tune_steps) {
        v1::TunePair* pair = tune->add_pairs();
        pair->mutable_plus()->Add(step.plus.begin(), step.plus.end());
        pair->mutable_minus()->Add(step.minus.begin(), step.minus.end());
    }
}

void tune_history_to_proto(const TuneHistory& in, v1::TuneHistory* out) {
    for (const spsa::Param& p : in.state.params) out->add_names(p.name);
    for (const TunePoint& point : in.points) {
        v1::TunePoint* p = out->add_points();
        p->set_pairs(uint64_t(point.pairs));
        p->set_unix_ms(point.recorded_ms);
        p->mutable_values()->Add(point.values.begin(), point.values.end());
    }
}

}  // namespace sparring::coordinator

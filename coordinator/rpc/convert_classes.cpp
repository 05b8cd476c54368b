#include "coordinator/rpc/convert_classes.h"

#include <cstdint>

#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {

namespace {

void class_result_to_proto(const ClassResult& in, v1::ClassResult* out) {
    out->set_cpu_class(in.cpu_class);
    out->set_workers(uint32_t(in.workers));
    out->set_games(uint64_t(2 * in.counts.pairs));
    out->set_wins(uint64_t(in.counts.wins));
    out->set_draws(uint64_t(in.counts.draws));
    out->set_losses(uint64_t(in.counts.losses));
    pentanomial_to_proto(in.counts.penta, out->mutable_pentanomial());
    out->set_elo(in.elo.elo);
    out->set_elo_low(in.elo.elo_low);
    out->set_elo_high(in.elo.elo_high);
    out->set_time_losses(uint64_t(in.time_losses));
    out->set_faults(uint64_t(in.faults));
}

}  // namespace

void classes_to_proto(const RunDetails& in, v1::RunStatus* out) {
    for (const ClassResult& c : in.classes) class_result_to_proto(c, out->add_classes());
    for (const ClassFinding& f : in.class_findings) {
        v1::ClassFinding* finding = out->add_class_findings();
        class_result_to_proto(f.group, finding->mutable_group());
        class_result_to_proto(f.rest, finding->mutable_rest());
        finding->set_elo_p(f.elo_p);
        finding->set_time_loss_p(f.time_loss_p);
        finding->set_text(f.text);
    }
}

}  // namespace sparring::coordinator

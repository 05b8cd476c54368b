#include "coordinator/ops/event_metrics.h"

namespace sparring::coordinator {

EventBus::Subscription count_events(EventBus& bus, Metrics& metrics) {
    return bus.subscribe<ReportCounted>([&metrics](const ReportCounted& report) {
        metrics.count_report(report.games, report.duplicate);
    });
}

}  // namespace sparring::coordinator

// `sparring notify`: where the notices of the user's runs' ends are posted.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "common/printable.h"

namespace sparring::cli {

namespace {

// The flags of `sparring notify`: --clear.
struct NotifyFlags : SwitchFlags {
    // Declares the flags on app.
    explicit NotifyFlags(CLI::App& app) : SwitchFlags(app, "clear", "no more notifications") {}
};

// Runs `notify [URL | --clear]`.
int notify(const NotifyFlags& args) {
    if (args.arguments.size() > 1) throw UsageError("notify takes one URL at most");
    v1::SetNotifyUrlRequest request;
    if (!args.arguments.empty()) request.set_url(args.arguments[0]);
    if (args.on) {  // --clear
        if (request.has_url()) throw UsageError("give a URL or --clear, not both");
        request.set_url("");
    }
    RemoteClient client(args.remote);
    v1::SetNotifyUrlResponse response;
    client.call(&v1::UserService::Stub::SetNotifyUrl, request, &response);
    if (print_if_json(args.json, response)) return 0;
    std::cout << printable(response.user()) << ": "
              << (response.url().empty()
                      ? "no notifications"
                      : "each run's end is posted to " + printable(response.url()))
              << "\n";
    return 0;
}

}  // namespace

Command notify_command() {
    return {"notify",
            "post a JSON notice of each of your runs' ends to URL (its host must be on the "
            "coordinator's --notify-allow list); without URL: show where they go",
            "[URL | --clear]", declare_flags<NotifyFlags, notify>};
}

}  // namespace sparring::cli

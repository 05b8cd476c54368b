// The outbox of notifications and the users' notification URLs, owned by the domain.
// SqliteStorage implements it as part of Storage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

class Outbox {
  public:
    virtual ~Outbox() = default;

    // Adds a notification to the outbox; returns its id.
    virtual int64_t insert_notification(const Notification& notification) = 0;
    // Returns the oldest pending notification due at now of each destination not in busy, up
    // to limit of them, oldest first.
    virtual std::vector<Notification> due_notifications(int64_t now_ms, int limit,
                                                        const std::vector<std::string>& busy) = 0;
    // Records a delivery, or a failed attempt and when to try again.
    virtual void notification_delivered(int64_t id, int64_t now_ms) = 0;
    virtual void notification_failed(int64_t id, int attempts, int64_t next_ms,
                                     const std::string& error) = 0;
    // Ends a pending notification unsent: state "failed" (its attempts ran out) or "dropped".
    virtual void notification_given_up(int64_t id, std::string_view state, int attempts,
                                       const std::string& error) = 0;
    // Drops the pending notifications to a URL of the runs a user owns; returns how many.
    virtual int64_t drop_notifications(std::string_view url, std::string_view owner,
                                       const std::string& reason) = 0;
    // A user's notification URL ("" for none).
    virtual std::string find_notify_url(std::string_view user) = 0;
    virtual void set_notify_url(std::string_view user, std::string_view url) = 0;
};

}  // namespace sparring::coordinator

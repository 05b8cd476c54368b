// SqliteStorage, the outbox: notifications of runs' ends and the URLs they go to.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coordinator/domain/text.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

int64_t SqliteStorage::insert_notification(const Notification& n) {
    db_.prepare(
           "INSERT INTO notifications (run_id, url, destination, body, attempts, next_ms, "
           "delivered_ms, last_error, state) VALUES (?, ?, ?, ?, 0, ?, 0, '', 'pending')")
        .bind(n.run_id, n.url, n.destination, n.body, n.next_ms)
        .run();
    return db_.last_insert_rowid();
}

std::vector<Notification> SqliteStorage::due_notifications(int64_t now_ms, int limit,
                                                           const std::vector<std::string>& busy) {
    // One per destination: the notifier posts to each receiver one at a time.
    Statement& s = db_.prepare(
        "SELECT id, run_id, url, destination, body, attempts, next_ms, last_error FROM ("
        "  SELECT *, row_number() OVER (PARTITION BY destination ORDER BY next_ms, id) AS k"
        "  FROM notifications WHERE state = 'pending' AND next_ms <= ?"
        "  AND destination NOT IN (SELECT value FROM json_each(?))) "
        "WHERE k = 1 ORDER BY next_ms, id LIMIT ?");
    s.bind(now_ms,
           nlohmann::json(busy).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
           limit);
    std::vector<Notification> due;
    while (s.step()) {
        Notification& n = due.emplace_back();
        n.id = s.int64(0);
        n.run_id = s.int64(1);
        n.url = s.text(2);
        n.destination = s.text(3);
        n.body = s.text(4);
        n.attempts = int(s.int64(5));
        n.next_ms = s.int64(6);
        n.last_error = s.text(7);
    }
    return due;
}

void SqliteStorage::notification_delivered(int64_t id, int64_t now_ms) {
    db_.prepare(
           "UPDATE notifications SET delivered_ms = ?, attempts = attempts + 1, "
           "state = 'delivered' WHERE id = ?")
        .bind(now_ms, id)
        .run();
}

void SqliteStorage::notification_failed(int64_t id, int attempts, int64_t next_ms,
                                        const std::string& error) {
    db_.prepare(
           "UPDATE notifications SET attempts = ?, next_ms = ?, last_error = ? "
           "WHERE id = ? AND state = 'pending'")
        .bind(attempts, next_ms, error, id)
        .run();
}

void SqliteStorage::notification_given_up(int64_t id, std::string_view state, int attempts,
                                          const std::string& error) {
    db_.prepare(
           "UPDATE notifications SET state = ?, attempts = ?, last_error = ? "
           "WHERE id = ? AND state = 'pending'")
        .bind(state, attempts, error, id)
        .run();
}

int64_t SqliteStorage::drop_notifications(std::string_view url, std::string_view owner,
                                          const std::string& reason) {
    db_.prepare(
           "UPDATE notifications SET state = 'dropped', last_error = ? WHERE state = 'pending' "
           "AND url = ? AND run_id IN (SELECT id FROM runs WHERE owner = ?)")
        .bind(reason, url, owner)
        .run();
    return db_.changes();
}

std::string SqliteStorage::find_notify_url(std::string_view user) {
    Statement& s = db_.prepare("SELECT url FROM notify_urls WHERE user = ?");
    s.bind(user);
    return s.step() ? s.text(0) : std::string();
}

void SqliteStorage::set_notify_url(std::string_view user, std::string_view url) {
    if (url.empty()) {
        db_.prepare("DELETE FROM notify_urls WHERE user = ?").bind(user).run();
        return;
    }
    db_.prepare(
           "INSERT INTO notify_urls (user, url) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET "
           "url = excluded.url")
        .bind(user, url)
        .run();
}

}  // namespace sparring::coordinator

// Live updates of run pages: fans each run's changes out to the viewers of its page. A change
// is read once (the dashboard's reader writes it from the events' data, LiveRuns), by the hub's
// own thread, however many viewers wait for it, and at most once per interval per run, however
// often the run changes; runs nobody views are not read.
//
// Viewers either wait on a run's feed (a thread each) or subscribe a listener to it, which the
// hub's thread calls with each update: the dashboard's live pages subscribe, so thousands of
// them cost no thread (issue 32).
//
// The thread that reports a change (the writer's, through the event bus) takes only the hub's
// lock, which viewers take only to join and leave: each run's viewers wait on that run's own
// feed, so the hundreds of them woken by an update never hold up the writer, and viewers of
// other runs are not woken at all.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace sparring::coordinator::web {

class LiveHub {
  public:
    // Returns what a run's viewers receive now, nullopt when the run cannot be read.
    using Reader = std::function<std::optional<std::string>(int64_t run_id)>;

    struct Update {
        uint64_t sequence = 0;                    // increases with every update of the run
        std::shared_ptr<const std::string> data;  // shared by every viewer of the run
    };

    // One run's updates, shared by the hub and the run's viewers.
    class Feed {
      public:
        // Waits up to timeout for an update newer than `seen`; nullopt on timeout or once the
        // hub closes.
        std::optional<Update> wait(uint64_t seen, std::chrono::milliseconds timeout);

        // Called with each update, and with nullptr once the hub closes; it runs under the
        // feed's lock, so it must return at once and not call the feed.
        using Listener = std::function<void(const Update* update)>;
        // Adds a listener, called at once with the latest update if there is one (or nullptr
        // if the feed is closed); returns its id for unsubscribe().
        uint64_t subscribe(Listener listener);
        void unsubscribe(uint64_t id);

      private:
        friend class LiveHub;
        void publish(std::shared_ptr<const std::string> data);
        void close();

        std::mutex mutex_;
        std::condition_variable updated_;
        Update latest_;
        bool closed_ = false;
        std::map<uint64_t, Listener> listeners_;
        uint64_t next_listener_ = 1;
    };

    LiveHub(Reader reader, std::chrono::milliseconds interval);
    ~LiveHub();
    LiveHub(const LiveHub&) = delete;
    LiveHub& operator=(const LiveHub&) = delete;

    // Tells the hub that a run changed; its viewers get an update shortly. Returns at once.
    void notify(int64_t run_id);
    // Registers a viewer of a run and asks for a first update; returns the run's feed, or
    // nullptr when the hub is closed.
    std::shared_ptr<Feed> join(int64_t run_id);
    // Removes a viewer of a run.
    void leave(int64_t run_id);
    // Returns the viewers of every run together.
    size_t viewers() const;
    // Returns the viewers of one run.
    size_t viewers_of(int64_t run_id) const;
    // Wakes every viewer and stops the hub's thread; waits return nullopt and joins fail from
    // then on.
    void close();
    bool closed() const { return closed_; }

  private:
    struct Channel {
        size_t viewers = 0;
        bool dirty = false;
        std::shared_ptr<Feed> feed = std::make_shared<Feed>();
    };

    // Reads dirty runs with viewers and publishes their updates until closed.
    void loop();

    Reader reader_;
    const std::chrono::milliseconds interval_;
    mutable std::mutex mutex_;      // channels_, viewers_; never held while a feed's is
    std::condition_variable work_;  // the hub's thread: a run became dirty
    std::map<int64_t, Channel> channels_;
    size_t viewers_ = 0;
    std::atomic<bool> closed_ = false;
    std::thread thread_;
};

}  // namespace sparring::coordinator::web

// Live updates of run pages: fans each run's changes out to the viewers of its page. A change
// is read once, by the hub's own thread, however many viewers wait for it, and at most once
// per interval per run, however often the run changes; runs nobody views are not read.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
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
        uint64_t sequence = 0;  // increases with every update of the run
        std::string data;
    };

    LiveHub(Reader reader, std::chrono::milliseconds interval);
    ~LiveHub();
    LiveHub(const LiveHub&) = delete;
    LiveHub& operator=(const LiveHub&) = delete;

    // Tells the hub that a run changed; its viewers get an update shortly.
    void notify(int64_t run_id);
    // Registers a viewer of a run and asks for a first update; false when the hub is closed.
    bool join(int64_t run_id);
    // Removes a viewer of a run.
    void leave(int64_t run_id);
    // Waits up to timeout for an update of the run newer than `seen`; nullopt on timeout or
    // when the hub closes (see closed()).
    std::optional<Update> wait(int64_t run_id, uint64_t seen, std::chrono::milliseconds timeout);
    // Returns the viewers of every run together.
    size_t viewers() const;
    // Wakes every viewer and stops the hub's thread; waits and joins fail from then on.
    void close();
    bool closed() const;

  private:
    struct Channel {
        size_t viewers = 0;
        bool dirty = false;
        Update latest;
    };

    // Reads dirty runs with viewers and publishes their updates until closed.
    void loop();

    Reader reader_;
    const std::chrono::milliseconds interval_;
    mutable std::mutex mutex_;
    std::condition_variable work_;     // the hub's thread: a run became dirty
    std::condition_variable updated_;  // viewers: an update was published
    std::map<int64_t, Channel> channels_;
    size_t viewers_ = 0;
    bool closed_ = false;
    std::thread thread_;
};

}  // namespace sparring::coordinator::web

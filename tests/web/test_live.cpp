// The live hub: each run's viewers get that run's updates, read once per interval however many
// viewers wait, and nothing for the viewers of other runs; closing wakes them all; a reader that
// throws does not end it. The live runs write updates from the events, not by reading the run.
// The HTTP server it serves through answers a throwing handler with 500.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "coordinator/http/http_server.h"
#include "coordinator/web/live.h"
#include "coordinator/web/live_runs.h"

namespace sparring::coordinator::web {
namespace {

using namespace std::chrono_literals;

// Counts the reads of each run and answers "run N, read K".
struct CountingReader {
    std::mutex mutex;
    std::map<int64_t, int> reads;
    std::optional<std::string> operator()(int64_t run) {
        std::lock_guard lock(mutex);
        return "run " + std::to_string(run) + ", read " + std::to_string(++reads[run]);
    }
    int of(int64_t run) {
        std::lock_guard lock(mutex);
        return reads[run];
    }
};

TEST(LiveHub, ViewersOfARunShareOneReadAndOtherRunsGetNothing) {
    CountingReader reader;
    constexpr auto interval = 200ms;
    LiveHub hub([&](int64_t run) { return reader(run); }, interval);
    std::vector<std::shared_ptr<LiveHub::Feed>> feeds;
    for (int i = 0; i < 50; ++i) feeds.push_back(hub.join(7));
    const std::shared_ptr<LiveHub::Feed> other = hub.join(8);
    ASSERT_TRUE(other);
    EXPECT_EQ(hub.viewers(), 51u);

    // The joins ask for a first read of each run: one or two rounds, however many viewers.
    ASSERT_TRUE(feeds[0]->wait(0, 5s));
    ASSERT_TRUE(other->wait(0, 5s));
    // A bound on reads over time: let three intervals pass, in which no further read may come.
    std::this_thread::sleep_for(3 * interval);
    const int joined_reads = reader.of(7);
    EXPECT_LE(joined_reads, 2);
    EXPECT_LE(reader.of(8), 2);
    const int other_reads = reader.of(8);
    const uint64_t seen = feeds[0]->wait(0, 0ms)->sequence;
    const uint64_t other_seen = other->wait(0, 0ms)->sequence;

    // Every viewer of run 7 gets the next update, and they share its text; run 8's viewer
    // gets nothing, and run 8 is not read again.
    std::mutex mutex;
    std::vector<std::shared_ptr<const std::string>> got;
    std::vector<std::thread> viewers;
    for (const auto& feed : feeds)
        viewers.emplace_back([&, feed] {
            const std::optional<LiveHub::Update> next = feed->wait(seen, 5s);
            std::lock_guard lock(mutex);
            if (next) got.push_back(next->data);
        });
    // Most viewers are waiting when the changes come (one that is not yet still gets the update,
    // newer than `seen`): no fact to wait on, the hub does not count its waiters.
    std::this_thread::sleep_for(50ms);
    for (int i = 0; i < 100; ++i) hub.notify(7);  // many changes, one read per interval
    for (auto& viewer : viewers) viewer.join();
    // As above: no more than two reads for the burst, however long it is waited on.
    std::this_thread::sleep_for(3 * interval);
    const int burst_reads = reader.of(7) - joined_reads;
    EXPECT_GE(burst_reads, 1);
    EXPECT_LE(burst_reads, 2) << "100 changes within an interval";
    ASSERT_EQ(got.size(), 50u);
    std::set<const std::string*> texts;
    for (const auto& data : got) texts.insert(data.get());
    EXPECT_LE(texts.size(), size_t(burst_reads)) << "one text per read, shared by the viewers";
    for (const std::string* text : texts)
        EXPECT_TRUE(*text == "run 7, read " + std::to_string(joined_reads + 1) ||
                    *text == "run 7, read " + std::to_string(joined_reads + 2))
            << *text;
    EXPECT_FALSE(other->wait(other_seen, 100ms)) << "run 8 did not change";
    EXPECT_EQ(reader.of(8), other_reads);

    // A run nobody views any more is not read.
    for (int i = 0; i < 50; ++i) hub.leave(7);
    EXPECT_EQ(hub.viewers(), 1u);
    const int before = reader.of(7);
    hub.notify(7);
    // A read that must not happen: three intervals pass without it.
    std::this_thread::sleep_for(3 * interval);
    EXPECT_EQ(reader.of(7), before);
}

TEST(LiveHub, ClosingWakesEveryViewerAndRefusesNewOnes) {
    LiveHub hub([](int64_t) { return std::optional<std::string>("x"); }, 10ms);
    const std::shared_ptr<LiveHub::Feed> feed = hub.join(3);
    ASSERT_TRUE(feed);
    const std::optional<LiveHub::Update> first = feed->wait(0, 5s);
    ASSERT_TRUE(first);
    std::thread closer([&] {
        // Closes while the viewer waits (the wait below is the thing under test).
        std::this_thread::sleep_for(50ms);
        hub.close();
    });
    const auto started = std::chrono::steady_clock::now();
    EXPECT_FALSE(feed->wait(first->sequence, 10s));
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    closer.join();
    EXPECT_TRUE(hub.closed());
    EXPECT_FALSE(hub.join(3));
    EXPECT_FALSE(feed->wait(0, 0ms)) << "a closed feed answers nothing";
}

TEST(LiveHub, AReaderThatThrowsCostsItsRunOneRoundNotTheHub) {
    // Issue 32: a run's update that nlohmann-json refused to write ended the process.
    std::atomic<int> failures_left{2};
    LiveHub hub(
        [&](int64_t run) -> std::optional<std::string> {
            if (run == 5 && failures_left.fetch_sub(1) > 0)
                throw std::runtime_error("type_error.316 stand-in");
            if (run == 6) throw 42;  // not even a std::exception
            return "run " + std::to_string(run);
        },
        10ms);
    const std::shared_ptr<LiveHub::Feed> unreadable = hub.join(6);
    const std::shared_ptr<LiveHub::Feed> feed = hub.join(5);
    ASSERT_TRUE(feed);
    // The join's read fails; the next change is read again and reaches the viewer.
    std::optional<LiveHub::Update> update;
    for (int i = 0; i < 500 && !update; ++i) {
        hub.notify(5);
        hub.notify(6);
        update = feed->wait(0, 20ms);
    }
    ASSERT_TRUE(update);
    EXPECT_EQ(*update->data, "run 5");
    EXPECT_FALSE(unreadable->wait(0, 0ms));
    // Still serving: a new viewer of another run gets its update.
    const std::shared_ptr<LiveHub::Feed> other = hub.join(9);
    const std::optional<LiveHub::Update> other_update = other->wait(0, 5s);
    ASSERT_TRUE(other_update);
    EXPECT_EQ(*other_update->data, "run 9");
}

// A report's progress event, as the core publishes it: the run's totals after the report and
// what the report of `worker` added (one pair, a win and a draw: WD).
RunProgressed progress_of(int64_t run, int64_t pairs, int64_t worker) {
    RunProgressed e;
    e.run_id = run;
    e.counts.pairs = pairs;
    e.counts.wins = pairs;
    e.counts.draws = pairs;
    e.counts.penta.counts[3] = pairs;
    e.elo.games = 2 * pairs;
    e.elo.elo = 191.0;
    e.elo.elo_low = 100.0;
    e.elo.elo_high = 300.0;
    e.llr = 1.25;
    e.pairs_leased = 4;
    e.active_leases = 1;
    e.worker_id = worker;
    e.reported.pairs = 1;
    e.reported.wins = 1;
    e.reported.draws = 1;
    e.reported.penta.counts[3] = 1;
    return e;
}

// Issue 50: the live page's update carries the numbers of the events; the run is read whole
// (GetRun and GetLlrHistory: 11 storage reads and more) only for a viewer's first update, after
// the run ended, and for the tables no event carries at most once per tables interval; an
// event whose report the whole read already counted is not counted twice.
TEST(LiveRuns, UpdatesCarryTheEventsNumbersWithoutReadingTheRun) {
    std::atomic<int> reads{0};
    int64_t stored_pairs = 5;           // what the reader reads
    std::function<void()> during_read;  // what happens while the reader reads
    LiveRuns runs(
        [&](int64_t id, v1::RunStatus* run, std::optional<v1::LlrHistory>*) {
            ++reads;
            run->set_id(id);
            run->mutable_spec()->set_kind(v1::RUN_KIND_REGRESSION);
            run->mutable_spec()->mutable_sprt()->set_elo1(5);
            run->set_state(v1::RUN_STATE_ACTIVE);
            run->set_games(uint64_t(2 * stored_pairs));
            run->set_llr_lower(-2.94);
            run->set_llr_upper(2.94);
            v1::WorkerFit* worker = run->add_workers();
            worker->set_worker_id(3);
            worker->set_name("w3");
            worker->set_games(10);
            if (during_read) during_read();
            return true;
        },
        std::chrono::hours(1));
    const auto fields = [](const std::optional<std::string>& update) {
        EXPECT_TRUE(update && update->rfind("data: ", 0) == 0);
        return nlohmann::json::parse(update->substr(6));
    };
    bool again = false;
    // A viewer's first update: the run read whole, once.
    nlohmann::json update = fields(runs.update(7, &again));
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(update["fields"]["games"], "10");
    EXPECT_FALSE(again);

    // A report counted: the update carries the event's counts, Elo, LLR and leases, and the
    // reporter's games in the workers' table; nothing is read.
    EXPECT_EQ(runs.apply(progress_of(7, 6, 3)), 7);
    update = fields(runs.update(7, &again));
    EXPECT_EQ(reads, 1) << "an update per event read the run";
    EXPECT_EQ(update["fields"]["games"], "12");
    EXPECT_EQ(update["fields"]["wins"], "6");
    EXPECT_EQ(update["fields"]["wd"], "6");
    EXPECT_EQ(update["fields"]["llr"], "1.25");
    EXPECT_EQ(update["fields"]["llr_bounds"], "[-2.94, 2.94]");
    EXPECT_EQ(update["fields"]["elo"], "+191.00");
    EXPECT_EQ(update["fields"]["pairs_leased"], "4");
    EXPECT_EQ(update["fields"]["active_workers"], "1");
    EXPECT_EQ(update["llr"][0], 12);
    EXPECT_NE(update["workers"].get<std::string>().find("<td class=\"num\">12</td>"),
              std::string::npos)
        << update["workers"];
    EXPECT_TRUE(again) << "the fits and leases wait for their interval";

    // A hundred reports, then one update: their last totals, still no read; a worker new to
    // the run gets its row.
    for (int64_t pairs = 7; pairs < 107; ++pairs) runs.apply(progress_of(7, pairs, 4));
    update = fields(runs.update(7, &again));
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(update["fields"]["games"], "212");
    EXPECT_NE(update["workers"].get<std::string>().find("<td class=\"num\">200</td>"),
              std::string::npos)
        << update["workers"];
    EXPECT_FALSE(runs.update(7, &again)) << "nothing new: no update";
    // Events of other runs, and of runs nobody views, change nothing here.
    EXPECT_EQ(runs.apply(progress_of(8, 50, 3)), 8);
    EXPECT_FALSE(runs.update(7, &again));
    EXPECT_EQ(runs.apply(VersionAdded{"x", 1}), 0);

    // The run ended: read whole once more.
    RunFinished finished;
    finished.run_id = 7;
    runs.apply(finished);
    stored_pairs = 106;
    update = fields(runs.update(7, &again));
    EXPECT_EQ(reads, 2);
    EXPECT_EQ(update["fields"]["games"], "212");
    EXPECT_EQ(runs.whole_reads(), 2u);

    // A report committed while a viewer's first read ran, whose event came during the read,
    // counts once: on top of the read, not twice; its event again changes nothing.
    stored_pairs = 5;
    during_read = [&] { runs.apply(progress_of(11, 6, 3)); };  // 10 games read + 2
    update = fields(runs.update(11, &again));
    EXPECT_EQ(reads, 3);
    EXPECT_EQ(update["fields"]["games"], "12");
    EXPECT_NE(update["workers"].get<std::string>().find("<td class=\"num\">12</td>"),
              std::string::npos)
        << update["workers"];
    during_read = nullptr;
    EXPECT_EQ(runs.apply(progress_of(11, 6, 3)), 11);
    EXPECT_FALSE(runs.update(11, &again));

    // The tables come whole again once their interval passed.
    LiveRuns quick(
        [&](int64_t id, v1::RunStatus* run, std::optional<v1::LlrHistory>*) {
            ++reads;
            run->set_id(id);
            return true;
        },
        0ms);
    const int before = reads;
    ASSERT_TRUE(quick.update(9, &again));
    quick.apply(progress_of(9, 1, 3));
    ASSERT_TRUE(quick.update(9, &again));
    EXPECT_EQ(reads, before + 2);
}

TEST(HttpServer, AHandlerThatThrowsAnswers500AndTheServerKeepsServing) {
    HttpServer::Options options;
    options.listen = "127.0.0.1:0";
    options.threads = 2;
    HttpServer server(options);
    server.get("/json", [](const HttpRequest&, HttpResponse& response) {
        response.set_content(nlohmann::json("cut \xc3").dump(), "application/json");
    });
    server.get("/int", [](const HttpRequest&, HttpResponse&) { throw 7; });
    server.get("/ok", [](const HttpRequest&, HttpResponse& response) {
        response.set_content("ok", "text/plain");
    });
    httplib::Client client("127.0.0.1", server.start());
    for (const char* path : {"/json", "/int", "/json"}) {
        const httplib::Result thrown = client.Get(path);
        ASSERT_TRUE(thrown) << path;
        EXPECT_EQ(thrown->status, 500) << path;
        EXPECT_EQ(thrown->body, "internal error\n");
        EXPECT_FALSE(thrown->has_header("EXCEPTION_WHAT")) << "the exception's text stays inside";
    }
    const httplib::Result ok = client.Get("/ok");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->body, "ok");
}

}  // namespace
}  // namespace sparring::coordinator::web

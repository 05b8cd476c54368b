// The process plumbing in common/: stop signals taken by one thread, the structured log's
// lines, and the console progress line on a terminal and in a log file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "common/progress.h"
#include "common/signals.h"
#include "tests/service/wait.h"

namespace sparring {
namespace {

using namespace std::chrono_literals;
using test_support::wait_until;

// Returns whether sig is blocked in the calling thread.
bool blocked(int sig) {
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    return sigismember(&mask, sig) == 1;
}

TEST(StopSignals, HandsEachSignalToTheCallbackAndRestoresTheMask) {
    ASSERT_FALSE(blocked(SIGTERM));
    std::atomic<int> last{0};
    std::atomic<int> count{0};
    {
        StopSignals signals;
        EXPECT_TRUE(blocked(SIGINT));
        EXPECT_TRUE(blocked(SIGTERM));
        // Sent before anyone watches: it waits, pending, instead of ending the process.
        kill(getpid(), SIGTERM);
        signals.watch([&](int signal) {
            last = signal;
            ++count;
        });
        wait_until([&] { return count >= 1; }, 2s, 10ms);
        EXPECT_EQ(last, SIGTERM);
        kill(getpid(), SIGINT);
        wait_until([&] { return count >= 2; }, 2s, 10ms);
        EXPECT_EQ(last, SIGINT);
        EXPECT_EQ(count, 2);
        EXPECT_THROW(signals.watch([](int) {}), std::logic_error);
    }
    EXPECT_FALSE(blocked(SIGINT));
    EXPECT_FALSE(blocked(SIGTERM));
}

// Returns what f writes to stderr.
template <typename F>
std::string stderr_of(F f) {
    char path[] = "/tmp/sparring-log-XXXXXX";
    const int fd = mkstemp(path);
    std::fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    f();
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    unlink(path);
    return text.str();
}

TEST(Log, WritesOneLogfmtLinePerEventAboveTheLevel) {
    const std::string out = stderr_of([] {
        set_log_level(LogLevel::Info);
        log_event(LogLevel::Debug, "hidden");
        log_event(LogLevel::Info, "run_submitted", {{"run", "3"}, {"test", "new version"}});
        log_event(LogLevel::Warn, "odd", {{"empty", ""}, {"quote", "a\"b\nc"}});
    });
    const std::size_t first_end = out.find('\n');
    ASSERT_NE(first_end, std::string::npos) << out;
    const std::string first = out.substr(0, first_end);
    EXPECT_EQ(first.rfind("ts=", 0), 0u) << first;
    EXPECT_NE(first.find("Z level=info event=run_submitted run=3 test=\"new version\""),
              std::string::npos)
        << first;
    EXPECT_NE(out.find(" level=warn event=odd empty=\"\" quote=\"a\\\"b\\nc\"\n"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("hidden"), std::string::npos) << out;
    EXPECT_EQ(parse_log_level("warn"), LogLevel::Warn);
    EXPECT_FALSE(parse_log_level("chatty"));
}

TEST(ConsoleProgress, RewritesOneLineOnATerminalCutToItsWidth) {
    std::ostringstream out;
    {
        ConsoleProgress progress(out, 12, ConsoleProgress::kNever);
        EXPECT_TRUE(progress.terminal());
        progress.show("3/10 games");
        progress.show("4/10 games, 1000 positions");
    }
    EXPECT_EQ(out.str(), "\r3/10 games\x1b[K\r4/10 games,\x1b[K\n");
}

TEST(ConsoleProgress, WritesLinesOfTheirOwnWhenDueOrForcedInALog) {
    std::ostringstream forced_only;
    {
        ConsoleProgress progress(forced_only, 0, ConsoleProgress::kNever);
        progress.show("quiet");
        progress.show("pair 20 of 20", true);
        progress.finish();
    }
    EXPECT_EQ(forced_only.str(), "pair 20 of 20\n");
    std::ostringstream timed;
    ConsoleProgress progress(timed, 0, 20ms);
    progress.show("too early");
    std::this_thread::sleep_for(30ms);  // past the 20 ms interval under test
    progress.show("due");
    progress.show("too early again");
    EXPECT_EQ(timed.str(), "due\n");
}

}  // namespace
}  // namespace sparring

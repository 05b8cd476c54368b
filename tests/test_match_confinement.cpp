// External engines are confined: UCI options cannot smuggle in commands, and the child runs
// in a fresh directory of its own, without SPARRING_ variables, under resource limits, and
// dies with the thread (and so the process) that started it. Real child processes throughout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "match/child_process.h"
#include "match/engine_group.h"
#include "match/engine_spec.h"
#include "match/sandbox.h"
#include "match/uci_options.h"
#include "match/uci_player.h"
#include "tests/service/needs.h"

namespace sparring::match {
namespace {

using namespace std::chrono_literals;

const std::string ProbeEngine = std::string(SPARRING_SOURCE_DIR) + "/tests/match/probe_engine.sh";

// Returns a fresh log path for the probe engine of the current test.
std::string probe_log() {
    const std::string path = ::testing::TempDir() + "/probe_" + std::to_string(getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                             ".log";
    std::remove(path.c_str());
    return path;
}

// Returns the lines of a file (none when it does not exist).
std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Returns the value of the first "key=" line of a probe log, or "" when there is none.
std::string probe_value(const std::vector<std::string>& lines, const std::string& key) {
    for (const std::string& line : lines)
        if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
    return "";
}

// The value of the issue: one option that would add two commands.
const std::string Injected = "16\nsetoption name Debug Log File value /tmp/pwned.log\nquit";

TEST(UciOptions, InjectedCommandsNeverReachTheEngine) {
    const std::string log = probe_log();
    PlayerSpec spec{"probe", UciSpec{ProbeEngine, {log}, "", {{"Hash", Injected}}}, 0};
    UciPlayer player(spec);
    std::string error;
    EXPECT_FALSE(player.new_game(&error));
    EXPECT_NE(error.find("UCI option 'Hash'"), std::string::npos) << error;
    EXPECT_NE(error.find("control character"), std::string::npos) << error;
    for (const std::string& line : lines_of(log))
        EXPECT_EQ(line.find("Debug Log File"), std::string::npos) << line;

    // The same engine with a clean value gets exactly one setoption line.
    PlayerSpec clean{"probe", UciSpec{ProbeEngine, {log}, "", {{"Hash", "16"}}}, 0};
    UciPlayer good(clean);
    ASSERT_TRUE(good.new_game(&error)) << error;
    const auto lines = lines_of(log);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "in:setoption name Hash value 16"), 1);
    for (const std::string& line : lines) {
        EXPECT_EQ(line.find("Debug Log File"), std::string::npos) << line;
        EXPECT_NE(line, "in:quit");  // not before the player is destroyed
    }
}

TEST(UciOptions, CapsCountSizeAndShape) {
    using Options = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(check_uci_options({{"Hash", "16"}, {"Debug Log File", "/tmp/a b"}}), "");
    EXPECT_NE(check_uci_options({{"Hash", Injected}}), "");
    EXPECT_NE(check_uci_options({{"Ha\nsh", "1"}}), "");
    EXPECT_NE(check_uci_options({{"Hash", "1\r"}}), "");
    EXPECT_NE(check_uci_options({{"Hash", "\x1b[2J"}}), "");
    EXPECT_NE(check_uci_options({{"", "1"}}), "");
    EXPECT_NE(check_uci_options({{" Hash", "1"}}), "");
    EXPECT_NE(check_uci_options({{"Hash value 1 name Threads", "4"}}), "");
    EXPECT_EQ(check_uci_options({{"Hash values", "4"}}), "");
    EXPECT_NE(check_uci_options({{std::string(kMaxUciOptionNameBytes + 1, 'n'), "1"}}), "");
    EXPECT_EQ(check_uci_options({{std::string(kMaxUciOptionNameBytes, 'n'), "1"}}), "");
    EXPECT_NE(check_uci_options({{"Hash", std::string(kMaxUciOptionValueBytes + 1, '1')}}), "");
    Options many;
    for (size_t i = 0; i <= kMaxUciOptions; ++i) many.emplace_back("O" + std::to_string(i), "1");
    EXPECT_NE(check_uci_options(many).find("more than"), std::string::npos);
    many.pop_back();
    EXPECT_EQ(check_uci_options(many), "");
    // A message shows a hostile name escaped, so it cannot break a log line either.
    EXPECT_EQ(check_uci_options({{"A\nB", "1"}}).find('\n'), std::string::npos);
}

TEST(UciOptions, CanonicalNamesAreWhatAnEngineReads) {
    EXPECT_EQ(canonical_option_name("Debug Log File"), "debug log file");
    EXPECT_EQ(canonical_option_name("Debug  Log  File"), "debug log file");
    EXPECT_EQ(canonical_option_name(" Debug Log File "), "debug log file");
    EXPECT_EQ(canonical_option_name("DEBUG\tLOG \t FILE"), "debug log file");
    EXPECT_EQ(canonical_option_name("HASH"), "hash");
    // Words stay words: an engine joins them with one space, never with none.
    EXPECT_EQ(canonical_option_name("Ha  sh"), "ha sh");
    EXPECT_NE(canonical_option_name("Ha sh"), canonical_option_name("Hash"));
    // Only ASCII is folded, as engines fold it; other bytes pass as they are.
    EXPECT_EQ(canonical_option_name("Stärke"), "stärke");
    EXPECT_EQ(canonical_option_name("   "), "");
}

TEST(UciOptions, SubmittedOptionsAreCheckedByCanonicalName) {
    for (const char* name : {"Debug Log File", "Debug  Log  File", "debug log file",
                             "DEBUG LOG FILE", "LogFile", "Log_File", "log-file"}) {
        const std::string why = check_submitted_uci_options({{name, "/tmp/x"}});
        EXPECT_NE(why.find("write files"), std::string::npos) << name << ": " << why;
    }
    for (const char* name : {"Hash", "hash", "HASH", " Hash", "Hash  "}) {
        const std::string why = check_submitted_uci_options({{name, "800000"}});
        EXPECT_NE(why.find("Hash must be a number of MiB in 0..65536"), std::string::npos)
            << name << ": " << why;
        EXPECT_NE(check_submitted_uci_options({{name, "lots"}}), "") << name;
        EXPECT_NE(check_submitted_uci_options({{name, "-1"}}), "") << name;
        EXPECT_NE(check_submitted_uci_options({{name, ""}}), "") << name;
        EXPECT_EQ(check_submitted_uci_options({{name, "65536"}}), "") << name;
    }
    // Another name to an engine, so not bounded as Hash; nor is a name that only holds it.
    EXPECT_EQ(check_submitted_uci_options({{"Ha sh", "800000"}}), "");
    EXPECT_EQ(check_submitted_uci_options({{"Clear Hash", "true"}}), "");
    // Two spellings of one option: which one the engine keeps depends on their order.
    const std::string twice = check_submitted_uci_options({{"Hash", "16"}, {"hash", "800"}});
    EXPECT_NE(twice.find("'Hash' and 'hash' are one option"), std::string::npos) << twice;
    EXPECT_NE(check_submitted_uci_options({{"Move Overhead", "1"}, {"move  overhead", "2"}}), "");
    EXPECT_EQ(check_submitted_uci_options({{"Hash", "16"}, {"Threads", "1"}, {"Ha sh", "2"}}), "");
    // A local match may log wherever its user likes: only submitted versions are refused.
    EXPECT_EQ(check_uci_options({{"Debug  Log  File", "/tmp/x"}}), "");
}

TEST(UciOptions, ValuesAreFoundUnderAnySpellingOfTheirName) {
    const UciOptions options = {{"HASH", "64"}, {"Threads", "2"}, {"hash", "128"}, {"Ha sh", "9"}};
    EXPECT_EQ(uci_option_values(options, "Hash"), (std::vector<std::string>{"64", "128"}));
    EXPECT_EQ(uci_option_values(options, "threads"), (std::vector<std::string>{"2"}));
    EXPECT_TRUE(uci_option_values(options, "Move Overhead").empty());
}

TEST(UciOptions, TheMatchEngineSyntaxRefusesThemToo) {
    std::string error;
    EXPECT_FALSE(parse_player_spec("cmd=/bin/true,option.Hash=1\nquit", &error));
    EXPECT_NE(error.find("control character"), std::string::npos) << error;
    EXPECT_TRUE(parse_player_spec("cmd=/bin/true,option.Hash=16", &error)) << error;
}

TEST(ChildConfinement, FreshDirectoryNoSparringVariablesAndLimits) {
    setenv("SPARRING_TOKEN", "spw_secret_token_of_the_worker", 1);
    setenv("SPARRING_COORDINATOR", "127.0.0.1:1", 1);
    const std::string log = probe_log();
    std::string scratch;
    {
        UciSpec uci{ProbeEngine, {log}, "", {}};
        uci.confinement.memory_limit_mb = 300;
        uci.confinement.cpu_limit_seconds = 77;
        UciPlayer player(PlayerSpec{"probe", uci, 0});
        std::string error;
        ASSERT_TRUE(player.new_game(&error)) << error;
        const auto lines = lines_of(log);
        scratch = probe_value(lines, "cwd");
        EXPECT_NE(scratch.find("sparring-engine-"), std::string::npos) << scratch;
        EXPECT_NE(std::filesystem::current_path().string(), scratch);
        EXPECT_TRUE(std::filesystem::is_directory(scratch));
        bool path = false;
        for (const std::string& line : lines) {
            EXPECT_EQ(line.find("SPARRING_"), std::string::npos) << line;
            EXPECT_EQ(line.find("spw_secret"), std::string::npos) << line;
            path |= line.rfind("env:PATH=", 0) == 0;
        }
        EXPECT_TRUE(path);  // the rest of the environment is kept
        EXPECT_EQ(probe_value(lines, "limit_as_kb"), std::to_string(300 * 1024));
        EXPECT_EQ(probe_value(lines, "limit_cpu_s"), "77");
    }
    EXPECT_FALSE(std::filesystem::exists(scratch)) << scratch;  // removed with the engine
    unsetenv("SPARRING_TOKEN");
    unsetenv("SPARRING_COORDINATOR");
}

TEST(ChildConfinement, AConfiguredDirectoryIsUsedAndKept) {
    const std::string dir = ::testing::TempDir() + "/configured_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    const std::string log = probe_log();
    {
        UciPlayer player(PlayerSpec{"probe", UciSpec{ProbeEngine, {log}, dir, {}}, 0});
        std::string error;
        ASSERT_TRUE(player.new_game(&error)) << error;
    }
    EXPECT_EQ(std::filesystem::canonical(probe_value(lines_of(log), "cwd")),
              std::filesystem::canonical(dir));
    EXPECT_EQ(probe_value(lines_of(log), "limit_as_kb"), "unlimited");
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    std::filesystem::remove_all(dir);
}

TEST(ChildConfinement, TheChildDiesWithTheThreadThatStartedIt) {
    ChildProcess process;
    std::string error;
    std::thread starter([&] { ASSERT_TRUE(process.start("sleep", {"100"}, {}, &error)) << error; });
    starter.join();
    std::string line;
    // sleep prints nothing: only its death closes the socket before the deadline.
    EXPECT_EQ(process.read_line(&line, ChildProcess::Clock::now() + 5s),
              ChildProcess::ReadStatus::Closed);
    EXPECT_NE(process.stop(0ms).find("signal 9"), std::string::npos);
}

// Issue 32: what an engine writes is stored and sent (PGN tags, failure messages), so each line
// comes out valid UTF-8, the last one without a newline too.
TEST(ChildConfinement, LinesAnEngineWritesAreValidUtf8) {
    ChildProcess process;
    std::string error;
    ASSERT_TRUE(process.start(
        "printf", {"id name caf\\303\\nbad \\377\\376 end\\nok \\303\\251\\ncut \\342\\202"}, {},
        &error))
        << error;
    const std::string fffd = "\xef\xbf\xbd";
    std::vector<std::string> lines;
    std::string line;
    while (process.read_line(&line, ChildProcess::Clock::now() + 5s) ==
           ChildProcess::ReadStatus::Line)
        lines.push_back(line);
    EXPECT_EQ(lines, (std::vector<std::string>{"id name caf" + fffd, "bad " + fffd + fffd + " end",
                                               "ok \xc3\xa9", "cut " + fffd}));
    process.stop(1000ms);
}

// Issue 32: an engine flooding its output without a newline costs the worker one bounded line
// (cut at kMaxLineBytes, the rest dropped), not memory without end; the lines after it come
// through intact.
TEST(ChildConfinement, AFloodedLineIsCutAndTheLinesAfterItSurvive) {
    ChildProcess process;
    std::string error;
    ASSERT_TRUE(process.start("sh",
                              {"-c",
                               "echo before; head -c 50000000 /dev/zero | tr '\\0' x; "
                               "echo; echo after"},
                              {}, &error))
        << error;
    std::vector<std::string> lines;
    std::string line;
    while (process.read_line(&line, ChildProcess::Clock::now() + 30s) ==
           ChildProcess::ReadStatus::Line)
        lines.push_back(line);
    process.stop(1000ms);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "before");
    EXPECT_EQ(lines[1], std::string(ChildProcess::kMaxLineBytes, 'x'));
    EXPECT_EQ(lines[2], "after");
}

TEST(ChildConfinement, AnUnstartableCommandIsAClearErrorAndLeavesNoDirectory) {
    ChildProcess process;
    std::string error;
    EXPECT_FALSE(process.start("/nonexistent/engine", {}, {}, &error));
    EXPECT_NE(error.find("cannot start '/nonexistent/engine'"), std::string::npos) << error;
    EXPECT_FALSE(process.start("no-such-engine-in-path", {}, {}, &error));
    EXPECT_NE(error.find("No such file"), std::string::npos) << error;
    ChildOptions tiny;
    tiny.memory_limit_mb = 1;  // too little to even load a shell
    EXPECT_FALSE(process.start("sh", {"-c", "exit 0"}, tiny, &error) &&
                 process.stop(1000ms) == "exit status 0");
}

// Returns everything a child prints until it ends, and how it ended, after "ended=".
std::string output_of(ChildProcess& process) {
    std::string output;
    std::string line;
    const auto deadline = ChildProcess::Clock::now() + 30s;
    while (process.read_line(&line, deadline) == ChildProcess::ReadStatus::Line)
        output += line + "\n";
    return output + "ended=" + process.stop(1000ms);
}

// Writes an executable shell script; returns its path.
std::string write_script(const std::string& path, const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

// Issue 49: the process layer itself refuses to start an uploaded engine (a file under a
// directory marked untrusted, however it is named) outside a sandbox, so that no code path can
// forget the sandbox; only the operator's allow_unconfined_untrusted lifts that.
TEST(ChildConfinement, AnUntrustedFileNeverStartsOutsideTheSandbox) {
    const std::string dir = ::testing::TempDir() + "/untrusted_" + std::to_string(getpid());
    std::filesystem::create_directories(dir + "/cache/abc/files");
    const std::string engine = write_script(dir + "/cache/abc/files/engine", "echo started");
    const std::string trusted = write_script(dir + "/trusted.sh", "echo started");
    std::filesystem::create_symlink(engine, dir + "/link");
    mark_untrusted_directory(dir + "/cache");
    EXPECT_TRUE(is_untrusted_file(engine));
    EXPECT_TRUE(is_untrusted_file(dir + "/cache/abc/../abc/files/engine"));
    EXPECT_TRUE(is_untrusted_file(dir + "/link"));
    EXPECT_FALSE(is_untrusted_file(trusted));
    EXPECT_FALSE(is_untrusted_file(dir + "/cache-other/engine"));  // a prefix, not a parent

    ChildProcess process;
    std::string error;
    for (const std::string& path : {engine, dir + "/link"}) {
        EXPECT_FALSE(process.start(path, {}, {}, &error)) << path;
        EXPECT_NE(error.find("uploaded engine and would run outside the sandbox"),
                  std::string::npos)
            << error;
        EXPECT_NE(error.find("--allow-unconfined-engines"), std::string::npos) << error;
    }
    ASSERT_TRUE(process.start(trusted, {}, {}, &error)) << error;
    EXPECT_EQ(output_of(process), "started\nended=exit status 0");
    allow_unconfined_untrusted(true);
    ASSERT_TRUE(process.start(engine, {}, {}, &error)) << error;
    EXPECT_EQ(output_of(process), "started\nended=exit status 0");
    allow_unconfined_untrusted(false);
    EXPECT_FALSE(process.start(engine, {}, {}, &error));

    std::string why;
    const std::optional<Sandbox> sandbox = find_sandbox("", &why);
    if (sandbox) {
        ChildOptions confined;
        confined.sandbox = &*sandbox;
        confined.read_only = {dir + "/cache/abc/files"};
        ASSERT_TRUE(process.start(engine, {}, confined, &error)) << error;
        EXPECT_EQ(output_of(process), "started\nended=exit status 0");
    }
    std::filesystem::remove_all(dir);
}

// Issue 49: in the sandbox, every place an engine may write has a size (its root and /dev are
// read-only, /dev/shm and /tmp are sized tmpfs), it cannot make a namespace of its own (a
// system-call filter is in force), sees none of the worker's variables, and of an installed
// engine's directory only its file.
TEST(Sandbox, EveryWritablePlaceIsSizedNoNamespaceNoEnvironmentOnlyItsFile) {
    std::string why;
    std::optional<Sandbox> sandbox = find_sandbox("", &why);
    if (!sandbox) SPARRING_SKIP_WITHOUT("bubblewrap cannot create a sandbox here: " << why);
    sandbox->scratch_mb = 4;
    sandbox->shm_mb = 2;
    const std::string dir = ::testing::TempDir() + "/sandboxed_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/beside") << "a file beside the engine\n";
    const std::string script = write_script(
        dir + "/engine.sh",
        "for place in / /etc /usr /dev; do\n"
        "  touch $place/planted 2>/dev/null && echo \"wrote $place\"\n"
        "done\n"
        "head -c 8388608 /dev/zero > /dev/shm/fill 2>/dev/null\n"
        "echo shm=$(wc -c < /dev/shm/fill)\n"
        "head -c 8388608 /dev/zero > /tmp/fill 2>/dev/null\n"
        "echo tmp=$(wc -c < /tmp/fill)\n"
        "[ -e " +
            dir +
            "/beside ] && echo 'sees beside'\n"
            "unshare --user true 2>/dev/null && echo 'made a user namespace'\n"
            "unshare --mount --map-root-user true 2>/dev/null && echo 'made a mount namespace'\n"
            "grep '^Seccomp:' /proc/self/status | tr -d ' \\t'\n"
            "env | sort | sed 's/^/env:/'\n"
            "echo done");
    setenv("SPARRING_TOKEN", "spw_secret_token_of_the_worker", 1);
    setenv("SOME_WORKER_VARIABLE", "seen", 1);
    ChildOptions confined;
    confined.sandbox = &*sandbox;
    confined.merge_stderr = true;
    ChildProcess process;
    std::string error;
    ASSERT_TRUE(process.start(script, {}, confined, &error)) << error;
    const std::string output = output_of(process);
    unsetenv("SPARRING_TOKEN");
    unsetenv("SOME_WORKER_VARIABLE");
    EXPECT_EQ(output.find("wrote"), std::string::npos) << output;
    EXPECT_NE(output.find("shm=" + std::to_string(2 << 20) + "\n"), std::string::npos) << output;
    EXPECT_NE(output.find("tmp=" + std::to_string(4 << 20) + "\n"), std::string::npos) << output;
    EXPECT_EQ(output.find("sees beside"), std::string::npos) << output;
    if (sandbox->own_user_namespace) {
        EXPECT_EQ(output.find("made a user namespace"), std::string::npos) << output;
    } else {
        std::cout << "bwrap has no user namespace here: --disable-userns is not in force\n";
    }
    EXPECT_EQ(output.find("made a mount namespace"), std::string::npos) << output;
    // The system-call filter is in force (mode 2), where the sandbox has a /proc to tell.
    if (sandbox->mount_proc) {
        EXPECT_NE(output.find("Seccomp:2\n"), std::string::npos) << output;
    }
    EXPECT_EQ(output.find("SOME_WORKER_VARIABLE"), std::string::npos) << output;
    EXPECT_EQ(output.find("spw_secret"), std::string::npos) << output;
    EXPECT_NE(output.find("env:PATH=/usr/local/bin:/usr/bin:/bin\n"), std::string::npos) << output;
    EXPECT_NE(output.find("env:HOME=/tmp\n"), std::string::npos) << output;
    EXPECT_NE(output.find("done\nended=exit status 0"), std::string::npos) << output;
    std::filesystem::remove_all(dir);
}

// Issue 49: where this process can take over a delegated cgroup v2 group, an engine's whole
// process tree runs in a group of its own with its limits and goes with it, a child in a
// session of its own included. Elsewhere (cgroup v1, a shared or read-only group) take_over
// says why, and the worker falls back to the rlimits and says so.
TEST(EngineGroups, AnEnginesTreeHasAGroupOfItsOwnOrTheReasonWhyNot) {
    std::string why;
    const std::optional<EngineGroups> groups = EngineGroups::take_over(&why);
    if (!groups) {
        EXPECT_FALSE(why.empty());
        GTEST_SKIP() << "no delegated cgroup v2 group here (the rlimits hold): " << why;
    }
    ChildOptions options;
    options.merge_stderr = true;
    options.groups = &*groups;
    options.group_limits = {64, 32, 1};
    ChildProcess process;
    std::string error;
    ASSERT_TRUE(process.start("sh",
                              {"-c",
                               "setsid sleep 60061 >/dev/null 2>&1 </dev/null & "
                               "grep '^0::' /proc/self/cgroup; read line"},
                              options, &error))
        << error;
    std::string line;
    ASSERT_EQ(process.read_line(&line, ChildProcess::Clock::now() + 10s),
              ChildProcess::ReadStatus::Line);
    const std::string group = groups->directory() + line.substr(line.rfind('/'));
    EXPECT_NE(line.find("/engine-"), std::string::npos) << line;
    std::ifstream memory(group + "/memory.max");
    std::string bytes;
    memory >> bytes;
    EXPECT_EQ(bytes, std::to_string(64 << 20));
    process.stop(0ms);
    EXPECT_FALSE(std::filesystem::exists(group)) << group;
    bool survivor = false;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        std::ifstream in(entry.path() / "cmdline");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        survivor |= text.find("60061") != std::string::npos;
    }
    EXPECT_FALSE(survivor);
}

}  // namespace
}  // namespace sparring::match

// Uploaded engines end to end, with real coordinator, worker and CLI processes: upload and
// deduplication, size limits, unsafe archives, fetching into the worker's cache (resumed,
// verified, refused when tampered or truncated), the capability that gates such runs, bench
// mismatches, garbage collection and backups of the files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "cluster.h"
#include "common/sha256.h"

namespace sparring::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Writes a file with the given mode.
void write_file(const std::string& path, const std::string& text, fs::perms mode) {
    std::ofstream(path, std::ios::binary) << text;
    fs::permissions(path, mode);
}

// Waits until a file holds text, up to timeout; returns whether it did.
bool wait_for_text(const std::string& path, const std::string& text, std::chrono::seconds timeout) {
    return wait_until([&] { return count_in(path, text) > 0; }, timeout);
}

class UploadTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Starts a coordinator and writes the engine script: a shell wrapper of sparring-engine
    // that notes each start in a marker file, so a test can tell whether it ever ran.
    void start(const std::vector<std::string>& flags = {}) {
        cluster = std::make_unique<Cluster>(flags);
        marker = cluster->dir + "/engine-started";
        script = cluster->dir + "/engine.sh";
        write_file(script, script_text("started"), fs::perms::owner_all);
    }

    // Returns the engine script's text with a marker word of the same length as "started".
    std::string script_text(const std::string& word) const {
        return "#!/bin/sh\necho " + word + " >> " + marker + "\nexec " +
               binary("engine/sparring-engine") + " \"$@\"\n";
    }

    // Returns the bench signature of sparring-engine, as `sparring-engine bench` prints it.
    uint64_t engine_bench() const {
        const CommandResult r = cluster->run({binary("engine/sparring-engine"), "bench"});
        const size_t at = r.out.rfind("Nodes searched: ");
        if (r.status != 0 || at == std::string::npos) return 0;
        return std::stoull(r.out.substr(at + 16));
    }

    // Starts a coordinator with version a, the uploaded script with its bench signature, and
    // the built-in b; *sha256 is the script's.
    void start_with_uploaded_a(std::string* sha256) {
        start();
        const uint64_t bench = engine_bench();
        ASSERT_GT(bench, 0u);
        ASSERT_EQ(add_uploaded("a", script, bench).status, 0);
        cluster->add_version("b");
        *sha256 = *sha256_of_file(script);
    }

    // Adds version NAME running the uploaded script, with a bench signature (0: none).
    CommandResult add_uploaded(const std::string& name, const std::string& path, uint64_t bench) {
        // The CLI would start the engine to read its options, leaving a mark: these tests tell
        // by the marks whether a worker ever ran it.
        std::vector<std::string> args = {"versions",      "add", name,
                                         "--engine-file", path,  "--no-options"};
        if (bench) args.insert(args.end(), {"--bench", std::to_string(bench)});
        return cluster->cli(args);
    }

    // Submits a fixed-games run of a against b; returns its id.
    int64_t submit(uint64_t games) {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Returns the engine directory beside the database.
    std::string engines_dir() const { return cluster->db + ".engines"; }

    std::unique_ptr<Cluster> cluster;
    std::string marker;
    std::string script;
};

TEST_F(UploadTest, TheSameBytesAreStoredOnceAndShownWithTheirHash) {
    start();
    const std::string sha256 = *sha256_of_file(script);
    for (const char* name : {"a", "a-again"}) {
        const CommandResult r = add_uploaded(name, script, 0);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.err.find(sha256), std::string::npos) << r.err;
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions WHERE engine_sha256 IS NOT NULL"), 2);
    const std::string stored = engines_dir() + "/" + sha256;
    EXPECT_EQ(slurp(stored), slurp(script));
    EXPECT_EQ(fs::status(stored).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(fs::status(engines_dir()).permissions() & fs::perms::all, fs::perms::owner_all);

    const CommandResult show = cluster->cli({"versions", "show", "a"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find(sha256), std::string::npos) << show.out;
    EXPECT_NE(show.out.find(std::to_string(fs::file_size(script)) + " bytes"), std::string::npos)
        << show.out;
    const CommandResult list = cluster->cli({"versions", "list"});
    EXPECT_NE(list.out.find("uploaded " + sha256.substr(0, 12)), std::string::npos) << list.out;

    // A version cannot name a file the coordinator does not have.
    v1::AddVersionRequest request;
    request.mutable_version()->set_name("ghost");
    request.mutable_version()->mutable_uploaded()->set_sha256(std::string(64, 'a'));
    v1::Version added;
    const grpc::Status status =
        cluster->users()->AddVersion(Cluster::context(cluster->user_token).get(), request, &added);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(status.error_message().find("upload it first"), std::string::npos);
}

TEST_F(UploadTest, AnOversizedUploadIsRefusedAndNothingIsStored) {
    start({"--max-engine-mb", "1"});
    const std::string big = cluster->dir + "/big-engine";
    write_file(big, std::string((1 << 20) + 1, 'x'), fs::perms::owner_all);
    const CommandResult r = add_uploaded("big", big, 0);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--max-engine-mb"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;  // uploading..., error
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);
    for (const auto& entry : fs::recursive_directory_iterator(engines_dir()))
        EXPECT_FALSE(entry.is_regular_file()) << entry.path();

    // A file within the limit is taken.
    write_file(big, std::string(1 << 20, 'x'), fs::perms::owner_all);
    EXPECT_EQ(add_uploaded("big", big, 0).status, 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
}

TEST_F(UploadTest, UnsafeArchivesAreRefused) {
    start();
    // Builds archives with Python's tarfile, which writes whatever member names it is given.
    const std::string dir = cluster->dir;
    const std::string python =
        "import io, tarfile, sys\n"
        "def make(path, members):\n"
        "    with tarfile.open(path, 'w:gz') as t:\n"
        "        for name, kind, target in members:\n"
        "            info = tarfile.TarInfo(name)\n"
        "            if kind == 'link':\n"
        "                info.type = tarfile.SYMTYPE; info.linkname = target\n"
        "                t.addfile(info)\n"
        "            else:\n"
        "                data = open(sys.argv[2], 'rb').read()\n"
        "                info.size = len(data); info.mode = 0o755\n"
        "                t.addfile(info, io.BytesIO(data))\n"
        "d = sys.argv[1]\n"
        "make(d + '/absolute.tar.gz', [('/tmp/engine', 'file', '')])\n"
        "make(d + '/dotdot.tar.gz', [('bin/../../engine', 'file', '')])\n"
        "make(d + '/linkout.tar.gz', [('bin/engine', 'file', ''), ('net', 'link', '../../etc')])\n"
        "make(d + '/through.tar.gz', [('dir', 'link', '.'), ('dir/engine', 'file', '')])\n"
        "make(d + '/good.tar.gz', [('bin/engine', 'file', ''), ('bin/net', 'link', 'engine')])\n";
    write_file(dir + "/make.py", python, fs::perms::owner_all);
    ASSERT_EQ(cluster->run({"/usr/bin/python3", dir + "/make.py", dir, script}).status, 0);
    for (const char* bad : {"absolute", "dotdot", "linkout", "through"}) {
        const CommandResult r =
            cluster->cli({"versions", "add", bad, "--engine-archive", dir + "/" + bad + ".tar.gz",
                          "--entry", "bin/engine"});
        EXPECT_EQ(r.status, 1) << bad;
        EXPECT_NE(r.err.find("unsafe or unreadable engine archive"), std::string::npos) << r.err;
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 0);
    const CommandResult good = cluster->cli({"versions", "add", "good", "--engine-archive",
                                             dir + "/good.tar.gz", "--entry", "bin/engine"});
    EXPECT_EQ(good.status, 0) << good.err;
    // An entry leaving the archive is refused before anything is asked of the coordinator.
    const CommandResult entry = cluster->cli({"versions", "add", "entry", "--engine-archive",
                                              dir + "/good.tar.gz", "--entry", "../bin/engine"});
    EXPECT_EQ(entry.status, 1);
    EXPECT_NE(entry.err.find("'..'"), std::string::npos) << entry.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 1);
}

// `versions add --engine-archive` reads the options of the archive's entry as it does an
// uploaded file's (issue 29, item 1): unpacked into a temporary directory and started there,
// so its spin options are recorded, listed and tune.
TEST_F(UploadTest, AnArchivesEngineOptionsAreRecordedAndTune) {
    start();
    const std::string dir = cluster->dir;
    write_file(dir + "/make.py",
               "import tarfile, sys\n"
               "with tarfile.open(sys.argv[1], 'w:gz') as t:\n"
               "    t.add(sys.argv[2], arcname='bin/engine')\n",
               fs::perms::owner_all);
    ASSERT_EQ(
        cluster->run({"/usr/bin/python3", dir + "/make.py", dir + "/e.tar.gz", script}).status, 0);
    const CommandResult added = cluster->cli({"versions", "add", "arch", "--engine-archive",
                                              dir + "/e.tar.gz", "--entry", "bin/engine"});
    ASSERT_EQ(added.status, 0) << added.err;
    EXPECT_NE(added.err.find("options of bin/engine in " + dir + "/e.tar.gz"), std::string::npos)
        << added.err;
    EXPECT_EQ(count_in(marker, "started"), 1);  // started once, here, to be asked
    const CommandResult options = cluster->cli({"versions", "options", "arch"});
    ASSERT_EQ(options.status, 0) << options.err;
    EXPECT_NE(options.out.find("KnightValueMg"), std::string::npos) << options.out;
    const CommandResult tune = cluster->cli(
        {"submit", "tune", "arch", "--param", "KnightValueMg:300:250:350", "--games", "2"});
    EXPECT_EQ(tune.status, 0) << tune.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM spsa_params WHERE name = 'KnightValueMg'"), 1);
}

TEST_F(UploadTest, WorkersFetchOnceVerifyAndThenUseTheirCache) {
    start({"--pairs-per-thread", "1"});  // many small leases: both workers play both runs
    const uint64_t bench = engine_bench();
    ASSERT_GT(bench, 0u);
    ASSERT_EQ(add_uploaded("a", script, bench).status, 0);
    cluster->add_version("b");
    const std::string sha256 = *sha256_of_file(script);

    // The cache of the first worker holds the first half of the file, the second worker's a
    // tampered half: one resumes, the other refuses what it downloaded and fetches it again.
    const std::string bytes = slurp(script);
    const std::string cache1 = cluster->dir + "/cache1";
    const std::string cache2 = cluster->dir + "/cache2";
    for (const std::string& cache : {cache1, cache2}) fs::create_directories(cache + "/partial");
    write_file(cache1 + "/partial/" + sha256, bytes.substr(0, bytes.size() / 2),
               fs::perms::owner_read | fs::perms::owner_write);
    write_file(cache2 + "/partial/" + sha256, std::string(bytes.size() / 2, '#'),
               fs::perms::owner_read | fs::perms::owner_write);
    Process& w1 =
        cluster->start_worker("w1", 1, {"--accept-uploaded-engines", "--cache-dir", cache1});
    Process& w2 =
        cluster->start_worker("w2", 1, {"--accept-uploaded-engines", "--cache-dir", cache2});

    const int64_t first = submit(16);
    EXPECT_EQ(cluster->wait_for_run(first, 120s).games(), 16u);
    const int64_t second = submit(16);
    EXPECT_EQ(cluster->wait_for_run(second, 120s).games(), 16u);

    for (Process* w : {&w1, &w2}) {
        EXPECT_EQ(count_in(w->log_path(), "verified and cached"), 1u) << w->log_path();
        EXPECT_GE(count_in(w->log_path(), "found in the cache"), 1u) << w->log_path();
    }
    EXPECT_EQ(count_in(w1.log_path(), "resuming the download of engine " + sha256.substr(0, 12) +
                                          " at byte " + std::to_string(bytes.size() / 2)),
              1u);
    EXPECT_EQ(count_in(w1.log_path(), "refused the download"), 0u);
    EXPECT_EQ(count_in(w2.log_path(), "refused the download"), 1u);
    EXPECT_EQ(slurp(cache1 + "/" + sha256 + "/files/engine"), bytes);
    EXPECT_EQ(slurp(cache2 + "/" + sha256 + "/files/engine"), bytes);
    EXPECT_FALSE(fs::exists(cache1 + "/partial/" + sha256));
}

// Issue 32: an engine runs as the worker's user, so it could rewrite another version's cached
// files, which later games would run. A cached engine's files are digested again before each
// use; changed ones are fetched again and never run, whether the worker kept running or was
// restarted meanwhile (a single file is then checked against its SHA-256).
TEST_F(UploadTest, ACachedEngineChangedInTheCacheIsFetchedAgainNotRun) {
    std::string sha256;
    ASSERT_NO_FATAL_FAILURE(start_with_uploaded_a(&sha256));
    const std::string cache = cluster->dir + "/cache";
    const std::string cached = cache + "/" + sha256 + "/files/engine";
    const std::vector<std::string> flags = {"--accept-uploaded-engines", "--cache-dir", cache};
    Process& first = cluster->start_worker("w1", 1, flags);
    EXPECT_EQ(cluster->wait_for_run(submit(2), 120s).games(), 2u);
    ASSERT_EQ(count_in(first.log_path(), "verified and cached"), 1u);

    write_file(cached, script_text("forgery"), fs::perms::owner_all);
    EXPECT_EQ(cluster->wait_for_run(submit(2), 120s).games(), 2u);
    EXPECT_EQ(count_in(first.log_path(), "differs from what was verified"), 1u) << first.log_path();
    EXPECT_EQ(count_in(first.log_path(), "verified and cached"), 2u);
    EXPECT_EQ(slurp(cached), slurp(script));

    first.signal(SIGTERM);
    ASSERT_TRUE(first.wait_exit(30s));
    write_file(cached, script_text("forgery"), fs::perms::owner_all);
    Process& second = cluster->start_worker("w2", 1, flags);
    EXPECT_EQ(cluster->wait_for_run(submit(2), 120s).games(), 2u);
    EXPECT_EQ(count_in(second.log_path(), "differs from what was verified"), 1u)
        << second.log_path();
    EXPECT_EQ(slurp(cached), slurp(script));
    EXPECT_EQ(count_in(marker, "forgery"), 0u) << "a changed engine ran";
    EXPECT_GT(count_in(marker, "started"), 0u);
}

// Issue 32: links planted in the worker's cache (by anything running as its user) are not
// written through: neither the partial download nor a cached engine's use marker.
TEST_F(UploadTest, LinksPlantedInTheCacheAreNotFollowed) {
    std::string sha256;
    ASSERT_NO_FATAL_FAILURE(start_with_uploaded_a(&sha256));
    const std::string cache = cluster->dir + "/cache";
    const std::string victim = cluster->dir + "/victim";
    const std::string marker_victim = cluster->dir + "/victim-of-the-marker";
    write_file(victim, "precious\n", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_directories(cache + "/partial");
    fs::create_symlink(victim, cache + "/partial/" + sha256);
    const std::vector<std::string> flags = {"--accept-uploaded-engines", "--cache-dir", cache};
    Process& worker = cluster->start_worker("w1", 1, flags);
    EXPECT_EQ(cluster->wait_for_run(submit(2), 120s).games(), 2u);
    EXPECT_EQ(slurp(victim), "precious\n");
    EXPECT_EQ(count_in(worker.log_path(), "verified and cached"), 1u) << worker.log_path();
    EXPECT_EQ(slurp(cache + "/" + sha256 + "/files/engine"), slurp(script));

    // The use marker replaced by a link to a file that does not exist yet: using the engine
    // again creates nothing there.
    const std::string used = cache + "/" + sha256 + "/used";
    ASSERT_TRUE(fs::remove(used));
    fs::create_symlink(marker_victim, used);
    EXPECT_EQ(cluster->wait_for_run(submit(2), 120s).games(), 2u);
    EXPECT_GE(count_in(worker.log_path(), "found in the cache"), 1u) << worker.log_path();
    EXPECT_FALSE(fs::exists(marker_victim));
    EXPECT_EQ(slurp(victim), "precious\n");
}

TEST_F(UploadTest, AFileOfManyChunksIsFetchedWhole) {
    start();
    // Over three chunks of 1 MiB: the script, then a comment the shell never reads (it execs
    // the engine first).
    const std::string big = cluster->dir + "/big-engine.sh";
    write_file(big, script_text("started") + "# " + std::string(3 << 20, 'x') + "\n",
               fs::perms::owner_all);
    ASSERT_EQ(add_uploaded("a", big, 0).status, 0);
    cluster->add_version("b");
    const std::string cache = cluster->dir + "/cache";
    Process& w = cluster->start_worker("w", 1, {"--accept-uploaded-engines", "--cache-dir", cache});
    const int64_t run = submit(4);
    EXPECT_EQ(cluster->wait_for_run(run, 120s).games(), 4u);
    EXPECT_EQ(count_in(w.log_path(), "verified and cached"), 1u) << w.log_path();
    EXPECT_EQ(count_in(w.log_path(), "broke off"), 0u) << w.log_path();
    EXPECT_EQ(slurp(cache + "/" + *sha256_of_file(big) + "/files/engine"), slurp(big));
}

TEST_F(UploadTest, ATamperedOrTruncatedFileIsRefusedRetriedAndNeverRun) {
    start();
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    cluster->add_version("b");
    const std::string sha256 = *sha256_of_file(script);
    const std::string stored = engines_dir() + "/" + sha256;
    const std::string good = slurp(stored);

    // Truncated on the coordinator's disk: every download comes up short.
    write_file(stored, good.substr(0, good.size() - 10),
               fs::perms::owner_read | fs::perms::owner_write);
    Process& worker = cluster->start_worker(
        "w", 1, {"--accept-uploaded-engines", "--cache-dir", cluster->dir + "/cache"});
    const int64_t run = submit(4);
    ASSERT_TRUE(wait_for_text(worker.log_path(), "no verified copy of engine", 60s));

    // Changed to a script of the same size that would leave another mark if it ever ran.
    const std::string tampered = script_text("TAMPERD");
    ASSERT_EQ(tampered.size(), good.size());
    write_file(stored, tampered, fs::perms::owner_read | fs::perms::owner_write);
    const size_t refusals = count_in(worker.log_path(), "no verified copy of engine");
    wait_until([&] { return count_in(worker.log_path(), "no verified copy of engine") > refusals; },
               60s);
    EXPECT_GT(count_in(worker.log_path(), "no verified copy of engine"), refusals);
    EXPECT_FALSE(fs::exists(marker));

    v1::GetRunRequest request;
    request.set_run_id(run);
    v1::RunStatus status;
    ASSERT_TRUE(cluster->users()
                    ->GetRun(Cluster::context(cluster->user_token).get(), request, &status)
                    .ok());
    EXPECT_EQ(status.games(), 0u);

    // Restored, the next attempt verifies and plays.
    write_file(stored, good, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(cluster->wait_for_run(run, 120s).games(), 4u);
    EXPECT_EQ(count_in(marker, "TAMPERD"), 0u);
    EXPECT_GT(count_in(marker, "started"), 0u);
}

TEST_F(UploadTest, OnlyWorkersThatAcceptUploadedEnginesAreLeasedSuchRuns) {
    start();
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    cluster->add_version("b");
    const int64_t run = submit(4);

    // A worker registered without the capability is never offered the run.
    auto workers = cluster->workers();
    const int64_t plain = register_worker(*workers, cluster->worker_token);
    ASSERT_GT(plain, 0);
    for (int i = 0; i < 3; ++i) {
        v1::RequestWorkResponse work;
        ASSERT_TRUE(request_work(*workers, cluster->worker_token, plain, &work).ok());
        EXPECT_FALSE(work.has_lease());
    }
    Process& process = cluster->start_worker("plain", 1);
    ASSERT_TRUE(wait_for_text(process.log_path(), "registered", 60s));
    // A lease that must not come: the worker asks for work for three seconds (the worker logs
    // no idle poll to wait on).
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(count_in(process.log_path(), "lease "), 0u);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches"), 0);

    // One that accepts them plays it.
    v1::RegisterRequest request;
    request.set_name("accepting");
    request.set_cores(1);
    request.set_memory_mb(1024);
    request.set_concurrency(1);
    request.set_accept_uploaded_engines(true);
    v1::RegisterResponse registered;
    ASSERT_TRUE(
        workers->Register(Cluster::context(cluster->worker_token).get(), request, &registered)
            .ok());
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, registered.worker_id(), &work).ok());
    ASSERT_TRUE(work.has_lease());
    EXPECT_EQ(work.lease().run_id(), run);
    EXPECT_EQ(work.lease().test().uploaded().sha256(), *sha256_of_file(script));
    EXPECT_EQ(work.lease().test().uploaded().size(), fs::file_size(script));
}

TEST_F(UploadTest, ABenchMismatchStopsTheWorkerPlayingTheBuildAndShows) {
    start();
    ASSERT_EQ(add_uploaded("a", script, 12345).status, 0);
    cluster->add_version("b");
    Process& worker = cluster->start_worker(
        "w", 1, {"--accept-uploaded-engines", "--cache-dir", cluster->dir + "/cache"});
    const int64_t run = submit(4);
    // The worker first computes the build's bench: under the sanitizers on a loaded machine, a
    // minute and more.
    ASSERT_TRUE(wait_for_text(worker.log_path(), "refusing it", 240s));
    // A second refusal that must not come: three seconds pass without it.
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(count_in(worker.log_path(), "refusing it"), 1u);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM bench_mismatches WHERE expected = 12345"), 1);
    const CommandResult show = cluster->cli({"show", std::to_string(run)});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("bench mismatch"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("computed " + std::to_string(engine_bench())), std::string::npos)
        << show.out;
}

// Issue 32: uploads are capped at --max-uploads at once, and one that stops sending is ended
// after --upload-idle-seconds, freeing its place; nothing of either is stored.
TEST_F(UploadTest, UploadsAreCappedAndAnIdleOneIsEnded) {
    start({"--max-uploads", "2", "--upload-idle-seconds", "2"});
    auto users = cluster->users();
    const std::string sha256(64, 'a');
    // Opens an upload of 1,000 bytes and sends its first chunk with 10 of them.
    const auto open_upload = [&](grpc::ClientContext* context, v1::UploadEngineResponse* response) {
        auto writer = users->UploadEngine(context, response);
        v1::UploadEngineRequest first;
        first.set_size(1000);
        first.set_sha256(sha256);
        first.set_data(std::string(10, 'x'));
        writer->Write(first);
        return writer;
    };
    // Three at once, each holding its place after its first chunk: whichever is checked last is
    // refused at once, the other two are ended by the coordinator when they have sent nothing for
    // 2 s, well within the context's 10-second deadline. (Which of them is refused depends on
    // the order their tokens are checked in; how many does not.)
    std::unique_ptr<grpc::ClientContext> contexts[3];
    v1::UploadEngineResponse responses[3];
    std::unique_ptr<grpc::ClientWriter<v1::UploadEngineRequest>> writers[3];
    for (int i = 0; i < 3; ++i) {
        contexts[i] = Cluster::context(cluster->user_token);
        writers[i] = open_upload(contexts[i].get(), &responses[i]);
    }
    int refused = 0;
    int cancelled = 0;
    for (auto& writer : writers) {
        const grpc::Status ended = writer->Finish();
        if (ended.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
            ++refused;
            EXPECT_NE(ended.error_message().find("2 uploads are in progress"), std::string::npos)
                << ended.error_message();
        } else {
            EXPECT_EQ(ended.error_code(), grpc::StatusCode::CANCELLED) << ended.error_message();
            cancelled += ended.error_code() == grpc::StatusCode::CANCELLED;
        }
    }
    EXPECT_EQ(refused, 1);
    EXPECT_EQ(cancelled, 2);
    // The coordinator cancels the idle uploads before it logs that it did: the line may come
    // just after the client's answer.
    EXPECT_TRUE(
        wait_for_text(cluster->dir + "/coordinator-1.log", "event=engine_upload_idle", 10s));
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 0);
    // Their places are free again.
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
}

// Issue 49: one user holds at most --max-uploads-per-user of the --max-uploads places; an
// admin is bounded by --max-uploads only. Uploads that hold a place are ended when idle.
TEST_F(UploadTest, OneUserCannotHoldEveryUploadPlace) {
    start({"--max-uploads", "4", "--max-uploads-per-user", "2", "--upload-idle-seconds", "4"});
    const std::string tool = binary("coordinator/sparring-coordinator");
    const auto token = [&](const std::string& role, const std::string& name) {
        const CommandResult made = cluster->run(
            {tool, "token", "create", "--db", cluster->db, "--role", role, "--name", name});
        EXPECT_EQ(made.status, 0) << made.err;
        return made.out.substr(0, made.out.find('\n'));
    };
    const std::string bob = token("user", "bob");
    const std::string boss = token("admin", "boss");
    auto users = cluster->users();
    struct Open {
        std::unique_ptr<grpc::ClientContext> context;
        v1::UploadEngineResponse response;
        std::unique_ptr<grpc::ClientWriter<v1::UploadEngineRequest>> writer;
    };
    // Opens an upload of 1,000 bytes and sends its first chunk.
    const auto open_upload = [&](const std::string& secret) {
        auto open = std::make_unique<Open>();
        open->context = Cluster::context(secret, 30s);
        open->writer = users->UploadEngine(open->context.get(), &open->response);
        v1::UploadEngineRequest first;
        first.set_size(1000);
        first.set_sha256(std::string(64, 'a'));
        first.set_data(std::string(10, 'x'));
        open->writer->Write(first);
        return open;
    };
    // The user's three at once, then (each after the last has been taken) the admin's two,
    // then bob's one.
    std::vector<std::unique_ptr<Open>> user;
    for (int i = 0; i < 3; ++i) user.push_back(open_upload(cluster->user_token));
    std::this_thread::sleep_for(1s);
    std::vector<std::unique_ptr<Open>> admin;
    for (int i = 0; i < 2; ++i) admin.push_back(open_upload(boss));
    std::this_thread::sleep_for(1s);
    const std::unique_ptr<Open> bobs = open_upload(bob);

    const grpc::Status full = bobs->writer->Finish();
    EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(full.error_message().find("4 uploads are in progress"), std::string::npos)
        << full.error_message();
    int refused = 0;
    for (auto& open : user) {
        const grpc::Status ended = open->writer->Finish();
        if (ended.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
            ++refused;
            EXPECT_NE(ended.error_message().find(
                          "user 'user' has 2 uploads in progress, the most one user may have"),
                      std::string::npos)
                << ended.error_message();
        } else {
            EXPECT_EQ(ended.error_code(), grpc::StatusCode::CANCELLED) << ended.error_message();
        }
    }
    EXPECT_EQ(refused, 1);
    for (auto& open : admin) {
        const grpc::Status ended = open->writer->Finish();
        EXPECT_EQ(ended.error_code(), grpc::StatusCode::CANCELLED) << ended.error_message();
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 0);
}

// Issue 49: the engine files a user uploaded that no version uses yet count against
// --max-unreferenced-engine-mb; past it an upload is refused, saying how much they hold, until
// a version uses them. An admin is not bounded.
TEST_F(UploadTest, AUsersUnusedUploadsAreBoundedByAQuota) {
    start({"--max-unreferenced-engine-mb", "1"});
    // Files of 600 KiB: a script, and a comment the shell never reads (it execs the engine).
    const auto engine_file = [&](const std::string& name, char fill) {
        const std::string path = cluster->dir + "/" + name;
        write_file(path, script_text("started") + "# " + std::string(600 << 10, fill) + "\n",
                   fs::perms::owner_all);
        return path;
    };
    const std::string first = engine_file("first", 'x');
    const std::string second = engine_file("second", 'y');
    // Uploaded, but its version refused (a bad name): the file stays, used by no version.
    EXPECT_NE(add_uploaded("bad name", first, 0).status, 0);
    ASSERT_EQ(cluster->query("SELECT count(*) FROM engines WHERE uploader = 'user'"), 1);
    const CommandResult refused = add_uploaded("b", second, 0);
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.err.find("user 'user' has uploaded 1 MiB of engine files that no version "
                               "uses yet, and its uploads in progress would add 1 MiB: past the "
                               "1 MiB one user may keep unused"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("resource exhausted"), std::string::npos) << refused.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);

    // A version that uses the first file frees the quota.
    const CommandResult used = add_uploaded("a", first, 0);
    ASSERT_EQ(used.status, 0) << used.err;
    const CommandResult taken = add_uploaded("b", second, 0);
    EXPECT_EQ(taken.status, 0) << taken.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 2);

    // An admin keeps what they upload.
    const std::string tool = binary("coordinator/sparring-coordinator");
    const CommandResult admin = cluster->run(
        {tool, "token", "create", "--db", cluster->db, "--role", "admin", "--name", "boss"});
    ASSERT_EQ(admin.status, 0) << admin.err;
    const std::string boss = admin.out.substr(0, admin.out.find('\n'));
    for (char fill : {'p', 'q'}) {
        const std::string path = engine_file(std::string("admin-") + fill, fill);
        const CommandResult r = cluster->run({binary("cli/sparring"), "versions", "add", "bad name",
                                              "--engine-file", path, "--no-options",
                                              "--coordinator", cluster->address, "--token", boss});
        EXPECT_NE(r.err.find("stored as sha256"), std::string::npos) << r.err;
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines WHERE uploader = 'boss'"), 2);
}

// Issue 49: a size past any file (2^64-1 bytes) is refused with the size it announced and the
// limit, in MiB that do not wrap around.
TEST_F(UploadTest, AnImpossibleSizeIsRefusedWithItsRealSize) {
    start();
    auto users = cluster->users();
    const auto context = Cluster::context(cluster->user_token);
    v1::UploadEngineResponse response;
    auto writer = users->UploadEngine(context.get(), &response);
    v1::UploadEngineRequest first;
    first.set_size(std::numeric_limits<uint64_t>::max());
    first.set_sha256(std::string(64, 'a'));
    first.set_data(std::string(10, 'x'));
    writer->Write(first);
    const grpc::Status refused = writer->Finish();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(refused.error_message().find("the engine file is 17592186044416 MiB "
                                           "(18446744073709551615 bytes), over this "
                                           "coordinator's limit of 256 MiB"),
              std::string::npos)
        << refused.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 0);
}

// Issue 49: links planted in the engine directories are not followed. A stored file replaced
// by a link to another file is not served; a name already taken (by a file of other bytes, or
// a link) is replaced by the verified upload, never written through; a backup neither copies a
// link's target nor writes through a link planted in its own engine directory.
TEST_F(UploadTest, LinksPlantedInTheEngineDirectoriesAreNotFollowed) {
    start();
    const std::string sha256 = *sha256_of_file(script);
    const std::string stored = engines_dir() + "/" + sha256;
    const std::string victim = cluster->dir + "/victim";
    write_file(victim, "precious\n", fs::perms::owner_read | fs::perms::owner_write);

    // Before the upload its name holds a link, then a file of other bytes: both are replaced.
    fs::create_symlink(victim, stored);
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    EXPECT_EQ(slurp(victim), "precious\n");
    EXPECT_FALSE(fs::is_symlink(stored));
    EXPECT_EQ(slurp(stored), slurp(script));
    write_file(stored, script_text("forgery"), fs::perms::owner_read | fs::perms::owner_write);
    ASSERT_EQ(add_uploaded("a-again", script, 0).status, 0);
    EXPECT_EQ(slurp(stored), slurp(script));

    // A backup into a directory whose file of that name is a link: replaced, not written through.
    const std::string coordinator = binary("coordinator/sparring-coordinator");
    const std::string copy = cluster->dir + "/backup.db";
    fs::create_directories(copy + ".engines");
    fs::create_symlink(victim, copy + ".engines/" + sha256);
    CommandResult backup = cluster->run({coordinator, "backup", "--db", cluster->db, "--to", copy});
    ASSERT_EQ(backup.status, 0) << backup.err;
    EXPECT_EQ(slurp(victim), "precious\n");
    EXPECT_FALSE(fs::is_symlink(copy + ".engines/" + sha256));
    EXPECT_EQ(slurp(copy + ".engines/" + sha256), slurp(script));

    // The stored file replaced by a link to the victim: a worker fetching it gets nothing of the
    // victim, and a backup copies nothing of it either.
    fs::remove(stored);
    fs::create_symlink(victim, stored);
    auto workers = cluster->workers();
    v1::FetchEngineRequest fetch;
    fetch.set_sha256(sha256);
    const auto context = Cluster::context(cluster->worker_token);
    auto reader = workers->FetchEngine(context.get(), fetch);
    std::string fetched;
    for (v1::EngineChunk chunk; reader->Read(&chunk);) fetched += chunk.data();
    const grpc::Status served = reader->Finish();
    EXPECT_EQ(served.error_code(), grpc::StatusCode::DATA_LOSS) << served.error_message();
    EXPECT_EQ(fetched, "");
    const std::string second = cluster->dir + "/second.db";
    backup = cluster->run({coordinator, "backup", "--db", cluster->db, "--to", second});
    EXPECT_NE(backup.status, 0);
    EXPECT_NE(backup.err.find("cannot copy engine file " + sha256), std::string::npos)
        << backup.err;
    EXPECT_EQ(count_in(second + ".engines/" + sha256, "precious"), 0u);
}

// Issue 32: unreferenced engine files are collected by the coordinator itself, not only by
// `gc-engines`; a file a version refers to stays.
TEST_F(UploadTest, TheCoordinatorCollectsUnreferencedEnginesOnItsOwn) {
    start({"--engine-gc-interval-seconds", "1", "--engine-gc-min-age-seconds", "5"});
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    const std::string kept = *sha256_of_file(script);
    const std::string orphan_path = cluster->dir + "/orphan";
    write_file(orphan_path, "#!/bin/sh\nexit 0\n", fs::perms::owner_all);
    const std::string orphan = *sha256_of_file(orphan_path);
    EXPECT_NE(cluster->cli({"versions", "add", "bad name", "--engine-file", orphan_path}).status,
              0);
    ASSERT_EQ(cluster->query("SELECT count(*) FROM engines"), 2);
    wait_until([&] { return cluster->query("SELECT count(*) FROM engines") <= 1; }, 60s, 200ms);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
    EXPECT_FALSE(fs::exists(engines_dir() + "/" + orphan));
    EXPECT_TRUE(fs::exists(engines_dir() + "/" + kept));
    EXPECT_EQ(count_in(cluster->dir + "/coordinator-1.log", "event=engines_collected files=1"), 1u);
    // The version still plays from its file.
    EXPECT_EQ(slurp(engines_dir() + "/" + kept), slurp(script));
}

TEST_F(UploadTest, GarbageCollectionKeepsReferencedFilesAndBackupsCarryThem) {
    start();
    ASSERT_EQ(add_uploaded("a", script, 0).status, 0);
    const std::string kept = *sha256_of_file(script);

    // An upload no version names yet (its version never added).
    const std::string orphan_path = cluster->dir + "/orphan";
    write_file(orphan_path, "#!/bin/sh\nexit 0\n", fs::perms::owner_all);
    const std::string orphan = *sha256_of_file(orphan_path);
    const CommandResult refused =
        cluster->cli({"versions", "add", "bad name", "--engine-file", orphan_path});
    EXPECT_NE(refused.status, 0);
    ASSERT_EQ(cluster->query("SELECT count(*) FROM engines"), 2);

    const std::string coordinator = binary("coordinator/sparring-coordinator");
    // Young files stay: their version may be on its way.
    CommandResult gc = cluster->run({coordinator, "gc-engines", "--db", cluster->db});
    ASSERT_EQ(gc.status, 0) << gc.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 2);
    gc = cluster->run({coordinator, "gc-engines", "--db", cluster->db, "--min-age-seconds", "0"});
    ASSERT_EQ(gc.status, 0) << gc.err;
    EXPECT_NE(gc.out.find("removed 1 engine files"), std::string::npos) << gc.out;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM engines"), 1);
    EXPECT_TRUE(fs::exists(engines_dir() + "/" + kept));
    EXPECT_FALSE(fs::exists(engines_dir() + "/" + orphan));

    const std::string copy = cluster->dir + "/backup.db";
    const CommandResult backup =
        cluster->run({coordinator, "backup", "--db", cluster->db, "--to", copy});
    ASSERT_EQ(backup.status, 0) << backup.err;
    EXPECT_EQ(slurp(copy + ".engines/" + kept), slurp(script));
    EXPECT_NE(backup.out.find("copied 1 engine files"), std::string::npos) << backup.out;
}

}  // namespace
}  // namespace sparring::testing

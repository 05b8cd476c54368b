#include "match/sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "match/child_process.h"

namespace sparring::match {

std::vector<std::string> sandbox_command(const Sandbox& sandbox, const std::string& file,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& read_only) {
    std::vector<std::string> argv = {
        sandbox.bwrap,
        // User (where allowed), PID, IPC, network, UTS and cgroup namespaces; a session of
        // its own (no terminal to inject input into); no capabilities, even for root.
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        // What every program needs, read-only.
        "--ro-bind", "/usr", "/usr"};
    for (const char* dir : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        struct stat info {};
        if (lstat(dir, &info) != 0) continue;
        if (S_ISLNK(info.st_mode)) {
            std::error_code error;
            const std::string target = std::filesystem::read_symlink(dir, error).string();
            if (!error) argv.insert(argv.end(), {"--symlink", target, dir});
        } else if (S_ISDIR(info.st_mode)) {
            argv.insert(argv.end(), {"--ro-bind", dir, dir});
        }
    }
    for (const char* etc : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                            "/etc/alternatives", "/etc/localtime"})
        argv.insert(argv.end(), {"--ro-bind-try", etc, etc});
    argv.insert(argv.end(), {"--dev", "/dev"});
    if (sandbox.mount_proc) argv.insert(argv.end(), {"--proc", "/proc"});
    argv.insert(argv.end(), {"--size", std::to_string(sandbox.scratch_mb << 20), "--tmpfs",
                             kSandboxScratch, "--chdir", kSandboxScratch, "--setenv", "TMPDIR",
                             kSandboxScratch, "--setenv", "HOME", kSandboxScratch});
    for (const std::string& dir : read_only) argv.insert(argv.end(), {"--ro-bind", dir, dir});
    argv.push_back("--");
    argv.push_back(file);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

std::optional<Sandbox> find_sandbox(const std::string& bwrap, std::string* why) {
    Sandbox sandbox;
    sandbox.bwrap = bwrap.empty() ? "bwrap" : bwrap;
    std::string failure;
    for (const bool proc : {true, false}) {
        sandbox.mount_proc = proc;
        ChildOptions options;
        options.merge_stderr = true;
        options.sandbox = &sandbox;
        ChildProcess child;
        if (!child.start("/bin/true", {}, options, &failure)) break;  // no bwrap at all
        std::string output;
        std::string line;
        const auto deadline = ChildProcess::Clock::now() + std::chrono::seconds(10);
        while (child.read_line(&line, deadline) == ChildProcess::ReadStatus::Line)
            output += (output.empty() ? "" : "; ") + line;
        const std::string ended = child.stop(std::chrono::milliseconds(1000));
        if (ended == "exit status 0") return sandbox;
        if (proc) failure = output.empty() ? ended : output;
    }
    if (why) *why = failure;
    return std::nullopt;
}

}  // namespace sparring::match

#include "match/sandbox.h"

#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "match/child_process.h"

namespace sparring::match {

std::string seccomp_filter(std::string* error) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) {
        *error = "seccomp_init failed";
        return "";
    }
    int failed = 0;
#if defined(__x86_64__)
    // The 32-bit and x32 calls too: a filter of one architecture lets the others' pass.
    for (const uint32_t arch : {SCMP_ARCH_X86, SCMP_ARCH_X32})
        if (int status = seccomp_arch_add(filter, arch); status != 0 && status != -EEXIST)
            failed = status;
#endif
    const auto refuse = [&](int call, int code) {
        if (int status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(code), call, 0); status != 0)
            failed = status;
    };
    for (const int call :
         {SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(mount), SCMP_SYS(umount2),
          SCMP_SYS(pivot_root), SCMP_SYS(fsopen), SCMP_SYS(fsconfig), SCMP_SYS(fsmount),
          SCMP_SYS(move_mount), SCMP_SYS(open_tree), SCMP_SYS(init_module), SCMP_SYS(finit_module),
          SCMP_SYS(delete_module), SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load),
          SCMP_SYS(open_by_handle_at)})
        refuse(call, EPERM);
    // clone3 passes its flags in memory a filter cannot read.
    refuse(SCMP_SYS(clone3), ENOSYS);
    for (const uint64_t flag : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
                                CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP})
        if (int status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                          SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
            status != 0)
            failed = status;
    std::string program;
    if (failed == 0) {
        const int fd = memfd_create("sparring-seccomp", MFD_CLOEXEC);
        if (fd >= 0 && (failed = seccomp_export_bpf(filter, fd)) == 0) {
            char buffer[4096];
            for (off_t at = 0;;) {
                const ssize_t n = pread(fd, buffer, sizeof buffer, at);
                if (n <= 0) break;
                program.append(buffer, size_t(n));
                at += n;
            }
        } else if (fd < 0) {
            failed = -errno;
        }
        if (fd >= 0) close(fd);
    }
    seccomp_release(filter);
    if (failed != 0 || program.empty()) {
        *error = std::string("cannot build the system-call filter: ") + std::strerror(-failed);
        return "";
    }
    return program;
}

std::vector<std::string> sandbox_command(const Sandbox& sandbox, const std::string& file,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& read_only,
                                         int seccomp_fd) {
    std::vector<std::string> argv = {
        sandbox.bwrap,
        // User (where allowed), PID, IPC, network, UTS and cgroup namespaces; a session of
        // its own (no terminal to inject input into); no capabilities, even for root.
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
    // A user namespace in which the engine cannot make another (there it would hold every
    // capability again).
    if (sandbox.own_user_namespace) argv.insert(argv.end(), {"--unshare-user", "--disable-userns"});
    // None of the worker's variables; what an engine may need of its own.
    argv.insert(argv.end(),
                {"--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv",
                 "TMPDIR", kSandboxScratch, "--setenv", "HOME", kSandboxScratch});
    // What every program needs, read-only.
    argv.insert(argv.end(), {"--ro-bind", "/usr", "/usr"});
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
    // Every file system it may write to has a size: bwrap's tmpfs of /dev and its root are
    // made read-only once the mounts are in place, /dev/shm and /tmp are sized.
    argv.insert(argv.end(), {"--dev", "/dev", "--size", std::to_string(sandbox.shm_mb << 20),
                             "--tmpfs", "/dev/shm"});
    if (sandbox.mount_proc) argv.insert(argv.end(), {"--proc", "/proc"});
    argv.insert(argv.end(), {"--size", std::to_string(sandbox.scratch_mb << 20), "--tmpfs",
                             kSandboxScratch, "--chdir", kSandboxScratch});
    for (const std::string& path : read_only) argv.insert(argv.end(), {"--ro-bind", path, path});
    argv.insert(argv.end(), {"--remount-ro", "/dev", "--remount-ro", "/"});
    if (seccomp_fd >= 0) argv.insert(argv.end(), {"--seccomp", std::to_string(seccomp_fd)});
    argv.push_back("--");
    argv.push_back(file);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

std::optional<Sandbox> find_sandbox(const std::string& bwrap, std::string* why) {
    Sandbox sandbox;
    sandbox.bwrap = bwrap.empty() ? "bwrap" : bwrap;
    std::string failure;
    sandbox.seccomp_filter = seccomp_filter(&failure);
    if (sandbox.seccomp_filter.empty()) {
        if (why) *why = failure;
        return std::nullopt;
    }
    for (const bool user_namespace : {true, false})
        for (const bool proc : {true, false}) {
            sandbox.own_user_namespace = user_namespace;
            sandbox.mount_proc = proc;
            ChildOptions options;
            options.merge_stderr = true;
            options.sandbox = &sandbox;
            ChildProcess child;
            if (!child.start("/bin/true", {}, options, &failure)) {  // no bwrap at all
                if (why) *why = failure;
                return std::nullopt;
            }
            std::string output;
            std::string line;
            const auto deadline = ChildProcess::Clock::now() + std::chrono::seconds(10);
            while (child.read_line(&line, deadline) == ChildProcess::ReadStatus::Line)
                output += (output.empty() ? "" : "; ") + line;
            const std::string ended = child.stop(std::chrono::milliseconds(1000));
            if (ended == "exit status 0") return sandbox;
            // The reason of the most confined try, which a fallback could not cure either.
            if (user_namespace && proc) failure = output.empty() ? ended : output;
        }
    if (why) *why = failure;
    return std::nullopt;
}

}  // namespace sparring::match

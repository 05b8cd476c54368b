// Runs the real `sparring` binary (SPARRING_CLI, a compile definition of the test target) for
// the CLI tests, with temporary files of its own for each process and test case.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace sparring::cli_test {

struct CliResult {
    int status = -1;
    std::string out;
    std::string err;
};

// Returns the whole content of a file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Returns a path in the test directory that no other test case or process uses (ctest runs
// the cases as parallel processes).
inline std::string temp_path(const std::string& name) {
    const std::string test = testing::UnitTest::GetInstance()->current_test_info()->name();
    return testing::TempDir() + "/sparring_" + std::to_string(getpid()) + "_" + test + "_" + name;
}

// Runs `sparring ARGS` through the shell and returns its exit status and output streams.
inline CliResult run(const std::string& args) {
    const std::string out = temp_path("stdout"), err = temp_path("stderr");
    const std::string command =
        std::string("'") + SPARRING_CLI + "' " + args + " >'" + out + "' 2>'" + err + "'";
    const int raw = std::system(command.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(out), read_file(err)};
}

}  // namespace sparring::cli_test

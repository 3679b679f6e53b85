// process.h - for tests that run the stencilrt binary: a temporary directory, starting a
// process with its output in files, waiting for it.
#pragma once

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace srt::test {

namespace fs = std::filesystem;

// A fresh directory per test, removed at the end.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "srt-robust-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }
    const fs::path& path() const { return path_; }
    // Names of everything in the directory, sorted.
    std::vector<std::string> entries() const {
        std::vector<std::string> v;
        for (const auto& e : fs::directory_iterator(path_)) v.push_back(e.path().filename().string());
        std::sort(v.begin(), v.end());
        return v;
    }

private:
    fs::path path_;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Starts `args` with stdout and stderr sent to files; returns the pid.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& out_file,
            const std::string& err_file, const std::vector<std::string>& extra_env = {}) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
    for (const std::string& e : extra_env) env_store.push_back(e);
    std::vector<char*> envp;
    for (std::string& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + " failed");
    return pid;
}

struct Result {
    int exit_code = -1;  // -1 when killed by a signal
    int signal = 0;
    std::string out, err;
};

inline Result wait_for(pid_t pid, const std::string& out_file, const std::string& err_file) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    Result r;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = slurp(out_file);
    r.err = slurp(err_file);
    return r;
}

// Runs the binary to completion; its stdout/stderr files go into `logs`.
inline Result run_binary(const std::string& binary, const TempDir& logs, std::vector<std::string> args) {
    args.insert(args.begin(), binary);
    const std::string o = logs / "stdout.txt", e = logs / "stderr.txt";
    const Result r = wait_for(spawn(args, o, e), o, e);
    fs::remove(o);
    fs::remove(e);
    return r;
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace srt::test

// load_progress.cpp - the stages' record and the terminal line (core/load_progress.h).
#include "core/load_progress.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace srt::load_progress {
namespace {

using Clock = std::chrono::steady_clock;

struct State {
    std::mutex m;
    std::condition_variable wake;
    std::vector<std::pair<std::string, double>> times;
    std::string stage;  // empty: none running
    const char* unit = "";
    uint64_t total = 0;
    std::atomic<uint64_t> done{0};
    Clock::time_point first{}, stage_start{};
    bool started = false;
    bool show = false, shown = false, stop = false;
    std::thread painter;
    ~State() {  // a load that ended in an error never said done()
        {
            std::lock_guard<std::mutex> lock(m);
            stop = true;
        }
        wake.notify_all();
        if (painter.joinable()) painter.join();
    }
};

State& state() {
    static State s;
    return s;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// The line, every 100 ms, once the load is a second old and while a stage runs.
void paint() {
    State& s = state();
    std::unique_lock<std::mutex> lock(s.m);
    while (!s.stop) {
        s.wake.wait_for(lock, std::chrono::milliseconds(100));
        if (s.stop) break;
        const Clock::time_point now = Clock::now();
        if (s.stage.empty() || !s.started || ms_between(s.first, now) < 1000.0) continue;
        const double secs = ms_between(s.stage_start, now) * 1e-3;
        const uint64_t done = s.done.load(std::memory_order_relaxed);
        char line[160];
        const bool bytes = std::string(s.unit) == "bytes";
        const double rate = secs > 0 ? double(done) / secs / 1e6 : 0.0;  // MB/s, or millions of units a second
        if (s.total > 0)
            std::snprintf(line, sizeof line, "\rloading: %-7s %5.1f%%  %.1f %s%s/s   ", s.stage.c_str(),
                          100.0 * double(done) / double(s.total), rate, bytes ? "MB" : "M ", bytes ? "" : s.unit);
        else
            std::snprintf(line, sizeof line, "\rloading: %-7s %.1f s   ", s.stage.c_str(), secs);
        std::fputs(line, stderr);
        std::fflush(stderr);
        s.shown = true;
    }
}

}  // namespace

void begin(const char* stage, uint64_t total, const char* unit) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    s.stage = stage;
    s.unit = unit;
    s.total = total;
    s.done.store(0, std::memory_order_relaxed);
    s.stage_start = Clock::now();
    if (!s.started) s.first = s.stage_start, s.started = true;
}

void advance(uint64_t units) { state().done.fetch_add(units, std::memory_order_relaxed); }

void end() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    if (s.stage.empty()) return;
    const double ms = ms_between(s.stage_start, Clock::now());
    bool found = false;
    for (auto& [name, t] : s.times)
        if (name == s.stage) t += ms, found = true;
    if (!found) s.times.emplace_back(s.stage, ms);
    s.stage.clear();
}

std::vector<std::pair<std::string, double>> times() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    return s.times;
}

void show_on_terminal(bool on) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    if (on == s.show) return;
    s.show = on;
    if (on) {
        s.stop = false;
        s.painter = std::thread(paint);
    }
}

void done() {
    State& s = state();
    {
        std::lock_guard<std::mutex> lock(s.m);
        if (!s.show) return;
        s.stop = true;
        s.show = false;
    }
    s.wake.notify_all();
    if (s.painter.joinable()) s.painter.join();
    if (s.shown) std::fputs("\r\033[K", stderr);
    s.shown = false;
}

std::string summary() {
    std::string out;
    char buf[64];
    for (const auto& [name, ms] : times()) {
        std::snprintf(buf, sizeof buf, "%s%s %.1f ms", out.empty() ? "" : ", ", name.c_str(), ms);
        out += buf;
    }
    return out;
}

}  // namespace srt::load_progress

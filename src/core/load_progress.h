// load_progress.h - the stages of getting a scene onto the device (read, parse, build,
// upload), each timed, and shown on a terminal as one line that updates itself once a
// load has run for a second: the stage, how far it is, and its rate.
//
// One process loads one scene at a time, so the record is global; the stages are
// called from the loaders, the compile and the app, wherever the work is done. Advancing
// is an atomic add, so a stage's pieces may report from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace srt::load_progress {

// Starts a stage of `total` units ("bytes", "primitives"; total 0: no fraction known).
void begin(const char* stage, uint64_t total, const char* unit);
void advance(uint64_t units);
// Ends the current stage and records its time; the times of a stage run twice add up.
void end();
// The stages' times so far, in milliseconds, in the order they first ran.
std::vector<std::pair<std::string, double>> times();
// Shows the line on `stderr` while a stage runs and the load has taken a second (the app
// turns it on where stderr is a terminal); done() clears the line and stops showing it.
void show_on_terminal(bool on);
void done();

// A stage for the length of a scope.
class Stage {
public:
    Stage(const char* stage, uint64_t total, const char* unit) { begin(stage, total, unit); }
    ~Stage() { end(); }
    Stage(const Stage&) = delete;
    Stage& operator=(const Stage&) = delete;
};

// "read 26 ms, parse 145 ms, build 12 ms, upload 9 ms"
std::string summary();

}  // namespace srt::load_progress

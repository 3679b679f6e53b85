// flag_checks.h - the command line's checks of flag values, in the project's voice: the
// flag (CLI11 puts it first), the value as typed, and what is allowed, e.g.
//   --exposure: 'abc' is not a number; allowed: auto, or -30 to 30 (EV)
// where CLI11's own would say "Value abc not in range -30 to 30" or "Could not convert".
// Shared by render and view (main.cpp) and bench (bench's options).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace srt::app {

// A whole number from lo to hi.
CLI::Validator whole_number(long long lo, long long hi);
// A number from lo to hi (finite); `unit` follows the range in the message ("EV").
CLI::Validator number_in(double lo, double hi, const std::string& unit = "");
// "auto", or what `number` allows.
CLI::Validator auto_or(CLI::Validator number);
// One of `names`, with a "did you mean" for a near miss.
CLI::Validator one_of(const std::vector<std::string>& names);

// What every command's parser shares: a flag given twice takes its last value (as most
// tools do, so a command line copied from the viewer's C can be amended by appending a
// flag); repeatable flags (--light) keep every value.
void last_flag_wins(CLI::App& app);

}  // namespace srt::app

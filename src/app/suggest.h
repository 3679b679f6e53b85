// suggest.h - what a command-line parse error prints: a few lines, not the whole help,
// so the error stays on screen. Shared by render and view (main.cpp) and by bench, which
// parses its own flags (cmd_bench.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace srt::app {

// The message for `e`, thrown while `cmd` parsed its arguments; `path` is the command as a
// user types it ("stencilrt render"). Lines: the error; "did you mean `--spp`?" for each
// unknown flag (or, at the top, subcommand) near a known one; "run `PATH --help` ...".
// With no subcommand given, the subcommands with their descriptions.
std::string parse_failure(const CLI::App& cmd, const CLI::Error& e, const std::string& path);

}  // namespace srt::app

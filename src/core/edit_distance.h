// edit_distance.h - how far apart two words are, for "did you mean" hints: scene keys and
// names (scene/json_doc.h) and command-line flags and subcommands (app/suggest.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace srt {

// Insertions, deletions, substitutions and swaps of two neighbouring characters (the
// optimal string alignment distance), ignoring case: "objetcs" is one edit from
// "objects", "--deph" two from "--depths".
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `word` when it is at most `limit` edits away, else "" (of
// equally near ones, the first).
std::string closest(const std::string& word, const std::vector<std::string>& candidates, size_t limit);

}  // namespace srt

// frame_range.h - which frames of a camera path `render` draws, and the file each goes to.
#pragma once

#include <string>
#include <vector>

namespace srt::app {

// "--frames A..B" (inclusive) or "--frame K" against a path of `count` frames; throws
// InputError naming the flag and the valid range (0..count-1).
std::vector<int> parse_frames(const std::string& flag, const std::string& text, int count);

// The output name of frame k: `pattern` with its one printf-style frame number (%d,
// %4d, %04d) replaced, and %% as a percent sign. has_frame_number() says whether it
// has one; a name with another % directive, or two numbers, throws InputError.
bool has_frame_number(const std::string& pattern);
std::string frame_file(const std::string& pattern, int k);

}  // namespace srt::app

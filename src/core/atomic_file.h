// atomic_file.h - replace a file all at once, or not at all.
#pragma once

#include <string>
#include <string_view>

namespace srt {

// Writes `bytes` to a temporary file `path.tmp-XXXXXX` in the same directory, fsyncs it,
// makes it 0644 and renames it over `path`, so an existing file is only ever replaced by
// a complete one and a reader never sees a half-written file. While the temporary file
// exists, SIGINT, SIGTERM, SIGHUP and SIGQUIT unlink it before the process ends the way
// it would have. Throws std::runtime_error (with the path and errno text) on failure; no
// temporary file is left behind. Used for PNGs (write_png_atomic), the tuning cache and
// the bench's CSV and JSON.
void write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace srt

// output_file.h - write an output where the user asked, without destroying what stands there.
#pragma once

#include <string>
#include <string_view>

namespace srt {

// Writes `bytes` to `path`, which decides how (docs/robustness.md, "Output targets"):
//   "-"                     standard output;
//   a missing or regular file  a temporary file `NAME.tmp-XXXXXX` beside it, fsynced and
//                           renamed over it, so an existing file is only ever replaced
//                           by a complete one; a replaced file keeps its permissions, a
//                           new one is 0644. While the temporary file exists, SIGINT,
//                           SIGTERM, SIGHUP and SIGQUIT unlink it before the process ends
//                           the way it would have;
//   a symbolic link         resolved (link by link, dangling ones too) and the file it
//                           leads to written as above: the link stays a link;
//   a device, FIFO, socket  opened and written in place, never renamed over (a FIFO
//                           without a reader is an error, not a hang);
//   a directory             an error.
// Throws OutputError ("PATH: what failed: strerror") and leaves no temporary file.
// Used for PNGs (write_png_atomic), the tuning cache, the bench's CSV and JSON.
void write_output_file(const std::string& path, std::string_view bytes);

// Whether write_output_file(path, ...) could create its file, checked before the work
// that makes the bytes: resolves `path` as the write does and, for a missing or regular
// file, creates and removes the very temporary file the write would create, by the
// same code. Throws the OutputError the write would throw ("PATH: cannot create a file
// in 'DIR': Permission denied"); leaves nothing behind. "-" and devices, FIFOs and
// sockets pass (nothing is created for them).
void probe_output_file(const std::string& path);

}  // namespace srt

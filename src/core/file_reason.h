// file_reason.h - why a file cannot be read, in the system's words, for the messages that
// refuse it ("cannot open OBJ file: Permission denied"), so that a missing file, a
// forbidden one and a folder do not all read alike.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace srt {

// strerror of opening `path` for reading; "" where it opens (then something else failed).
inline std::string unreadable_reason(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::close(fd);
        return "";
    }
    return std::strerror(errno);
}

// "cannot open <what> file: <reason>".
inline std::string cannot_open(const std::string& path, const std::string& what) {
    const std::string why = unreadable_reason(path);
    return "cannot open " + what + " file" + (why.empty() ? "" : ": " + why);
}

}  // namespace srt

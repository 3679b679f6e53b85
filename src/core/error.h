// error.h - errors that say where.
//
// InputError is for bad user input: a malformed file, a bad flag value, a missing
// mesh. Its what() is "file:line[:col]: message" and the command-line front end turns
// it into exit code 2. Internal invariants use assert(); they are bugs, not input.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace srt {

class InputError : public std::runtime_error {
public:
    // line/col are 1-based; 0 means "unknown" and is left out of the message.
    InputError(const std::string& file, int line, int col, const std::string& message)
        : std::runtime_error(format(file, line, col, message)),
          file_(file), line_(line), col_(col), message_(message) {}
    InputError(const std::string& file, int line, const std::string& message)
        : InputError(file, line, 0, message) {}
    explicit InputError(const std::string& message) : InputError("", 0, 0, message) {}

    const std::string& file() const { return file_; }
    int line() const { return line_; }
    int col() const { return col_; }
    const std::string& message() const { return message_; }

    static std::string format(const std::string& file, int line, int col, const std::string& msg) {
        std::string s;
        if (!file.empty()) {
            s += file;
            if (line > 0) s += ":" + std::to_string(line);
            if (line > 0 && col > 0) s += ":" + std::to_string(col);
            s += ": ";
        }
        return s + msg;
    }

private:
    std::string file_;
    int line_;
    int col_;
    std::string message_;
};

// A file could not be written where the user asked (-o, --json, a screenshot): the path
// and the reason, e.g. "/tmp/full: write failed: No space left on device". Like
// InputError, the front end turns it into exit code 2.
class OutputError : public std::runtime_error {
public:
    explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

// A number for a message, as %g writes it ("17", "0.01", "1e+07"); std::to_string of a
// float or double writes six decimals ("17.000000").
inline std::string short_number(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

}  // namespace srt

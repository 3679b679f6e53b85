// shell_quote.h - a string as one word of a POSIX shell command line: for the commands
// the bench runs (its plot) and the ones the viewer prints for the user to run.
#pragma once

#include <string>

namespace srt {

// Single quotes around it, each ' inside written '\''.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// As it is where no character needs quoting (a plain path reads better), else shell_quote.
inline std::string shell_word(const std::string& s) {
    const bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-+=.,/:@%") == std::string::npos;
    return plain ? s : shell_quote(s);
}

}  // namespace srt

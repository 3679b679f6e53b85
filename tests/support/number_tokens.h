// number_tokens.h - tokens for the readers' number tests (test_obj_pieces.cpp,
// test_ply_chunks.cpp): `fixed` followed by `count` random ones of 1 to 24 characters,
// mostly digits, with signs, points and exponents among them (a fixed seed).
#pragma once

#include <random>
#include <string>
#include <vector>

namespace srt::test {

inline std::vector<std::string> number_tokens(std::vector<std::string> fixed, int count = 20000) {
    std::mt19937 rng(7);
    const char kChars[] = "0123456789.-+eE";
    for (int i = 0; i < count; ++i) {
        std::string t;
        const int n = 1 + int(rng() % 24);
        for (int k = 0; k < n; ++k) t += (rng() % 4 == 0) ? kChars[rng() % 15] : char('0' + rng() % 10);
        fixed.push_back(t);
    }
    return fixed;
}

}  // namespace srt::test

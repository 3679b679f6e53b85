// edit_distance.cpp - see edit_distance.h.
#include "core/edit_distance.h"

#include <algorithm>
#include <cctype>

namespace srt {

size_t edit_distance(const std::string& a, const std::string& b) {
    auto same = [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    };
    // Three rows: a swap looks two rows back.
    std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t sub = prev[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates, size_t limit) {
    std::string best;
    bool found = false;
    size_t best_d = 0;
    for (const std::string& c : candidates) {
        const size_t d = edit_distance(word, c);
        if (d <= limit && (!found || d < best_d)) {
            found = true;
            best_d = d;
            best = c;
        }
    }
    return best;
}

}  // namespace srt

// nets.h - whether points are stratified as a low-discrepancy sequence promises: every
// interval of 2^-m holding one of the first 2^m values, and every elementary box of a
// (0, m, 2)-net one of the first 2^m points. Values are 32-bit fractions (bit 31 the
// first binary digit), as render/sobol.h makes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace srt::test {

// Whether the first 2^m values (32-bit fractions) put one in each interval [j, j+1) / 2^m.
inline bool stratified(const std::vector<uint32_t>& x, int m) {
    std::vector<int> count(size_t(1) << m, 0);
    for (size_t i = 0; i < (size_t(1) << m); ++i) ++count[m == 0 ? 0 : x[i] >> (32 - m)];
    for (int c : count)
        if (c != 1) return false;
    return true;
}

// Whether the first 2^m points (x, y) put one in each elementary box of 2^-a by 2^-(m-a),
// for every a: a (0, m, 2)-net.
inline bool net(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y, int m) {
    for (int a = 0; a <= m; ++a) {
        const int b = m - a;
        std::vector<int> count(size_t(1) << m, 0);
        for (size_t i = 0; i < (size_t(1) << m); ++i) {
            const uint32_t bx = a == 0 ? 0u : x[i] >> (32 - a), by = b == 0 ? 0u : y[i] >> (32 - b);
            ++count[(size_t(bx) << b) | by];
        }
        for (int c : count)
            if (c != 1) return false;
    }
    return true;
}

}  // namespace srt::test

// sobol_matrices.cpp - Joe and Kuo's recurrence for the direction numbers, over the
// primitive polynomials and initial numbers that Boost's table holds.
#include "render/sobol_matrices.h"

#include <boost/random/detail/sobol_table.hpp>

#include <stdexcept>
#include <string>

namespace srt {

namespace {
using Table = boost::random::detail::qrng_tables::sobol;
}

uint32_t sobol_max_dimensions() { return Table::max_dimension; }

std::vector<uint32_t> sobol_generator_matrices(uint32_t dims) {
    if (dims > sobol_max_dimensions())
        throw std::out_of_range("Sobol: " + std::to_string(dims) + " dimensions asked, the table has " +
                                std::to_string(sobol_max_dimensions()));
    std::vector<uint32_t> cols(size_t(dims) * 32u);
    for (uint32_t d = 0; d < dims; ++d) {
        // m[k], k = 1..32: the direction number v_k = m_k / 2^k, an odd integer below 2^k.
        uint64_t m[33] = {};
        if (d == 0) {
            for (int k = 1; k <= 32; ++k) m[k] = 1;
        } else {
            // p(x) = x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1, as the bits of an integer.
            const uint32_t p = Table::polynomial(d - 1);
            int s = 0;
            while ((p >> (s + 1)) != 0) ++s;
            for (int k = 1; k <= s; ++k) m[k] = Table::minit(d - 1, size_t(k - 1));
            for (int k = s + 1; k <= 32; ++k) {
                uint64_t v = m[k - s] ^ (m[k - s] << s);
                for (int j = 1; j < s; ++j)
                    if ((p >> (s - j)) & 1u) v ^= m[k - j] << j;
                m[k] = v;
            }
        }
        for (int k = 1; k <= 32; ++k) cols[size_t(d) * 32u + size_t(k - 1)] = uint32_t(m[k] << (32 - k));
    }
    return cols;
}

}  // namespace srt

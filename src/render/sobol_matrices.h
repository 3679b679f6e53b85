// sobol_matrices.h - the generator matrices of Sobol's sequence (render/sobol.h), made on
// the host from Joe and Kuo's direction numbers ("Constructing Sobol sequences with better
// two-dimensional projections", 2008: new-joe-kuo-6.21201), which Debian's Boost carries
// (libboost-dev, boost/random/detail/sobol_table.hpp, the first 3,667 dimensions).
#pragma once

#include <cstdint>
#include <vector>

namespace srt {

// The most dimensions the table gives.
uint32_t sobol_max_dimensions();

// Dimensions 0 .. dims-1, 32 words each: dimension d's column k (the contribution of index
// bit k, its first binary digit in bit 31) at [32 d + k]. Dimension 0 is van der Corput's
// radical inverse in base 2. Throws std::out_of_range past sobol_max_dimensions().
std::vector<uint32_t> sobol_generator_matrices(uint32_t dims);

}  // namespace srt

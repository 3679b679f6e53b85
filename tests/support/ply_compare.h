// ply_compare.h - the PLY data read in chunks against the serial reader
// (src/scene/ply_read.h), for tests/test_ply_chunks.cpp and the PLY fuzz target.
#pragma once

#include "core/error.h"
#include "scene/ply_read.h"

#include <cstring>
#include <string>

namespace srt::ply {

// Whether two readings are the same, bit for bit; where not, `why` says what first differs.
inline bool same_mesh(const Mesh& a, const Mesh& b, std::string& why) {
    auto same_bytes = [&](const void* x, const void* y, size_t n, size_t m, const char* what) {
        if (n != m) why = std::string(what) + ": " + std::to_string(n) + " against " + std::to_string(m) + " bytes";
        else if (n > 0 && std::memcmp(x, y, n) != 0) why = std::string(what) + " differ";
        return why.empty();
    };
    why.clear();
    return same_bytes(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Point3), b.positions.size() * sizeof(Point3), "positions") &&
           same_bytes(a.normals.data(), b.normals.data(), a.normals.size() * sizeof(glm::vec3), b.normals.size() * sizeof(glm::vec3), "normals") &&
           same_bytes(a.indices.data(), b.indices.data(), a.indices.size() * 4, b.indices.size() * 4, "indices") &&
           (a.dropped == b.dropped || (why = "dropped faces " + std::to_string(a.dropped) + " against " + std::to_string(b.dropped), false));
}

// Reads `bytes` as `opt` says and with the serial reader: true when both give the same
// mesh or both throw the same message (`why` says what differs). `chunked`, when given, is
// set to whether the chunked reader read it (rather than leaving it to the serial one).
inline bool chunks_read_as_serial(const std::string& bytes, const std::string& path, ReadOptions opt, std::string& why,
                                  bool* chunked = nullptr) {
    std::string serial_error, chunk_error;
    Mesh serial, chunks;
    try {
        serial = read_serial(bytes, parse_header(bytes, path), path);
    } catch (const InputError& e) {
        serial_error = e.what();
    }
    try {
        chunks = read_data(bytes, parse_header(bytes, path), path, opt);
    } catch (const InputError& e) {
        chunk_error = e.what();
    }
    if (chunked) *chunked = chunks.chunked;
    if (serial_error != chunk_error) {
        why = "serial: '" + serial_error + "', in chunks: '" + chunk_error + "'";
        return false;
    }
    return serial_error.empty() ? same_mesh(serial, chunks, why) : true;
}

}  // namespace srt::ply

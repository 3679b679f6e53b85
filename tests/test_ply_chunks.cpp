// The PLY data read in chunks on every core (scene/ply_chunks.cpp) against the serial
// reader (scene/ply_read.cpp): the same positions, normals and indices bit for bit, and
// the same first error, however the records are cut and however many threads read them.
// Files in the three encodings, with triangles only (records of one size) and with
// polygons (a walk over the counts), extra properties and elements; the parser table's
// bad files; bytes changed at random. The numbers against strtod, token by token.
#include "support/number_tokens.h"
#include "support/ply_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace srt;
using namespace srt::ply;
namespace fs = std::filesystem;

namespace {

enum class Enc { Ascii, LE, BE };

template <class T>
void put(std::string& out, T v, Enc enc) {
    if (enc == Enc::Ascii) {
        std::ostringstream s;
        s.precision(17);
        if constexpr (sizeof(T) == 1) s << int(v); else s << v;
        out += s.str() + " ";
        return;
    }
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (enc == Enc::BE) std::reverse(b, b + sizeof(T));
    out.append(reinterpret_cast<const char*>(b), sizeof(T));
}
void end_record(std::string& out, Enc enc) {
    if (enc == Enc::Ascii) {
        out.back() = '\n';
    }
}

struct Shape {
    Enc enc = Enc::LE;
    bool normals = false;
    bool polygons = false;       // faces of 0 to 7 corners; else triangles only
    bool extras = false;         // a vertex property after xyz, a face property before the list, an element between
    bool double_coords = false;  // x, y, z as double
};

// A random mesh of `nv` vertices and `nf` faces in the shape asked for (a fixed seed).
std::string random_ply(const Shape& sh, int nv, int nf, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> coord(-100.0, 100.0);
    const char* enc = sh.enc == Enc::Ascii ? "ascii" : sh.enc == Enc::LE ? "binary_little_endian" : "binary_big_endian";
    std::string h = std::string("ply\nformat ") + enc + " 1.0\ncomment test_ply_chunks\n";
    if (sh.extras) h += "element camera 1\nproperty float view_px\nproperty list uchar float extra\n";
    h += "element vertex " + std::to_string(nv) + "\n";
    const char* ct = sh.double_coords ? "double" : "float";
    h += std::string("property ") + ct + " x\nproperty " + ct + " y\nproperty " + ct + " z\n";
    if (sh.normals) h += "property float nx\nproperty float ny\nproperty float nz\n";
    if (sh.extras) h += "property uchar confidence\nproperty list uchar int links\n";
    if (sh.extras) h += "element edge 2\nproperty int vertex1\nproperty int vertex2\n";
    h += "element face " + std::to_string(nf) + "\n";
    if (sh.extras) h += "property uchar flags\n";
    h += "property list uchar int vertex_indices\nend_header\n";
    std::string d;
    if (sh.extras) {
        put(d, 1.5f, sh.enc);
        put(d, uint8_t(2), sh.enc);
        put(d, 0.25f, sh.enc);
        put(d, -4.0f, sh.enc);
        end_record(d, sh.enc);
    }
    for (int i = 0; i < nv; ++i) {
        for (int k = 0; k < 3; ++k) {
            const double c = coord(rng);
            if (sh.double_coords) put(d, c, sh.enc); else put(d, float(c), sh.enc);
        }
        if (sh.normals)
            for (int k = 0; k < 3; ++k) put(d, float(coord(rng) / 100.0), sh.enc);
        if (sh.extras) {
            put(d, uint8_t(rng() % 256), sh.enc);
            const int links = int(rng() % 3);
            put(d, uint8_t(links), sh.enc);
            for (int k = 0; k < links; ++k) put(d, int32_t(rng() % 1000), sh.enc);
        }
        end_record(d, sh.enc);
    }
    if (sh.extras)
        for (int i = 0; i < 2; ++i) {
            put(d, int32_t(i), sh.enc);
            put(d, int32_t(i + 1), sh.enc);
            end_record(d, sh.enc);
        }
    for (int f = 0; f < nf; ++f) {
        if (sh.extras) put(d, uint8_t(rng() % 2), sh.enc);
        const int corners = sh.polygons ? int(rng() % 8) : 3;
        put(d, uint8_t(corners), sh.enc);
        if (sh.enc == Enc::Ascii && corners == 0) d += " ";
        for (int k = 0; k < corners; ++k) put(d, int32_t(rng() % uint32_t(nv)), sh.enc);
        end_record(d, sh.enc);
    }
    return h + d;
}

void expect_every_cut(const std::string& bytes, const std::string& label, bool must_chunk) {
    for (const uint32_t grain : {1u, 3u, 64u, 0u})
        for (const int threads : {1, 2, 4}) {
            std::string why;
            bool chunked = false;
            EXPECT_TRUE(chunks_read_as_serial(bytes, label, ReadOptions{grain, threads, false}, why, &chunked))
                << label << " in chunks of " << grain << " records on " << threads << " threads: " << why;
            if (must_chunk) EXPECT_TRUE(chunked) << label << ": the chunked reader gave up on a well-formed file";
        }
}

TEST(PlyChunks, EveryShapeReadsAsSerial) {
    uint32_t seed = 1;
    for (const Enc enc : {Enc::Ascii, Enc::LE, Enc::BE})
        for (const bool normals : {false, true})
            for (const bool polygons : {false, true})
                for (const bool extras : {false, true})
                    for (const bool dbl : {false, true}) {
                        const Shape sh{enc, normals, polygons, extras, dbl};
                        for (const auto [nv, nf] : {std::pair{3, 1}, std::pair{50, 200}, std::pair{700, 1500}}) {
                            const std::string bytes = random_ply(sh, nv, nf, seed++);
                            std::ostringstream label;
                            label << "enc" << int(enc) << (normals ? "-normals" : "") << (polygons ? "-polygons" : "")
                                  << (extras ? "-extras" : "") << (dbl ? "-double" : "") << "-" << nf << ".ply";
                            expect_every_cut(bytes, label.str(), true);
                        }
                    }
}

// What the chunked reader has to find for itself: CRLF line ends, blank and tab runs, a
// '\r' after which the serial reader reads nothing more of the line, trailing whitespace.
TEST(PlyChunks, AsciiLineEndsReadAsSerial) {
    const std::string head = "ply\r\nformat ascii 1.0\r\nelement vertex 4\r\nproperty float x\r\nproperty float y\r\n"
                             "property float z\r\nelement face 2\r\nproperty list uchar int vertex_indices\r\nend_header\r\n";
    const std::string data[] = {
        "0 0 0\r\n1 0 0\r\n1 1 0\r\n0 1 0\r\n3 0 1 2\r\n3 0 2 3\r\n",
        "\t0  0 0 \n1 0 0\t\n 1 1 0\n0 1 0\n4 0 1 2 3\n0\n\n\n  \t\n",
        "0 0 0\rignored\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3",
        "+0 -0 .5e1\n1. 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n",
    };
    for (const std::string& d : data) expect_every_cut(head + d, "line-ends.ply", true);
}

// Every file in the parser table's PLY rows: the serial reader's error, from either.
TEST(PlyChunks, BadFilesGiveTheSerialError) {
    const fs::path dir = fs::path(SRT_SOURCE_DIR) / "tests/data/bad";
    int files = 0;
    for (const auto& f : fs::directory_iterator(dir)) {
        const std::string name = f.path().filename().string();
        if (name.rfind("ply_", 0) != 0) continue;
        std::ifstream in(f.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string header_error;
        try {
            parse_header(ss.str(), name);
        } catch (const InputError& e) {
            header_error = e.what();
        }
        if (!header_error.empty()) continue;  // the header is the serial reader's alone
        ++files;
        expect_every_cut(ss.str(), name, false);
    }
    EXPECT_GE(files, 8) << "the table's PLY files with a good header and bad data";
}

// Bytes changed at random in small files of each encoding (a fixed seed): whatever the
// readers make of them, both make the same.
TEST(PlyChunks, MutatedFilesReadAsSerial) {
    std::mt19937 rng(2026);
    for (const Enc enc : {Enc::Ascii, Enc::LE, Enc::BE}) {
        const std::string good = random_ply(Shape{enc, true, true, true, false}, 6, 8, 99);
        const size_t body = good.find("end_header\n") + 11;
        const char kAscii[] = "0123456789 -+.eE\n\r\t";
        for (int trial = 0; trial < 1500; ++trial) {
            std::string text = good;
            for (int k = 0; k < 1 + int(rng() % 3); ++k) {
                const size_t at = body + rng() % (text.size() - body);
                if (rng() % 4 == 0) text.erase(at, 1);
                else text[at] = enc == Enc::Ascii ? kAscii[rng() % (sizeof kAscii - 1)] : char(rng() % 256);
            }
            if (rng() % 5 == 0) text.resize(body + rng() % (text.size() - body));
            for (const ReadOptions cut : {ReadOptions{1, 3, false}, ReadOptions{2, 2, false}}) {
                std::string why;
                ASSERT_TRUE(chunks_read_as_serial(text, "mutated.ply", cut, why)) << "encoding " << int(enc) << ", trial " << trial << ": " << why;
            }
        }
    }
}

// ascii_number against strtod with the reader's character check, as the serial reader
// had it before fast_float: the same tokens taken, the same bits.
TEST(PlyChunks, NumbersAsStrtodReadsThem) {
    const std::vector<std::string> toks = {"0", "-0", "+1", "+-1", "++1", "1.", ".5", ".", "1e5", "1E-5", "1e", "e1", "1e+",
                                     "1.5e-320", "1e-400", "1e308", "1e309", "-1e400", "0x1p3", "", "-", "00012.50", "1..2",
                                     "9007199254740993", "3.4028236e38", "1.00000000000000011102230246251565404236316680908203125"};
    for (const std::string& t : srt::test::number_tokens(toks)) {
        bool ok_strtod = !t.empty() && t.find_first_not_of("0123456789.-+eE") == std::string::npos;
        double a = 0.0;
        if (ok_strtod) {
            char* end = nullptr;
            a = std::strtod(t.c_str(), &end);
            ok_strtod = end == t.c_str() + t.size() && std::isfinite(a);
        }
        double b = 0.0;
        bool malformed = false;
        const bool ok = ascii_number(t, Type::F64, b, malformed);
        ASSERT_EQ(ok_strtod, ok) << "'" << t << "'";
        ASSERT_EQ(!ok_strtod, malformed) << "'" << t << "'";
        if (ok) ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "'" << t << "': " << a << " against " << b;
        const bool integral = ok && a == std::floor(a);
        ASSERT_EQ(ascii_number(t, Type::I32, b, malformed), integral) << "'" << t << "' as an integer";
    }
}

}  // namespace

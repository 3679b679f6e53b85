// The OBJ reader that reads its text in pieces on every core (src/scene/obj_parse.cpp)
// against the reader it replaced, one statement after another with strtod's numbers
// (tests/support/obj_serial.cpp): the same triangles bit for bit, and the same first
// error, message and line, however the text is cut and however many threads read it.
#include "scene/obj_parse.h"
#include "scene/obj_text.h"
#include "support/number_tokens.h"
#include "support/obj_serial.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using srt::obj::PieceOptions;

// Cuts from every line its own piece to one piece for the whole file, each read by one
// thread and by several.
const PieceOptions kCuts[] = {{1, 1}, {1, 4}, {13, 3}, {200, 2}, {4096, 4}, {0, 0}};

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// An .obj.xz of ../shared/data, through xz (a Debian package the tests install).
std::string read_xz(const fs::path& p) {
    std::string out;
    FILE* f = popen(("xz -dc '" + p.string() + "'").c_str(), "r");
    if (f == nullptr) return out;
    char buf[1 << 16];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    pclose(f);
    return out;
}

void expect_every_cut(const std::string& text, const std::string& path) {
    for (const PieceOptions& cut : kCuts) {
        std::string why;
        EXPECT_TRUE(srt::obj::pieces_read_as_serial(text, path, cut, why))
            << path << " in pieces of " << cut.piece_bytes << " bytes on " << cut.threads << " threads: " << why;
    }
}

// Every OBJ of the tests' own data, the parser table's malformed ones among them.
TEST(ObjPieces, TestDataReadsAsSerial) {
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(SRT_TEST_DATA)) {
        if (e.path().extension() != ".obj") continue;
        expect_every_cut(read_text(e.path()), e.path().string());
        ++files;
    }
    EXPECT_GT(files, 40);
}

// The meshes and scenes of ../shared/data: Conference, Sponza, Sibenik (compressed), the
// Cornell boxes, the bunny.
TEST(ObjPieces, SharedMeshesReadAsSerial) {
    if (!fs::exists(SRT_SHARED_DATA)) GTEST_SKIP() << "../shared/data is absent";
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(SRT_SHARED_DATA)) {
        const std::string name = e.path().filename().string();
        fs::path obj = e.path();
        std::string text;
        if (name.size() > 7 && name.substr(name.size() - 7) == ".obj.xz") {
            text = read_xz(e.path());
            ASSERT_FALSE(text.empty()) << "xz -dc " << e.path();
            obj.replace_extension();  // mtllib resolves beside the .obj it was
        } else if (e.path().extension() == ".obj") {
            text = read_text(e.path());
        } else {
            continue;
        }
        // The largest are read in the default cut and one of small pieces only: a piece a
        // line would take minutes of the serial reader's comparisons, and says nothing new.
        for (const PieceOptions cut : {PieceOptions{0, 0}, PieceOptions{4096, 4}, PieceOptions{65536, 3}}) {
            std::string why;
            EXPECT_TRUE(srt::obj::pieces_read_as_serial(text, obj.string(), cut, why))
                << obj << " in pieces of " << cut.piece_bytes << ": " << why;
        }
        ++files;
    }
    EXPECT_GE(files, 10);
}

// Errors wherever the cuts fall: faces that count back across pieces, usemtl runs that
// cross them, and one bad statement at each line of a file in turn.
TEST(ObjPieces, ErrorsAtEveryLineAsSerial) {
    std::string base;
    for (int i = 0; i < 12; ++i) base += "v " + std::to_string(i) + " " + std::to_string(i % 3) + " 0.5\n";
    base += "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n";
    base += "f 1 2 3\nf -1 -2 -3\nusemtl a\nf 4/1 5/2 6/3 7/1\n# a comment\nf 8//1 9//1 10//1\n";
    base += "l 1 2\nusemtl b\nf -3/-1/-1 -2/-2/-1 -1/-3/-1\ng x\nf 1/1/1 2/2/1 12/3/1\n";
    std::istringstream lines(base);
    std::vector<std::string> all;
    for (std::string l; std::getline(lines, l);) all.push_back(l);
    const char* const kBad[] = {"f 1 2 99", "v 1 2", "f 1/x 2 3", "f 99/x 2 3", "f 1//9 2//1 3//1", "vt nan",
                                "f 1 0 2",  "f 1 2",  "usemtl", "bogus 1", "f 1/1/1/1 2 3", "f 1/5 2/1 3/1"};
    for (size_t at = 0; at <= all.size(); ++at)
        for (const char* bad : kBad) {
            std::string text;
            for (size_t i = 0; i < all.size(); ++i) {
                if (i == at) text += std::string(bad) + "\n";
                text += all[i] + "\n";
            }
            if (at == all.size()) text += bad;  // and as a last line without its newline
            expect_every_cut(text, "cut.obj");
        }
}

// Bytes changed at random in a small OBJ (a fixed seed): whatever the reader makes of
// them, both ways make the same.
TEST(ObjPieces, MutatedTextReadsAsSerial) {
    const std::string good =
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\n"
        "f 1/1/1 2/2/1 3/1/1 4/2/1\nusemtl m\nf -1 -2 -3\nf 1//1 3//1 4//1\n";
    std::mt19937 rng(2026);
    const char kBytes[] = "0123456789 /-+.eE\n#fvtnl";
    for (int trial = 0; trial < 3000; ++trial) {
        std::string text = good;
        for (int k = 0; k < 1 + int(rng() % 4); ++k) {
            const size_t at = rng() % text.size();
            if (rng() % 3 == 0) text.erase(at, 1);
            else text[at] = kBytes[rng() % (sizeof kBytes - 1)];
        }
        for (const PieceOptions cut : {PieceOptions{1, 3}, PieceOptions{9, 2}}) {
            std::string why;
            ASSERT_TRUE(srt::obj::pieces_read_as_serial(text, "mutated.obj", cut, why))
                << "trial " << trial << ":\n" << text << "\n" << why;
        }
    }
}

// The numbers: fast_float's reading, made as strict as strtod's, against strtod's
// (obj_text.h parse_double): the same tokens taken, the same bits.
TEST(ObjPieces, NumbersAsStrtodReadsThem) {
    const std::vector<std::string> toks = {"0", "-0", "+1", "+-1", "-+1", "++1", "1.", ".5", ".", "-.", "1e5", "1E-5", "1e",
                                     "e1", "1e+", "1e+3", "1.5e-320", "1e-400", "3.4028235e38", "3.4028236e38",
                                     "-3.4028235e38", "1e39", "1e400", "nan", "inf", "0x1p3", "1.5x", "", "-",
                                     "00012.50", "1..2", "1e5.5", "2.2250738585072011e-308", "0.1", "123456789012345678901234567890",
                                     "9007199254740993", "1.00000000000000011102230246251565404236316680908203125"};
    for (const std::string& t : srt::test::number_tokens(toks)) {
        double a = 0.0, b = 0.0;
        const bool ok_strtod = srt::obj::parse_double(t, a);
        const bool ok_fast = srt::obj::parse_number(t, b);
        ASSERT_EQ(ok_strtod, ok_fast) << "'" << t << "'";
        if (ok_strtod) ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "'" << t << "': " << a << " against " << b;
    }
}

}  // namespace

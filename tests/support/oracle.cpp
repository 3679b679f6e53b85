// oracle.cpp - see oracle.h.
#include "support/oracle.h"

#include "render/executor.h"
#include "render/scene_gpu.h"
#include "support/pov_export.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace srt {

namespace fs = std::filesystem;

bool have_povray() {
    // `command -v` through the shell, so PATH is searched the way std::system does.
    static const bool found = std::system("command -v povray >/dev/null 2>&1") == 0;
    return found;
}

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

fs::path make_temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "srt-pov-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
    return fs::path(buf.data());
}

}  // namespace

Image render_povray(const Scene& s, int width, int height, int depth, const std::string& keep_pov) {
    const fs::path dir = make_temp_dir();
    const fs::path pov = dir / "scene.pov", png = dir / "out.png", log = dir / "povray.log";
    {
        std::ofstream f(pov, std::ios::binary);
        f << to_pov(s, width, height, depth);
        if (!f) throw std::runtime_error("cannot write " + pov.string());
    }
    if (!keep_pov.empty()) fs::copy_file(pov, keep_pov, fs::copy_options::overwrite_existing);
    // HOME points into the temp dir so POV-Ray's per-user config lookups stay there.
    std::ostringstream cmd;
    cmd << "cd '" << dir.string() << "' && HOME='" << dir.string() << "' povray -D -A +W" << width
        << " +H" << height << " +FN +Iscene.pov +Oout.png File_Gamma=sRGB >povray.log 2>&1";
    const int rc = std::system(cmd.str().c_str());
    if (rc != 0 || !fs::exists(png)) {
        std::string text = read_text(log);
        if (text.size() > 3000) text = text.substr(text.size() - 3000);
        fs::remove_all(dir);
        throw std::runtime_error("povray failed (rc " + std::to_string(rc) + "):\n" + text);
    }
    Image img = read_png(png.string());
    fs::remove_all(dir);
    return img;
}

Image render_cpu(const Scene& s, const RenderSettings& rs, int threads, FrameStats* stats) {
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(threads);
    ex->set_scene(cs);
    Image img;
    RenderSettings r = rs;
    if (stats) r.stats = true;
    ex->render(cs.camera, r, img, stats);
    return img;
}

ImageDiff compare_with_povray(const std::string& tag, const Scene& s, int depth, int width,
                              int height) {
    return compare_with_povray(tag, s, s, depth, width, height);
}

ImageDiff compare_with_povray(const std::string& tag, const Scene& s, const Scene& theirs, int depth,
                              int width, int height) {
    RenderSettings rs;
    rs.width = width;
    rs.height = height;
    rs.depth = depth;
    const std::string dir = oracle_output_dir();
    const Image ours = render_cpu(s, rs);
    const Image pov = render_povray(theirs, width, height, depth, dir + "/" + tag + ".pov");
    if (pov.width != width || pov.height != height)
        throw std::runtime_error("povray wrote a " + std::to_string(pov.width) + "x" +
                                 std::to_string(pov.height) + " image");
    const ImageDiff d = compare_images(ours, pov, 1);
    const double exact = double(d.exact_equal) / double(d.channels);
    std::printf("[ oracle ] %-10s %s: exact %.4f%%, within 1/255 %.4f%%, max diff %d, over %zu of %zu\n",
                tag.c_str(), s.name.c_str(), 100.0 * exact, 100.0 * d.fraction_within(), d.max_diff,
                d.over_tolerance, d.channels);
    write_png_atomic(dir + "/" + tag + "-ours.png", ours);
    write_png_atomic(dir + "/" + tag + "-pov.png", pov);
    write_png_atomic(dir + "/" + tag + "-diff.png", diff_image(ours, pov));
    return d;
}

ImageDiff compare_with_povray_stable(const std::string& tag, const Scene& s, int depth, int width, int height,
                                     size_t& unstable_pixels) {
    RenderSettings rs;
    rs.width = width;
    rs.height = height;
    rs.depth = depth;
    const Image ours = render_cpu(s, rs);
    // A pixel is unstable where moving the camera (and what it looks at) by 1e-6 along an
    // axis changes it: there float and double renderers may rightly disagree.
    std::vector<bool> unstable(size_t(width) * size_t(height), false);
    for (int axis = 0; axis < 3; ++axis) {
        Scene moved = s;
        moved.camera.from[axis] += 1e-6;
        moved.camera.at[axis] += 1e-6;
        const Image m = render_cpu(moved, rs);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                if (std::memcmp(m.pixel(x, y), ours.pixel(x, y), 3) != 0) unstable[size_t(y) * width + x] = true;
    }
    const std::string dir = oracle_output_dir();
    const Image pov = render_povray(s, width, height, depth, dir + "/" + tag + ".pov");
    if (pov.width != width || pov.height != height)
        throw std::runtime_error("povray wrote a " + std::to_string(pov.width) + "x" +
                                 std::to_string(pov.height) + " image");
    ImageDiff d;
    unstable_pixels = 0;
    Image shown = diff_image(ours, pov);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            if (unstable[size_t(y) * width + x]) {
                ++unstable_pixels;
                shown.pixel(x, y)[2] = 255;  // blue: left out
                continue;
            }
            for (int c = 0; c < 3; ++c) {
                const int diff = std::abs(int(ours.pixel(x, y)[c]) - int(pov.pixel(x, y)[c]));
                ++d.channels;
                d.exact_equal += diff == 0;
                d.over_tolerance += diff > 1;
                d.max_diff = std::max(d.max_diff, diff);
            }
        }
    std::printf("[ oracle ] %-22s depth %2d: within 1/255 %.4f%% of %zu values, max diff %d, %zu of %d pixels "
                "left out (a 1e-6 camera move changes them)\n",
                tag.c_str(), depth, 100.0 * d.fraction_within(), d.channels, d.max_diff, unstable_pixels,
                width * height);
    write_png_atomic(dir + "/" + tag + "-ours.png", ours);
    write_png_atomic(dir + "/" + tag + "-pov.png", pov);
    write_png_atomic(dir + "/" + tag + "-diff.png", shown);
    return d;
}

Image diff_image(const Image& a, const Image& b, int gain) {
    Image d(std::min(a.width, b.width), std::min(a.height, b.height));
    for (int y = 0; y < d.height; ++y)
        for (int x = 0; x < d.width; ++x)
            for (int c = 0; c < 3; ++c) {
                const int v = std::abs(int(a.pixel(x, y)[c]) - int(b.pixel(x, y)[c])) * gain;
                d.pixel(x, y)[c] = uint8_t(std::min(255, v));
                d.pixel(x, y)[3] = 255;
            }
    return d;
}

std::string oracle_output_dir() {
#ifdef SRT_BINARY
    const fs::path dir = fs::path(SRT_BINARY).parent_path() / "oracle-images";
#else
    const fs::path dir = fs::current_path() / "oracle-images";
#endif
    fs::create_directories(dir);
    return dir.string();
}

}  // namespace srt

// output_path.cpp - the check every subcommand makes of its output paths before it
// renders anything: a sweep or a camera path must not run for minutes and then find it
// cannot write its result.
#include "app/app.h"

#include "core/error.h"
#include "core/output_file.h"

#include <filesystem>

namespace srt::app {

void check_output_path(const std::string& out, const std::string& scene, const std::string& flag,
                       const std::string& kind) {
    namespace fs = std::filesystem;
    if (out == "-") return;
    const std::string where = flag + " " + out;
    std::error_code ec;
    if (!scene.empty() && fs::exists(out, ec) && fs::equivalent(out, scene, ec))
        throw InputError(where + ": refusing to write the " + kind + " over the scene file");
    if (fs::is_directory(out, ec)) throw InputError(where + ": is a directory");
    const fs::path parent = fs::absolute(out, ec).parent_path();
    if (!fs::is_directory(parent, ec))
        throw InputError(where + ": directory '" + parent.string() + "' does not exist");
    // A folder that exists may still refuse the file (read-only, /proc, /sys, a full
    // quota of inodes): the writer's own temporary file is created and removed here, so
    // the answer is the one the write would get, before the work instead of after it.
    try {
        probe_output_file(out);
    } catch (const OutputError& e) {
        throw InputError(flag + " " + e.what());
    }
}

}  // namespace srt::app

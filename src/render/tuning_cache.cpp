// tuning_cache.cpp - reading and writing the tuned launch sizes (see tuning_cache.h).
#include "render/tuning_cache.h"

#include "core/output_file.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace srt {

using nlohmann::json;

const char* const kTunedStages[6] = {"generate", "intersect", "shade", "reflect", "resolve", "compact"};

int& launch_size(LaunchSizes& s, int stage) {
    switch (stage) {
        case 0: return s.generate;
        case 1: return s.intersect;
        case 2: return s.shade;
        case 3: return s.reflect;
        case 4: return s.resolve;
        default: return s.compact;
    }
}
int launch_size(const LaunchSizes& s, int stage) { return launch_size(const_cast<LaunchSizes&>(s), stage); }

bool operator==(const LaunchSizes& a, const LaunchSizes& b) {
    for (int s = 0; s < 6; ++s)
        if (launch_size(a, s) != launch_size(b, s)) return false;
    return true;
}

std::string resolution_class(int width, int height) {
    const double px = double(width) * double(height);
    if (px <= 500000.0) return "<=0.5MP";
    if (px <= 2100000.0) return "<=2.1MP";
    return ">2.1MP";
}

std::string tuning_cache_path() {
    namespace fs = std::filesystem;
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    if (xdg && *xdg && fs::path(xdg).is_absolute())
        return (fs::path(xdg) / "stencilrt" / "tuning.json").string();
    const char* home = std::getenv("HOME");
    if (home && *home) return (fs::path(home) / ".cache" / "stencilrt" / "tuning.json").string();
    return "";
}

bool tuning_disabled_by_env() {
    const char* v = std::getenv("SRT_NO_TUNING");
    return v && *v && std::strcmp(v, "0") != 0;
}

namespace {

json sizes_to_json(const LaunchSizes& s) {
    json j = json::object();
    for (int k = 0; k < 6; ++k) j[kTunedStages[k]] = launch_size(s, k);
    return j;
}

// A block size must be a positive multiple of 32 no larger than 1024 (or 0 = default);
// anything else means the file was edited or damaged.
bool sizes_from_json(const json& j, LaunchSizes& out, std::string& why) {
    if (!j.is_object()) {
        why = "launch sizes are not an object";
        return false;
    }
    LaunchSizes s;
    for (int k = 0; k < 6; ++k) {
        const auto it = j.find(kTunedStages[k]);
        if (it == j.end()) continue;  // absent = default
        if (!it->is_number_integer()) {
            why = std::string(kTunedStages[k]) + " is not an integer";
            return false;
        }
        const long long v = it->get<long long>();
        if (v < 0 || v > 1024 || v % 32 != 0) {
            why = std::string(kTunedStages[k]) + " = " + std::to_string(v) +
                  " is not 0 or a multiple of 32 up to 1024";
            return false;
        }
        launch_size(s, k) = int(v);
    }
    out = s;
    return true;
}

template <class T>
T value_or(const json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        return fallback;
    }
}

}  // namespace

TuningCache TuningCache::load(const std::string& path, std::string* warning) {
    TuningCache cache;
    if (warning) warning->clear();
    if (path.empty()) return cache;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        if (std::filesystem::exists(path, ec) && warning)
            *warning = path + ": cannot be read; ignoring the tuning cache";
        return cache;
    }
    std::stringstream ss;
    ss << in.rdbuf();

    json doc;
    try {
        doc = json::parse(ss.str());
    } catch (const json::exception& e) {
        if (warning) *warning = path + ": corrupt tuning cache (" + e.what() + "); ignoring it";
        return cache;
    }
    const auto entries = doc.is_object() ? doc.find("entries") : doc.end();
    if (!doc.is_object() || entries == doc.end() || !entries->is_array()) {
        if (warning) *warning = path + ": not a stencilrt tuning cache (no \"entries\" array); ignoring it";
        return cache;
    }
    int bad = 0;
    std::string first_why;
    for (const json& e : *entries) {
        std::string why;
        TuningEntry t;
        if (!e.is_object()) {
            why = "entry is not an object";
        } else {
            t.key.gpu = value_or<std::string>(e, "gpu", "");
            t.key.sm_count = value_or<int>(e, "sm_count", 0);
            t.key.res_class = value_or<std::string>(e, "resolution_class", "");
            if (t.key.gpu.empty() || t.key.sm_count <= 0 || t.key.res_class.empty())
                why = "entry lacks gpu, sm_count or resolution_class";
            else if (!sizes_from_json(e.contains("launch") ? e["launch"] : json(), t.launch, why))
                why = t.key.gpu + " (" + t.key.res_class + "): " + why;
        }
        if (!why.empty()) {
            if (bad++ == 0) first_why = why;
            continue;
        }
        LaunchSizes d;
        std::string ignored;
        if (e.contains("defaults") && sizes_from_json(e["defaults"], d, ignored)) t.defaults = d;
        t.created = value_or<std::string>(e, "created", "");
        t.revision = value_or<std::string>(e, "revision", "");
        t.scene = value_or<std::string>(e, "scene", "");
        t.width = value_or<int>(e, "width", 0);
        t.height = value_or<int>(e, "height", 0);
        t.depth = value_or<int>(e, "depth", 0);
        t.mode = value_or<std::string>(e, "mode", "");
        t.default_ms = value_or<double>(e, "default_ms", 0.0);
        t.tuned_ms = value_or<double>(e, "tuned_ms", 0.0);
        cache.put(t);
    }
    if (bad && warning)
        *warning = path + ": ignoring " + std::to_string(bad) + " malformed tuning entr" +
                   (bad == 1 ? "y" : "ies") + " (" + first_why + ")";
    return cache;
}

const TuningEntry* TuningCache::find(const TuningKey& key) const {
    for (const TuningEntry& e : entries_)
        if (e.key.gpu == key.gpu && e.key.sm_count == key.sm_count && e.key.res_class == key.res_class)
            return &e;
    return nullptr;
}

void TuningCache::put(const TuningEntry& e) {
    for (TuningEntry& old : entries_) {
        if (old.key.gpu == e.key.gpu && old.key.sm_count == e.key.sm_count &&
            old.key.res_class == e.key.res_class) {
            old = e;
            return;
        }
    }
    entries_.push_back(e);
}

std::string TuningCache::to_json() const {
    json doc;
    doc["format"] = "stencilrt-tuning/1";
    doc["entries"] = json::array();
    for (const TuningEntry& e : entries_) {
        json j;
        j["gpu"] = e.key.gpu;
        j["sm_count"] = e.key.sm_count;
        j["resolution_class"] = e.key.res_class;
        j["launch"] = sizes_to_json(e.launch);
        j["defaults"] = sizes_to_json(e.defaults);
        j["created"] = e.created;
        j["revision"] = e.revision;
        j["scene"] = e.scene;
        j["width"] = e.width;
        j["height"] = e.height;
        j["depth"] = e.depth;
        j["mode"] = e.mode;
        j["default_ms"] = e.default_ms;
        j["tuned_ms"] = e.tuned_ms;
        doc["entries"].push_back(j);
    }
    return doc.dump(2) + "\n";
}

void TuningCache::save(const std::string& path) const {
    if (path.empty()) throw std::runtime_error("no tuning cache path: set XDG_CACHE_HOME or HOME");
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error(dir.string() + ": cannot create directory: " + ec.message());
    write_output_file(path, to_json());
}

}  // namespace srt

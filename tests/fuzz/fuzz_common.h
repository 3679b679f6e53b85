// fuzz_common.h - shared by the libFuzzer targets (built by tools/fuzz.sh).
//
// The loaders take paths (they resolve includes, meshes and MTL files relative to
// the file), so each input is written to a file in a private temporary directory.
// InputError is the expected outcome of a bad input; any other exception aborts, so
// libFuzzer records it as a finding alongside crashes, leaks, UB and timeouts.
#pragma once

#include "core/error.h"
#include "scene/scene.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <unistd.h>

namespace srt::fuzz {

// One directory per fuzzing process, removed at exit (libFuzzer forks no workers
// unless asked to, and each would get its own directory anyway).
inline const std::string& work_dir() {
    static const std::string dir = [] {
        char tmpl[] = "/tmp/srt-fuzz-XXXXXX";
        if (!mkdtemp(tmpl)) {
            std::perror("mkdtemp");
            std::abort();
        }
        return std::string(tmpl);
    }();
    return dir;
}

inline void remove_work_dir() {
    // Only the files the targets write; a loader never creates files.
    for (const char* f : {"/in.json", "/in.obj", "/in.mtl", "/in.nff", "/in.ply", "/in.gltf", "/in.glb", "/tri.obj"})
        ::unlink((work_dir() + f).c_str());
    ::rmdir(work_dir().c_str());
}

inline void setup() {
    work_dir();
    std::atexit(remove_work_dir);
    // Loader warnings (unknown keys, ...) would drown libFuzzer's own output; a
    // stream without a buffer drops everything written to it.
    std::cerr.rdbuf(nullptr);
}

inline std::string write_file(const std::string& name, const uint8_t* data, size_t size) {
    const std::string path = work_dir() + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
        std::perror(path.c_str());
        std::abort();
    }
    return path;
}

// Runs `load` and sorts the outcome: loaded (and valid) or InputError are fine.
template <class Load>
void run_loader(Load&& load) {
    Scene s;
    try {
        s = load();
    } catch (const InputError& e) {
        // Expected for malformed input, but it must say which file.
        if (e.file().empty()) {
            std::fprintf(stderr, "InputError without a file name: %s\n", e.what());
            std::abort();
        }
        return;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "unexpected exception (not InputError): %s\n", e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "unexpected non-std exception\n");
        std::abort();
    }
    // A loader must never hand back a scene that breaks the renderers' invariants.
    try {
        validate(s);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "loaded scene fails validation: %s\n", e.what());
        std::abort();
    }
}

}  // namespace srt::fuzz

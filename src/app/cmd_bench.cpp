// cmd_bench.cpp - `stencilrt bench` (issue: the benchmark). Not built yet.
#include "app/app.h"

#include <cstdio>

namespace srt::app {

int cmd_bench(int, char**) {
    std::fprintf(stderr, "stencilrt bench: not built yet\n");
    return 2;
}

}  // namespace srt::app

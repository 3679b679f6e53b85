// cmd_view.cpp - `stencilrt view`: hands over to the viewer when it is built.
#include "app/app.h"

#include <cstdio>

namespace srt::app {

int cmd_view(const SceneOptions&, const FrameOptions&, const CLI::App&,
             const std::vector<std::string>&) {
    std::fprintf(stderr, "stencilrt view: not built yet\n");
    return 2;
}

}  // namespace srt::app

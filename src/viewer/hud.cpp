// hud.cpp - the viewer's heads-up display (Dear ImGui): frame time, rays, live warps
// per bounce, the controls.
#include "viewer/viewer_impl.h"

#include "render/split_executor.h"

#include <algorithm>
#include <filesystem>

namespace srt::viewer::detail {

void Viewer::draw_hud() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();

    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.65f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    // Below about 900x560 the full HUD would cover the image (and lose its last lines):
    // a compact one keeps what changes while flying and the keys.
    const bool compact = rs_.width < 900 || rs_.height < 560;
    // Every line wraps inside the window, so that a small one (320x180) shows all of it.
    const float wrap = std::max(ImGui::GetIO().DisplaySize.x - 24.0f, ImGui::GetFontSize() * 8.0f);
    if (ImGui::Begin("stencilrt", nullptr, flags)) {
        ImGui::PushTextWrapPos(wrap);
        ImGui::TextWrapped("%.1f FPS  (%.2f ms/frame, render+upload %.2f ms)", fps_, frame_ms_, render_ms_);
        if (!compact) {
            ImGui::Text("backend  %s", ex_->name().c_str());
            ImGui::Text("GL       %s", gl_renderer_.c_str());
            ImGui::Text("upload   %s", interop_ ? "CUDA-GL interop (pixel buffer)" : "host memory -> glTexSubImage2D");
        }
        if (!notice_.empty()) {
            ImGui::PushTextWrapPos(std::min(wrap, ImGui::GetFontSize() * (compact ? 24.0f : 36.0f)));
            ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%s", notice_.c_str());
            ImGui::PopTextWrapPos();
        }
        if (const SplitExecutor* split = ex_->split(); split && !compact)  // --devices: each GPU's band
            for (size_t i = 0; i < split->bands().size(); ++i) {
                const SplitExecutor::Band& b = split->bands()[i];
                ImGui::Text("  GPU part %zu: rows %d..%d  %.2f ms (gather %.2f ms)", i, b.y, b.y + b.rows - 1, b.ms,
                            b.gather_ms);
            }
        ImGui::TextWrapped("%dx%d  %s  depth %d  mode %s  spp %d/frame  exposure %+.2f EV%s%s", rs_.width, rs_.height,
                    to_string(rs_.integrator), rs_.depth, to_string(rs_.mode), rs_.spp, double(rs_.exposure),
                    compact ? "" : (vsync_ ? "  vsync on" : "  vsync off"),
                    rs_.kill.active() ? ("  kill " + to_string(rs_.kill)).c_str() : "");
        ImGui::TextWrapped("samples  %d%s", accumulated_,
                    accumulated_ >= options_.max_samples ? "  (max: still)" : "  (accumulating while still)");
        if (overlay_bounce_ >= 0) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.4f, 0.4f, 1.0f));
            ImGui::TextWrapped("overlay: stencil of sample %d after bounce %d%s", probe_sample_, overlay_bounce_,
                               compact ? "" : " (red = dead warp, amber = dead lane)");
            ImGui::PopStyleColor();
        }
        if (compact) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextWrapped("H hide  C camera  V overlay  M mode  I integrator  [ ] depth  - = 0 exposure  , . lens  J K sky");
            ImGui::PopStyleColor();
        } else {
            const Camera& c = camera_.camera();
            ImGui::Text("camera   from %.4g,%.4g,%.4g  at %.4g,%.4g,%.4g  fov %.4g  (C prints it)", c.from.x, c.from.y,
                        c.from.z, c.at.x, c.at.y, c.at.z, c.fov_deg);
            if (c.aperture > 0.0f)
                ImGui::Text("lens     radius %.4g  focus %.4g  (, . radius; click: focus there)", c.aperture, c.focus());
            else
                ImGui::Text("lens     pinhole  (. opens the lens; click: focus there)");
            if (const Environment& e = scene_.environment; e.active())
                ImGui::Text("sky      %s  x%.3g  turned %.4g deg  (J K turn it)",
                            std::filesystem::path(e.file).filename().string().c_str(), double(e.intensity),
                            double(env_rotation_));
            ImGui::Separator();
            for (const StageTime& t : stats_.stage_ms) ImGui::Text("  %-10s %8.3f ms", t.stage.c_str(), t.ms);
            ImGui::Text("  rays       %8.2f M", double(stats_.rays_traced) * 1e-6);

            // Live rays and warps entering each bounce's intersect.
            std::vector<float> rays, warps;
            for (const BounceStats& b : stats_.bounces) {
                rays.push_back(float(b.live_rays));
                warps.push_back(float(b.live_warps));
            }
            const ImVec2 plot(ImGui::GetFontSize() * 18.0f, ImGui::GetFontSize() * 3.0f);
            if (!rays.empty()) {
                char label[64];
                std::snprintf(label, sizeof label, "bounce 0: %.0f", double(rays[0]));
                ImGui::PlotHistogram("live rays", rays.data(), int(rays.size()), 0, label, 0.0f, FLT_MAX, plot);
                std::snprintf(label, sizeof label, "bounce 0: %.0f", double(warps[0]));
                ImGui::PlotHistogram("live warps", warps.data(), int(warps.size()), 0, label, 0.0f, FLT_MAX, plot);
            }
            ImGui::SliderFloat("exposure (EV)", &rs_.exposure, -8.0f, 8.0f, "%+.2f");
            ImGui::TextDisabled("WASD/QE move  RMB look  wheel speed (%.3g)  [ ] depth  M mode  I integrator", camera_.speed());
            ImGui::TextDisabled("- = exposure  0 auto exposure  V stencil overlay  P screenshot  X save EXR  R reset  F vsync");
            ImGui::TextDisabled("C print camera as a render command  H hide HUD  Esc quit");
        }
        ImGui::PopTextWrapPos();
    }
    ImGui::End();

    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    check_gl("drawing the HUD");
}

// The back buffer as an Image: glReadPixels' row 0 is the bottom, the Image's the top.

}  // namespace srt::viewer::detail

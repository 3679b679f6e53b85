// flag_checks.cpp - flag values checked with messages that say the flag, the value and
// what is allowed (flag_checks.h).
#include "app/flag_checks.h"

#include "core/edit_distance.h"
#include "core/error.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace srt::app {

namespace {
std::string listed(const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}
}  // namespace

CLI::Validator whole_number(long long lo, long long hi) {
    const std::string allowed = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, allowed](std::string& in) -> std::string {
            errno = 0;
            char* end = nullptr;
            const long long v = std::strtoll(in.c_str(), &end, 10);
            if (in.empty() || *end != '\0' || errno == ERANGE) return "'" + in + "' is not " + allowed;
            if (v < lo || v > hi) return in + " is out of range; allowed: " + allowed;
            return "";
        },
        "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Validator number_in(double lo, double hi, const std::string& unit) {
    const std::string allowed = short_number(lo) + " to " + short_number(hi) + (unit.empty() ? "" : " (" + unit + ")");
    return CLI::Validator(
        [lo, hi, allowed](std::string& in) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(in.c_str(), &end);
            if (in.empty() || *end != '\0' || !std::isfinite(v)) return "'" + in + "' is not a number; allowed: " + allowed;
            if (v < lo || v > hi) return in + " is out of range; allowed: " + allowed;
            return "";
        },
        "FLOAT in [" + short_number(lo) + " - " + short_number(hi) + "]");
}

CLI::Validator auto_or(CLI::Validator number) {
    return CLI::Validator(
        [number](std::string& in) -> std::string {
            if (in == "auto") return "";
            std::string msg = number(in);
            const size_t at = msg.find("allowed: ");
            if (at != std::string::npos) msg.insert(at + 9, "auto, or ");
            return msg;
        },
        "auto|" + number.get_description());
}

CLI::Validator one_of(const std::vector<std::string>& names) {
    std::string desc;
    for (const std::string& n : names) desc += (desc.empty() ? "" : "|") + n;
    return CLI::Validator(
        [names](std::string& in) -> std::string {
            for (const std::string& n : names)
                if (in == n) return "";
            std::string msg = "'" + in + "' is not allowed; allowed: " + listed(names);
            const std::string near = closest(in, names, std::min<size_t>(2, in.size() / 2));
            if (!near.empty()) msg += " (did you mean `" + near + "`?)";
            return msg;
        },
        desc);
}

void last_flag_wins(CLI::App& app) {
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

}  // namespace srt::app

// suggest.cpp - short parse errors with "did you mean" hints (suggest.h).
#include "app/suggest.h"

#include "core/edit_distance.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace srt::app {
namespace {

// "--sp=4" -> "sp": the name without its dashes or value.
std::string flag_body(const std::string& flag) {
    const size_t start = flag.find_first_not_of('-'), eq = flag.find('=');
    if (start == std::string::npos) return "";
    return flag.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
}

bool starts_with_nocase(const std::string& s, const std::string& prefix) {
    return s.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

// "`a`", "`a` or `b`", "`a`, `b` or `c`" (or "a, b and c").
std::string listed(const std::vector<std::string>& items, const char* quote = "`", const char* last = " or ") {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) s += i + 1 == items.size() ? last : ", ";
        s += quote + items[i] + quote;
    }
    return s;
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : " ") + i;
    return s;
}

// Every name of every option of `cmd`, with its dashes: "--spp", "-W".
std::vector<std::string> known_flags(const CLI::App& cmd) {
    std::vector<std::string> flags;
    for (const CLI::Option* o : cmd.get_options()) {
        for (const std::string& l : o->get_lnames()) flags.push_back("--" + l);
        for (const std::string& s : o->get_snames()) flags.push_back("-" + s);
    }
    return flags;
}

// The flags of `known` that `typed` ("--sp", "-spp", "--sp=4") is likely a typo of: the
// nearest within an edit or two, else those it begins (at most three); none when none is
// close.
std::vector<std::string> flag_suggestions(const std::string& typed, const std::vector<std::string>& known) {
    const std::string body = flag_body(typed);
    if (body.empty()) return {};
    // One-letter names are compared with one-letter names (only their case may differ:
    // -w for -W), longer ones with longer ones, so "--ab" does not become "-b".
    std::vector<std::string> bodies;
    std::vector<const std::string*> flags;
    for (const std::string& k : known) {
        const std::string b = flag_body(k);
        if ((b.size() == 1) != (body.size() == 1)) continue;
        bodies.push_back(b);
        flags.push_back(&k);
    }
    // No edit for one letter (its case aside), one for two or three, two for four or more.
    const std::string near = closest(body, bodies, std::min<size_t>(2, body.size() / 2));
    if (!near.empty()) {
        const size_t i = size_t(std::find(bodies.begin(), bodies.end(), near) - bodies.begin());
        return {*flags[i]};
    }
    // Else the names it begins, when they are few: --tex for --texture-filter.
    std::vector<std::string> begun;
    if (body.size() >= 2)
        for (size_t i = 0; i < bodies.size(); ++i)
            if (starts_with_nocase(bodies[i], body)) begun.push_back(*flags[i]);
    if (begun.size() > 3) begun.clear();
    return begun;
}

}  // namespace

std::string parse_failure(const CLI::App& cmd, const CLI::Error& e, const std::string& path) {
    std::vector<std::string> flags, words;  // what was left over, unparsed
    for (const std::string& a : cmd.remaining()) (a.size() > 1 && a[0] == '-' ? flags : words).push_back(a);
    std::vector<std::string> subcommands;
    for (const CLI::App* s : cmd.get_subcommands([](const CLI::App*) { return true; }))
        subcommands.push_back(s->get_name());
    const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;

    std::string out;
    std::vector<std::string> hints;
    if (!subcommands.empty() && !words.empty()) {
        // A word where the subcommand goes: CLI11 calls it a missing subcommand.
        out += path + ": unknown subcommand '" + words[0] + "'; the subcommands are " + listed(subcommands, "", " and ") + "\n";
        const std::string near = closest(words[0], subcommands, std::min<size_t>(2, words[0].size() / 2));
        if (!near.empty()) hints.push_back("did you mean `" + near + "`?");
    } else if (!flags.empty() && (extras || !subcommands.empty())) {
        out += path + ": unknown option" + (flags.size() > 1 ? "s " : " ") + joined(flags) + "\n";
        if (!words.empty())
            out += path + ": unexpected argument" + (words.size() > 1 ? "s " : " ") + joined(words) + "\n";
        const std::vector<std::string> known = known_flags(cmd);
        for (const std::string& f : flags) {
            const std::vector<std::string> near = flag_suggestions(f, known);
            if (near.empty() || hints.size() == 3) continue;
            hints.push_back((flags.size() > 1 ? f + ": " : std::string()) + "did you mean " + listed(near) + "?");
        }
    } else if (extras && !words.empty()) {
        out += path + ": unexpected argument" + (words.size() > 1 ? "s " : " ") + joined(words) + "\n";
    } else if (!subcommands.empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
        out += path + ": a subcommand is required:\n";
        for (const CLI::App* s : cmd.get_subcommands([](const CLI::App*) { return true; })) {
            std::string name = s->get_name();
            name.resize(std::max<size_t>(name.size(), 7), ' ');
            out += "  " + name + " " + s->get_description() + "\n";
        }
    } else {
        out += path + ": " + e.what() + "\n";
    }
    for (const std::string& h : hints) out += h + "\n";
    out += "run `" + path + " --help` for " + (subcommands.empty() ? "its options" : "the subcommands") + "\n";
    return out;
}

}  // namespace srt::app

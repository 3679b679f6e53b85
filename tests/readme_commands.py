#!/usr/bin/python3
"""The README's commands, run as written from a copy of the repository's layout.

Every `stencilrt ...` line of the README's ```sh blocks (continuation lines joined) runs
with the built binary first on PATH, from a folder where `scenes/`, `assets/` and
`../shared/data` are where the README says, with flags appended that make it small and
CPU-only (a flag given twice takes its last value): it must exit 0 and write the files it
names (and the README stays a front page of at most 250 lines). A line whose comment
says "GPU only" is skipped; so is one that needs
../shared/data where that folder is absent, and the viewer without Xvfb.

usage: readme_commands.py BINARY SOURCE_DIR SHARED_DATA
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SMALL = {
    "render": ["--backend", "cpu", "-W", "32", "-H", "18", "--spp", "1"],
    "bench": ["--backend", "cpu", "-W", "32", "-H", "18", "--depths", "1..2", "--frames", "1", "--warmup", "0",
              "--no-progress"],
    "view": ["--backend", "cpu", "-W", "64", "-H", "36", "--frames", "2"],
}
OUTPUT_FLAGS = {"-o", "--output", "--json", "--csv", "--plot", "--screenshot", "--stats-json"}


def readme_commands(readme):
    """(line number, command) for each stencilrt command of the ```sh blocks."""
    out, in_sh, pending, start = [], False, "", 0
    for n, line in enumerate(open(readme, encoding="utf-8"), 1):
        s = line.rstrip("\n")
        if s.startswith("```"):
            in_sh = s.strip() in ("```sh", "```bash") and not in_sh
            continue
        if not in_sh:
            continue
        if not pending:
            start = n
        if s.endswith("\\"):
            pending += s[:-1] + " "
            continue
        cmd, pending = (pending + s).strip(), ""
        if cmd.startswith("stencilrt "):
            out.append((start, cmd))
    return out


def main():
    binary, source, shared = (os.path.abspath(a) for a in sys.argv[1:4])
    readme = os.path.join(source, "README.md")
    lines = sum(1 for _ in open(readme, encoding="utf-8"))
    if lines > 250:  # a front page; the rest belongs in docs/
        print(f"FAIL: README.md is {lines} lines, over the front page's 250")
        return 1
    commands = readme_commands(readme)
    if len(commands) < 5:
        print(f"FAIL: only {len(commands)} stencilrt commands found in the README")
        return 1
    top = tempfile.mkdtemp(prefix="srt-readme-")
    try:
        repo = os.path.join(top, "repo")
        os.mkdir(repo)
        for d in ("scenes", "assets", "shaders"):
            os.symlink(os.path.join(source, d), os.path.join(repo, d))
        have_shared = os.path.isdir(shared)
        if have_shared:
            os.symlink(os.path.dirname(os.path.abspath(shared)), os.path.join(top, "shared"))
        bindir = os.path.join(top, "bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(binary), os.path.join(bindir, "stencilrt"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        xvfb = shutil.which("xvfb-run")
        fails = ran = 0
        for n, cmd in commands:
            comment = cmd.split("#", 1)[1] if "#" in cmd else ""
            words = shlex.split(cmd, comments=True)
            sub = words[1] if len(words) > 1 else ""
            why_skip = ""
            if "GPU only" in comment:
                why_skip = "GPU only"
            elif "../shared/data" in cmd and not have_shared:
                why_skip = "../shared/data is absent"
            elif sub == "view" and not (os.environ.get("DISPLAY") or xvfb):
                why_skip = "no display and no xvfb-run"
            elif sub == "view" and os.environ.get("ASAN_OPTIONS"):
                # Mesa's GL leaks under LeakSanitizer; the viewer tests run it under the
                # sanitizers with their own set-up (tools/sanitize.sh).
                why_skip = "under the sanitizers"
            if why_skip:
                print(f"skip README.md:{n}: {cmd}  ({why_skip})")
                continue
            argv = words + SMALL.get(sub, [])
            if sub == "view" and not os.environ.get("DISPLAY"):
                argv = [xvfb, "-a", "-s", "-screen 0 640x480x24"] + argv
            outputs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in OUTPUT_FLAGS and words[i + 1] != "-"]
            r = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
            ran += 1
            missing = [o for o in outputs if not os.path.exists(os.path.join(repo, o))]
            if r.returncode != 0 or missing:
                fails += 1
                print(f"FAIL README.md:{n}: {cmd}\n  exit {r.returncode}, missing outputs {missing}\n"
                      f"  stderr: {r.stderr.strip()[-2000:]}")
            else:
                print(f"ok   README.md:{n}: {cmd}")
        print(f"readme commands: {ran} ran, {fails} failed")
        return 1 if fails or ran == 0 else 0
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

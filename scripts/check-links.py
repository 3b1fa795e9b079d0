#!/usr/bin/env python3
"""Checks that every relative link of every Markdown file in the repository resolves.

A link `[text](path#anchor)` (or an image, or a reference definition `[label]: path`) must name a
file or directory that exists, relative to the file it is in, and an anchor must be one of the
target's headings as GitHub names them (or an explicit `<a id="...">`). Links with a scheme
(`https:`, `mailto:`) are not fetched. Code blocks and code spans are not read.

    scripts/check-links.py            # every *.md file git tracks or would track
    scripts/check-links.py FILE...    # only these

Exits 1 and names each broken link (file:line) when one does not resolve; .ci/run calls it.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files():
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def prose_lines(text):
    """The lines outside fenced code blocks, numbered from 1."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and marker:
            fence = marker.group(1)[0] * len(marker.group(1))
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, line


def slug(heading):
    """The anchor GitHub gives a heading: its text without markup, lower case, punctuation other
    than `-` and `_` dropped, spaces turned into `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "")
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found = set()
        seen = {}
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            heading = HEADING.match(line)
            if heading:
                base = slug(heading.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(EXPLICIT_ANCHOR.findall(line))
        anchor_cache[path] = found
    return anchor_cache[path]


def links(path):
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        line = CODE_SPAN.sub("", line)
        definition = DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        for match in INLINE.finditer(line):
            yield number, match.group(1)


def broken(path):
    for number, target in links(path):
        if SCHEME.match(target):
            continue
        name, _, anchor = target.partition("#")
        resolved = (path.parent / name).resolve() if name else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not resolved.exists():
            yield f"{where}: no such file"
        elif ROOT not in resolved.parents and resolved != ROOT:
            yield f"{where}: outside the repository"
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            yield f"{where}: no heading with the anchor #{anchor}"


def main(arguments):
    files = [Path(a).resolve() for a in arguments] or markdown_files()
    problems = [problem for path in files for problem in broken(path)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check-links: {len(files)} files, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

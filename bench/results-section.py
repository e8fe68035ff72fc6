#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/results-section.py RESULTS.md HEADING SECTION_FILE: puts the text of
# SECTION_FILE under the "## HEADING" section of RESULTS.md, replacing what
# that section held up to the next "## " heading, or appends the section
# when there is none. The bench scripts each write their own section.
import sys

path, heading, section_file = sys.argv[1:4]
sec = open(section_file).read()
text = open(path).read()
head = "## " + heading
i = text.find(head)
if i < 0:
    text = text.rstrip("\n") + "\n\n" + head + "\n\n" + sec
else:
    j = text.find("\n## ", i + len(head))
    rest = text[j:] if j >= 0 else "\n"
    text = text[:i] + head + "\n\n" + sec + rest
open(path, "w").write(text)

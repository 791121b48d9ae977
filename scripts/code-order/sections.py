#!/usr/bin/env python3
"""The code sections of a link, for scripts/order-code.

    sections.py breakpoints MAP BINARY   # "ADDRESS SECTION" for the start of every code section and every function
    sections.py order MAP CALLED SCRIPT SYMBOLS   # lay CALLED's sections out first, in that order

MAP is lld's -Map output for BINARY. A section is named as a linker script names it: the object's folder and file
(or the archive and its member) with a wildcard before them, then the section, so the names hold on any machine.
A function with a symbol and one without (Swift's `.L__unnamed_N` helpers) are named alike: by the section that
holds them.

`order` writes two files for lld. SYMBOLS, a symbol ordering file, names the function of each section that holds
one (`.text.NAME`), in order: lld places those first in .text. SCRIPT, a linker script, takes the rest into an
output section of their own just before: the sections no symbol ordering file can reach (unnamed helpers, and
objects built without function sections, whose functions share one `.text`), and those whose name more than
one object uses (a file-private function, or one merged from several), which a symbol would bring in every
copy of. A script alone could order every
section, but lld matches each of its lines against each of 300,000 sections: a link took 88 s instead of 10.
"""
import bisect
import re
import subprocess
import sys

INPUT = re.compile(r'^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s{9}(\S.*):\((\S+)\)$')
OUTPUT = re.compile(r'^\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+ (\S+)$')


def pattern(path):
    """`*/Module.build/File.o`, or `*/libX.a:Member.o` for an archive's member."""
    member = re.match(r'^(.*)\((.*)\)$', path)
    if member:
        return '*/%s:%s' % (member.group(1).rsplit('/', 1)[-1], member.group(2))
    return '*/' + '/'.join(path.rsplit('/', 2)[-2:])


def code_sections(map_path):
    """(start, size, name) of every input section of the output section .text, by address."""
    sections, inside = [], False
    for line in open(map_path):
        output = OUTPUT.match(line)
        if output:
            inside = output.group(1) in ('.text', '.text.session')
            continue
        found = INPUT.match(line) if inside else None
        if found and found.group(4).startswith('.text'):
            sections.append((int(found.group(1), 16), int(found.group(2), 16), '%s(%s)' % (pattern(found.group(3)), found.group(4))))
    sections.sort()
    return sections


def breakpoints(map_path, binary):
    sections = code_sections(map_path)
    starts = [start for start, _, _ in sections]
    for start, size, name in sections:
        if size:
            print('%x %s' % (start, name))
    symbols = subprocess.run(['nm', '--defined-only', binary], capture_output=True, text=True, check=True).stdout
    for line in symbols.splitlines():
        parts = line.split(' ', 2)
        if len(parts) != 3 or parts[1] not in 'TtWw':
            continue
        address = int(parts[0], 16)
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < starts[index] + sections[index][1]:
            print('%x %s' % (address, sections[index][2]))


def order(map_path, called_path, script_path, symbols_path):
    called = dict.fromkeys(line.strip() for line in open(called_path) if line.strip())
    uses = {}
    for _, _, name in code_sections(map_path):
        section = name[name.index('(') + 1:-1]
        uses[section] = uses.get(section, 0) + 1
    with open(script_path, 'w') as script, open(symbols_path, 'w') as symbols:
        script.write('/* Written by scripts/order-code: the code a session runs that has no function of its own to name,\n'
                     ' * in the order it first runs it; session.order names the rest. docs/BENCHMARKS.md, "The code-order files". */\n')
        script.write('SECTIONS {\n  .text.session : {\n')
        for name in called:
            section = name[name.index('(') + 1:-1]
            function = re.sub(r'^\.text\.(unlikely\.|hot\.|startup\.|exit\.)?', '', section)
            if function and function != section and not function.startswith('.L') and uses.get(section, 0) == 1:
                symbols.write(function + '\n')
            else:
                script.write('    %s\n' % name)
        script.write('  }\n} INSERT BEFORE .text;\n')


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'breakpoints':
        breakpoints(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'order':
        order(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)

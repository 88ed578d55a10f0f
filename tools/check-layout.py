#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layout rules of doc/architecture.md, checked on the source tree (tests/e2e/t-layout.sh).

  - every source file under harness/ and workloads/ has its row in the rooms table, and every
    file the table names exists (`name.[ch]` is name.c and name.h; a `*` in a name is a glob);
  - no .c or .h file outside tests/ over 1,000 lines; no function over 80 lines unless its
    comment says why ("Long because ...");
  - no circle between files (an include, or a call of a function only one other file defines,
    is an arrow), no room (harness/<room>/, workloads/) that includes a room that includes it back;
  - every exported tb_<word>_ prefix is declared in the headers of one room only;
  - stats/ and model/ name no tracer type.

Usage: check-layout.py [ROOT]. Prints each violation and exits 1 if there is one.
"""
import fnmatch
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
MAX_LINES, MAX_FN = 1000, 80
bad = []


def say(msg):
    bad.append(msg)


def sources(top):
    out = []
    for d, dirs, files in os.walk(os.path.join(ROOT, top)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return out


def room_of(path):
    parts = path.split('/')
    return parts[0] if parts[0] != 'harness' else 'harness/' + parts[1]


def rooms_table():
    """{path: line} of every file the rooms table names, with globs kept as patterns."""
    text = open(os.path.join(ROOT, 'doc/architecture.md')).read().split('\n')
    try:
        start = text.index('## The rooms')
    except ValueError:
        say('doc/architecture.md: no "## The rooms" section')
        return {}, []
    named, globs = {}, []
    for n, line in enumerate(text[start + 1:], start + 2):
        if line.startswith('## '):
            break
        m = re.match(r'\|\s*`([^`]+/)`\s*\|(.*)\|\s*$', line)
        if not m:
            continue
        folder, rest = m.group(1), m.group(2)
        for name in re.findall(r'`([^`]+)`', rest):
            if not re.search(r'\.(\[ch\]|c|h)$', name) or ' ' in name or '<' in name:
                continue
            for ext in (('.c', '.h') if name.endswith('.[ch]') else ('',)):
                p = folder + (name[:-5] + ext if ext else name)
                if '*' in p:
                    globs.append((p, n))
                else:
                    named[p] = n
    return named, globs


def check_table(files):
    named, globs = rooms_table()
    for f in files:
        if f not in named and not any(fnmatch.fnmatch(f, g) for g, _ in globs):
            say('%s: no row in doc/architecture.md\'s rooms table' % f)
    for p, n in sorted(named.items()):
        if not os.path.exists(os.path.join(ROOT, p)):
            say('doc/architecture.md:%d: names %s, which does not exist' % (n, p))
    for g, n in globs:
        if not any(fnmatch.fnmatch(f, g) for f in files):
            say('doc/architecture.md:%d: %s matches no file' % (n, g))


def check_sizes(files):
    for f in files:
        lines = open(os.path.join(ROOT, f), encoding='latin-1').read().split('\n')
        if len(lines) - 1 > MAX_LINES:
            say('%s: %d lines (at most %d)' % (f, len(lines) - 1, MAX_LINES))
        if not f.endswith('.c'):
            continue
        i = 0
        while i < len(lines):
            if lines[i] == '{' and i > 0:
                j = i - 1
                while j > 0 and lines[j - 1].strip() and not lines[j - 1].startswith(('}', '#')) \
                        and not lines[j - 1].rstrip().endswith((';', '*/')):
                    j -= 1
                k = i + 1
                while k < len(lines) and lines[k] != '}':
                    k += 1
                head = ' '.join(lines[j:i])
                m = re.search(r'(\w+)\s*\(', head)
                c = j - 1
                while c >= 0 and (lines[c].startswith(('/*', ' *')) or lines[c].endswith('*/')):
                    c -= 1
                comment = ' '.join(lines[c + 1:j])
                if m and '=' not in head.split('(')[0] and k - i - 1 > MAX_FN and \
                        'Long because' not in comment:
                    say('%s:%d: %s() has %d lines (at most %d, or a comment saying "Long because")'
                        % (f, j + 1, m.group(1), k - i - 1, MAX_FN))
                i = k
            i += 1


def includes(files):
    """{file: set of files it includes}, resolved as the Makefile's -Iharness -I. do."""
    inc = {}
    for f in files:
        out = set()
        for m in re.finditer(r'^#include "([^"]+)"', open(os.path.join(ROOT, f), encoding='latin-1').read(), re.M):
            for cand in (os.path.join(os.path.dirname(f), m.group(1)), 'harness/' + m.group(1), m.group(1)):
                if os.path.exists(os.path.join(ROOT, cand)):
                    out.add(os.path.normpath(cand))
                    break
        inc[f] = out
    return inc


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def defined_and_called(files):
    """{file: names of the non-static functions it defines}, {file: names it calls}."""
    defs, calls = {}, {}
    for f in files:
        if not f.endswith('.c'):
            continue
        text = open(os.path.join(ROOT, f), encoding='latin-1').read()
        code = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', ' ', text, flags=re.S)
        defs[f] = {m.group(1) for m in re.finditer(r'^(?!static\b)[a-zA-Z_][^;{}()=]*?\b(\w+)\([^;{]*\)\s*\n\{', code, re.M)}
        calls[f] = set(re.findall(r'\b([a-z_]\w*)\s*\(', code))
    return defs, calls


def _unused_declared(f):
    """Names of the functions header f declares."""
    txt = re.sub(r'/\*.*?\*/', '', open(os.path.join(ROOT, f), encoding='latin-1').read(), flags=re.S)
    txt = re.sub(r'static[^;{]*\{.*?\n\}', '', txt, flags=re.S)
    return set(re.findall(r'\b(tb_\w+)\s*\([^;{]*\)\s*;', txt))


def check_includes(files):
    """
    Circles between files, with a .c and its header as one unit. An arrow is a call of a
    function that one other file alone defines, or an include of a header that has no .c of
    its own (tb.h, a room's internal header): an include of a .c's header is an arrow through
    the calls it serves, not by itself, so a file that includes a header only for its types and
    constants ties nothing.
    """
    inc = includes(files)
    defs, calls = defined_and_called(files)
    owner = {}
    for f, names in defs.items():
        for n in names:
            owner.setdefault(n, set()).add(f)
    unit = lambda p: re.sub(r'\.[ch]$', '', p)  # a .c with its .h is one unit
    g, rg = {}, {}
    for f, targets in inc.items():
        for t in targets:
            if unit(t) != unit(f) and not os.path.exists(os.path.join(ROOT, unit(t) + '.c')):
                g.setdefault(unit(f), set()).add(unit(t))
            if room_of(t) != room_of(f):
                rg.setdefault(room_of(f), set()).add(room_of(t))
    for f, names in calls.items():
        for n in names - defs.get(f, set()):
            o = owner.get(n, set())
            if len(o) == 1 and unit(next(iter(o))) != unit(f):
                g.setdefault(unit(f), set()).add(unit(next(iter(o))))
    for c in cycles(g):
        say('circle between files (includes and calls): %s' % ' <-> '.join(c))
    for c in cycles(rg):
        say('rooms that include each other: %s' % ' <-> '.join(c))


def check_prefixes(files):
    owners = {}
    for f in files:
        if not f.endswith('.h') or f.endswith('.bpf.h'):
            continue
        txt = re.sub(r'/\*.*?\*/', '', open(os.path.join(ROOT, f), encoding='latin-1').read(), flags=re.S)
        txt = re.sub(r'static[^;{]*\{.*?\n\}', '', txt, flags=re.S)
        names = re.findall(r'\b(tb_[a-z0-9]+)_\w*\s*\(', txt)
        names += re.findall(r'\b(?:struct|enum|union)\s+(tb_[a-z0-9]+)(?:_\w*)?\s*\{', txt)
        for p in names:
            owners.setdefault(p, {}).setdefault(room_of(f), f)
    for p, rooms in sorted(owners.items()):
        if len(rooms) > 1:
            say('prefix %s_ is declared in %d rooms: %s' % (p, len(rooms), ', '.join(sorted(rooms.values()))))


def check_plugin_names(files):
    pat = re.compile(r'"ftrace|"bpf"|"perf-')
    for f in files:
        if room_of(f) not in ('harness/stats', 'harness/model'):
            continue
        for n, line in enumerate(open(os.path.join(ROOT, f), encoding='latin-1'), 1):
            if pat.search(line):
                say('%s:%d: names a tracer type (a tracer callback says it): %s' % (f, n, line.strip()))


def main():
    engine = sources('harness') + sources('workloads')
    check_table(engine)
    check_sizes(engine + sources('tools'))
    check_includes(engine)
    check_prefixes(engine)
    check_plugin_names(engine)
    for b in bad:
        print(b)
    print('layout: %d source files, %d problems' % (len(engine), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

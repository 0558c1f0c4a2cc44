#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""usage: include_graph.py [--list] [--layers] [FILE...]

The include graph of lib/: which file of lib/ uses which, through the
private headers each file includes. Fails (exit 1) on a circle, or on an
include that is not what the file uses.

The graph. Its nodes are the files of lib/ (lib/*.c and lib/*.h; with no
FILE argument, those of this checkout). An arrow F -> G means that F uses
code or a definition that lives in G:

  * G is a .c file and F names a function or variable that G defines with
    external linkage (a private rcupl_* one, which F reaches through the
    header that declares it, or a public rcupool_* one called from inside
    lib/);
  * G is a header and F names a macro, an inline function, a type or an
    enumerator that G defines.

A header's prototypes and extern declarations are its .c file's: naming
rcupl_reclaim_drain() is an arrow to the .c file that defines it, not to
reclaim.h. So a private header stands for its .c file, and a header that
defines inline code or types is a node of its own. Public headers
(include/rcupool/) are not nodes.

The include rule, which makes the #include lines of lib/ this graph:
every private header a file of lib/ includes declares or defines a name
the file uses (no include for nothing), and every private name a file
uses is declared or defined by a header it includes itself (no name
reached through another header's include). With the rule, a file's
includes are its arrows, grouped by header.

The header rule, one header per unit: a private header x.h (or
x_internal.h) is the interface of x.c alone and declares only functions
and variables that x.c defines (a "misplaced declaration" otherwise). A
header with no .c of its own declares none of lib/'s functions and says
"header only" in its opening comment (shared types, inline code);
testing.h, the private test hooks of every unit, is the one exception.
A unit is a .c file with its headers, or a header-only header. The
units' graph merges each unit's files and their arrows; with the header
rule its circles are circles of calls between .c files, which the file
graph alone cannot see (x.c calls y.c through x.h's declaration). It
wants none either.

A circle is a set of two or more files that reach each other by arrows (a
strongly connected component). The check wants none: the files of lib/
then have an order in which every arrow points to a file before its
source. It prints the number of arrows and of back arrows: the arrows
that close a circle in a depth-first walk (files and arrows in name
order); there are none when there is no circle.

  --list    print every arrow, "F -> G  (names)", before the summary
  --layers  print only the files bottom up (docs/layout.md's table of
            lib/'s layers): layer 0 uses no other file, a file of layer i
            only files of layers below i (a header of prototypes only
            stands for its .c file and is left out)
  -h, --help  this text

Exit status: 0 with no circle (of files or of units), back arrow,
misplaced declaration or include fault, 1 otherwise, 2 on a bad argument.
"""

import os
import re
import sys

from c_source import strip_comments_and_strings

IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
KEYWORDS = {
    "static", "inline", "extern", "const", "volatile", "struct", "union",
    "enum", "typedef", "unsigned", "signed", "void", "int", "char", "long",
    "short", "bool", "size_t", "uint64_t", "uint32_t", "_Noreturn",
    "_Alignas", "_Static_assert", "__thread", "__attribute__", "__asm__",
    "return", "if", "else", "while", "for", "do", "sizeof",
}


def split_preprocessor(text):
    """(the text without preprocessor lines, the (name, body) of each
    #define)."""
    body, macros = [], []
    lines = text.split("\n")
    i = 0
    cplusplus = False  # inside #ifdef __cplusplus (extern "C" braces)
    while i < len(lines):
        line = lines[i]
        if re.match(r"\s*#\s*ifdef\s+__cplusplus\b", line):
            cplusplus = True
        elif cplusplus and re.match(r"\s*#\s*endif\b", line):
            cplusplus = False
        if cplusplus:
            body.append("")
        elif line.lstrip().startswith("#"):
            full = line
            while full.endswith("\\") and i + 1 < len(lines):
                i += 1
                full = full[:-1] + " " + lines[i]
            m = re.match(r"\s*#\s*define\s+(\w+)(.*)", full)
            if m:
                macros.append((m.group(1), m.group(2)))
            body.append("")
        else:
            body.append(line)
        i += 1
    return "\n".join(body), macros


def top_level_chunks(body):
    """Each top-level declaration of a file: (its text before any brace
    block, its first brace block or None, the text after that block up to
    the ';' that ends the declaration)."""
    chunks = []
    head, block, tail = [], None, []
    depth = 0
    i = 0
    while i < len(body):
        c = body[i]
        if depth == 0:
            if c == "{":
                if block is None:
                    start = i
                depth = 1
            elif c == ";":
                chunks.append(("".join(head), block, "".join(tail)))
                head, block, tail = [], None, []
            elif c == "}":
                pass
            elif block is None:
                head.append(c)
            else:
                tail.append(c)
        else:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    inner = body[start + 1:i]
                    after = body[i + 1:].lstrip()
                    if block is None:
                        block = inner
                    # A function definition ends at its brace.
                    h = "".join(head)
                    if (re.search(r"\)\s*(__attribute__\s*\(\(.*\)\)\s*)?$",
                                  h.strip(), re.S)
                            and not h.lstrip().startswith("typedef")
                            and not after.startswith((";", ",", ")"))):
                        chunks.append((h, block, ""))
                        head, block, tail = [], None, []
        i += 1
    return chunks


def function_name(head):
    """The name a function definition or prototype declares, or None."""
    # Drop attribute lists, then take the identifier before the first
    # top-level "(" of the declarator.
    h = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", head)
    m = re.search(r"(\w+)\s*\(", h)
    if not m or m.group(1) in KEYWORDS:
        return None
    return m.group(1)


def definitions(path, text):
    """(names this file defines for others, names it declares only, names
    it uses). Uses are the names in its code: function bodies, macro
    bodies, initialisers, types of definitions; a prototype or an extern
    declaration uses nothing."""
    body, macros = split_preprocessor(strip_comments_and_strings(text))
    is_header = path.endswith(".h")
    defined, declared, used = set(), set(), set()
    protos = set()  # functions and variables declared, not defined
    for name, mbody in macros:
        used.update(IDENT.findall(mbody))
        if is_header and not re.match(r"RCUPOOL_LIB_\w+_H$", name):
            defined.add(name)
    for head, block, tail in top_level_chunks(body):
        h = head.strip()
        words = IDENT.findall(h)
        if not words:
            continue
        if (block is None and not tail.strip()
                and re.fullmatch(r"(struct|union|enum)\s+\w+", h)):
            declared.add(words[-1])  # a forward declaration
            continue
        is_decl = ("extern" in words or (block is None and "(" in h
                   and not re.search(r"__asm__\s*\(|=", h)
                   and words[0] != "typedef"))
        if not is_decl:
            used.update(IDENT.findall(head + (block or "") + tail))
        static = "static" in words
        if words[0] == "_Static_assert":
            continue
        if words[0] == "typedef":
            name = re.search(r"\(\s*\*\s*(\w+)\s*\)", h + tail)
            names = IDENT.findall(tail) if block is not None else words
            defined.add(name.group(1) if name else names[-1])
            if block is not None:
                m = re.search(r"\b(?:struct|union|enum)\s+(\w+)\s*$", h)
                if m:
                    defined.add(m.group(1))
            continue
        tag = re.match(r"(?:\w+\s+)*?(struct|union|enum)\s*(\w*)\s*$", h)
        if tag and block is not None:
            if is_header or not static:
                if tag.group(2):
                    defined.add(tag.group(2))
                if tag.group(1) == "enum":
                    defined.update(re.findall(r"(?:^|,)\s*(\w+)", block))
            if tail.strip() and not static:
                defined.update(n for n in IDENT.findall(tail) if n not in KEYWORDS)
            continue
        if block is not None and "(" in h:  # a function definition
            name = function_name(h)
            if name and (is_header or not static):
                defined.add(name)
            continue
        if block is not None:  # a variable of a struct type with a body
            continue
        if "extern" in words:
            for n in re.findall(r"(\w+)\s*(?:\[[^]]*\])?\s*(?:__asm__|__attribute__|$)", h):
                if n not in KEYWORDS:
                    declared.add(n)
                    protos.add(n)
            continue
        if "(" in h and not re.search(r"__asm__\s*\(", h) and not re.search(r"=", h):
            name = function_name(h)  # a prototype
            if name:
                declared.add(name)
                protos.add(name)
            continue
        if static and not is_header:
            continue
        # A variable definition: the name before "=", "[" or "__asm__".
        decl = re.split(r"=|\[|__asm__|__attribute__", h, maxsplit=1)[0]
        names = [n for n in IDENT.findall(decl) if n not in KEYWORDS]
        if names:
            defined.add(names[-1])
    return defined, declared, used - defined, protos


SHARED_HOOKS = "testing.h"


def opening(text):
    """The first comment of a file (its description)."""
    m = re.search(r"/\*.*?\*/\s*/\*(.*?)\*/", text, re.S)
    return m.group(1) if m else ""


def layering(nodes, arrows):
    """The units bottom up: layer 0 calls no other unit, and every unit
    of layer i calls only units of layers below i (its longest path down).
    Units of a circle are left out."""
    depth = {}

    def down(u, seen):
        if u in depth:
            return depth[u]
        if u in seen:
            return None
        seen.add(u)
        ds = [down(g, seen) for g in arrows[u]]
        seen.discard(u)
        if any(d is None for d in ds):
            return None
        depth[u] = 1 + max(ds, default=-1)
        return depth[u]

    for u in nodes:
        down(u, set())
    out = []
    for u in sorted(nodes):
        if depth.get(u) is not None:
            while len(out) <= depth[u]:
                out.append([])
            out[depth[u]].append(u)
    return out


def circles(nodes, arrows):
    """The strongly connected components of two or more nodes (Tarjan),
    in name order."""
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(arrows[v]):
            if w not in index:
                strong(w)
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
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return sccs


def back_arrows(nodes, arrows):
    """The arrows that close a circle in a depth-first walk in name
    order."""
    state, back = {}, []

    def walk(v):
        state[v] = 1
        for w in sorted(arrows[v]):
            if state.get(w) == 1:
                back.append((v, w))
            elif w not in state:
                walk(w)
        state[v] = 2

    for v in nodes:
        if v not in state:
            walk(v)
    return back


def layer_lines(layers, width=76):
    """The layers as docs/layout.md's table: "layer N  files", wrapped at
    `width` columns under the first file."""
    lines = []
    for i, layer in enumerate(layers):
        head = f"layer {i:<2}  "
        line = head
        for f in layer:
            if len(line) + len(f) > width and line.strip() != head.strip():
                lines.append(line.rstrip())
                line = " " * len(head)
            line += f + " "
        lines.append(line.rstrip())
    return lines


def members(text):
    """{struct tag: its member names} of the structs a file defines."""
    body, _ = split_preprocessor(strip_comments_and_strings(text))
    structs = {}
    for head, block, _ in top_level_chunks(body):
        tag = re.search(r"\bstruct\s+(\w+)\s*$", head.strip())
        if block is not None and tag and "(" not in head:
            names = structs.setdefault(tag.group(1), set())
            inner = re.sub(r"\{[^{}]*\}", ";", block)
            for decl in inner.split(";"):
                decl = re.sub(r"\([^()]*\)", " ", decl)
                ids = [n for n in IDENT.findall(decl) if n not in KEYWORDS]
                if ids:
                    names.add(ids[-1])
    return structs


def print_circles(what, comps, arrows, sort_names=False):
    """Prints each circle, then the arrows between its members."""
    for comp in comps:
        print(f"{what}: {' '.join(comp)}")
        for f in comp:
            for g in sorted(arrows[f]):
                if g in comp:
                    names = arrows[f][g]
                    print(f"  {f} -> {g}  "
                          f"({', '.join(sorted(names) if sort_names else names)})")


def main(argv):
    listing = False
    layers = False
    files = []
    for arg in argv:
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if arg == "--list":
            listing = True
        elif arg == "--layers":
            layers = True
        elif arg.startswith("-"):
            print(f"include_graph.py: unknown option {arg} "
                  "(see tools/include_graph.py --help)", file=sys.stderr)
            return 2
        elif arg.endswith((".c", ".h")):
            files.append(arg)
        else:
            print(f"include_graph.py: not a .c or .h file: {arg} "
                  "(see tools/include_graph.py --help)", file=sys.stderr)
            return 2
    if not files:
        lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")
        files = sorted(os.path.join(lib, f) for f in os.listdir(lib)
                       if f.endswith((".c", ".h")))
    by_name = {}
    for f in files:
        by_name[os.path.basename(f)] = f
    text = {os.path.basename(f): open(f, encoding="utf-8").read() for f in files}
    files_ = sorted(text)

    definer = {}   # name -> files that define it
    decl_in = {}   # name -> headers that declare or define it
    member_of = {} # header -> struct member names
    fields = {}    # struct tag -> member names
    uses = {}
    protos = {}    # file -> the functions and variables it declares
    for f in files_:
        defined, declared, uses[f], protos[f] = definitions(f, text[f])
        for n in defined:
            definer.setdefault(n, set()).add(f)
        structs = members(text[f])
        fields.update(structs)
        if f.endswith(".h"):
            for n in defined | declared:
                decl_in.setdefault(n, set()).add(f)
            member_of[f] = set().union(*structs.values()) if structs else set()

    nodes = files_
    arrows = {v: {} for v in nodes}
    faults = []
    for f in files_:
        used = uses[f]
        body, _ = split_preprocessor(strip_comments_and_strings(text[f]))
        accessed = set(re.findall(r"(?:->|\.)\s*(\w+)", body))
        for n in sorted(used):
            # A struct named only through pointers, none of whose members
            # the file reaches, needs no definition.
            if (re.search(r"\bstruct\s+%s\b" % n, body) and
                    not fields.get(n, set()) & accessed and
                    len(re.findall(r"\b%s\b" % n, body)) ==
                    len(re.findall(r"\bstruct\s+%s\s*\*" % n, body)) +
                    len(re.findall(r"\bstruct\s+%s\s*;" % n, body))):
                continue
            for g in definer.get(n, ()):
                if g != f:
                    arrows[f].setdefault(g, []).append(n)
        # The include rule.
        words = set(IDENT.findall(body))
        includes = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text[f], re.M)
        private = [i for i in includes if i in text]
        for h in private:
            names = {n for n, hs in decl_in.items() if h in hs}
            uses_member = bool(member_of.get(h, set()) & accessed)
            if not (names & words) and not uses_member:
                faults.append(f"{f} includes {h} but uses nothing it declares")
        for n in sorted(used):
            hs = decl_in.get(n)
            if not hs or f in hs or not n.startswith(("rcupl_", "RCUPL_")):
                continue
            if not set(private) & hs:
                faults.append(f"{f} uses {n} without including "
                              f"{' or '.join(sorted(hs))}")

    # Units: a .c file with the private headers that are its interface
    # (x.h or x_internal.h for x.c); a header with no .c of its own is a
    # unit alone ("header only" in its opening comment), and so is
    # testing.h, the test hooks of every unit.
    stems = {f[:-2] for f in files_ if f.endswith(".c")}

    def owner(h):
        stem = h[:-2]
        for s in (stem, stem[:-len("_internal")] if stem.endswith("_internal")
                  else None):
            if s and s in stems:
                return s + ".c"
        return None

    unit_of = {}
    for f in files_:
        if f.endswith(".c"):
            unit_of[f] = f[:-2]
        else:
            o = owner(f) if f != SHARED_HOOKS else None
            unit_of[f] = o[:-2] if o else f

    # The one-header-per-unit rule: a private header declares only what
    # its own .c file defines.
    misplaced = []
    for h in files_:
        if not h.endswith(".h") or h == SHARED_HOOKS:
            continue
        o = owner(h)
        if o is None and not re.search(r"header only", opening(text[h]), re.I):
            misplaced.append(f"{h} is no .c file's header and does not say "
                             f"it is header only")
        for n in sorted(protos[h]):
            where = sorted(g for g in definer.get(n, ()) if g.endswith(".c"))
            if where and o not in where:
                whose = f"{o}'s header" if o else "header only"
                misplaced.append(f"{h} ({whose}) declares {n}, defined in "
                                 f"{' '.join(where)}")

    nodes = sorted(set(unit_of.values()))
    unit_arrows = {u: {} for u in nodes}
    for f in files_:
        for g, names in arrows[f].items():
            if unit_of[f] != unit_of[g]:
                unit_arrows[unit_of[f]].setdefault(unit_of[g], []).extend(
                    n for n in names
                    if n not in unit_arrows[unit_of[f]].get(unit_of[g], []))
    units, unit_arrows = nodes, unit_arrows
    nodes = files_
    sccs, back = circles(nodes, arrows), back_arrows(nodes, arrows)
    unit_sccs = circles(units, unit_arrows)

    total = sum(len(a) for a in arrows.values())
    if listing:
        for f in nodes:
            for g in sorted(arrows[f]):
                print(f"{f} -> {g}  ({', '.join(arrows[f][g])})")
    if layers:
        # A header of prototypes only stands for its .c file: left out.
        defines = {g for gs in definer.values() for g in gs}
        shown = [f for f in nodes if f.endswith(".c") or f in defines]
        for line in layer_lines([[f for f in layer if f in shown]
                                 for layer in layering(nodes, arrows)]):
            print(line)
        return 0 if not (sccs or back or misplaced or faults or unit_sccs) else 1
    print_circles("circle", sccs, arrows)
    for v, w in back:
        print(f"back arrow: {v} -> {w}")
    print_circles("unit circle", unit_sccs, unit_arrows, sort_names=True)
    for m in misplaced:
        print(f"misplaced: {m}")
    for fault in faults:
        print(f"include: {fault}")
    print(f"include_graph.py: {len(nodes)} files, {total} arrows, "
          f"{len(back)} back arrows, {len(sccs)} circles, "
          f"{len(misplaced)} misplaced declarations, "
          f"{len(faults)} include faults; {len(units)} units, "
          f"{len(unit_sccs)} unit circles")
    return 1 if sccs or back or misplaced or faults or unit_sccs else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The CoToan GDL description (gdl/cotoan.kif): its generated facts, a KIF
reader, and a translator of the GDL subset it uses into clingo's language.

    python3 tools/cotoan_gdl.py --write    # regenerate the facts section
    python3 tools/cotoan_gdl.py --check    # fail if the section is stale
    python3 tools/cotoan_gdl.py --asp      # print the translated program

The rules above the marker line are written by hand; everything below it is
generated here (geometry, counting, arithmetic), so the description uses
finite relations only and no engine arithmetic.

Translation (docs/COTOAN.md section 8): `(<= head body...)` becomes
`head :- body.`, `?x` a variable, `(not l)` negation as failure and
`(distinct a b)` `a != b`. To evaluate many positions and every move of each
in one clingo call, every relation that depends on `true` gains a leading
position argument P, and every relation that depends on `does` gains P and a
world argument W (the move being tried): `true(P, F)`, `does(P, W, R, M)`,
`legal(P, R, M)`, `next(P, W, F)`. Static relations are left alone.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GDL_PATH = ROOT / "gdl" / "cotoan.kif"
MARKER = ";;; ---- generated facts: `python3 tools/cotoan_gdl.py --write` rewrites everything below ----"

COLS, ROWS = 9, 11
MAX_HORIZON = 1000  # cotoan/src/settings.rs MAX_HORIZON
MAX_SCORE = 45
OPERATORS = ["add", "sub", "mul", "div", "mod"]
DIRECTIONS = {  # name: (column delta, row delta); north is towards rank 11
    "n": ("same", "inc"),
    "ne": ("inc", "inc"),
    "e": ("inc", "same"),
    "se": ("inc", "dec"),
    "s": ("same", "dec"),
    "sw": ("dec", "dec"),
    "w": ("dec", "same"),
    "nw": ("dec", "inc"),
}


def apply_operator(op, a, b):
    """The engine's arithmetic (settings.rs Operator::apply); None for /0 and mod 0."""
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if b == 0:
        return None
    return a // b if op == "div" else a % b


def generated_facts():
    """The facts section: every finite relation the rules need."""
    out = [MARKER, ""]

    def block(title, facts, per_line=6):
        out.append(f";; {title}")
        for i in range(0, len(facts), per_line):
            out.append(" ".join(facts[i : i + per_line]))
        out.append("")

    block("(square ?s ?col ?row)", [f"(square s{r * COLS + c} {c} {r})" for r in range(ROWS) for c in range(COLS)])
    block("(direction ?d ?col_delta ?row_delta)", [f"(direction {d} {dc} {dr})" for d, (dc, dr) in DIRECTIONS.items()], 4)
    coord = []
    for x in range(max(COLS, ROWS)):
        coord.append(f"(coord_add {x} same {x})")
        if x + 1 < max(COLS, ROWS):
            coord.append(f"(coord_add {x} inc {x + 1})")
        if x > 0:
            coord.append(f"(coord_add {x} dec {x - 1})")
    block("(coord_add ?x ?delta ?y): coordinates 0-10 moved by one step", coord)
    block("(value ?v) and (nonzero ?v)", [f"(value {v})" for v in range(10)] + [f"(nonzero {v})" for v in range(1, 10)], 10)
    block(f"(number ?n): the small numbers 0-{MAX_SCORE} the order leq is defined on", [f"(number {n})" for n in range(MAX_SCORE + 1)], 12)
    block(f"(succ ?n ?n+1) for 0-{MAX_HORIZON}: ply counting, distances, values", [f"(succ {n} {n + 1})" for n in range(MAX_HORIZON)], 10)
    block(
        f"(plus ?a ?b ?a+b) for score sums up to {MAX_SCORE}",
        [f"(plus {a} {b} {a + b})" for a in range(MAX_SCORE + 1) for b in range(1, 10) if a + b <= MAX_SCORE],
        8,
    )
    results = []
    for op in OPERATORS:
        for a in range(1, 10):
            for b in range(10):
                r = apply_operator(op, a, b)
                if r is not None and r > 0:
                    results.append(f"(result {op} {a} {b} {r})")
    block("(result ?op ?attacker ?support ?r): positive results only; floored division; /0 and mod 0 give none", results)
    return "\n".join(out).rstrip() + "\n"


def split_gdl(text):
    head, sep, _ = text.partition(MARKER)
    if not sep:
        raise SystemExit(f"error: {GDL_PATH} has no generated-facts marker line")
    return head


def write_gdl():
    text = GDL_PATH.read_text()
    GDL_PATH.write_text(split_gdl(text) + generated_facts())


def check_gdl(text):
    """An error message if the generated section differs from what this script writes."""
    _, _, tail = text.partition(MARKER)
    if MARKER + tail != generated_facts():
        return f"{GDL_PATH.relative_to(ROOT)}: the generated facts are stale; run `python3 tools/cotoan_gdl.py --write`"
    return None


# ---- KIF reader -------------------------------------------------------------------

TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse_kif(text):
    """Top-level forms as nested lists of strings."""
    tokens = TOKEN.findall("\n".join(line.split(";", 1)[0] for line in text.splitlines()))
    stack = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise ValueError("unbalanced `)` in GDL")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("unbalanced `(` in GDL")
    return stack[0]


def predicate(atom):
    return atom if isinstance(atom, str) else atom[0]


# ---- translation ----------------------------------------------------------------

STATIC, STATE, MOVE = 0, 1, 2
CTX = {STATE: ["CtxP"], MOVE: ["CtxP", "CtxW"]}
DOMAIN = {STATE: "ctx(CtxP)", MOVE: "world(CtxP,CtxW)"}


def term(t):
    if isinstance(t, str):
        if t.startswith("?"):
            return "V" + re.sub(r"\W", "_", t[1:])
        if not re.fullmatch(r"[a-z0-9_]+", t):
            raise ValueError(f"GDL constant `{t}` is outside the translated subset")
        return t
    return f"{t[0]}({','.join(term(a) for a in t[1:])})"


def literal_predicates(lit):
    """(predicate, negated) of a body literal; None for distinct."""
    if isinstance(lit, list) and lit[0] == "not":
        inner = literal_predicates(lit[1])
        return inner and (inner[0], True)
    if isinstance(lit, list) and lit[0] == "distinct":
        return None
    if isinstance(lit, list) and lit[0] == "or":
        raise ValueError("`or` is outside the translated subset")
    return (predicate(lit), False)


def levels(forms):
    """Each defined predicate's level: static, state (uses true) or move (uses does)."""
    level = {"true": STATE, "does": MOVE}
    rules = [f for f in forms if isinstance(f, list) and f and f[0] == "<="]
    changed = True
    while changed:
        changed = False
        for rule in rules:
            head = predicate(rule[1])
            lv = max([level.get(p[0], STATIC) for p in map(literal_predicates, rule[2:]) if p] + [STATIC])
            if lv > level.get(head, STATIC):
                level[head] = lv
                changed = True
    return level


def atom(a, level):
    name = predicate(a)
    args = [] if isinstance(a, str) else [term(x) for x in a[1:]]
    lv = level.get(name, STATIC)
    args = CTX.get(lv, []) + args
    return f"{name}({','.join(args)})" if args else name


def translate(text):
    """The GDL text as a clingo program (see the module docstring)."""
    forms = parse_kif(text)
    level = levels(forms)
    lines = []
    for form in forms:
        if isinstance(form, list) and form and form[0] == "<=":
            head, body = form[1], form[2:]
            lv = level.get(predicate(head), STATIC)
            lits = [DOMAIN[lv]] if lv != STATIC else []
            for lit in body:
                if isinstance(lit, list) and lit[0] == "distinct":
                    lits.append(f"{term(lit[1])}!={term(lit[2])}")
                elif isinstance(lit, list) and lit[0] == "not":
                    lits.append("not " + atom(lit[1], level))
                else:
                    lits.append(atom(lit, level))
            lines.append(f"{atom(head, level)} :- {', '.join(lits)}." if lits else f"{atom(head, level)}.")
        else:
            lines.append(atom(form, level) + ".")
    return "\n".join(lines) + "\n", level


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="regenerate the facts section of gdl/cotoan.kif")
    group.add_argument("--check", action="store_true", help="fail if the facts section is stale")
    group.add_argument("--asp", action="store_true", help="print the translated clingo program")
    args = parser.parse_args()
    if args.write:
        write_gdl()
        print(f"wrote {GDL_PATH.relative_to(ROOT)}")
        return 0
    text = GDL_PATH.read_text()
    if args.check:
        problem = check_gdl(text)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 1
        print(f"{GDL_PATH.relative_to(ROOT)}: generated facts are current")
        return 0
    program, _ = translate(text)
    sys.stdout.write(program)
    return 0


if __name__ == "__main__":
    sys.exit(main())

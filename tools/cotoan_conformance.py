#!/usr/bin/env python3
"""RQ1: does the CoToan engine agree with its GDL description?

The engine's verdicts come from `stratego cotoan dump` (JSON lines: every
state of seeded random games from the start, and seeded synthetic states,
each with its legal actions, witnesses, scores, outcome and every successor
with its outcome). This script translates each snapshot into GDL facts itself
(it does not use the engine's parser), has clingo evaluate gdl/cotoan.kif on
them, and compares:

- the legal moves (both directions), and the witnesses of every capture;
- the scores and the terminal outcome (ended or not, winner, reason), and
  that the GDL goals agree with the GDL winner;
- the successor of every legal move, fluent by fluent;
- the outcome of successors: every successor the engine calls terminal and
  `--successor-outcomes K` seeded others per state (`all` for every one);
- the GDL initial state against the engine's start of every task;
- the OpenSpiel environment (the `cotoan` game that `import stratego_lab`
  registers with pyspiel), as the third representation: for every state,
  its legal actions, side to move, terminal verdict, winner and reason and
  returns, and for every legal action the successor's snapshot and outcome
  through `state.child(action)`, against the engine's verdicts (which GDL
  checks above), so the three agree.

The comparison itself runs inside clingo (the engine's verdicts become
`e_*` facts, differences `d_*` atoms), with counters that must equal the
engine's own totals, so silence cannot hide a broken harness. It covers the
settings combinations of VARIANTS and all 32 operator masks, and reports
the number of states and mismatches; zero mismatches is the bar (exit status
0), anything else fails (exit status 1).

    cargo build && python3 tools/cotoan_conformance.py     # full run
    python3 tools/cotoan_conformance.py --sample           # the CI sample (a few seconds)

Needs the clingo Python package (`python3 -m pip install clingo`) and the
lab's Python package (`python3 -m pip install ./python`; `--no-openspiel`
leaves the third representation out).
"""

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cotoan_gdl import GDL_PATH, OPERATORS, ROOT, check_gdl, translate  # noqa: E402

try:
    import clingo
except ImportError:
    print(
        "error: the clingo Python package is missing; install it with `python3 -m pip install clingo`",
        file=sys.stderr,
    )
    sys.exit(2)

COLS, ROWS = 9, 11
SETTINGS_KEYS = ("threshold", "horizon", "horizon-rule", "operators", "start")

# Settings variants: thresholds on and off, horizons short enough for short
# games to reach, both horizon rules, both starting players. Each is checked
# with the full operator mask, and each of the 32 masks with one of them.
VARIANTS = [
    dict(threshold=0, horizon=300, rule="score", start="red"),
    dict(threshold=9, horizon=300, rule="score", start="red"),
    dict(threshold=15, horizon=20, rule="draw", start="blue"),
    dict(threshold=0, horizon=12, rule="score", start="blue"),
    dict(threshold=30, horizon=40, rule="score", start="red"),
    dict(threshold=5, horizon=16, rule="draw", start="red"),
    dict(threshold=0, horizon=25, rule="draw", start="blue"),
    dict(threshold=45, horizon=1000, rule="score", start="red"),
]

# The harness around the translated GDL, in two stratified passes per batch.
# Pass 1: root positions P get one world per legal move W (W is the move,
# played by its side while the other plays noop), and the successors to check
# are shown as s_next. Pass 2: those successors become contexts n(P,W) whose
# fluents are GDL's own next. Differences from the engine's e_* facts are d_*
# atoms; n_* count what GDL derived, to be matched against the engine's totals.
# (One pass with successor contexts would make ctx depend on legal through a
# negative cycle, which clingo solves but far more slowly.)
ROOTS = """
world(P,M) :- root(P), legal(P,R,M), M != noop.
does(P,M,R,M) :- world(P,M), legal(P,R,M).
does(P,M,R,noop) :- world(P,M), legal(P,R,noop).
s_next(P,W,F) :- check_out(P,W), next(P,W,F).
g_legal(P,M) :- root(P), legal(P,R,M), M != noop.
d_legal(P,gdl,M) :- g_legal(P,M), not e_legal(P,M).
d_legal(P,engine,M) :- e_legal(P,M), not g_legal(P,M).
g_witness(P,A,T,O,S) :- root(P), witness(P,R,A,T,O,S), not terminal(P).
d_witness(P,gdl,A,T,O,S) :- g_witness(P,A,T,O,S), not e_witness(P,A,T,O,S).
d_witness(P,engine,A,T,O,S) :- e_witness(P,A,T,O,S), not g_witness(P,A,T,O,S).
g_add(P,W,F) :- next(P,W,F), not true(P,F).
g_del(P,W,F) :- world(P,W), true(P,F), not next(P,W,F).
d_next(P,W,gdl_adds,F) :- g_add(P,W,F), not e_add(P,W,F).
d_next(P,W,engine_adds,F) :- e_add(P,W,F), not g_add(P,W,F).
d_next(P,W,gdl_removes,F) :- g_del(P,W,F), not e_del(P,W,F).
d_next(P,W,engine_removes,F) :- e_del(P,W,F), not g_del(P,W,F).
n_world(N) :- N = #count{ P,W : world(P,W) }.
n_legal(N) :- N = #count{ P,M : g_legal(P,M) }.
n_witness(N) :- N = #count{ P,A,T,O,S : g_witness(P,A,T,O,S) }.
n_next(N) :- N = #count{ P,W,F : next(P,W,F) }.
#show d_legal/3. #show d_witness/6. #show d_next/4. #show s_next/3.
#show n_legal/1. #show n_witness/1. #show n_next/1. #show n_world/1.
"""
OUTCOMES = """
g_reason(C,zero_captured) :- end_zero(C).
g_reason(C,threshold) :- end_threshold(C).
g_reason(C,horizon) :- end_horizon(C).
g_reason(C,no_legal_move) :- end_no_move(C).
g_winner(C,X) :- winner(C,X).
g_winner(C,none) :- terminal(C), not decided(C).
g_out(C,nonterminal,none,none) :- ctx(C), not terminal(C).
g_out(C,terminal,X,R) :- terminal(C), g_winner(C,X), g_reason(C,R).
d_out(C,gdl,T,X,R) :- g_out(C,T,X,R), e_out(C,_,_,_), not e_out(C,T,X,R).
d_out(C,engine,T,X,R) :- e_out(C,T,X,R), not g_out(C,T,X,R).
d_goal(C) :- winner(C,X), not goal(C,X,100).
d_goal(C) :- winner(C,X), opponent(X,Y), not goal(C,Y,0).
d_goal(C) :- ctx(C), not decided(C), role(X), not goal(C,X,50).
d_goal(C) :- goal(C,X,V), goal(C,X,V2), V != V2.
d_score(C,gdl,S,N) :- score(C,S,N), e_score(C,_,_), not e_score(C,S,N).
d_score(C,engine,S,N) :- e_score(C,S,N), not score(C,S,N).
n_ctx(N) :- N = #count{ C : ctx(C) }.
n_out(N) :- N = #count{ C : g_out(C,_,_,_) }.
n_terminal(N) :- N = #count{ C : terminal(C) }.
#show d_out/5. #show d_goal/1. #show d_score/4. #show n_ctx/1. #show n_out/1. #show n_terminal/1.
"""


def settings_text(threshold, horizon, rule, mask, start):
    ops = "+".join(op for i, op in enumerate(OPERATORS) if mask >> i & 1) or "none"
    return (
        f"cotoan-rules-v1:threshold={threshold},horizon={horizon},horizon-rule={rule},operators={ops},start={start}"
    )


def settings_matrix():
    """Every variant with the full mask, and each of the 32 masks with one variant."""
    texts = [settings_text(mask=31, **v) for v in VARIANTS]
    texts += [settings_text(mask=m, **VARIANTS[m % len(VARIANTS)]) for m in range(32)]
    return list(dict.fromkeys(texts))


# ---- snapshots to GDL facts (independent of the engine's own parser) -------------


def settings_fluents(text):
    version, _, fields = text.partition(":")
    if version != "cotoan-rules-v1":
        raise ValueError(f"unexpected settings version {version!r}")
    kv = dict(f.split("=", 1) for f in fields.split(","))
    if sorted(kv) != sorted(SETTINGS_KEYS):
        raise ValueError(f"settings fields {sorted(kv)} are not {sorted(SETTINGS_KEYS)}")
    fluents = {
        f"threshold({int(kv['threshold'])})",
        f"horizon({int(kv['horizon'])})",
        f"horizon_rule({kv['horizon-rule']})",
        f"start({kv['start']})",
    }
    if kv["operators"] != "none":
        fluents |= {f"enabled({op})" for op in kv["operators"].split("+")}
    return fluents


def board_fluents(board):
    ranks = board.split("/")
    if len(ranks) != ROWS:
        raise ValueError(f"board has {len(ranks)} ranks")
    fluents = set()
    for i, rank in enumerate(ranks):
        row, col, k = ROWS - 1 - i, 0, 0
        while k < len(rank):
            if rank[k] == ".":
                k += 1
            else:
                side = {"r": "red", "b": "blue"}[rank[k]]
                fluents.add(f"at(s{COLS * row + col},{side},{int(rank[k + 1])})")
                k += 2
            col += 1
        if col != COLS:
            raise ValueError(f"rank {row + 1} has {col} squares")
    return fluents


def snapshot_fluents(snapshot):
    settings, board, side, ply = snapshot.split()
    return frozenset(settings_fluents(settings) | board_fluents(board) | {f"control({side})", f"ply({int(ply)})"})


def move_term(action):
    """The GDL move of the action id 99 * SRC + DST."""
    src, dst = divmod(action, 99)
    return f"move(s{src},s{dst})"


def out_fact(context, verdict):
    if not verdict["terminal"]:
        return f"e_out({context},nonterminal,none,none)."
    winner = verdict["winner"] or "none"
    return f"e_out({context},terminal,{winner},{verdict['reason'].replace('-', '_')})."


# ---- one batch: facts, clingo, differences ------------------------------------------


def batch_facts(records, first_index, successor_outcomes, seed):
    """The root facts and the successor-outcome facts of a batch, and the engine's totals.

    Positions are numbered within the batch (0, 1, ...): clingo never frees a symbol, so
    numbering them across the whole run would grow every worker's memory without bound."""
    lines, successor_lines = [], []
    totals = Counter()
    for p, r in enumerate(records):
        lines.append(f"ctx({p}). root({p}).")
        lines.extend(f"true({p},{f})." for f in snapshot_fluents(r["snapshot"]))
        lines.append(out_fact(p, r))
        lines.append(f"e_score({p},red,{r['scores'][0]}). e_score({p},blue,{r['scores'][1]}).")
        lines.extend(f"e_legal({p},{move_term(a)})." for a in r["legal"])
        lines.extend(
            f"e_witness({p},s{divmod(a, 99)[0]},s{divmod(a, 99)[1]},{op},s{sup})." for a, op, sup in r["witnesses"]
        )
        rng = random.Random(f"{seed}/{first_index + p}")
        others = [s for s in r["successors"] if not s["terminal"]]
        chosen = {id(s) for s in r["successors"] if s["terminal"]}
        if successor_outcomes < 0:
            chosen |= {id(s) for s in others}
        else:
            chosen |= {id(s) for s in rng.sample(others, min(successor_outcomes, len(others)))}
        # The engine's successor as a change of the root: fluents it adds and removes
        # (the next state is exactly the root minus the removed plus the added).
        root = snapshot_fluents(r["snapshot"])
        for s in r["successors"]:
            w = move_term(s["action"])
            fluents = snapshot_fluents(s["snapshot"])
            lines.extend(f"e_add({p},{w},{f})." for f in fluents - root)
            lines.extend(f"e_del({p},{w},{f})." for f in root - fluents)
            totals["next fluents"] += len(fluents)
            totals["successors"] += 1
            if id(s) in chosen:
                lines.append(f"check_out({p},{w}).")
                successor_lines.append(out_fact(f"n({p},{w})", s))
                totals["successor outcomes"] += 1
        totals["legal"] += len(r["legal"])
        totals["witnesses"] += len(r["witnesses"])
        totals["terminal"] += int(r["terminal"]) + sum(1 for s in r["successors"] if id(s) in chosen and s["terminal"])
    totals["contexts"] = len(records) + totals["successor outcomes"]
    totals["outcomes"] = totals["contexts"]
    return "\n".join(lines), "\n".join(successor_lines), totals


def solve(text):
    """The one answer set of a stratified program, as shown symbols."""
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    models = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            models.append(list(model.symbols(shown=True)))
    if len(models) != 1:
        raise RuntimeError(f"clingo found {len(models)} answer sets; the program must have exactly one")
    return models[0]


def run_batch(job):
    """Both passes of one batch; returns the shown symbols as text (s_next left out)."""
    program, root_facts, successor_facts = job
    first = solve(program + ROOTS + OUTCOMES + root_facts)
    contexts = {}
    for s in first:
        if s.name == "s_next":
            p, w, f = s.arguments
            contexts.setdefault(f"n({p},{w})", []).append(str(f))
    facts = [successor_facts]
    for c, fluents in contexts.items():
        facts.append(f"ctx({c}).")
        facts.extend(f"true({c},{f})." for f in fluents)
    second = solve(program + OUTCOMES + "\n".join(facts)) if contexts else []
    return [str(s) for s in first if s.name != "s_next"] + [str(s) for s in second]


COUNTERS = {
    "n_ctx": "contexts",
    "n_out": "outcomes",
    "n_legal": "legal",
    "n_witness": "witnesses",
    "n_next": "next fluents",
    "n_world": "successors",
    "n_terminal": "terminal",
}


def context_index(symbol):
    """The root record index a d_* atom is about."""
    inner = symbol[symbol.index("(") + 1 :]
    if inner.startswith("n("):
        inner = inner[2:]
    return int(inner.split(",", 1)[0].rstrip(")"))


# ---- the OpenSpiel representation ------------------------------------------------------


def openspiel_expected(verdict):
    """The engine's verdict as the OpenSpiel state should report it: (terminal,
    outcome text, returns)."""
    if not verdict["terminal"]:
        return False, None, [0.0, 0.0]
    winner = verdict["winner"]
    text = f"{winner}-wins {verdict['reason']}" if winner else f"draw {verdict['reason']}"
    returns = {"red": [1.0, -1.0], "blue": [-1.0, 1.0], None: [0.0, 0.0]}[winner]
    return True, text, returns


class OpenSpielSide:
    """The `cotoan` OpenSpiel game of stratego_lab, one game object per task."""

    def __init__(self):
        try:
            import pyspiel
            import stratego_lab  # noqa: F401 - registers the games
        except ImportError as e:
            raise SystemExit(
                f"error: the OpenSpiel representation needs the lab's Python package ({e}); "
                "install it with `python3 -m pip install ./python`, or pass --no-openspiel"
            )
        self.pyspiel = pyspiel
        self.games = {}
        self.states = self.successors = 0

    def game(self, settings):
        if settings not in self.games:
            kv = dict(f.split("=", 1) for f in settings.partition(":")[2].split(","))
            params = {k: int(v) if v.isdigit() else v for k, v in kv.items()}
            game = self.pyspiel.load_game("cotoan", params)
            if game.settings != settings:
                raise SystemExit(f"error: OpenSpiel's cotoan{params} is {game.settings}, not {settings}")
            self.games[settings] = game
        return self.games[settings]

    def problems(self, record):
        """What the OpenSpiel state of a record says differently from the engine."""
        out = []
        state = self.game(record["settings"]).state_from_snapshot(record["snapshot"])
        side = record["snapshot"].split()[2]

        def verdict_problems(where, st, verdict):
            terminal, text, returns = openspiel_expected(verdict)
            found = (st.is_terminal(), st.outcome() if st.is_terminal() else None, list(st.returns()))
            if found != (terminal, text, returns):
                out.append(f"openspiel {where}: {found} where the engine has {(terminal, text, returns)}")

        verdict_problems("state", state, record)
        if not record["terminal"]:
            expected_player = {"red": 0, "blue": 1}[side]
            if state.current_player() != expected_player:
                out.append(f"openspiel: player {state.current_player()} to move, the engine has {side}")
        if state.legal_actions() != sorted(record["legal"]):
            out.append(f"openspiel legal actions {state.legal_actions()} where the engine has {sorted(record['legal'])}")
        for s in record["successors"]:
            child = state.child(s["action"])
            if str(child) != s["snapshot"]:
                out.append(f"openspiel successor of {s['action']}: {child} where the engine has {s['snapshot']}")
            verdict_problems(f"successor of {s['action']}", child, s)
            self.successors += 1
        self.states += 1
        return out


# ---- engine, initial states ---------------------------------------------------------


def engine_records(args, settings):
    """The engine's verdicts, one record per state, read as the dump writes them."""
    cmd = [args.stratego, "cotoan", "dump", "--seed", str(args.seed), "--games", str(args.games)]
    cmd += ["--plies", str(args.plies), "--synthetic", str(args.synthetic)]
    for s in settings:
        cmd += ["--settings", s]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            yield json.loads(line)
        error = proc.stderr.read().strip()
    if proc.returncode != 0:
        raise SystemExit(f"error: `{' '.join(cmd[:3])} ...` failed: {error}")


def gdl_init(program):
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program + "#show init/1.")
    ctl.ground([("base", [])])
    init = set()
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            init = {str(s.arguments[0]) for s in model.symbols(shown=True)}
    return frozenset(init)


def gdl_initial(init, settings):
    """The GDL initial state with a task's settings: `init` describes the default
    task; another task has its own settings fluents and its starter in control."""
    fluents = settings_fluents(settings)
    start = next(f for f in fluents if f.startswith("start("))[len("start(") : -1]
    return frozenset({f for f in init if f.startswith("at(")} | fluents | {f"control({start})", "ply(0)"})


def default_binary():
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        if (target / profile / "stratego").exists():
            return str(target / profile / "stratego")
    return str(target / "debug" / "stratego")


def main():
    parser = argparse.ArgumentParser(description="Compare the CoToan engine with gdl/cotoan.kif through clingo.")
    parser.add_argument("--stratego", default=default_binary(), help="the stratego binary (default: target/debug)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=10, help="random games per settings (default 10)")
    parser.add_argument("--plies", type=int, default=30, help="plies per random game at most (default 30)")
    parser.add_argument("--synthetic", type=int, default=10, help="synthetic states per settings (default 10)")
    parser.add_argument(
        "--successor-outcomes",
        default="2",
        help="nonterminal successors per state whose outcome is checked, besides every terminal one; `all` for every one",
    )
    parser.add_argument("--sample", action="store_true", help="the quick CI sample: 1 game of 3 plies, 1 synthetic")
    parser.add_argument("--batch", type=int, default=40, help="states per clingo call")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    parser.add_argument("--jobs", type=int, default=cores, help="clingo calls in parallel (default: the usable cores)")
    parser.add_argument("--gdl", type=Path, default=GDL_PATH, help="the GDL description (default gdl/cotoan.kif)")
    parser.add_argument("--show", type=int, default=5, help="mismatching states to print in full")
    parser.add_argument("--no-openspiel", action="store_true", help="leave out the OpenSpiel representation")
    args = parser.parse_args()
    if args.sample:
        args.games, args.plies, args.synthetic, args.successor_outcomes = 1, 3, 1, "1"
    successor_outcomes = -1 if args.successor_outcomes == "all" else int(args.successor_outcomes)
    if not Path(args.stratego).exists():
        raise SystemExit(f"error: {args.stratego} does not exist; build it with `cargo build` or pass --stratego")

    started = time.time()
    gdl_text = args.gdl.read_text()
    stale = check_gdl(gdl_text)
    if stale:
        raise SystemExit(f"error: {stale}")
    program, _ = translate(gdl_text)
    openspiel = None if args.no_openspiel else OpenSpielSide()
    settings = settings_matrix()
    init = gdl_init(program)
    problems = {}  # record index -> list of problems
    records = []  # every state, its successors dropped once compared
    starts = set()
    derived, engine_totals, counts = Counter(), Counter(), Counter()
    harness_problems = []
    calls = 0
    stream = engine_records(args, settings)
    wave = max(1, args.jobs) * 2  # batches in flight: bounds the memory facts and records take
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        while True:
            base = len(records)
            records.extend(itertools.islice(stream, args.batch * wave))
            if len(records) == base:
                break
            # The start of every task against the GDL init.
            for i in range(base, len(records)):
                r = records[i]
                if r["source"] == "reachable" and r["snapshot"].endswith(" 0") and r["settings"] not in starts:
                    starts.add(r["settings"])
                    engine_start = snapshot_fluents(r["snapshot"])
                    expected_start = gdl_initial(init, r["settings"])
                    if engine_start != expected_start:
                        problems.setdefault(i, []).append(
                            f"start differs from GDL init: {sorted(engine_start ^ expected_start)}"
                        )
                    if r["settings"] == settings[0] and engine_start != init:
                        problems.setdefault(i, []).append("the GDL init is not the default task's start")
            firsts = list(range(base, len(records), args.batch))
            jobs, expected = [], []
            for first in firsts:
                chunk = records[first : first + args.batch]
                roots, successors, totals = batch_facts(chunk, first, successor_outcomes, args.seed)
                jobs.append((program, roots, successors))
                expected.append(totals)
                for k, r in enumerate(chunk):
                    if openspiel is not None:
                        found = openspiel.problems(r)
                        if found:
                            problems.setdefault(first + k, []).extend(found)
                    counts["successors"] += len(r["successors"])
                    counts["terminal successors"] += sum(1 for x in r["successors"] if x["terminal"])
                    r["successors"] = None  # compared below: free the memory
            for first, symbols, totals in zip(firsts, pool.map(run_batch, jobs), expected):
                calls += 1
                engine_totals.update(totals)
                batch_counts = Counter()
                for sym in symbols:
                    name = sym.split("(", 1)[0]
                    if name in COUNTERS:
                        batch_counts[COUNTERS[name]] += int(sym[len(name) + 1 : -1])
                    else:
                        problems.setdefault(first + context_index(sym), []).append(sym)
                derived.update(batch_counts)
                for key in COUNTERS.values():
                    if batch_counts[key] != totals[key]:
                        harness_problems.append(
                            f"GDL derived {batch_counts[key]} {key} in a batch where the engine has {totals[key]}"
                        )
    if len(starts) != len(settings) and args.games > 0:
        harness_problems.append(f"the dump started {len(starts)} of {len(settings)} tasks")

    shown = 0
    for i in sorted(problems):
        if shown < args.show:
            shown += 1
            print(f"MISMATCH {records[i]['source']} {records[i]['snapshot']}")
            for p in problems[i][:8]:
                print(f"  {p}")
    for p in harness_problems[: args.show]:
        print(f"MISMATCH {p}")

    for r in records:
        counts[f"{r['source']} states"] += 1
        counts["nonterminal states" if not r["terminal"] else f"terminal states: {r['reason']}"] += 1
        actions = Counter(a for a, _, _ in r["witnesses"])
        counts["captures"] += len(actions)
        counts["captures with two or more witnesses"] += sum(1 for n in actions.values() if n >= 2)
    states = counts["reachable states"] + counts["synthetic states"]
    mismatches = len(problems) + len(harness_problems)
    masks = {s.split("operators=")[1].split(",")[0] for s in settings}
    print(f"gdl: {args.gdl}; engine: {args.stratego}")
    print(
        f"settings combinations: {len(settings)} ({len(masks)} operator masks; thresholds "
        f"{sorted({v['threshold'] for v in VARIANTS})}; horizons {sorted({v['horizon'] for v in VARIANTS})}; "
        "horizon rules score and draw; red and blue start)"
    )
    print(
        f"sampling: seed {args.seed}; per settings {args.games} random game(s) of up to {args.plies} plies "
        f"and {args.synthetic} synthetic state(s); successor outcomes: every terminal one and "
        f"{args.successor_outcomes} other(s) per state"
    )
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    for key in sorted(COUNTERS.values()):
        print(f"  compared {key}: engine {engine_totals[key]}, gdl {derived[key]}")
    if openspiel is not None:
        print(f"  openspiel: {openspiel.states} states and {openspiel.successors} successors compared")
    print(f"time: {time.time() - started:.1f} s ({calls} clingo calls, {args.jobs} in parallel)")
    print(
        f"cotoan-conformance states={states} successors={counts['successors']} "
        f"settings={len(settings)} masks={len(masks)} openspiel={openspiel.states if openspiel else 0} "
        f"mismatches={mismatches}"
    )
    return 0 if mismatches == 0 and states > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Measure a player against the outside sparring field of ../shared/ucc through the real UCC 2012
# referee, as EVALUATION.md reports it: GAMES games against each of the five bots (colours
# alternating), MS milliseconds a move for our player, the referee's -T 10 -m 1000, then
# `stratego ucc-review` of the logs (W/L/D per bot and how each game was lost).
#
#   usage: tools/ucc-field.sh SPEC [GAMES] [MS] [OUT]
#          SPEC   a player spec, e.g. 'expectimax:setup=handcrafted-v2'
#          GAMES  per bot (default 10), MS per move (default 100), OUT (default runs/ucc-field/<time>)
#
# Needs a release build (cargo build --release; STRATEGO_BIN names another binary), g++ and Python 2.7 (the field's own build,
# ../shared/ucc/setup.sh, about 30 s, into $UCC_DIR or /tmp/ucc-field). Games run one at a time:
# the referee stops the idle side, so our player has one core to itself while it thinks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SPEC=${1:?usage: tools/ucc-field.sh SPEC [GAMES] [MS] [OUT]}
GAMES=${2:-10}; MS=${3:-100}
TURNS=1000  # the referee's -m, which the bot is told (ucc-bot --referee-turns)
OUT=${4:-$root/runs/ucc-field/$(date -u +%Y%m%dT%H%M%SZ)}
shared=$root/../shared/ucc
bin=${STRATEGO_BIN:-$root/target/release/stratego}
[ -x "$bin" ] || { echo "ucc-field.sh: build first: cargo build --release" >&2; exit 2; }
UCC_DIR=${UCC_DIR:-/tmp/ucc-field}
[ -x "$UCC_DIR/referee" ] || "$shared/setup.sh" "$UCC_DIR" >&2
export UCC_DIR STRATEGO=$UCC_DIR/referee
mkdir -p "$OUT/records"; OUT=$(cd "$OUT" && pwd)
# The referee starts a bot without arguments: our player behind a launcher.
printf '#!/bin/sh\nexec %q ucc-bot --agent %q --move-time-ms %s --referee-turns %s --record %q/records/$$.txt\n' \
    "$bin" "$SPEC" "$MS" "$TURNS" "$OUT" >"$OUT/ours"
chmod +x "$OUT/ours"
echo "$SPEC, $MS ms a move, $GAMES games against each bot; logs in $OUT" | tee "$OUT/README"
for bot in asmodeus vixen celsius hunter basic_python; do
    "$shared/match.sh" -j 1 -T 10 -m "$TURNS" -o "$OUT/$bot" "$GAMES" "$OUT/ours" "$bot" >"$OUT/$bot.txt" 2>&1
    echo "$bot: $(grep RESULT "$OUT/$bot.txt")"
done
"$bin" ucc-review "$OUT"/{asmodeus,vixen,celsius,hunter,basic_python} | tee "$OUT/review.txt"

#!/usr/bin/env bash
# Prove a GPU box in one command (issue 51, item 3): build with the GPU backend (or take a binary
# built elsewhere), then `stratego doctor`, `stratego bench model` for the tiny, small and ataraxos
# presets, and `configs/gpu.toml`'s RL for a few minutes, and write a report: end-to-end plies/s,
# learner samples/s, the share of each iteration spent waiting for self-play and learning and the
# inference service's busy time, and the GPU's memory and utilisation (nvidia-smi, sampled every second, where the box has it).
#
#   usage: tools/gpu-check.sh [--device D] [--minutes M] [--quick] [--out DIR]
#          --device   wgpu (default) or cpu; the backend the run and the benches use
#          --minutes  of training (default 5); the run stops at its first iteration past them
#          --quick    a scaled-down run (the tiny network, 1,024 samples an iteration, two actors of
#                     8 games, the tiny and small benches only): CI runs the script so on the CPU
#          --out      the report's folder (default runs/gpu-check/<time>)
#
# On a box with no network, build here and carry the binary: STRATEGO_BIN=path/to/stratego
# skips the build (`cargo build --release --features wgpu`, about 35 minutes on 2 cores). The
# training run is configs/gpu.toml as it is (its network, games, batches, pacing and opponents)
# without its warm start (20,000 teacher games, hours of CPU on any box), which is not what a GPU
# check measures; its first iterations learn from the untrained network's games.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
DEVICE=wgpu; MINUTES=5; QUICK=0; OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=${2:?--device takes wgpu or cpu}; shift 2 ;;
        --minutes) MINUTES=${2:?--minutes takes a number}; shift 2 ;;
        --quick) QUICK=1; shift ;;
        --out) OUT=${2:?--out takes a folder}; shift 2 ;;
        *) echo "error: gpu-check.sh: unknown argument $1 (usage: tools/gpu-check.sh [--device wgpu|cpu] [--minutes M] [--quick] [--out DIR])" >&2; exit 1 ;;
    esac
done
case "$DEVICE" in
    wgpu) FEATURES=(--features wgpu) ;;
    cpu) FEATURES=() ;;
    *) echo "error: gpu-check.sh: --device is wgpu or cpu, not $DEVICE" >&2; exit 1 ;;
esac
[[ "$MINUTES" =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "$MINUTES" != 0 ] \
    || { echo "error: gpu-check.sh: --minutes takes a positive number, not $MINUTES" >&2; exit 1; }
OUT=${OUT:-$root/runs/gpu-check/$(date -u +%Y%m%dT%H%M%SZ)}
if [ -e "$OUT/report.md" ]; then echo "error: gpu-check.sh: $OUT already holds a report" >&2; exit 1; fi
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
say() { echo "gpu-check: $*" >&2; }

bin=${STRATEGO_BIN:-}
if [ -z "$bin" ]; then
    say "building: cargo build --release ${FEATURES[*]:-}"
    (cd "$root" && cargo build --release ${FEATURES[@]+"${FEATURES[@]}"} >&2)
    bin=$root/target/release/stratego
fi
[ -x "$bin" ] || { echo "error: gpu-check.sh: no program at $bin" >&2; exit 1; }

say "doctor"
"$bin" doctor | tee "$OUT/doctor.txt" >&2

if [ "$QUICK" = 1 ]; then PRESETS=tiny,small; ITER=2; else PRESETS=tiny,small,ataraxos; ITER=5; fi
say "bench model ($PRESETS, $DEVICE)"
"$bin" bench model --device "$DEVICE" --presets "$PRESETS" --iterations "$ITER" | tee "$OUT/bench-model.txt" >&2

# configs/gpu.toml for MINUTES, without its warm start, on DEVICE; --quick scales it down.
config=$OUT/gpu-check.toml
sed -e "s/^device = .*/device = \"$DEVICE\"/" \
    -e "s/^iterations = .*/iterations = 40000\nmax_minutes = $MINUTES/" \
    -e "/^\[pretrain\]/,/^\[/ s/^enabled = true/enabled = false/" \
    "$root/configs/gpu.toml" >"$config"
if [ "$QUICK" = 1 ]; then
    sed -i -e 's/^preset = .*/preset = "tiny"/' -e 's/^layout = .*/layout = "compact"/' \
        -e 's/^samples_per_iteration = .*/samples_per_iteration = 1024/' -e 's/^minibatch = .*/minibatch = 64/' \
        -e 's/^actors = .*/actors = 2/' -e 's/^games_per_actor = .*/games_per_actor = 8/' \
        -e 's/^max_inference_batch = .*/max_inference_batch = 64/' -e 's/^channel_capacity = .*/channel_capacity = 64/' \
        -e 's/max-plies=4000,max-battleless=200/max-plies=300,max-battleless=100/' \
        -e 's/^games = 100$/games = 10/' -e 's/"expectimax:depth=2,[^"]*"/"greedy"/' "$config"
fi

gpu_log=$OUT/nvidia-smi.csv
sampler=""
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=timestamp,name,memory.used,memory.total,utilization.gpu \
        --format=csv,noheader,nounits -l 1 >"$gpu_log" 2>/dev/null &
    sampler=$!
fi
say "training: $config for $MINUTES minutes"
start=$(date +%s)
status=0
"$bin" train --config "$config" --run "$OUT/run" >"$OUT/train.txt" 2>"$OUT/train.err" || status=$?
wall=$(( $(date +%s) - start ))
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
if [ "$status" != 0 ]; then
    echo "error: gpu-check.sh: training failed ($(tail -n 1 "$OUT/train.err")); logs in $OUT" >&2
    exit 1
fi

python3 - "$OUT" "$DEVICE" "$MINUTES" "$wall" "$QUICK" <<'EOF'
import csv, json, statistics, sys
from pathlib import Path
out, device, minutes, wall = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
quick = " --quick" if sys.argv[5] == "1" else ""
lines = [json.loads(l) for l in (out / "run" / "metrics.jsonl").read_text().splitlines()]
its = [l for l in lines if "speed/plies_per_second" in l]
if not its:
    sys.exit(f"error: gpu-check.sh: the run logged no iteration in {minutes} minutes; logs in {out}")
# The first iteration carries the start (the network built, the actors' first games): left out
# where there are others.
steady = its[1:] or its
def median(tag):
    values = [l[tag] for l in steady if isinstance(l.get(tag), (int, float))]
    return statistics.median(values) if values else float("nan")
wait, learn = sum(l.get("speed/wait_seconds", 0) for l in steady), sum(l.get("speed/learn_seconds", 0) for l in steady)
total = max(wait + learn, 1e-9)
infer = sum(l.get("speed/inference_seconds") or 0 for l in steady)
rows = [
    ("device", device),
    ("iterations", f"{len(its)} in {wall} s of wall time (the first left out of the figures below)" if len(its) > 1
     else f"{len(its)} in {wall} s of wall time"),
    ("end-to-end self-play", f"{median('speed/plies_per_second'):,.0f} plies/s (median over iterations)"),
    ("learner", f"{median('speed/samples_per_second'):,.0f} samples/s of learning time (median)"),
    ("time waiting for self-play", f"{wait / total:.0%} of the iterations' time ({wait:.0f} s)"),
    ("time learning", f"{learn / total:.0%} ({learn:.0f} s)"),
    ("time in inference", f"the self-play inference service was in the network {infer / total:.0%} of that time "
                          f"({infer:.0f} s), beside the actors and the learner"),
    ("stale decisions dropped", f"{median('samples/stale_fraction'):.1%} (median)"),
]
gpu = out / "nvidia-smi.csv"
if gpu.exists() and gpu.stat().st_size > 0:
    samples = [r for r in csv.reader(gpu.open()) if len(r) == 5]
    used = [float(r[2]) for r in samples]
    util = [float(r[4]) for r in samples]
    rows.append(("GPU", f"{samples[0][1].strip()}, {max(used):,.0f} of {float(samples[0][3]):,.0f} MiB at most, "
                        f"{statistics.mean(util):.0f} % utilisation on average ({len(samples)} samples)"))
else:
    rows.append(("GPU", "no nvidia-smi on this machine: no GPU memory or utilisation sampled"))
bench = (out / "bench-model.txt").read_text().strip().splitlines()
text = ["# GPU check", "", f"`tools/gpu-check.sh --device {device} --minutes {minutes}{quick}`; files in this folder.", "",
        "| what | measured |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
text += ["", "`stratego bench model`:", "", "```"] + bench + ["```", "", "`stratego doctor`:", "", "```"]
text += (out / "doctor.txt").read_text().strip().splitlines() + ["```", ""]
(out / "report.md").write_text("\n".join(text))
print("\n".join(text))
EOF
say "report: $OUT/report.md"

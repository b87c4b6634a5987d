"""Reads a run directory's event files with TensorBoard's own reader and
checks that every expected tag has finite values at increasing steps.

usage: check_tensorboard.py RUN_DIR TAG...
"""
import math
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

run, expected = sys.argv[1], sys.argv[2:]
acc = EventAccumulator(run, size_guidance={"scalars": 0})
acc.Reload()
found = set(acc.Tags()["scalars"])
missing = [t for t in expected if t not in found]
if missing:
    sys.exit(f"tags missing from {run}: {missing}")
for tag in expected:
    points = acc.Scalars(tag)
    steps = [p.step for p in points]
    if steps != sorted(steps) or len(set(steps)) != len(steps):
        sys.exit(f"{tag}: steps {steps} are not increasing and distinct")
    bad = [p.step for p in points if not math.isfinite(p.value)]
    if bad:
        sys.exit(f"{tag}: non-finite values at steps {bad}")
print(f"{len(expected)} tags, {len(acc.Scalars(expected[0]))} points each")

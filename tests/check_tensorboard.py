"""Reads a run directory's event files with TensorBoard's own reader and
checks that every expected tag has finite values at increasing steps.

usage: check_tensorboard.py RUN_DIR TAG... [--images TAG]

With --images TAG, also that TAG holds PNG pictures (the Images tab), each
with its width and height.
"""
import math
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

run, expected = sys.argv[1], sys.argv[2:]
images = None
if "--images" in expected:
    at = expected.index("--images")
    images, expected = expected[at + 1], expected[:at] + expected[at + 2:]
acc = EventAccumulator(run, size_guidance={"scalars": 0, "images": 0})
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
if images is not None:
    if images not in acc.Tags()["images"]:
        sys.exit(f"no images under {images} in {run}: {acc.Tags()['images']}")
    for event in acc.Images(images):
        if not event.encoded_image_string.startswith(b"\x89PNG") or event.width <= 0 or event.height <= 0:
            sys.exit(f"{images} at step {event.step} is not a PNG with a size")
print(f"{len(expected)} tags, {len(acc.Scalars(expected[0]))} points each")

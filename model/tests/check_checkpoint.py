"""Loads a checkpoint written by the Rust model crate with safetensors + numpy
and checks its metadata and that it holds exactly the expected tensors.

usage: python3 check_checkpoint.py CHECKPOINT EXPECTED.json
EXPECTED.json: {"metadata": {key: value}, "tensors": [[name, [shape...]], ...]}
"""
import json
import sys

try:
    import numpy as np
    from safetensors.numpy import load_file
    from safetensors import safe_open
except ImportError as e:  # the test prints this as its failure
    sys.exit(f"missing Python package ({e}); install with: python3 -m pip install numpy safetensors")

path, expected_path = sys.argv[1], sys.argv[2]
expected = json.load(open(expected_path))
tensors = load_file(path)
with safe_open(path, "numpy") as f:
    metadata = f.metadata()

problems = []
for key, value in expected["metadata"].items():
    if metadata.get(key) != value:
        problems.append(f"metadata {key}: {metadata.get(key)!r} != {value!r}")
want = {name: tuple(shape) for name, shape in expected["tensors"]}
for name in sorted(set(want) | set(tensors)):
    if name not in tensors:
        problems.append(f"missing tensor {name}")
    elif name not in want:
        problems.append(f"unexpected tensor {name}")
    elif tensors[name].shape != want[name]:
        problems.append(f"{name}: shape {tensors[name].shape} != {want[name]}")
    elif tensors[name].dtype != np.float32 or not np.isfinite(tensors[name]).all():
        problems.append(f"{name}: not finite float32")
if problems:
    sys.exit("\n".join(problems))
print(f"ok: {len(tensors)} tensors, {sum(t.size for t in tensors.values())} parameters")

#!/usr/bin/env python3
"""compare_tensors.py EXPECTED.pb GOT.pb: the relative error |got - want| / |want|
of two ONNX TensorProto files in float64; exit 1 above 1e-4 (or on NaN)."""
import sys

import numpy as np
from onnx import TensorProto, numpy_helper


def read(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t).astype(np.float64)


want, got = read(sys.argv[1]), read(sys.argv[2])
if want.shape != got.shape:
    sys.exit(f"shapes differ: expected {want.shape}, got {got.shape}")
err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
print(f"relative error {err:.3e} over {want.size} values")
sys.exit(0 if err < 1e-4 else 1)

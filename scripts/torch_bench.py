#!/usr/bin/env python3
"""torch_bench.py MODEL.onnx INPUT.pb EXPECTED.pb [REPEATS]: the PyTorch side
of tunectl's GPU comparison (README, section "CUDA"), for the lent GPU
machine, whose image has PyTorch but no ONNX importer for it.

The ONNX graph is run node by node with torch.nn.functional on the GPU
(fp32, TF32 off for convolutions and matrix products, as tunectl's kernels
compute), which is what PyTorch eager does for the same network: one cuDNN
or cuBLAS call per Conv, BatchNormalization unfused, and so on. Its output is
checked against EXPECTED.pb (relative error in float64) before anything is
timed. Then: eager, and torch.compile of the same function, each timed as a
median of REPEATS calls with CUDA events, the input already on the device;
and, where onnxruntime has the CUDA execution provider, ONNX Runtime on the
GPU. Covers the operators of ../shared/onnx/light's models."""
import math
import statistics
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pads2d(a):
    p = a.get("pads", [0, 0, 0, 0])
    if p[0] != p[2] or p[1] != p[3]:
        raise SystemExit(f"asymmetric pads {p} are not supported here")
    return (p[0], p[1])


def conv(x, w, b=None, **a):
    return F.conv2d(x, w, b, a.get("strides", [1, 1]), pads2d(a), a.get("dilations", [1, 1]), a.get("group", 1))


def gemm(A, B, C=None, **a):
    A = A.t() if a.get("transA", 0) else A
    B = B.t() if a.get("transB", 0) else B
    y = a.get("alpha", 1.0) * (A @ B)
    return y if C is None else y + a.get("beta", 1.0) * C


def softmax(x, **a):  # opset < 13: the input as a 2-D matrix split at `axis`
    axis = a.get("axis", 1)
    return F.softmax(x.reshape(math.prod(x.shape[:axis]), -1), dim=1).reshape(x.shape)


def reshape(x, shape, **a):  # shape: a list (shape operands are read at load)
    return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


OPS = {
    "Conv": conv,
    "BatchNormalization": lambda x, s, b, m, v, **a: F.batch_norm(x, m, v, s, b, False, 0.0, a.get("epsilon", 1e-5)),
    "Relu": lambda x, **a: F.relu(x),
    "Sum": lambda *xs, **a: sum(xs[1:], xs[0]),
    "Add": lambda x, y, **a: x + y,
    "MaxPool": lambda x, **a: F.max_pool2d(x, a["kernel_shape"], a.get("strides", [1, 1]), pads2d(a),
                                           ceil_mode=bool(a.get("ceil_mode", 0))),
    "AveragePool": lambda x, **a: F.avg_pool2d(x, a["kernel_shape"], a.get("strides", [1, 1]), pads2d(a),
                                               ceil_mode=bool(a.get("ceil_mode", 0)),
                                               count_include_pad=bool(a.get("count_include_pad", 0))),
    "GlobalAveragePool": lambda x, **a: x.mean((2, 3), keepdim=True),
    "Gemm": gemm,
    "Reshape": reshape,
    "Flatten": lambda x, **a: x.reshape(math.prod(x.shape[:a.get("axis", 1)]), -1),
    "Softmax": softmax,
    "LRN": lambda x, **a: F.local_response_norm(x, a["size"], a.get("alpha", 1e-4), a.get("beta", 0.75),
                                                 a.get("bias", 1.0)),
    "Dropout": lambda x, **a: x,
    "Concat": lambda *xs, **a: torch.cat(xs, a["axis"]),
}


def load(path, device):
    """The graph's nodes to run as (function, inputs, output, attributes),
    and its constants (initializers and ConstantOfShape results) on the
    device; shape operands become Python lists, so that torch.compile
    traces nothing but tensor code."""
    model = onnx.load(path)
    g = model.graph
    host = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    nodes = []
    for n in g.node:
        if n.op_type == "ConstantOfShape":
            value = numpy_helper.to_array(attrs(n)["value"]) if n.attribute else np.zeros(1, np.float32)
            shape = tuple(int(d) for d in host[n.input[0]])
            host[n.output[0]] = np.full(shape, value.reshape(()), value.dtype)
        elif n.op_type not in OPS:
            raise SystemExit(f"{path}: operator {n.op_type} is not covered by torch_bench.py")
        else:
            nodes.append((OPS[n.op_type], [i for i in n.input if i], n.output[0], attrs(n)))
    shape_operands = {n.input[1] for n in g.node if n.op_type == "Reshape"}
    consts = {k: ([int(d) for d in v] if k in shape_operands else torch.from_numpy(v.copy()).to(device))
              for k, v in host.items()}
    inputs = [i.name for i in g.input if i.name not in host]
    return nodes, consts, inputs[0], g.output[0].name


def make_forward(nodes, consts, input_name, output_name):
    def forward(x):
        values = dict(consts)
        values[input_name] = x
        for op, ins, out, a in nodes:
            values[out] = op(*[values[i] for i in ins], **a)
        return values[output_name]
    return forward


def time_ms(fn, x, repeats):
    """Median, min and max ms of fn(x) on the device, with CUDA events."""
    for _ in range(5):
        fn(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(x)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def time_host_ms(fn, repeats):
    """The same by the host's clock, for a call that returns when its work is done."""
    for _ in range(5):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times), max(times)


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    model, input_pb, expected_pb = sys.argv[1:4]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithm per shape, as tunectl's cuDNN baseline
    device = torch.device("cuda")
    nodes, consts, input_name, output_name = load(model, device)
    forward = make_forward(nodes, consts, input_name, output_name)
    x = torch.from_numpy(read_tensor(input_pb).copy()).to(device)
    want = read_tensor(expected_pb).astype(np.float64)
    with torch.no_grad():
        got = forward(x).double().cpu().numpy().reshape(want.shape)
        err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
        print(f"{model}: {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN "
              f"{torch.backends.cudnn.version()}; eager output vs expected: relative error {err:.2e}")
        if not err < 1e-4:
            raise SystemExit("the eager output differs from the expected output")
        rows = [("PyTorch eager (fp32, TF32 off)", time_ms(forward, x, repeats))]
        try:
            start = time.time()
            compiled = torch.compile(forward)
            compiled(x)
            print(f"torch.compile: compiled in {time.time() - start:.1f} s")
            rows.append(("torch.compile (default mode)", time_ms(compiled, x, repeats)))
        except Exception as e:  # noqa: BLE001: a failed compile is reported, the eager row stands
            print(f"torch.compile failed: {type(e).__name__}: {e}"[:400])
    try:
        import onnxruntime as ort
        if "CUDAExecutionProvider" in ort.get_available_providers():
            sess = ort.InferenceSession(model, providers=["CUDAExecutionProvider"])
            feed = {input_name: read_tensor(input_pb)}
            rows.append(("ONNX Runtime CUDA EP (host input/output)",
                         time_host_ms(lambda: sess.run(None, feed), repeats)))
        else:
            print("onnxruntime has no CUDA execution provider here:", ort.get_available_providers())
    except Exception as e:  # noqa: BLE001
        print(f"onnxruntime: {type(e).__name__}: {e}"[:400])
    print(f"{'':42} {'median ms':>10} {'min':>8} {'max':>8}  ({repeats} calls)")
    for name, (median, lo, hi) in rows:
        print(f"{name:42} {median:10.3f} {lo:8.3f} {hi:8.3f}")


if __name__ == "__main__":
    main()

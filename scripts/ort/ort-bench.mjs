// The ONNX Runtime side of scripts/bench-vs-ort.sh (CPU execution provider,
// all graph optimizations, one inter-op thread, THREADS intra-op threads).
//
//   node ort-bench.mjs inputs MODEL DIR
//       prints NAME=FILE for each input, for `tunectl run --input`: the
//       model's own test data when it has some (MODEL without .onnx, then
//       _input_<i>.pb, the layout of ONNX's backend test data: a real image
//       rather than noise that a ReLU network may map to a constant), else
//       seeded inputs written to DIR/<file>.raw.
//   node ort-bench.mjs check MODEL DIR
//       runs the model once on the same inputs and compares every output
//       with the ONNX TensorProto file tunectl wrote, DIR/<file>.pb. Exit 1
//       on a mismatch.
//   node ort-bench.mjs testdata MODEL PREFIX
//       writes the seeded inputs and ONNX Runtime's outputs as ONNX
//       TensorProto files PREFIX_input_<i>.pb and PREFIX_output_<i>.pb (the
//       layout of ONNX's backend test data), for tests that run without it.
//   node ort-bench.mjs time MODEL RUNS
//       prints {"median_ms": ..} of RUNS back-to-back runs after 3 warm-ups.
// SHAPES="x=2x3x24x40 ..." gives the shapes of inputs with symbolic
// dimensions, as tunectl's --input-shape does.
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';

const threads = Number(process.env.THREADS || 1);

function fail(message) {
  console.error(`ort-bench: ${message}`);
  process.exit(2);
}

async function open(model) {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,  // errors only: no notes about unused initializers
  });
}

// Uniform [-1, 1) floats, 0/1 integers and booleans (as tunectl's random
// model inputs), from a fixed-seed xorshift so that every run is the same.
function seededInputs(session) {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 4294967296;
  };
  const pinned = Object.fromEntries((process.env.SHAPES || '').split(/\s+/).filter(Boolean).map((spec) => {
    const [name, dims] = spec.split('=');
    return [name, dims.split('x').map(Number)];
  }));
  const feeds = {};
  for (const info of session.inputMetadata) {
    if (!info.isTensor) fail(`input ${info.name} is not a tensor`);
    const shape = pinned[info.name] || info.shape;
    for (const d of shape)
      if (typeof d !== 'number') fail(`input ${info.name} has a symbolic dimension ${d}; give SHAPES="${info.name}=..."`);
    const count = shape.reduce((a, b) => a * b, 1);
    let data;
    if (info.type === 'float32') data = Float32Array.from({ length: count }, () => 2 * next() - 1);
    else if (info.type === 'int64') data = BigInt64Array.from({ length: count }, () => BigInt(next() < 0.5 ? 0 : 1));
    else if (info.type === 'int32') data = Int32Array.from({ length: count }, () => (next() < 0.5 ? 0 : 1));
    else if (info.type === 'bool') data = Uint8Array.from({ length: count }, () => (next() < 0.5 ? 0 : 1));
    else fail(`input ${info.name} has type ${info.type}, which this script does not generate`);
    feeds[info.name] = new ort.Tensor(info.type, data, shape);
  }
  return feeds;
}

// The fields of an ONNX TensorProto that tunectl writes: dims (1),
// data_type (2), name (8), raw_data (9); float_data (4) and int64_data (7)
// are read too.
function readTensorProto(file) {
  const buf = fs.readFileSync(file);
  let pos = 0;
  const varint = () => {
    let result = 0n, shift = 0n;
    for (;;) {
      const byte = buf[pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
    }
  };
  const tensor = { dims: [], dataType: 0, raw: null, floats: [], ints: [] };
  while (pos < buf.length) {
    const key = Number(varint());
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1) tensor.dims.push(Number(v));
      else if (field === 2) tensor.dataType = Number(v);
      else if (field === 7) tensor.ints.push(BigInt.asIntN(64, v));
    } else if (wire === 2) {
      const length = Number(varint());
      const bytes = buf.subarray(pos, pos + length);
      pos += length;
      if (field === 9) tensor.raw = bytes;
      else if (field === 1 || field === 7) {  // packed
        const end = pos; pos -= length;
        while (pos < end) (field === 1 ? tensor.dims : tensor.ints).push(field === 1 ? Number(varint()) : BigInt.asIntN(64, varint()));
      } else if (field === 4) {
        const copy = Uint8Array.from(bytes);
        tensor.floats.push(...new Float32Array(copy.buffer));
      }
    } else if (wire === 5) {
      if (field === 4) tensor.floats.push(buf.readFloatLE(pos));
      pos += 4;
    } else if (wire === 1) {
      pos += 8;
    } else {
      fail(`${file}: unexpected protobuf wire type ${wire}`);
    }
  }
  return tensor;
}

function writeTensorProto(file, name, tensor) {
  const types = { float32: 1, int32: 6, int64: 7, bool: 9 };
  if (!(tensor.type in types)) fail(`${name}: type ${tensor.type} is not written by this script`);
  const bytes = [];
  const varint = (v) => {
    let x = BigInt(v);
    do {
      let byte = Number(x & 0x7fn);
      x >>= 7n;
      if (x) byte |= 0x80;
      bytes.push(byte);
    } while (x);
  };
  const field = (number, wire) => varint((number << 3) | wire);
  for (const d of tensor.dims) { field(1, 0); varint(d); }
  field(2, 0); varint(types[tensor.type]);
  const nameBytes = Buffer.from(name, 'utf8');
  field(8, 2); varint(nameBytes.length); bytes.push(...nameBytes);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  field(9, 2); varint(data.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from(bytes), data]));
}

function tensorValues(tensor) {
  const FLOAT = 1, INT64 = 7;
  if (tensor.raw) {
    const copy = Uint8Array.from(tensor.raw);
    if (tensor.dataType === FLOAT) return Array.from(new Float32Array(copy.buffer), Number);
    if (tensor.dataType === INT64) return Array.from(new BigInt64Array(copy.buffer), Number);
    fail(`data type ${tensor.dataType} is not compared by this script`);
  }
  return tensor.dataType === INT64 ? tensor.ints.map(Number) : tensor.floats;
}

function fileNameFor(value) {
  return value.replace(/[/\\:]/g, '_');
}

// The model's test data files PREFIX_input_<i>.pb, one per input, or null.
function testDataFiles(model, session) {
  const prefix = model.replace(/\.onnx$/, '');
  const files = session.inputNames.map((_, i) => `${prefix}_input_${i}.pb`);
  return files.every((f) => fs.existsSync(f)) ? files : null;
}

function tensorFromProto(tensor) {
  const FLOAT = 1, INT64 = 7;
  const values = tensorValues(tensor);
  if (tensor.dataType === FLOAT) return new ort.Tensor('float32', Float32Array.from(values), tensor.dims);
  if (tensor.dataType === INT64) return new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), tensor.dims);
  fail(`test data of type ${tensor.dataType} is not read by this script`);
}

// The model's test data when it has some, else seeded inputs.
function modelInputs(model, session) {
  const files = testDataFiles(model, session);
  if (!files) return seededInputs(session);
  const feeds = {};
  session.inputNames.forEach((name, i) => { feeds[name] = tensorFromProto(readTensorProto(files[i])); });
  return feeds;
}

async function writeInputs(model, dir) {
  const session = await open(model);
  const files = testDataFiles(model, session);
  if (files) {
    session.inputNames.forEach((name, i) => console.log(`${name}=${files[i]}`));
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, tensor] of Object.entries(seededInputs(session))) {
    const file = path.join(dir, `${fileNameFor(name)}.raw`);
    fs.writeFileSync(file, Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    console.log(`${name}=raw:${file}`);
  }
}

async function check(model, dir) {
  const session = await open(model);
  const feeds = modelInputs(model, session);
  const outputs = await session.run(feeds);
  let ok = true;
  for (const [name, expected] of Object.entries(outputs)) {
    const file = path.join(dir, `${fileNameFor(name)}.pb`);
    if (!fs.existsSync(file)) { console.error(`output ${name}: tunectl wrote no ${file}`); ok = false; continue; }
    const got = readTensorProto(file);
    const shape = expected.dims.join('x');
    if (got.dims.join('x') !== shape) {
      console.error(`output ${name}: tunectl shape ${got.dims.join('x')}, ONNX Runtime ${shape}`);
      ok = false;
      continue;
    }
    const values = tensorValues(got);
    const want = Array.from(expected.data, Number);
    let worst = 0, worstAt = 0, bad = 0;
    for (let i = 0; i < want.length; ++i) {
      const err = Math.abs(values[i] - want[i]);
      const tolerance = 1e-4 + 1e-3 * Math.abs(want[i]);
      if (!(err <= tolerance)) ++bad;
      if (!(err <= worst)) { worst = err; worstAt = i; }
    }
    console.log(`output ${name} ${shape}: ${bad} of ${want.length} values off (|tunectl - ORT| <= 1e-4 + 1e-3|ORT|); ` +
      `largest difference ${worst.toExponential(2)} at ${worstAt}`);
    ok = ok && bad === 0;
  }
  if (!ok) process.exit(1);
}

async function testdata(model, prefix) {
  const session = await open(model);
  const feeds = seededInputs(session);
  const outputs = await session.run(feeds);
  Object.entries(feeds).forEach(([name, t], i) => writeTensorProto(`${prefix}_input_${i}.pb`, name, t));
  session.outputNames.forEach((name, i) => writeTensorProto(`${prefix}_output_${i}.pb`, name, outputs[name]));
}

async function time(model, runs) {
  const session = await open(model);
  const feeds = seededInputs(session);
  for (let i = 0; i < 3; ++i) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    const start = performance.now();
    await session.run(feeds);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  console.log(JSON.stringify({ median_ms: ms[Math.floor(ms.length / 2)], min_ms: ms[0], max_ms: ms[ms.length - 1] }));
}

const [mode, model, arg] = process.argv.slice(2);
if (mode === 'inputs' && model && arg) await writeInputs(model, arg);
else if (mode === 'check' && model && arg) await check(model, arg);
else if (mode === 'testdata' && model && arg) await testdata(model, arg);
else if (mode === 'time' && model && Number(arg) > 0) await time(model, Number(arg));
else fail('usage: node ort-bench.mjs inputs|check MODEL DIR | testdata MODEL PREFIX | time MODEL RUNS');

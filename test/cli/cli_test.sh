#!/usr/bin/env bash
# The command line as a user meets it: exit codes and messages for bad input
# (0 ok, 1 bad command line, 2 user error), and the happy paths of each
# subcommand on the shipped model. Usage: cli_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
onnx=$repo/../shared/onnx
source "$(dirname "$0")/cli_lib.sh"

[ -d "$onnx/node" ] || { echo "FAIL: ONNX test data missing at $onnx"; exit 1; }
model=$repo/models/small_cnn.onnx
input=$repo/models/small_cnn_input_0.pb
head -c 1000 "$model" >"$work/truncated.onnx"
yes garbage | head -c 4096 >"$work/garbage.onnx"

expect 0 "tunectl" -- "$tunectl" --version
expect 0 "compile" -- "$tunectl" --help
expect 1 "--bogus" -- "$tunectl" tasks "$model" --bogus
expect 1 "model is required" -- "$tunectl" tasks
expect 2 "not a valid ONNX model" -- "$tunectl" tasks "$work/truncated.onnx"
expect 2 "not a valid ONNX model" -- "$tunectl" tasks "$work/garbage.onnx"
expect 2 "cannot open" -- "$tunectl" tasks "$work/missing.onnx"
expect 2 "unsupported operator Det" -- "$tunectl" tasks "$onnx/node/test_det_2d/model.onnx"
expect 2 "missing input 'input'" -- "$tunectl" run "$model" --output-dir "$work/out"
expect 2 "has shape [3x4x5]" -- "$tunectl" run "$model" \
  --input "input=$onnx/node/test_relu/test_data_set_0/input_0.pb" --output-dir "$work/out"
expect 2 "unknown input 'x'" -- "$tunectl" run "$model" --input "x=$input" --output-dir "$work/out"
expect 2 "split of" -- "$tunectl" compile-op --op matmul --steps '[["SP",2,0,64,[0],true]]'
expect 2 "not valid JSON" -- "$tunectl" compile-op --op matmul --steps '[["SP"'

# Channel-blocked on CPUs without a log: one more task than in NCHW, the
# transform out of blocks; the 3-channel input is one block of 3, and the
# first convolution's task reads it as it is (its transform inside).
expect 0 "total: 8 tasks" -- "$tunectl" tasks "$model"
expect 0 "to_nchwc_conv2d_nchwc_relu_0      [1x3x32x32], [2x1x3x3x3x8], [2x8] -> [1x2x32x32x8]" -- \
  "$tunectl" tasks "$model" --target "llvm -mcpu=x86-64-v3"
expect 0 "total: 7 tasks" -- "$tunectl" tasks "$model" --layout nchw
# SqueezeNet's eight fire modules: their channel Concats cost no kernel.
expect 0 "8 Concats computed in place" -- "$tunectl" tasks "$onnx/light/light_squeezenet.onnx"
expect 1 "--layout" -- "$tunectl" tasks "$model" --layout nhwc
expect 2 "--layout nchwc is for CPU targets" -- "$tunectl" tasks "$model" --target cuda --layout nchwc
expect 0 "workload_key" -- "$tunectl" tasks "$model" --json
check "tasks --json gives shapes as lists of dimensions" \
  bash -c '"$0" tasks "$1" --layout nchw --json | tr -d " \n" | grep -q "\"outputs\":\[\[1,16,32,32\]\]"' "$tunectl" "$model"
check "the tasks table prints shapes as [1x16x32x32]" \
  bash -c '"$0" tasks "$1" --layout nchw | grep -q -- "-> \[1x16x32x32\]"' "$tunectl" "$model"
expect 0 "output" -- "$tunectl" run "$model" --input "input=$input" --output-dir "$work/out"
# An input that decides a shape: run specializes on its file's value, the
# other commands on --bind; without a value the error names it and the flag.
reshape=$onnx/node/test_reshape_reordered_all_dims
expect 0 "reshaped float32 [4x2x3]" -- "$tunectl" run "$reshape/model.onnx" \
  --input "data=$reshape/test_data_set_0/input_0.pb" --input "shape=$reshape/test_data_set_0/input_1.pb" \
  --output-dir "$work/reshape"
expect 2 "it is the model input 'shape': give its value with --bind shape=" -- "$tunectl" tasks "$reshape/model.onnx"
expect 0 "[2x3x4] -> [4x2x3]" -- "$tunectl" tasks "$reshape/model.onnx" --bind shape=4,2,3
expect 0 "[2x3x4] -> [6x4x1]" -- "$tunectl" tasks "$reshape/model.onnx" --bind shape=6,-1,1
expect 2 "--bind shape gives 2 values, but input 'shape' of shape [3] holds 3" -- "$tunectl" tasks "$reshape/model.onnx" --bind shape=6,4
check "run wrote output.pb" test -s "$work/out/output.pb"
# NumPy files in and out: Relu of its own output is that output again.
relu=$onnx/node/test_relu
expect 0 "y float32 [3x4x5]" -- "$tunectl" run "$relu/model.onnx" --input "x=$relu/test_data_set_0/input_0.pb" \
  --output-format npy --output-dir "$work/relu1"
expect 0 "y float32 [3x4x5]" -- "$tunectl" run "$relu/model.onnx" --input "x=$work/relu1/y.npy" \
  --output-dir "$work/relu2" --expected "$relu/test_data_set_0"
expect 0 "outputs match the expected ones in $relu/test_data_set_0" -- "$tunectl" run "$relu/model.onnx" \
  --input "$relu/test_data_set_0/input_0.pb" --output-dir "$work/relu3" --expected "$relu/test_data_set_0"
check "run reads and writes .npy (relu twice is relu once)" cmp -s "$work/relu1/y.npy" "$work/relu2/y.npy"
# Sequences and optionals: read from their .pb files (named or bare), written
# as .pb (also when the format is npy), compared tensor by tensor; an input
# with a symbolic dimension takes the given tensor's shape.
seq=$onnx/node/test_identity_sequence
expect 0 "y[1] float32 [1x1x2x2]: 2 3 1 5" -- "$tunectl" run "$seq/model.onnx" --input "$seq/test_data_set_0/input_0.pb" \
  --output-dir "$work/seq1" --expected "$seq/test_data_set_0"
expect 0 "y: a sequence of tensors, 2 tensors" -- "$tunectl" run "$seq/model.onnx" --input "x=$work/seq1/y.pb" \
  --output-format npy --output-dir "$work/seq2" --expected "$seq/test_data_set_0"
check "a sequence output round-trips through its .pb file" cmp -s "$work/seq1/y.pb" "$work/seq2/y.pb"
expect 2 "input 'x' is a sequence of tensors of float32" -- "$tunectl" run "$seq/model.onnx" --seed 1 \
  --output-dir "$work/o"
expect 2 "is not a valid ONNX SequenceProto file" -- "$tunectl" run "$seq/model.onnx" \
  --input "x=$relu/test_data_set_0/input_0.pb" --output-dir "$work/o"
expect 2 "differs from the expected one" -- "$tunectl" run "$seq/model.onnx" --input "x=$work/seq1/y.pb" \
  --output-dir "$work/o" --expected "$onnx/node/test_sequence_insert_at_back/test_data_set_0"
opt=$onnx/node/test_optional_get_element_optional_sequence
expect 0 "outputs match the expected ones" -- "$tunectl" run "$opt/model.onnx" --input "$opt/test_data_set_0/input_0.pb" \
  --output-dir "$work/opt" --expected "$opt/test_data_set_0"
model8=$onnx/simple/test_sequence_model8
expect 0 "outputs match the expected ones" -- "$tunectl" run "$model8/model.onnx" \
  --input "X=$model8/test_data_set_0/input_0.pb" --input "Splits=$model8/test_data_set_0/input_1.pb" \
  --output-dir "$work/model8" --expected "$model8/test_data_set_0"
expect 2 "missing input 'input' (float32 [1x3x32x32]): give it with --input input=FILE.pb or FILE.npy, or use --seed N" \
  -- "$tunectl" run "$model" --output-dir "$work/out"
cp "$relu/test_data_set_0/input_0.pb" "$work/not-numpy.npy"
expect 2 "is not a valid .npy file" -- "$tunectl" run "$relu/model.onnx" --input "x=$work/not-numpy.npy" \
  --output-dir "$work/o"
expect 2 "holds no output.npy, output.pb or output_0.pb" -- "$tunectl" run "$model" --seed 1 --output-dir "$work/o" \
  --expected "$relu"
expect 0 "check: output matches the reference" -- "$tunectl" compile-op --op conv2d --check \
  --params '{"N":1,"C":8,"H":14,"W":14,"K":16,"R":3,"S":3,"pad":1}' --emit loop
# --profile: each root stage of a CPU kernel timed alone, then their sum and the whole kernel.
expect 0 "0   softmax_max" -- "$tunectl" compile-op --op softmax --params '{"shape":[16,100]}' --emit state --profile 3
expect 0 "the whole kernel" -- "$tunectl" compile-op --op softmax --params '{"shape":[16,100]}' --emit state --profile
expect 1 "--profile" -- "$tunectl" compile-op --op softmax --profile 0
expect 2 "builds device code" -- "$tunectl" compile-op --op softmax --target cuda --emit state --profile 3
# --emit passes: the function after schedule_to_loops and after each pass, in order.
pass_dump=$("$tunectl" compile-op --op matmul --params '{"M":8,"N":8,"K":4}' --steps '[["SP",2,0,8,[4],1]]' --emit passes 2>&1)
check "compile-op --emit passes lists the lowering steps in order" \
  test "$(grep '^// after' <<<"$pass_dump" | tr '\n' '|')" = \
  "// after schedule_to_loops|// after flatten_buffers|// after simplify_loops|// after partition_loops|// after promote_accumulators|"
check "compile-op --emit passes prints each function" test "$(grep -c '^func matmul(' <<<"$pass_dump")" -eq 5

# The README's operator table is `tunectl ops --markdown` (scripts/update-ops-table.sh).
check "the README's operator table is tunectl ops --markdown (run scripts/update-ops-table.sh)" \
  test "$(sed -n '/<!-- ops-table begin -->/,/<!-- ops-table end -->/p' "$repo/README.md" | sed '1d;$d')" = \
  "$("$tunectl" ops --markdown)"
expect 0 "Softsign" -- "$tunectl" ops

# -v and -q on any subcommand: debug details through spdlog, or nothing but results.
expect 0 "debug: simplify_graph: after fold_constants" -- "$tunectl" tasks "$model" -v
quiet=$("$tunectl" tune "$model" --layout nchw --trials 4 --log "$work/quiet.json" --kernels "$work/quiet.kernels" -q 2>&1)
check "tune -q shows no progress line" test "$(grep -c '\[round' <<<"$quiet")" -eq 0
check "tune -q still prints the summary" grep -q "4 new measurements" <<<"$quiet"

finish "cli"

"""Writes index_cnn_tail.onnx: the corner-index reader (index_cnn.onnx) from the output of its first
block (3x3 convolution 1 -> 16, ReLU, 2x2 max-pool) on. The C++ reader computes that block itself
(vision/src/index_reader.cpp, `firstBlock`): OpenCV 4.6's dnn spends 9.6 of its 15.3 ms on 400 patches
there (one input channel suits its convolution badly; its max-pool also records where each maximum
was), against 5 ms by hand. The weights stay in index_cnn.onnx only; the tail is cut from it
unchanged, so both files must come from the same training run: run this after every export
(train_index_cnn.py does). The C++ side checks the two against each other when it loads them and
reads with the whole net when they disagree.

    /usr/bin/python3 models/training/split_reader.py models/index_cnn.onnx models/index_cnn_tail.onnx
"""
import sys

import onnx
import onnx.utils

FIRST_BLOCK = ('Conv', 'Relu', 'MaxPool')


def split(full_path, tail_path):
    model = onnx.load(full_path)
    nodes = model.graph.node
    kinds = tuple(n.op_type for n in nodes[:3])
    if kinds != FIRST_BLOCK:
        raise SystemExit(f'{full_path}: the net does not begin with {FIRST_BLOCK} but {kinds}')
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in nodes[0].attribute}
    pool = {a.name: onnx.helper.get_attribute_value(a) for a in nodes[2].attribute}
    weights = {i.name: list(i.dims) for i in model.graph.initializer}
    if (weights.get(nodes[0].input[1]) != [16, 1, 3, 3] or list(attrs.get('pads', [])) != [1, 1, 1, 1]
            or list(attrs.get('strides', [1, 1])) != [1, 1] or list(pool.get('kernel_shape', [])) != [2, 2]
            or list(pool.get('strides', [])) != [2, 2]):
        raise SystemExit(f'{full_path}: the first block is not a 3x3 convolution 1 -> 16 (pad 1) and a 2x2 max-pool')
    onnx.utils.extract_model(full_path, tail_path, [nodes[2].output[0]], [o.name for o in model.graph.output])
    print(f'wrote {tail_path} (from {nodes[2].output[0]})', file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    split(sys.argv[1], sys.argv[2])

"""Independent helpers of the tests: a PNG reader (zlib only) and glTF node transforms in NumPy."""

import pathlib
import struct
import zlib

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]  # the repository root


def read_png(path):
    """The 8-bit RGBA, non-interlaced PNG at `path` as a (height, width, 4) uint8 array (PNG 1.2 §9)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, color, interlace) == (8, 6, 0), "only 8-bit RGBA, non-interlaced"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * 4
    out = np.zeros((height, stride), dtype=np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        up = out[y - 1] if y > 0 else np.zeros(stride, np.int32)
        if kind == 0:
            out[y] = line
        elif kind == 2:
            out[y] = (line + up) & 255
        else:  # Sub, Average and Paeth depend on the reconstructed left pixel: byte by byte
            row = out[y]
            for x in range(stride):
                left = row[x - 4] if x >= 4 else 0
                upleft = up[x - 4] if x >= 4 else 0
                if kind == 1:
                    pred = left
                elif kind == 3:
                    pred = (left + up[x]) // 2
                else:
                    p = left + up[x] - upleft
                    pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - upleft)
                    pred = left if pa <= pb and pa <= pc else up[x] if pb <= pc else upleft
                row[x] = (line[x] + pred) & 255
    return out.reshape(height, width, 4).astype(np.uint8)


def quaternion_matrix(q):
    """The 4 x 4 rotation of unit quaternion (x, y, z, w)."""
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0],
            [0, 0, 0, 1],
        ]
    )


def trs_matrix(node):
    """A glTF node's local matrix (glTF 2.0 §3.5.2): `matrix` (column-major), else T x R x S."""
    if "matrix" in node:
        return np.array(node["matrix"], dtype=np.float64).reshape(4, 4).T
    t = np.eye(4)
    t[:3, 3] = node.get("translation", [0, 0, 0])
    s = np.diag(list(node.get("scale", [1, 1, 1])) + [1])
    return t @ quaternion_matrix(node.get("rotation", [0, 0, 0, 1])) @ s

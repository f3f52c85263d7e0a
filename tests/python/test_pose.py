"""Poses read back through the module equal glTF 2.0's node transforms computed here in NumPy."""

import base64
import json
import math
import struct

import numpy as np
import pytest

import gltf_crowd
from support import quaternion_matrix, trs_matrix

SIN30, COS30 = math.sin(math.radians(15)), math.cos(math.radians(15))  # half of 30 degrees
# Four nodes under one root: TRS, an authored matrix, a non-uniform scale, and a node that the one
# animation translates linearly from (0, 0, 0) at 0 s to (2, 4, 6) at 2 s.
NODES = [
    {"name": "Root", "translation": [1, 2, 3], "rotation": [0, math.sqrt(0.5), 0, math.sqrt(0.5)],
     "scale": [2, 2, 2], "children": [1, 3]},
    {"name": "Arm", "matrix": [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0.5, 0.25, -1, 1], "children": [2]},
    {"name": "Hand", "translation": [0, 1, 0], "rotation": [SIN30, 0, 0, COS30], "scale": [1, 0.5, 1]},
    {"name": "Tail"},
]
TIMES, VALUES = [0.0, 2.0], [0, 0, 0, 2, 4, 6]


def document():
    data = struct.pack("<2f", *TIMES) + struct.pack("<6f", *VALUES)
    return {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": NODES,
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8},
                        {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [2]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"},
        ],
        "animations": [{"name": "Slide", "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}}]}],
    }


@pytest.fixture(scope="module")
def asset(tmp_path_factory):
    path = tmp_path_factory.mktemp("pose") / "nodes.gltf"
    path.write_text(json.dumps(document()))
    return gltf_crowd.load_asset(path)


def placement():
    """A placement with rotation, translation and scale."""
    m = quaternion_matrix([0, 0, math.sin(0.3), math.cos(0.3)])
    m[:3, :3] *= 1.5
    m[:3, 3] = [-4, 0.5, 7]
    return m


def expected_worlds(tail_translation):
    """world[n] = placement x world[parent] x local(n), from the file's values (glTF 2.0 §3.5.3)."""
    local = [trs_matrix(n) for n in NODES]
    local[3] = trs_matrix({"translation": tail_translation})
    root = placement() @ local[0]
    arm = root @ local[1]
    return [root, arm, arm @ local[2], root @ local[3]]


def test_asset_reads_the_file(asset):
    assert [n.name for n in asset.nodes] == ["Root", "Arm", "Hand", "Tail"]
    assert [n.parent for n in asset.nodes] == [-1, 0, 1, 0]
    assert asset.nodes[1].has_matrix
    assert [c.name for c in asset.clips] == ["Slide"] and asset.clips[0].duration_seconds == 2.0
    assert asset.find_node("Arm/Hand") == 2 and asset.find_clip("Slide") == 0
    for i, node in enumerate(NODES):
        np.testing.assert_allclose(asset.local_matrix(i), trs_matrix(node), atol=1e-6)


@pytest.mark.parametrize("seconds", [0.0, 0.5, 1.25])
def test_node_world_is_the_gltf_hierarchy(asset, seconds):
    crowd = gltf_crowd.Crowd(asset)
    actor = crowd.add_actor(transform=placement(), time=seconds, playing=False)
    tail = [VALUES[3 + k] * seconds / TIMES[1] for k in range(3)]  # LINEAR: (1 - t) a + t b
    for i, want in enumerate(expected_worlds(tail)):
        np.testing.assert_allclose(actor.node_world(i), want, atol=1e-5, err_msg=f"node {i}")
        np.testing.assert_allclose(actor.node_world(NODES[i]["name"]), want, atol=1e-5)
    np.testing.assert_allclose(actor.transform(), placement(), atol=1e-6)


def test_local_pose_is_the_file_trs(asset):
    crowd = gltf_crowd.Crowd(asset)
    actor = crowd.add_actor(time=1.0, playing=False)
    pose = actor.local_pose()
    assert pose.translations.shape == (4, 3) and pose.rotations.shape == (4, 4) and pose.scales.shape == (4, 3)
    for i in (0, 2):
        np.testing.assert_allclose(pose.translations[i], NODES[i]["translation"], atol=1e-6)
        np.testing.assert_allclose(pose.rotations[i], NODES[i]["rotation"], atol=1e-6)  # (x, y, z, w)
        np.testing.assert_allclose(pose.scales[i], NODES[i]["scale"], atol=1e-6)
    np.testing.assert_allclose(pose.translations[3], [1, 2, 3], atol=1e-6)
    assert pose.weights.shape == (0,)


def test_local_transform_override_moves_the_subtree(asset):
    crowd = gltf_crowd.Crowd(asset)
    actor = crowd.add_actor(transform=placement(), playing=False)
    actor.set_local_transform("Hand", translation=[0, 3, 0], rotation=[0, 0, 0, 1], scale=[1, 1, 1])
    want = expected_worlds([0, 0, 0])[1] @ trs_matrix({"translation": [0, 3, 0]})
    np.testing.assert_allclose(actor.node_world(2), want, atol=1e-5)
    actor.clear_local_transform(2)
    np.testing.assert_allclose(actor.node_world(2), expected_worlds([0, 0, 0])[2], atol=1e-5)

"""Library errors arrive as gltf_crowd.Error with the C++ Error's path and rule (docs/spec.md §16)."""

import math

import numpy as np
import pytest

import gltf_crowd


def error_of(call, *args, **kwargs):
    with pytest.raises(gltf_crowd.Error) as raised:
        call(*args, **kwargs)
    return raised.value


def test_error_is_a_runtime_error_with_path_and_rule(tmp_path):
    missing = tmp_path / "missing.glb"
    e = error_of(gltf_crowd.load_asset, missing)
    assert isinstance(e, RuntimeError)
    assert (e.path, e.rule) == (str(missing), "file_open") and str(e).startswith(str(missing) + ": ")


def test_loading_errors(tmp_path):
    picture = tmp_path / "picture.glb"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    assert error_of(gltf_crowd.load_asset, picture).rule == "not_gltf"
    e = error_of(gltf_crowd.load_asset_from_memory, b'{"asset": {"version": "1.0"}}')
    assert (e.path, e.rule) == ("asset.version", "asset_version")


def test_control_errors_change_nothing(character):
    crowd = gltf_crowd.Crowd(character)
    actor = crowd.add_actor(clip="Walking")
    e = error_of(actor.select_clip, "Moonwalk")
    assert (e.path, e.rule) == ("select_clip.name", "unknown_clip") and "Walking" in str(e)
    assert actor.active_clip() == "Walking"
    assert error_of(actor.set_speed, math.nan).rule == "not_finite"
    assert error_of(actor.node_world, "Tail").rule == "unknown_node"
    assert error_of(actor.node_world, 999).rule == "node_index"
    bad = [gltf_crowd.ActorOptions(id="ok"), gltf_crowd.ActorOptions(speed=math.inf)]
    e = error_of(crowd.add_actors, bad)
    assert (e.path, e.rule) == ("add_actors[1].speed", "not_finite") and crowd.actor_count() == 1
    assert error_of(crowd.add_actor, id=actor.id()).path == "add_actors[0].id"
    assert error_of(gltf_crowd.Crowd, character, capacity=0).rule


def test_argument_shapes_are_value_errors(character):
    crowd = gltf_crowd.Crowd(character)
    actor = crowd.add_actor()
    with pytest.raises(ValueError, match="set_transform.placement"):
        actor.set_transform(np.eye(3))
    with pytest.raises(ValueError, match="set_tint.rgba"):
        actor.set_tint((1, 1, 1))


def test_destroyed_crowd_and_closed_renderer(character):
    crowd = gltf_crowd.Crowd(character)
    actor = crowd.add_actor()
    renderer = gltf_crowd.Renderer(crowd, width=32, height=32, shadows=False)
    renderer.close()
    assert error_of(renderer.render).rule == "destroyed"
    crowd.destroy()
    assert crowd.destroyed() and error_of(actor.time).rule == "destroyed"


def test_video_errors_name_the_arguments(tmp_path):
    if not gltf_crowd.video_available():
        pytest.skip("built without FFmpeg")
    e = error_of(gltf_crowd.VideoWriter, tmp_path / "clip.gif", 64, 48)
    assert (e.path, e.rule) == ("VideoWriter.path", "video_format")
    e = error_of(gltf_crowd.VideoWriter, tmp_path / "clip.webm", 64, 48, codec="libx264")
    assert (e.path, e.rule) == ("VideoWriter.codec", "video_format")
    assert error_of(gltf_crowd.VideoWriter, tmp_path / "clip.mp4", 65, 48).rule == "invalid_size"

"""Headless rendering, PNG and video through the module, checked against the gltf-crowd tool."""

import math
import subprocess

import numpy as np
import pytest

import gltf_crowd
from support import read_png

BACKGROUND = (40, 46, 56)  # the tools' clear color (docs/spec.md §8.1)


def tool_scene(asset, n):
    """`gltf-crowd render --actors n`'s crowd, computed here as src/tools/crowd_scene.hpp describes it, in
    float32 as the tool computes: a square grid spaced by 1.25 x the rest pose's larger horizontal side and
    centred on the origin; actor i plays clip i mod C at phase (0.618 i) mod 1 and speed 1 + 0.4 ((i mod 5) / 4
    - 0.5)."""
    f = np.float32
    rest = asset.rest_bounds()
    size, center = rest.size(), rest.center()
    spacing = f(1.25) * max(size[0], size[2])
    columns = math.ceil(math.sqrt(n))
    rows = (n + columns - 1) // columns
    crowd = gltf_crowd.Crowd(asset, capacity=n)
    for i in range(n):
        placement = np.eye(4, dtype=np.float32)
        placement[0, 3] = (f(i % columns) - f(0.5) * f(columns - 1)) * spacing - center[0]
        placement[2, 3] = (f(i // columns) - f(0.5) * f(rows - 1)) * spacing - center[2]
        crowd.add_actor(clip=asset.clips[i % len(asset.clips)].name, phase=float(f(math.fmod(i * 0.618, 1.0))),
                        speed=float(f(1) + f(0.4) * (f(i % 5) / f(4) - f(0.5))), transform=placement)
    return crowd


def foreground(image):
    return np.any(image[:, :, :3] != BACKGROUND, axis=2)


def test_render_equals_the_tools_render(tool, character, tmp_path):
    """The default look (shadows, ground, 4x MSAA, the framing of render) byte for byte: the same crowd
    advanced 0.5 s in 1/30 s steps."""
    out = tmp_path / "tool.png"
    subprocess.run([tool, "render", "--actors", "5", "--seconds", "0.5", "--width", "160", "--height", "120",
                    "--out", out], check=True, capture_output=True)
    crowd = tool_scene(character, 5)
    for _ in range(15):
        crowd.update(1 / 30)
    renderer = gltf_crowd.Renderer(crowd, width=160, height=120)
    image = renderer.render()
    assert image.shape == (120, 160, 4) and image.dtype == np.uint8
    assert foreground(image).mean() > 0.5  # the ground and the actors
    np.testing.assert_array_equal(image, read_png(out))
    assert renderer.stats()["draws"] == 2 * renderer.stats()["shadow_draws"] == 22  # 11 groups, 2 passes


def test_hidden_and_tinted_actors(character):
    crowd = gltf_crowd.Crowd(character)
    actor = crowd.add_actor(clip="Idle")
    crowd.update(0.0)
    renderer = gltf_crowd.Renderer(crowd, width=96, height=128, shadows=False)
    plain = renderer.render()
    drawn = foreground(plain)
    assert 0.05 < drawn.mean() < 0.9 and not drawn[0, 0] and not drawn[-1, -1]
    actor.set_tint((1, 0, 0, 1))
    tinted = renderer.render()  # same pose and camera: the same pixels, without green and blue light
    np.testing.assert_array_equal(foreground(tinted), drawn)
    assert tinted[drawn, 1].mean() < 0.5 * plain[drawn, 1].mean()
    actor.set_visible(False)
    crowd.update(0.0)
    assert not foreground(renderer.render()).any()


def test_write_png_round_trip(tmp_path):
    image = np.random.default_rng(7).integers(0, 256, size=(5, 3, 4), dtype=np.uint8)
    gltf_crowd.write_png(tmp_path / "noise.png", image)
    np.testing.assert_array_equal(read_png(tmp_path / "noise.png"), image)
    with pytest.raises(ValueError, match="height, width, 4"):
        gltf_crowd.write_png(tmp_path / "bad.png", image[:, :, :3].copy())


def test_video(character, tmp_path):
    crowd = gltf_crowd.Crowd(character)
    crowd.add_actor(clip="Walking")
    crowd.update(0.0)
    renderer = gltf_crowd.Renderer(crowd, width=64, height=48, shadows=False)
    path = tmp_path / "walk.mp4"
    if not gltf_crowd.video_available():
        with pytest.raises(gltf_crowd.Error) as unavailable:
            gltf_crowd.VideoWriter(path, 64, 48)
        assert unavailable.value.rule == "video_unavailable"
        return
    with gltf_crowd.VideoWriter(path, 64, 48, fps=10) as video:
        for _ in range(3):
            video.write(renderer.render())
            crowd.update(0.1)
    assert video.frames() == 3 and video.codec() in ("libx264", "mpeg4")
    assert path.read_bytes()[4:8] == b"ftyp"  # an MP4 (ISO base media) file's first box
    with pytest.raises(gltf_crowd.Error) as finished:
        video.write(renderer.render())
    assert finished.value.rule == "destroyed"

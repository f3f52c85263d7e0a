#!/usr/bin/env python3
"""Renders a crowd with the gltf_crowd module: 25 actors of the built-in character (or of the glTF file
given) on a grid, each on its own clip and phase, half a second in, to a PNG.

    PYTHONPATH=build/python python3 examples/python/render_crowd.py [asset.glb] [--out crowd.png]
"""

import argparse

import numpy as np

import gltf_crowd

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("asset", nargs="?", help="a .gltf or .glb file; default: the built-in character")
parser.add_argument("--out", default="crowd.png", help="the PNG to write")
args = parser.parse_args()

asset = gltf_crowd.load_asset(args.asset) if args.asset else gltf_crowd.default_character()
clips = [clip.name for clip in asset.clips] or [""]  # "": the rest pose
size = asset.rest_bounds().size()
spacing = 1.25 * max(size[0], size[2], 1e-3)  # one footprint and a quarter apart

crowd = gltf_crowd.Crowd(asset, capacity=25)
for i in range(25):
    placement = np.eye(4)
    placement[:3, 3] = [(i % 5 - 2) * spacing, 0, (i // 5 - 2) * spacing]
    crowd.add_actor(clip=clips[i % len(clips)], phase=i / 25, speed=0.8 + 0.1 * (i % 5), transform=placement)
for _ in range(15):
    crowd.update(1 / 30)

renderer = gltf_crowd.Renderer(crowd, width=640, height=360)  # headless: EGL, llvmpipe without a GPU
image = renderer.render(renderer.camera(azimuth_degrees=30))  # (360, 640, 4) uint8
gltf_crowd.write_png(args.out, image)
print(f"{crowd.actor_count()} actors, {renderer.stats()['draws']} draws, {renderer.gl_renderer()}: {args.out}")

"""Actor controls through the module, against the playback rules of docs/spec.md §3."""

import sys
import threading

import numpy as np
import pytest

import gltf_crowd

WALK = 1.2  # the built-in character's clip durations (docs/spec.md §9)


def test_clock_speed_pause_and_seek(character):
    crowd = gltf_crowd.Crowd(character)
    a = crowd.add_actor(id="a", clip="Walking", speed=2.0)
    crowd.update(0.25)
    assert a.time() == pytest.approx(0.5) and a.active_clip() == "Walking" and a.playing()
    a.pause()
    crowd.update(0.25)
    assert a.time() == pytest.approx(0.5) and not a.playing()
    a.play()
    a.set_speed(-1.0)
    crowd.update(0.1)
    assert a.time() == pytest.approx(0.4)
    a.seek(1.0)
    assert a.time() == pytest.approx(1.0) and a.phase() == pytest.approx(1.0 / WALK)
    a.set_loop(gltf_crowd.LoopMode.once)
    a.set_speed(1.0)
    crowd.update(1.0)
    assert a.finished() and a.time() == pytest.approx(WALK) and a.loop() == gltf_crowd.LoopMode.once


def test_crossfade_weights_rise_linearly(character):
    crowd = gltf_crowd.Crowd(character)
    a = crowd.add_actor(clip="Walking")
    a.select_clip("Running", crossfade_seconds=0.5, time=0.2)
    crowd.update(0.125)  # a quarter of the fade: the incoming clip at 1/4, the outgoing at 3/4
    (running, walking) = a.contributors()
    assert character.clips[running.clip].name == "Running" and character.clips[walking.clip].name == "Walking"
    assert running.weight == pytest.approx(0.25) and walking.weight == pytest.approx(0.75)
    assert running.seconds == pytest.approx(0.325) and walking.seconds == pytest.approx(0.125)
    crowd.update(0.5)
    assert [c.weight for c in a.contributors()] == [1.0]


def test_add_find_remove_and_batch(character):
    crowd = gltf_crowd.Crowd(character, capacity=2)
    crowd.reserve(5)
    actors = crowd.add_actors([gltf_crowd.ActorOptions(id=f"x{i}", phase=0.5) for i in range(5)])
    assert crowd.actor_count() == 5 and crowd.capacity() >= 5
    assert [a.id() for a in crowd.actors()] == [f"x{i}" for i in range(5)]
    assert crowd.find_actor("x3").id() == "x3" and crowd.find_actor("nobody") is None
    assert crowd.remove_actors(["x0", "x4", "nobody"]) == 2 and crowd.remove_actor("x1")
    with pytest.raises(gltf_crowd.Error) as removed:
        actors[0].time()
    assert removed.value.rule == "stale_actor"
    assert actors[2].phase() == pytest.approx(0.5)


def test_placement_tint_visibility(character):
    crowd = gltf_crowd.Crowd(character)
    m = np.eye(4)
    m[:3, 3] = [3, 0, -2]
    a = crowd.add_actor(transform=m, tint=(1, 0.5, 0.25, 1))
    np.testing.assert_array_equal(a.transform(), m)
    np.testing.assert_array_equal(a.tint(), [1, 0.5, 0.25, 1])
    a.set_visible(False)
    crowd.update(0.0)
    assert not a.visible() and crowd.frame_stats()["hidden_actors"] == 1 and crowd.frame() == 1


def test_update_and_render_release_the_gil(character):
    """Another Python thread takes the GIL while update() and render() work. Forced switches come only every
    0.2 s here: a call that released the GIL then waits for the counter to give it back, so the counter moves
    during the call; a call holding the GIL would return with the counter where it was."""
    crowd = gltf_crowd.Crowd(character, capacity=40000)  # an update of about 15 ms on 2 cores
    crowd.add_actors([gltf_crowd.ActorOptions(phase=i / 40000) for i in range(40000)])
    small = gltf_crowd.Crowd(character)
    small.add_actor()
    small.update(0.0)
    renderer = gltf_crowd.Renderer(small, width=480, height=360, shadows=False)  # about 10 ms
    renderer.render()  # compiles the shaders
    ticks, done, started = [0], threading.Event(), threading.Event()

    def count():
        started.set()
        while not done.is_set():
            ticks[0] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.2)
    counter = threading.Thread(target=count)
    counter.start()
    try:
        started.wait()
        before = ticks[0]
        crowd.update(1 / 30)
        during_update = ticks[0] - before
        before = ticks[0]
        renderer.render()
        during_render = ticks[0] - before
    finally:
        done.set()
        counter.join()
        sys.setswitchinterval(interval)
    assert during_update > 1000
    assert during_render > 1000

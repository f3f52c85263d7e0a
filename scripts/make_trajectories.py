#!/usr/bin/env python3
"""Example pedestrian trajectories: N agents leave a room through a bottleneck.

A simple social-force model (Helbing & Molnar 1995; Helbing, Farkas & Vicsek 2000): each agent
relaxes towards its desired velocity (speed v0 ~ N(1.34, 0.26) m/s clipped to [0.8, 1.8], time
constant 0.5 s), and is pushed away from other agents and from walls by A exp((r - d) / B), with
A = 25 m/s^2 and B = 0.08 m; speed is capped at 1.3 v0. Agents head for the door, then along the
corridor into the exit hall, and leave the simulation at x >= 25 m. Written as:

  --sqlite FILE  JuPedSim's SqliteTrajectoryWriter output, database version 3 (its schema and
                 metadata exactly; the geometry hash is a blake2b of the WKT instead of Python's
                 per-process hash())
  --csv FILE     time,id,x,y,heading: seconds, metres, heading in radians counter-clockwise from
                 +x (the direction of motion; empty below 0.1 m/s)

Geometry (metres, JuPedSim's x-y plane): the room [0, 16] x [0, 16] with a square pillar
[3, 4] x [12, 13], a door 1.2 m wide at x = 16, y in [7.4, 8.6], a corridor to x = 20 and the exit
hall [20, 26] x [2, 14]. Python's stdlib only; the same arguments give the same files.

Usage: make_trajectories.py [--agents 300] [--seconds 200] [--fps 25] [--seed 1]
                            [--sqlite out.sqlite] [--csv out.csv]
"""
import argparse
import csv
import hashlib
import math
import random
import sqlite3
import sys

OUTER = [(0, 0), (16, 0), (16, 7.4), (20, 7.4), (20, 2), (26, 2), (26, 14), (20, 14), (20, 8.6),
         (16, 8.6), (16, 16), (0, 16)]
PILLAR = [(3, 12), (4, 12), (4, 13), (3, 13)]
SUBSTEPS = 2          # integration steps per written frame
RADIUS = 0.25         # body radius, m
A, B = 25.0, 0.08     # repulsion strength (m/s^2) and range (m), agents and walls alike
TAU = 0.5             # relaxation time, s
CELL = 1.0            # neighbour grid cell; repulsion beyond 1 m is below 1e-3 m/s^2
EXIT_X = 25.0


def ring_wkt(points):
    closed = points + [points[0]]
    return "(" + ", ".join(f"{x:.15g} {y:.15g}" for x, y in closed) + ")"


def geometry_wkt():
    return f"POLYGON ({ring_wkt(OUTER)}, {ring_wkt(PILLAR)})"


def wall_segments():
    segments = []
    for ring in (OUTER, PILLAR):
        for i, a in enumerate(ring):
            segments.append((a, ring[(i + 1) % len(ring)]))
    return segments


def target(x, y):
    """The point an agent at (x, y) walks towards."""
    if x < 16.0:
        return 16.6, 8.0
    if x < 20.0:
        return 20.6, 8.0
    return 26.5, y


def closest_on_segment(px, py, segment):
    (ax, ay), (bx, by) = segment
    dx, dy = bx - ax, by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    t = min(1.0, max(0.0, t))
    return ax + t * dx, ay + t * dy


def spawn(rng, count):
    """Sites of a 0.55 m grid in the room (clear of the pillar), shuffled, each moved by up to 2 cm."""
    sites = [(0.5 + 0.55 * i, 0.5 + 0.55 * j) for i in range(27) for j in range(28)]
    sites = [(x, y) for x, y in sites if not (2.5 < x < 4.5 and 11.5 < y < 13.5)]
    rng.shuffle(sites)
    return [(x + rng.uniform(-0.02, 0.02), y + rng.uniform(-0.02, 0.02)) for x, y in sites[:count]]


def simulate(agents, seconds, fps, seed):
    """Yields (frame, [(id, x, y, vx, vy), ...]) for each written frame with agents, by id."""
    rng = random.Random(seed)
    positions = spawn(rng, agents)
    state = {}
    for i, (x, y) in enumerate(positions):
        v0 = min(1.8, max(0.8, rng.gauss(1.34, 0.26)))
        state[i + 1] = [x, y, 0.0, 0.0, v0]
    walls = wall_segments()
    dt = 1.0 / (fps * SUBSTEPS)
    frames = int(round(seconds * fps))
    for frame in range(frames + 1):
        if not state:
            return
        yield frame, [(i, s[0], s[1], s[2], s[3]) for i, s in sorted(state.items())]
        for _ in range(SUBSTEPS):
            grid = {}
            for i, s in state.items():
                grid.setdefault((int(s[0] // CELL), int(s[1] // CELL)), []).append(i)
            accelerations = {}
            for i, (x, y, vx, vy, v0) in state.items():
                tx, ty = target(x, y)
                dx, dy = tx - x, ty - y
                norm = math.hypot(dx, dy) or 1.0
                ax = (v0 * dx / norm - vx) / TAU
                ay = (v0 * dy / norm - vy) / TAU
                cx, cy = int(x // CELL), int(y // CELL)
                for gx in (cx - 1, cx, cx + 1):
                    for gy in (cy - 1, cy, cy + 1):
                        for j in grid.get((gx, gy), ()):
                            if j == i:
                                continue
                            ox, oy = x - state[j][0], y - state[j][1]
                            d = math.hypot(ox, oy)
                            if 0.0 < d < CELL:
                                f = A * math.exp((2 * RADIUS - d) / B)
                                ax += f * ox / d
                                ay += f * oy / d
                for segment in walls:
                    wx, wy = closest_on_segment(x, y, segment)
                    ox, oy = x - wx, y - wy
                    d = math.hypot(ox, oy)
                    if 0.0 < d < CELL:
                        f = A * math.exp((RADIUS - d) / B)
                        ax += f * ox / d
                        ay += f * oy / d
                accelerations[i] = (ax, ay)
            for i, (ax, ay) in accelerations.items():
                s = state[i]
                vx, vy = s[2] + ax * dt, s[3] + ay * dt
                speed = math.hypot(vx, vy)
                if speed > 1.3 * s[4]:
                    vx, vy = vx * 1.3 * s[4] / speed, vy * 1.3 * s[4] / speed
                s[0], s[1], s[2], s[3] = s[0] + vx * dt, s[1] + vy * dt, vx, vy
            for i in [i for i, s in state.items() if s[0] >= EXIT_X]:
                del state[i]


def geometry_hash(wkt):
    return int.from_bytes(hashlib.blake2b(wkt.encode(), digest_size=8).digest(), "little", signed=True)


class SqliteWriter:
    """The tables, index and metadata of JuPedSim's SqliteTrajectoryWriter, version 3."""

    def __init__(self, path, fps):
        wkt = geometry_wkt()
        self.hash = geometry_hash(wkt)
        self.con = sqlite3.connect(path)
        self.con.execute("PRAGMA synchronous=OFF;")
        self.con.execute("PRAGMA journal_mode=OFF;")
        cur = self.con.cursor()
        for table in ("trajectory_data", "metadata", "geometry", "frame_data"):
            cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute("CREATE TABLE trajectory_data ("
                    "   frame INTEGER NOT NULL,"
                    "   id INTEGER NOT NULL,"
                    "   pos_x REAL NOT NULL,"
                    "   pos_y REAL NOT NULL)")
        cur.execute("CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL)")
        cur.executemany("INSERT INTO metadata VALUES(?, ?)", (("version", 3), ("fps", float(fps))))
        cur.execute("CREATE TABLE geometry("
                    "   hash INTEGER NOT NULL, "
                    "   wkt TEXT NOT NULL)")
        cur.execute("CREATE UNIQUE INDEX geometry_hash on geometry( hash)")
        cur.execute("INSERT INTO geometry VALUES(?, ?)", (self.hash, wkt))
        cur.execute("CREATE TABLE frame_data("
                    "   frame INTEGER NOT NULL,"
                    "   geometry_hash INTEGER NOT NULL)")
        cur.execute("CREATE INDEX frame_id_idx ON trajectory_data(frame, id)")
        xs, ys = [x for x, _ in OUTER], [y for _, y in OUTER]
        cur.executemany("INSERT OR REPLACE INTO metadata(key, value) VALUES(?,?)",
                        [("xmin", str(float(min(xs)))), ("xmax", str(float(max(xs)))),
                         ("ymin", str(float(min(ys)))), ("ymax", str(float(max(ys))))])

    def write(self, frame, agents):
        self.con.executemany("INSERT INTO trajectory_data VALUES(?, ?, ?, ?)",
                             [(frame, i, x, y) for i, x, y, _, _ in agents])
        self.con.execute("INSERT INTO frame_data VALUES(?, ?)", (frame, self.hash))

    def close(self):
        self.con.commit()
        self.con.close()


class CsvWriter:
    def __init__(self, path, fps):
        self.fps = fps
        self.file = open(path, "w", newline="")
        self.writer = csv.writer(self.file, lineterminator="\n")
        self.writer.writerow(["time", "id", "x", "y", "heading"])

    def write(self, frame, agents):
        time = repr(frame / self.fps)
        for i, x, y, vx, vy in agents:
            heading = repr(math.atan2(vy, vx)) if math.hypot(vx, vy) >= 0.1 else ""
            self.writer.writerow([time, i, repr(x), repr(y), heading])

    def close(self):
        self.file.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=200.0, help="simulated time at most")
    parser.add_argument("--fps", type=int, default=25, help="frames written per second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sqlite", help="JuPedSim SQLite output (version 3)")
    parser.add_argument("--csv", help="CSV output")
    args = parser.parse_args()
    if args.agents < 1 or args.agents > 700 or args.fps < 1 or not args.seconds > 0:
        parser.error("--agents must be in [1, 700], --fps >= 1 and --seconds > 0")
    if not args.sqlite and not args.csv:
        parser.error("give --sqlite FILE, --csv FILE or both")
    writers = []
    if args.sqlite:
        writers.append(SqliteWriter(args.sqlite, args.fps))
    if args.csv:
        writers.append(CsvWriter(args.csv, args.fps))
    count = 0
    for frame, agents in simulate(args.agents, args.seconds, args.fps, args.seed):
        for writer in writers:
            writer.write(frame, agents)
        count += 1
    for writer in writers:
        writer.close()
    print(f"{args.agents} agents, {count} frames at {args.fps} fps", file=sys.stderr)


if __name__ == "__main__":
    main()

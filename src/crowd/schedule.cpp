// The crowd's frame (docs/architecture.md "One frame"): clocks, LOD classification, the
// update-rate schedule, then the parallel loop that runs the anim jobs for every due slot into
// the packed streams. The only file of the crowd that sees oneTBB.
#include <algorithm>
#include <optional>

#include <xmmintrin.h>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "crowd/frame_timer.hpp"
#include "crowd/pack.hpp"
#include "crowd/parallel_choice.hpp"

namespace gltf_crowd {

// What find_due_slots found: the slots evaluated now, and those advanced but deferred by
// update-rate LOD.
struct DueSlots {
  std::uint32_t evaluated = 0, deferred = 0;
};

// update() runs in the crowd's own arena, so a worker's slot index (current_thread_index) picks
// its scratch; all of them are built with the rig, none lazily inside a frame. Evaluations outside
// the parallel loop (flush_pending, settle_pending) run on the caller's thread in the first
// worker's scratch.
struct WorkerPool {
  tbb::task_arena arena;
  // kHierarchyLanes per worker: worker w evaluates up to that many slots at once in
  // scratch[w × kHierarchyLanes ...], with lanes[w] for their hierarchy pass.
  std::vector<Scratch> scratch;
  std::vector<LanesScratch> lanes;
  // group_due_slots' scratch: per group, the due slots it keeps in its own place; where each
  // region but the last ends (a slot), the order grouped by clip before its runs are sorted by
  // region, and each region's next position in that sort.
  std::vector<std::uint32_t> kept, region_ends, grouped, region_next;
  // find_due_slots' scratch when split: per part, its count of due slots per group (State::order_starts'
  // layout), and what it found.
  std::vector<std::uint32_t> part_starts;
  std::vector<DueSlots> part_found;
  ParallelChoice choice;  // for updates between kChunk due slots and kParallelNodes
  // One allocation before each worker's scratch, never read: keeps the last buffer one worker writes
  // in every batch off the cache line of the next worker's first (the benchmarks journal at fbbf183,
  // "Workers' scratch apart").
  std::vector<std::vector<char>> gaps;
};

// The evaluation's fixed FP mode (docs/spec.md §5.4), so a slot evaluates alike on every thread; flush
// to zero, as producing subnormals is slow (the benchmarks journal at fbbf183, "Flush to zero"). Threads
// in it are left alone (MXCSR access stalls); others get their MXCSR back as saved, flags included.
class FlushToZero {
 public:
  FlushToZero() noexcept : csr_(_mm_getcsr()) {
    if (!evaluating()) _mm_setcsr((csr_ & kFlags) | kEvaluation);
  }
  ~FlushToZero() {
    if (!evaluating()) _mm_setcsr(csr_);
  }
  FlushToZero(const FlushToZero&) = delete;
  FlushToZero& operator=(const FlushToZero&) = delete;

 private:
  static constexpr unsigned kFlags = 0x3Fu;  // MXCSR's sticky exception flags
  static constexpr unsigned kEvaluation = _MM_FLUSH_ZERO_ON | _MM_MASK_MASK | _MM_ROUND_NEAREST;
  bool evaluating() const noexcept { return (csr_ & ~kFlags) == kEvaluation; }
  unsigned csr_;
};

// Here, where WorkerPool is complete.
Crowd::State::State(const Asset& a) : asset(a) {}
Crowd::State::~State() = default;

// Bytes of each of WorkerPool::gaps: two pages, wider than any prefetcher's reach.
constexpr std::size_t kWorkerGapBytes = 8192;

void make_workers(Crowd::State& st) {
  if (!st.workers) {
    st.workers = std::make_unique<WorkerPool>();
    {
      // The arena captures the floating-point mode of the thread that initializes it and runs
      // every task in it: the evaluation's, so that each task's FlushToZero finds it set.
      const FlushToZero mode;
      st.workers->arena.initialize();
    }
    // oneTBB allocates on a thread's first parallel loop in an arena. A crowd that starts small
    // runs its updates on the caller's thread alone (ParallelChoice): without this loop, its first
    // update over the workers would allocate.
    st.workers->arena.execute([] { tbb::parallel_for(0, 64, [](int) {}); });
  }
  WorkerPool& pool = *st.workers;
  pool.scratch.clear();
  pool.lanes.clear();
  pool.gaps.clear();
  std::size_t joints = 0;  // the most of any skin: palette_lanes' staging
  for (const RigSkin& skin : st.draw.rig.skins) joints = std::max(joints, skin.joints.size());
  const auto workers = static_cast<std::size_t>(pool.arena.max_concurrency());
  pool.scratch.reserve(workers * kHierarchyLanes);
  pool.lanes.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) {
    pool.gaps.emplace_back(kWorkerGapBytes);
    for (std::size_t l = 0; l < kHierarchyLanes; ++l) pool.scratch.emplace_back(st.draw);
    pool.lanes.emplace_back(st.draw.rig.node_count(), joints, st.draw.rig.drawn.size());
  }
}

namespace {

// Evaluates pending `slots` on the caller's thread under the current generation, every row
// written, in batches of the first worker's lanes, and clears their marks.
void evaluate_pending(Crowd::State& st, std::span<const std::uint32_t> slots) noexcept {
  for (std::uint32_t slot : slots)
    if (st.pending[slot] & kPendingRows) st.placement_generation[slot] = st.generation;
  if (st.animation == Animation::gpu) {
    for (std::uint32_t slot : slots) write_record(st, slot);
  } else {
    const FlushToZero mode;
    WorkerPool& pool = *st.workers;
    const std::span<Scratch> lanes = std::span(pool.scratch).first(kHierarchyLanes);
    for (std::size_t i = 0; i < slots.size(); i += kHierarchyLanes)
      evaluate_slots(st, slots.subspan(i, std::min(slots.size() - i, kHierarchyLanes)), lanes, pool.lanes[0], false,
                     true);
  }
  for (std::uint32_t slot : slots) st.pending[slot] = 0;
}

// Before an update moves the clocks: evaluates the pending slots that it would not evaluate after
// them (paused, finished, without clips, hidden), as the control left them. Those it advances and
// shows stay pending, due in its loop even where update-rate LOD would defer them, and their
// placement generations rise with the update's generation (`generation`, raised next).
void settle_pending(Crowd::State& st) noexcept {
  std::vector<std::uint32_t>& slots = st.pending_slots;
  if (slots.empty()) return;
  const auto now = [&st](std::uint32_t slot) {
    const Playback& p = st.playback[slot];
    return p.paused || p.finished || p.count == 0 || st.hidden[slot];
  };
  const auto later = std::partition(slots.begin(), slots.end(), now);  // in place: no allocation
  if (later != slots.begin()) {
    ++st.generation;
    evaluate_pending(st, std::span(slots.begin(), later));
    slots.erase(slots.begin(), later);
  }
  for (std::uint32_t slot : slots)
    if (st.pending[slot] & kPendingRows) st.placement_generation[slot] = st.generation + 1;
}

// After the update's due pass found the pending slots settle_pending left: they are marked no more.
void clear_pending(Crowd::State& st) noexcept {
  for (std::uint32_t slot : st.pending_slots) st.pending[slot] = 0;
  st.pending_slots.clear();
}

}  // namespace

void flush_pending(Crowd::State& st) noexcept {
  if (st.pending_slots.empty()) return;
  ++st.generation;
  evaluate_pending(st, st.pending_slots);
  st.pending_slots.clear();
}

namespace {

// Animation::gpu: every advanced actor gets a new record (cheap, so update-rate LOD is moot);
// nothing is sampled or packed.
void record_update(Crowd::State& st, const std::optional<FrameTimer>& timer) {
  const auto n = static_cast<std::uint32_t>(st.size());
  std::uint32_t written = 0, tails = 0;
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    if (!st.stale[slot] || (st.hidden_count > 0 && st.hidden[slot])) continue;  // hidden: written when shown
    write_record(st, slot);
    ++written;
    tails += st.playback[slot].count > kRecordContributors;
  }
  finish_stage_times(timer, {}, 0, st.stats);
  st.stats.actors_evaluated = written;
  st.stats.actors_deferred = 0;
  st.stats.actors_batched_by_clip = 0;
  // A renderer uploads a written slot's layer records with its record (docs/spec.md §3.11).
  const std::uint64_t layer_bytes = st.layer_records.empty() ? 0 : sizeof(LayerRecord) * kMaxLayers;
  st.stats.packed_bytes =
      (sizeof(PlaybackRecord) + layer_bytes) * std::uint64_t{written} + sizeof(PlaybackRecordTail) * tails;
}

// Due slots per region of group_due_slots: at most about one batch per group and region for
// RobotExpressive's 14 clips, so that a batch seldom straddles two regions.
constexpr std::uint32_t kRegionSlots = 128;

// Due slots per task of run_update's parallel loop.
constexpr std::uint32_t kChunk = 32;
// Above this many node evaluations (due actors × draw rig nodes) the workers always run the due slots:
// they were faster there (the benchmarks journal at fbbf183, "Serial or parallel, measured"). From
// kChunk due slots up to here, ParallelChoice measures which way is faster now.
constexpr std::uint64_t kParallelNodes = 32768;

// Groups State::order (on entry the due slots in slot order, order_starts their counts by order_key + 1)
// by clip, so batches sample across lanes; a group's last slots under kFewestLanes go after every group.
// On 2+ workers, runs of kHierarchyLanes go into regions of neighbouring slots: a chunk writes one part.
void group_due_slots(Crowd::State& st, std::uint32_t evaluated, std::size_t workers) {
  std::vector<std::uint32_t>& starts = st.order_starts;
  WorkerPool& pool = *st.workers;
  // Sized for the crowd's capacity on the first update (and the first after a reserve), whatever
  // it groups, so that a later frame with more groups or due slots allocates nothing.
  const std::size_t capacity = st.order.size();
  std::vector<std::uint32_t>& kept = pool.kept;
  std::vector<std::uint32_t>& ends = pool.region_ends;  // ends[r]: the slot after region r
  std::vector<std::uint32_t>& next = pool.region_next;  // a counting sort of the runs by region
  std::vector<std::uint32_t>& grouped = pool.grouped;
  kept.resize(starts.size() - 1);
  if (grouped.size() < capacity) {
    grouped.resize(capacity);
    ends.reserve(capacity / kRegionSlots);
    next.reserve(capacity / kRegionSlots + 1);
  }
  // One group is in slot order, its kept slots and then its last few: the due pass wrote that
  // order, and its runs are sorted by region.
  if (static_cast<std::size_t>(std::count(starts.begin(), starts.end(), 0u)) + 1 >= starts.size()) return;
  std::uint32_t tail = 0;  // the kept slots of every group come first
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::uint32_t part = starts[k + 1] % kHierarchyLanes;
    kept[k] = starts[k + 1] - (part < kFewestLanes ? part : 0u);
    starts[k + 1] = kept[k];
    tail += kept[k];
  }
  for (std::size_t k = 1; k < starts.size(); ++k) starts[k] += starts[k - 1];
  const auto n = static_cast<std::uint32_t>(st.size());
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    const std::uint32_t group = st.due_group[slot];
    if (group == kNotDue) continue;
    if (kept[group] > 0) {
      st.order[starts[group]++] = slot;
      --kept[group];
    } else {
      st.order[tail++] = slot;
    }
  }
  const std::uint32_t regions = workers < 2 ? 1 : evaluated / kRegionSlots;
  if (regions < 2) return;
  ends.clear();
  // About (r + 1) · evaluated / regions due slots lie before ends[r]; thresholds are at least
  // kRegionSlots − 1 apart, so every end is found.
  const auto threshold = [&] { return std::uint64_t{evaluated} * (ends.size() + 1) / regions; };
  std::uint64_t at = threshold();  // divided once per region, not per slot
  for (std::uint32_t slot = 0, due = 0; slot < n && ends.size() + 1 < regions; ++slot) {
    due += st.due_group[slot] != kNotDue;
    if (due >= at) {
      ends.push_back(slot + 1);
      at = threshold();
    }
  }
  std::copy_n(st.order.begin(), evaluated, grouped.begin());
  const auto region_of = [&](std::uint32_t position) {
    return static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), grouped[position]) - ends.begin());
  };
  // Whole runs only: the short last one stays last, so that every sorted run still starts at a
  // multiple of kRun, where the loop's chunks and batches start.
  constexpr std::uint32_t kRun = kHierarchyLanes;
  const std::uint32_t whole = evaluated / kRun * kRun;
  next.assign(regions + 1, 0u);
  for (std::uint32_t p = 0; p < whole; p += kRun) next[region_of(p) + 1] += kRun;
  for (std::uint32_t r = 1; r <= regions; ++r) next[r] += next[r - 1];
  for (std::uint32_t p = 0; p < whole; p += kRun) {
    std::uint32_t& to = next[region_of(p)];
    std::copy_n(grouped.begin() + p, kRun, st.order.begin() + to);
    to += kRun;
  }
}

// The due pass over [begin, end): advances clocks when `advance`, writes due_group and the due slots from
// `out`, adds their count per group to `starts`. Its own function, inlined, so its counters (a group's
// run too) stay in registers: run_update's locals escape to the parallel loop.
[[gnu::always_inline]] inline DueSlots find_due_slots(Crowd::State& st, std::uint32_t begin, std::uint32_t end,
                                                      bool advance, float delta_seconds, std::uint32_t* out,
                                                      std::uint32_t* starts) noexcept {
  const auto clips = static_cast<std::uint32_t>(st.asset.clips.size());
  // Without update-rate LOD, every stale slot that is shown is due (scheduled).
  const bool every_stale_due = !st.update_rate.enabled || !st.lod.active();
  const bool any_hidden = st.hidden_count > 0;
  DueSlots found;
  std::uint32_t run_key = kNotDue, run = 0;  // the group of the last due slot, and its due slots since the count
  for (std::uint32_t slot = begin; slot < end; ++slot) {
    if (advance) advance_clock(st, slot, end, delta_seconds);
    // A line of due_group ahead, for writing: the parallel loop left it on the core that read
    // it last (see evaluate_range).
    if (slot % 16 == 0 && slot + 32 < end) __builtin_prefetch(st.due_group.data() + slot + 32, 1);
    // Hidden actors are evaluated when shown again (set_visible).
    const bool stale = st.stale[slot];
    const bool due = stale && !(any_hidden && st.hidden[slot]) && (every_stale_due || scheduled(st, slot));
    out[found.evaluated] = slot;  // the due slots in slot order: group_due_slots keeps it for one group
    found.evaluated += due;
    found.deferred += stale && !due;
    const std::uint32_t key = due ? order_key(clips, st.playback[slot]) : kNotDue;
    st.due_group[slot] = key;
    if (!due) continue;
    if (key != run_key) {
      if (run > 0) starts[run_key + 1] += run;
      run_key = key;
      run = 0;
    }
    ++run;
  }
  if (run > 0) starts[run_key + 1] += run;
  return found;
}

// Slots per part of a due pass split across the workers, and the fewest slots in a crowd that splits it:
// serial, the pass was a large share of a big crowd's update on several workers (the benchmarks journal
// at fbbf183, "The due pass across the workers").
constexpr std::uint32_t kDuePart = 1024;
constexpr std::uint32_t kParallelDueSlots = 4 * kDuePart;

// The caller's FP mode on an arena thread for one part of a split due pass, so clocks advance alike
// split or not; the exception flags raised there stay on that thread.
class CallerMode {
 public:
  explicit CallerMode(unsigned caller) noexcept : csr_(_mm_getcsr()) {
    _mm_setcsr((csr_ & kFlags) | (caller & ~kFlags));
  }
  ~CallerMode() { _mm_setcsr(csr_); }
  CallerMode(const CallerMode&) = delete;
  CallerMode& operator=(const CallerMode&) = delete;

 private:
  static constexpr unsigned kFlags = 0x3Fu;  // MXCSR's sticky exception flags, the task's own
  unsigned csr_;
};

// The due pass (find_due_slots over every slot) into State::order and State::order_starts: on
// `workers` ≥ 2 for a crowd of kParallelDueSlots or more, in parts of kDuePart slots across the
// arena, whose due slots are then moved together in slot order. Results are the same either way.
DueSlots find_due_slots(Crowd::State& st, std::size_t workers, bool advance, float delta_seconds) {
  std::vector<std::uint32_t>& starts = st.order_starts;
  std::fill(starts.begin(), starts.end(), 0u);
  const auto n = static_cast<std::uint32_t>(st.size());
  WorkerPool& pool = *st.workers;
  const std::size_t keys = starts.size();
  // Each part counts into a row of lines of its own: parts of a crowd of many clips add to
  // their rows at nearly every slot.
  const std::size_t stride = (keys + 15) / 16 * 16;
  // Sized for the crowd's capacity on its first update (and the first after a reserve) whether
  // or not this one splits, so that no later update allocates: not one with more actors, nor one
  // on more threads than the warm-up's.
  const std::size_t most_parts = (st.order.size() + kDuePart - 1) / kDuePart;
  if (st.order.size() >= kParallelDueSlots && pool.part_found.size() < most_parts) {
    pool.part_starts.resize(most_parts * stride + 15);  // 15: room to start on a line
    pool.part_found.resize(most_parts);
  }
  if (workers < 2 || n < kParallelDueSlots)
    return find_due_slots(st, 0, n, advance, delta_seconds, st.order.data(), starts.data());
  const std::uint32_t parts = (n + kDuePart - 1) / kDuePart;
  const auto address = reinterpret_cast<std::uintptr_t>(pool.part_starts.data());
  std::uint32_t* const rows = pool.part_starts.data() + (64 - address % 64) % 64 / sizeof(std::uint32_t);
  std::fill_n(rows, std::size_t{parts} * stride, 0u);
  const unsigned caller = _mm_getcsr();
  pool.arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, parts, 1), [&](const tbb::blocked_range<std::uint32_t>& r) {
      const CallerMode mode(caller);
      for (std::uint32_t part = r.begin(); part != r.end(); ++part) {
        const std::uint32_t begin = part * kDuePart, end = std::min(begin + kDuePart, n);
        pool.part_found[part] = find_due_slots(st, begin, end, advance, delta_seconds, st.order.data() + begin,
                                               rows + std::size_t{part} * stride);
      }
    });
  });
  DueSlots found;
  for (std::uint32_t part = 0; part < parts; ++part) {
    const DueSlots& f = pool.part_found[part];
    std::copy_n(st.order.begin() + std::size_t{part} * kDuePart, f.evaluated, st.order.begin() + found.evaluated);
    found.evaluated += f.evaluated;
    found.deferred += f.deferred;
    for (std::size_t k = 0; k < keys; ++k) starts[k] += rows[part * stride + k];
  }
  return found;
}

}  // namespace

void run_update(Crowd::State& st, float delta_seconds) {
  settle_pending(st);  // before the clocks move, and outside what ParallelChoice weighs
  // ParallelChoice weighs the whole update: after an update on the workers, the next one's serial
  // passes read lines another core wrote, which timing the evaluation alone missed (docs/benchmarks.md,
  // "Tried and dropped").
  const std::uint64_t update_start = st.size() > kChunk ? ticks() : 0;  // only a choice reads it
  std::optional<FrameTimer> timer;  // only when asked: its counter reads slow a small crowd
  if (st.time_stages) timer.emplace();
  ++st.frames;
  ++st.generation;
  // Every clock advances, so clocks stay exact whether or not the pose is evaluated this frame.
  // Where each clock steps on its own and LOD does not read them (docs/spec.md §7), the due pass
  // advances them itself: one pass over the slots instead of two.
  const bool clocks_in_due_pass = st.animation == Animation::cpu && !st.lod.active() && clocks_alone(st);
  if (clocks_in_due_pass)
    st.events.clear();
  else
    advance_clocks(st, delta_seconds);  // and the events of the markers they cross
  // Levels follow the camera, placements and clips of this frame (docs/spec.md §7).
  refresh_instances(st);
  if (st.animation == Animation::gpu) {
    record_update(st, timer);  // writes every stale shown slot, the pending ones included
    return clear_pending(st);
  }
  WorkerPool& pool = *st.workers;
  // The arena's concurrency, or less under a tbb::global_control (gltf-crowd bench --threads). Up to
  // kChunk slots the update is serial anyway, so oneTBB is not asked (two library calls per update).
  const std::size_t threads =
      st.size() <= kChunk ? 1
                          : std::min(static_cast<std::size_t>(pool.arena.max_concurrency()),
                                     tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
  // Plain variables, not a structured binding: Debian 12's clang (the fuzzers' build) cannot
  // capture a binding in the lambdas below.
  const DueSlots due = find_due_slots(st, threads, clocks_in_due_pass, delta_seconds);
  clear_pending(st);
  const std::uint32_t evaluated = due.evaluated, deferred = due.deferred;
  const std::size_t concurrency = evaluated <= kChunk ? 1 : threads;
  // A serial update runs on the caller's thread alone, as one worker.
  const std::uint64_t nodes = std::uint64_t{evaluated} * st.draw.rig.node_count();
  const bool small = concurrency == 1;
  const bool chosen = !small && nodes <= kParallelNodes;
  const bool serial = small || (chosen && pool.choice.serial());
  const std::size_t workers = serial ? 1 : concurrency;
  group_due_slots(st, evaluated, workers);
  for (std::size_t w = 0; w < pool.lanes.size(); ++w) pool.scratch[w * kHierarchyLanes].batched_by_clip = 0;
  if (timer)
    for (Scratch& s : pool.scratch) {
      s.ticks = {};
      s.chunk_ticks = 0;
    }
  // Chunks of `order` in parallel, each task writing only its own slots, and batches of kHierarchyLanes
  // sharing one hierarchy pass: results depend on neither. Up to kChunk due slots run on the caller's
  // thread (the arena costs more than a small crowd); up to kParallelNodes ParallelChoice decides.
  const bool timing = timer.has_value();
  // Consumed entries of `order` and due_group are cleared, so their lines stay with the core that read
  // them until the next due pass writes them (the benchmarks journal at fbbf183, "Serial passes on
  // lines one core owns"). With one worker the stores only cost.
  const bool consume = workers > 1;
  const auto evaluate_range = [&st, &pool, timing, consume](std::uint32_t begin, std::uint32_t end,
                                                            std::size_t worker) {
    const std::span<Scratch> lanes = std::span(pool.scratch).subspan(worker * kHierarchyLanes, kHierarchyLanes);
    LanesScratch& lanes_scratch = pool.lanes[worker];
    std::array<std::uint32_t, kHierarchyLanes> batch;
    std::size_t size = 0;
    std::uint32_t batch_key = 0;
    bool timed = false;
    const FlushToZero mode;  // per task: tasks run on the arena's threads
    const std::uint64_t start = timing ? ticks() : 0;
    const auto flush = [&] {
      evaluate_slots(st, std::span(batch.data(), size), lanes, lanes_scratch, timed);
      size = 0;
      timed = false;
    };
    for (std::uint32_t i = begin; i != end; ++i) {
      if (i + 1 < end) prefetch_rows(st, st.order[i + 1]);  // the next range's may be consumed
      // The playback a batch ahead, within this chunk: the next chunk may be another worker's.
      if (i + kHierarchyLanes < end) __builtin_prefetch(&st.playback[st.order[i + kHierarchyLanes]], 1);
      const std::uint32_t slot = st.order[i];
      // A new group ends a batch that can already run across lanes on its own; a smaller one
      // takes the next group's slots (mixed, but still one pass for all).
      const std::uint32_t key = st.due_group[slot];
      if (consume) {
        st.order[i] = kNotDue;
        st.due_group[slot] = kNotDue;
      }
      if (size >= kFewestLanes && key != batch_key) flush();
      if (size == 0) batch_key = key;
      batch[size++] = slot;
      timed |= timing && (i & 63u) == 0;
      if (size == kHierarchyLanes) flush();
    }
    if (size > 0) flush();
    if (timing) lanes[0].chunk_ticks += ticks() - start;
  };
  if (serial) {
    evaluate_range(0, evaluated, 0);
  } else {
    // Chunks split at multiples of kHierarchyLanes in `order` (a range of 25 slots would end in
    // a batch of one, which goes alone), where group_due_slots' runs start; a clip's group that
    // does not start at such a multiple may still leave a short batch at a chunk's end.
    constexpr std::uint32_t kLanes = kHierarchyLanes;
    pool.arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, (evaluated + kLanes - 1) / kLanes, kChunk / kLanes),
                        [&](const tbb::blocked_range<std::uint32_t>& range) {
                          evaluate_range(range.begin() * kLanes, std::min(range.end() * kLanes, evaluated),
                                         static_cast<std::size_t>(tbb::this_task_arena::current_thread_index()));
                        });
    });
  }
  if (chosen) pool.choice.record(serial, static_cast<double>(ticks() - update_start) / static_cast<double>(nodes));
  std::array<std::uint64_t, 4> stage{};
  std::uint64_t chunks = 0;
  if (timer)
    for (const Scratch& s : pool.scratch) {
      for (std::size_t i = 0; i < 4; ++i) stage[i] += s.ticks[i];
      chunks += s.chunk_ticks;
    }
  finish_stage_times(timer, stage, chunks, st.stats);
  st.stats.actors_evaluated = evaluated;
  st.stats.actors_deferred = deferred;
  st.stats.actors_batched_by_clip = 0;
  for (std::size_t w = 0; w < pool.lanes.size(); ++w)
    st.stats.actors_batched_by_clip += pool.scratch[w * kHierarchyLanes].batched_by_clip;
  std::uint64_t bytes_per_actor = 0;
  for (const NodeStream& s : st.streams)
    bytes_per_actor += 48ull * (1 + (s.palette.empty() ? 0 : s.joint_count)) + 4ull * s.weight_stride;
  st.stats.packed_bytes = bytes_per_actor * evaluated;
}

}  // namespace gltf_crowd

// Actor visibility (docs/spec.md §5.10): a hidden actor keeps its slot and playback but is in no
// group's instance list, and update does not evaluate its pose until it is shown again. The
// classification (lod_classification.cpp) gives hidden slots kCulledLevel, so the update-rate schedule and
// reclassify treat them like culled actors.
#include "crowd/state.hpp"

namespace gltf_crowd {

namespace {

// Whether it changed the slot's visibility.
bool show(Crowd::State& st, std::uint32_t slot, bool visible) noexcept {
  if (st.hidden[slot] == !visible) return false;
  st.hidden[slot] = visible ? 0 : 1;
  if (visible)
    --st.hidden_count;
  else
    ++st.hidden_count;
  st.lod.plain_slots = kNoBand;  // the plain instance lists change too
  return true;
}

}  // namespace

// Hiding leaves the rows as they are. Showing marks the actor pending when update moved its clocks
// while it was hidden, so that it draws its current pose: reclassify marks every stale slot it makes drawn.
void Actor::set_visible(bool visible) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  if (show(st, s, visible)) reclassify(st);
}

void Crowd::set_visible(std::span<const Actor> actors, bool visible) {
  bool changed = false;
  for (std::uint32_t s : slots_of(actors, "set_visible")) changed |= show(*state_, s, visible);
  if (changed) reclassify(*state_);
}

bool Actor::visible() const {
  const std::uint32_t s = slot();
  return crowd().state_->hidden[s] == 0;
}

}  // namespace gltf_crowd

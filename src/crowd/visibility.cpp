// Actor visibility (docs/spec.md §5.10): a hidden actor keeps its slot and playback but is in no
// group's instance list, and its pose is not evaluated until it is shown again. The
// classification (lod_classification.cpp) gives hidden slots kCulledLevel, so the update-rate schedule and
// reclassify treat them like culled actors.
#include "crowd/state.hpp"

namespace gltf_crowd {

void Actor::set_visible(bool visible) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  if (st.hidden[s] == !visible) return;
  st.hidden[s] = visible ? 0 : 1;
  if (visible)
    --st.hidden_count;
  else
    ++st.hidden_count;
  st.lod.plain_slots = kNoBand;  // the plain instance lists change too
  // Hiding leaves the rows as they are. Showing evaluates the actor at once when update moved its
  // clocks while it was hidden: reclassify evaluates every stale slot it makes drawn.
  reclassify(st);
}

bool Actor::visible() const {
  const std::uint32_t s = slot();
  return crowd().state_->hidden[s] == 0;
}

}  // namespace gltf_crowd

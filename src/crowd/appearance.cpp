// Per-actor appearance (docs/spec.md §3.12): a base color tint and a material variant
// (KHR_materials_variants), kept in per-slot arrays that follow the slots like placements, with
// their own change clock so that a backend uploads them only when they change.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "crowd/state.hpp"

namespace gltf_crowd {
namespace {

// "a, b, c" in variant order, "none" without variants: what unknown_variant errors list.
std::string variant_name_list(const Asset& asset) {
  if (asset.material_variants.empty()) return "none (the asset has no KHR_materials_variants)";
  std::string out;
  for (const std::string& name : asset.material_variants) {
    if (!out.empty()) out += ", ";
    out += fmt::format("\"{}\"", name);
  }
  return out;
}

void touch(Crowd::State& st, std::uint32_t slot) noexcept { st.appearance_generation[slot] = ++st.appearance_clock; }

}  // namespace

void check_tint(const glm::vec4& rgba, const std::string& path, std::string_view actor) {
  for (int c = 0; c < 4; ++c) {
    if (std::isfinite(rgba[c]) && rgba[c] >= 0.0f) continue;
    throw Error(path, std::isfinite(rgba[c]) ? Rule::negative : Rule::not_finite,
                fmt::format("{}: tint ({}, {}, {}, {}) must be finite and >= 0 in every component", actor, rgba.r,
                            rgba.g, rgba.b, rgba.a));
  }
}

std::uint32_t variant_index(const Asset& asset, std::string_view name, const std::string& path,
                            std::string_view actor) {
  if (name.empty()) return kNoVariant;
  const int variant = asset.find_material_variant(name);
  if (variant < 0)
    throw Error(
        path, Rule::unknown_variant,
        fmt::format("{}: no material variant named \"{}\"; available: {}", actor, name, variant_name_list(asset)));
  return static_cast<std::uint32_t>(variant);
}

void set_appearance(Crowd::State& st, std::uint32_t slot, const glm::vec4& tint, std::uint32_t variant) noexcept {
  st.tints[slot] = tint;
  st.variants[slot] = variant;
  touch(st, slot);
}

void move_appearance(Crowd::State& st, std::uint32_t from, std::uint32_t to) noexcept {
  st.tints[to] = st.tints[from];
  st.variants[to] = st.variants[from];
  touch(st, to);
}

void Actor::set_tint(const glm::vec4& rgba) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  check_tint(rgba, "set_tint.rgba", fmt::format("actor \"{}\"", st.ids[s]));
  st.tints[s] = rgba;
  touch(st, s);
}

void Crowd::set_tint(std::span<const Actor> actors, const glm::vec4& rgba) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "set_tint");
  check_tint(rgba, "set_tint.rgba", fmt::format("{} actors", actors.size()));
  for (std::uint32_t s : slots) {
    state_->tints[s] = rgba;
    touch(*state_, s);
  }
}

glm::vec4 Actor::tint() const {
  const std::uint32_t s = slot();
  return crowd().state_->tints[s];
}

void Actor::set_material_variant(std::string_view name) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  st.variants[s] = variant_index(st.asset, name, "set_material_variant.name", fmt::format("actor \"{}\"", st.ids[s]));
  touch(st, s);
}

void Actor::clear_material_variant() {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  st.variants[s] = kNoVariant;
  touch(st, s);
}

const std::string& Actor::material_variant() const {
  static const std::string none;
  const std::uint32_t s = slot();
  const Crowd::State& st = *crowd().state_;
  const std::uint32_t variant = st.variants[s];
  return variant < st.asset.material_variants.size() ? st.asset.material_variants[variant] : none;
}

std::span<const glm::vec4> Crowd::tints() const noexcept {
  if (!state_) return {};
  return std::span(state_->tints).first(state_->size());
}

std::span<const std::uint32_t> Crowd::material_variants() const noexcept {
  if (!state_) return {};
  return std::span(state_->variants).first(state_->size());
}

std::span<const std::uint64_t> Crowd::appearance_generations() const noexcept {
  if (!state_) return {};
  return std::span(state_->appearance_generation).first(state_->size());
}

std::uint64_t Crowd::appearance_generation() const noexcept { return state_ ? state_->appearance_clock : 0; }

}  // namespace gltf_crowd

// Layer 5, gl: the OpenGL backend. It turns a Crowd's packed arrays into one instanced draw per
// non-empty primitive group (docs/spec.md §4–§6), draws the same crowd one actor at a time with
// CPU-skinned vertices as the correctness oracle (ReferenceRenderer), and provides the headless
// context, offscreen framebuffer and PNG writer the tools and tests need.
//
// What it does NOT do: own the application's window or camera, sort transparent instances, or
// fall back to one draw per actor. Every GL object it creates is counted (gl_object_count) so
// tests can prove destroy() deletes everything.
//
// Frame:
//   HeadlessContext context;                        // or any current GL 3.3+ / ES 3.0+ context
//   Framebuffer target({.width = 640, .height = 480});
//   CrowdRenderer renderer(crowd);                  // palette storage chosen by capability
//   crowd.update(dt);                               // CPU: poses, palettes, packing
//   target.bind(); target.clear(background);
//   renderer.draw(crowd, camera);                   // uploads live slots once, then draws
//   auto rgba = target.read_pixels();               // top row first
//
// Declarations: gltf_crowd/gl_platform.hpp (HeadlessContext, Framebuffer, write_png,
// gl_object_count) and gltf_crowd/gl_renderers.hpp (Camera, CrowdRenderer, ReferenceRenderer,
// palette storage and the GL state the renderers keep) and gltf_crowd/gl_shadows.hpp
// (ShadowMap, GroundPlane: the directional light's shadows). This umbrella includes them, and
// gltf_crowd/crowd.hpp, which the renderers take by reference.
#pragma once

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_platform.hpp"
#include "gltf_crowd/gl_renderers.hpp"
#include "gltf_crowd/gl_shadows.hpp"

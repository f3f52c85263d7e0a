// The GLSL of the GPU evaluator's passes, which animation_compute_source (animation_shaders.cpp)
// puts after the common prelude: the pose passes' and the output passes' text, each in its file.
#pragma once

namespace gltf_crowd::gl {

// animation_pose_shaders.cpp: the sample and weights passes.
extern const char* const kSample;
extern const char* const kWeights;
// animation_output_shaders.cpp: the hierarchy, and the palette and instances passes with their
// shared inputs and outputs (kOutput).
extern const char* const kHierarchy;
extern const char* const kOutput;
extern const char* const kPalette;
extern const char* const kInstances;

}  // namespace gltf_crowd::gl

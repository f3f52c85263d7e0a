// Symbol visibility of the public API. The libraries compile with -fvisibility=hidden and
// -fvisibility-inlines-hidden; every public header wraps its declarations in
// GLTF_CROWD_API_BEGIN / GLTF_CROWD_API_END, so a shared build exports exactly what the public
// headers declare and keeps the layers' internals (src/) private.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define GLTF_CROWD_API_BEGIN _Pragma("GCC visibility push(default)")
#define GLTF_CROWD_API_END _Pragma("GCC visibility pop")
#else
#define GLTF_CROWD_API_BEGIN
#define GLTF_CROWD_API_END
#endif

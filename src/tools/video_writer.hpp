// Encodes RGBA frames into a video file through FFmpeg (libavcodec, libavformat, libswscale) for
// `gltf-crowd render --video` (docs/spec.md §8.1). The only file that uses FFmpeg: the libraries
// stay free of it, and a build without it (GLTF_CROWD_VIDEO off) compiles this file into stubs
// that throw Error (rule video_unavailable).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace gltf_crowd::tools {

// True when this build encodes video (GLTF_CROWD_VIDEO: the FFmpeg libraries were found).
bool video_available() noexcept;

// The container and encoder for a video file, chosen from its extension and the encoders this
// FFmpeg build has: .mp4 → libx264 (H.264), else mpeg4 (MPEG-4 part 2); .webm → libvpx-vp9;
// .mkv → libvpx-vp9, else libx264, else mpeg4.
struct VideoFormat {
  std::string container;  // libavformat muxer name: "mp4", "webm" or "matroska"
  std::string codec;      // libavcodec encoder name: "libx264", "libvpx-vp9" or "mpeg4"
};

// The format of `path` (see VideoFormat) with encoder `codec`: "auto" picks the first of the
// extension's encoders this FFmpeg build has; a name picks that one. Opens nothing, so `render`
// checks it before drawing. Throws Error (path "--video", rule video_unavailable) in a build
// without FFmpeg; (rule video_format) for an extension other than .mp4, .webm or .mkv (any case)
// or when this FFmpeg build has none of the extension's encoders; (path "--video-codec", rule
// video_format) for an encoder the container does not take or this build lacks.
VideoFormat video_format(const std::filesystem::path& path, const std::string& codec = "auto");

// Throws Error (path "--width/--height", rule invalid_size) when the encoder of `format` refuses
// a picture of width × height pixels, naming its limit and the largest size it takes: FFmpeg's
// pictures need (8 · width + 1024) · (height + 128) < 2³¹ − 1 (16384 × 16384 is past it), and
// MPEG-4 part 2 sides below 8192. Opens nothing, so `render` checks it before drawing.
void check_video_size(const VideoFormat& format, std::uint32_t width, std::uint32_t height);

// What a VideoWriter encodes. Defaults: 640 × 480 at 30 frames per second, the extension's
// preferred encoder.
struct VideoOptions {
  std::filesystem::path path;  // written; the extension picks the format (video_format)
  std::string codec = "auto";  // encoder, as video_format takes it
  std::uint32_t width = 640;   // pixels; even, as 4:2:0 chroma needs (else Error)
  std::uint32_t height = 480;  // pixels; even
  double fps = 30.0;           // frames per second, in (0, 1000]; stored as a fraction with a
                               // denominator of at most 65535 (MPEG-4 part 2's limit)
};

// An open video file: frames go in one by one with write(), finish() flushes the encoder and
// writes the container's index. A writer destroyed without finish() closes the file as it is
// (unplayable). Every FFmpeg failure throws Error (path = the file, rule video_encode, message
// naming the failing call and FFmpeg's error text); open failures also name the file.
// Frames are converted RGBA → YUV 4:2:0 (BT.601, limited range, as the stream is tagged) into one
// frame buffer allocated when the writer opens; write() allocates only what the encoder and
// muxer allocate themselves.
class VideoWriter {
 public:
  // Opens options.path (created or truncated), the encoder and the container, and writes the
  // header. Throws Error: rule video_unavailable (no FFmpeg in this build), video_format
  // (video_format's), invalid_size (odd or zero width or height, or fps outside (0, 1000]),
  // video_encode (FFmpeg failed, for example an unwritable path).
  explicit VideoWriter(const VideoOptions& options);
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // Encodes one frame shown for 1 / fps seconds after the previous one. `rgba`: width × height
  // × 4 bytes, RGBA8; rows from the bottom up when `bottom_row_first` (glReadPixels' order),
  // else from the top. Throws Error (invalid_size for another size, video_encode) and after
  // finish() (rule destroyed).
  void write(std::span<const std::uint8_t> rgba, bool bottom_row_first);
  // Drains the encoder's delayed frames and writes the trailer; the file is complete after it.
  // Throws Error (video_encode); a second call does nothing.
  void finish();

  const std::string& codec() const noexcept;  // the encoder's name, as in VideoFormat::codec
  std::uint64_t frames() const noexcept;      // frames passed to write()

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gltf_crowd::tools

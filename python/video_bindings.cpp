// The module's video part (docs/spec.md §16): the tool's VideoWriter (src/tools/video_writer.*,
// FFmpeg) over images such as Renderer.render returns. Encoding runs without the GIL.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "tools/as_option.hpp"
#include "tools/video_writer.hpp"

namespace gltf_crowd::python {
namespace {

// Runs `step`; the writer names its errors by `render`'s options, thrown again here under the
// constructor's arguments with their rule and message (a file's own errors keep the file).
template <typename Step>
auto as_argument(Step&& step) {
  try {
    return step();
  } catch (const Error& e) {
    const std::string& path = e.path();
    const char* argument = path == "--video"            ? "VideoWriter.path"
                           : path == "--video-codec"    ? "VideoWriter.codec"
                           : path == "--width/--height" ? "VideoWriter.width/height"
                                                        : nullptr;
    if (argument == nullptr) throw;
    throw Error(argument, e.code(), tools::message_without_path(e));
  }
}

}  // namespace

void bind_video(py::module_& m) {
  using tools::VideoWriter;
  m.def("video_available", &tools::video_available,
        "True when this build encodes video (built with FFmpeg: libavcodec-dev, libavformat-dev, libswscale-dev).");

  py::class_<VideoWriter>(m, "VideoWriter",
                          "A video file written frame by frame through FFmpeg, as `gltf-crowd render --video` writes "
                          "it (docs/spec.md §8.1): the extension picks the format (.mp4: H.264, else MPEG-4 part 2; "
                          ".webm: VP9; .mkv), frames are converted to YUV 4:2:0, so width and height must be even. "
                          "A context manager: leaving the `with` block without an exception calls finish().")
      .def(py::init([](const std::filesystem::path& path, std::uint32_t width, std::uint32_t height, double fps,
                       const std::string& codec) {
             return as_argument([&] {
               tools::check_video_size(tools::video_format(path, codec), width, height);
               return std::make_unique<VideoWriter>(tools::VideoOptions{path, codec, width, height, fps});
             });
           }),
           py::arg("path"), py::arg("width"), py::arg("height"), py::kw_only(), py::arg("fps") = 30.0,
           py::arg("codec") = "auto",
           "Opens `path` (created or truncated) for width x height frames at `fps` per second; codec 'auto' (the "
           "extension's first this FFmpeg has), 'libx264', 'libvpx-vp9' or 'mpeg4'. Errors: 'video_unavailable' "
           "(a build without FFmpeg), 'video_format' (path 'VideoWriter.path' or '.codec'), 'invalid_size' (odd "
           "or too large sizes, fps outside (0, 1000]), 'video_encode' (FFmpeg, e.g. an unwritable file).")
      .def(
          "write",
          [](VideoWriter& writer, const ImageArray& image) {
            image_size(image, "VideoWriter.write.image");
            const std::span<const std::uint8_t> rgba(image.data(), static_cast<std::size_t>(image.size()));
            py::gil_scoped_release release;
            writer.write(rgba, false);
          },
          py::arg("image"),
          "Encodes one (height, width, 4) uint8 RGBA frame, the top row first, shown 1 / fps s after the previous "
          "one. Errors: 'invalid_size' (another size), 'video_encode', 'destroyed' (after finish). Releases the GIL.")
      .def("finish", &VideoWriter::finish, py::call_guard<py::gil_scoped_release>(),
           "Drains the encoder and writes the container's index; the file is complete after it. A second call "
           "does nothing.")
      .def("codec", &VideoWriter::codec, "The encoder used: 'libx264', 'libvpx-vp9' or 'mpeg4'.")
      .def("frames", &VideoWriter::frames, "Frames written so far.")
      .def(
          "__enter__", [](VideoWriter& writer) -> VideoWriter& { return writer; }, py::return_value_policy::reference,
          "The writer itself.")
      .def(
          "__exit__",
          [](VideoWriter& writer, const py::object& type, const py::object&, const py::object&) {
            if (type.is_none()) writer.finish();
          },
          "finish() unless the block raised (the file then stays incomplete).");
}

}  // namespace gltf_crowd::python

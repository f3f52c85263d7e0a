#include "tools/video_writer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

#if GLTF_CROWD_VIDEO
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
}
#endif

namespace gltf_crowd::tools {

#if GLTF_CROWD_VIDEO

namespace {

struct Container {
  std::string_view extension;  // lower case, with the dot
  std::string_view muxer;
  std::array<std::string_view, 3> encoders;  // in order of preference; "" = none
};

// .webm admits only VP8, VP9 and AV1, so it has no MPEG-4 fallback; MP4 players expect H.264.
constexpr std::array<Container, 3> containers = {{
    {".mp4", "mp4", {"libx264", "mpeg4", ""}},
    {".webm", "webm", {"libvpx-vp9", "", ""}},
    {".mkv", "matroska", {"libvpx-vp9", "libx264", "mpeg4"}},
}};

const Container& container_of(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const Container& c : containers) {
    if (c.extension == extension) return c;
  }
  throw Error("--video", Rule::video_format,
              fmt::format("'{}' has {}; the video file must end in .mp4 (H.264 or MPEG-4 part 2), .webm (VP9) "
                          "or .mkv (VP9, H.264 or MPEG-4 part 2)",
                          path.string(), extension.empty() ? "no extension" : "the extension " + extension));
}

std::string av_error_text(int code) {
  std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
  if (av_strerror(code, text.data(), text.size()) < 0) return fmt::format("FFmpeg error {}", code);
  return text.data();
}

// RAII for the FFmpeg objects, each freed by its own function.
struct FormatDeleter {
  void operator()(AVFormatContext* context) const noexcept {
    if (context->pb != nullptr && (context->oformat->flags & AVFMT_NOFILE) == 0) avio_closep(&context->pb);
    avformat_free_context(context);
  }
};
struct EncoderDeleter {
  void operator()(AVCodecContext* context) const noexcept { avcodec_free_context(&context); }
};
struct FrameDeleter {
  void operator()(AVFrame* frame) const noexcept { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket* packet) const noexcept { av_packet_free(&packet); }
};
struct ScaleDeleter {
  void operator()(SwsContext* context) const noexcept { sws_freeContext(context); }
};
// An options dictionary that FFmpeg fills and consumes; freed whatever it holds.
struct Dictionary {
  AVDictionary* entries = nullptr;
  Dictionary() = default;
  Dictionary(const Dictionary&) = delete;
  Dictionary& operator=(const Dictionary&) = delete;
  ~Dictionary() { av_dict_free(&entries); }
  void set(const char* key, const char* value) { av_dict_set(&entries, key, value, 0); }
};

}  // namespace

struct VideoWriter::State {
  std::filesystem::path path;
  std::string codec;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::unique_ptr<AVFormatContext, FormatDeleter> format;
  std::unique_ptr<AVCodecContext, EncoderDeleter> encoder;
  AVStream* stream = nullptr;  // owned by `format`
  std::unique_ptr<AVFrame, FrameDeleter> frame;
  std::unique_ptr<AVPacket, PacketDeleter> packet;
  std::unique_ptr<SwsContext, ScaleDeleter> scale;
  std::uint64_t frames = 0;
  bool finished = false;

  // Throws Error naming `call` and FFmpeg's text for a negative `result`; returns it otherwise.
  int check(int result, const char* call) const {
    if (result < 0) {
      throw Error(path.string(), Rule::video_encode, fmt::format("{} failed: {}", call, av_error_text(result)));
    }
    return result;
  }
  template <typename T>
  T* check_allocated(T* object, const char* call) const {
    if (object == nullptr) check(AVERROR(ENOMEM), call);
    return object;
  }

  // Sends `input` (nullptr: drain) and writes every packet the encoder has ready.
  void encode(const AVFrame* input) {
    check(avcodec_send_frame(encoder.get(), input), "avcodec_send_frame");
    for (;;) {
      const int received = avcodec_receive_packet(encoder.get(), packet.get());
      if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
      check(received, "avcodec_receive_packet");
      av_packet_rescale_ts(packet.get(), encoder->time_base, stream->time_base);
      packet->stream_index = stream->index;
      // Takes the packet's reference, leaving `packet` blank for the next one.
      check(av_interleaved_write_frame(format.get(), packet.get()), "av_interleaved_write_frame");
    }
  }
};

bool video_available() noexcept { return true; }

VideoFormat video_format(const std::filesystem::path& path, const std::string& codec) {
  const Container& container = container_of(path);
  if (codec != "auto") {
    const auto& allowed = container.encoders;
    if (std::find(allowed.begin(), allowed.end(), codec) == allowed.end()) {
      std::string takes;
      for (std::string_view encoder : allowed) {
        if (!encoder.empty()) takes += fmt::format("{}{}", takes.empty() ? "" : ", ", encoder);
      }
      throw Error("--video-codec", Rule::video_format,
                  fmt::format("{} files do not take {}; they take {}", container.extension, codec, takes));
    }
    if (avcodec_find_encoder_by_name(codec.c_str()) == nullptr)
      throw Error("--video-codec", Rule::video_format, fmt::format("this FFmpeg build has no {} encoder", codec));
    return {std::string(container.muxer), codec};
  }
  std::string tried;
  for (std::string_view encoder : container.encoders) {
    if (encoder.empty()) break;
    if (avcodec_find_encoder_by_name(std::string(encoder).c_str()) != nullptr)
      return {std::string(container.muxer), std::string(encoder)};
    tried += fmt::format("{}{}", tried.empty() ? "" : ", ", encoder);
  }
  throw Error("--video", Rule::video_format,
              fmt::format("this FFmpeg build has no encoder for {} files (tried {}); choose another extension",
                          container.extension, tried));
}

void check_video_size(const VideoFormat& format, std::uint32_t width, std::uint32_t height) {
  // MPEG-4 part 2 codes each side in 13 bits (libavcodec: "dimensions too large for MPEG-4").
  if (format.codec == "mpeg4" && (width >= 8192 || height >= 8192)) {
    throw Error("--width/--height", Rule::invalid_size,
                fmt::format("{} × {} pixels: the mpeg4 encoder (MPEG-4 part 2) takes sides below 8192, at most "
                            "8190 × 8190 for a video; choose a smaller size or --video-codec libx264",
                            width, height));
  }
  // libavutil's av_image_check_size, which every encoder applies when it opens; quiet, since the
  // error below says what it would log.
  const int level = av_log_get_level();
  av_log_set_level(AV_LOG_QUIET);
  const int fits = av_image_check_size(width, height, 0, nullptr);
  av_log_set_level(level);
  if (fits < 0) {
    const std::uint64_t stride = 8 * std::uint64_t{width} + 1024;  // the bound's row bytes
    const std::uint64_t rows = (std::uint64_t{INT_MAX} - 1) / stride;
    const std::uint64_t tallest = rows > 128 ? (rows - 128) & ~std::uint64_t{1} : 0;  // even, for 4:2:0
    throw Error("--width/--height", Rule::invalid_size,
                fmt::format("{} × {} pixels is more than FFmpeg's {} encoder takes: (8 · width + 1024) · (height + "
                            "128) must be below 2^31 − 1, so at --width {} a video is at most {} pixels high",
                            width, height, format.codec, width, tallest));
  }
}

VideoWriter::VideoWriter(const VideoOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = options.path;
  s.width = options.width;
  s.height = options.height;
  const std::string file = options.path.string();
  // 4:2:0 chroma has one sample per 2 × 2 pixels.
  if (options.width == 0 || options.height == 0 || options.width % 2 != 0 || options.height % 2 != 0) {
    throw Error(
        file, Rule::invalid_size,
        fmt::format("{} × {} pixels: a video needs an even, non-zero width and height", options.width, options.height));
  }
  if (!(options.fps > 0.0 && options.fps <= 1000.0)) {
    throw Error(file, Rule::invalid_size, fmt::format("{} frames per second is outside (0, 1000]", options.fps));
  }
  const VideoFormat chosen = video_format(options.path, options.codec);
  s.codec = chosen.codec;
  // x264 and the muxers log their settings and statistics at the info level, dozens of lines per
  // file; warnings and errors still reach stderr (failures also become Error).
  av_log_set_level(AV_LOG_WARNING);

  AVFormatContext* format = nullptr;
  s.check(avformat_alloc_output_context2(&format, nullptr, chosen.container.c_str(), file.c_str()),
          "avformat_alloc_output_context2");
  s.format.reset(format);
  const AVCodec* codec = avcodec_find_encoder_by_name(chosen.codec.c_str());
  s.stream = s.check_allocated(avformat_new_stream(format, nullptr), "avformat_new_stream");
  s.encoder.reset(s.check_allocated(avcodec_alloc_context3(codec), "avcodec_alloc_context3"));
  AVCodecContext& encoder = *s.encoder;
  const AVRational rate = av_d2q(options.fps, 65535);
  encoder.width = static_cast<int>(options.width);
  encoder.height = static_cast<int>(options.height);
  encoder.time_base = av_inv_q(rate);
  encoder.framerate = rate;
  encoder.pix_fmt = AV_PIX_FMT_YUV420P;
  // What swscale's default conversion produces, so players convert back with the same matrix.
  encoder.color_range = AVCOL_RANGE_MPEG;
  encoder.colorspace = AVCOL_SPC_SMPTE170M;
  encoder.color_primaries = AVCOL_PRI_SMPTE170M;
  encoder.color_trc = AVCOL_TRC_SMPTE170M;
  if ((format->oformat->flags & AVFMT_GLOBALHEADER) != 0) encoder.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  // Constant quality rather than a bit rate: the crowd's flat colours compress well, and the
  // encoders' default rates would blur small actors.
  Dictionary codec_options;
  if (chosen.codec == "libx264") {
    codec_options.set("crf", "20");
    codec_options.set("preset", "medium");
  } else if (chosen.codec == "libvpx-vp9") {
    encoder.bit_rate = 0;
    codec_options.set("crf", "30");
    codec_options.set("deadline", "good");
    codec_options.set("cpu-used", "4");
    codec_options.set("row-mt", "1");
  } else {
    encoder.flags |= AV_CODEC_FLAG_QSCALE;
    encoder.global_quality = FF_QP2LAMBDA * 3;
  }
  s.check(avcodec_open2(&encoder, codec, &codec_options.entries), "avcodec_open2");
  s.check(avcodec_parameters_from_context(s.stream->codecpar, &encoder), "avcodec_parameters_from_context");
  s.stream->time_base = encoder.time_base;
  s.stream->avg_frame_rate = rate;

  if ((format->oformat->flags & AVFMT_NOFILE) == 0)
    s.check(avio_open(&format->pb, file.c_str(), AVIO_FLAG_WRITE), "avio_open");
  Dictionary muxer_options;
  // The index at the front, so browsers play the file before it has downloaded.
  if (chosen.container == "mp4") muxer_options.set("movflags", "+faststart");
  s.check(avformat_write_header(format, &muxer_options.entries), "avformat_write_header");

  s.frame.reset(s.check_allocated(av_frame_alloc(), "av_frame_alloc"));
  s.frame->format = encoder.pix_fmt;
  s.frame->width = encoder.width;
  s.frame->height = encoder.height;
  s.check(av_frame_get_buffer(s.frame.get(), 0), "av_frame_get_buffer");
  s.packet.reset(s.check_allocated(av_packet_alloc(), "av_packet_alloc"));
  s.scale.reset(
      s.check_allocated(sws_getContext(encoder.width, encoder.height, AV_PIX_FMT_RGBA, encoder.width, encoder.height,
                                       AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr, nullptr, nullptr),
                        "sws_getContext"));
}

VideoWriter::~VideoWriter() = default;

void VideoWriter::write(std::span<const std::uint8_t> rgba, bool bottom_row_first) {
  State& s = *state_;
  if (s.finished) throw Error(s.path.string(), Rule::destroyed, "a frame written after finish()");
  const std::size_t row = std::size_t{s.width} * 4;
  if (rgba.size() != row * s.height) {
    throw Error(
        s.path.string(), Rule::invalid_size,
        fmt::format("a frame of {} bytes; {} × {} RGBA8 is {}", rgba.size(), s.width, s.height, row * s.height));
  }
  // The encoder may still hold the previous frame's buffer; then this gives the frame a new one.
  s.check(av_frame_make_writable(s.frame.get()), "av_frame_make_writable");
  // A negative stride starting at the last row flips the image during the conversion.
  const std::uint8_t* source = bottom_row_first ? rgba.data() + row * (s.height - 1) : rgba.data();
  const int stride = bottom_row_first ? -static_cast<int>(row) : static_cast<int>(row);
  s.check(sws_scale(s.scale.get(), &source, &stride, 0, static_cast<int>(s.height), s.frame->data, s.frame->linesize),
          "sws_scale");
  s.frame->pts = static_cast<std::int64_t>(s.frames);
  s.encode(s.frame.get());
  ++s.frames;
}

void VideoWriter::finish() {
  State& s = *state_;
  if (s.finished) return;
  s.finished = true;
  s.encode(nullptr);
  s.check(av_write_trailer(s.format.get()), "av_write_trailer");
  if ((s.format->oformat->flags & AVFMT_NOFILE) == 0) s.check(avio_closep(&s.format->pb), "avio_closep");
}

const std::string& VideoWriter::codec() const noexcept { return state_->codec; }
std::uint64_t VideoWriter::frames() const noexcept { return state_->frames; }

#else  // GLTF_CROWD_VIDEO

namespace {

[[noreturn]] void unavailable() {
  throw Error("--video", Rule::video_unavailable,
              "this gltf-crowd was built without FFmpeg (libavcodec-dev, libavformat-dev, libavutil-dev, "
              "libswscale-dev); rebuild with them installed (CMake option GLTF_CROWD_VIDEO)");
}

}  // namespace

struct VideoWriter::State {
  std::string codec;
  std::uint64_t frames = 0;
};

bool video_available() noexcept { return false; }

VideoFormat video_format(const std::filesystem::path&, const std::string&) { unavailable(); }
void check_video_size(const VideoFormat&, std::uint32_t, std::uint32_t) { unavailable(); }

VideoWriter::VideoWriter(const VideoOptions&) { unavailable(); }
VideoWriter::~VideoWriter() = default;
void VideoWriter::write(std::span<const std::uint8_t>, bool) { unavailable(); }
void VideoWriter::finish() { unavailable(); }
const std::string& VideoWriter::codec() const noexcept { return state_->codec; }
std::uint64_t VideoWriter::frames() const noexcept { return state_->frames; }

#endif  // GLTF_CROWD_VIDEO

}  // namespace gltf_crowd::tools

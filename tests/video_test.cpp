// `gltf-crowd render --video` (docs/spec.md §8.1): bad options fail before anything is drawn, with
// the option's name and rule; a short video of the built-in character decodes back (with FFmpeg
// here, independently of the tool's encoder) to --frames frames of --width × --height at --fps,
// whose last frame is the PNG `render --seconds (N − 1) / F` draws, up to the codec's loss.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "image_compare.hpp"
#include "test_support.hpp"

#if GLTF_CROWD_VIDEO
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}
#endif

namespace gltf_crowd {
namespace {

using test::quoted;

#if GLTF_CROWD_VIDEO
constexpr bool video_built = true;
#else
constexpr bool video_built = false;
#endif

// Runs `gltf-crowd render <arguments>` and returns its standard error (where errors go).
test::CommandOutput render(const std::string& arguments) {
  return test::run_tool("render " + arguments + " 2>&1 >/dev/null");
}

// Every rejected command names the option (or file) and the rule, and draws nothing: the checks
// run before the asset is loaded, so not even the video file is created.
TEST(VideoTool, BadOptionsFailWithTheOptionsName) {
  const auto dir = test::scratch_dir("video_bad");
  const std::string mp4 = quoted((dir / "bad.mp4").string());
  struct Case {
    std::string arguments;
    std::vector<std::string> expected;  // substrings of the message
  };
  const std::vector<Case> cases = {
    {"--video " + mp4 + " --frames 0", {"--frames", "out of range"}},
    {"--video " + mp4 + " --fps 0", {"--fps", "out of range"}},
    {"--video " + mp4 + " --fps nan", {"--fps", "not finite"}},
    {"--frames 10", {"--frames", "--video"}},  // --frames and --fps need --video
    {"--fps 24", {"--fps", "--video"}},
    {"--video-codec mpeg4", {"--video-codec", "--video"}},
    {"--video " + mp4 + " --video-codec h264", {"--video-codec", "h264"}},  // not an encoder name
    {"--video " + mp4 + " --seconds 1", {"--seconds", "--video"}},          // the video starts at 0
    {"--video " + quoted("/nonexistent/dir/x.mp4") + " --actors 1 --width 32 --height 32",
     {"--video: folder '/nonexistent/dir' does not exist"}},
#if GLTF_CROWD_VIDEO
    {"--video " + quoted((dir / "bad.avi").string()), {"--video", ".avi", "[video_format]"}},
    {"--video " + quoted((dir / "noext").string()), {"--video", "no extension", "[video_format]"}},
    {"--video " + quoted((dir / "bad.webm").string()) + " --video-codec mpeg4",
     {"--video-codec", ".webm files do not take mpeg4", "[video_format]"}},
    {"--video " + mp4 + " --width 161 --height 120", {"--width", "161 is odd", "[invalid_size]"}},
    {"--video " + mp4 + " --width 160 --height 99", {"--height", "99 is odd", "[invalid_size]"}},
    // Sizes the encoder refuses (issue 57 item 5), named by the options with the limit. libavutil's
    // av_image_check_size needs (8w + 1024)(h + 128) < 2^31 - 1: at w = 16384, h + 128 <= 16257,
    // so the tallest even h is 16128. MPEG-4 part 2 sides are below 8192.
    {"--video " + mp4 + " --width 16384 --height 16384",
     {"--width/--height: 16384 × 16384 pixels is more than FFmpeg's", "at --width 16384 a video is at most 16128",
      "[invalid_size]"}},
    {"--video " + mp4 + " --video-codec mpeg4 --width 8192 --height 64",
     {"--width/--height: 8192 × 64 pixels: the mpeg4 encoder", "sides below 8192", "[invalid_size]"}},
#else
    {"--video " + mp4, {"--video", "built without FFmpeg", "[video_unavailable]"}},
#endif
  };
  for (const Case& c : cases) {
    const test::CommandOutput r = render(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.out;  // usage errors, found before any work
    for (const std::string& expected : c.expected)
      EXPECT_NE(r.out.find(expected), std::string::npos) << c.arguments << ": no '" << expected << "' in\n" << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.mp4"));
}

// --help documents the options, and says when this build cannot use them.
TEST(VideoTool, HelpSaysWhetherVideoIsAvailable) {
  const test::CommandOutput help = test::run_tool("render --help");
  ASSERT_EQ(help.exit_code, 0);
  for (const char* option : {"--video", "--frames", "--fps"})
    EXPECT_NE(help.out.find(option), std::string::npos) << option << " missing from\n" << help.out;
  EXPECT_EQ(help.out.find("UNAVAILABLE") == std::string::npos, video_built) << help.out;
}

#if GLTF_CROWD_VIDEO

// What FFmpeg decodes from a video file: every frame as RGBA8, top row first.
struct Decoded {
  std::string codec;
  int width = 0;
  int height = 0;
  AVRational frame_rate{0, 1};  // the stream's average frame rate
  std::vector<test::Image> frames;
};

template <auto free_function>
struct Freer {
  template <typename T>
  void operator()(T* object) const noexcept {
    free_function(&object);
  }
};

// Fails the calling test (and returns what was decoded so far) on any FFmpeg error.
Decoded decode(const std::filesystem::path& file) {
  Decoded out;
  AVFormatContext* raw = nullptr;
  if (avformat_open_input(&raw, file.c_str(), nullptr, nullptr) < 0) {
    ADD_FAILURE() << "avformat_open_input " << file;
    return out;
  }
  const std::unique_ptr<AVFormatContext, Freer<avformat_close_input>> format(raw);
  EXPECT_GE(avformat_find_stream_info(format.get(), nullptr), 0);
  const AVCodec* codec = nullptr;
  const int index = av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (index < 0 || codec == nullptr) {
    ADD_FAILURE() << "no video stream in " << file;
    return out;
  }
  const AVStream* stream = format->streams[index];
  const std::unique_ptr<AVCodecContext, Freer<avcodec_free_context>> decoder(avcodec_alloc_context3(codec));
  EXPECT_GE(avcodec_parameters_to_context(decoder.get(), stream->codecpar), 0);
  EXPECT_GE(avcodec_open2(decoder.get(), codec, nullptr), 0);
  out.codec = codec->name;
  out.width = decoder->width;
  out.height = decoder->height;
  out.frame_rate = stream->avg_frame_rate;

  const std::unique_ptr<AVPacket, Freer<av_packet_free>> packet(av_packet_alloc());
  const std::unique_ptr<AVFrame, Freer<av_frame_free>> frame(av_frame_alloc());
  const auto receive = [&] {
    while (avcodec_receive_frame(decoder.get(), frame.get()) >= 0) {
      test::Image image{static_cast<std::uint32_t>(frame->width), static_cast<std::uint32_t>(frame->height), {}};
      image.rgba.resize(std::size_t{image.width} * image.height * 4);
      SwsContext* scale =
          sws_getContext(frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), frame->width,
                         frame->height, AV_PIX_FMT_RGBA, SWS_BILINEAR, nullptr, nullptr, nullptr);
      std::uint8_t* planes[1] = {image.rgba.data()};
      const int strides[1] = {frame->width * 4};
      sws_scale(scale, frame->data, frame->linesize, 0, frame->height, planes, strides);
      sws_freeContext(scale);
      out.frames.push_back(std::move(image));
    }
  };
  while (av_read_frame(format.get(), packet.get()) >= 0) {
    if (packet->stream_index == index) {
      EXPECT_GE(avcodec_send_packet(decoder.get(), packet.get()), 0);
    }
    av_packet_unref(packet.get());
    receive();
  }
  avcodec_send_packet(decoder.get(), nullptr);  // drain the delayed frames
  receive();
  return out;
}

// Mean absolute difference per RGB channel, in 8-bit levels, of two images of one size.
double mean_difference(const test::Image& a, const test::Image& b) {
  if (a.rgba.size() != b.rgba.size() || a.rgba.empty()) return 255.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < a.rgba.size(); i += 4) {
    for (std::size_t c = 0; c < 3; ++c) sum += std::abs(int(a.rgba[i + c]) - int(b.rgba[i + c]));
  }
  return sum / static_cast<double>(a.rgba.size() / 4 * 3);
}

struct VideoRun {
  test::ImageRun run;  // the last frame's PNG (--out) and the statistics
  Decoded video;
};

// 4 actors of the built-in character, 160 × 120, `frames` frames at `fps`, then `extra` arguments.
VideoRun render_video(const std::string& name, const std::string& extension, int frames, int fps,
                      const std::string& extra = "") {
  const auto dir = test::scratch_dir("video_" + name);
  const auto video = dir / (name + extension), png = dir / (name + ".png"), json = dir / (name + ".json");
  VideoRun r;
  r.run = test::run_for_image(quoted(test::tool_path().string()) + " render --actors 4 --width 160 --height 120" +
                                  " --frames " + std::to_string(frames) + " --fps " + std::to_string(fps) +
                                  " --video " + quoted(video.string()) + " --out " + quoted(png.string()) +
                                  " --stats " + quoted(json.string()) + extra + " 2>&1 >/dev/null",
                              png, json);
  if (r.run.exit_code == 0) r.video = decode(video);
  return r;
}

// Measured with libx264 (CRF 20) on Debian 12's FFmpeg 5.1, 4 built-in characters at 160 × 120,
// 12 frames at 24 fps: the last frame differs from the PNG of the same time by 1.86 levels per
// channel on average (the background dilutes it), and
// 0.21% of its pixels by more than 40 levels in a channel (edges); between the first and the last
// frame 2.1% of the pixels change by more than 40. MPEG-4 part 2 (quantiser 3): 1.57 levels,
// 0.07%. The limits, 6 levels and 0.5%, leave room for
// other encoder versions; a wrong frame, time, row order or colour conversion exceeds both.
constexpr double max_mean_difference = 6.0;
constexpr double max_changed_fraction = 0.005;

TEST(VideoTool, Mp4DecodesToTheRenderedFrames) {
  constexpr int frames = 12, fps = 24;
  const VideoRun r = render_video("mp4", ".mp4", frames, fps);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  const auto& stats = r.run.stats.at("video");
  EXPECT_EQ(stats.at("codec"), "libx264");  // Debian's libavcodec59 is built with x264
  EXPECT_EQ(stats.at("frames"), frames);
  EXPECT_EQ(stats.at("fps"), fps);
  EXPECT_EQ(stats.at("width"), 160);
  EXPECT_EQ(stats.at("height"), 120);
  EXPECT_EQ(r.run.stats.at("frames"), frames);
  EXPECT_NEAR(r.run.stats.at("seconds").get<double>(), (frames - 1) / double(fps), 1e-9);

  EXPECT_EQ(r.video.codec, "h264");
  EXPECT_EQ(r.video.width, 160);
  EXPECT_EQ(r.video.height, 120);
  EXPECT_EQ(r.video.frame_rate.num, fps);
  EXPECT_EQ(r.video.frame_rate.den, 1);
  ASSERT_EQ(r.video.frames.size(), std::size_t{frames});

  // The last frame is --out's PNG, and the first and last frames are the PNGs of plain renders
  // of times 0 and (N − 1) / F.
  constexpr int moved = 40;  // levels: a pixel that changed, not codec noise
  const test::Image& first = r.video.frames.front();
  const test::Image& last = r.video.frames.back();
  const double to_out = mean_difference(last, r.run.image);
  EXPECT_LT(to_out, max_mean_difference) << r.run.png;
  EXPECT_LT(test::differing_fraction(last, r.run.image, moved), max_changed_fraction);
  const auto dir = r.run.png.parent_path();
  for (const auto& [frame, seconds] : {std::pair{&first, 0.0}, std::pair{&last, (frames - 1.0) / fps}}) {
    const auto png = dir / ("still_" + std::to_string(seconds) + ".png");
    const test::CommandOutput still =
        test::run_tool("render --actors 4 --width 160 --height 120 --seconds " + std::to_string(seconds) + " --out " +
                       quoted(png.string()) + " 2>&1 >/dev/null");
    ASSERT_EQ(still.exit_code, 0) << still.out;
    const test::Image expected = test::read_png(png);
    EXPECT_LT(mean_difference(*frame, expected), max_mean_difference) << png;
    EXPECT_LT(test::differing_fraction(*frame, expected, moved), max_changed_fraction) << png;
  }
  // The crowd moves: the first frame is not the last. Most of the image is background, which
  // dilutes means, so this counts the pixels that changed.
  const double motion = test::differing_fraction(first, last, moved);
  EXPECT_GT(motion, 4 * max_changed_fraction);
  std::printf(
      "mean |difference| per channel, last frame vs --out: %.2f; pixels off by > %d: %.4f; first vs last: %.4f\n",
      to_out, moved, test::differing_fraction(last, r.run.image, moved), motion);
}

TEST(VideoTool, WebmIsVp9) {
  const VideoRun r = render_video("webm", ".webm", 6, 12);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  EXPECT_EQ(r.run.stats.at("video").at("codec"), "libvpx-vp9");
  EXPECT_EQ(r.video.codec, "vp9");
  ASSERT_EQ(r.video.frames.size(), 6u);
  EXPECT_LT(mean_difference(r.video.frames.back(), r.run.image), max_mean_difference);
}

// The fallback for an FFmpeg without x264, chosen here by name (Debian's has x264).
TEST(VideoTool, Mpeg4Part2InMp4) {
  const VideoRun r = render_video("mpeg4", ".mp4", 12, 24, " --video-codec mpeg4");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  EXPECT_EQ(r.run.stats.at("video").at("codec"), "mpeg4");
  EXPECT_EQ(r.video.codec, "mpeg4");
  EXPECT_EQ(r.video.frame_rate.num, 24);
  ASSERT_EQ(r.video.frames.size(), 12u);
  const double loss = mean_difference(r.video.frames.back(), r.run.image);
  EXPECT_LT(loss, max_mean_difference);
  std::printf("mpeg4: mean |difference| per channel, last frame vs --out: %.2f; pixels off by > 40: %.4f\n", loss,
              test::differing_fraction(r.video.frames.back(), r.run.image, 40));
}

#else

TEST(VideoTool, Mp4DecodesToTheRenderedFrames) {
  GTEST_SKIP() << "built without FFmpeg (GLTF_CROWD_VIDEO off): render --video is unavailable";
}

#endif

}  // namespace
}  // namespace gltf_crowd

// Bad pictures: unreadable, truncated, zero-size, enormous, empty, gray, 16-bit, alpha.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "nertz/vision/image_io.hpp"
#include "nertz/vision/video_io.hpp"

using namespace nertz::vision;
namespace fs = std::filesystem;

namespace {

fs::path tempFile(const std::string& name) { return fs::temp_directory_path() / ("nertz_vision_test_" + name); }

void writeBytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::uint8_t> encode(const std::string& ext, const cv::Mat& m) {
    std::vector<std::uint8_t> buf;
    EXPECT_TRUE(cv::imencode(ext, m, buf));
    return buf;
}

// The 24-byte PNG signature + IHDR of a w x h 8-bit RGB picture, with no pixel data at all.
std::vector<std::uint8_t> pngHeaderOnly(std::uint32_t w, std::uint32_t h) {
    std::vector<std::uint8_t> b = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    for (std::uint32_t v : {w, h})
        for (int s = 24; s >= 0; s -= 8) b.push_back(std::uint8_t(v >> s));
    b.insert(b.end(), {8, 2, 0, 0, 0, 0, 0, 0, 0});
    return b;
}

}  // namespace

TEST(ImageIo, MissingFileIsAClearError) {
    EXPECT_THROW(loadImage("/nonexistent/nothing.jpg"), ImageError);
}

// A folder given as a picture: said so (it read as "file larger than 200000000 bytes" before
// 2026-11-29, a folder's stream ending at the largest offset).
TEST(ImageIo, AFolderIsNotAPicture) {
    const auto dir = tempFile("a-folder.jpg");
    std::filesystem::create_directories(dir);
    try {
        loadImage(dir.string());
        FAIL() << "expected ImageError";
    } catch (const ImageError& e) {
        EXPECT_NE(std::string(e.what()).find("a-folder.jpg: a folder, not a picture"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

TEST(ImageIo, ZeroByteFileIsRefused) {
    auto p = tempFile("empty.jpg");
    writeBytes(p, {});
    try {
        loadImage(p.string());
        FAIL() << "expected ImageError";
    } catch (const ImageError& e) {
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
}

TEST(ImageIo, GarbageIsRefused) {
    auto p = tempFile("garbage.jpg");
    writeBytes(p, std::vector<std::uint8_t>(1000, 0x41));
    EXPECT_THROW(loadImage(p.string()), ImageError);
}

TEST(ImageIo, TruncatedJpegIsRefusedNamingTheFile) {
    cv::Mat m(480, 640, CV_8UC3, cv::Scalar(30, 120, 200));
    cv::circle(m, {320, 240}, 100, cv::Scalar(255, 255, 255), -1);
    auto bytes = encode(".jpg", m);
    // libjpeg decodes a file cut in its scan data with a warning and grey rows: it must be refused,
    // not counted as a picture of half a table
    for (std::size_t keep : {std::size_t(2), std::size_t(20), bytes.size() / 3, bytes.size() - 10, bytes.size() - 2}) {
        auto p = tempFile("trunc.jpg");
        writeBytes(p, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(keep)));
        try {
            loadImage(p.string());
            ADD_FAILURE() << "a JPEG cut to " << keep << " of " << bytes.size() << " bytes was accepted";
        } catch (const ImageError& e) {
            EXPECT_NE(std::string(e.what()).find("trunc.jpg"), std::string::npos) << e.what();
        }
    }
    // whole files load: as written, with bytes after the end marker, and with an APP1 segment that
    // holds an end marker of its own (as an EXIF thumbnail does) before the main image
    auto whole = tempFile("whole.jpg");
    writeBytes(whole, bytes);
    EXPECT_EQ(loadImage(whole.string()).cols, 640);
    auto padded = bytes;
    padded.insert(padded.end(), 64, 0);
    writeBytes(whole, padded);
    EXPECT_EQ(loadImage(whole.string()).cols, 640);
    std::vector<std::uint8_t> app1{0xFF, 0xE1, 0x00, 0x08, 'E', 'x', 0xFF, 0xD9, 0x00, 0x00};
    auto withApp = bytes;
    withApp.insert(withApp.begin() + 2, app1.begin(), app1.end());
    writeBytes(whole, withApp);
    EXPECT_EQ(loadImage(whole.string()).cols, 640);
    withApp.resize(withApp.size() / 2);  // that segment's marker does not make a cut file whole
    writeBytes(whole, withApp);
    EXPECT_THROW(loadImage(whole.string()), ImageError);
}

TEST(ImageIo, TruncatedPngHeaderIsRefused) {
    auto p = tempFile("trunc.png");
    writeBytes(p, pngHeaderOnly(640, 480));
    EXPECT_THROW(loadImage(p.string()), ImageError);
}

TEST(ImageIo, EnormousPictureIsRefusedFromItsHeader) {
    // 20000 x 20000 announced; refused before decoding (the file holds no pixel data at all)
    auto p = tempFile("huge.png");
    writeBytes(p, pngHeaderOnly(20000, 20000));
    try {
        loadImage(p.string());
        FAIL() << "expected ImageError";
    } catch (const ImageError& e) {
        EXPECT_NE(std::string(e.what()).find("20000x20000"), std::string::npos) << e.what();
    }
    auto size = peekImageSize(pngHeaderOnly(20000, 20000).data(), 24 + 9);
    EXPECT_EQ(size.width, 20000);
}

TEST(ImageIo, EnormousJpegIsRefusedFromItsHeader) {
    cv::Mat m(16, 16, CV_8UC3, cv::Scalar(1, 2, 3));
    auto bytes = encode(".jpg", m);
    // patch the SOF0 frame size to 20000 x 20000
    for (std::size_t i = 2; i + 9 < bytes.size(); ++i) {
        if (bytes[i] == 0xFF && bytes[i + 1] == 0xC0) {
            bytes[i + 5] = 20000 >> 8; bytes[i + 6] = 20000 & 255;
            bytes[i + 7] = 20000 >> 8; bytes[i + 8] = 20000 & 255;
            break;
        }
    }
    EXPECT_EQ(peekImageSize(bytes.data(), bytes.size()).width, 20000);
    auto p = tempFile("huge.jpg");
    writeBytes(p, bytes);
    EXPECT_THROW(loadImage(p.string()), ImageError);
}

TEST(ImageIo, ZeroSizeHeaderIsRefused) {
    auto p = tempFile("zero.png");
    auto b = pngHeaderOnly(0, 0);
    writeBytes(p, b);
    EXPECT_THROW(loadImage(p.string()), ImageError);
}

TEST(ImageIo, EmptyMatIsRefused) {
    EXPECT_THROW(toBgr8(cv::Mat()), ImageError);
}

TEST(ImageIo, GraySixteenBitAndAlphaBecomeBgr8) {
    cv::Mat gray(60, 80, CV_8UC1, cv::Scalar(100));
    cv::Mat deep(60, 80, CV_16UC3, cv::Scalar(65535, 0, 32768));
    cv::Mat alpha(60, 80, CV_8UC4, cv::Scalar(10, 20, 30, 0));
    for (const cv::Mat& m : {gray, deep, alpha}) {
        cv::Mat out = toBgr8(m);
        EXPECT_EQ(out.type(), CV_8UC3);
        EXPECT_EQ(out.size(), m.size());
    }
    EXPECT_EQ(toBgr8(deep).at<cv::Vec3b>(0, 0), cv::Vec3b(255, 0, 128));
    // and through files: 16-bit PNG, gray PNG, 4-channel PNG
    for (const auto& [name, m] : {std::pair{"deep.png", deep}, std::pair{"gray.png", gray}, std::pair{"alpha.png", alpha}}) {
        auto p = tempFile(name);
        writeBytes(p, encode(".png", m));
        cv::Mat out = loadImage(p.string());
        EXPECT_EQ(out.type(), CV_8UC3) << name;
        EXPECT_EQ(out.size(), m.size()) << name;
    }
}

// A clip written by OpenCV opens and gives its frames; a missing file, an empty one and a text file
// give no open clip, a clip cut after its first kilobyte no more frames than it holds, and never an
// exception. (FFmpeg opens a PNG as a clip of one frame: `count` tells pictures by their name.)
TEST(VideoIo, OpensARealClipAndRefusesWhatIsNone) {
    const fs::path clip = tempFile("clip.avi");
    {
        cv::VideoWriter w(clip.string(), cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, cv::Size(160, 120));
        ASSERT_TRUE(w.isOpened());
        for (int i = 0; i < 5; ++i) w.write(cv::Mat(120, 160, CV_8UC3, cv::Scalar(40 * i, 90, 200)));
    }
    cv::VideoCapture cap;
    ASSERT_TRUE(openVideoFile(cap, clip.string()));
    int frames = 0;
    for (cv::Mat f; cap.read(f) && !f.empty();) {
        EXPECT_EQ(f.size(), cv::Size(160, 120));
        ++frames;
    }
    EXPECT_EQ(frames, 5);

    const fs::path empty = tempFile("empty.avi"), text = tempFile("text.avi"), cut = tempFile("cut.avi");
    writeBytes(empty, {});
    {
        std::ofstream out(text);
        out << "Ann 14, Bo 9: not a clip\n";
    }
    {
        std::ifstream in(clip, std::ios::binary);
        std::vector<std::uint8_t> head(1024);
        in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()));
        writeBytes(cut, head);
    }
    for (const fs::path& p : {tempFile("missing.avi"), empty, text}) {
        cv::VideoCapture none;
        EXPECT_NO_THROW(EXPECT_FALSE(openVideoFile(none, p.string())) << p);
    }
    // a clip cut short may open (its header is whole), but reads no more frames than it holds
    cv::VideoCapture part;
    EXPECT_NO_THROW(openVideoFile(part, cut.string()));
    int partFrames = 0;
    for (cv::Mat f; part.isOpened() && part.read(f) && !f.empty();) ++partFrames;
    EXPECT_LT(partFrames, 5);
    for (const fs::path& p : {clip, empty, text, cut}) fs::remove(p);
}

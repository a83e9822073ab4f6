// Picture loading with header-checked size limits; see image_io.hpp.
#include "nertz/vision/image_io.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace nertz::vision {
namespace {

std::uint32_t be16(const std::uint8_t* p) { return (std::uint32_t(p[0]) << 8) | p[1]; }
std::uint32_t be32(const std::uint8_t* p) { return (be16(p) << 16) | be16(p + 2); }
std::uint32_t le16(const std::uint8_t* p) { return (std::uint32_t(p[1]) << 8) | p[0]; }
std::uint32_t le32(const std::uint8_t* p) { return (le16(p + 2) << 16) | le16(p); }

// The offset of the first top-level JPEG segment whose marker satisfies `wanted` (its 0xFF byte),
// walking the segments by their lengths from the start (so the markers inside an EXIF thumbnail in
// APP1 are skipped); npos when the data end first. Throws on a broken segment chain.
template <class Wanted>
std::size_t jpegSegment(const std::uint8_t* d, std::size_t n, Wanted wanted) {
    std::size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xFF) throw ImageError("corrupt JPEG header");
        const std::uint8_t marker = d[i + 1];
        if (marker == 0xFF) { ++i; continue; }
        if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) { i += 2; continue; }
        if (wanted(marker)) return i;
        const std::size_t len = be16(d + i + 2);
        if (len < 2) throw ImageError("corrupt JPEG header");
        i += 2 + len;
    }
    return std::string::npos;
}

ImageSize jpegSize(const std::uint8_t* d, std::size_t n) {
    const std::size_t i = jpegSegment(d, n, [](std::uint8_t m) {
        return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;  // a start of frame
    });
    if (i == std::string::npos || i + 9 > n) throw ImageError("truncated JPEG: no frame header");
    return {int(be16(d + i + 7)), int(be16(d + i + 5))};
}

// A JPEG cut short decodes in libjpeg with a warning ("Premature end of JPEG file") and grey rows
// where the data ended: the end-of-image marker must follow the main image's first scan (in the
// scan data a 0xFF byte is always stuffed, FF 00, so FF D9 there is the marker).
void requireJpegEnd(const std::uint8_t* d, std::size_t n) {
    const std::size_t sos = jpegSegment(d, n, [](std::uint8_t m) { return m == 0xDA; });
    if (sos != std::string::npos)
        for (std::size_t k = sos + 2 + be16(d + sos + 2); k + 1 < n; ++k)
            if (d[k] == 0xFF && d[k + 1] == 0xD9) return;
    throw ImageError("truncated JPEG (the data end before the end-of-image marker)");
}

ImageSize pnmSize(const std::uint8_t* d, std::size_t n) {
    // P1..P6: magic, then width and height as ASCII numbers, with comments allowed.
    std::size_t i = 2;
    long vals[2] = {0, 0};
    for (long& v : vals) {
        while (i < n && (std::isspace(d[i]) || d[i] == '#')) {
            if (d[i] == '#') while (i < n && d[i] != '\n') ++i;
            else ++i;
        }
        if (i >= n || !std::isdigit(d[i])) throw ImageError("corrupt PNM header");
        while (i < n && std::isdigit(d[i]) && v < 1'000'000'000) v = v * 10 + (d[i++] - '0');
    }
    return {int(std::min(vals[0], 1'000'000'000L)), int(std::min(vals[1], 1'000'000'000L))};
}

ImageSize tiffSize(const std::uint8_t* d, std::size_t n) {
    bool le = d[0] == 'I';
    auto u16 = [&](std::size_t o) { return le ? le16(d + o) : be16(d + o); };
    auto u32 = [&](std::size_t o) { return le ? le32(d + o) : be32(d + o); };
    std::size_t ifd = u32(4);
    if (ifd + 2 > n) throw ImageError("truncated TIFF header");
    std::size_t count = u16(ifd);
    ImageSize s;
    for (std::size_t k = 0; k < count; ++k) {
        std::size_t e = ifd + 2 + 12 * k;
        if (e + 12 > n) throw ImageError("truncated TIFF header");
        std::uint32_t tag = u16(e), type = u16(e + 2);
        std::uint32_t val = type == 3 ? u16(e + 8) : u32(e + 8);
        if (tag == 256) s.width = int(std::min<std::uint32_t>(val, 1'000'000'000));
        if (tag == 257) s.height = int(std::min<std::uint32_t>(val, 1'000'000'000));
    }
    if (s.width <= 0 || s.height <= 0) throw ImageError("TIFF without image size");
    return s;
}

}  // namespace

ImageSize peekImageSize(const std::uint8_t* d, std::size_t n) {
    if (n == 0) throw ImageError("empty file");
    if (n >= 24 && std::memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return {int(be32(d + 16) & 0x7fffffff), int(be32(d + 20) & 0x7fffffff)};
    if (n >= 4 && d[0] == 0xFF && d[1] == 0xD8) return jpegSize(d, n);
    if (n >= 26 && d[0] == 'B' && d[1] == 'M') {
        auto h = std::int32_t(le32(d + 22));
        return {int(le32(d + 18) & 0x7fffffff), h < 0 ? -h : h};
    }
    if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6') return pnmSize(d, n);
    if (n >= 8 && ((d[0] == 'I' && d[1] == 'I' && d[2] == 42) || (d[0] == 'M' && d[1] == 'M' && d[3] == 42))) return tiffSize(d, n);
    if (n >= 30 && std::memcmp(d, "RIFF", 4) == 0 && std::memcmp(d + 8, "WEBP", 4) == 0) {
        if (std::memcmp(d + 12, "VP8X", 4) == 0) return {int(1 + (le32(d + 24) & 0xFFFFFF)), int(1 + (le32(d + 27) & 0xFFFFFF))};
        if (std::memcmp(d + 12, "VP8 ", 4) == 0) return {int(le16(d + 26) & 0x3FFF), int(le16(d + 28) & 0x3FFF)};
        if (std::memcmp(d + 12, "VP8L", 4) == 0) {
            std::uint32_t b = le32(d + 21);
            return {int((b & 0x3FFF) + 1), int(((b >> 14) & 0x3FFF) + 1)};
        }
    }
    throw ImageError("not a PNG, JPEG, BMP, PNM, TIFF or WebP picture");
}

cv::Mat toBgr8(const cv::Mat& image) {
    if (image.empty()) throw ImageError("image: empty picture (no pixels)");
    if (std::int64_t(image.cols) * image.rows > kMaxImagePixels)
        throw ImageError("image: " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                         " is larger than the limit of " + std::to_string(kMaxImagePixels) + " pixels");
    if (image.dims != 2) throw ImageError("image: not a 2-D picture");
    cv::Mat m8;
    switch (image.depth()) {
        case CV_8U: m8 = image; break;
        case CV_8S: image.convertTo(m8, CV_8U, 1.0, 128); break;
        case CV_16U: image.convertTo(m8, CV_8U, 1.0 / 257.0); break;
        case CV_16S: image.convertTo(m8, CV_8U, 1.0 / 257.0, 128); break;
        case CV_32F:
        case CV_64F: {
            cv::Mat clean;
            image.convertTo(clean, CV_32F);
            cv::patchNaNs(clean, 0);
            clean.convertTo(m8, CV_8U, 255.0);  // float pictures are taken as 0..1
            break;
        }
        default: throw ImageError("image: unsupported pixel depth");
    }
    cv::Mat out;
    switch (m8.channels()) {
        case 1: cv::cvtColor(m8, out, cv::COLOR_GRAY2BGR); break;
        case 3: out = m8; break;
        case 4: cv::cvtColor(m8, out, cv::COLOR_BGRA2BGR); break;
        default: throw ImageError("image: unsupported channel count " + std::to_string(m8.channels()));
    }
    return out;
}

cv::Mat loadImage(const std::string& path) {
    // (a folder opens as a stream whose end lies at the largest offset: "file larger than ...")
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ImageError(path + ": a folder, not a picture");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw ImageError(path + ": cannot open file");
    std::streamoff size = in.tellg();
    if (size <= 0) throw ImageError(path + ": empty file");
    if (size > kMaxImageFileBytes) throw ImageError(path + ": file larger than " + std::to_string(kMaxImageFileBytes) + " bytes");
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw ImageError(path + ": read error");
    ImageSize s;
    try {
        s = peekImageSize(bytes.data(), bytes.size());
        if (bytes[0] == 0xFF && bytes[1] == 0xD8) requireJpegEnd(bytes.data(), bytes.size());
    } catch (const ImageError& e) {
        throw ImageError(path + ": " + e.what());
    }
    if (s.width <= 0 || s.height <= 0) throw ImageError(path + ": picture has zero size");
    if (std::int64_t(s.width) * s.height > kMaxImagePixels)
        throw ImageError(path + ": " + std::to_string(s.width) + "x" + std::to_string(s.height) + " is larger than the limit of " +
                         std::to_string(kMaxImagePixels) + " pixels");
    cv::Mat decoded;
    try {
        decoded = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
    } catch (const cv::Exception& e) {
        throw ImageError(path + ": cannot decode picture");
    }
    if (decoded.empty()) throw ImageError(path + ": cannot decode picture (truncated or corrupt)");
    try {
        return toBgr8(decoded);
    } catch (const ImageError& e) {
        throw ImageError(path + ": " + std::string(e.what()).substr(7));
    }
}

}  // namespace nertz::vision

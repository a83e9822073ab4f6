// Loading camera pictures safely: size limits checked from the file header before decoding, and
// every supported pixel format (gray, 16-bit, alpha) brought to 8-bit BGR for the pipeline.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <opencv2/core.hpp>

namespace nertz::vision {

// A picture the pipeline cannot use: unreadable, truncated, empty, too large, unknown format.
// what() names the file (or "image") and the reason.
class ImageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Largest picture accepted, in pixels (width * height): 40 megapixels, e.g. 8000 x 5000.
// Larger pictures are refused before any pixel is decoded, so memory stays bounded.
inline constexpr std::int64_t kMaxImagePixels = 40'000'000;
// Largest file accepted, in bytes.
inline constexpr std::int64_t kMaxImageFileBytes = 200'000'000;

struct ImageSize {
    int width = 0;
    int height = 0;
};

// Width and height read from the header of an encoded PNG, JPEG, BMP, PNM, TIFF or WebP picture;
// throws ImageError when the bytes are no such picture or the header is cut short.
ImageSize peekImageSize(const std::uint8_t* data, std::size_t size);

// Reads and decodes a picture file into 8-bit BGR. Throws ImageError (never crashes) on missing,
// empty, truncated, unknown or oversized files.
cv::Mat loadImage(const std::string& path);

// Any 1-, 3- or 4-channel 8- or 16-bit (or float) picture as 8-bit BGR; throws ImageError on an
// empty Mat, an unsupported layout or more than kMaxImagePixels.
cv::Mat toBgr8(const cv::Mat& image);

}  // namespace nertz::vision

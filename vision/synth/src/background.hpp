// Table surfaces for synthetic scenes: procedural wood, cloth/felt and white tables, or a photo.
#pragma once

#include <opencv2/core.hpp>

#include <filesystem>
#include <vector>

namespace nertz::synth {

// A table texture of `size` (CV_8UC3), drawn with `rng`. When `photos` is not empty, a photo
// crop is one of the choices: one of four alike when `photoShare` is below 0, else drawn with that
// probability (and one of the three procedural kinds otherwise).
cv::Mat makeTable(cv::RNG& rng, cv::Size size, const std::vector<std::filesystem::path>& photos,
                  double photoShare = -1.0);

// A plain one-colour cloth (felt) with a fine grain and a soft light fall-off: the table that a
// plain card back is easiest to mistake for.
cv::Mat plainCloth(cv::RNG& rng, cv::Size size);

}  // namespace nertz::synth

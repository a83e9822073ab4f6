// Pieces the vision commands share (count, eval-count, eval-backs, lake, eval-lake): JSON forms of
// outlines, percentiles of timings, and a face reader whose missing model is a bad --models folder.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "nertz/io/json.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/vision/detector.hpp"

namespace nertz::cli {

// [[x, y], ...] to a tenth of a pixel, for a quad or any outline.
template <class Points>
io::Json pointsJson(const Points& points) {
    io::Json a = io::Json::array();
    for (const auto& p : points)
        a.push_back({std::round(double(p.x) * 10) / 10, std::round(double(p.y) * 10) / 10});
    return a;
}

inline io::Json quadJson(const vision::Quad& q) { return pointsJson(q); }

// The p-th percentile (0..1) of `v`, the nearest rank; 0 for none.
inline double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

// A face reader with `opts` from the folder `models` (empty: as `detect`); a missing or broken
// model is an InputError of --models, its message followed by `hint`.
inline std::unique_ptr<vision::Detector> makeDetector(vision::DetectorOptions opts,
                                                      const std::string& models,
                                                      const std::string& hint = "") {
    opts.modelDir = models;
    try {
        return std::make_unique<vision::Detector>(opts);
    } catch (const vision::ModelError& e) {
        throw scoring::InputError("--models", std::string(e.what()) + hint);
    }
}

// The scene files (cards/*.json, sorted, the first `limit` when > 0) of a set written by
// `nertzref-cli synth` in `dir`; an InputError of DIR when there is no cards/ folder (`kind`: the
// synth options that write such a set, for the message) or no scene.
inline std::vector<std::filesystem::path> sceneFiles(const std::string& dir, int limit,
                                                     const std::string& kind = "") {
    namespace fs = std::filesystem;
    if (!fs::is_directory(fs::path(dir) / "cards"))
        throw scoring::InputError("DIR", "no cards/ folder in " + dir + " (write one with 'nertzref-cli synth" +
                                             kind + "')");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(dir) / "cards"))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (limit > 0 && int(files.size()) > limit) files.resize(std::size_t(limit));
    if (files.empty()) throw scoring::InputError("DIR", "no scenes in " + dir);
    return files;
}

}  // namespace nertz::cli

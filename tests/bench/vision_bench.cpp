// Detector speed on a 1280x720 frame on one core. The frame is two real webcam_table photos
// (../shared/data/real-cards, 14 + 12 labelled corner indices, about 20 cards) side by side.
// Run: build/tests/bench/vision_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "nertz/vision.hpp"

// The two webcam_table photos side by side at 1280x720.
static cv::Mat twoPhotoFrame() {
    const std::string dir = std::string(NERTZ_SHARED_DIR) + "/data/real-cards/webcam_table/images/";
    cv::Mat left = nertz::vision::loadImage(dir + "WIN_20240627_11_36_36_Pro.jpg");
    cv::Mat right = nertz::vision::loadImage(dir + "WIN_20240627_11_37_46_Pro.jpg");
    cv::Mat frame(720, 1280, CV_8UC3);
    cv::resize(left, frame(cv::Rect(0, 0, 640, 720)), cv::Size(640, 720));
    cv::resize(right, frame(cv::Rect(640, 0, 640, 720)), cv::Size(640, 720));
    return frame;
}

static void BM_Detect1280x720(benchmark::State& state) {
    cv::setNumThreads(1);
    const cv::Mat frame = twoPhotoFrame();
    // /1: as shipped for a live camera; /0: without the pip-ink suit check; /2: as for a still
    // picture (small indices read again enlarged, and the frame also read at 1.25 and 0.75 times
    // its working scale: nertzref-cli, the app's lake step); /3: as /1
    // without a black index's suit read again by its own column; /4: as /1 without unsure readings
    // of a card's two corners taken together; /5: as /2 without unsure indices cut again
    // (recutConfidence)
    nertz::vision::DetectorOptions options = state.range(0) == 2 || state.range(0) == 5
                                                 ? nertz::vision::DetectorOptions::stillPicture()
                                                 : nertz::vision::DetectorOptions{};
    options.suitFromInk = state.range(0) != 0;
    options.blackSuitFromIndexColumn = state.range(0) != 3;
    if (state.range(0) == 4) options.pairConfidence = 1.f;
    if (state.range(0) == 5) options.recutConfidence = 1.f;
    nertz::vision::Detector detector(options);
    std::size_t cards = 0;
    for (auto _ : state) {
        auto d = detector.detect(frame);
        cards = d.cards.size();
        benchmark::DoNotOptimize(cards);
    }
    state.counters["cards"] = double(cards);
}
BENCHMARK(BM_Detect1280x720)
    ->Arg(1)
    ->Arg(0)
    ->Arg(2)
    ->Arg(3)
    ->Arg(4)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// The lake checksum's reading of a detection (readLakeTops, its cost after detect): /1 with the
// picture (what stands out from the table where no card was found: models/training/BACKS.md, "Lake
// piles nothing found"), /0 from the detection alone. The same two-photo 1280x720 frame.
static void BM_LakeTops1280x720(benchmark::State& state) {
    cv::setNumThreads(1);
    const cv::Mat frame = twoPhotoFrame();
    nertz::vision::Detector detector(nertz::vision::DetectorOptions::stillPicture());
    const nertz::vision::Detection det = detector.detect(frame);
    const cv::Mat picture = state.range(0) == 1 ? frame : cv::Mat();
    std::size_t tops = 0;
    for (auto _ : state) {
        const auto lake = nertz::vision::readLakeTops(det, picture);
        tops = lake.tops.size();
        benchmark::DoNotOptimize(tops);
    }
    state.counters["tops"] = double(tops);
}
BENCHMARK(BM_LakeTops1280x720)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// `n` grayscale windows of a webcam_table photo at random places (seeded): every `fullEvery`-th one
// a full 24x40 patch, the others the gate's 12x20 halves.
static std::vector<cv::Mat> webcamWindows(const char* photo, int n, int fullEvery,
                                          std::uint64_t seed) {
    cv::Mat gray;
    cv::cvtColor(nertz::vision::loadImage(std::string(NERTZ_SHARED_DIR) +
                                          "/data/real-cards/webcam_table/images/" + photo),
                 gray, cv::COLOR_BGR2GRAY);
    cv::RNG rng(seed);
    std::vector<cv::Mat> windows;
    for (int i = 0; i < n; ++i) {
        const cv::Size size = i % fullEvery == 0 ? cv::Size(24, 40) : cv::Size(12, 20);
        windows.push_back(
            gray(cv::Rect(rng.uniform(0, gray.cols - size.width),
                          rng.uniform(0, gray.rows - size.height), size.width, size.height))
                .clone());
    }
    return windows;
}

// The reader's stretch of a patch (5th to 95th percentile to 0..1), as a frame asks for it: 2,560
// candidates' 12x20 halves for the gate and ~400 full 24x40 patches for the reader; here 3,000
// windows of a real webcam picture in that proportion (five halves to one full patch).
static void BM_NormalisePatch(benchmark::State& state) {
    const std::vector<cv::Mat> patches = webcamWindows("WIN_20240627_11_36_36_Pro.jpg", 3000, 6, 1);
    std::vector<float> out(24 * 40);
    for (auto _ : state) {
        for (const auto& p : patches) nertz::vision::normalisePatch(p, out.data());
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["patches"] = double(patches.size());
}
BENCHMARK(BM_NormalisePatch)->Unit(benchmark::kMicrosecond);

// The reader on the patches a live frame asks it to read (~460 of the bench frame's 24x40
// candidates pass the gate): here 460 windows of a real webcam picture, read whatever the gate
// says.
static void BM_ReadPatches(benchmark::State& state) {
    cv::setNumThreads(1);
    const std::vector<cv::Mat> patches = webcamWindows("WIN_20240627_11_37_46_Pro.jpg", 460, 1, 2);
    nertz::vision::IndexReader reader(nertz::vision::resolveModelDir());
    std::size_t read = 0;
    for (auto _ : state) {
        const auto r = reader.read(patches);
        read = r.size();
        benchmark::DoNotOptimize(r.data());
    }
    state.counters["patches"] = double(read);
}
BENCHMARK(BM_ReadPatches)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

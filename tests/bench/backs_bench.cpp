// Back counting speed on one core: a 1280x720 frame of loose face-down cards (the batch count),
// the same read as `count` does (faces first), one of a ribbon spread, one of two ribbons that
// touch, and one stream frame. Real gnome-cards-data backs (see tests/backs). Run:
// build/tests/bench/backs_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <opencv2/imgproc.hpp>

#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "nertz/vision/back_render.hpp"
#include "nertz/vision/back_segmenter.hpp"
#include "nertz/vision/detector.hpp"
#include "nertz/vision/lake_counter.hpp"
#include "nertz/vision/stream_counter.hpp"

namespace vi = nertz::vision;

namespace {

struct Fixture {
    std::vector<cv::Mat> art;
    vi::BackMatcher matcher;
    cv::Mat loose, ribbon, touching;
    vi::DealClip clip, through;

    Fixture() {
        cv::setNumThreads(1);
        for (const char* d : {"bellot", "anglo", "paris", "ornamental"}) {
            cv::Mat m = cv::imread(std::string(NERTZ_TEST_BACKS_DIR) + "/" + d + ".png",
                                   cv::IMREAD_UNCHANGED);
            if (m.empty())
                throw std::runtime_error(std::string("missing test back ") + d +
                                         " (build backs_test_art)");
            art.push_back(m);
            const auto v = vi::renderEnrolmentView(m, art.size());
            matcher.add(d, vi::makeBackSignature(v.image, v.quad));
        }
        cv::RNG rng(3);
        loose = cv::Mat(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
        ribbon = loose.clone();
        for (int i = 0; i < 24; ++i) {  // 24 loose cards on a 6 x 4 grid
            const cv::Point2f c(1280.f * (i % 6 + 0.5f) / 6, 720.f * (i / 6 + 0.5f) / 4);
            const float h = 150, w = 105, a = float(rng.uniform(0.0, 6.28));
            const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a));
            vi::drawCard(loose, art[std::size_t(i % 4)],
                         {c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2),
                          c + u * (w / 2) + v * (h / 2), c - u * (w / 2) + v * (h / 2)});
        }
        // an upright 152 x 220 card of a random deck, centred on c
        auto upright = [&](cv::Mat& img, cv::Point2f c) {
            vi::drawCard(img, art[std::size_t(rng.uniform(0, 4))],
                         {c + cv::Point2f(-76, -110), c + cv::Point2f(76, -110),
                          c + cv::Point2f(76, 110), c + cv::Point2f(-76, 110)});
        };
        for (int i = 0; i < 20; ++i)
            upright(ribbon, {250.f + i * 40.f, 360.f});  // a 20-card ribbon
        // two 12-card ribbons side by side, their long sides 2 px apart: one blob, split into rows
        touching = cv::Mat(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < 12; ++i) upright(touching, {450.f + i * 20.f, r ? 471.f : 249.f});
        vi::DealClipOptions o;
        o.cards = 10;
        clip = vi::renderDealClip(art, 5, o);
        o.through = true;
        through = vi::renderDealClip(art, 6, o);
    }
};

const Fixture& fixture() {
    static const Fixture f;
    return f;
}

// Arg 1: as counted; 0: without the check of each card's lightness against its deck's
// (MatcherOptions::lighterBy, stripLighterBy), what that check costs.
void BM_CountLooseFrame(benchmark::State& state) {
    const auto& f = fixture();
    vi::MatcherOptions unchecked;
    unchecked.lighterBy = unchecked.stripLighterBy = 0.f;
    vi::BackMatcher off(unchecked);
    for (const auto& d : f.matcher.decks()) off.add(d.name, d.signature);
    const vi::BackMatcher& m = state.range(0) ? f.matcher : off;
    vi::DeckCount got;
    for (auto _ : state) {
        got = vi::countBacks(f.loose, m);
        benchmark::DoNotOptimize(got);
    }
    state.counters["cards_of_24"] = got.total();
    state.counters["unknown"] = got.unknown;
}

// The loose frame as `nertzref-cli count` reads a picture, with a face reader: a frame where some
// card is given to no deck has its faces read (the cards given to a deck painted over), so that
// face-up cards are left out. Arg 0: every card's deck enrolled; 1: one deck's signature missing,
// so its 6 cards are unknown and the faces are read.
void BM_CountLooseFrameWithFaces(benchmark::State& state) {
    const auto& f = fixture();
    vi::Detector reader(vi::DetectorOptions::readOnce());
    vi::BackMatcher three;
    for (std::size_t d = 0; d + 1 < f.matcher.decks().size(); ++d)
        three.add(f.matcher.decks()[d].name, f.matcher.decks()[d].signature);
    const vi::BackMatcher& m = state.range(0) ? three : f.matcher;
    vi::DeckCount got;
    for (auto _ : state) {
        got = vi::countBacks(f.loose, m, {}, &reader);
        benchmark::DoNotOptimize(got);
    }
    state.counters["faces_ms"] = got.facesMs;  // of the last count: reading the faces
    state.counters["cards_of_24"] = got.total();
    state.counters["unknown"] = got.unknown;
}

// The same frame with the table-colour finder of before the learnt segmenter (learntMask = false).
void BM_CountLooseFrameTableColour(benchmark::State& state) {
    const auto& f = fixture();
    vi::BackFinderOptions o;
    o.learntMask = false;
    for (auto _ : state) benchmark::DoNotOptimize(vi::countBacks(f.loose, f.matcher, o));
}

// The learnt segmenter alone on the loose frame shrunk to the finder's working size (640x360).
void BM_SegmentFrame(benchmark::State& state) {
    const auto& f = fixture();
    cv::Mat work;
    cv::resize(f.loose, work, cv::Size(640, 360), 0, 0, cv::INTER_AREA);
    const vi::BackSegmenter* seg = vi::BackSegmenter::forThisThread();
    if (!seg) {
        state.SkipWithError("no back_seg.onnx");
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(seg->segment(work));
}

void BM_CountRibbonFrame(benchmark::State& state) {
    const auto& f = fixture();
    for (auto _ : state) benchmark::DoNotOptimize(vi::countBacks(f.ribbon, f.matcher));
}

// Two ribbons that touch (BackFinderOptions::splitRows): arg 0 as `count` reads them (split into
// rows along the segmenter's instances; 24 of 24 since 2026-11-29, 6 before: BACKS.md, "Two rows
// that touch"), 1 without the split (6).
void BM_CountTouchingRibbonsFrame(benchmark::State& state) {
    const auto& f = fixture();
    vi::BackFinderOptions o;
    if (state.range(0)) o.splitRows = 0.f;
    int found = 0;
    for (auto _ : state) {
        const vi::DeckCount got = vi::countBacks(f.touching, f.matcher, o);
        found = got.total();
        benchmark::DoNotOptimize(found);
    }
    state.counters["cards_of_24"] = found;
}

// The same ribbon frame with its rows read by the autocorrelation reader (learntRows off).
void BM_CountRibbonFrameAutocorrelationRows(benchmark::State& state) {
    const auto& f = fixture();
    vi::BackFinderOptions o;
    o.learntRows = false;
    for (auto _ : state) benchmark::DoNotOptimize(vi::countBacks(f.ribbon, f.matcher, o));
}

// Mean cost of one 1280x720 frame of a dealing clip (rest frames, moving frames and counts); arg 1:
// the cards pass through the view instead (every frame follows the moving cards and reads the
// card-shaped ones).
void streamFrames(benchmark::State& state, const vi::StreamOptions& options) {
    const auto& f = fixture();
    const vi::DealClip& clip = state.range(0) ? f.through : f.clip;
    std::size_t frames = 0;
    for (auto _ : state) {
        vi::StreamCounter counter(f.matcher, options);
        for (const auto& fr : clip.frames) counter.push(fr);
        frames += clip.frames.size();
    }
    state.counters["ms_per_frame"] = benchmark::Counter(
        double(frames) / 1000.0, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_StreamFrame(benchmark::State& state) { streamFrames(state, {}); }

// The same without the lightness check (StreamOptions::lightness): what reading the frame's white
// for the cards read on it costs.
void BM_StreamFrameUnchecked(benchmark::State& state) {
    vi::StreamOptions o;
    o.lightness = false;
    streamFrames(state, o);
}

}  // namespace

BENCHMARK(BM_CountLooseFrame)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountLooseFrameWithFaces)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountLooseFrameTableColour)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SegmentFrame)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountRibbonFrame)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountTouchingRibbonsFrame)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountRibbonFrameAutocorrelationRows)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamFrame)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamFrameUnchecked)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

// VisionWorker: runs frame analysis on its own thread. Frames are dropped, not queued: the
// worker keeps only the latest frame submitted, so the view never lags behind the table.
// FrameAnalyzer is the seam where nertz::vision plugs in (card finder, back attribution).
#pragma once
#include <QImage>
#include <QObject>
#include <QString>
#include <QThread>
#include <QVariant>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <optional>

namespace nertz::gui {

// One slot holding the newest frame; put() replaces whatever was not yet taken.
class LatestFrame {
public:
    // Stores `frame` with sequence number `seq`; true when an untaken frame was replaced (dropped).
    bool put(cv::Mat frame, quint64 seq);
    // The stored frame and its sequence number, leaving the slot empty.
    std::optional<std::pair<cv::Mat, quint64>> take();
    bool empty();

private:
    std::mutex mutex_;
    std::optional<std::pair<cv::Mat, quint64>> slot_;
};

// What the analysis of one frame found, for the screen. `summary` is empty when no analyzer runs.
struct FrameReport {
    QImage image;  // the frame with any overlays, RGB
    quint64 seq = 0;
    double processMs = 0;
    QString summary;
    QVariant result;  // what the analyzer found (BackTally, EnrolReading, ...), empty when nothing
};

// Analyses one BGR frame on the worker thread; may draw overlays on it. Implemented against
// nertz::vision when that module is built; without one the worker only converts frames.
class FrameAnalyzer {
public:
    virtual ~FrameAnalyzer() = default;
    virtual QString name() const = 0;
    // Returns a one-line summary; draws on `frame` in place.
    virtual QString analyze(cv::Mat& frame) = 0;
    // What the last analyze() found, for the GUI thread (called right after it, same thread).
    virtual QVariant takeResult() { return {}; }
};

class VisionWorker : public QObject {
    Q_OBJECT
public:
    explicit VisionWorker(QObject* parent = nullptr);
    ~VisionWorker() override;
    // Replaces the analyzer (nullptr: none). Takes effect from the next frame.
    void setAnalyzer(std::shared_ptr<FrameAnalyzer> analyzer);
    bool hasAnalyzer() const;
    // Called from the GUI thread for every source frame; never blocks.
    void submit(const cv::Mat& frame);
    quint64 submitted() const { return submitted_; }
    quint64 processed() const { return processed_; }
    quint64 dropped() const { return dropped_; }
    bool busy() const { return pending_; }

signals:
    // Emitted on the worker thread, delivered queued to receivers on the GUI thread.
    void frameProcessed(const nertz::gui::FrameReport& report);

private:
    void drain();  // runs on the worker thread
    QThread thread_;
    QObject* context_ = nullptr;  // lives on thread_; drain() is posted to it
    LatestFrame latest_;
    mutable std::mutex analyzerMutex_;
    std::shared_ptr<FrameAnalyzer> analyzer_;
    std::atomic<quint64> submitted_{0}, processed_{0}, dropped_{0};
    std::atomic<bool> pending_{false};
};

}  // namespace nertz::gui

Q_DECLARE_METATYPE(nertz::gui::FrameReport)

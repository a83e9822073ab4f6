#include "vision_worker.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

#include "frame_adapter.hpp"

namespace nertz::gui {

bool LatestFrame::put(cv::Mat frame, quint64 seq) {
    std::lock_guard lock(mutex_);
    const bool replaced = slot_.has_value();
    slot_.emplace(std::move(frame), seq);
    return replaced;
}

bool LatestFrame::empty() {
    std::lock_guard lock(mutex_);
    return !slot_.has_value();
}

std::optional<std::pair<cv::Mat, quint64>> LatestFrame::take() {
    std::lock_guard lock(mutex_);
    auto out = std::move(slot_);
    slot_.reset();
    return out;
}

VisionWorker::VisionWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<nertz::gui::FrameReport>();
    context_ = new QObject;
    context_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, context_, &QObject::deleteLater);
    thread_.setObjectName("vision-worker");
    thread_.start();
}

VisionWorker::~VisionWorker() {
    thread_.quit();
    thread_.wait();
}

void VisionWorker::setAnalyzer(std::shared_ptr<FrameAnalyzer> analyzer) {
    std::lock_guard lock(analyzerMutex_);
    analyzer_ = std::move(analyzer);
}

bool VisionWorker::hasAnalyzer() const {
    std::lock_guard lock(analyzerMutex_);
    return analyzer_ != nullptr;
}

void VisionWorker::submit(const cv::Mat& frame) {
    const quint64 seq = ++submitted_;
    // The source may reuse its buffer: keep a private copy (the one copy per frame).
    if (latest_.put(frame.clone(), seq)) ++dropped_;
    if (!pending_.exchange(true)) QMetaObject::invokeMethod(context_, [this] { drain(); }, Qt::QueuedConnection);
}

void VisionWorker::drain() {
    for (;;) {
        while (auto item = latest_.take()) {
            QElapsedTimer timer;
            timer.start();
            FrameReport report;
            report.seq = item->second;
            std::shared_ptr<FrameAnalyzer> analyzer;
            {
                std::lock_guard lock(analyzerMutex_);
                analyzer = analyzer_;
            }
            if (analyzer) {
                report.summary = analyzer->analyze(item->first);
                report.result = analyzer->takeResult();
            }
            report.image = toQImage(item->first);
            report.processMs = timer.nsecsElapsed() / 1e6;
            ++processed_;
            emit frameProcessed(report);
        }
        pending_ = false;
        // A frame put between the last take() and clearing the flag must not wait for the next one.
        if (latest_.empty() || pending_.exchange(true)) return;
    }
}

}  // namespace nertz::gui

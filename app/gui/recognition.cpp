#include "recognition.hpp"

#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>

#include "nertz/scoring/referee.hpp"
#include "nertz/vision/back_finder.hpp"
#include "nertz/vision/back_matcher.hpp"
#include "nertz/vision/back_signature.hpp"
#include "nertz/vision/detector.hpp"
#include "nertz/vision/lake_counter.hpp"
#include "nertz/vision/lake_tops.hpp"
#include "nertz/vision/stream_counter.hpp"

namespace nertz::gui {

namespace vi = nertz::vision;

namespace {
constexpr int kEnrolViews = 3;  // views merged into one signature

std::array<QPointF, 4> toQuad(const vi::Quad& q) {
    return {QPointF(q[0].x, q[0].y), QPointF(q[1].x, q[1].y), QPointF(q[2].x, q[2].y), QPointF(q[3].x, q[3].y)};
}
vi::Quad fromQuad(const std::array<QPointF, 4>& q) {
    vi::Quad out;
    for (int i = 0; i < 4; ++i) out[i] = cv::Point2f(float(q[i].x()), float(q[i].y()));
    return out;
}
cv::Scalar bgr(QColor c) { return cv::Scalar(c.blue(), c.green(), c.red()); }
// Adds `t` (its seat decided) to the tally: per seat, or unknown (and lighter than its deck).
void addToTally(BackTally& tally, TallyCard t) {
    if (t.side >= static_cast<int>(tally.perSide.size())) t.side = -1;
    if (t.side >= 0) {
        ++tally.perSide[std::size_t(t.side)];
    } else {
        ++tally.unknown;
        if (t.lighter) ++tally.lighter;
    }
    tally.cards.push_back(t);
}
}  // namespace

bool TallyCard::contains(QPointF p) const { return vi::quadContains(fromQuad(quad), cv::Point2f(float(p.x()), float(p.y()))); }

QPointF TallyCard::centre() const {
    return (quad[0] + quad[1] + quad[2] + quad[3]) / 4.0;
}

void drawOutline(cv::Mat& frame, const std::array<QPointF, 4>& quad, QColor colour, const QString& label, int thickness) {
    std::vector<cv::Point> pts;
    for (const auto& p : quad) pts.emplace_back(int(std::lround(p.x())), int(std::lround(p.y())));
    cv::polylines(frame, std::vector<std::vector<cv::Point>>{pts}, true, cv::Scalar(0, 0, 0), thickness + 2, cv::LINE_AA);
    cv::polylines(frame, std::vector<std::vector<cv::Point>>{pts}, true, bgr(colour), thickness, cv::LINE_AA);
    if (label.isEmpty()) return;
    drawTag(frame, (quad[0] + quad[1] + quad[2] + quad[3]) / 4.0, colour, label);
}

void drawTag(cv::Mat& frame, QPointF c, QColor colour, const QString& label) {
    const std::string text = label.toStdString();
    int base = 0;
    const cv::Size ts = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, 0.5, 1, &base);
    const cv::Point org(int(c.x()) - ts.width / 2, int(c.y()) + ts.height / 2);
    cv::rectangle(frame, org + cv::Point(-3, base), org + cv::Point(ts.width + 3, -ts.height - 3), bgr(colour), cv::FILLED);
    cv::putText(frame, text, org, cv::FONT_HERSHEY_SIMPLEX, 0.5, cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
}

struct RecognitionAnalyzer::Impl {
    // Count
    vi::BackMatcher matcher;
    std::vector<int> matcherSide;  // matcher deck index -> seat
    std::vector<SeatBack> seats;
    struct Override {
        QPointF at;
        int side;
    };
    std::vector<Override> overrides;
    // Deal: the counter follows the frames since it was made; a new one is made after a reset, when
    // the mode comes back to Deal (the view may have changed meanwhile) or the frame size changes
    // (a new source). The cards counted (with frame numbers since the deal began) outlive it.
    std::unique_ptr<vi::StreamCounter> stream;
    cv::Size streamSize;
    int streamFrameBase = 0;  // frames fed to earlier counters of this deal
    std::vector<vi::CountedCard> dealt;
    std::map<int, int> dealtOverrides;  // card number -> seat

    void clearDeal() {
        stream.reset();
        streamFrameBase = 0;
        dealt.clear();
        dealtOverrides.clear();
    }
    // A counted card on the screen: its outline and the seat whose deck its back matched.
    TallyCard tallyCard(const vi::CountedCard& c) const {
        TallyCard t;
        t.quad = toQuad(c.quad);
        t.confidence = c.confidence;
        t.lighter = c.lighterThanDeck;
        if (c.deck >= 0 && c.deck < static_cast<int>(matcherSide.size()))
            t.side = matcherSide[c.deck];
        return t;
    }
    // The seat's overlay colour; magenta for an unknown card.
    QColor colourOf(int side) const {
        if (side < 0) return QColor("#ff00ff");
        return seats[std::size_t(side)].colour.isValid() ? seats[std::size_t(side)].colour
                                                         : QColor("#90a4ae");
    }
    // Enrol
    vi::BackMatcher enrolled;
    std::vector<vi::BackSignature> views;
    // the last views collected, as one signature
    vi::BackSignature mergedViews() const {
        vi::BackSignature merged;
        for (const auto& v : views) merged.merge(v);
        return merged;
    }
    // Lake
    std::unique_ptr<vi::Detector> detector;
    QString detectorError;
    // Count: face-up cards in view (the lake's piles) are told from backs by reading faces live at
    // the working size, in frames where some card is given to no deck (loaded on first use;
    // without its models every card-like thing is counted, as before)
    std::unique_ptr<vi::Detector> faceReader;
    bool faceReaderTried = false;
    vi::Detector* faces() {
        if (!faceReaderTried) {
            faceReaderTried = true;
            try {
                faceReader = std::make_unique<vi::Detector>(vi::DetectorOptions::readOnce());
            } catch (const std::exception&) {
                faceReader.reset();
            }
        }
        return faceReader.get();
    }
};

RecognitionAnalyzer::RecognitionAnalyzer() : impl_(std::make_unique<Impl>()) {
    qRegisterMetaType<nertz::gui::BackTally>();
    qRegisterMetaType<nertz::gui::EnrolReading>();
    qRegisterMetaType<nertz::gui::LakeReading>();
}

RecognitionAnalyzer::~RecognitionAnalyzer() = default;

void RecognitionAnalyzer::setMode(Mode mode) {
    // back to dealing after a pause: the view may have changed, so the next frame is a new rest
    // (done on the worker thread, which holds the counter)
    if (mode_.exchange(mode) != Mode::Deal && mode == Mode::Deal) restartStream_ = true;
}

QStringList RecognitionAnalyzer::setSeats(const std::vector<SeatBack>& seats) {
    QStringList problems;
    vi::BackMatcher m;
    std::vector<int> sides;
    for (int i = 0; i < static_cast<int>(seats.size()); ++i) {
        if (seats[i].signature.empty()) continue;
        try {
            m.add(seats[i].name.toStdString() + "#" + std::to_string(i), vi::BackSignature::fromBytes(seats[i].signature));
            sides.push_back(i);
        } catch (const std::exception& e) {
            problems << QString("%1: the deck's back signature cannot be used (%2); enrol it again").arg(seats[i].name, e.what());
        }
    }
    std::lock_guard lock(mutex_);
    // the same seats again (a refresh): a person's reassignments stay
    bool same = seats.size() == impl_->seats.size();
    for (std::size_t i = 0; same && i < seats.size(); ++i)
        same = seats[i].name == impl_->seats[i].name && seats[i].signature == impl_->seats[i].signature;
    impl_->matcher = std::move(m);
    impl_->matcherSide = std::move(sides);
    impl_->seats = seats;
    if (!same) {
        impl_->overrides.clear();
        impl_->clearDeal();  // the decks changed: the deal so far was attributed against the old
                             // ones
    }
    return problems;
}

void RecognitionAnalyzer::setEnrolled(const std::vector<EnrolledBack>& decks) {
    vi::BackMatcher m;
    for (const auto& d : decks) {
        if (d.signature.empty()) continue;
        try {
            m.add(d.name.toStdString(), vi::BackSignature::fromBytes(d.signature));
        } catch (const std::exception&) {
            // an unreadable or repeated signature: nothing to compare with
        }
    }
    std::lock_guard lock(mutex_);
    impl_->enrolled = std::move(m);
}

void RecognitionAnalyzer::reassign(QPointF framePoint, int side) {
    std::lock_guard lock(mutex_);
    auto& o = impl_->overrides;
    // one choice per place: a new choice near an old one replaces it
    o.erase(std::remove_if(o.begin(), o.end(), [&](const Impl::Override& x) {
                return std::hypot(x.at.x() - framePoint.x(), x.at.y() - framePoint.y()) < 12;
            }),
            o.end());
    if (side >= 0) o.push_back({framePoint, side});
}

void RecognitionAnalyzer::clearReassignments() {
    std::lock_guard lock(mutex_);
    impl_->overrides.clear();
}

void RecognitionAnalyzer::reassignDealt(int number, int side) {
    std::lock_guard lock(mutex_);
    if (side >= 0)
        impl_->dealtOverrides[number] = side;
    else
        impl_->dealtOverrides.erase(number);
}

void RecognitionAnalyzer::resetDeal() {
    std::lock_guard lock(mutex_);
    impl_->clearDeal();
}

void RecognitionAnalyzer::resetEnrolment() {
    std::lock_guard lock(mutex_);
    impl_->views.clear();
}

QVariant RecognitionAnalyzer::takeResult() {
    std::lock_guard lock(mutex_);
    QVariant out = std::move(result_);
    result_ = QVariant();
    return out;
}

QString RecognitionAnalyzer::analyze(cv::Mat& frame) {
    ++frames_;
    switch (mode_.load()) {
        case Mode::Count: return count(frame);
        case Mode::Deal:
            return deal(frame);
        case Mode::Enrol: return enrol(frame);
        case Mode::Lake: return lake(frame);
        case Mode::Off: break;
    }
    return {};
}

QString RecognitionAnalyzer::count(cv::Mat& frame) {
    QElapsedTimer timer;
    timer.start();
    std::lock_guard lock(mutex_);
    BackTally tally;
    tally.frameSize = QSize(frame.cols, frame.rows);
    tally.perSide.assign(impl_->seats.size(), 0);
    std::vector<vi::CountedCard> found;
    std::vector<vi::Quad> leftOut;  // face-up cards in view, not counted
    std::vector<vi::Quad> noDeck;   // strips of rows that are no cards of this table, not counted
    float explained = 1.f;
    if (!impl_->matcher.decks().empty()) {
        vi::DeckCount c = vi::countBacks(frame, impl_->matcher, {}, impl_->faces());
        tally.narrowStrips = c.narrowUnknown();
        found = std::move(c.cards);
        leftOut = std::move(c.faceUp);
        noDeck = std::move(c.rowsLeftOut);
        explained = c.explained;
    } else {
        auto backs = vi::findBackCards(frame, {}, &explained);
        if (vi::Detector* reader = backs.empty() ? nullptr : impl_->faces())
            leftOut = vi::leaveOutFaceUp(backs, reader->detect(frame));
        for (const auto& b : backs) {
            vi::CountedCard cc;
            cc.quad = b.quad;
            found.push_back(cc);
        }
    }
    for (const auto& c : found) {
        TallyCard t = impl_->tallyCard(c);
        for (const auto& o : impl_->overrides)
            if (t.contains(o.at)) {
                t.side = o.side;
                t.reassigned = true;
            }
        addToTally(tally, t);
    }
    const int thick = std::max(3, frame.cols / 200);
    // face-up cards left out: thin and grey, under the counted cards' outlines
    tally.faceUp = static_cast<int>(leftOut.size());
    tally.rowsLeftOut = static_cast<int>(noDeck.size());
    for (const auto& q : leftOut) drawOutline(frame, toQuad(q), QColor("#9e9e9e"), QString(), 1);
    for (const auto& q : noDeck) drawOutline(frame, toQuad(q), QColor("#9e9e9e"), QString(), 1);
    for (const auto& t : tally.cards) {
        if (t.side >= 0)
            drawOutline(frame, t.quad, impl_->colourOf(t.side),
                        t.reassigned ? impl_->seats[t.side].name.left(6) + "*" : QString(), thick);
        else
            drawOutline(frame, t.quad, impl_->colourOf(-1), "?", thick + 1);
    }
    tally.doubtful = explained < vi::kFewExplained;
    tally.ms = timer.nsecsElapsed() / 1e6;
    result_ = QVariant::fromValue(tally);
    return QString("Back count: %1 cards (%2)%3%4%5%6")
        .arg(tally.total())
        .arg(perSeatText(tally))
        .arg((tally.faceUp ? QString(", %1 face-up left out").arg(tally.faceUp) : QString()) +
             (tally.rowsLeftOut
                  ? QString(", %1 strips of rows that are no cards left out").arg(tally.rowsLeftOut)
                  : QString()))
        .arg(tally.doubtful
                 ? QString(
                       "; check by eye: this does not look like a table of backs seen from above")
                 : QString())
        .arg(tally.unknown > 0 && tally.narrowStrips > 0
                 ? QString("; %1 unknown card(s) of a ribbon show too little of the back: spread "
                           "it wider (a quarter to a half of each card)")
                       .arg(tally.narrowStrips)
                 : QString())
        .arg(lighterText(tally));
}

QString RecognitionAnalyzer::lighterText(const BackTally& tally) {
    if (tally.lighter <= 0) return {};
    return QString("; %1 unknown card(s) lie far lighter than the deck they look like (a cloth or "
                   "a white object; or enrol that deck again under this light)")
        .arg(tally.lighter);
}

QString RecognitionAnalyzer::perSeatText(const BackTally& tally) const {
    QStringList parts;
    for (int i = 0; i < static_cast<int>(tally.perSide.size()); ++i)
        parts << QString("%1 %2").arg(impl_->seats[i].name).arg(tally.perSide[i]);
    if (tally.unknown) parts << QString("unknown %1").arg(tally.unknown);
    return parts.join(", ");
}

QString RecognitionAnalyzer::deal(cv::Mat& frame) {
    QElapsedTimer timer;
    timer.start();
    if (frame.empty()) return "Deal count: an empty frame, skipped";
    std::lock_guard lock(mutex_);
    auto& im = *impl_;
    if (im.stream && (restartStream_.exchange(false) ||
                      (im.stream->frames() > 0 && frame.size() != im.streamSize))) {
        // dealing again after a pause, or another source (or resolution): the count so far stays,
        // the new frames start from a new rest
        im.streamFrameBase += im.stream->frames();
        im.stream.reset();
    }
    if (!im.stream) {
        im.stream = std::make_unique<vi::StreamCounter>(im.matcher);
        im.streamSize = frame.size();
    }
    QString problem;
    try {
        for (auto c : im.stream->push(frame)) {
            c.frame += im.streamFrameBase;
            im.dealt.push_back(std::move(c));
        }
    } catch (const std::exception& e) {
        problem = QString(" (this frame could not be used: %1)").arg(e.what());
    }
    BackTally tally;
    tally.dealt = true;
    tally.passing = !im.stream->atRest();
    tally.frameSize = QSize(frame.cols, frame.rows);
    tally.perSide.assign(im.seats.size(), 0);
    const int now = im.streamFrameBase + im.stream->frames() - 1;
    const int thick = std::max(2, frame.cols / 300);
    for (int n = 0; n < static_cast<int>(im.dealt.size()); ++n) {
        const auto& c = im.dealt[std::size_t(n)];
        TallyCard t = im.tallyCard(c);
        t.frame = c.frame;
        if (const auto o = im.dealtOverrides.find(n); o != im.dealtOverrides.end()) {
            t.side = o->second;
            t.reassigned = true;
        }
        addToTally(tally, t);
        // the card just counted stays outlined where it was counted for a moment
        if (now - c.frame < 8)
            drawOutline(frame, t.quad, im.colourOf(tally.cards.back().side),
                        QString("#%1").arg(n + 1), thick);
    }
    const std::string banner = "dealt: " + std::to_string(tally.total());
    cv::putText(frame, banner, cv::Point(12, 36), cv::FONT_HERSHEY_SIMPLEX, 1.0,
                cv::Scalar(0, 0, 0), 5, cv::LINE_AA);
    cv::putText(frame, banner, cv::Point(12, 36), cv::FONT_HERSHEY_SIMPLEX, 1.0,
                cv::Scalar(255, 255, 255), 2, cv::LINE_AA);
    tally.ms = timer.nsecsElapsed() / 1e6;
    result_ = QVariant::fromValue(tally);
    return QString("Deal count: %1 cards (%2)%3%4")
        .arg(tally.total())
        .arg(perSeatText(tally), lighterText(tally), problem);
}

QString RecognitionAnalyzer::enrol(cv::Mat& frame) {
    std::lock_guard lock(mutex_);
    EnrolReading r;
    const vi::EnrolmentReading reading = vi::findEnrolmentCard(frame);
    const cv::Mat& probability = reading.cardProbability;
    const vi::BackCandidate* best = reading.card ? &*reading.card : nullptr;
    QString summary = "Enrol: hold one card back flat under the camera";
    if (best) {
        try {
            r.covered = vi::hiddenShare(probability, cv::Size(frame.cols, frame.rows), best->quad);
        } catch (const std::exception&) {
            r.covered = 0.f;  // a degenerate outline: the signature below says so
        }
    }
    if (best && r.covered >= vi::kEnrolHidden) {
        // a finger or a hand on the card: this view would teach the deck's back wrong
        r.found = true;
        r.notCollected = true;
        r.views = static_cast<int>(impl_->views.size());
        r.areaShare = vi::quadArea(best->quad) / float(frame.cols * frame.rows);
        if (!impl_->views.empty()) r.signature = impl_->mergedViews().toBytes();
        drawOutline(frame, toQuad(best->quad), QColor("#ef6c00"), "covered", 3);
        summary = QString("Enrol: something lies on the card (%1%): take it off").arg(int(std::lround(r.covered * 100)));
    } else if (best) {
        try {
            vi::BackSignature sig = vi::makeBackSignature(frame, best->quad);
            impl_->views.push_back(sig);
            while (static_cast<int>(impl_->views.size()) > kEnrolViews) impl_->views.erase(impl_->views.begin());
            const vi::BackSignature merged = impl_->mergedViews();
            r.found = true;
            r.signature = merged.toBytes();
            r.views = static_cast<int>(impl_->views.size());
            r.areaShare = vi::quadArea(best->quad) / float(frame.cols * frame.rows);
            if (!impl_->enrolled.decks().empty()) {
                float bestD = 1e9f;
                for (int d = 0; d < static_cast<int>(impl_->enrolled.decks().size()); ++d) {
                    const float dist = impl_->enrolled.distanceTo(sig.descriptors.front(), d);
                    if (dist < bestD) {
                        bestD = dist;
                        r.nearest = QString::fromStdString(impl_->enrolled.decks()[d].name);
                    }
                }
                r.nearestDistance = bestD;
                for (const auto& w : impl_->enrolled.closeTo(merged)) r.warnings << QString::fromStdString(w.message);
            }
            drawOutline(frame, toQuad(best->quad), r.warnings.isEmpty() ? QColor("#2e7d32") : QColor("#ef6c00"), "back", 3);
            summary = QString("Enrol: back found (%1 view%2)").arg(r.views).arg(r.views == 1 ? "" : "s");
        } catch (const std::exception& e) {
            summary = QString("Enrol: %1").arg(e.what());
        }
    }
    result_ = QVariant::fromValue(r);
    return summary;
}

QString RecognitionAnalyzer::lake(cv::Mat& frame) {
    // The face reader's models load here, on the worker thread, the first time they are needed.
    if (detectorState_ == 0) {
        try {
            // the lake's tops and a fanned pile are read from a still table, not followed live
            impl_->detector = std::make_unique<vi::Detector>(vi::DetectorOptions::stillPicture());
            detectorState_ = 2;
        } catch (const std::exception& e) {
            impl_->detectorError = e.what();
            detectorState_ = 1;
        }
    }
    LakeReading r;
    QString summary;
    if (detectorState_ != 2) {
        r.problem = "The face reader could not load its models (" + impl_->detectorError + "): type the tops by hand.";
        summary = "Lake: face reader not available";
    } else {
        try {
            const vi::Detection det = impl_->detector->detect(frame);
            // the frame read as one fanned pile, ordered from the end its ace lies at
            // (the picture too when a pile is checked: is there card under the first card read?)
            const bool pileCheck = pileCheck_;
            const vi::FannedPile fan = vi::readFannedPile(det, pileCheck ? frame : cv::Mat(),
                                                          pileCheck ? impl_->detector.get() : nullptr);
            for (const auto& c : fan.bottomToTop) r.pile << QString::fromStdString(c.name());
            const vi::FannedPileCheck fanned = vi::checkFannedPile(fan);
            r.pileCheck = fanned.check;
            if (fanned.unreadAt) r.pileUnread = QString::fromStdString(fanned.message(fan));
            // one top a pile (a card peeking out under it left out), the piles not read, and what
            // no card found explains (read on the frame before anything is drawn on it)
            vi::LakeTops lake = vi::readLakeTops(det, frame);
            // each seat plays a deck of its own, one of each face in the lake (0 seats: not known)
            int decks = 0;
            {
                std::lock_guard lock(mutex_);
                decks = static_cast<int>(impl_->seats.size());
            }
            vi::checkAgainstDecks(lake, decks);
            for (const auto& c : lake.beyondDecks) r.beyondDecks << QString::fromStdString(c.name());
            for (const auto s : lake.suitsBeyondDecks) r.suitsBeyondDecks << QString::fromUtf8(scoring::suitName(s).data());
            for (const auto& c : det.cards) {
                if (!c.face) continue;
                r.faces << QString::fromStdString(c.face->name());
                if (pileCheck) continue;  // the pile's cards are marked below, by their order
                if (c.quad) drawOutline(frame, toQuad(*c.quad), QColor("#00838f"), r.faces.back(), 2);
                else if (!c.indices.empty()) {
                    const auto& b = c.indices.front().box;
                    drawOutline(frame, {QPointF(b.x, b.y), QPointF(b.x + b.width, b.y), QPointF(b.x + b.width, b.y + b.height),
                                        QPointF(b.x, b.y + b.height)},
                                QColor("#00838f"), r.faces.back(), 2);
                }
            }
            for (const auto& t : lake.tops) r.tops << QString::fromStdString(t.card.name());
            r.unread = static_cast<int>(lake.unread.size());
            r.unexplained = static_cast<int>(lake.unexplained.size());
            r.backs = static_cast<int>(lake.backs.size());
            if (pileCheck) {
                // each card's number from the bottom at its index; from the first wrong card on, red;
                // a card the fan's spacing says lies unread, "?" where it lies, and no verdict past it
                const auto& check = fanned.check;
                const std::size_t stop = fanned.unreadAt ? *fanned.unreadAt : fan.bottomToTop.size();
                const std::size_t firstWrong = !fanned.unreadAt && check.firstWrong ? *check.firstWrong : stop;
                const std::size_t n = fan.bottomToTop.size();
                for (std::size_t i = 0, shown = 0; i <= n; ++i) {
                    const auto gap = std::count(fan.unreadBefore.begin(), fan.unreadBefore.end(), i);
                    for (long g = 1; g <= gap; ++g) {
                        // evenly between the two cards read around it; under the first, a step below
                        // it; over the last, a step above it
                        const cv::Point2f p = i > 0 && i < n ? fan.at[i - 1] + (fan.at[i] - fan.at[i - 1]) * (float(g) / float(gap + 1))
                                              : n < 2        ? fan.at[i > 0 ? n - 1 : 0]
                                              : i == 0       ? 2.f * fan.at[0] - fan.at[1]
                                                             : 2.f * fan.at[n - 1] - fan.at[n - 2];
                        drawTag(frame, QPointF(p.x, p.y), QColor("#ef6c00"), QString("%1 ?").arg(++shown));
                    }
                    if (i == n) break;
                    // past a card unread: not checked (grey)
                    const char* colour = i >= stop ? "#757575" : i >= firstWrong ? "#c62828" : "#00838f";
                    drawTag(frame, QPointF(fan.at[i].x, fan.at[i].y), QColor(colour),
                            QString("%1 %2").arg(++shown).arg(r.pile[int(i)]));
                }
            } else {
                for (const auto& q : lake.unread) drawOutline(frame, toQuad(q), QColor("#ef6c00"), "?", 2);
                for (const auto& q : lake.unexplained) drawOutline(frame, toQuad(q), QColor("#ef6c00"), "?", 2);
                for (const auto& q : lake.backs) drawOutline(frame, toQuad(q), QColor("#ef6c00"), "?", 2);
            }
            if (r.faces.isEmpty()) r.problem = "No top card could be read in this frame: type the tops by hand, or skip the checksum.";
            else if (r.unread > 0)
                r.problem = QString("%1 face-up card%2 outlined but not read (marked ?): type %3 pile top%2 too")
                                .arg(r.unread)
                                .arg(r.unread == 1 ? "" : "s")
                                .arg(r.unread == 1 ? "its" : "their");
            else if (r.unexplained > 0)
                r.problem = QString("%1 card-like thing%2 where no card was found (marked ?): if %3 a pile, type %4 top too")
                                .arg(r.unexplained)
                                .arg(r.unexplained == 1 ? "" : "s")
                                .arg(r.unexplained == 1 ? "it is" : "they are")
                                .arg(r.unexplained == 1 ? "its" : "their");
            else if (r.backs > 0)
                r.problem = QString("%1 card%2 seen face down (marked ?): a closed king pile goes in \"Closed king piles\"; "
                                    "any other is a pile whose top was not read: type %3 top too")
                                .arg(r.backs)
                                .arg(r.backs == 1 ? "" : "s")
                                .arg(r.backs == 1 ? "its" : "their");
            else if (!lake.clashes.empty())
                r.problem = QString("%1 and %2 were read on one another, but a pile holds one suit: check that pile's top")
                                .arg(QString::fromStdString(lake.tops[lake.clashes.front().first].card.name()),
                                     QString::fromStdString(lake.tops[lake.clashes.front().second].card.name()));
            else if (!r.beyondDecks.isEmpty())
                r.problem = QString("%1 read on more piles than this game's %2 deck%3 hold%4: one of them is misread; check those tops")
                                .arg(r.beyondDecks.join(", "))
                                .arg(decks)
                                .arg(decks == 1 ? "" : "s")
                                .arg(decks == 1 ? "s" : "");
            else if (!r.suitsBeyondDecks.isEmpty())
                r.problem = QString("More %1 piles read than this game's %2 deck%3 ha%4 aces of: a top's suit is misread, or one pile "
                                    "was read twice; check those tops")
                                .arg(r.suitsBeyondDecks.join(" or "))
                                .arg(decks)
                                .arg(decks == 1 ? "" : "s")
                                .arg(decks == 1 ? "s" : "ve");
            summary = pileCheck ? QString("Pile check: %1 cards read").arg(r.pile.size())
                                : QString("Lake: %1 top cards read").arg(r.tops.size());
        } catch (const std::exception& e) {
            r.problem = QString("The face reader failed on this frame (%1).").arg(e.what());
            summary = "Lake: nothing read";
        }
    }
    std::lock_guard lock(mutex_);
    result_ = QVariant::fromValue(r);
    return summary;
}

}  // namespace nertz::gui

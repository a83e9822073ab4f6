// RecognitionAnalyzer: the FrameAnalyzer that runs nertz::vision for the app, on the worker thread.
// One mode at a time: Enrol (the largest card back in view -> a back signature, compared with the
// league's enrolled decks), Count (every face-down card attributed to a seat by its deck's back,
// outlined in the seat's colour; a person's reassignments stick to the card's place), Deal (cards
// dealt one at a time onto a spot or through the view, each counted once by
// nertz::vision::StreamCounter and attributed by its back; the count runs over the frames until
// resetDeal(), a person's reassignments stick to the card's number), Lake (the
// face reader reads the face-up top cards; its models load lazily on the worker thread on first
// use). Off: frames are only shown. Results travel in FrameReport::result.
#pragma once
#include <QColor>
#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "nertz/scoring/referee.hpp"
#include "vision_worker.hpp"

namespace nertz::vision {
class Detector;
}

namespace nertz::gui {

// One card counted on a frame (corners in frame pixels).
struct TallyCard {
    std::array<QPointF, 4> quad;
    int side = -1;             // seat index; -1: unknown
    bool reassigned = false;   // a person chose the seat
    float confidence = 0.f;
    int frame = -1;  // Deal: the frame it was counted in (frames since the deal count began)
    // unknown because it lies far lighter than the deck it looks like (BackTally::lighter)
    bool lighter = false;
    bool contains(QPointF p) const;
    QPointF centre() const;
};

// The back count of one frame (Count: the cards on it, per seat, and the unknown ones), or of the
// deal so far (Deal: every card counted since the deal count began, in order).
struct BackTally {
    quint64 seq = 0;
    bool dealt = false;  // a deal count
    // Deal: something still moves, or a card is still passing through the view
    bool passing = false;
    QSize frameSize;
    std::vector<TallyCard> cards;
    std::vector<int> perSide;  // one per seat
    int unknown = 0;
    int faceUp = 0;  // card-like things left out because they are face-up cards (Count)
    int rowsLeftOut = 0;  // strips of rows left out as no cards (like no deck, or too small; Count)
    // Count: the back finder explains little of what it took for cards (vision::kFewExplained): the
    // picture is unlike a table of backs seen from above, and the count is to be checked by eye
    bool doubtful = false;
    // Count: unknown cards read from ribbon strips too narrow to tell (vision::kNarrowStrip), before
    // a person gave any an owner: the ribbon is to be spread wider
    int narrowStrips = 0;
    // Count and Deal: unknown cards that look like a deck but lie far lighter against the picture
    // (the frame they were counted from) than its back did when enrolled
    // (vision::CountedCard::lighterThanDeck: a cloth, a white object), before a person gave any an
    // owner
    int lighter = 0;
    double ms = 0;
    int total() const { return static_cast<int>(cards.size()); }
};

// What Enrol mode sees on one frame.
struct EnrolReading {
    quint64 seq = 0;
    bool found = false;
    std::vector<std::uint8_t> signature;  // the merged signature of the last views (bytes)
    int views = 0;
    QString nearest;        // nearest enrolled deck, empty when none is enrolled
    float nearestDistance = 0;
    QStringList warnings;   // "too close" warnings against enrolled decks
    float areaShare = 0;    // the card's share of the frame
    // The share of the card something that is no card back lies on (a finger, a hand); at
    // vision::kEnrolHidden or more the view is not collected (notCollected).
    float covered = 0;
    bool notCollected = false;
};

// What Lake mode read on one frame.
struct LakeReading {
    quint64 seq = 0;
    QStringList tops;   // the lake's pile tops ("7H"): one per pile (vision::readLakeTops)
    QStringList faces;  // every face read (a fanned Nertz pile's cards), peeking ones too
    int unread = 0;     // face-up outlines no reading explains: piles whose top is not known
    int unexplained = 0;  // card-like things where no card was found (vision::LakeTops::unexplained)
    int backs = 0;        // cards seen face down that no top explains: closed king piles, or tops not read
    QStringList beyondDecks;  // faces read on more tops than the seats' decks (vision::checkAgainstDecks)
    QStringList suitsBeyondDecks;  // suits ("diamonds") read on more tops than the seats' decks have aces of
    QString problem;    // models missing, nothing read, ...
    // SPEC "Pile check": the frame read as one fanned lake pile (vision::readFannedPile), its cards
    // from the bottom up (empty where no card was read). Read on every Lake frame; it means
    // something only when one pile is fanned out in view (RecognitionAnalyzer::setPileCheck).
    QStringList pile;
    scoring::PileCheck pileCheck;  // on `pile` (scoring::checkLakePile): stands when pileUnread is empty
    // where the fan shows a card unread below the first wrong card read, what to do about it
    // (vision::FannedPileCheck::message); empty when the check on `pile` stands
    QString pileUnread;
};

// A seat's back to count against (signature empty: its cards come out unknown).
struct SeatBack {
    QString name;
    QColor colour;
    std::vector<std::uint8_t> signature;
};

// An enrolled deck to compare a new back with.
struct EnrolledBack {
    QString name;
    std::vector<std::uint8_t> signature;
};

class RecognitionAnalyzer : public FrameAnalyzer {
public:
    enum class Mode { Off, Enrol, Count, Deal, Lake };
    RecognitionAnalyzer();
    ~RecognitionAnalyzer() override;

    QString name() const override { return "nertz::vision"; }
    QString analyze(cv::Mat& frame) override;
    QVariant takeResult() override;

    // All of these are called on the GUI thread and take effect from the next frame.
    void setMode(Mode mode);
    Mode mode() const { return mode_; }
    // The seats of the hand being counted; clears the reassignments unless the seats are the same.
    // Returns a message for each
    // signature that cannot be read (its seat's cards come out unknown).
    QStringList setSeats(const std::vector<SeatBack>& seats);
    // Decks already enrolled, for the closeness check at enrolment.
    void setEnrolled(const std::vector<EnrolledBack>& decks);
    // The card at `framePoint` (frame pixels) belongs to `side` from now on (-1 clears it).
    void reassign(QPointF framePoint, int side);
    void clearReassignments();
    // Deal mode: the card counted `number`-th (0-based) belongs to `side` from now on (-1 clears it).
    void reassignDealt(int number, int side);
    // Deal mode starts a new count from the next frame (the cards so far and their reassignments go).
    void resetDeal();
    // Enrol mode keeps the last few views; starts a new deck's collection.
    void resetEnrolment();
    // Lake mode marks the cards of a fanned pile on the frame instead of the lake's tops: each
    // card's number from the bottom at its corner index, from the first wrong card on in red.
    void setPileCheck(bool on) { pileCheck_ = on; }
    bool pileCheck() const { return pileCheck_; }
    quint64 framesAnalysed() const { return frames_; }
    bool detectorLoaded() const { return detectorState_ == 2; }

private:
    QString count(cv::Mat& frame);
    QString deal(cv::Mat& frame);
    QString perSeatText(const BackTally& tally) const;  // "Ann 3, Bo 2, unknown 1"
    // "; 2 unknown card(s) lie far lighter than the deck ..." (BackTally::lighter), or nothing
    static QString lighterText(const BackTally& tally);
    QString enrol(cv::Mat& frame);
    QString lake(cv::Mat& frame);

    mutable std::mutex mutex_;
    std::atomic<Mode> mode_{Mode::Off};
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::atomic<quint64> frames_{0};
    std::atomic<int> detectorState_{0};       // 0 not loaded, 1 failed, 2 loaded
    std::atomic<bool> restartStream_{false};  // Deal: the next frame starts from a new rest
    std::atomic<bool> pileCheck_{false};      // Lake: mark a fanned pile's cards (setPileCheck)
    QVariant result_;
};

// Draws a quad outline with a label on a BGR frame (used by the analyzer; exposed for tests).
void drawOutline(cv::Mat& bgr, const std::array<QPointF, 4>& quad, QColor colour, const QString& label, int thickness);
// Draws a label on a filled box of `colour` centred at `at` (frame pixels) on a BGR frame.
void drawTag(cv::Mat& bgr, QPointF at, QColor colour, const QString& label);

}  // namespace nertz::gui

Q_DECLARE_METATYPE(nertz::gui::BackTally)
Q_DECLARE_METATYPE(nertz::gui::EnrolReading)
Q_DECLARE_METATYPE(nertz::gui::LakeReading)

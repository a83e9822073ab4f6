// The camera half of a hand, driven through the real widgets offscreen on a real SQLite file, with
// frames of the generated demo clip (nertz::synth card art when the cache is there, else painted):
// two decks' backs enrolled from frames on the Decks screen; a game with a deck per seat; the back
// count counted from the clip through the vision worker; one card reassigned by a click on the
// video; review, confirmation and the rows in the file; then a correction and its recompute. Also:
// a clip that ends mid-count keeps the count so far, and unknown cards block the count; cards dealt
// through the view counted once each in the "Dealt one at a time" mode; a rating
// recompute on a job thread; a custom rule set file, bad and good.
#include <sqlite3.h>
#include <algorithm>
#include <array>
#include <opencv2/imgproc.hpp>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "../backs/card_quad.hpp"
#include "camera_view.hpp"
#include "nertz/vision/back_finder.hpp"
#include "nertz/vision/back_signature.hpp"
#include "decks_screen.hpp"
#include "demo_clip.hpp"
#include "frame_source.hpp"
#include "hand_flow.hpp"
#include "hand_screen.hpp"
#include "league_service.hpp"
#include "main_window.hpp"
#include "nertz/db/games.hpp"
#include "nertz/vision/back_render.hpp"
#include "new_game_screen.hpp"
#include "recognition.hpp"
#include "vision_worker.hpp"
#include "widget_driver.hpp"

using namespace nertz::gui;
using namespace nertz::guitest;

namespace {

// Writes frames [first, end) of the clip as PNGs into `dir` (a folder source).
void writeFrames(const DemoClipFrames& clip, int first, int end, int step, const QString& dir) {
    QDir().mkpath(dir);
    for (int f = first; f < end; f += step)
        cv::imwrite(QString("%1/f%2.png").arg(dir).arg(f, 4, 10, QChar('0')).toStdString(), clip.frames[f]);
}

// A lake pile fanned out from its ace, `bottomToTop`, in the clip's art (real or painted) on the
// clip's cloth colour, turned by `turn` radians, each card a quarter of its width along the one under
// it, so that every corner index shows; written as f0000.png into `dir` (a folder source).
// `blank`: the card at that place (0-based) has its corner index painted over with card paper (a
// smudge, a finger), so that it cannot be read.
void writeFannedPile(const QStringList& bottomToTop, bool realArt, double turn, const QString& dir, int blank = -1) {
    cv::Mat table(480, 640, CV_8UC3, cv::Scalar(60, 110, 40));
    const cv::Point2f along(float(std::cos(turn)), float(std::sin(turn))), down(-along.y, along.x);
    const float h = 190.f, w = h / 1.4f;
    const cv::Point2f first = cv::Point2f(320, 240) - along * (0.5f * w + 0.13f * w * float(bottomToTop.size() - 1)) - down * (0.5f * h);
    for (int k = 0; k < bottomToTop.size(); ++k) {
        const cv::Point2f tl = first + along * (float(k) * 0.26f * w);
        nertz::vision::drawCard(table, demoClipFace(bottomToTop[k], realArt), {tl, tl + along * w, tl + along * w + down * h, tl + down * h});
        if (k == blank) {
            std::vector<cv::Point> smudge;
            for (const auto& [a, b] : {std::pair{0.03f, 0.02f}, {0.25f, 0.02f}, {0.25f, 0.4f}, {0.03f, 0.4f}}) {
                const cv::Point2f p = tl + along * (a * w) + down * (b * h);
                smudge.emplace_back(cvRound(p.x), cvRound(p.y));
            }
            cv::fillConvexPoly(table, smudge, cv::Scalar(246, 250, 250));
        }
    }
    QDir().mkpath(dir);
    cv::imwrite(QString("%1/f0000.png").arg(dir).toStdString(), table);
}

}  // namespace

class VisionTest : public QObject {
    Q_OBJECT

    DemoClipFrames clip_;
    DemoClipPlan plan_ = demoClipPlan();

private slots:
    void initTestCase() {
        clip_ = renderDemoClip();
        QCOMPARE(static_cast<int>(clip_.frames.size()), plan_.frames);
        qInfo("demo clip: %s", qPrintable(clip_.note));
        QCOMPARE(plan_.count(0), 8);
        QCOMPARE(plan_.count(1), 6);
    }

    void wholeHandCountedFromTheClip() {
        QTemporaryDir dir;
        const QString file = dir.filePath("club.sqlite");
        writeFrames(clip_, plan_.enrolFirst[0], plan_.enrolEnd[0], 5, dir.filePath("blue"));
        writeFrames(clip_, plan_.enrolFirst[1], plan_.enrolEnd[1], 5, dir.filePath("red"));
        writeFrames(clip_, plan_.holdFirst, plan_.holdFirst + 3, 1, dir.filePath("sorted"));
        writeFrames(clip_, plan_.lakeFirst, plan_.lakeFirst + 2, 1, dir.filePath("lake"));

        LeagueService service(file);
        service.addLeague("Club");
        service.addPlayer("Ann");
        service.addPlayer("Bo");
        service.addDeck("Ann", "Blue", "#1565c0");
        service.addDeck("Bo", "Red", "#c62828");
        MainWindow w(service);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));

        // --- enrol both backs from frames of the clip
        w.showPage(MainWindow::Page::Decks);
        DecksScreen* decks = w.decksScreen();
        click(w, "enrolBack");  // nothing in view yet: refused, nothing stored
        QCOMPARE(sqlText(file, "SELECT COUNT(*) FROM decks WHERE back_signature IS NOT NULL"), QString("0"));
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("blue"), {}}, false));
        pick(w, "enrolDeck", "Ann: Blue");
        pick(w, "enrolColour", "teal");  // a new overlay colour with the enrolment
        QTRY_VERIFY_WITH_TIMEOUT(decks->lastReading().found && decks->lastReading().views >= 2, 15000);
        QVERIFY(find<QLabel>(w, "enrolState")->text().contains("No other deck is enrolled"));
        click(w, "enrolBack");
        QVERIFY(sqlText(file, "SELECT length(back_signature) FROM decks WHERE name = 'Blue'").toInt() > 100);
        QCOMPARE(sqlText(file, "SELECT colour FROM decks WHERE name = 'Blue'"), QString("#00838f"));

        // the red back's outline in its first enrolment frame (the largest card found there), for
        // the two frames made from it below
        const cv::Mat& redFrame = clip_.frames[std::size_t(plan_.enrolFirst[1])];
        const auto redFound = nertz::vision::findBackCards(redFrame);
        QVERIFY(!redFound.empty());
        const nertz::vision::Quad q =
            std::max_element(redFound.begin(), redFound.end(), [](const auto& a, const auto& b) {
                return nertz::vision::quadArea(a.quad) < nertz::vision::quadArea(b.quad);
            })->quad;

        // a frame of the red back with a palm on the card: the view is not collected, and the
        // screen says to take it off
        {
            cv::Mat frame = redFrame.clone();
            const cv::Point2f mid = (q[0] + q[1] + q[2] + q[3]) * 0.25f;
            const float side = float(cv::norm(q[1] - q[0]));
            const cv::Point palm(cvRound(q[2].x + (mid.x - q[2].x) * 0.45f), cvRound(q[2].y + (mid.y - q[2].y) * 0.45f));
            const cv::Point away(cvRound(2 * q[2].x - mid.x), cvRound(2 * q[2].y - mid.y));
            cv::line(frame, palm, away, cv::Scalar(120, 150, 205), int(side * 0.5f));
            cv::circle(frame, palm, int(side * 0.3f), cv::Scalar(120, 150, 205), cv::FILLED);
            QDir().mkpath(dir.filePath("covered"));
            cv::imwrite(dir.filePath("covered/f0000.png").toStdString(), frame);
        }
        pick(w, "enrolDeck", "Bo: Red");
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("covered"), {}}, false));
        QTRY_VERIFY_WITH_TIMEOUT(decks->lastReading().notCollected, 15000);
        QVERIFY(find<QLabel>(w, "enrolState")->text().contains("Something lies on the card"));

        // a frame of the red back held close to the camera (a 4:3 frame, the card 95% of its
        // height): larger than the back segmenter's tables show, it is read at smaller working
        // sizes and outlined whole (vision::findEnrolmentCard: 0.43 of the frame); the finder's
        // reading at the working size and at half of it, which the Enrol step took before, has
        // half of it (0.24)
        {
            const cv::Mat& frame = redFrame;
            const cv::Rect card = cv::boundingRect(std::vector<cv::Point2f>(q.begin(), q.end()));
            const int h = int(card.height / 0.95), wd = h * 4 / 3;
            cv::Rect win(card.x + card.width / 2 - wd / 2, card.y + card.height / 2 - h / 2, wd, h);
            cv::Mat close(h, wd, frame.type(), cv::mean(frame(cv::Rect(0, 0, 16, 16))));
            const cv::Rect inFrame = win & cv::Rect(0, 0, frame.cols, frame.rows);
            frame(inFrame).copyTo(close(inFrame - win.tl()));
            cv::resize(close, close, {960, 720}, 0, 0, cv::INTER_CUBIC);
            nertz::vision::BackFinderOptions once;  // the finder's reading before: at half size once
            once.minWorkLongSide = 240;
            once.loneCardOutline = 0.f;  // and before a card alone was read whole (2026-12-01)
            const auto before = nertz::vision::findBackCards(close, once);
            const auto* old = nertz::vision::enrolmentCard(before);
            QVERIFY(!old || nertz::vision::quadArea(old->quad) < 0.3f * 960.f * 720.f);
            QDir().mkpath(dir.filePath("close"));
            cv::imwrite(dir.filePath("close/f0000.png").toStdString(), close);
        }
        pick(w, "enrolDeck", "Bo: Red");
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("close"), {}}, false));
        QTRY_VERIFY_WITH_TIMEOUT(decks->lastReading().found && decks->lastReading().areaShare > 0.38f, 15000);

        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("red"), {}}, false));
        pick(w, "enrolDeck", "Bo: Red");
        pick(w, "enrolColour", "red");
        QTRY_VERIFY_WITH_TIMEOUT(decks->lastReading().found && decks->lastReading().views >= 2, 15000);
        // compared with the league's other deck: the blue back is the nearest and far enough
        QTRY_VERIFY_WITH_TIMEOUT(find<QLabel>(w, "enrolState")->text().contains("Nearest other back: Ann: Blue"), 5000);
        QVERIFY2(decks->lastReading().warnings.isEmpty(), qPrintable(decks->lastReading().warnings.join("; ")));
        click(w, "enrolBack");
        QVERIFY(sqlText(file, "SELECT length(back_signature) FROM decks WHERE name = 'Red'").toInt() > 100);

        // --- a game with a deck per seat
        w.showPage(MainWindow::Page::NewGame);
        pick(w, "gameLeague", "Club");
        auto* players = find<QListWidget>(w, "gamePlayers");
        for (const char* name : {"Ann", "Bo"}) players->findItems(name, Qt::MatchExactly).front()->setCheckState(Qt::Checked);
        pick(w, "seatDeck_0", "Ann: Blue");
        pick(w, "seatDeck_1", "Bo: Red");
        click(w, "startGame");
        HandFlow& flow = w.handFlow();
        QVERIFY(flow.hasGame());
        const QString game = QString::number(flow.gameId());
        QCOMPARE(sqlText(file, "SELECT group_concat(d.name, ',') FROM (SELECT * FROM game_sides WHERE game_id = " + game +
                                   " ORDER BY seat) s JOIN decks d ON d.id = s.deck_id"),
                 QString("Blue,Red"));
        QVERIFY(flow.seatDecks().at(0) && !flow.seatDecks().at(0)->backSignature.empty());

        // --- the hand: Ann calls; lake tops typed (checksum 7 + 7 = 14); the back count from the camera
        click(w, "nertzCalled");
        click(w, "caller_0");
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::Lake);
        QCOMPARE(w.recognizer().mode(), RecognitionAnalyzer::Mode::Lake);
        // the face reader (loaded now, on the worker thread) reads the lake frames of the clip, or says
        // that it read nothing; either way the step goes on
        QVERIFY(find<QProgressBar>(w, "lakeLoading")->isVisible() || w.recognizer().detectorLoaded());
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("lake"), {}}, false));
        auto* lakeRead = find<QLabel>(w, "lakeRead");
        QTRY_VERIFY_WITH_TIMEOUT(lakeRead->text().startsWith("Camera reads") || lakeRead->text().startsWith("Camera: "), 30000);
        qInfo("lake step: %s", qPrintable(lakeRead->text()));
        QVERIFY(!find<QProgressBar>(w, "lakeLoading")->isVisible());
        QCOMPARE(find<QPushButton>(w, "useLakeRead")->isEnabled(), lakeRead->text().startsWith("Camera reads"));

        // --- SPEC "Pile check": a lake pile in doubt, fanned out from its ace under the camera (the
        // 5H laid before the 4H), then typed
        writeFannedPile({"AH", "2H", "3H", "5H", "4H", "6H"}, clip_.realArt, 0.3, dir.filePath("pile"));
        QVERIFY(find<QLabel>(w, "pileRead")->text().isEmpty());
        click(w, "pileFromCamera");
        QVERIFY(w.recognizer().pileCheck());
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("pile"), {}}, false));
        auto* pileRead = find<QLabel>(w, "pileRead");
        // (a frame of the lake source may still be on its way: the fan's frames follow it)
        QTRY_COMPARE_WITH_TIMEOUT(pileRead->text(),
                                  QString("Camera reads AH 2H 3H 5H 4H 6H from the bottom up: card 4 from the bottom is 5H, expected 4H."),
                                  30000);
        qInfo("pile check from the camera: %s", qPrintable(pileRead->text()));
        // the 3H's index smudged: the fan's spacing shows a card unread there, and no verdict is
        // given from it on (a right pile would read as one that jumps from 2H to 4H)
        writeFannedPile({"AH", "2H", "3H", "4H", "5H"}, clip_.realArt, 0.3, dir.filePath("pile-smudged"), 2);
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("pile-smudged"), {}}, false));
        QTRY_COMPARE_WITH_TIMEOUT(pileRead->text(),
                                  QString("Camera reads AH 2H 4H 5H from the bottom up: card 3 from the bottom (between 2H and 4H) "
                                          "could not be read: check the pile by eye from there, or fan it wider."),
                                  30000);
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("pile"), {}}, false));
        QTRY_VERIFY_WITH_TIMEOUT(pileRead->text().startsWith("Camera reads AH 2H 3H 5H 4H 6H"), 30000);
        click(w, "usePileRead");  // the camera's reading into the field, to be put right by hand
        auto* pileCards = find<QLineEdit>(w, "pileCards");
        auto* pileVerdict = find<QLabel>(w, "pileVerdict");
        QCOMPARE(pileCards->text(), QString("AH 2H 3H 5H 4H 6H"));
        QCOMPARE(pileVerdict->text(), QString("Card 4 from the bottom is 5H, expected 4H."));
        pileCards->setText("AH 2H 3H 4H 5H 6H");
        QCOMPARE(pileVerdict->text(), QString("In order, A up to its top in one suit."));
        pileCards->setText("AH 2S");
        QCOMPARE(pileVerdict->text(), QString("Card 2 from the bottom is 2S, expected 2H."));
        pileCards->setText("AH 2X");
        QVERIFY2(pileVerdict->text().startsWith("\"2X\" is not a card name"), qPrintable(pileVerdict->text()));
        QCOMPARE(flow.lakeTopsText(), QString());  // the pile check leaves the lake's tops alone
        click(w, "pileFromCamera");  // off: the lake's tops marked again
        QVERIFY(!w.recognizer().pileCheck());
        QVERIFY(pileRead->text().isEmpty());

        find<QLineEdit>(w, "lakeTops")->setText("7H 7S");
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("sorted"), {}}, false));
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::Backs);
        QCOMPARE(w.recognizer().mode(), RecognitionAnalyzer::Mode::Count);
        QVERIFY(flow.cameraCounting());  // every seat's back is enrolled: the camera count starts by itself
        QVERIFY(find<QPushButton>(w, "cameraCount")->isChecked());
        QTRY_VERIFY_WITH_TIMEOUT(flow.lakeTotal() == 14, 20000);
        QCOMPARE(flow.unknownCards(), 0);
        QCOMPARE(flow.lake(0), 8);  // blue cards: Ann's
        QCOMPARE(flow.lake(1), 6);  // red cards: Bo's
        QCOMPARE(find<QLabel>(w, "backsTotal")->text(), QString("Counted 14 of 14 lake cards"));

        // --- a click on one of Ann's cards on the video, then "it is Bo's"
        HandScreen* hand = w.handScreen();
        std::optional<TallyCard> annCard;
        for (const auto& c : hand->lastTally().cards)
            if (c.side == 0) annCard = c;
        QVERIFY(annCard);
        CameraView* view = hand->cameraView();
        QTest::mouseClick(view, Qt::LeftButton, {}, view->widgetPoint(annCard->centre()));
        QVERIFY(find<QLabel>(w, "selectedCard")->text().contains("now: Ann"));
        click(w, "assign_1");
        QTRY_VERIFY_WITH_TIMEOUT(flow.lake(0) == 7 && flow.lake(1) == 7, 10000);
        QCOMPARE(flow.lakeTotal(), 14);

        // --- Nertz left, review, confirmation
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::NertzLeft);
        QVERIFY(!flow.cameraCounting());  // the count was taken when leaving the step
        // A fanned pile under the camera (the clip's face-up cards stand in for Bo's fan): the face
        // reader runs again and its count of different cards goes to the chosen player on F.
        QCOMPARE(w.recognizer().mode(), RecognitionAnalyzer::Mode::Lake);
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("lake"), {}}, false));
        auto* fanRead = find<QLabel>(w, "fanRead");
        QTRY_VERIFY_WITH_TIMEOUT(fanRead->text().startsWith("Camera reads a fan") ||
                                     (fanRead->text().startsWith("Camera: ") && !fanRead->text().contains("waiting")),
                                 30000);
        qInfo("nertz-left step: %s", qPrintable(fanRead->text()));
        auto* useFan = find<QPushButton>(w, "useFanRead");
        QCOMPARE(useFan->isEnabled(), fanRead->text().startsWith("Camera reads a fan"));
        if (useFan->isEnabled()) {
            const int shown = fanRead->text().section(' ', 5, 5).toInt();  // "Camera reads a fan of N cards: ..."
            QVERIFY(shown > 0 && shown <= 52);
            click(w, "nertz_1_plus");  // picks Bo (and adds one, which the camera's count replaces)
            click(w, "useFanRead");
            QCOMPARE(flow.nertzLeft(1), shown);
            QCOMPARE(flow.nertzLeft(0), 0);
            flow.setNertzLeft(1, 0);
        }
        for (int i = 0; i < 3; ++i) click(w, "nertz_1_plus");
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::Review);
        auto* table = find<QTableWidget>(w, "breakdown");
        QCOMPARE(table->item(0, 5)->text(), QString("17"));  // Ann: 7 + 10 bonus (nna)
        QCOMPARE(table->item(1, 5)->text(), QString("1"));   // Bo: 7 - 6
        QVERIFY(find<QLabel>(w, "checksumState")->text().contains("ok"));
        click(w, "stepNext");
        pick(w, "enteredBy", "Ann");
        pick(w, "confirmedBy", "Bo");
        click(w, "saveHand");
        QCOMPARE(flow.step(), HandFlow::Step::Playing);
        QCOMPARE(sqlText(file, "SELECT group_concat(lake || ':' || nertz_left || ':' || score, ' ') FROM "
                               "(SELECT * FROM hand_results ORDER BY seat)"),
                 QString("7:0:17 7:3:1"));
        QCOMPARE(sqlText(file, "SELECT lake_checksum || '|' || entered_by || '|' || confirmed_by FROM hands"), QString("14|Ann|Bo"));

        // --- a correction of that hand: Bo had 1 card left; the totals recompute
        w.showPage(MainWindow::Page::Game);
        find<QSpinBox>(w, "editNumber")->setValue(1);
        find<QSpinBox>(w, "editNertz_1")->setValue(1);
        find<QLineEdit>(w, "editReason")->setText("Bo's pile recounted");
        click(w, "saveEdit");
        QCOMPARE(sqlText(file, "SELECT score FROM hand_results WHERE seat = 1"), QString("5"));  // 7 - 2
        QCOMPARE(sqlText(file, "SELECT group_concat(total, ',') FROM (SELECT total FROM game_sides WHERE game_id = " + game +
                                   " ORDER BY seat)"),
                 QString("17,5"));
        QCOMPARE(flow.game().game.totals(), (std::vector<int>{17, 5}));

        // --- undo asks first, and can be restored
        click(w, "reviewUndo");
        QCOMPARE(sqlText(file, "SELECT COUNT(*) FROM hands"), QString("1"));  // only armed
        click(w, "reviewUndo");
        QCOMPARE(sqlText(file, "SELECT COUNT(*) FROM hands"), QString("0"));
        click(w, "reviewRestore");
        QCOMPARE(sqlText(file, "SELECT group_concat(lake || ':' || nertz_left || ':' || score, ' ') FROM "
                               "(SELECT * FROM hand_results ORDER BY seat)"),
                 QString("7:0:17 7:1:5"));
        QCOMPARE(sqlText(file, "SELECT action FROM audit_log ORDER BY id DESC"), QString("restore_hand"));
        QVERIFY(!find<QPushButton>(w, "reviewRestore")->isVisible());

        // --- the league exported and imported into a new file (through nertzref-cli, with progress)
        if (qEnvironmentVariableIsEmpty("NERTZ_CLI")) QSKIP("NERTZ_CLI not set (ctest sets it)");
        QString message;
        QVERIFY2(w.exportLeagueFile("Club", dir.filePath("club.json"), &message), qPrintable(message));
        QVERIFY(!w.exportLeagueFile("No such league", dir.filePath("x.json"), &message));
        QVERIFY2(message.contains("No such league"), qPrintable(message));
        LeagueService other(dir.filePath("copy.sqlite"));
        MainWindow w2(other);
        QVERIFY2(w2.importLeagueFile(dir.filePath("club.json"), &message), qPrintable(message));
        QCOMPARE(sqlText(dir.filePath("copy.sqlite"), "SELECT group_concat(score, ',') FROM (SELECT score FROM hand_results ORDER BY seat)"),
                 QString("17,5"));
        QVERIFY(!w2.importLeagueFile(dir.filePath("club.json"), &message));  // the league is there already: refused
        QVERIFY(!message.isEmpty());
    }

    // Face-up cards in view during the back count (the lake's piles beside the sort): the face
    // reader tells them from backs, and they are left out of the count, which says so. Without it
    // the lake frame's six face-up cards and the pips on them were ~45 unknown "backs". Since the
    // back finder reads cards larger than its segmenter knows at a smaller working size
    // (2026-11-25) it finds them as about one piece each (7, against 20 or more pieces before), all
    // left out. The segmenter fine-tuned with busy tables (2026-11-29, BACKS.md "Busy tables") takes
    // none of them for a face-down card at all: 0 cards, and the count says to check it by eye.
    // Either way no face-up card may be counted, and what is left out is said. With the real
    // gnome-anglo art (gui_vision_test_card_art) the finder reads the king of diamonds as a row of
    // five strips, and the count's face reader, reading once, missed its indices at the working
    // scale: 5 cards counted, 1 face-up left out. Where an asked card lies on a face-up card outlined
    // but not read, the faces are read again at a still picture's other scales (2026-12-01): 0
    // cards, 6 face-up left out.
    void faceUpCardsInViewAreLeftOutOfTheBackCount() {
        RecognitionAnalyzer r;
        const std::vector<SeatBack> seats{{"Ann", QColor("#1565c0"), demoBackSignature(clip_, 0)},
                                          {"Bo", QColor("#c62828"), demoBackSignature(clip_, 1)}};
        QVERIFY(!seats[0].signature.empty() && !seats[1].signature.empty());
        QVERIFY(r.setSeats(seats).isEmpty());
        r.setMode(RecognitionAnalyzer::Mode::Count);
        cv::Mat lake = clip_.frames[std::size_t(plan_.lakeFirst)].clone();
        const QString status = r.analyze(lake);
        const BackTally t = r.takeResult().value<BackTally>();
        qInfo("lake frame in the back count: %s", qPrintable(status));
        QVERIFY2(t.faceUp >= 6 || (t.faceUp == 0 && status.contains("check by eye")), qPrintable(status));
        QVERIFY2(t.total() <= 5,
                 qPrintable(status));  // 0 with painted art and with gnome-anglo
        if (t.faceUp > 0) QVERIFY2(status.contains("face-up left out"), qPrintable(status));
        // the sort itself: every card counted as before, none left out
        cv::Mat sorted = clip_.frames[std::size_t(plan_.holdFirst)].clone();
        const QString sortStatus = r.analyze(sorted);
        const BackTally s = r.takeResult().value<BackTally>();
        QCOMPARE(s.total(), 14);
        QCOMPARE(s.faceUp, 0);
        QVERIFY2(!sortStatus.contains("face-up"), qPrintable(sortStatus));
        QVERIFY2(!s.doubtful && !sortStatus.contains("check by eye"), qPrintable(sortStatus));
        // a real webcam photo of face-up cards on a wooden desk (../shared/data/real-cards): not a
        // table of backs, and the count says to check it by eye (the white table and keyboard of
        // before 2026-11-29 gives the segmenter fine-tuned on real photos no card at all)
        const QString photo = QString(NERTZ_SHARED_DIR) +
                              "/data/real-cards/webcam_table/images/WIN_20240627_11_36_36_Pro.jpg";
        if (!QFileInfo::exists(photo)) QSKIP("no real photo in ../shared/data");
        cv::Mat real = cv::imread(photo.toStdString(), cv::IMREAD_COLOR);
        QVERIFY(!real.empty());
        const QString realStatus = r.analyze(real);
        const BackTally rt = r.takeResult().value<BackTally>();
        qInfo("real face-up photo in the back count: %s", qPrintable(realStatus));
        QVERIFY(rt.doubtful);
        QVERIFY2(realStatus.contains("check by eye"), qPrintable(realStatus));
    }

    // The lake step reads one top a pile (SPEC: "a pile whose top card has rank r holds exactly r
    // cards"): a 7H peeking out under the 9H of its pile is read as a face but is no top (until
    // 2026-12-02 the app took every face read as a top: 7 cards too many), and a
    // face-up card whose face cannot be read is outlined ("?") and said so, instead of a checksum
    // that silently leaves its pile out. The fan of a Nertz pile (the same mode) still counts every
    // face read. A face read on more tops than the hand's seats have decks is said too (2026-12-03), and
    // a suit read on more tops than the seats' decks have aces of it.
    // The demo clip's lake faces (painted, or the gnome-anglo art), drawn upright on a plain cloth.
    void lakeTopsAreOneAPileAndUnreadPilesAreSaid() {
        const DemoClipArt art = demoClipArt();
        const DemoClipPlan plan = demoClipPlan();
        auto face = [&](const QString& name) { return art.faces.at(std::size_t(plan.lakeTops.indexOf(name))); };
        auto upright = [](cv::Point2f topLeft, float w) {
            const float h = w * 1.4f;
            return nertz::vision::Quad{topLeft, topLeft + cv::Point2f(w, 0), topLeft + cv::Point2f(w, h),
                                       topLeft + cv::Point2f(0, h)};
        };
        cv::Mat table(480, 640, CV_8UC3, cv::Scalar(60, 110, 40));
        // the 7H squared under the 9H but 25 px (a fifth of its width) to the left: its top-left
        // corner index shows
        nertz::vision::drawCard(table, face("7H"), upright({65, 60}, 120));
        nertz::vision::drawCard(table, face("9H"), upright({90, 60}, 120));
        nertz::vision::drawCard(table, face("KD"), upright({330, 90}, 120));
        RecognitionAnalyzer r;
        r.setMode(RecognitionAnalyzer::Mode::Lake);
        cv::Mat frame = table.clone();
        QString status = r.analyze(frame);
        LakeReading lake = r.takeResult().value<LakeReading>();
        qInfo("lake with a peeking card: %s; faces %s, tops %s, unread %d (%s)", qPrintable(status),
              qPrintable(lake.faces.join(' ')), qPrintable(lake.tops.join(' ')), lake.unread, qPrintable(lake.problem));
        QVERIFY2(lake.faces.contains("7H") && lake.faces.contains("9H") && lake.faces.contains("KD"),
                 qPrintable(lake.faces.join(' ')));
        auto sorted = [](QStringList l) {
            l.sort();
            return l;
        };
        QCOMPARE(sorted(lake.tops), QStringList({"9H", "KD"}));
        QCOMPARE(lake.unread, 0);
        QVERIFY2(lake.problem.isEmpty(), qPrintable(lake.problem));
        QCOMPARE(status, QString("Lake: 2 top cards read"));

        // a pile whose top shows no corner index (a hand over both corners): outlined, not read
        cv::Mat covered = table.clone();
        nertz::vision::drawCard(covered, face("5S"), upright({500, 90}, 110));
        cv::rectangle(covered, cv::Rect(495, 85, 40, 60), cv::Scalar(60, 110, 40), cv::FILLED);    // top-left index
        cv::rectangle(covered, cv::Rect(575, 224, 40, 60), cv::Scalar(60, 110, 40), cv::FILLED);   // bottom-right
        cv::rectangle(covered, cv::Rect(500, 90, 110, 154), cv::Scalar(235, 235, 235), cv::FILLED);  // a blank face
        r.analyze(covered);
        lake = r.takeResult().value<LakeReading>();
        qInfo("lake with a blank card: faces %s, tops %s, unread %d (%s)", qPrintable(lake.faces.join(' ')),
              qPrintable(lake.tops.join(' ')), lake.unread, qPrintable(lake.problem));
        QCOMPARE(sorted(lake.tops), QStringList({"9H", "KD"}));
        QCOMPARE(lake.unread, 1);
        QVERIFY2(lake.problem.startsWith("1 face-up card outlined but not read"), qPrintable(lake.problem));

        // a second KD: two decks' copies, or a misread. The seats say how many decks there are: with
        // one, one of the two readings is wrong and the step says so; with two, both can be right
        cv::Mat twice = table.clone();
        nertz::vision::drawCard(twice, face("KD"), upright({500, 90}, 120));
        r.setSeats({{"Ann", QColor("#1565c0"), {}}});
        cv::Mat frame1 = twice.clone();  // (the analyzer draws on the frame it reads)
        r.analyze(frame1);
        lake = r.takeResult().value<LakeReading>();
        qInfo("lake with two KD, one deck: tops %s (%s)", qPrintable(lake.tops.join(' ')), qPrintable(lake.problem));
        QCOMPARE(sorted(lake.tops), QStringList({"9H", "KD", "KD"}));
        QCOMPARE(lake.beyondDecks, QStringList({"KD"}));
        QVERIFY2(lake.problem.startsWith("KD read on more piles than this game's 1 deck holds"), qPrintable(lake.problem));
        r.setSeats({{"Ann", QColor("#1565c0"), {}}, {"Bo", QColor("#c62828"), {}}});
        cv::Mat frame2 = twice.clone();
        r.analyze(frame2);
        lake = r.takeResult().value<LakeReading>();
        QCOMPARE(sorted(lake.tops), QStringList({"9H", "KD", "KD"}));
        QVERIFY(lake.beyondDecks.isEmpty());
        QVERIFY(lake.suitsBeyondDecks.isEmpty());
        QVERIFY2(lake.problem.isEmpty(), qPrintable(lake.problem));

        // a 2D beside the KD: two diamond piles, no face twice. Every pile starts at an ace, so with
        // one deck (one ace of diamonds) one of the two tops is misread; with two decks both can be right
        cv::Mat twoSuits = table.clone();
        nertz::vision::drawCard(twoSuits, face("2D"), upright({500, 90}, 120));
        r.setSeats({{"Ann", QColor("#1565c0"), {}}});
        cv::Mat frame3 = twoSuits.clone();
        r.analyze(frame3);
        lake = r.takeResult().value<LakeReading>();
        qInfo("lake with KD and 2D, one deck: tops %s (%s)", qPrintable(lake.tops.join(' ')), qPrintable(lake.problem));
        QCOMPARE(sorted(lake.tops), QStringList({"2D", "9H", "KD"}));
        QVERIFY(lake.beyondDecks.isEmpty());
        QCOMPARE(lake.suitsBeyondDecks, QStringList({"diamonds"}));
        QVERIFY2(lake.problem.startsWith("More diamonds piles read than this game's 1 deck has aces of"), qPrintable(lake.problem));
        r.setSeats({{"Ann", QColor("#1565c0"), {}}, {"Bo", QColor("#c62828"), {}}});
        cv::Mat frame4 = twoSuits.clone();
        r.analyze(frame4);
        lake = r.takeResult().value<LakeReading>();
        QVERIFY(lake.suitsBeyondDecks.isEmpty());
        QVERIFY2(lake.problem.isEmpty(), qPrintable(lake.problem));

        // a card face down beside the piles: a closed king pile, or a top taken for a back; marked
        // and said, not silently left out of the total
        cv::Mat withBack = table.clone();
        nertz::vision::drawCard(withBack, art.backs[0], upright({500, 90}, 120));
        r.analyze(withBack);
        lake = r.takeResult().value<LakeReading>();
        qInfo("lake with a back: tops %s, backs %d (%s)", qPrintable(lake.tops.join(' ')), lake.backs, qPrintable(lake.problem));
        QCOMPARE(sorted(lake.tops), QStringList({"9H", "KD"}));
        QCOMPARE(lake.backs, 1);
        QVERIFY2(lake.problem.startsWith("1 card seen face down (marked ?)"), qPrintable(lake.problem));
    }

    // A real phone photo (../shared/data/real-cards/phone/IMG_7824) of two cards of the set's black
    // deck beside face-up cards and a white mouse, counted with that deck enrolled from another of its
    // photos (IMG_7736) as one seat's: the mouse's pieces look like the black back but lie far
    // lighter against the picture; they are unknown ("?"), and the status line says how many and why.
    void cardsFarLighterThanTheirDeckAreUnknownAndSaidSo() {
        const QString dir = QString(NERTZ_SHARED_DIR) + "/data/real-cards/phone/images/";
        if (!QFileInfo::exists(dir + "IMG_7824.jpg")) QSKIP("no real photos in ../shared/data");
        const cv::Mat flat = cv::imread((dir + "IMG_7736.jpg").toStdString(), cv::IMREAD_COLOR);
        cv::Mat photo = cv::imread((dir + "IMG_7824.jpg").toStdString(), cv::IMREAD_COLOR);
        QVERIFY(!flat.empty() && !photo.empty());
        const nertz::vision::EnrolmentReading enrolled = nertz::vision::findEnrolmentCard(flat);
        QVERIFY(enrolled.card.has_value());
        RecognitionAnalyzer r;
        const std::vector<SeatBack> seats{
            {"Cy", QColor("#2e7d32"), nertz::vision::makeBackSignature(flat, enrolled.card->quad).toBytes()}};
        QVERIFY(r.setSeats(seats).isEmpty());
        r.setMode(RecognitionAnalyzer::Mode::Count);
        const QString status = r.analyze(photo);
        const BackTally t = r.takeResult().value<BackTally>();
        qInfo("two black backs beside a white mouse: %s", qPrintable(status));
        QVERIFY2(t.lighter >= 2, qPrintable(status));
        QVERIFY(t.unknown >= t.lighter);
        QVERIFY2(t.perSide[0] >= 1, qPrintable(status));  // the real backs stay Cy's
        QVERIFY2(status.contains(QString("%1 unknown card(s) lie far lighter").arg(t.lighter)), qPrintable(status));
        // The same in the "Dealt one at a time" mode: a back and the mouse cut out of the photo as
        // cards (from the count's own outlines) and dealt through the view, 12 of them: each pass of
        // the mouse is one unknown card, said so; each back is Cy's.
        const cv::Mat clean = cv::imread((dir + "IMG_7824.jpg").toStdString(), cv::IMREAD_COLOR);
        auto cutOut = [&](const std::array<QPointF, 4>& q) {
            nertz::vision::Quad quad;
            for (std::size_t i = 0; i < 4; ++i) quad[i] = cv::Point2f(float(q[i].x()), float(q[i].y()));
            return nertz::testing::cutOutCard(clean, quad);
        };
        const TallyCard* back = nullptr;
        const TallyCard* mouse = nullptr;
        for (const auto& c : t.cards) {
            if (c.side == 0 && !back) back = &c;
            if (c.side < 0 && c.lighter && !mouse) mouse = &c;
        }
        QVERIFY(back && mouse);
        nertz::vision::DealClipOptions o;
        o.size = {960, 540};
        o.through = true;
        o.cards = 12;
        const nertz::vision::DealClip deal =
            nertz::vision::renderDealClip({cutOut(back->quad), cutOut(mouse->quad)}, 47, o);
        const int mice = static_cast<int>(std::count(deal.decks.begin(), deal.decks.end(), 1));
        QVERIFY(mice >= 2 && mice <= 10);
        r.setMode(RecognitionAnalyzer::Mode::Deal);
        QString dealStatus;
        for (const auto& f : deal.frames) {
            cv::Mat frame = f.clone();
            dealStatus = r.analyze(frame);
        }
        const BackTally d = r.takeResult().value<BackTally>();
        qInfo("a black back and the mouse dealt through the view: %s", qPrintable(dealStatus));
        QCOMPARE(d.total(), o.cards);
        QCOMPARE(d.perSide[0], o.cards - mice);
        QCOMPARE(d.lighter, mice);
        for (int n = 0; n < d.total(); ++n)
            QCOMPARE(d.cards[std::size_t(n)].lighter, deal.decks[std::size_t(n)] == 1);
        QVERIFY2(dealStatus.contains(QString("%1 unknown card(s) lie far lighter").arg(mice)), qPrintable(dealStatus));
    }

    void aClipThatEndsMidCountKeepsTheCountAndUnknownCardsBlock() {
        QTemporaryDir dir;
        const QString file = dir.filePath("club.sqlite");
        // only Ann's back is enrolled: Bo's red cards come out unknown
        const QString clipPath = dir.filePath("partial.avi");
        {
            cv::VideoWriter writer(clipPath.toStdString(), cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0,
                                   cv::Size(640, 480));
            QVERIFY(writer.isOpened());
            // the first 5 cards laid out (B R B B R), each frame twice so the worker sees the rest
            for (int f = plan_.sortFirst; f < plan_.sortFirst + 15; ++f) writer.write(clip_.frames[f]);
            for (int k = 0; k < 20; ++k) writer.write(clip_.frames[plan_.sortFirst + 14]);
        }
        writeFrames(clip_, plan_.enrolFirst[0], plan_.enrolEnd[0], 5, dir.filePath("blue"));
        LeagueService service(file);
        service.addLeague("Club");
        service.addPlayer("Ann");
        service.addPlayer("Bo");
        const auto blue = service.addDeck("Ann", "Blue", "#1565c0");
        MainWindow w(service);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showPage(MainWindow::Page::Decks);
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("blue"), {}}, false));
        QTRY_VERIFY_WITH_TIMEOUT(w.decksScreen()->lastReading().found, 15000);
        click(w, "enrolBack");
        nertz::db::NewGame g;
        g.league = "Club";
        g.rules = nertz::scoring::preset("nna");
        g.sides = {{"Ann", {}, {}}, {"Bo", {}, {}}};
        g.seatDecks = {blue, std::nullopt};
        const auto id = service.createGame(g);
        w.openGame(id);
        w.showPage(MainWindow::Page::Hand);
        HandFlow& flow = w.handFlow();
        flow.startScoring();
        flow.setCaller(0);
        flow.goTo(HandFlow::Step::Backs);
        click(w, "cameraCount");
        auto video = std::make_unique<VideoFileSource>(clipPath, false);
        QVERIFY(w.adoptSource(std::move(video)));
        // Ann's 3 blue cards counted, Bo's 2 red ones unknown: the count cannot go on
        QTRY_VERIFY_WITH_TIMEOUT(flow.lake(0) == 3 && flow.unknownCards() == 2, 20000);
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::Backs);
        QVERIFY(find<QLabel>(w, "handBanner")->text().contains("could not be told"));
        QVERIFY(find<QLabel>(w, "unknownCards")->text().startsWith("2 unknown"));
        // the clip ends: the count so far stays, and the screen says so
        QTRY_VERIFY_WITH_TIMEOUT(!flow.cameraCounting(), 20000);
        QCOMPARE(flow.lake(0), 3);
        QVERIFY(flow.cameraNote().contains("count so far (3 cards) is kept"));
        QVERIFY(find<QLabel>(w, "cameraState")->text().contains("kept"));
        click(w, "stepNext");
        QCOMPARE(flow.step(), HandFlow::Step::NertzLeft);
    }

    // Issue 5 (c) in the app: a real MJPG clip of 12 cards of the demo's two backs dealt across the
    // view at 3 a second (15 fps, smeared by the exposure, a hand reaching in now and then), played
    // at its own pace. In the "Dealt one at a time" mode each card is counted once for its seat's
    // deck, listed with the frame it was counted in; one card is given to the other seat from the
    // list while the count runs; when the video ends the count stays and the step says so.
    // Seed 45: a clip the counter gets exact with the cache's art and with the painted backs. On
    // some clips it is not (a red back crossing a red cloth is missed: BACKS.md, "Cards through the
    // view", 32 of 40 clips exact); that is the counter's figure, measured there, not this test's
    // subject.
    void cardsDealtThroughTheViewAreCountedOnceEachForTheirSeat() {
        QTemporaryDir dir;
        const QString file = dir.filePath("club.sqlite");
        const DemoClipArt art = demoClipArt();
        nertz::vision::DealClipOptions o;
        o.size = {640, 360};
        o.cards = 12;
        o.through = true;
        const nertz::vision::DealClip deal =
            nertz::vision::renderDealClip({art.backs[0], art.backs[1]}, 45, o);
        const QString clipPath = dir.filePath("deal.avi");
        {
            cv::VideoWriter writer(clipPath.toStdString(), cv::CAP_OPENCV_MJPEG,
                                   cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 15.0, o.size);
            QVERIFY(writer.isOpened());
            for (const auto& f : deal.frames) writer.write(f);
        }
        const int blues = static_cast<int>(std::count(deal.decks.begin(), deal.decks.end(), 0));
        QVERIFY(blues > 0 && blues < 12);

        LeagueService service(file);
        service.addLeague("Club");
        service.addPlayer("Ann");
        service.addPlayer("Bo");
        const auto blue = service.addDeck("Ann", "Blue", "#1565c0", demoBackSignature(clip_, 0));
        const auto red = service.addDeck("Bo", "Red", "#c62828", demoBackSignature(clip_, 1));
        MainWindow w(service);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        nertz::db::NewGame g;
        g.league = "Club";
        g.rules = nertz::scoring::preset("nna");
        g.sides = {{"Ann", {}, {}}, {"Bo", {}, {}}};
        g.seatDecks = {blue, red};
        w.openGame(service.createGame(g));
        w.showPage(MainWindow::Page::Hand);
        HandFlow& flow = w.handFlow();
        flow.startScoring();
        flow.setCaller(0);
        flow.goTo(HandFlow::Step::Backs);
        QVERIFY(flow.cameraCounting());  // both backs enrolled: the camera count starts by itself
        QCOMPARE(w.recognizer().mode(), RecognitionAnalyzer::Mode::Count);
        QVERIFY(!find<QListWidget>(w, "dealtCards")->isVisible());
        click(w, "dealMode");
        QCOMPARE(w.recognizer().mode(), RecognitionAnalyzer::Mode::Deal);
        auto* list = find<QListWidget>(w, "dealtCards");
        QVERIFY(list->isVisible());
        QVERIFY(w.adoptSource(std::make_unique<VideoFileSource>(clipPath, false)));

        // the first card counted is given to the other seat from the list, while the deal goes on
        QTRY_VERIFY_WITH_TIMEOUT(list->count() >= 1, 20000);
        HandScreen* hand = w.handScreen();
        const int firstSide = hand->lastTally().cards.at(0).side;
        QVERIFY(firstSide == 0 || firstSide == 1);
        QCOMPARE(firstSide, deal.decks.at(0));  // counted for its own deck first
        list->setCurrentRow(0);
        QVERIFY(find<QLabel>(w, "selectedCard")->text().startsWith("Dealt card #1"));
        click(w, QString("assign_%1").arg(1 - firstSide));

        // the video ends: every card counted once, the count kept
        QTRY_VERIFY_WITH_TIMEOUT(!flow.cameraCounting(), 30000);
        QCOMPARE(list->count(), 12);
        const int expectBlue = blues + (firstSide == 0 ? -1 : 1);
        QCOMPARE(flow.lake(0), expectBlue);
        QCOMPARE(flow.lake(1), 12 - expectBlue);
        QCOMPARE(flow.unknownCards(), 0);
        QVERIFY2(flow.cameraNote().contains("count so far (12 cards) is kept"),
                 qPrintable(flow.cameraNote()));
        QVERIFY(list->item(0)->text().contains("(reassigned)"));
        for (int n = 1; n < 12; ++n) {
            const auto& c = hand->lastTally().cards.at(std::size_t(n));
            QCOMPARE(c.side,
                     deal.decks.at(std::size_t(n)));  // in the order dealt, each for its deck
            QVERIFY(c.frame > hand->lastTally().cards.at(std::size_t(n - 1)).frame);
        }
        // a card given to another seat after the last was counted: the list says so at once (the
        // frames go on coming from a still picture of the table)
        writeFrames(clip_, plan_.holdFirst, plan_.holdFirst + 2, 1, dir.filePath("still"));
        click(w, "cameraCount");  // on again; the deal count goes on from a new rest
        QVERIFY(flow.cameraCounting());
        QVERIFY(w.setSource({SourceSpec::Kind::Folder, dir.filePath("still"), {}}, false));
        list->setCurrentRow(11);
        const int lastSide = hand->lastTally().cards.at(11).side;
        click(w, QString("assign_%1").arg(1 - lastSide));
        QTRY_VERIFY_WITH_TIMEOUT(list->item(11)->text().contains("(reassigned)"), 10000);
        QCOMPARE(list->count(), 12);
        // a new count starts from nothing
        click(w, "restartDeal");
        QCOMPARE(list->count(), 0);
    }

    void ratingRecomputeRunsOnAJobThreadAndRestoresTheRatings() {
        QTemporaryDir dir;
        const QString file = dir.filePath("club.sqlite");
        LeagueService service(file);
        service.addLeague("Club");
        service.addPlayer("Ann");
        service.addPlayer("Bo");
        nertz::db::NewGame g;
        g.league = "Club";
        g.rules = nertz::scoring::preset("house");
        g.rules.target = 20;
        g.sides = {{"Ann", {}, {}}, {"Bo", {}, {}}};
        nertz::scoring::HandResult h;
        h.sides = {{"Ann", 25, 0, true, 0, {}}, {"Bo", 10, 4, false, 0, {}}};
        nertz::db::GameRepo(service.database()).record(g, {h}, {});
        const QString sql = "SELECT group_concat(printf('%.9f', mu), ',') FROM (SELECT mu FROM ratings ORDER BY player_id)";
        const QString before = sqlText(file, sql);
        QVERIFY(before.contains(','));  // both players rated
        service.database().exec("UPDATE ratings SET mu = 0");
        QVERIFY(sqlText(file, sql) != before);
        MainWindow w(service);
        QString message;
        QVERIFY2(w.recomputeLeagueRatings(1, &message), qPrintable(message));
        QCOMPARE(sqlText(file, sql), before);
    }

    void badRuleFileShowsAnErrorAndAGoodOneIsUsed() {
        QTemporaryDir dir;
        LeagueService service(dir.filePath("club.sqlite"));
        service.addLeague("Club");
        service.addPlayer("Ann");
        service.addPlayer("Bo");
        MainWindow w(service);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showPage(MainWindow::Page::NewGame);
        auto* screen = w.findChild<NewGameScreen*>();
        QVERIFY(screen);
        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"base":"nna","id":"club","target":"lots"})");
        bad.close();
        QVERIFY(!screen->loadRulesFile(bad.fileName()));
        auto* box = w.findChild<QMessageBox*>("rulesError");
        QVERIFY(box);
        QVERIFY(box->text().contains("target"));
        box->close();
        QFile good(dir.filePath("club.json"));
        QVERIFY(good.open(QIODevice::WriteOnly));
        good.write(R"({"base":"nna","id":"club","target":200})");
        good.close();
        QVERIFY(screen->loadRulesFile(good.fileName()));
        QCOMPARE(find<QSpinBox>(w, "gameTarget")->value(), 200);
        pick(w, "gameLeague", "Club");
        auto* players = find<QListWidget>(w, "gamePlayers");
        for (int i = 0; i < players->count(); ++i) players->item(i)->setCheckState(Qt::Checked);
        click(w, "startGame");
        QCOMPARE(sqlText(dir.filePath("club.sqlite"), "SELECT rules_id || '|' || target FROM games"), QString("club|200"));
    }
};

QTEST_MAIN(VisionTest)
#include "gui_vision_test.moc"

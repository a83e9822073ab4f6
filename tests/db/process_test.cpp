// Crash safety and concurrency with real processes: a writer killed with SIGKILL at random
// instants (>= 200 times) never loses a committed hand nor leaves half of one; two writers on
// one file (two tables of a club night) lose nothing and never see "database is locked".
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "db_test_util.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"

using namespace nertz;
using nertz::testing::rawRows;
using nertz::testing::rawValue;
using nertz::testing::TempDir;

namespace {

struct Child {
    pid_t pid = -1;
    int out = -1;  // read end of the child's stdout
    int err = -1;
};

Child spawnWriter(const std::string& file, const std::string& table, unsigned seed, long hands) {
    int outPipe[2], errPipe[2];
    if (pipe(outPipe) != 0 || pipe(errPipe) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(outPipe[1], 1);
        dup2(errPipe[1], 2);
        close(outPipe[0]);
        close(errPipe[0]);
        const std::string s = std::to_string(seed), n = std::to_string(hands);
        execl(NERTZ_DB_WRITER, NERTZ_DB_WRITER, file.c_str(), "Night", table.c_str(), s.c_str(), n.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    close(outPipe[1]);
    close(errPipe[1]);
    return {pid, outPipe[0], errPipe[0]};
}

std::string drain(int fd) {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
    close(fd);
    return s;
}

long lastNumber(const std::string& out) {
    // Only whole lines count: a number is acknowledged once its newline was written.
    const auto end = out.rfind('\n');
    if (end == std::string::npos) return 0;
    const auto start = out.rfind('\n', end - 1);
    const std::string line = out.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
    return line.empty() ? 0 : std::stol(line);
}

void setUpLeague(const std::string& file, const std::vector<std::string>& tables) {
    db::Database d(file);
    db::LeagueRepo(d).create("Night");
    db::PlayerRepo players(d);
    for (const auto& t : tables) {
        for (const char* s : {"-a", "-b", "-c"}) players.add(t + s);
    }
}

// Every invariant a half-written hand would break.
void expectConsistent(const std::string& file) {
    EXPECT_EQ(rawValue(file, "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(rawValue(file, "PRAGMA foreign_key_check"), "");
    // Totals equal the sum of the committed hand rows, seat by seat.
    EXPECT_EQ(rawValue(file,
                       "SELECT COUNT(*) FROM game_sides gs WHERE gs.total <> (SELECT COALESCE(SUM(r.score), 0) "
                       "FROM hands h JOIN hand_results r ON r.hand_id = h.id WHERE h.game_id = gs.game_id AND r.seat = gs.seat)"),
              "0");
    // Every hand has one result row per side, and hand numbers are 1..n without gaps.
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM hands h WHERE (SELECT COUNT(*) FROM hand_results r WHERE r.hand_id = h.id) "
                             "<> (SELECT COUNT(*) FROM game_sides s WHERE s.game_id = h.game_id)"),
              "0");
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM games g WHERE (SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id) "
                             "<> COALESCE((SELECT MAX(number) FROM hands h WHERE h.game_id = g.id), 0)"),
              "0");
    // Aggregate rows agree with the hands.
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM player_game_stats s WHERE s.hands <> (SELECT COUNT(*) FROM hands h "
                             "WHERE h.game_id = s.game_id) OR s.points <> (SELECT total FROM game_sides gs JOIN game_players gp "
                             "ON gp.game_id = gs.game_id AND gp.seat = gs.seat WHERE gp.game_id = s.game_id AND gp.player_id = s.player_id)"),
              "0");
    // A finished game is rated, an open one is not.
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM games g WHERE g.over = 1 AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.game_id = g.id)"), "0");
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM rating_history h JOIN games g ON g.id = h.game_id WHERE g.over = 0"), "0");
}

}  // namespace

TEST(DbProcess, KillNineAtRandomMomentsNeverLosesOrHalvesAHand) {
    TempDir dir;
    const std::string file = dir.file();
    setUpLeague(file, {"t1"});
    std::mt19937 rng(20240601);
    std::uniform_int_distribution<int> delayUs(0, 60000);
    const int kKills = 220;
    long acknowledged = 0;
    int killedMidRun = 0;
    for (int i = 0; i < kKills; ++i) {
        Child c = spawnWriter(file, "t1", static_cast<unsigned>(rng()), 1000000);
        ASSERT_GT(c.pid, 0);
        std::this_thread::sleep_for(std::chrono::microseconds(delayUs(rng)));
        kill(c.pid, SIGKILL);
        int status = 0;
        waitpid(c.pid, &status, 0);
        if (WIFSIGNALED(status)) ++killedMidRun;
        const std::string out = drain(c.out);
        const std::string err = drain(c.err);
        EXPECT_TRUE(err.empty()) << err;
        acknowledged += lastNumber(out);
        // Every acknowledged hand is in the file; at most one more per run (committed, not yet printed).
        const long stored = std::stol(rawValue(file, "SELECT COUNT(*) FROM hands"));
        ASSERT_GE(stored, acknowledged) << "after kill " << i;
        ASSERT_LE(stored, acknowledged + i + 1) << "after kill " << i;
    }
    EXPECT_EQ(killedMidRun, kKills);
    const long stored = std::stol(rawValue(file, "SELECT COUNT(*) FROM hands"));
    std::cout << "[kill -9] " << kKills << " kills, " << acknowledged << " acknowledged hands, " << stored
              << " stored, " << rawValue(file, "SELECT COUNT(*) FROM games") << " games\n";
    EXPECT_GT(acknowledged, 200);  // the writer really got work done between kills
    // Opening through the library after all the kills works and the data is consistent.
    { db::Database reopened(file); }
    expectConsistent(file);
}

TEST(DbProcess, TwoWritersFiveHundredHandsEachLoseNothing) {
    TempDir dir;
    const std::string file = dir.file();
    setUpLeague(file, {"left", "right"});
    Child a = spawnWriter(file, "left", 1, 500);
    Child b = spawnWriter(file, "right", 2, 500);
    const std::string outA = drain(a.out), outB = drain(b.out);
    const std::string errA = drain(a.err), errB = drain(b.err);
    int sa = 0, sb = 0;
    waitpid(a.pid, &sa, 0);
    waitpid(b.pid, &sb, 0);
    EXPECT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0) << errA;
    EXPECT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0) << errB;
    EXPECT_EQ(errA.find("locked"), std::string::npos) << errA;
    EXPECT_EQ(errB.find("locked"), std::string::npos) << errB;
    EXPECT_EQ(lastNumber(outA), 500);
    EXPECT_EQ(lastNumber(outB), 500);
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM hands"), "1000");
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM hands WHERE entered_by = 'left'"), "500");
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM hands WHERE entered_by = 'right'"), "500");
    expectConsistent(file);
}

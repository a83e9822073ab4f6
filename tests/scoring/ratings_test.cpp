// OpenSkill Plackett-Luce against values computed by hand from the Weng-Lin equations (the
// 2- and 3-player values are also the ones the OpenSkill reference implementation publishes).
#include <gtest/gtest.h>

#include "nertz/scoring/error.hpp"
#include "nertz/scoring/ratings.hpp"

using namespace nertz::scoring;

namespace {
void expectRating(const Rating& r, double mu, double sigma) {
    EXPECT_NEAR(r.mu, mu, 1e-9);
    EXPECT_NEAR(r.sigma, sigma, 1e-9);
}
}  // namespace

TEST(Ratings, TwoPlayersWinnerAndLoser) {
    const auto out = ratePlackettLuce({{Rating{}}, {Rating{}}}, {1, 2});
    ASSERT_EQ(out.size(), 2u);
    expectRating(out[0][0], 27.63523138347365, 8.065506316323548);
    expectRating(out[1][0], 22.36476861652635, 8.065506316323548);
}

TEST(Ratings, ThreePlayersInOrder) {
    const auto out = ratePlackettLuce({{Rating{}}, {Rating{}}, {Rating{}}}, {1, 2, 3});
    expectRating(out[0][0], 27.868876552746237, 8.204837030780652);
    expectRating(out[1][0], 25.717219138186557, 8.057829747583874);
    expectRating(out[2][0], 21.413904309067206, 8.057829747583874);
}

TEST(Ratings, TieSharesTheResult) {
    const auto out = ratePlackettLuce({{Rating{}}, {Rating{}}, {Rating{}}}, {1, 1, 3});
    expectRating(out[0][0], 25.717219138186557, 8.204837030780652);
    expectRating(out[1][0], 25.717219138186557, 8.204837030780652);
    expectRating(out[2][0], 23.56556172362688, 8.204837030780652);
}

TEST(Ratings, UnequalPriorsUpsetMovesTheUnderdogUp) {
    const auto out = ratePlackettLuce({{Rating{30, 6}}, {Rating{20, 7}}, {Rating{}}}, {2, 1, 3});
    expectRating(out[0][0], 29.900631873637636, 5.891953690111518);
    expectRating(out[1][0], 22.638482819786727, 6.928848621271913);
    expectRating(out[2][0], 21.45233594259549, 7.950602497646607);
}

TEST(Ratings, TeamsSumTheirMembers) {
    const auto out = ratePlackettLuce({{Rating{}, Rating{}}, {Rating{}, Rating{}}}, {1, 2});
    expectRating(out[0][0], 26.964185503295965, 8.17755635771097);
    expectRating(out[0][1], 26.964185503295965, 8.17755635771097);
    expectRating(out[1][1], 23.035814496704035, 8.17755635771097);
}

TEST(Ratings, OrdinalIsMuMinusThreeSigma) {
    EXPECT_NEAR(Rating{}.ordinal(), 0.0, 1e-12);
    EXPECT_NEAR((Rating{27.0, 2.0}.ordinal()), 21.0, 1e-12);
}

TEST(Ratings, TauWidensSigmaBeforeTheUpdate) {
    RatingModel m;
    m.tau = 25.0 / 300.0;
    const auto with = ratePlackettLuce({{Rating{}}, {Rating{}}}, {1, 2}, m);
    const auto without = ratePlackettLuce({{Rating{}}, {Rating{}}}, {1, 2});
    EXPECT_GT(with[0][0].sigma, without[0][0].sigma);
    EXPECT_GT(with[0][0].mu, without[0][0].mu);
}

TEST(Ratings, Deterministic) {
    const auto a = ratePlackettLuce({{Rating{31, 4}}, {Rating{22, 5}}, {Rating{}}, {Rating{18, 3}}}, {3, 1, 2, 4});
    const auto b = ratePlackettLuce({{Rating{31, 4}}, {Rating{22, 5}}, {Rating{}}, {Rating{18, 3}}}, {3, 1, 2, 4});
    EXPECT_EQ(a, b);
}

TEST(Ratings, RanksFromScores) {
    EXPECT_EQ(ranksFromScores({90, 120, 90}), (std::vector<int>{2, 1, 2}));
    EXPECT_EQ(ranksFromScores({5, 4, 3}), (std::vector<int>{1, 2, 3}));
}

TEST(Ratings, BadShapesAreInputErrors) {
    EXPECT_THROW(ratePlackettLuce({{Rating{}}}, {1}), InputError);
    EXPECT_THROW(ratePlackettLuce({{Rating{}}, {}}, {1, 2}), InputError);
    EXPECT_THROW(ratePlackettLuce({{Rating{}}, {Rating{}}}, {1}), InputError);
}

// OpenSkill ratings: the Weng-Lin Bayesian approximation with the Plackett-Luce model, for
// free-for-all games of 2..n sides, sides being single players or teams. Deterministic.
#pragma once

#include <vector>

namespace nertz::scoring {

// The model's constants (Weng & Lin 2011 defaults, as in the OpenSkill libraries).
struct RatingModel {
    double mu = 25.0;
    double sigma = 25.0 / 3.0;
    double beta = 25.0 / 6.0;  // sigma / 2: the performance noise
    double kappa = 0.0001;     // floor of the sigma shrink factor
    double tau = 0.0;          // additive dynamics: sigma^2 += tau^2 before each game (0: off)
};

// One player's skill belief: mean and standard deviation.
struct Rating {
    double mu = 25.0;
    double sigma = 25.0 / 3.0;

    // The conservative skill shown in standings: mu - 3 sigma.
    double ordinal() const noexcept { return mu - 3.0 * sigma; }

    friend bool operator==(const Rating&, const Rating&) = default;
};

// A fresh rating under `model`.
inline Rating initialRating(const RatingModel& model = {}) { return {model.mu, model.sigma}; }

// Updates the ratings of one game. teams[i] holds the members' ratings of side i (one member for
// a single player); ranks[i] is side i's place (lower is better; equal ranks are a tie). Returns
// the new ratings in the same shape. Throws InputError for fewer than two sides, an empty team,
// or ranks of the wrong length.
std::vector<std::vector<Rating>> ratePlackettLuce(const std::vector<std::vector<Rating>>& teams,
                                                  const std::vector<int>& ranks,
                                                  const RatingModel& model = {});

// Ranks from final scores (higher score is better, equal scores share a rank): {90,120,90} -> {2,1,2}.
std::vector<int> ranksFromScores(const std::vector<int>& scores);

}  // namespace nertz::scoring

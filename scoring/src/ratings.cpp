#include "nertz/scoring/ratings.hpp"

#include <algorithm>
#include <cmath>

#include "nertz/scoring/error.hpp"

namespace nertz::scoring {

std::vector<std::vector<Rating>> ratePlackettLuce(const std::vector<std::vector<Rating>>& teams,
                                                  const std::vector<int>& ranks, const RatingModel& model) {
    const std::size_t n = teams.size();
    if (n < 2) throw InputError("teams", "a rated game needs at least two sides");
    if (ranks.size() != n) throw InputError("ranks", "one rank per side is needed");
    for (std::size_t i = 0; i < n; ++i) {
        if (teams[i].empty()) throw InputError("teams[" + std::to_string(i) + "]", "a side needs a member");
    }
    const double tau2 = model.tau * model.tau;
    // Member sigmas after the dynamics step, and the team sums.
    std::vector<std::vector<Rating>> in = teams;
    std::vector<double> teamMu(n, 0.0), teamSigma2(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (Rating& r : in[i]) {
            if (tau2 > 0) r.sigma = std::sqrt(r.sigma * r.sigma + tau2);
            teamMu[i] += r.mu;
            teamSigma2[i] += r.sigma * r.sigma;
        }
    }
    const double beta2 = model.beta * model.beta;
    double c2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) c2 += teamSigma2[i] + beta2;
    const double c = std::sqrt(c2);

    std::vector<double> expMu(n);
    for (std::size_t i = 0; i < n; ++i) expMu[i] = std::exp(teamMu[i] / c);
    // sumQ[q]: sum of exp(mu_s / c) over the sides s placed at q's rank or worse.
    // a[q]: how many sides share q's rank.
    std::vector<double> sumQ(n, 0.0);
    std::vector<double> a(n, 0.0);
    for (std::size_t q = 0; q < n; ++q) {
        for (std::size_t s = 0; s < n; ++s) {
            if (ranks[s] >= ranks[q]) sumQ[q] += expMu[s];
            if (ranks[s] == ranks[q]) a[q] += 1.0;
        }
    }

    std::vector<std::vector<Rating>> out = in;
    for (std::size_t i = 0; i < n; ++i) {
        double omega = 0.0, delta = 0.0;
        for (std::size_t q = 0; q < n; ++q) {
            if (ranks[q] > ranks[i]) continue;  // only sides placed at i's rank or better
            const double p = expMu[i] / sumQ[q];
            delta += p * (1.0 - p) / a[q];
            omega += (q == i ? 1.0 - p : -p) / a[q];
        }
        omega *= teamSigma2[i] / c;
        delta *= teamSigma2[i] / c2;
        const double gamma = std::sqrt(teamSigma2[i]) / c;
        delta *= gamma;
        for (Rating& r : out[i]) {
            const double share = r.sigma * r.sigma / teamSigma2[i];
            r.mu += share * omega;
            r.sigma *= std::sqrt(std::max(1.0 - share * delta, model.kappa));
        }
    }
    return out;
}

std::vector<int> ranksFromScores(const std::vector<int>& scores) {
    std::vector<int> ranks(scores.size(), 1);
    for (std::size_t i = 0; i < scores.size(); ++i) {
        for (std::size_t j = 0; j < scores.size(); ++j) {
            if (scores[j] > scores[i]) ++ranks[i];
        }
    }
    return ranks;
}

}  // namespace nertz::scoring

#include "league_db.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nertz::cli {

std::unique_ptr<db::Database> openDb(const Context& ctx) {
    return std::make_unique<db::Database>(ctx.dbPath.empty() ? db::defaultDatabasePath() : ctx.dbPath);
}

std::string defaultUser() {
    const char* user = std::getenv("USER");
    return user && *user ? user : "cli";
}

double round1(double x) { return std::round(x * 10.0) / 10.0; }

std::string fixed1(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", round1(x));
    return buf;
}

std::string textTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(header.size(), 0);
    std::vector<bool> numeric(header.size(), true);
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) {
            width[c] = std::max(width[c], r[c].size());
            if (!r[c].empty() && r[c].find_first_not_of("0123456789.-%") != std::string::npos) numeric[c] = false;
        }
    }
    auto line = [&](const std::vector<std::string>& r) {
        std::string out;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < r.size() ? r[c] : "";
            const std::string pad(width[c] - cell.size(), ' ');
            if (c) out += "  ";
            out += numeric[c] && c > 0 ? pad + cell : cell + pad;
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "\n";
    };
    std::string out = line(header);
    for (const auto& r : rows) out += line(r);
    return out;
}

}  // namespace nertz::cli

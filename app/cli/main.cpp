// nertzref-cli: everything scriptable — scoring, the league database, detection, counting.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>

#include <opencv2/core/utils/logger.hpp>

#include "commands.hpp"
#include "nertz/scoring/error.hpp"

namespace nertz::cli {

std::string readStdin() {
    std::ios::sync_with_stdio(false);
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

}  // namespace nertz::cli

int main(int argc, char** argv) {
    using namespace nertz;
    // OpenCV's own warnings (a video backend that cannot open a file, a decoder's complaint) would
    // come before the one message this program gives for bad input; OPENCV_LOG_LEVEL still rules
    // where it is set.
    if (!std::getenv("OPENCV_LOG_LEVEL"))
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    CLI::App app{"nertzref-cli: score Nertz hands, referee them, and keep the league"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "nertzref-cli 0.1.0");
    cli::Context ctx;
    app.fallthrough();  // --db FILE is accepted after any subcommand too
    app.add_option("--db", ctx.dbPath, "league database file (default: the club file in the XDG data dir)");
    cli::addRulesCommands(app, ctx);
    cli::addScoreCommands(app, ctx);
    cli::addTourCommand(app, ctx);
    cli::addLeagueCommands(app, ctx);
    cli::addGamesCommands(app, ctx);
    cli::addStandingsCommands(app, ctx);
    cli::addVisionCommands(app, ctx);
    cli::addSynthCommand(app, ctx);
    cli::addCountCommands(app, ctx);  // after the league's: adds `deck enroll`
    cli::addLakeCommands(app, ctx);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "nertzref-cli: " << e.what() << " (see --help)\n";
        return 2;
    } catch (const scoring::InputError& e) {
        std::cerr << "nertzref-cli: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "nertzref-cli: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

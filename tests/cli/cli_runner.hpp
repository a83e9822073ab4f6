// Runs the real nertzref-cli binary with arguments and stdin, capturing stdout, stderr and the
// exit code. Used by every CLI contract test (scoring, league, vision commands).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nertz::testing {

struct CliResult {
    int code = -1;
    std::string out;
    std::string err;
};

inline std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The non-empty lines of a text (a program's output, a labels file).
inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(l);
    return out;
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs `program args...` with `input` on stdin.
inline CliResult runProgram(const std::string& program, const std::vector<std::string>& args,
                            const std::string& input = "") {
    namespace fs = std::filesystem;
    static int counter = 0;
    const fs::path dir = fs::temp_directory_path() /
                         ("nertz-cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
    std::ofstream(dir / "in", std::ios::binary) << input;
    std::string cmd = shellQuote(program);
    for (const auto& a : args) cmd += " " + shellQuote(a);
    cmd += " <" + shellQuote((dir / "in").string()) + " >" + shellQuote((dir / "out").string()) + " 2>" +
           shellQuote((dir / "err").string());
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    fs::remove_all(dir);
    return r;
}

#ifdef NERTZ_CLI
inline CliResult runCli(const std::vector<std::string>& args, const std::string& input = "") {
    return runProgram(NERTZ_CLI, args, input);
}
#endif

}  // namespace nertz::testing

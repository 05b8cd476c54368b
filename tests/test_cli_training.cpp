// Runs the real `sparring` binary: `train` on a small synthetic data file, `positions
// convert` and `positions generate`, and their errors for bad data lines and bad flags.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "engine/params.h"
#include "training/position_io.h"
#include "training_samples.h"

namespace sparring::training {
namespace {

using namespace sparring::cli_test;

// Writes positions from random games, labelled by an evaluation whose knights are worth 320,
// as EPD; returns the path.
std::string write_synthetic_data() {
    auto positions = samples::random_game_positions(21, 120, 60, 8);
    ParamSet truth;
    EXPECT_TRUE(truth.set("KnightValueMg", 320));
    EXPECT_TRUE(truth.set("KnightValueEg", 320));
    samples::draw_results(&positions, truth, 1.1, 22);
    const std::string path = temp_path("data.epd");
    std::ofstream out(path);
    EXPECT_TRUE(write_positions(out, positions, PositionFormat::Epd, nullptr));
    return path;
}

TEST(CliTrain, FitsTheSelectedParametersAndWritesThem) {
    const std::string data = write_synthetic_data();
    const std::string start = temp_path("start.json"), tuned = temp_path("tuned.json");
    std::ofstream(start) << "{\"KnightValueMg\": 200, \"KnightValueEg\": 200}\n";
    const CliResult o =
        run("train --data '" + data + "' --params '" + start +
            "' --select 'KnightValue*' --epochs 40 --lr 3 --k 1.1 --l2 0 --filter none "
            "--threads 2 --out '" +
            tuned + "'");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("K 1.1000\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("epoch   40/40  loss "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("2 parameters fitted"), std::string::npos) << o.out;
    std::string error;
    const auto params = ParamSet::from_json(read_file(tuned), ParamSet(), &error);
    ASSERT_TRUE(params) << error;
    EXPECT_GT(*params->get("KnightValueMg"), 260);
    EXPECT_GT(*params->get("KnightValueEg"), 260);
    EXPECT_EQ(params->get("RookValueMg"), ParamSet().get("RookValueMg"));
}

TEST(CliTrain, BadDataAndBadFlagsAreOneLineErrors) {
    const std::string bad = temp_path("bad.txt");
    std::ofstream(bad)
        << "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5]\n\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 [3]\n";
    CliResult o = run("train --data '" + bad + "' --out " + temp_path("x.json"));
    EXPECT_EQ(o.status, 1);
    EXPECT_NE(o.err.find("bad.txt:3: bad result '3'"), std::string::npos) << o.err;

    const std::string good = temp_path("good.txt");
    std::ofstream(good) << "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5]\n";
    for (const char* flags : {"--epochs 0", "--select Nonsense", "--k -1", "--lr 0",
                              "--filter quiet", "--threads 0", "--preset nope", "--l2 -1"}) {
        o = run("train --data '" + good + "' --out " + temp_path("x.json") + " " +
                std::string(flags));
        EXPECT_EQ(o.status, 2) << flags;
        EXPECT_EQ(o.err.rfind("sparring train: ", 0), 0u) << flags << ": " << o.err;
    }
    EXPECT_EQ(run("train --out x.json").status, 2);
    EXPECT_EQ(run("train --data /nonexistent/file --out x.json").status, 1);
}

TEST(CliPositions, ConvertsBetweenFormatsWithoutLoss) {
    const std::string epd = temp_path("in.epd"), fen = temp_path("out.fen"),
                      back = temp_path("back.epd");
    std::ofstream(epd) << "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c9 "
                          "\"1-0\"; hmvc 2; fmvn 3;\n"
                          "4k3/8/8/3q4/8/8/3R4/4K3 w - - c9 \"0-1\"; hmvc 0; fmvn 1;\n";
    CliResult o = run("positions convert --in '" + epd + "' --out '" + fen + "' --format fen");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(read_file(fen),
              "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [1.0]\n"
              "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1 [0.0]\n");
    o = run("positions convert --in '" + fen + "' --out '" + back + "' --format epd");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(read_file(back), read_file(epd));

    o = run("positions convert --in '" + fen + "' --out '" + back +
            "' --format epd --filter tactical");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.err.find("1 positions (dropped 0 in check, 1 tactical"), std::string::npos)
        << o.err;

    const std::string scored = temp_path("scored.txt");
    o = run("positions convert --in '" + fen + "' --out '" + scored + "' --format fen-score");
    EXPECT_EQ(o.status, 1);
    EXPECT_NE(o.err.find("no score"), std::string::npos) << o.err;
    EXPECT_FALSE(std::filesystem::exists(scored));
    EXPECT_EQ(run("positions convert --in '" + fen + "' --out x --format pgn").status, 2);
    EXPECT_EQ(run("positions convert --in '" + fen + "' --out x --games 3").status, 2);
    EXPECT_EQ(run("positions shuffle").status, 2);
}

TEST(CliPositions, GeneratesScoredPositionsBySelfPlay) {
    const std::string out = temp_path("selfplay.txt");
    const CliResult o =
        run("positions generate --games 2 --nodes 300 --book none --random-plies 6 "
            "--format fen-score --threads 2 --out '" +
            out + "'");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.err.find("2 games, "), std::string::npos) << o.err;
    std::ifstream in(out);
    std::vector<LabelledPosition> positions;
    std::string error;
    ASSERT_TRUE(read_positions(in, out, &positions, &error)) << error;
    ASSERT_FALSE(positions.empty());
    for (const LabelledPosition& p : positions) EXPECT_TRUE(p.score.has_value());
    EXPECT_EQ(run("positions generate --out x.epd").status, 2);
    EXPECT_EQ(run("positions generate --games 1 --out x.epd --skip-plies 3").status, 2);
}

TEST(CliPositions, GenerateWritesTheFinishedGamesWhenInterrupted) {
    const std::string out = temp_path("interrupted.epd"), err = temp_path("interrupted.err");
    // Far more games than two seconds allow; SIGINT then stops it.
    const std::string command = std::string("timeout -s INT --preserve-status 2 '") + SPARRING_CLI +
                                "' positions generate --games 100000 --nodes 300 --threads 1 "
                                "--out '" +
                                out + "' 2>'" + err + "'";
    const int raw = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 130) << read_file(err);
    const std::string log = read_file(err);
    EXPECT_NE(log.find("interrupted (signal 2) after "), std::string::npos) << log;
    std::ifstream in(out);
    std::vector<LabelledPosition> positions;
    std::string error;
    ASSERT_TRUE(read_positions(in, out, &positions, &error)) << error;
    EXPECT_FALSE(positions.empty());
    EXPECT_NE(log.find("wrote " + std::to_string(positions.size()) + " positions"),
              std::string::npos)
        << log;
}

}  // namespace
}  // namespace sparring::training

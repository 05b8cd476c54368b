// Untrusted text made safe to print: control characters and broken UTF-8 escaped, the rest
// (UTF-8 included) unchanged.
#include <gtest/gtest.h>

#include "common/printable.h"

namespace sparring {
namespace {

TEST(Printable, EscapesTerminalSequencesAndNewlines) {
    // The worker name of the issue: a colour escape, a cursor move and a forged second row.
    const std::string name = "box\x1b[31mRED\x1b[2J\nforged-row\r\t\x01\x7f";
    EXPECT_EQ(printable(name), "box\\e[31mRED\\e[2J\\nforged-row\\r\\t\\x01\\x7f");
    EXPECT_EQ(printable(name).find('\x1b'), std::string::npos);
    EXPECT_FALSE(is_printable(name));
}

TEST(Printable, KeepsUtf8AndEscapesC1AndBrokenBytes) {
    EXPECT_EQ(printable("Caf\xc3\xa9 \xe2\x99\x9e"), "Caf\xc3\xa9 \xe2\x99\x9e");
    EXPECT_TRUE(is_printable("Caf\xc3\xa9 \xe2\x99\x9e"));
    EXPECT_EQ(printable("a\xc2\x9b"
                        "31m"),
              "a\\u009b31m");  // C1 CSI
    EXPECT_FALSE(is_printable("a\xc2\x9b"));
    EXPECT_EQ(printable("a\x9b"
                        "b\xff"),
              "a\\x9bb\\xff");
    EXPECT_FALSE(is_printable("\xc0\xaf"));  // overlong '/'
    EXPECT_TRUE(is_printable("plain text, 16 MB"));
}

TEST(Printable, CutsLongText) {
    EXPECT_EQ(printable(std::string(100, 'x'), 10), std::string(10, 'x') + "...");
    EXPECT_EQ(printable("short", 10), "short");
}

}  // namespace
}  // namespace sparring

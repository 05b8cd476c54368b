// Untrusted text made safe to print: control characters and broken UTF-8 escaped, the rest
// (UTF-8 included) unchanged; made valid UTF-8 to store or send: broken parts replaced, cuts at
// code-point boundaries.
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

TEST(Printable, CutsLongTextAtACodePointBoundary) {
    const std::string text = std::string(511, 'a') + "\xc3\xa9";
    EXPECT_EQ(printable(text, 512), std::string(511, 'a') + "...");
}

// 1-, 2-, 3- and 4-byte sequences: "a", "é", "€", "𝄞".
const std::string kMixed =
    "a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"
    "b\xf0\x9d\x84\x9e\xe2\x82\xac\xc3\xa9";

TEST(Utf8, APrefixCutAtEveryByteIsValidAndAsLongAsPossible) {
    ASSERT_TRUE(is_valid_utf8(kMixed));
    for (size_t max = 0; max <= kMixed.size() + 1; ++max) {
        const std::string_view prefix = utf8_prefix(kMixed, max);
        EXPECT_TRUE(is_valid_utf8(prefix)) << "cut at " << max;
        EXPECT_LE(prefix.size(), max);
        EXPECT_GT(prefix.size() + 4, std::min(max, kMixed.size())) << "cut at " << max;
        EXPECT_EQ(kMixed.substr(0, prefix.size()), prefix);
    }
    const std::string issue = std::string(511, 'a') + "\xc3\xa9";
    EXPECT_EQ(utf8_prefix(issue, 512), std::string(511, 'a'));
    EXPECT_EQ(utf8_prefix(issue, 513), issue);
    EXPECT_EQ(utf8_prefix("\xe2\x82\xac", 2), "");
}

TEST(Utf8, APrefixOfBrokenTextIsCutWhereAsked) {
    // Continuation bytes without a lead are no sequence to keep whole.
    EXPECT_EQ(utf8_prefix("ab\x80\x80\x80\x80", 4), "ab\x80\x80");
    EXPECT_EQ(utf8_prefix("ab\xc0\xaf", 3), "ab\xc0");
}

TEST(Utf8, RepairReplacesEachMaximalSubpartOnce) {
    const std::string fffd = "\xef\xbf\xbd";
    EXPECT_EQ(valid_utf8(kMixed), kMixed);
    EXPECT_EQ(valid_utf8(""), "");
    EXPECT_EQ(valid_utf8("a\xc0\xafz"), "a" + fffd + fffd + "z");          // overlong '/'
    EXPECT_EQ(valid_utf8("\xe0\x80\xaf"), fffd + fffd + fffd);             // overlong 3
    EXPECT_EQ(valid_utf8("\xf0\x80\x80\xaf"), fffd + fffd + fffd + fffd);  // overlong 4
    EXPECT_EQ(valid_utf8("x\xe2\x82"), "x" + fffd);                        // truncated
    EXPECT_EQ(valid_utf8("\xf0\x9d\x84x"), fffd + "x");                    // truncated 4
    EXPECT_EQ(valid_utf8("\xc3"), fffd);                                   // truncated 2
    EXPECT_EQ(valid_utf8("\xed\xa0\x80\xed\xbf\xbf"), fffd + fffd + fffd + fffd + fffd + fffd);
    EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // > U+10FFFF
    EXPECT_EQ(valid_utf8("\xf5\xff\xfe"), fffd + fffd + fffd);
    EXPECT_EQ(valid_utf8("\x80\xbf"), fffd + fffd);  // no lead
    EXPECT_EQ(valid_utf8(std::string(511, 'a') + "\xc3"), std::string(511, 'a') + fffd);
    for (const std::string broken :
         {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xff"}) {
        EXPECT_FALSE(is_valid_utf8(broken));
        EXPECT_TRUE(is_valid_utf8(valid_utf8(broken)));
    }
    // The largest and smallest of each length stay.
    for (const std::string edge :
         {"\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
          "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
        EXPECT_TRUE(is_valid_utf8(edge));
        EXPECT_EQ(valid_utf8(edge), edge);
    }
}

TEST(Utf8, EveryCutOfRepairedRandomBytesIsValid) {
    uint32_t state = 12345;
    for (int round = 0; round < 200; ++round) {
        std::string bytes;
        for (int i = 0; i < 24; ++i) {
            state = state * 1664525u + 1013904223u;
            bytes += char(state >> 24);
        }
        const std::string repaired = valid_utf8(bytes);
        ASSERT_TRUE(is_valid_utf8(repaired)) << round;
        for (size_t max = 0; max <= repaired.size(); ++max)
            ASSERT_TRUE(is_valid_utf8(utf8_prefix(repaired, max))) << round << " " << max;
    }
}

TEST(HasControl, RefusesControlsAndInvisibleReorderingButNotOrdinaryText) {
    EXPECT_FALSE(has_control("plain text, Grünfeld, 王"));
    EXPECT_TRUE(has_control("a\nb"));
    EXPECT_FALSE(has_control("a\nb\tc", "\n\t"));
    EXPECT_TRUE(has_control("a\rb", "\n\t"));
    EXPECT_TRUE(has_control("a\x7f"));
    EXPECT_TRUE(has_control("next\xc2\x85line"));  // U+0085, a C1 control
    EXPECT_TRUE(
        has_control("admin\xe2\x80\xae"
                    "nimda"));                                      // U+202E RIGHT-TO-LEFT OVERRIDE
    EXPECT_TRUE(has_control("\xe2\x81\xa6x\xe2\x81\xa9"));          // U+2066 ... U+2069 isolates
    EXPECT_TRUE(has_control("one\xe2\x80\xa8two"));                 // U+2028 LINE SEPARATOR
    EXPECT_TRUE(has_control("one\xe2\x80\xa9two"));                 // U+2029 PARAGRAPH SEPARATOR
    EXPECT_FALSE(has_control("\xe2\x80\x94 an em dash"));           // U+2014: an ordinary character
    EXPECT_FALSE(has_control("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"));  // Hebrew: implicit order only
}

// Issue 49: names that look alike but differ by a character that shows as nothing or as a
// blank are refused; letters of every script, emoji and the ASCII space are not.
TEST(HasInvisible, FindsFormatCharactersAndOddSpacesButNotLettersOrSymbols) {
    for (const char* invisible : {
             "\xe2\x80\x8b",      // U+200B ZERO WIDTH SPACE
             "\xe2\x80\x8c",      // U+200C ZERO WIDTH NON-JOINER
             "\xe2\x80\x8d",      // U+200D ZERO WIDTH JOINER
             "\xe2\x80\x8e",      // U+200E LEFT-TO-RIGHT MARK
             "\xc2\xad",          // U+00AD SOFT HYPHEN
             "\xef\xbb\xbf",      // U+FEFF BYTE ORDER MARK
             "\xc2\xa0",          // U+00A0 NO-BREAK SPACE
             "\xe2\x80\xaf",      // U+202F NARROW NO-BREAK SPACE
             "\xe3\x80\x80",      // U+3000 IDEOGRAPHIC SPACE
             "\xe2\x81\xa0",      // U+2060 WORD JOINER
             "\xe2\x80\xae",      // U+202E RIGHT-TO-LEFT OVERRIDE
             "\xe2\x80\xa8",      // U+2028 LINE SEPARATOR
             "\xd8\x9c",          // U+061C ARABIC LETTER MARK
             "\xe1\x85\x9f",      // U+115F HANGUL CHOSEONG FILLER
             "\xef\xb8\x8f",      // U+FE0F VARIATION SELECTOR-16
             "\xf3\xa0\x80\x81",  // U+E0001 LANGUAGE TAG
         }) {
        EXPECT_TRUE(has_invisible(std::string("ali") + invisible + "ce")) << printable(invisible);
        EXPECT_TRUE(has_invisible(invisible)) << printable(invisible);
    }
    EXPECT_FALSE(has_invisible("alice bob-2, Gr\xc3\xbcnfeld, \xe7\x8e\x8b"));
    EXPECT_FALSE(has_invisible("\xe2\x80\x94 \xf0\x9f\x98\x80"));     // U+2014 and an emoji
    EXPECT_FALSE(has_invisible("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"));  // Hebrew
    EXPECT_FALSE(has_invisible("\xe2\x80"));  // broken UTF-8 is not this check's to find
}

}  // namespace
}  // namespace sparring

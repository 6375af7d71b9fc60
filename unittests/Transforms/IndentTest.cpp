//===- IndentTest.cpp - Generated code in the file's own layout ----------===//
#include "Indent.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

TEST(Indent, DetectsTheStep) {
  EXPECT_EQ(detectIndentStyle("void f() {\n   if (x) {\n      y();\n   }\n}\n")
                .Unit,
            "   ");
  EXPECT_EQ(detectIndentStyle("void f() {\n    g();\n}\n").Unit, "    ");
  EXPECT_EQ(detectIndentStyle("void f() {\n\tg();\n\tif (x) {\n\t\th();\n\t}\n}\n")
                .Unit,
            "\t");
  EXPECT_EQ(detectIndentStyle("int x;\n").Unit, "  ");
}

TEST(Indent, DetectsBraceStyleFromControlStatementsOnly) {
  // A function's own brace on its line does not make the file Allman.
  EXPECT_FALSE(detectIndentStyle("void f()\n{\n  if (x) {\n    y();\n  }\n}\n")
                   .BraceOnOwnLine);
  EXPECT_TRUE(detectIndentStyle("void f() {\n  if (x)\n  {\n    y();\n  }\n}\n")
                  .BraceOnOwnLine);
}

TEST(Indent, LaysOutByDepth) {
  IndentStyle S;
  S.Unit = "   ";
  EXPECT_EQ(layoutBlock("if (a) {\nx();\nif (b)\n  y();\n} else {\nz();\n}",
                        "   ", S),
            "if (a) {\n      x();\n      if (b)\n         y();\n   } else {\n"
            "      z();\n   }");
}

TEST(Indent, KeepsPragmasWithTheirLoopAndContinuations) {
  IndentStyle S;
  S.Unit = "\t";
  EXPECT_EQ(layoutBlock("{\n#pragma unroll\nfor (;;) {\nf(a &&\nb);\n}\n}", "\t",
                        S),
            "{\n\t\t#pragma unroll\n\t\tfor (;;) {\n\t\t\tf(a &&\n\t\t\t\t\tb);\n"
            "\t\t}\n\t}");
}

TEST(Indent, CopiedLinesKeepTheirAlignment) {
  IndentStyle S;
  S.Unit = "    ";
  // A loop copied with its indentation (4) and an aligned continuation.
  EXPECT_EQ(layoutBlock("} else {\n    for (int i = 0; i < n;\n         i += s)\n"
                        "        f(i);\n}",
                        "    ", S),
            "} else {\n        for (int i = 0; i < n;\n             i += s)\n"
            "            f(i);\n    }");
}

TEST(Indent, BracesOnTheirOwnLine) {
  IndentStyle S;
  S.Unit = "  ";
  S.BraceOnOwnLine = true;
  EXPECT_EQ(layoutBlock("if (a) {\nx();\n} else {\ny();\n}", "", S),
            "if (a)\n{\n  x();\n}\nelse\n{\n  y();\n}");
}

} // namespace

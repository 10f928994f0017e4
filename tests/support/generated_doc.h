// A page under docs/ that is generated from a table in the code must equal what the code
// generates now; RINGSIM_UPDATE_DOCS=1 rewrites it instead of failing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#define RINGSIM_EXPECT_GENERATED_DOC(relative_path, generated)                                     \
    do {                                                                                           \
        const std::string doc_path_ = std::string(RINGSIM_SOURCE_DIR) + "/" + (relative_path);     \
        const std::string doc_text_ = (generated);                                                 \
        if (std::getenv("RINGSIM_UPDATE_DOCS") != nullptr) {                                       \
            std::ofstream(doc_path_) << doc_text_;                                                 \
            GTEST_SKIP() << "rewrote " << doc_path_;                                               \
        }                                                                                          \
        std::ifstream doc_in_(doc_path_);                                                          \
        std::stringstream doc_current_;                                                            \
        doc_current_ << doc_in_.rdbuf();                                                           \
        EXPECT_EQ(doc_current_.str(), doc_text_)                                                   \
            << doc_path_ << " is out of date: run the test with RINGSIM_UPDATE_DOCS=1";            \
    } while (0)

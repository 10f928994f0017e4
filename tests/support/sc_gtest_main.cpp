// gtest's main, reached through sc_main so that tests may elaborate and run SystemC.
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

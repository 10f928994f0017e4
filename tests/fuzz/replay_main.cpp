// The replay driver of the normal (non-libFuzzer) build: runs every file named on the command
// line, and every file under every directory named, through the target's
// LLVMFuzzerTestOneInput, one at a time. A crash, a sanitizer report or a failed check stops
// it with that error; otherwise it prints how many inputs ran and exits 0 (1 if none did, or
// an argument cannot be read).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const fs::path arg = argv[i];
        std::error_code ec;
        if (fs::is_directory(arg, ec)) {
            for (const auto& e : fs::recursive_directory_iterator(arg))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (fs::is_regular_file(arg, ec)) {
            files.push_back(arg);
        } else {
            std::cerr << "fuzz replay: cannot read " << arg.string() << "\n";
            return 1;
        }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                      std::istreambuf_iterator<char>()};
        if (!in.eof() && in.fail()) {
            std::cerr << "fuzz replay: cannot read " << f.string() << "\n";
            return 1;
        }
        // An exact-size heap copy, as libFuzzer passes it: a read past the end is caught.
        std::vector<uint8_t> input(bytes.begin(), bytes.end());
        std::cerr << "fuzz replay: " << f.string() << "\n";
        LLVMFuzzerTestOneInput(input.data(), input.size());
    }
    std::cout << "fuzz replay: " << files.size() << " inputs ran, none crashed\n";
    return files.empty() ? 1 : 0;
}

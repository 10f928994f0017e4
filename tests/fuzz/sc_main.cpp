// Debian's libsystemc.so refers to sc_main; the fuzz targets and their replay driver start no
// simulation, so this one is never called.
extern "C" int sc_main(int, char*[]) {
    return 0;
}

# Everything comes from Debian packages (tools/setup.sh installs them); nothing is
# downloaded at build time.

# SystemC: Debian's libsystemc-dev ships only pkg-config files; an installed
# SystemCLanguage CMake package (e.g. a SYSTEMC_HOME build) is the fallback.
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(SystemC IMPORTED_TARGET systemc>=2.3.4)
endif()
if(TARGET PkgConfig::SystemC)
  add_library(ringsim_systemc INTERFACE)
  target_link_libraries(ringsim_systemc INTERFACE PkgConfig::SystemC)
else()
  if(DEFINED ENV{SYSTEMC_HOME})
    list(APPEND CMAKE_PREFIX_PATH $ENV{SYSTEMC_HOME})
  endif()
  find_package(SystemCLanguage CONFIG REQUIRED)
  add_library(ringsim_systemc INTERFACE)
  target_link_libraries(ringsim_systemc INTERFACE SystemC::systemc)
endif()

find_package(nlohmann_json 3.10 REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(Threads REQUIRED)
if(RINGSIM_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

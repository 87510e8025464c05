// Empty on purpose: CMake builds a target's precompiled header only for a
// target that compiles a source with it, and tunectl_test_main's other
// source (catch_main.cpp) cannot use it; every test executable reuses the
// header this file is compiled with (test/CMakeLists.txt).
